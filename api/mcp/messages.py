"""Checks a JSON-RPC message before anything runs: a malformed envelope is −32600
(Invalid Request), params of the wrong shape −32602 (Invalid params), each with the reason."""

from __future__ import annotations

from typing import Any

INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

# The params each method reads: name -> (Python type of its JSON type, required). Keys not
# listed are ignored, as a newer client may send more.
PARAMS: dict[str, dict[str, tuple[type, bool]]] = {
    "initialize": {"protocolVersion": (str, False), "capabilities": (dict, False), "clientInfo": (dict, False)},
    "ping": {},
    "tools/list": {"cursor": (str, False)},
    "tools/call": {"name": (str, True), "arguments": (dict, False)},
    "resources/list": {"cursor": (str, False)},
    "resources/read": {"uri": (str, True)},
    "prompts/list": {"cursor": (str, False)},
    "prompts/get": {"name": (str, True), "arguments": (dict, False)},
}
EVERY_METHOD = {"_meta": (dict, False)}
TYPE_NAMES = {str: "a string", dict: "an object"}


class InvalidMessage(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def invalid_params(message: str) -> InvalidMessage:
    return InvalidMessage(INVALID_PARAMS, f"invalid params: {message}")


def json_type(value: Any) -> str:
    """The JSON type of a parsed value, as an error message names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def usable_id(message: Any) -> str | int | None:
    """The request's id if it is one JSON-RPC allows (MCP: a string or an integer, never null)."""
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


def check_envelope(message: Any) -> None:
    if not isinstance(message, dict):
        raise InvalidMessage(INVALID_REQUEST, "invalid request: send one JSON-RPC 2.0 message, a JSON object")
    if message.get("jsonrpc") != "2.0":
        raise InvalidMessage(INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"')
    if not isinstance(message.get("method"), str):
        raise InvalidMessage(INVALID_REQUEST, 'invalid request: "method" must be a string, the method\'s name')
    if "id" in message and usable_id(message) is None:
        raise InvalidMessage(
            INVALID_REQUEST, f'invalid request: "id" must be a string or an integer, not {json_type(message["id"])}'
        )


def check_params(method: str, params: Any) -> dict:
    """The params as an object (absent or null: empty), their known keys of the right type."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise invalid_params(f"params must be an object, not {json_type(params)}")
    for key, (kind, required) in {**EVERY_METHOD, **PARAMS.get(method, {})}.items():
        value = params.get(key)
        if value is None:  # absent or null: an optional field left out
            if required:
                raise invalid_params(f"params.{key} is required, {TYPE_NAMES[kind]}")
        elif not isinstance(value, kind):
            raise invalid_params(f"params.{key} must be {TYPE_NAMES[kind]}, not {json_type(value)}")
    return params
