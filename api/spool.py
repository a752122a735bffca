"""Uploaded files on disk (issue 48): a file past SPOOL_THRESHOLD is written to a spool file as
its body arrives, hashed on the way, and never held whole in the web process's memory.

Why 4 MB: the spec's limits are 1 MB (uploads) and 10 MB (assets), so every upload and most
assets stay in memory as before (a logo makes no round trip through the disk), and a file in
memory costs a few copies of at most 4 MB while it is checked. Past it, the web process holds
about WRITE_BATCH of a body at a time, whatever its size: three 500 MB uploads had taken it to
4.7 GB. The render process that checks a spooled file reads it from its path, the blob store
copies it from the file (S3: uploads it from the file), and the file is removed when its
request ends, however it ends.

Spool files are named after the process that writes them (`upload-<pid>-…`): a server started
again after a kill -9 removes what the dead one left (Spool.sweep), and leaves alone the files
of another live server on the same data dir.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SPOOL_THRESHOLD = 4 * 1024 * 1024
# What gathers in memory before a thread writes it to the spool file: a thousand-odd writes
# for a 1 GB file, each large enough that handing it to a thread costs nothing measurable.
WRITE_BATCH = 1024 * 1024


@dataclass(frozen=True)
class SpooledFile:
    """An uploaded file's bytes in a spool file, with their size and SHA-256 (hex), both
    counted as the bytes arrived: nothing reads the file again to learn them."""

    path: Path
    size: int
    sha256: str


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


class Spool:
    """The directory spooled uploads are written to: `<data dir>/spool`."""

    def __init__(self, directory: Path):
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)

    def create(self) -> tuple[int, Path]:
        """A new, empty spool file of this process, open for writing: (its descriptor, its path)."""
        fd, name = tempfile.mkstemp(dir=self.directory, prefix=f"upload-{os.getpid()}-")
        return fd, Path(name)

    def files(self) -> list[Path]:
        return sorted(self.directory.glob("upload-*"))

    def sweep(self) -> int:
        """Remove the spool files of processes that no longer run (a server killed mid-upload);
        how many were removed."""
        removed = 0
        for path in self.files():
            pid = path.name.split("-")[1]
            if pid.isdigit() and int(pid) != os.getpid() and not _running(int(pid)):
                path.unlink(missing_ok=True)
                removed += 1
        return removed


class FilePart:
    """One uploaded file's bytes as they arrive, hashed on the way: in memory up to the
    threshold, past it in a spool file.

    `add` runs on the event loop and never waits on the disk: past the threshold its bytes wait
    in memory until the caller hands `take_waiting()` to `write` on a thread (every WRITE_BATCH),
    so a disk that stalls holds up this upload, never the event loop. `write` never runs beside
    `add` or `discard` (the caller waits for it), and `discard` may be called more than once."""

    def __init__(self, spool: Spool, threshold: int = SPOOL_THRESHOLD):
        self.spool = spool
        self.threshold = threshold
        self.size = 0
        self._digest = hashlib.sha256()
        self._waiting: list[bytes] = []  # not written yet: below the threshold, every byte
        self.waiting_bytes = 0
        self._fd: int | None = None
        self.path: Path | None = None  # the spool file, once past the threshold

    def add(self, data: bytes) -> None:
        self._digest.update(data)
        self.size += len(data)
        self._waiting.append(data)
        self.waiting_bytes += len(data)
        if self.path is None and self.size > self.threshold:
            self._fd, self.path = self.spool.create()

    @property
    def on_disk(self) -> bool:
        return self.path is not None

    def take_waiting(self) -> list[bytes]:
        waiting, self._waiting, self.waiting_bytes = self._waiting, [], 0
        return waiting

    def write(self, chunks: Sequence[bytes]) -> None:
        """Append `chunks` to the spool file (on a thread); OSError if the disk refuses them."""
        assert self._fd is not None
        for chunk in chunks:
            view = memoryview(chunk)
            while view:
                view = view[os.write(self._fd, view) :]

    def in_memory(self) -> bytes:
        """The whole file, when it never passed the threshold."""
        assert self.path is None
        return b"".join(self.take_waiting())

    def spooled(self) -> SpooledFile:
        """The spool file, closed for writing, once every byte was written."""
        assert self.path is not None and self._fd is not None and not self._waiting
        os.close(self._fd)
        self._fd = None
        return SpooledFile(self.path, self.size, self._digest.hexdigest())

    @property
    def sha256(self) -> str:
        return self._digest.hexdigest()

    def discard(self) -> None:
        """Forget the bytes and remove the spool file (the request ended, or was refused)."""
        self._waiting, self.waiting_bytes = [], 0
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self.path is not None:
            self.path.unlink(missing_ok=True)
