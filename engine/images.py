"""Images: sniffing, decoding, SVG rasterisation, cropping and embedding.

The engine never fetches anything. A caller passes a resolver that turns a ref
(`uploads:…`, `assets:…`) into bytes; `data:` URIs are decoded here.

Embedding work (decoding, compressing the pixel stream) is done once per distinct
image content and reused by every later document in the process.
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import io
import re
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from PIL import Image, ImageOps
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase.pdfdoc import PDFImageXObject, PDFObjectReference
from reportlab.pdfgen.canvas import Canvas

from .errors import RenderError

Resolver = Callable[[str], bytes]
MimeType = Literal["image/png", "image/jpeg", "image/webp", "image/svg+xml"]

REF_PATTERN = re.compile(r"^(uploads|assets):[A-Za-z0-9_-]{1,64}$")
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


def rasterize_svg(data: bytes, scale: float = 2.0) -> bytes:
    """An SVG as PNG bytes, with no file or network access and a bounded size (engine.svg)."""
    from .svg import rasterize_svg as rasterize

    return rasterize(data, scale)


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


def decode(data: bytes) -> Image.Image:
    """Decode PNG/JPEG/WebP/SVG bytes into a loaded Pillow image."""
    kind = sniff(data)
    if kind is None:
        raise ImageError("not a PNG, JPEG, WebP or SVG image")
    if kind == "image/svg+xml":
        data = rasterize_svg(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            image.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageError(f"image too large to decode safely ({exc})") from exc
    except Exception as exc:
        raise ImageError(f"corrupt or unreadable image: {exc}") from exc
    return ImageOps.exif_transpose(image)


def is_blank(image: Image.Image) -> bool:
    """True when nothing would be visible: every pixel fully transparent."""
    if "A" not in image.getbands() and "transparency" not in image.info:
        return False
    return image.convert("RGBA").getchannel("A").getextrema()[1] == 0


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


def _upright(jpeg: bytes) -> bool:
    """True when a JPEG needs no EXIF rotation, so its bytes can be embedded as they are."""
    try:
        with Image.open(io.BytesIO(jpeg)) as probe:
            return probe.getexif().get(0x0112, 1) == 1
    except Exception:
        return False


@dataclass(frozen=True)
class Crop:
    """A crop as fractions of the source: left, top, width, height in 0..1."""

    x: float
    y: float
    w: float
    h: float


@dataclass
class PreparedImage:
    """An image ready to embed: the compressed stream is built once, then reused."""

    digest: str
    width: int  # pixels
    height: int
    xobject: PDFImageXObject
    smask: PDFImageXObject | None


def _prepare(digest: str, image: Image.Image, jpeg_bytes: bytes | None) -> PreparedImage:
    if jpeg_bytes is not None:
        # JPEG passes through untouched (DCTDecode): no re-encoding, no quality loss.
        reader = ImageReader(io.BytesIO(jpeg_bytes))
    else:
        if image.mode not in ("RGB", "RGBA", "L", "LA"):
            # PDF/A and screen output want RGB or grey; CMYK/palette images convert.
            has_alpha = "A" in image.getbands() or "transparency" in image.info
            image = image.convert("RGBA" if has_alpha else "RGB")
        if image.mode == "LA":
            image = image.convert("RGBA")
        reader = ImageReader(image)
    xobject = PDFImageXObject(digest, reader, mask="auto")
    smask = getattr(xobject, "_smask", None)
    if smask is not None:
        del xobject._smask
    return PreparedImage(digest, image.width, image.height, xobject, smask)


class ImageLibrary:
    """Resolves refs to prepared images, caching by content across documents."""

    _shared: OrderedDict[tuple[str, Crop | None], PreparedImage] = OrderedDict()
    _lock = threading.Lock()
    CAPACITY = 256

    def __init__(self, resolver: Resolver | None = None):
        self._resolver = resolver
        self._bytes: dict[str, bytes] = {}

    def load_bytes(self, ref: str) -> bytes:
        if ref not in self._bytes:
            if ref.startswith("data:"):
                try:
                    self._bytes[ref] = decode_data_uri(ref)
                except ImageError as exc:
                    raise RenderError(f"image data: URI: {exc}") from None
            elif self._resolver is None:
                raise RenderError(f"no resolver was given to load image '{ref}'")
            else:
                try:
                    self._bytes[ref] = self._resolver(ref)
                except RenderError:
                    raise
                except Exception as exc:
                    raise RenderError(f"image '{ref}' could not be loaded: {exc}") from exc
        return self._bytes[ref]

    def prepared(self, ref: str, crop: Crop | None = None) -> PreparedImage:
        data = self.load_bytes(ref)
        digest = hashlib.sha256(data).hexdigest()
        key = (digest, crop)
        with self._lock:
            hit = self._shared.get(key)
            if hit is not None:
                self._shared.move_to_end(key)
                return hit
        try:
            image = decode(data)
        except ImageError as exc:
            raise RenderError(f"image '{ref[:60]}': {exc}") from exc
        untouched_jpeg = sniff(data) == "image/jpeg" and crop is None and image.mode in ("RGB", "L") and _upright(data)
        if crop is not None:
            image = image.crop(
                (
                    round(crop.x * image.width),
                    round(crop.y * image.height),
                    round((crop.x + crop.w) * image.width),
                    round((crop.y + crop.h) * image.height),
                )
            )
        name = digest[:24] if crop is None else hashlib.sha256(f"{digest}{crop}".encode()).hexdigest()[:24]
        prepared = _prepare(f"img{name}", image, data if untouched_jpeg else None)
        with self._lock:
            self._shared[key] = prepared
            while len(self._shared) > self.CAPACITY:
                self._shared.popitem(last=False)
        return prepared


def place(canvas: Canvas, image: PreparedImage, x: float, y: float, w: float, h: float) -> None:
    """Draw a prepared image stretched into the PDF-space box (x, y bottom-left).

    This follows what Canvas.drawImage does, but registers a copy of an XObject whose
    compressed stream was built once: drawImage would hash and re-compress the pixels
    for every document, which dominates the cost of an image-heavy batch.
    """
    doc = canvas._doc
    reg_name = doc.getXObjectName(image.digest)
    if reg_name not in doc.idToObject:
        xobject = copy.copy(image.xobject)
        canvas._setXObjects(xobject)
        doc.Reference(xobject, reg_name)
        doc.addForm(image.digest, xobject)
        if image.smask is not None:
            # Masks are named by their alpha data: images with the same alpha share one.
            mask_name = doc.getXObjectName(image.smask.name)
            if mask_name in doc.idToObject:
                xobject.smask = PDFObjectReference(mask_name)
            else:
                smask = copy.copy(image.smask)
                canvas._setXObjects(smask)
                xobject.smask = doc.Reference(smask, mask_name)
    canvas._currentPageHasImages = 1
    canvas.saveState()
    canvas.translate(x, y)
    canvas.scale(w, h)
    canvas._code.append(f"/{reg_name} Do")
    canvas.restoreState()
    canvas._formsinuse.append(image.digest)
