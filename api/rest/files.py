"""Signed file downloads: PDFs, previews, thumbnails and ZIPs, served without an API key."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import cache
from urllib.parse import quote

from tornado.ioloop import IOLoop
from tornado.iostream import StreamClosedError

from ..blobs import CHUNK, BlobNotFound, Blobs, BlobStream, UrlSigner, content_type_of
from ..errors import ApiError
from ..http import EnvelopeHandler


def content_disposition(name: str) -> str:
    """RFC 6266: an ASCII fallback for old clients and the exact UTF-8 name for the rest
    (HTTP header values cannot carry CJK or emoji as they are)."""
    fallback = "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "_" for c in name)
    return f"inline; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


@cache
def _readers() -> ThreadPoolExecutor:
    """Threads that wait on S3 for downloads: their own, so a slow bucket never holds up the
    threads that answer API calls or browser events."""
    return ThreadPoolExecutor(max_workers=8, thread_name_prefix="docbench-blob-reads")


class FileHandler(EnvelopeHandler):
    def initialize(self, blobs: Blobs, signer: UrlSigner) -> None:
        self.blobs = blobs
        self.signer = signer

    async def get(self, path: str) -> None:
        key = self.signer.verify(path, self.get_query_argument("expires", None), self.get_query_argument("sig", None))
        # Reads from S3 wait on the network: off the event loop. Local files are read in place
        # (a page-cached read is faster than the hop to a thread).
        remote = self.blobs.remote
        try:
            if remote:
                stream = await IOLoop.current().run_in_executor(_readers(), self.blobs.stream, key)
            else:
                stream = self.blobs.stream(key)
        except (BlobNotFound, ValueError):
            # Signed but gone: generated PDFs may be swept after their URL expired.
            raise ApiError("NOT_FOUND", "this file is no longer available") from None
        try:
            self.set_header("Content-Type", content_type_of(key))
            self.set_header("Content-Length", str(stream.size))
            self.set_header("Cache-Control", "private, max-age=3600")
            if "/" in path:
                self.set_header("Content-Disposition", content_disposition(path.split("/", 1)[1]))
            await self._send(stream, remote)
        finally:
            stream.close()

    async def _send(self, stream: BlobStream, remote: bool) -> None:
        """The blob a chunk at a time, each flushed before the next is read: a batch ZIP is
        never whole in this process's memory, and a slow client slows the reads down."""
        chunks = iter(stream)
        loop = IOLoop.current()
        if not remote and stream.size <= CHUNK:
            self.finish(next(chunks, b""))  # a PDF or a preview: one read, one write
            return
        while True:
            chunk = await loop.run_in_executor(_readers(), next, chunks, None) if remote else next(chunks, None)
            if chunk is None:
                break
            self.write(chunk)
            try:
                await self.flush()
            except StreamClosedError:
                return  # the client went away: nothing to answer, stop reading
        self.finish()
