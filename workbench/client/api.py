"""One way to call the API's operations, over two transports.

The editor and the notebook API speak to the service only through a `Client`:
`LocalClient` runs an operation in-process (the workbench server, the embedded
notebook mode) and `RestClient` sends it over HTTP to a running server. Both take the
operation names of `api.operations` (the MCP tool names), validate with the same
pydantic models, return the envelope's `data` and raise `ApiError` with the same
codes, so a face written against one works against the other.
"""

from __future__ import annotations

import copy
import json
import mimetypes
import random
import time
import uuid
from collections.abc import Callable
from typing import Any, Literal
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from api.errors import STATUS_BY_CODE, ApiError
from api.operations import BY_NAME, Call, Operation, UploadedFile, parse_model
from api.renderers import Cancellation
from api.service import Service, Workspace
from api.service.idempotency import KEY_HEADER


def _path(operation: Operation, params: dict[str, str]) -> str:
    path = operation.path
    for name, value in params.items():
        path = path.replace("{" + name + "}", quote(value, safe=""))
    return path


def _operation(name: str) -> Operation:
    operation = BY_NAME.get(name)
    if operation is None:
        raise ValueError(f"unknown operation {name!r}; api.operations names them")
    return operation


class Client:
    """Call an operation by name; `data` back, or ApiError."""

    def call(
        self,
        name: str,
        params: dict[str, str] | None = None,
        body: dict | None = None,
        query: dict | None = None,
        file: UploadedFile | None = None,
        form: dict[str, str] | None = None,
    ) -> Any:
        raise NotImplementedError

    def fetch(self, url: str) -> bytes:
        """The bytes behind a signed file URL the API returned (a PDF, PNG or ZIP)."""
        raise NotImplementedError

    @property
    def label(self) -> str:
        raise NotImplementedError


class LocalClient(Client):
    """Operations run in this process, as the signed-in workspace."""

    # The face its saves are made by (a revision's source, extensions.md 16): the notebook's
    # embedded service is an API client; the workbench's pages are the editor (SignedInClient).
    source: Literal["api", "editor"] = "api"

    def __init__(self, service: Service, workspace_id: str, cancel: Cancellation | None = None):
        self.service = service
        self.workspace_id = workspace_id
        # Set when the browser session that owns this client ends: its queued renders are dropped.
        self.cancel = cancel

    def for_editor(self) -> LocalClient:
        """This client, its saves marked as the editor's."""
        editing = copy.copy(self)
        editing.source = "editor"
        return editing

    @property
    def label(self) -> str:
        return f"local data in {self.service.settings.data_dir}"

    def workspace(self) -> Workspace:
        """The caller, checked as REST checks an API key's (a plan change applies at once)."""
        return self.service.accounts.local_caller(self.workspace_id)

    def call(self, name, params=None, body=None, query=None, file=None, form=None):  # noqa: ANN001, ANN201
        operation = _operation(name)
        workspace = self.workspace()
        call = Call(params=dict(params or {}), file=file, form=dict(form or {}), cancel=self.cancel, source=self.source)
        if operation.query is not None:
            call.query = parse_model(operation.query, query or {}, "query")
        if operation.body is not None:
            call.body = parse_model(operation.body, body or {}, "body")
        result = operation.run(self.service, workspace, call)
        # The same JSON a REST client would get: no shared mutable objects, no odd types.
        return json.loads(result if operation.raw else json.dumps(result))

    def fetch(self, url: str) -> bytes:
        parts = urlsplit(url)
        path = parts.path.split("/files/", 1)[-1]
        query = parse_qs(parts.query)
        key = self.service.signer.verify(
            unquote(path), (query.get("expires") or [None])[0], (query.get("sig") or [None])[0]
        )
        return self.service.blobs.get(key)


RETRIES = 3  # attempts after the first
BACKOFF_SECONDS = 0.5  # the first wait; doubled after each attempt
BACKOFF_CAP_SECONDS = 8.0
RETRY_AFTER_CAP_SECONDS = 60.0  # a server asking for longer is not waited on by a notebook
IDEMPOTENT_METHODS = frozenset({"POST", "PUT", "PATCH"})  # those sent with an Idempotency-Key
SAFE_METHODS = frozenset({"GET", "HEAD"})


class _Retry(Exception):
    """An answer (or no answer) worth another attempt: `error` if none is left, `wait` if the server named one."""

    def __init__(self, error: ApiError, wait: float | None = None):
        super().__init__(error.message)
        self.error = error
        self.wait = wait


