"""Image bytes: what they are (sniffed, never taken from a name), data: URIs, and the size
limits checked from a header before any pixel is decoded.

Both engine.media.images (decoding, embedding) and engine.media.svg (rasterising, whose url_fetcher
checks images embedded in an SVG) need these; they live here so neither imports the other
back.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import warnings
from typing import Literal

from PIL import Image

MimeType = Literal["image/png", "image/jpeg", "image/webp", "image/svg+xml"]


DATA_URI = re.compile(r"^data:(?P<mime>[\w/+.-]+)?(?P<b64>;base64)?,(?P<payload>.*)$", re.DOTALL)
RASTER_TYPES = ("image/png", "image/jpeg", "image/webp")
_LABELS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WebP", "image/svg+xml": "SVG"}
MAX_SIDE = 16_384
MAX_PIXELS = 40_000_000

# Pillow warns past MAX_IMAGE_PIXELS and errors past twice that; decode() refuses at the warning.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS


class ImageError(ValueError):
    """Bytes that are not an image we accept."""


def sniff(data: bytes) -> MimeType | None:
    """The image type from the bytes themselves, never from a name or header."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<svg", b"<?xml", b"<!--", b"<!doctype svg")) and b"<svg" in head:
        return "image/svg+xml"
    return None


def corrupt_message(kind: str) -> str:
    return f"the file is not a valid {_LABELS[kind]} image (it is corrupt or truncated): re-export it and upload again"


def _too_large_message(size: tuple[int, int] | None) -> str:
    limits = f"at most {MAX_SIDE} px on a side and {MAX_PIXELS // 1_000_000} megapixels"
    found = f"{size[0]} × {size[1]} px" if size else f"over {MAX_PIXELS // 1_000_000} megapixels"
    return f"image is too large to process ({found}); images may be {limits}: scale it down and upload it again"


def check_raster_size(data: bytes, kind: str) -> None:
    """Refuse oversized raster images from their header, before any pixel is decoded."""
    try:
        with warnings.catch_warnings():
            # Only the header is read here; the size check below gives the clearer message.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as probe:
                width, height = probe.size
    except Image.DecompressionBombError:
        raise ImageError(_too_large_message(None)) from None
    except Exception:
        raise ImageError(corrupt_message(kind)) from None
    if width < 1 or height < 1:
        raise ImageError(corrupt_message(kind))
    if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_PIXELS:
        raise ImageError(_too_large_message((width, height)))


def decode_data_uri(uri: str) -> bytes:
    match = DATA_URI.match(uri)
    if not match:
        raise ImageError("malformed data: URI")
    payload = match.group("payload")
    try:
        if match.group("b64"):
            return base64.b64decode(payload, validate=True)
        from urllib.parse import unquote_to_bytes

        return unquote_to_bytes(payload)
    except (binascii.Error, ValueError) as exc:
        raise ImageError(f"data: URI is not valid base64 ({exc})") from exc
