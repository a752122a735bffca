"""The MCP endpoint (`/mcp`): streamable HTTP transport, JSON-RPC 2.0 over POST.

Authenticated by X-API-Key like REST (401/403 enveloped at the HTTP level); a browser
request from another site's Origin is refused with 403 first (origin.py). Tools are the
API's operations (tools.py) and run on the same threads as REST handlers. Responses are
plain JSON (the transport allows it); there is no server-initiated stream, so GET answers
405. Sessions (sessions.py) expire when idle; an unknown one answers 404, so the client
initialises again (transport, "Session Management").
"""

from __future__ import annotations

import functools
import json
from concurrent.futures import Executor
from typing import Any

from tornado.ioloop import IOLoop

from ..errors import STATUS_BY_CODE, ApiError
from ..http import EnvelopeHandler
from ..operations import Executors
from ..renderers import Cancellation
from ..service import Service
from ..service.idempotency import Answer
from . import extras, origin
from .messages import InvalidMessage, check_envelope, check_params, usable_id
from .sessions import Sessions
from .tools import ToolSet, call_fingerprint, error_result, idempotency_key, success_result

SUPPORTED_VERSIONS = ("2025-06-18", "2025-11-25")
SERVER_INFO = {"name": "docbench", "version": "1.0.0"}
INSTRUCTIONS = (
    "docbench makes PDFs from designs. Create a design, author it with patch_design_tree (atomic batches of "
    "actions), preview it, then generate_pdf or submit_batch with values for its variables."
)
SESSION_NOT_FOUND = -32001  # as the MCP SDKs answer an unknown session
REPLAYED_META = "docbench/idempotentReplayed"  # in a replayed tool result's _meta


def _error(message_id: Any, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": message}}


class McpHandler(EnvelopeHandler):
    def initialize(self, service: Service, executors: Executors, tools: ToolSet, sessions: Sessions) -> None:
        self.service = service
        self.executors = executors
        self.cancel = Cancellation()
        self.tools = tools
        self.sessions = sessions

    def on_connection_close(self) -> None:
        # The agent went away: its render is stopped and its generation not charged (the manual, "Limits").
        self.cancel.cancel()
        super().on_connection_close()

    def allowed_methods(self) -> list[str]:
        return ["POST", "DELETE"]

    def on_finish(self) -> None:
        self.service.metrics.request("mcp", self.request.method or "", self.get_status(), self.request.request_time())

    async def prepare(self) -> None:
        super().prepare()
        sent_origin = self.request.headers.get("Origin")
        if sent_origin is not None:
            refused = origin.refusal(sent_origin, self.service.settings)
            if refused:
                raise ApiError("INSUFFICIENT_PERMISSIONS", refused)
        await self.admit(self.service, self.executors.light)

    def get(self) -> None:
        raise ApiError("METHOD_NOT_ALLOWED", "this server sends no unsolicited messages: POST JSON-RPC requests")

    def delete(self) -> None:
        session = self.request.headers.get("Mcp-Session-Id")
        if not session:
            return self._reply(400, _error(None, -32600, "missing Mcp-Session-Id: name the session to close"))
        # Another workspace's session is as unknown to this key as one that never existed.
        if not self.sessions.close(session, self.workspace.id):
            return self._reply(404, _error(None, SESSION_NOT_FOUND, "unknown or expired session"))
        self._reply(200, {})

    async def post(self) -> None:
        try:
            message = json.loads(self.request.body or b"null")
        except (ValueError, UnicodeDecodeError, RecursionError):
            return self._reply(400, _error(None, -32700, "parse error: the body is not JSON"))
        message_id = usable_id(message)
        try:
            check_envelope(message)
        except InvalidMessage as exc:
            return self._reply(400, _error(message_id, exc.code, exc.message))
        method = message["method"]
        if method != "initialize":
            session = self.request.headers.get("Mcp-Session-Id")
            if not session:
                return self._reply(400, _error(message_id, -32600, "missing Mcp-Session-Id: initialize first"))
            if not self.sessions.belongs(session, self.workspace.id):
                return self._reply(
                    404, _error(message_id, SESSION_NOT_FOUND, "unknown or expired session: initialize again")
                )
        if "id" not in message:  # a notification (notifications/initialized, cancelled…)
            self.set_status(202)
            return self.finish()
        try:
            result = await self._answer(method, check_params(method, message.get("params")))
        except InvalidMessage as exc:
            return self._reply(200, _error(message_id, exc.code, exc.message))
        except ApiError as exc:
            return self._reply(200, _error(message_id, -32602, exc.message))
        if result is None:
            return self._reply(200, _error(message_id, -32601, f"method not found: {method[:100]}"))
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
            return await self._call_tool(params["name"], params.get("arguments") or {})
        if method == "resources/list":
            return extras.list_resources()
        if method == "resources/read":
            found = extras.read_resource(params["uri"])
            if found is None:
                raise ApiError("NOT_FOUND", f"no resource {params.get('uri')!r}; resources/list names them")
            return found
        if method == "prompts/list":
            return extras.list_prompts()
        if method == "prompts/get":
            found = extras.get_prompt(params["name"], params.get("arguments"))
            if found is None:
                raise ApiError("NOT_FOUND", f"no prompt {params.get('name')!r}; prompts/list names them")
            return found
        return None

    async def _call_tool(self, name: str, arguments: dict) -> dict:
        self.tools.check(name, arguments)  # before queueing: a refused call never reaches the service
        operation = self.tools.operations.get(name)
        key, arguments = idempotency_key(operation, arguments)
        if key is None:
            return await self._run_tool(name, arguments)
        # The same rules as REST's Idempotency-Key, in the same place (api/service/idempotency.py):
        # the first result is kept (an error too, unless a 5xx) and a retry with the key gets it back.
        try:
            answer, replayed = await IOLoop.current().run_in_executor(
                self._executor(name),
                self.service.idempotency.run,
                self.workspace,
                key,
                call_fingerprint(name, arguments),
                functools.partial(self._tool_answer, name, arguments),
            )
        except ApiError as exc:
            return error_result(exc)
        result = json.loads(answer.body)
        if replayed:
            result["_meta"] = {**result.get("_meta", {}), REPLAYED_META: True}
        return result

    def _tool_answer(self, name: str, arguments: dict) -> Answer:
        """A tool's result (on a thread), kept with the status REST would answer."""
        result = self._tool_result(name, arguments)
        status = STATUS_BY_CODE.get(result["structuredContent"].get("code"), 500) if result["isError"] else 200
        return Answer(status, json.dumps(result))

    async def _run_tool(self, name: str, arguments: dict) -> dict:
        return await IOLoop.current().run_in_executor(self._executor(name), self._tool_result, name, arguments)

    def _tool_result(self, name: str, arguments: dict) -> dict:
        try:
            return success_result(self.tools.call(self.service, self.workspace, name, arguments, self.cancel))
        except ApiError as exc:
            return error_result(exc)

    def _executor(self, tool: str) -> Executor:
        operation = self.tools.operations.get(tool)
        return self.executors.pick(operation) if operation else self.executors.light

    def _reply(self, status: int, body: dict) -> None:
        self.set_status(status)
        self.finish(json.dumps(body))