class RestClient(Client):
    """Operations sent to a running docbench server with an API key.

    Calls are retried (`retries` more attempts, exponential backoff from `backoff` seconds,
    with jitter) on 429 (after its Retry-After), on a 5xx, on 409 IDEMPOTENCY_KEY_IN_USE and
    when the server cannot be reached or the answer is lost. Writes (POST, PUT, PATCH) carry
    an `Idempotency-Key`, the same on every attempt of one call, so a retried generate whose
    first answer was lost is replayed by the server, not run and charged again (the manual,
    "Retrying safely"). A DELETE, which has no key, is retried only on 429 (it did not run).
    """

    def __init__(
        self, url: str, api_key: str, timeout: float = 120, retries: int = RETRIES, backoff: float = BACKOFF_SECONDS
    ):
        self.base = url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.sleep: Callable[[float], None] = time.sleep

    @property
    def label(self) -> str:
        return self.base

    def call(self, name, params=None, body=None, query=None, file=None, form=None):  # noqa: ANN001, ANN201
        operation = _operation(name)
        url = f"{self.base}/api/v1{_path(operation, dict(params or {}))}"
        if query:
            url += "?" + urlencode({k: v for k, v in query.items() if v is not None})
        headers = {"X-API-Key": self.api_key}
        if operation.method in IDEMPOTENT_METHODS:
            headers[KEY_HEADER] = str(uuid.uuid4())  # one per call, kept across its retries
        data: bytes | None = None
        if operation.multipart is not None:
            if file is None:
                raise ApiError("VALIDATION_ERROR", "the 'file' field is missing")
            data, headers["Content-Type"] = _multipart(file, form or {})
        elif operation.body is not None:
            data = json.dumps(body or {}).encode()
            headers["Content-Type"] = "application/json"
        status, payload = self._send(operation.method, url, data, headers)
        if operation.raw and status < 400:
            return json.loads(payload)
        return _unwrap(status, payload)

    def fetch(self, url: str) -> bytes:
        _, payload = self._send("GET", url, None, {})
        return payload

    def _send(self, method: str, url: str, data: bytes | None, headers: dict[str, str]) -> tuple[int, bytes]:
        retriable = method in SAFE_METHODS or KEY_HEADER in headers
        for attempt in range(self.retries + 1):
            try:
                return self._attempt(method, url, data, headers, retriable)
            except _Retry as retry:
                if attempt == self.retries:
                    raise retry.error from None
                backoff = min(BACKOFF_CAP_SECONDS, self.backoff * 2**attempt) * random.uniform(0.5, 1.0)
                self.sleep(backoff if retry.wait is None else min(retry.wait, RETRY_AFTER_CAP_SECONDS))
        raise AssertionError("unreachable")  # the last attempt returned or raised

    def _attempt(
        self, method: str, url: str, data: bytes | None, headers: dict[str, str], retriable: bool
    ) -> tuple[int, bytes]:
        """One request: its answer, an ApiError, or _Retry when another attempt may succeed."""
        import http.client
        import urllib.error
        import urllib.request

        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, payload = exc.code, exc.read()
            try:
                _unwrap(status, payload)
                error = ApiError("INTERNAL_ERROR", f"{method} {url} answered {status}")
            except ApiError as answered:
                error = answered
            if status == 429:
                raise _Retry(error, _retry_after(exc.headers.get("Retry-After"))) from None
            if retriable and (status >= 500 or error.code == "IDEMPOTENCY_KEY_IN_USE"):
                raise _Retry(error) from None
            raise error from None
        except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError) as exc:
            reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
            error = ApiError("SERVICE_UNAVAILABLE", f"docbench at {self.base} is not reachable ({reason})")
            if retriable:
                raise _Retry(error) from None
            raise error from None


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (the delay form; a date or nonsense leaves the backoff to us)."""
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _unwrap(status: int, payload: bytes) -> Any:
    try:
        envelope = json.loads(payload)
    except ValueError:
        envelope = None
    if not isinstance(envelope, dict) or "status" not in envelope:
        if status >= 400:
            raise ApiError("INTERNAL_ERROR", f"the server answered {status} without an envelope")
        return envelope
    if envelope["status"] == "error" or status >= 400:
        error = envelope.get("error") or {}
        code = error.get("code", "INTERNAL_ERROR")
        raise ApiError(code if code in STATUS_BY_CODE else "INTERNAL_ERROR", error.get("message") or f"HTTP {status}")
    return envelope["data"]


def _multipart(file: UploadedFile, form: dict[str, str]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    filename = file.filename or "image"
    content_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in form.items()
    ]
    safe_name = filename.replace('"', "_").replace("\r", "_").replace("\n", "_")
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{safe_name}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n".encode()
        + file.data
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"
