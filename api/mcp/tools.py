"""MCP tools generated from the API's operations: same names as decisions.md, input
schemas from the same pydantic models as the REST bodies, the same `data` as results."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

import engine
from engine.elements import ELEMENT_TYPES

from ..errors import ApiError, validation
from ..operations import OPERATIONS, Call, Operation, UploadedFile, parse_model
from ..renderers import Cancellation
from ..service import Service, Workspace
from ..service.idempotency import IDEMPOTENT_METHODS, KEY_MAX_LENGTH, fingerprint
from .messages import invalid_params, json_type

PATH_PARAM = re.compile(r"{(\w+)}")
REF = "#/$defs/{model}"

# What a model that has never seen this API needs to know, beyond each route's summary.
GUIDANCE = {
    "create_design": "Creates an empty design (one blank page) and returns its designId. It does not add content: "
    "author it next with patch_design_tree.",
    "patch_design_tree": "The way to author a design: send 1-500 actions in order; they are applied atomically (all "
    "or nothing; on failure the error names actions[i]). add_element never takes an id (the server mints it); "
    "elements are addressed later by their unique name. Positions are in points from the page's top-left; each "
    "element type takes its own (from the types' own declarations): "
    + "; ".join(f"{name}: {element.summary}" for name, element in ELEMENT_TYPES.items())
    + ". bind_variable makes an element fillable by generate_pdf. list_actions has every action's argument schema.",
    "generate_pdf": "Renders one PDF (1 credit) with values for the design's variables (element name -> value: text "
    "strings, table 2-D arrays with the header row first, image refs 'uploads:<id>'/'assets:<id>'). Returns a "
    "download URL valid for an hour. output {format: png|jpeg, dpi} gives pictures of the pages instead (one page: "
    "the picture; more: a ZIP of page-001.png…), same credit. append/prepend put uploaded PDFs (refs, or "
    "{ref, pages: '1-3,5'}) after/before the generated pages, e.g. terms and conditions. A design's form fields "
    "(field elements) stay fillable; flatten: true draws their values as plain content instead.",
    "preview_page": "Renders one page to PNG with design-time content (free); use it to look at your work.",
    "preview_with_values": "Try values before spending a credit: the page as generate_pdf would draw it with these "
    "values (same value rules and errors), as a PNG watermarked PREVIEW.",
    "upload_image": "Uploads an image given as base64 (PNG, JPEG, WebP or SVG, at most 1 MB) and returns its ref "
    "'uploads:<id>' for an image element's data.src or an image variable. A PDF (at most 200 pages, not encrypted) "
    "is accepted too: its pages are placed as vector content, as a page background (backgroundPageNumber) or an "
    "image's src (data.pageNumber), or make a design of it with create_design's basePdf.",
    "submit_batch": "Queues 1-100 PDFs, one per row of values (1 credit per row, taken now; failed rows are "
    "refunded). Poll get_batch until completed, then get_batch_download; or give a webhookUrl (https) to be "
    "POSTed a signed batch.completed or batch.failed event when it ends. merge: true also makes one PDF of every "
    "successful row (get_batch_download with merged: true); output {format: png|jpeg} makes pictures of each row; "
    'sheet {preset: "L7160"} (list_sheets) prints the rows on label sheets, one label per row, and '
    "get_batch_download then gives the PDF of sheets.",
    "upload_signing_certificate": "Give the PKCS#12 (a certificate with its private key; at most 256 KB) as base64 "
    "in file, and its password. It is kept encrypted and never returned; generate_pdf and submit_batch with sign: "
    "true then sign with it (PAdES B-B). Answers the certificate's subject, issuer and validity.",
    "rotate_webhook_secret": "Answers the new webhookSecret. The previous one stops signing at once: every webhook "
    "sent afterwards, retries of earlier events included, is signed with the new one.",
    "get_design_tree": "The full design tree: pages, nodes (elements by id) and variables.",
    "list_variables": "What generate_pdf and submit_batch take: each variable's name, kind (text, image, table, "
    "code, icon, color, field: a {name} placeholder inside a text, or field-value: a form field's initial value), "
    "what a value must be and its sample.",
    "list_sheets": "The presets submit_batch's sheet.preset takes; the design's page must be at most the "
    "labelWidth × labelHeight given (in points): set it with update_page.",
    "delete_design": "There is no undo: afterwards every tool answers DESIGN_NOT_FOUND for it.",
    "duplicate_design": "Use it to try changes on a copy: patching the copy leaves the original as it is.",
}


KEY_ARGUMENT = "idempotencyKey"
IDEMPOTENCY_GUIDANCE = (
    "Retrying after a timeout? Pass the same idempotencyKey (e.g. a UUID per intended call) with the same "
    "arguments: the call runs once (one charge) and a retry gets the first result again, marked "
    '_meta["docbench/idempotentReplayed"]; another call with that key is IDEMPOTENCY_KEY_REUSED, one while '
    "the first still runs IDEMPOTENCY_KEY_IN_USE."
)


def idempotency_key(op: Operation | None, arguments: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """The call's idempotency key (None without one) and its other arguments. A key on a
    tool that only reads is an unknown argument, as any other would be."""
    if op is None or op.method not in IDEMPOTENT_METHODS or KEY_ARGUMENT not in arguments:
        return None, arguments
    rest = dict(arguments)
    key = rest.pop(KEY_ARGUMENT)
    return key, rest


def call_fingerprint(name: str, arguments: dict[str, Any]) -> str:
    """What makes two tool calls the same call: the tool and its arguments (key order aside)."""
    return fingerprint("MCP", name, json.dumps(arguments, sort_keys=True, separators=(",", ":")).encode())


class ToolSet:
    def __init__(self) -> None:
        self.operations = {op.name: op for op in OPERATIONS}
        self.tools = [self._tool(op) for op in OPERATIONS]
        self._argument_types = {
            tool["name"]: {key: _json_types(schema) for key, schema in tool["inputSchema"]["properties"].items()}
            for tool in self.tools
        }

    def _tool(self, op: Operation) -> dict:
        description = op.summary + "." + (" " + GUIDANCE[op.name] if op.name in GUIDANCE else "")
        if op.method in IDEMPOTENT_METHODS:
            description += " " + IDEMPOTENCY_GUIDANCE
        return {
            "name": op.name,
            "description": description,
            "inputSchema": self._input_schema(op),
            "outputSchema": self._output_schema(op),
        }

    @staticmethod
    def _input_schema(op: Operation) -> dict:
        properties: dict[str, Any] = {}
        required: list[str] = []
        defs: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for name in PATH_PARAM.findall(op.path):
            properties[name] = {"type": "string", "minLength": 1}
            required.append(name)
        for model in (op.query, op.body):
            if model is None:
                continue
            schema = model.model_json_schema(ref_template=REF)
            defs.update(schema.pop("$defs", {}))
            properties.update(schema.get("properties", {}))
            required += schema.get("required", [])
            extra.update({k: schema[k] for k in ("dependentRequired", "not", "anyOf") if k in schema})
        if op.name == "patch_design_tree":
            properties["actions"] = {
                "type": "array",
                "minItems": 1,
                "maxItems": 500,
                "items": {"oneOf": _action_schemas(defs)},
            }
        if op.multipart is not None:
            properties["file"] = {
                "type": "string",
                "contentEncoding": "base64",
                "description": f"The {op.multipart.file}, base64",
            }
            properties["filename"] = {"type": "string", "description": "Its file name (the default name)"}
            for field in op.multipart.fields:
                properties[field] = op.multipart.field_schema(field)
            required.append("file")
        if op.method in IDEMPOTENT_METHODS:
            properties[KEY_ARGUMENT] = {
                "type": "string",
                "minLength": 1,
                "maxLength": KEY_MAX_LENGTH,
                "pattern": "^[!-~]+$",
                "description": "Optional: the same key on a retry returns the first call's result (kept 24 hours) "
                "instead of running it again",
            }
        schema = {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
            **extra,
        }
        if defs:
            schema["$defs"] = defs
        return schema

    @staticmethod
    def _output_schema(op: Operation) -> dict:
        model = engine.DesignTree if op.raw else op.response
        if model is None:
            return {"type": "object"}
        schema = model.model_json_schema(mode="serialization", ref_template=REF)
        return schema

    def check(self, name: str, arguments: dict[str, Any]) -> None:
        """Invalid params (a protocol error, MCP "Tools", "Error Handling"): an unknown tool, or an
        argument whose JSON type is not its input schema's. Checked before anything runs, so a
        refused call stores nothing; other faults in the values are the tool's VALIDATION_ERROR."""
        types = self._argument_types.get(name)
        if types is None:
            raise invalid_params(f"unknown tool {name[:100]!r}; tools/list names them")
        for key, value in arguments.items():
            expected = types.get(key)
            if expected and expected.isdisjoint(_types_of(value)):
                raise invalid_params(
                    f"arguments.{key} must be of type {' or '.join(sorted(expected))}, not {json_type(value)} "
                    f"(the inputSchema of {name} in tools/list)"
                )

    def call(
        self,
        service: Service,
        ws: Workspace,
        name: str,
        arguments: dict[str, Any],
        cancel: Cancellation | None = None,
    ) -> dict:
        """Run a tool; an ApiError becomes the caller's to turn into an error result."""
        self.check(name, arguments)
        op = self.operations[name]
        call = self._call(op, dict(arguments or {}))
        call.cancel = cancel
        call.source = "mcp"  # the revisions it saves say so (extensions.md 16)
        result = op.run(service, ws, call)
        return json.loads(result) if op.raw else result

    @staticmethod
    def _call(op: Operation, args: dict[str, Any]) -> Call:
        call = Call()
        for name in PATH_PARAM.findall(op.path):
            value = args.pop(name, None)
            if not isinstance(value, str) or not value:
                raise validation(f"{name}: required (a string)")
            call.params[name] = value
        if op.multipart is not None:
            encoded = args.pop("file", None)
            try:
                data = base64.b64decode(encoded or "", validate=True)
            except (binascii.Error, ValueError, TypeError):
                raise validation(f"file: give the {op.multipart.file} as a base64 string") from None
            call.file = UploadedFile(data, args.pop("filename", None))
            call.form = {k: str(args.pop(k)) for k in op.multipart.fields if k in args}
        for model, slot in ((op.query, "query"), (op.body, "body")):
            if model is None:
                continue
            mine = {k: args.pop(k) for k in list(args) if k in model.model_fields}
            setattr(call, slot, parse_model(model, mine, "arguments", prefix=""))
        if args:
            raise validation(f"unknown argument(s): {', '.join(sorted(args))}")
        return call


