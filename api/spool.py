"""Uploaded files on disk (issue 48): a file past SPOOL_THRESHOLD is written to a spool file as
its body arrives, hashed on the way, and never held whole in the web process's memory.

Why 4 MB: the spec's limits are 1 MB (uploads) and 10 MB (assets), so every upload and most
assets stay in memory as before (a logo makes no round trip through the disk), and a file in
memory costs a few copies of at most 4 MB while it is checked. Past it, the web process holds
about WRITE_BATCH of a body at a time, whatever its size: three 500 MB uploads had taken it to
4.7 GB. The render process that checks a spooled file reads it from its path, the blob store
copies it from the file (S3: uploads it from the file), and the file is removed when its
request ends, however it ends.

A spool file is held open and locked (flock) by the process that writes it from its creation
until its request ends: a server started again after a kill -9 removes the files nobody holds
any more, what the dead one left (Spool.sweep), and leaves alone the files of another live server
on the same data dir. A lock says so wherever that server runs: a PID in a file's name would
mean nothing to a server in another PID namespace (another container on the same volume), and
might name a process of its own. The kernel lets a lock go when its process dies, however it
dies. (The name still carries the writer's PID, for whoever looks at the folder.)
"""

from __future__ import annotations

import fcntl
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


class Spool:
    """The directory spooled uploads are written to: `<data dir>/spool`."""

    def __init__(self, directory: Path):
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)

    def create(self) -> tuple[int, Path]:
        """A new, empty spool file of this process, open for writing and locked until the
        descriptor is closed: (its descriptor, its path). OSError if the disk refuses it."""
        while True:
            fd, name = tempfile.mkstemp(dir=self.directory, prefix=f"upload-{os.getpid()}-")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                taken = os.fstat(fd).st_nlink > 0
            except BlockingIOError:
                taken = False  # another server's sweep holds it, and removes it
            except BaseException:
                os.close(fd)
                Path(name).unlink(missing_ok=True)
                raise
            if taken:
                return fd, Path(name)
            os.close(fd)  # swept between its creation and its lock (a server starting): another one

    def files(self) -> list[Path]:
        return sorted(self.directory.glob("upload-*"))

    def sweep(self) -> int:
        """Remove the spool files no process holds (left by a server killed mid-upload); how
        many were removed. A file is removed only while this process holds its lock, so its
        writer, were it alive after all, could not have it (Spool.create checks)."""
        removed = 0
        for path in self.files():
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue  # removed by its writer meanwhile (or not a spool file of ours)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False)):
                    path.unlink()
                    removed += 1
            except (BlockingIOError, FileNotFoundError):
                pass  # held by a live process (this one or another, in whatever PID namespace), or gone
            finally:
                os.close(fd)
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
        """Count `data` in; past the threshold, the spool file is created (OSError if the disk
        refuses it: nothing is left behind)."""
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
        """The spool file, once every byte was written. It stays open (and locked: no other
        server's sweep takes it) while it is read, until `discard`."""
        assert self.path is not None and self._fd is not None and not self._waiting
        return SpooledFile(self.path, self.size, self._digest.hexdigest())

    @property
    def sha256(self) -> str:
        return self._digest.hexdigest()

    def discard(self) -> None:
        """Forget the bytes and remove the spool file (the request ended, or was refused)."""
        self._waiting, self.waiting_bytes = [], 0
        if self.path is not None:  # removed before its lock goes, so no sweep ever sees it unlocked
            self.path.unlink(missing_ok=True)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
