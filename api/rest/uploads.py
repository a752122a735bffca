"""Upload bodies (multipart/form-data) read as they arrive (issue 48).

python-multipart's streaming parser (Starlette's and FastAPI's) splits the body while it is
received: the 'file' part goes to an api.spool.FilePart (memory up to 4 MB, a spool file past
it, hashed on the way), the other fields (a name, a password: a few hundred bytes) are kept in
memory, and nothing else is: a part of another name refuses the body at once (the rest is only
drained), so thousands of parts with long names are never gathered either. Tornado's own parser
needs the whole body in memory, and copies of it: three 500 MB uploads had taken the web process
to 4.7 GB. A part's headers are bounded by the parser (8 of at most 4 KB each, python-multipart
0.0.27 on).

Every server process also bounds the bytes of upload bodies in flight (UploadBodies): a body
is counted from its headers until its request ends (received, checked in a render process,
stored), and one that would pass the bound, or its workspace's share of it, is refused at once
with a 503 and Retry-After. A body counted in must keep arriving (BodyPace), or it is answered
408 and its connection closed.
"""

from __future__ import annotations

from asyncio import Future
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from tornado.ioloop import IOLoop, PeriodicCallback

from ..errors import ApiError, disk_write_failed, validation
from ..operations import Multipart, UploadedFile
from ..settings import UPLOAD_STALL_SECONDS, Settings
from ..spool import WRITE_BATCH, FilePart, Spool

MALFORMED = "the multipart body is malformed: send one 'file' part with a filename"
FIELDS_LIMIT = 64 * 1024  # the form fields besides the file, together (a name is 200 characters)
# How many bodies of the largest size this server accepts may be in flight at once by default.
UPLOADS_AT_ONCE = 4
RETRY_AFTER_SECONDS = 5  # a large body takes seconds to arrive and be checked
SPOOL_WRITERS = 2  # threads that write spool files: the disk, not the threads, bounds them
# What an upload body must bring, on average over every window of UPLOAD_STALL_SECONDS (30 s,
# DOCBENCH_UPLOAD_STALL_SECONDS): 8 KB/s, a sixteenth of a 1 Mbit/s link (125 KB/s), which still
# sends the largest file a server takes (1 GB) in 2.4 hours without coming near it. A body that
# stalls is cut off within 1.2 windows (36 s).
MIN_BODY_RATE = 8 * 1024
PACE_CHECKS = 5


class UploadBodies:
    """What the upload requests of one server process share: the spool, the threads that write
    to it, and the bound on the bytes of upload bodies in flight, of which one workspace may hold
    all but room for one body of the largest size (`workspace_limit`). Used on the event loop only."""

    def __init__(self, spool: Spool, limit: int, largest_body: int, stall_seconds: float = UPLOAD_STALL_SECONDS):
        self.spool = spool
        self.limit = limit
        # Whatever one workspace sends, the others keep room for a body of the largest size: its
        # slow uploads never make theirs wait, and a server with one workspace loses one body of
        # four (by default), not half.
        self.workspace_limit = max(limit - largest_body, 0)
        self.stall_seconds = stall_seconds  # BodyPace's window
        self.bytes = 0  # of the bodies in flight, as their Content-Length declared (or their limit)
        self.count = 0
        self._workspaces: dict[str, tuple[int, int]] = {}  # workspace id: (its bodies in flight, their bytes)
        self.writers = ThreadPoolExecutor(max_workers=SPOOL_WRITERS, thread_name_prefix="docbench-spool")

    @classmethod
    def for_server(cls, settings: Settings, largest_body: int) -> UploadBodies:
        """`--uploads-in-flight-mb` (DOCBENCH_UPLOADS_IN_FLIGHT_MB), or room for UPLOADS_AT_ONCE
        bodies of the largest size this server accepts; spool files under the data dir."""
        configured = settings.uploads_in_flight_mb
        limit = configured * 1024 * 1024 if configured else UPLOADS_AT_ONCE * largest_body
        spool = Spool(settings.data_dir / "spool")
        spool.sweep()
        return cls(spool, limit, largest_body, settings.upload_stall_seconds)

    def admit(self, workspace: str, size: int) -> None:
        """Count a body of `size` bytes in, or refuse it: 503 SERVICE_UNAVAILABLE, Retry-After. A
        body alone is always let in (a bound set below the largest body means one at a time), and
        so is a workspace's first body while the bound has room for it."""
        count, size_in_flight = self._workspaces.get(workspace, (0, 0))
        if count and size_in_flight + size > self.workspace_limit:
            raise ApiError(
                "SERVICE_UNAVAILABLE",
                f"this workspace is sending too many uploads at once (at most {_mb(self.workspace_limit)} of its "
                f"upload bodies on this server, leaving room for other workspaces'); send it again in "
                f"{RETRY_AFTER_SECONDS} s (Retry-After), or once one of its uploads has been answered",
            )
        if self.count and self.bytes + size > self.limit:
            raise ApiError(
                "SERVICE_UNAVAILABLE",
                f"too many uploads are being received at once (at most {_mb(self.limit)} of upload "
                f"bodies on this server); send it again in {RETRY_AFTER_SECONDS} s (Retry-After)",
            )
        self.bytes += size
        self.count += 1
        self._workspaces[workspace] = (count + 1, size_in_flight + size)

    def release(self, workspace: str, size: int) -> None:
        self.bytes -= size
        self.count -= 1
        count, size_in_flight = self._workspaces.pop(workspace)
        if count > 1:
            self._workspaces[workspace] = (count - 1, size_in_flight - size)


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):g} MB"


