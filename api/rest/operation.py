"""One Tornado handler per path, dispatching each method to its declared Operation.

Bodies are streamed so size limits are enforced before a large body is buffered, and an
upload's body is parsed as it arrives, its file written to disk past 4 MB (api.rest.uploads);
parsing and authentication happen here, the plan and business rules in the service.
The work runs on a thread (renders on threads of their own) so the event loop stays
free while a document renders.
"""

from __future__ import annotations

import functools
import json
from asyncio import Future

from tornado.ioloop import IOLoop
from tornado.web import stream_request_body

from ..blocking import WouldWait, without_waiting
from ..errors import ApiError, unreachable, validation
from ..http import EnvelopeHandler, envelope, error_envelope
from ..operations import Call, Executors, Operation, parse_model
from ..renderers import Cancellation, TaskCancelled
from ..service import Service
from ..service.idempotency import IDEMPOTENT_METHODS, KEY_HEADER, REPLAYED_HEADER, Answer, fingerprint
from ..settings import ASSET_LIMIT, JSON_LIMIT, UPLOAD_LIMIT, Settings
from .uploads import RETRY_AFTER_SECONDS, BodyPace, MultipartBody, UploadBodies

MULTIPART_SLACK = 64 * 1024  # headers and boundaries around the file part
HARD_LIMIT_FACTOR = 2  # past twice a limit the connection is dropped instead of drained


def max_body_size(settings: Settings) -> int:
    """The server-wide ceiling (Tornado's max_body_size); each operation lowers it for its request."""
    return max(settings.file_limit(ASSET_LIMIT), settings.file_limit(UPLOAD_LIMIT), JSON_LIMIT) * HARD_LIMIT_FACTOR + (
        MULTIPART_SLACK
    )


def upload_bodies(settings: Settings) -> UploadBodies:
    """The spool and the bound on upload bodies in flight that one server's handlers share."""
    largest = max(settings.file_limit(ASSET_LIMIT), settings.file_limit(UPLOAD_LIMIT)) + MULTIPART_SLACK
    return UploadBodies.for_server(settings, largest)


def _too_large(operation: Operation, size: int, limit: int) -> ApiError:
    if operation.multipart is not None:
        shown = f"{limit / (1024 * 1024):g} MB" if limit >= 1024 * 1024 else f"{limit // 1024} KB"
        return validation(f"the file is larger than the {shown} this endpoint accepts")
    return ApiError("PAYLOAD_TOO_LARGE", f"the request body is {size} bytes; JSON bodies are limited to 10 MB")


