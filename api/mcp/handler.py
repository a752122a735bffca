"""The MCP endpoint (`/mcp`): streamable HTTP transport, JSON-RPC 2.0 over POST.

Authenticated by X-API-Key like REST (401/403 enveloped at the HTTP level); tools are
the API's operations (tools.py) and run on the same executor as REST handlers.
Responses are plain JSON (the transport allows it); there is no server-initiated
stream, so GET answers 405.
"""

from __future__ import annotations

import json
import threading
import uuid
from typing import Any

from tornado.ioloop import IOLoop

from ..errors import ApiError
from ..operations import Executors
from ..rest.base import EnvelopeHandler
from ..service import Service
from . import extras
from .tools import ToolSet, error_result, success_result

SUPPORTED_VERSIONS = ("2025-06-18", "2025-11-25")
SERVER_INFO = {"name": "docbench", "version": "1.0.0"}
INSTRUCTIONS = (
    "docbench makes PDFs from designs. Create a design, author it with patch_design_tree (atomic batches of "
    "actions), preview it, then generate_pdf or submit_batch with values for its variables."
)


class Sessions:
    def __init__(self) -> None:
        self._ids: dict[str, str] = {}  # session id -> workspace id
        self._guard = threading.Lock()

    def open(self, workspace_id: str) -> str:
        session = uuid.uuid4().hex
        with self._guard:
            self._ids[session] = workspace_id
        return session

    def belongs(self, session: str, workspace_id: str) -> bool:
        with self._guard:
            return self._ids.get(session) == workspace_id

    def close(self, session: str) -> None:
        with self._guard:
            self._ids.pop(session, None)


def _error(message_id: Any, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": message}}


class McpHandler(EnvelopeHandler):
    def initialize(self, service: Service, executors: Executors, tools: ToolSet, sessions: Sessions) -> None:
        self.service = service
        self.executors = executors
        self.tools = tools
        self.sessions = sessions

    def allowed_methods(self) -> list[str]:
        return ["POST", "DELETE"]

    def prepare(self) -> None:
        super().prepare()
        self.workspace = self.service.accounts.authenticate(self.request.headers.get("X-API-Key"))
        self.workspace.require("useApiKeys")

    def get(self) -> None:
        raise ApiError("METHOD_NOT_ALLOWED", "this server sends no unsolicited messages: POST JSON-RPC requests")

    def delete(self) -> None:
        self.sessions.close(self.request.headers.get("Mcp-Session-Id", ""))
        self.set_status(200)
        self.finish(json.dumps({}))

    async def post(self) -> None:
        try:
            message = json.loads(self.request.body or b"null")
        except (ValueError, UnicodeDecodeError, RecursionError):
            return self._reply(400, _error(None, -32700, "parse error: the body is not JSON"))
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or "method" not in message:
            return self._reply(400, _error(None, -32600, "invalid request: send one JSON-RPC 2.0 message"))
        method, message_id = message["method"], message.get("id")
        if method != "initialize":
            session = self.request.headers.get("Mcp-Session-Id")
            if not session:
                return self._reply(400, _error(message_id, -32600, "missing Mcp-Session-Id: initialize first"))
            if not self.sessions.belongs(session, self.workspace.id):
                return self._reply(404, _error(message_id, -32001, "unknown session: initialize again"))
        if "id" not in message:  # a notification (notifications/initialized, cancelled…)
            self.set_status(202)
            return self.finish()
        params = message.get("params") or {}
        try:
            result = await self._answer(method, params)
        except ApiError as exc:
            return self._reply(200, _error(message_id, -32602, exc.message))
        if result is None:
            return self._reply(200, _error(message_id, -32601, f"method not found: {method}"))
        self._reply(200, {"jsonrpc": "2.0", "id": message_id, "result": result})

    async def _answer(self, method: str, params: dict) -> dict | None:
        if method == "initialize":
            requested = params.get("protocolVersion")
            version = requested if requested in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[-1]
            self.set_header("Mcp-Session-Id", self.sessions.open(self.workspace.id))
            return {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": False}, "resources": {}, "prompts": {}},
                "serverInfo": SERVER_INFO,
                "instructions": INSTRUCTIONS,
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": self.tools.tools}
        if method == "tools/call":
            return await self._call_tool(params.get("name", ""), params.get("arguments") or {})
        if method == "resources/list":
            return extras.list_resources()
        if method == "resources/read":
            found = extras.read_resource(str(params.get("uri", "")))
            if found is None:
                raise ApiError("NOT_FOUND", f"no resource {params.get('uri')!r}; resources/list names them")
            return found
        if method == "prompts/list":
            return extras.list_prompts()
        if method == "prompts/get":
            found = extras.get_prompt(str(params.get("name", "")), params.get("arguments"))
            if found is None:
                raise ApiError("NOT_FOUND", f"no prompt {params.get('name')!r}; prompts/list names them")
            return found
        return None

    async def _call_tool(self, name: str, arguments: dict) -> dict:
        if not isinstance(arguments, dict):
            return error_result(ApiError("VALIDATION_ERROR", "arguments must be an object"))
        try:
            operation = self.tools.operations.get(name)
            executor = self.executors.pick(operation) if operation else self.executors.light
            data = await IOLoop.current().run_in_executor(
                executor, self.tools.call, self.service, self.workspace, name, arguments
            )
        except ApiError as exc:
            return error_result(exc)
        return success_result(data)

    def _reply(self, status: int, body: dict) -> None:
        self.set_status(status)
        self.finish(json.dumps(body))
