"""Images: decoding, cropping and embedding (sniffing and data: URIs: engine.media.image_bytes; SVG: engine.media.svg).

The engine never fetches anything. A caller passes a resolver that turns a ref
(`uploads:…`, `assets:…`) into bytes; `data:` URIs are decoded here.

Embedding work (decoding, compressing the pixel stream) is done once per distinct
image content and reused by every later document in the process.
"""

from __future__ import annotations

import hashlib
import io
import re
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image, ImageOps
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from ..errors import RenderError
from ..pdf import reportlab_internals
from ..pdf.reportlab_internals import ImageXObject

# The byte-level helpers live in engine.media.image_bytes (engine.media.svg needs them too); they are
# re-exported here, where callers have always imported them.
from .image_bytes import (
    DATA_URI,
    MAX_PIXELS,
    MAX_SIDE,
    RASTER_TYPES,
    ImageError,
    MimeType,
    check_raster_size,
    corrupt_message,
    decode_data_uri,
    sniff,
)
from .pdf_pages import PdfPageError, PlacedPage, is_pdf, prepare_page
from .svg import rasterize_svg

__all__ = [
    "DATA_URI",
    "MAX_PIXELS",
    "MAX_SIDE",
    "RASTER_TYPES",
    "REF_PATTERN",
    "Crop",
    "ImageError",
    "ImageLibrary",
    "MimeType",
    "PlacedPage",
    "PreparedImage",
    "Resolver",
    "check_raster_size",
    "corrupt_message",
    "decode",
    "decode_data_uri",
    "is_blank",
    "place",
    "rasterize_svg",
    "sniff",
]

Resolver = Callable[[str], bytes]
REF_PATTERN = re.compile(r"^(uploads|assets):[A-Za-z0-9_-]{1,64}$")


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
        raise ImageError(_bomb_message(exc)) from None
    except Exception as exc:
        raise ImageError(f"corrupt or unreadable image: {exc}") from exc
    return ImageOps.exif_transpose(image)


def _bomb_message(exc: Exception) -> str:
    """What a decompression bomb is told: its size (from Pillow's finding) and the bound."""
    limit = MAX_PIXELS // 1_000_000
    found = re.search(r"Image size \((\d+) pixels\)", str(exc))
    size = f"{int(found.group(1)) / 1e6:,.0f} megapixels" if found else f"over {limit} megapixels"
    return f"the image is {size}; images are limited to {limit} megapixels: scale it down and send it again"


def is_blank(image: Image.Image) -> bool:
    """True when nothing would be visible: every pixel fully transparent."""
    if "A" not in image.getbands() and "transparency" not in image.info:
        return False
    return image.convert("RGBA").getchannel("A").getextrema()[1] == 0


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
    xobject: ImageXObject  # its stream compressed once (reportlab_internals.image_xobject)
    smask: ImageXObject | None  # its alpha


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
    xobject, smask = reportlab_internals.image_xobject(digest, reader)
    return PreparedImage(digest, image.width, image.height, xobject, smask)