class BodyPace:
    """Whether an upload body keeps arriving: at least MIN_BODY_RATE bytes a second over every
    `window` seconds (checked PACE_CHECKS times a window, on the event loop), or `on_stalled`
    is called, once, with the 408 to answer. A body counted in the bound holds room others may need: one that trickles
    in (a byte a minute) would hold it for as long as its client likes.

    Time spent waiting for this server's own disk (a batch of the file being written to the
    spool, during which no more of the body is read) is not held against the client."""

    def __init__(self, window: float, on_stalled: Callable[[ApiError], None], writing: Callable[[], bool]):
        self.window = window
        self.received = 0  # bytes of the body so far
        self._on_stalled = on_stalled
        self._writing = writing
        self._marks: deque[tuple[float, int]] = deque()  # (when, bytes received then), oldest first
        self._timer = PeriodicCallback(self._check, window / PACE_CHECKS * 1000)

    def start(self) -> None:
        self._marks.append((IOLoop.current().time(), 0))
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _check(self) -> None:
        now = IOLoop.current().time()
        if self._writing():  # the disk sets the pace now, not the client: measured again from here
            self._marks.clear()
        self._marks.append((now, self.received))
        while len(self._marks) > 1 and self._marks[1][0] <= now - self.window:
            self._marks.popleft()  # the oldest mark kept is the last one a whole window ago
        since, then = self._marks[0]
        if now - since >= self.window and self.received - then < MIN_BODY_RATE * self.window:
            self.stop()
            self._on_stalled(
                ApiError(
                    "REQUEST_TIMEOUT",
                    f"the upload body arrived at less than {MIN_BODY_RATE // 1024} KB/s for {self.window:g} s; "
                    "send it again over a steadier connection",
                )
            )


