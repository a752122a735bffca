"""Image uploads: validate, sniff, rasterise SVG, check PDFs, thumbnail; and placeholder images.

Pure functions: no HTTP, no database. Every refusal is an `ImageRejected` whose
message is shown to API clients as is, so it says what is wrong and how to fix it,
and never echoes server paths or file contents.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw, ImageFont

from engine.fonts import FONT_DIR
from engine.media.images import ImageError, check_raster_size, corrupt_message, decode, is_blank, sniff
from engine.media.pdf_pages import PdfPageError, is_pdf, pdf_facts
from engine.media.svg import rasterize_svg

ACCEPTED = "PNG, JPEG, WebP or SVG image or a PDF"
THUMBNAIL_SIDE = 256

_MB = 1024 * 1024


class ImageRejected(ValueError):
    """An upload we refuse; the message is meant for API clients."""


@dataclass(frozen=True)
class ProcessedImage:
    mime_type: str  # sniffed from the bytes
    original: bytes  # exactly what was uploaded
    render: bytes  # what the renderer uses: the original, except SVG -> its PNG rasterisation
    render_mime_type: str  # image/png for SVG, else = mime_type
    width: int  # pixel dimensions of `render` (as displayed: JPEG EXIF orientation applied); a PDF's page 1 in points
    height: int
    thumbnail: bytes  # PNG, fitted within 256x256, aspect kept, transparency kept
    pages: int | None = None  # a PDF's page count (extensions.md 12); None for an image


def process_image(data: bytes, max_bytes: int) -> ProcessedImage:
    """Validate an uploaded image and derive what the service stores for it."""
    if not data:
        raise ImageRejected(f"the file is empty: upload a {ACCEPTED}")
    if len(data) > max_bytes:
        found, limit = _size(len(data)), _size(max_bytes)
        if found == limit:  # 1.04 MB against 1 MB would read "1 MB; limited to 1 MB"
            found = f"{len(data):,} bytes"
        raise ImageRejected(
            f"the file is {found}; this endpoint accepts images of at most {limit}: "
            "compress or scale down the image and upload it again"
        )
    if is_pdf(data):
        return _process_pdf(data)
    kind = sniff(data)
    if kind is None:
        raise ImageRejected(_unsupported(data))
    if kind == "image/svg+xml":
        return _process_svg(data)
    return _process_raster(data, kind)


# --- raster images -----------------------------------------------------------------


def _process_raster(data: bytes, kind: str) -> ProcessedImage:
    try:
        check_raster_size(data, kind)
    except ImageError as exc:
        raise ImageRejected(str(exc)) from None
    try:
        image = decode(data)  # bomb guard, full load, EXIF orientation applied
    except ImageError:
        raise ImageRejected(corrupt_message(kind)) from None
    return ProcessedImage(
        mime_type=kind,
        original=data,
        render=data,
        render_mime_type=kind,
        width=image.width,
        height=image.height,
        thumbnail=_thumbnail(image),
    )


def fitted_png(data: bytes, side: int) -> bytes:
    """A PNG of the image fitted within side×side, aspect kept (page and asset thumbnails)."""
    return _thumbnail(Image.open(io.BytesIO(data)), side)


def _thumbnail(image: Image.Image, side: int = THUMBNAIL_SIDE) -> bytes:
    has_alpha = "A" in image.getbands() or "transparency" in image.info
    thumb = image.convert("RGBA" if has_alpha else "RGB")
    thumb.thumbnail((side, side), Image.Resampling.LANCZOS, reducing_gap=3.0)
    out = io.BytesIO()
    thumb.save(out, "PNG")
    return out.getvalue()


# --- SVG ---------------------------------------------------------------------------


def _process_svg(data: bytes) -> ProcessedImage:
    try:
        png = rasterize_svg(data)
    except ImageError as exc:
        raise ImageRejected(str(exc)) from None
    try:
        image = Image.open(io.BytesIO(png))
        image.load()
    except MemoryError:
        raise
    except Exception:
        raise ImageRejected("the SVG could not be drawn: re-export it and upload again") from None
    if is_blank(image):
        raise ImageRejected("blank SVG: it draws nothing (check that its shapes are visible and not transparent)")
    return ProcessedImage(
        mime_type="image/svg+xml",
        original=data,
        render=png,
        render_mime_type="image/png",
        width=image.width,
        height=image.height,
        thumbnail=_thumbnail(image),
    )


# --- PDF ---------------------------------------------------------------------------


def _process_pdf(data: bytes) -> ProcessedImage:
    """extensions.md 12: a PDF is stored whole once it opens (not encrypted, at most 200 pages);
    its thumbnail is page 1, drawn by PDFium."""
    from engine.render.document import rasterize

    try:
        facts = pdf_facts(data)
        side = max(facts.width, facts.height)
        # A resolution that makes page 1 about twice the thumbnail's side, for LANCZOS to reduce.
        png = rasterize(data, 0, max(1.0, 2 * THUMBNAIL_SIDE * 72 / side))
    except PdfPageError as exc:
        raise ImageRejected(str(exc)) from None
    except MemoryError:
        raise  # past the render process's memory: its worker answers so, and the process is replaced
    except Exception:  # PDFium could not draw what pikepdf could open
        raise ImageRejected("the PDF's first page could not be drawn: re-export the PDF and upload again") from None
    return ProcessedImage(
        mime_type="application/pdf",
        original=data,
        render=data,
        render_mime_type="application/pdf",
        width=max(1, round(facts.width)),
        height=max(1, round(facts.height)),
        thumbnail=_thumbnail(Image.open(io.BytesIO(png))),
        pages=facts.pages,
    )


# --- messages ----------------------------------------------------------------------


def _size(n: int) -> str:
    """A byte count for people: "1.3 MB", "200 KB", "12 bytes"."""
    if n >= _MB:
        return f"{round(n / _MB, 1):g} MB"
    if n >= 1024:
        return f"{round(n / 1024)} KB"
    return f"{n} bytes"


_KNOWN_TYPES = (
    (b"GIF8", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"PK\x03\x04", "a ZIP archive (or an Office document)"),
    (b"\x1f\x8b", "gzip-compressed (an .svgz file? upload the uncompressed .svg)"),
    (b"\x00\x00\x01\x00", "an ICO icon"),
)


def _unsupported(data: bytes) -> str:
    looks_like = next((name for magic, name in _KNOWN_TYPES if data.startswith(magic)), None)
    if looks_like is None and data[4:8] == b"ftyp":
        brand = data[8:12]
        looks_like = "an AVIF image" if brand.startswith(b"avi") else "a HEIC/HEIF image or a video"
    if looks_like is None and data[:2] == b"BM" and len(data) > 14:
        looks_like = "a BMP image"
    hint = f" (the file is {looks_like})" if looks_like else ""
    return f"unsupported file type{hint}: upload a {ACCEPTED}"


# --- placeholders ------------------------------------------------------------------

_BACKGROUND = (0xE9, 0xED, 0xF2)
_BORDER = (0xB8, 0xC1, 0xCC)
_DIAGONAL = (0xD3, 0xD9, 0xE1)
_LABEL_INK = (0x4A, 0x55, 0x66)
_SIZE_INK = (0x7A, 0x86, 0x96)
_PLACEHOLDER_MAX = 4096  # the API allows 2000; anything else is clamped, never an error
_MIN_FONT = 6


@cache
def _font(bold: bool, size: int) -> ImageFont.FreeTypeFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(FONT_DIR / "dejavu-sans" / name), size)


def draw_placeholder(label: str, width: int, height: int) -> bytes:
    """A PNG of width x height: grey card, thin border, faint diagonals, centred label and size."""
    width = _clamp_side(width)
    height = _clamp_side(height)
    label = " ".join(str(label or "").split())[:200]
    image = Image.new("RGB", (width, height), _BACKGROUND)
    draw = ImageDraw.Draw(image)
    line = max(1, round(min(width, height) / 300))
    draw.line([(0, 0), (width - 1, height - 1)], fill=_DIAGONAL, width=line)
    draw.line([(0, height - 1), (width - 1, 0)], fill=_DIAGONAL, width=line)
    draw.rectangle([(0, 0), (width - 1, height - 1)], outline=_BORDER, width=line)

    size_text = f"{width} × {height}"
    layout = _fit_text(label, size_text, width, height)
    if layout is not None:
        label_font, label_lines, size_font, line_gap, block_w, block_h = layout
        top = (height - block_h) / 2
        pad = max(2, round(label_font.size * 0.5))
        draw.rectangle(
            [
                (round((width - block_w) / 2) - pad, round(top) - pad),
                (round((width + block_w) / 2) + pad, round(top + block_h) + pad),
            ],
            fill=_BACKGROUND,
        )
        y = top
        for text in label_lines:
            draw.text((width / 2, y), text, font=label_font, fill=_LABEL_INK, anchor="mt")
            y += _line_height(label_font) + line_gap
        if size_font is not None:
            if label_lines:
                y += round(size_font.size * 0.4) - line_gap
            draw.text((width / 2, y), size_text, font=size_font, fill=_SIZE_INK, anchor="mt")
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _clamp_side(value: object) -> int:
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        number = 1
    return max(1, min(_PLACEHOLDER_MAX, number))


def _line_height(font: ImageFont.FreeTypeFont) -> int:
    ascent, descent = font.getmetrics()
    return ascent + descent


def _fit_text(label: str, size_text: str, width: int, height: int):
    """The largest label font (down to a legible minimum) whose wrapped text and size line fit.

    Words are kept whole when any size allows it; only then are long words broken.
    Returns (label font, label lines, size font or None, line gap, block width, block height),
    or None when not even the size line fits (a tiny placeholder keeps only its drawing).
    """
    max_w = width * 0.8
    max_h = height * 0.8
    start = max(_MIN_FONT, min(48, round(min(width / 6, height / 9))))
    for break_words in (False, True):
        # Whole words down to half the starting size; below that, breaking a long word reads better.
        smallest = _MIN_FONT if break_words else max(_MIN_FONT, start // 2)
        for size in range(start, smallest - 1, -1):
            label_font = _font(True, size)
            size_font = _font(False, max(_MIN_FONT, round(size * 0.62)))
            lines = _wrap(label, label_font, max_w, break_words) if label else []
            if lines is None or len(lines) > 3:
                continue
            gap = round(size * 0.15)
            label_h = len(lines) * _line_height(label_font) + max(0, len(lines) - 1) * gap
            size_h = _line_height(size_font) + (round(size_font.size * 0.4) if lines else 0)
            label_w = max((label_font.getlength(text) for text in lines), default=0.0)
            block_w = max(label_w, size_font.getlength(size_text))
            if block_w <= max_w and label_h + size_h <= max_h:
                return label_font, lines, size_font, gap, block_w, label_h + size_h
            if break_words and size == _MIN_FONT and lines and label_w <= max_w and label_h <= max_h:
                return label_font, lines, None, gap, label_w, label_h  # the label matters more than the size
    size_font = _font(False, _MIN_FONT)
    if size_font.getlength(size_text) <= max_w and _line_height(size_font) <= max_h:
        return size_font, [], size_font, 0, size_font.getlength(size_text), _line_height(size_font)
    return None


def _wrap(text: str, font: ImageFont.FreeTypeFont, max_width: float, break_words: bool) -> list[str] | None:
    """Greedy word wrap; a word wider than a line is broken between characters, or None if not allowed."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if font.getlength(candidate) <= max_width:
            current = candidate
            continue
        if current:
            lines.append(current)
        if font.getlength(word) <= max_width:
            current = word
            continue
        if not break_words:
            return None
        current = ""
        for char in word:
            if current and font.getlength(current + char) > max_width:
                lines.append(current)
                current = char
            else:
                current += char
    if current:
        lines.append(current)
    return lines
