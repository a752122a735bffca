"""Signed file downloads: PDFs, previews, thumbnails and ZIPs, served without an API key."""

from __future__ import annotations

from ..blobs import CONTENT_TYPES, BlobStore, UrlSigner
from ..errors import ApiError
from .base import EnvelopeHandler


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
            name = path.split("/", 1)[1].replace('"', "")
            self.set_header("Content-Disposition", f'inline; filename="{name}"')
        self.finish(data)
