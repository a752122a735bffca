"""The OpenAPI 3.1 document, generated from the operations and their pydantic models."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

import engine

from . import models as m
from .errors import STATUS_BY_CODE
from .operations import OPERATIONS, Operation
from .service.idempotency import IDEMPOTENT_METHODS, KEY_HEADER, KEY_MAX_LENGTH, REPLAYED_HEADER

REF = "#/components/schemas/{model}"
PATH_PARAM = re.compile(r"{(\w+)}")


def _error_response(codes: list[str]) -> dict:
    return {
        "description": "Error: " + ", ".join(codes),
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}},
    }


def _success_schema(operation: Operation) -> dict:
    if operation.raw:
        return {"$ref": REF.format(model="DesignTree")}
    data = {"$ref": REF.format(model=operation.response.__name__)} if operation.response else {"type": "object"}
    return {
        "type": "object",
        "required": ["status", "data", "error"],
        "properties": {"status": {"const": "success"}, "data": data, "error": {"type": "null"}},
    }


def _parameters(operation: Operation, schemas: dict) -> list[dict]:
    params = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}
        for name in PATH_PARAM.findall(operation.path)
    ]
    if operation.query is not None:
        schema = operation.query.model_json_schema()
        for name, prop in schema["properties"].items():
            prop = {k: v for k, v in prop.items() if k != "title"}
            if "anyOf" in prop:  # Optional[str]: query parameters are absent rather than null
                prop = next(p for p in prop["anyOf"] if p.get("type") != "null") | {
                    k: v for k, v in prop.items() if k not in ("anyOf", "default")
                }
            params.append({"name": name, "in": "query", "required": False, "schema": prop})
    if operation.method in IDEMPOTENT_METHODS:
        params.append(
            {
                "name": KEY_HEADER,
                "in": "header",
                "required": False,
                "description": "Send the same key when retrying: the first answer (any but a 5xx) is replayed "
                "for 24 hours with `Idempotent-Replayed: true`, and the request runs (and is charged) once.",
                "schema": {"type": "string", "minLength": 1, "maxLength": KEY_MAX_LENGTH, "pattern": "^[!-~]+$"},
            }
        )
    return params


def _request_body(operation: Operation) -> dict | None:
    if operation.body is not None:
        return {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": REF.format(model=operation.body.__name__)}}},
        }
    if operation.multipart is not None:
        properties: dict[str, Any] = {"file": {"type": "string", "format": "binary"}}
        for field in operation.multipart.fields:
            properties[field] = operation.multipart.field_schema(field)
        return {
            "required": True,
            "content": {
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "required": ["file"],
                        "properties": properties,
                        "additionalProperties": False,
                    }
                }
            },
        }
    return None


# Sent when the server runs with --rate-limit (the manual, "Rate limits"), on errors too.
RATE_LIMIT_HEADERS = {
    "RateLimit-Limit": {"description": "requests per second this workspace may make", "schema": {"type": "integer"}},
    "RateLimit-Remaining": {"description": "whole requests left in the bucket now", "schema": {"type": "integer"}},
    "RateLimit-Reset": {"description": "seconds until the bucket is full again", "schema": {"type": "integer"}},
}
RETRY_AFTER_HEADER = {
    "Retry-After": {"description": "seconds to wait before sending again", "schema": {"type": "integer"}}
}


def _operation(operation: Operation, schemas: dict) -> dict:
    codes = ["VALIDATION_ERROR", "UNAUTHORIZED", "INSUFFICIENT_PERMISSIONS", "RATE_LIMITED", *operation.errors]
    if operation.body is not None or operation.multipart is not None:
        codes += ["UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"]
    if operation.multipart is not None:  # a body that stops arriving; too many in flight, a full disk
        codes += ["REQUEST_TIMEOUT", "SERVICE_UNAVAILABLE"]
    success: dict[str, Any] = {
        "description": operation.summary,
        "content": {"application/json": {"schema": _success_schema(operation)}},
    }
    if operation.method in IDEMPOTENT_METHODS:
        codes += ["IDEMPOTENCY_KEY_IN_USE", "IDEMPOTENCY_KEY_REUSED"]
        success["headers"] = {
            REPLAYED_HEADER: {
                "description": "`true` when this is the kept answer to an earlier request with the same key",
                "schema": {"type": "string", "enum": ["true"]},
            }
        }
    success["headers"] = {**success.get("headers", {}), **RATE_LIMIT_HEADERS}
    responses: dict[str, Any] = {str(operation.status): success}
    by_status: dict[int, list[str]] = {}
    for code in dict.fromkeys(codes):  # each once, in order
        by_status.setdefault(STATUS_BY_CODE[code], []).append(code)
    for status, grouped in sorted(by_status.items()):
        responses[str(status)] = _error_response(grouped)
    responses[str(STATUS_BY_CODE["RATE_LIMITED"])]["headers"] = {**RETRY_AFTER_HEADER, **RATE_LIMIT_HEADERS}
    spec: dict[str, Any] = {
        "operationId": operation.name,
        "summary": operation.summary,
        "parameters": _parameters(operation, schemas),
        "responses": responses,
        "security": [{"ApiKey": []}],
    }
    if operation.description:
        spec["description"] = operation.description
    body = _request_body(operation)
    if body:
        spec["requestBody"] = body
    return spec


def document(base_url: str = "") -> dict:
    models: list[type[BaseModel]] = [engine.DesignTree, m.ErrorBody, m.Health]
    for operation in OPERATIONS:
        models += [x for x in (operation.body, operation.response) if x is not None]
    _, defs = models_json_schema(
        [
            (model, "validation" if model in {op.body for op in OPERATIONS} else "serialization")
            for model in dict.fromkeys(models)
        ],
        ref_template=REF,
    )
    schemas = defs.get("$defs", {})
    schemas["ErrorEnvelope"] = {
        "type": "object",
        "required": ["status", "data", "error"],
        "properties": {
            "status": {"const": "error"},
            "data": {"type": "null"},
            "error": {"$ref": REF.format(model="ErrorBody")},
        },
    }
    paths: dict[str, dict] = {}
    for operation in OPERATIONS:
        paths.setdefault(operation.path, {})[operation.method.lower()] = _operation(operation, schemas)
    paths["/health"] = {
        "get": {
            "operationId": "health",
            "summary": "Readiness: 200 once the server can serve; no API key needed",
            "security": [],
            "responses": {
                "200": {
                    "description": "ready",
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "status": {"const": "success"},
                                    "data": {"$ref": REF.format(model="Health")},
                                    "error": {"type": "null"},
                                },
                            }
                        }
                    },
                }
            },
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "docbench document generation API", "version": "1.0.0"},
        "servers": [{"url": f"{base_url.rstrip('/')}/api/v1"}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"ApiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
        },
    }