class ImageLibrary:
    """Resolves refs to prepared images, caching by content across documents."""

    _shared: OrderedDict[tuple[str, Crop | None], PreparedImage] = OrderedDict()
    # Pages of PDFs made into forms (engine.media.pdf_pages), by (content digest, page number).
    _pages: OrderedDict[tuple[str, int], PlacedPage] = OrderedDict()
    _lock = threading.Lock()
    CAPACITY = 256
    PAGES_CAPACITY = 64

    def __init__(self, resolver: Resolver | None = None, profile: str = "standard"):
        """`profile`: the render's; the tagged ones refuse a placed page that would break the
        standard they claim (extensions.md 12)."""
        self._resolver = resolver
        self._profile = profile
        self._bytes: dict[str, bytes] = {}
        self._digests: dict[str, str] = {}

    @classmethod
    def shared_stats(cls) -> dict[str, int]:
        """The process-wide prepared images and placed pages: how many are kept (engine.caches)."""
        with cls._lock:
            return {"entries": len(cls._shared), "pages": len(cls._pages)}

    def is_pdf(self, ref: str) -> bool:
        """The ref's bytes are a PDF, whose pages are placed (placed_page), not decoded."""
        return is_pdf(self.load_bytes(ref))

    def placed_page(self, ref: str, page_number: int | None, where: str) -> PlacedPage:
        """Page `page_number` (1-based, default 1) of the PDF `ref` made into a form, once per
        content and page in the process. `where` names the place that draws it, for messages."""
        number = page_number or 1
        digest = self.digest(ref)
        key = (digest, number)
        with self._lock:
            page = self._pages.get(key)
            if page is not None:
                self._pages.move_to_end(key)
        if page is None:
            try:
                page = prepare_page(self.load_bytes(ref), number, digest, f"{ref[:60]}")
            except PdfPageError as exc:
                raise RenderError(f"{where}: {exc}") from None
            with self._lock:
                self._pages[key] = page
                while len(self._pages) > self.PAGES_CAPACITY:
                    self._pages.popitem(last=False)
        if self._profile != "standard":
            _require_conformance(page, ref, where, self._profile)
        return page

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

    def digest(self, ref: str) -> str:
        """The SHA-256 of the ref's bytes, worked out once per library (a render)."""
        digest = self._digests.get(ref)
        if digest is None:
            digest = self._digests[ref] = hashlib.sha256(self.load_bytes(ref)).hexdigest()
        return digest

    def prepared(self, ref: str, crop: Crop | None = None) -> PreparedImage:
        data = self.load_bytes(ref)
        digest = self.digest(ref)
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


def _require_conformance(page: PlacedPage, ref: str, where: str, profile: str) -> None:
    """extensions.md 12: under pdf-a a placed page must meet PDF/A-3 itself (its content is
    copied as it is): fonts embedded, no transparency or other drawing ISO 19005-3 forbids.
    PDF/UA (the accessible profile) wants every font embedded too, artifacts' included
    (ISO 14289-1 7.21.3.1)."""
    source = f"page {page.page_number} of {ref[:60]}"
    standard = "the pdf-a profile (PDF/A-3)" if profile == "pdf-a" else "the accessible profile (PDF/UA-1)"
    if page.unembedded_fonts:
        fonts = ", ".join(page.unembedded_fonts[:5])
        raise RenderError(
            f"{where}: {source} uses the font(s) {fonts} without embedding them, which {standard} forbids: "
            "export that PDF with its fonts embedded (e.g. as PDF/A), or generate with the standard profile"
        )
    if profile == "pdf-a" and page.pdf_a_problems:
        raise RenderError(
            f"{where}: {source} carries {page.pdf_a_problems[0]}, which the pdf-a profile (PDF/A-3) forbids: "
            "export that PDF as PDF/A (flattened), or generate with the standard profile"
        )


def placed_named(name: str) -> PlacedPage | None:
    """The placed page a document names `name`, if the process still holds it (compiled forms)."""
    with ImageLibrary._lock:
        return next((page for page in ImageLibrary._pages.values() if page.name == name), None)


def place(canvas: Canvas, image: PreparedImage, x: float, y: float, w: float, h: float) -> None:
    """Draw a prepared image stretched into the PDF-space box (x, y bottom-left).

    This follows what Canvas.drawImage does, but registers a copy of an XObject whose
    compressed stream was built once: drawImage would hash and re-compress the pixels
    for every document, which dominates the cost of an image-heavy batch.
    """
    register(canvas, image)
    reportlab_internals.mark_page_has_images(canvas)
    canvas.saveState()
    canvas.translate(x, y)
    canvas.scale(w, h)
    canvas.doForm(image.digest)
    canvas.restoreState()


def register(canvas: Canvas, image: PreparedImage) -> str:
    """The image's XObject (and soft mask) in the canvas's document, added once; its name there.
    Compiled forms (engine.render.form_cache) register the images they draw this way too."""
    return reportlab_internals.add_image(canvas, image.digest, image.xobject, image.smask)


def prepared_named(name: str) -> PreparedImage | None:
    """The prepared image a document names `name` (its digest), if the process still holds it."""
    with ImageLibrary._lock:
        return next((image for image in ImageLibrary._shared.values() if image.digest == name), None)
