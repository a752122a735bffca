"""What every HTTP face shares (REST and MCP): the envelope (spec 2.1), request ids,
default headers, and the one place where errors become HTTP responses."""

from __future__ import annotations

import json
import logging
import uuid
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any

from tornado.ioloop import IOLoop
from tornado.web import HTTPError, RequestHandler

from .blocking import WouldWait, without_waiting
from .errors import ApiError, unreachable
from .renderers import TaskCancelled
from .service.common import Workspace

if TYPE_CHECKING:
    from .service import Service

log = logging.getLogger("docbench.api")

HTTP_CODES = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE"}


def envelope(data: Any) -> str:
    return json.dumps({"status": "success", "data": data, "error": None}, separators=(",", ":"))


def error_envelope(code: str, message: str) -> str:
    return json.dumps({"status": "error", "data": None, "error": {"code": code, "message": message}})


class EnvelopeHandler(RequestHandler):
    """Answers in the envelope, errors included; never a stack trace."""

    request_id: str
    workspace: Workspace  # the caller, once `admit` has run
    # RateLimit-* (and Retry-After) once the caller is known: defaults, so an error's clear() keeps them.
    rate_headers: dict[str, str] = {}

    def prepare(self) -> None:
        self.request_id = uuid.uuid4().hex[:12]
        self.set_header("X-Request-Id", self.request_id)

    def set_default_headers(self) -> None:
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        for name, value in self.rate_headers.items():
            self.set_header(name, value)

    async def admit(self, service: Service, executor: Executor) -> None:
        """The caller's workspace from its X-API-Key, and one token of its rate limit
        (api.ratelimit): every answer then carries the RateLimit-* headers; past the limit,
        429 RATE_LIMITED with Retry-After. On the event loop when the key's workspace is
        remembered and the limit kept here; else on a thread: on PostgreSQL the key is a query and
        a shared bucket a Redis round trip, and the event loop must not wait on either (api.blocking)."""
        key = self.request.headers.get("X-API-Key")
        try:
            with without_waiting():
                self.workspace, decision = service.admit(key)
        except WouldWait:
            self.workspace, decision = await IOLoop.current().run_in_executor(executor, service.admit, key)
        if decision is None:
            return
        self.rate_headers = decision.headers()
        for name, value in self.rate_headers.items():
            self.set_header(name, value)
        if not decision.allowed:
            raise ApiError(
                "RATE_LIMITED",
                f"this workspace may make {decision.limit} requests per second; "
                f"try again in {decision.retry_after} s (Retry-After)",
            )

    def respond(self, data: Any, status: int = 200) -> None:
        self.set_status(status)
        self.finish(envelope(data))

    def allowed_methods(self) -> list[str]:
        return ["GET"]

    def fail(self, error: ApiError) -> None:
        self.clear()
        self.set_status(error.status)
        self.set_header("X-Request-Id", getattr(self, "request_id", ""))
        if error.code == "METHOD_NOT_ALLOWED":
            self.set_header("Allow", ", ".join(self.allowed_methods()))  # RFC 9110 asks for it
        self.finish(error_envelope(error.code, error.message))

    def log_exception(self, typ, value, tb) -> None:  # noqa: ANN001
        if isinstance(value, ApiError | TaskCancelled) or (isinstance(value, HTTPError) and value.status_code < 500):
            return  # a cancelled task's client is gone: there is nobody to answer and nothing went wrong
        if isinstance(value, unreachable()):  # an outage, not a bug: one line, no traceback
            log.error("request %s: %s", getattr(self, "request_id", "-"), _unreachable_message(value))
            return
        log.error(
            "request %s failed: %s %s",
            getattr(self, "request_id", "-"),
            self.request.method,
            self.request.uri,
            exc_info=(typ, value, tb),
        )

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, ApiError):
            return self.fail(exc)
        if status_code in HTTP_CODES:
            reason = exc.log_message if isinstance(exc, HTTPError) and exc.log_message else self._reason
            if status_code == 405:
                reason = f"{self.request.method} is not allowed on {self.request.path}"
            return self.fail(ApiError(HTTP_CODES[status_code], reason))
        if status_code == 400:
            return self.fail(ApiError("VALIDATION_ERROR", self._reason or "bad request"))
        request_id = getattr(self, "request_id", "-")
        if isinstance(exc, unreachable()):
            return self.fail(ApiError("SERVICE_UNAVAILABLE", f"{_unreachable_message(exc)}; try again shortly"))
        self.fail(ApiError("INTERNAL_ERROR", f"something went wrong on our side; request id {request_id}"))


def _unreachable_message(exc: BaseException) -> str:
    store = "the database" if type(exc).__module__.startswith("psycopg") else "the file store"
    return f"{store} cannot be reached right now"
