"""Content-addressed files under the data dir, and signed expiring URLs to them.

A blob's key is the SHA-256 of its bytes plus an extension that fixes its content
type: writing the same bytes twice stores them once. URLs are
`{base}/files/<key>[/<download name>]?expires=<unix>&sig=<hmac>`; the HMAC secret
lives in the data dir, so URLs stay valid across restarts until they expire.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from .errors import ApiError

CONTENT_TYPES = {
    "pdf": "application/pdf",
    "png": "image/png",
    "jpg": "image/jpeg",
    "webp": "image/webp",
    "svg": "image/svg+xml",
    "zip": "application/zip",
}
EXTENSIONS = {v: k for k, v in CONTENT_TYPES.items()}
KEY_PATTERN = re.compile(r"^[0-9a-f]{64}\.(pdf|png|jpg|webp|svg|zip)$")


class BlobStore:
    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def path(self, key: str) -> Path:
        if not KEY_PATTERN.match(key):
            raise ValueError(f"not a blob key: {key!r}")
        return self.root / key[:2] / key

    def put(self, data: bytes, content_type: str, durable: bool = False) -> str:
        """Store bytes under their hash. Write-then-rename means a reader never sees half a
        file and a crashed process leaves none; `durable` also survives a power cut (fsync),
        which originals need and derived files (PDFs, previews, ZIPs) can do without."""
        key = f"{hashlib.sha256(data).hexdigest()}.{EXTENSIONS[content_type]}"
        target = self.path(key)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                if durable:
                    handle.flush()
                    os.fsync(handle.fileno())
            os.replace(temp, target)
        return key

    def get(self, key: str) -> bytes:
        return self.path(key).read_bytes()

    def exists(self, key: str) -> bool:
        return self.path(key).exists()


def secret_in(path: Path) -> str:
    """A random hex secret kept in a file only its owner can read, made on first use."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


class UrlSigner:
    """HMAC-signed, expiring URLs for files served without an API key."""

    def __init__(self, secret_path: Path, base_url: str):
        self._secret = bytes.fromhex(secret_in(secret_path))
        self.base_url = base_url.rstrip("/")

    def _signature(self, path: str, expires: int) -> str:
        return hmac.new(self._secret, f"{path}\n{expires}".encode(), hashlib.sha256).hexdigest()

    def url(self, key: str, lifetime: int, download_name: str | None = None, now: float | None = None) -> str:
        # The signature covers the decoded path, as the file handler receives it.
        signed = key if download_name is None else f"{key}/{download_name}"
        shown = key if download_name is None else f"{key}/{quote(download_name, safe='')}"
        expires = int((now or time.time()) + lifetime)
        return f"{self.base_url}/files/{shown}?expires={expires}&sig={self._signature(signed, expires)}"

    def verify(self, path: str, expires: str | None, signature: str | None, now: float | None = None) -> str:
        """The blob key of a signed path, or ApiError URL_INVALID / URL_EXPIRED."""
        if not expires or not signature or not re.fullmatch(r"[0-9]{1,12}", expires):
            raise ApiError("URL_INVALID", "this file URL is missing its signature or expiry")
        expected = self._signature(path, int(expires))
        if not hmac.compare_digest(expected, signature):
            raise ApiError("URL_INVALID", "this file URL's signature does not match")
        if int(expires) < (now or time.time()):
            raise ApiError("URL_EXPIRED", "this file URL has expired; request a new one")
        return path.split("/", 1)[0]