def _action_schemas(defs: dict[str, Any]) -> list[dict]:
    """Each action as {type, args}, with the catalog's argument schema (GET /actions)."""
    out = []
    for entry in engine.catalog():
        args = dict(entry["args"])  # its $defs use the default "#/$defs/" refs, as the tool schema does
        defs.update(args.pop("$defs", {}))
        out.append(
            {
                "type": "object",
                "description": entry["description"],
                "properties": {"type": {"const": entry["name"]}, "args": args},
                "required": ["type", "args"],
                "additionalProperties": False,
            }
        )
    return out


def _json_types(schema: dict[str, Any]) -> frozenset[str]:
    """The JSON types a property's schema admits at its top level; empty if it does not say."""
    if "type" in schema:
        kind = schema["type"]
        return frozenset([kind] if isinstance(kind, str) else kind)
    alternatives = schema.get("anyOf") or schema.get("oneOf") or []
    found = [_json_types(alternative) for alternative in alternatives]
    return frozenset().union(*found) if found and all(found) else frozenset()


def _types_of(value: Any) -> set[str]:
    """The JSON schema types a parsed value satisfies (5.0 is an integer there)."""
    if value is None:
        return {"null"}
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"integer", "number"} if value.is_integer() else {"number"}
    if isinstance(value, str):
        return {"string"}
    return {"array"} if isinstance(value, list) else {"object"}


def error_result(error: ApiError) -> dict:
    body = {"code": error.code, "message": error.message}
    return {"content": [{"type": "text", "text": json.dumps(body)}], "structuredContent": body, "isError": True}


def success_result(data: Any) -> dict:
    return {"content": [{"type": "text", "text": json.dumps(data)}], "structuredContent": data, "isError": False}