class MultipartBody:
    """One upload body parsed as it arrives. `feed` each chunk on the event loop (it answers a
    future to wait for when a batch of the file goes to disk), then `result()`; `close()`
    when the request ends, however it ends (it removes the spool file)."""

    def __init__(self, content_type: str, multipart: Multipart, bodies: UploadBodies):
        self.multipart = multipart
        self.bodies = bodies
        self.file: FilePart | None = None
        self.filename: str | None = None
        self.fields: dict[str, bytearray] = {}
        self._fields_size = 0
        self._failure: ApiError | None = None  # once set, the rest of the body is only drained
        self._header: tuple[bytearray, bytearray] = (bytearray(), bytearray())
        self._headers: dict[str, bytes] = {}
        self._target: Any = None  # where the current part's bytes go: the FilePart, a field, or nowhere
        self._ended = False
        self._writing: Future[None] | None = None
        _, options = parse_options_header(content_type)
        boundary = options.get(b"boundary", b"")
        if not boundary:
            raise validation("the multipart Content-Type has no boundary parameter")
        try:
            self._parser = MultipartParser(boundary, self._callbacks())
        except FormParserError:
            raise validation(MALFORMED) from None

    def _callbacks(self) -> Any:
        return {
            "on_part_begin": self._part_begins,
            "on_header_field": lambda data, start, end: self._header[0].extend(data[start:end]),
            "on_header_value": lambda data, start, end: self._header[1].extend(data[start:end]),
            "on_header_end": self._header_ends,
            "on_headers_finished": self._headers_finished,
            "on_part_data": self._part_data,
            "on_end": self._end,
        }

    # The parser's callbacks

    def _part_begins(self) -> None:
        self._headers = {}
        self._header = (bytearray(), bytearray())
        self._target = None

    def _header_ends(self) -> None:
        name, value = self._header
        self._headers[name.decode("latin-1").strip().lower()] = bytes(value).strip()
        self._header = (bytearray(), bytearray())

    def _headers_finished(self) -> None:
        disposition = self._headers.get("content-disposition")
        if disposition is None:
            raise _Malformed()
        try:
            disposition.decode("utf-8")  # what Tornado's parser asked too: a name or filename is UTF-8
        except UnicodeDecodeError:
            raise _Malformed() from None
        # Parsed as Latin-1, each byte one character, so the values come back as the bytes sent.
        kind, options = parse_options_header(disposition)
        name = options.get(b"name", b"").decode("utf-8")
        if kind != b"form-data" or not name:
            raise _Malformed()
        filename = options.get(b"filename", b"").decode("utf-8")
        if filename and name == "file":
            if self.file is None:  # a second 'file' part is ignored, as Tornado's parser did
                self.file = self._target = FilePart(self.bodies.spool)
                self.filename = filename
        elif filename or name not in self.multipart.fields:
            # Refused at once, and the rest of the body only drained: nothing of it is kept.
            raise _Refused(self._unknown_field(name, filename))
        elif name not in self.fields:  # a field sent twice counts once, its first value
            self.fields[name] = self._target = bytearray()

    def _unknown_field(self, name: str, filename: str) -> ApiError:
        allowed = ", ".join(f"'{field}'" for field in ("file", *self.multipart.fields))
        shown = name if len(name) <= 100 else name[:100] + "…"
        if filename and name in self.multipart.fields:
            return validation(f"the form field '{shown}' is sent as a file; only 'file' may carry a filename")
        if name == "file":
            return validation(f"the 'file' part has no filename: send the {self.multipart.file} with one")
        return validation(f"unknown form field '{shown}': this endpoint takes the form fields {allowed}")

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self._target is None:
            return
        piece = data[start:end]
        if isinstance(self._target, FilePart):
            self._target.add(piece)
            return
        self._fields_size += len(piece)
        if self._fields_size > FIELDS_LIMIT:
            raise _Refused(validation(f"the form fields besides the file hold more than {FIELDS_LIMIT // 1024} KB"))
        self._target.extend(piece)

    def _end(self) -> None:
        self._ended = True

    # The request's side

    def feed(self, chunk: bytes) -> Future[None] | None:
        """Parse a chunk of the body; a future when a batch of the file is being written to disk
        (Tornado reads no more of the body until it is done: the disk sets the pace)."""
        if self._failure is not None:
            return None
        try:
            self._parser.write(chunk)
        except _Refused as refused:
            self._fail(refused.error)
        except (_Malformed, FormParserError, UnicodeDecodeError):
            self._fail(validation(MALFORMED))
        except OSError as error:  # the spool file could not be made (a full disk, a read-only folder)
            self._fail(_spool_failed(error))
        if self.file is not None and self.file.on_disk and self.file.waiting_bytes >= WRITE_BATCH:
            return self._write_out()
        return None

    @property
    def writing(self) -> bool:
        """Whether a batch of the file is being written to the spool (no more of the body is read meanwhile)."""
        return self._writing is not None and not self._writing.done()

    def _write_out(self) -> Future[None]:
        assert self.file is not None
        self._writing = IOLoop.current().run_in_executor(self.bodies.writers, self._write, self.file.take_waiting())
        return self._writing

    def _write(self, chunks: list[bytes]) -> None:
        assert self.file is not None
        try:
            self.file.write(chunks)
        except OSError as error:
            self._failure = _spool_failed(error)

    def _fail(self, failure: ApiError) -> None:
        self._failure = failure
        if self.file is not None:
            self.file.discard()  # the disk space back now, not when the rest has been drained

    async def result(self) -> tuple[UploadedFile, dict[str, str]]:
        """The file and the form fields, once the whole body has been fed; or the refusal."""
        if self._failure is None and self.file is not None and self.file.on_disk:
            await self._write_out()
        if self._failure is not None:
            raise self._failure
        if not self._ended:
            raise validation(MALFORMED)
        if self.file is None:
            raise validation(
                f"the 'file' field is missing: send the {self.multipart.file} as multipart form field 'file'"
            )
        form: dict[str, str] = {}
        for name, value in self.fields.items():
            text = value.decode("utf-8", "replace")
            form[name] = text if name in self.multipart.secrets else text.strip()
        if self.file.on_disk:
            spooled = self.file.spooled()
            return UploadedFile(b"", self.filename, spooled=spooled, sha256=spooled.sha256), form
        return UploadedFile(self.file.in_memory(), self.filename, sha256=self.file.sha256), form

    def close(self) -> None:
        """Remove the spool file: now, or once a write to it in progress has ended."""
        if self.file is None:
            return
        if self._writing is not None and not self._writing.done():
            self._writing.add_done_callback(lambda _: self.file.discard() if self.file else None)
            return
        self.file.discard()


def _spool_failed(error: OSError) -> ApiError:
    """The spool file refused (a full disk, a spool folder gone or read-only): the server's
    problem, not the request's, a 503 to send again (api.errors.disk_write_failed)."""
    return disk_write_failed(error, "the file was not received, and nothing was saved")


class _Malformed(Exception):
    """Raised in a parser callback: the body is not the multipart it claims to be."""


class _Refused(Exception):
    """Raised in a parser callback: the body is well formed, and refused."""

    def __init__(self, error: ApiError):
        super().__init__(error.message)
        self.error = error
