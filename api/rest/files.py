"""Signed file downloads: PDFs, previews, thumbnails and ZIPs, served without an API key."""

from __future__ import annotations

from urllib.parse import quote

from ..blobs import CONTENT_TYPES, BlobStore, UrlSigner
from ..errors import ApiError
from ..http import EnvelopeHandler


def content_disposition(name: str) -> str:
    """RFC 6266: an ASCII fallback for old clients and the exact UTF-8 name for the rest
    (HTTP header values cannot carry CJK or emoji as they are)."""
    fallback = "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "_" for c in name)
    return f"inline; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


class FileHandler(EnvelopeHandler):
    def initialize(self, blobs: BlobStore, signer: UrlSigner) -> None:
        self.blobs = blobs
        self.signer = signer

    def get(self, path: str) -> None:
        key = self.signer.verify(path, self.get_query_argument("expires", None), self.get_query_argument("sig", None))
        try:
            data = self.blobs.get(key)
        except (FileNotFoundError, ValueError):
            # Signed but gone: generated PDFs may be swept after their URL expired.
            raise ApiError("NOT_FOUND", "this file is no longer available") from None
        self.set_header("Content-Type", CONTENT_TYPES[key.rsplit(".", 1)[1]])
        self.set_header("Cache-Control", "private, max-age=3600")
        if "/" in path:
            self.set_header("Content-Disposition", content_disposition(path.split("/", 1)[1]))
        self.finish(data)
