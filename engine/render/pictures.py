"""Pictures of a document's pages instead of its PDF (extensions.md 12, `output`): the PDF is
rendered as usual, then each page rasterised with PDFium at the asked resolution.

One page gives the picture itself; more give a ZIP of `page-001.png`, `page-002.png`, … in
page order. The pixel count of a page is bounded before anything is drawn (a 600 dpi poster
would be gigabytes of bitmap): `check_picture_size` says which dpi would fit.
"""

from __future__ import annotations

import io
import math
import zipfile
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import LimitExceeded

OutputFormat = Literal["pdf", "png", "jpeg"]
DEFAULT_DPI = 150
MIN_DPI, MAX_DPI = 72, 600
# A4 at 600 dpi is 34.8 million pixels (about 100 MB of bitmap): allowed. Larger pages at high
# resolutions are refused, naming the dpi that fits, rather than filling a render's memory.
MAX_PICTURE_PIXELS = 40_000_000
MAX_PICTURE_SIDE = 30_000  # pixels; JPEG cannot go past 65,535, and no viewer wants more
JPEG_QUALITY = 90
EXTENSIONS = {"png": "png", "jpeg": "jpg"}
CONTENT_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "zip": "application/zip"}


class PageOutput(BaseModel):
    """What a generation delivers: its PDF (the default), or pictures of its pages."""

    model_config = ConfigDict(extra="forbid")

    format: OutputFormat = Field(description='"pdf" (the default), "png" or "jpeg": pictures of the pages')
    dpi: int = Field(
        DEFAULT_DPI,
        ge=MIN_DPI,
        le=MAX_DPI,
        description="Pictures' resolution in dots per inch (72-600, default 150): a page's picture is its size "
        "in points × dpi / 72 pixels",
    )

    @property
    def pictures(self) -> bool:
        return self.format != "pdf"


def picture_size(width: float, height: float, dpi: float) -> tuple[int, int]:
    """A page of `width` × `height` points at `dpi`, in pixels (as PDFium renders it)."""
    scale = dpi / 72
    return max(1, round(width * scale)), max(1, round(height * scale))


def check_picture_size(width: float, height: float, dpi: float, where: str = "the page") -> None:
    """LimitExceeded when the page's picture at `dpi` would be too large, naming the dpi that fits."""
    w, h = picture_size(width, height, dpi)
    if w * h <= MAX_PICTURE_PIXELS and max(w, h) <= MAX_PICTURE_SIDE:
        return
    by_area = 72 * math.sqrt(MAX_PICTURE_PIXELS / (width * height))
    by_side = 72 * MAX_PICTURE_SIDE / max(width, height)
    fits = math.floor(min(by_area, by_side))
    fix = f"use dpi {fits} or less" if fits >= MIN_DPI else "make the page smaller or ask for a PDF"
    raise LimitExceeded(
        f"output: {where} ({width:g} × {height:g} pt) at {dpi:g} dpi would be a {w} × {h} pixel picture; "
        f"pictures are limited to {MAX_PICTURE_PIXELS / 1e6:g} million pixels and {MAX_PICTURE_SIDE:,} pixels "
        f"a side: {fix}"
    )


def page_pictures(pdf: bytes, output: PageOutput) -> list[bytes]:
    """Each page of `pdf` as a PNG or JPEG at output.dpi, in page order."""
    import pypdfium2 as pdfium

    from .document import _PDFIUM_LOCK

    pictures = []
    with _PDFIUM_LOCK:
        document = pdfium.PdfDocument(pdf)
        try:
            document.init_forms()  # form fields' widgets, as the PDF shows them (extensions.md 13)
            for index in range(len(document)):
                page = document[index]
                width, height = page.get_size()
                check_picture_size(width, height, output.dpi, f"page {index + 1}")
                image = page.render(scale=output.dpi / 72).to_pil()
                page.close()
                pictures.append(_encoded(image, output.format, output.dpi))
                del image
        finally:
            document.close()
    return pictures


def _encoded(image, format: OutputFormat, dpi: int) -> bytes:  # noqa: ANN001 (a PIL image)
    out = io.BytesIO()
    if format == "jpeg":
        image.convert("RGB").save(out, format="JPEG", quality=JPEG_QUALITY, dpi=(dpi, dpi))
    else:
        # Level 1 costs a few percent in size and saves most of the encoding time.
        image.save(out, format="PNG", compress_level=1, dpi=(dpi, dpi))
    return out.getvalue()


def page_file_name(index: int, format: OutputFormat) -> str:
    """The name of page `index` (from 0) in a ZIP of pictures: page-001.png…"""
    return f"page-{index + 1:03d}.{EXTENSIONS[format]}"


def pictures_file(pictures: list[bytes], format: OutputFormat) -> tuple[bytes, str]:
    """(bytes, content type) of what is delivered: one page's picture, or a ZIP of them all."""
    if len(pictures) == 1:
        return pictures[0], CONTENT_TYPES[format]
    return zipped((page_file_name(i, format), p) for i, p in enumerate(pictures)), CONTENT_TYPES["zip"]


def zipped(entries: Iterable[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    # PNG and JPEG are compressed already: storing them is as small and much faster.
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return out.getvalue()


__all__ = ["PageOutput", "check_picture_size", "page_pictures", "picture_size", "pictures_file"]