@stream_request_body
class OperationHandler(EnvelopeHandler):
    def initialize(
        self, service: Service, executors: Executors, operations: dict[str, Operation], uploads: UploadBodies
    ) -> None:
        self.service = service
        self.executors = executors
        self.operations = operations
        self.uploads = uploads
        self.cancel = Cancellation()
        self._upload: MultipartBody | None = None
        self._counted = 0  # bytes of this request's body counted in `uploads` (api.rest.uploads)
        self._pace: BodyPace | None = None  # while a body counted in arrives
        self._dispatched = False
        self._retry_after: int | None = None

    def set_default_headers(self) -> None:
        super().set_default_headers()
        if getattr(self, "_retry_after", None):  # kept by the clear() that answering an error does
            self.set_header("Retry-After", str(self._retry_after))

    def on_connection_close(self) -> None:
        # The client went away: a render still queued or running for it is stopped, and
        # a generation it would have paid for is not charged (the manual, "Limits").
        self.cancel.cancel()
        if not self._dispatched:
            # Gone while its body arrived: nothing else will end this request. Once dispatched,
            # the work may still read the spool file; the dispatch's own end removes it.
            self._end_upload()
        super().on_connection_close()

    def allowed_methods(self) -> list[str]:
        return sorted(self.operations)

    def on_finish(self) -> None:
        # The operation's name, never the path (its ids would make a series per design).
        route = self.operation.name if getattr(self, "operation", None) else "method_not_allowed"
        self.service.metrics.request(route, self.request.method or "", self.get_status(), self.request.request_time())

    async def prepare(self) -> None:
        super().prepare()
        self._chunks: list[bytes] = []
        self._size = 0
        # A refusal is answered once the body is read: answering earlier and closing a
        # socket with unread data resets the connection, and the client may never see
        # the answer. Only a body declared too large is refused at once.
        self._refusal: Exception | None = None
        self.operation = self.operations.get(self.request.method or "")
        if self.operation is None:
            self.request.connection.set_max_body_size(MULTIPART_SLACK)
            allowed = ", ".join(sorted(self.operations))
            self._refusal = ApiError(
                "METHOD_NOT_ALLOWED", f"{self.request.method} is not allowed on this path (use {allowed})"
            )
            return
        limit = self._limit()
        self.request.connection.set_max_body_size(limit * HARD_LIMIT_FACTOR + MULTIPART_SLACK)
        declared = self.request.headers.get("Content-Length", "0")
        if declared.isdigit() and int(declared) > limit:
            raise _too_large(self.operation, int(declared), self._file_limit())
        try:
            await self.admit(self.service, self.executors.light)
            self._check_content_type()
            if self.operation.multipart is not None:
                # A body sent in chunks declares no length: it is counted at its limit.
                sent_length = "Content-Length" in self.request.headers and declared.isdigit()
                self._start_upload(int(declared) if sent_length else limit)
        except ApiError as refusal:
            self._refusal = refusal
        except unreachable() as outage:
            # A 503 too waits for the body: raised here, Tornado would answer and drop the
            # connection unannounced, and a client's next request on it would be reset.
            self._refusal = outage

    def _file_limit(self) -> int:
        """The operation's file limit on this server (--max-upload-mb raises it); JSON's for a JSON body."""
        assert self.operation is not None
        multipart = self.operation.multipart
        if multipart is None:
            return JSON_LIMIT
        return self.service.settings.file_limit(multipart.limit) if multipart.raisable else multipart.limit

    def _limit(self) -> int:
        assert self.operation is not None
        return self._file_limit() + MULTIPART_SLACK if self.operation.multipart else JSON_LIMIT

    def _check_content_type(self) -> None:
        assert self.operation is not None
        content_type = self.request.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if self.operation.multipart and content_type != "multipart/form-data":
            raise ApiError("UNSUPPORTED_MEDIA_TYPE", "send the file as multipart/form-data with a 'file' field")
        if self.operation.multipart and "boundary=" not in self.request.headers.get("Content-Type", ""):
            raise validation("the multipart Content-Type has no boundary parameter")
        if self.operation.body and content_type != "application/json":
            raise ApiError("UNSUPPORTED_MEDIA_TYPE", "send the body as JSON with Content-Type: application/json")

    def _start_upload(self, size: int) -> None:
        """Count the body in (or refuse it: too many in flight, on this server or of this
        workspace) and parse it as it arrives, as long as it keeps arriving."""
        assert self.operation is not None and self.operation.multipart is not None
        upload = MultipartBody(self.request.headers.get("Content-Type", ""), self.operation.multipart, self.uploads)
        try:
            self.uploads.admit(self.workspace.id, size)
        except ApiError:
            self._retry_after = RETRY_AFTER_SECONDS
            raise
        self._upload, self._counted = upload, size
        # A body that stops arriving is answered (408) at once, and its connection closed once the
        # answer is sent (Tornado reads no more of it), so its room in the bounds is free again.
        self._pace = BodyPace(self.uploads.stall_seconds, self.fail, lambda: upload.writing)
        self._pace.start()

    def _end_upload(self) -> None:
        """The body's spool file removed and its bytes counted out: once, however the request ends."""
        if self._pace is not None:
            self._pace.stop()
            self._pace = None
        if self._upload is not None:
            self._upload.close()
            self._upload = None
        if self._counted:
            self.uploads.release(self.workspace.id, self._counted)
            self._counted = 0

    def data_received(self, chunk: bytes) -> Future[None] | None:
        self._size += len(chunk)
        if self._pace is not None:
            self._pace.received += len(chunk)
        if self._refusal is not None or self.operation is None or self._size > self._limit():
            if self._upload is not None:
                self._upload.close()  # the disk space back now; the rest is drained
            return None
        if self._upload is not None:
            return self._upload.feed(chunk)
        self._chunks.append(chunk)
        return None

    def finish(self, chunk: str | bytes | dict | None = None) -> Future[None]:
        # Every answer, an error's too, comes once the work is done: the spool file goes (and
        # the body is counted out) before the client can see the answer and send the next.
        self._end_upload()
        return super().finish(chunk)

    async def _dispatch(self, **params: str) -> None:
        self._dispatched = True
        if self._pace is not None:  # the whole body is here
            self._pace.stop()
        try:
            await self._answer_request(params)
        finally:
            self._end_upload()  # already done by finish(), unless the client is gone

    async def _answer_request(self, params: dict[str, str]) -> None:
        if self._refusal is not None:
            raise self._refusal
        operation = self.operation
        assert operation is not None
        if self._size > self._limit():
            raise _too_large(operation, self._size, self._file_limit())
        call = await self._parse(operation, params)
        call.cancel = self.cancel
        key = self.request.headers.get(KEY_HEADER) if operation.method in IDEMPOTENT_METHODS else None
        if key is None:
            result = await self._run(operation, call)
            self.set_status(operation.status)
            self.finish(result if operation.raw else envelope(result))
            return
        # Every POST, PUT and PATCH (extensions.md 8): the first answer to the key, kept
        # before it is sent, or that answer again.
        answer, replayed = await IOLoop.current().run_in_executor(
            self.executors.pick(operation),
            self.service.idempotency.run,
            self.workspace,
            key,
            fingerprint(operation.method, self.request.path, self._identity(call)),
            functools.partial(self._answer, operation, call),
        )
        self.set_status(answer.status)
        for name, value in answer.headers.items():
            self.set_header(name, value)
        if replayed:
            self.set_header(REPLAYED_HEADER, "true")
        self.finish(answer.body)

    async def _run(self, operation: Operation, call: Call) -> object:
        """The operation's result: on the event loop when it is answered from memory, else on its threads."""
        if operation.from_memory:
            try:
                with without_waiting():
                    return operation.run(self.service, self.workspace, call)
            except WouldWait:
                pass  # it needs the database after all
        return await IOLoop.current().run_in_executor(
            self.executors.pick(operation), operation.run, self.service, self.workspace, call
        )

    def _answer(self, operation: Operation, call: Call) -> Answer:
        """The operation run (on a thread), its answer or its refusal as it would be sent."""
        try:
            result = operation.run(self.service, self.workspace, call)
        except ApiError as error:
            return Answer(error.status, error_envelope(error.code, error.message))
        return Answer(operation.status, result if operation.raw else envelope(result))

    def _identity(self, call: Call) -> bytes:
        """The body as it identifies a request: a multipart body's boundary is random per
        send, so an upload is identified by its fields and its file's SHA-256 instead (counted
        as it arrived: a spooled file is never read back for it)."""
        if call.file is None:
            return b"".join(self._chunks)
        fields = json.dumps({"filename": call.file.filename, "form": call.form}, sort_keys=True).encode()
        return fields + b"\n" + call.file.digest().encode()

    def _replay(self, answer: Answer) -> None:
        self.set_status(answer.status)
        for name, value in answer.headers.items():
            self.set_header(name, value)
        self.set_header(REPLAYED_HEADER, "true")
        self.finish(answer.body)

    async def _parse(self, operation: Operation, params: dict[str, str]) -> Call:
        call = Call(params=params)
        body = b"".join(self._chunks)
        if operation.query is not None:
            raw = {k: self.get_query_argument(k) for k in self.request.query_arguments}
            call.query = parse_model(operation.query, raw, "query")
        if operation.body is not None:
            try:
                raw_body = json.loads(body or b"null")
                # JSON may spell lone surrogates ("\\ud800"), which no text can hold.
                json.dumps(raw_body, ensure_ascii=False).encode()
            except (ValueError, UnicodeError, RecursionError):
                raise validation("the body is not valid JSON (or holds text that is not valid Unicode)") from None
            if not isinstance(raw_body, dict):
                raise validation("the body must be a JSON object")
            call.body = parse_model(operation.body, raw_body, "body")
        if operation.multipart is not None:
            if self._upload is None:  # made in prepare(), and ended since: the client is gone
                raise TaskCancelled()
            call.file, call.form = await self._upload.result()
        return call

    get = post = put = patch = delete = head = options = _dispatch
