"""The PDF probes every test uses: what a reader sees of a PDF (text, pages, pixels, boxes,
fonts), read with PDFium (pypdfium2) and pikepdf, in one place. A test that needs a probe
not here adds it here, so that two tests never read a PDF two ways.
"""

from __future__ import annotations

import io
from pathlib import Path

import pikepdf
import pikepdf.pdfa
import pypdfium2 as pdfium
from PIL import Image


def pdf_text(pdf: bytes) -> list[str]:
    """The text of every page, extracted by PDFium."""
    document = pdfium.PdfDocument(pdf)
    try:
        return [page.get_textpage().get_text_range() for page in document]
    finally:
        document.close()


def page_count(pdf: bytes) -> int:
    document = pdfium.PdfDocument(pdf)
    try:
        return len(document)
    finally:
        document.close()


def page_image(pdf: bytes, index: int = 0, dpi: float = 144) -> Image.Image:
    document = pdfium.PdfDocument(pdf)
    try:
        return document[index].render(scale=dpi / 72).to_pil().convert("RGB")
    finally:
        document.close()


def crop_points(image: Image.Image, box: tuple[float, float, float, float], dpi: float = 144) -> Image.Image:
    """Crop a page image to a box given in points (x, y from the top-left, w, h)."""
    scale = dpi / 72
    x, y, w, h = box
    return image.crop((round(x * scale), round(y * scale), round((x + w) * scale), round((y + h) * scale)))


def ink_ratio(image: Image.Image, threshold: int = 128) -> float:
    """Share of pixels darker than the threshold."""
    grey = image.convert("L")
    dark = sum(1 for v in grey.get_flattened_data() if v < threshold)
    return dark / (grey.width * grey.height)


def font_report(pdf: bytes) -> list[dict]:
    """Every font resource in the PDF: its name and whether its program is embedded."""
    fonts = []
    seen: set[tuple[int, int]] = set()
    with pikepdf.open(io.BytesIO(pdf)) as document:
        for obj in document.objects:
            if not isinstance(obj, pikepdf.Dictionary) or obj.get("/Type") != "/Font":
                continue
            if obj.get("/Subtype") == "/CIDFontType2":
                continue  # a descendant: reported through its Type0 parent
            key = obj.objgen
            if key in seen:
                continue
            seen.add(key)
            descriptor_owner = obj.DescendantFonts[0] if obj.get("/Subtype") == "/Type0" else obj
            descriptor = descriptor_owner.get("/FontDescriptor")
            embedded = descriptor is not None and any(
                k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")
            )
            fonts.append({"name": str(obj.get("/BaseFont")), "embedded": embedded})
    return fonts


def all_text(pdf: bytes) -> str:
    """The text of every page, extracted by PDFium, one after another."""
    return "".join(pdf_text(pdf))


def line_rects(pdf: bytes, page: int = 0) -> list[tuple[float, float, float, float]]:
    """(left, bottom, right, top) of each line of text PDFium finds on a page, in PDF points."""
    document = pdfium.PdfDocument(pdf)
    try:
        text_page = document[page].get_textpage()
        return [text_page.get_rect(i) for i in range(text_page.count_rects())]
    finally:
        document.close()


def page_sizes(pdf: bytes) -> list[tuple[float, float]]:
    """(width, height) of every page, in PDF points."""
    document = pdfium.PdfDocument(pdf)
    try:
        return [document[i].get_size() for i in range(len(document))]
    finally:
        document.close()


def structure(path: Path) -> list[tuple[str, dict]]:
    """(role, interesting attributes) of every structure element, in reading order."""
    out = []
    with pikepdf.open(path) as pdf:

        def walk(item):
            if isinstance(item, pikepdf.Array):
                for kid in item:
                    walk(kid)
            elif isinstance(item, pikepdf.Dictionary) and item.get("/Type") == "/StructElem":
                attrs = {k: str(item[k]) for k in ("/Alt", "/ActualText") if k in item}
                if "/A" in item:
                    attrs.update({k: str(v) for k, v in item.A.items() if k != "/O"})
                out.append((str(item.S)[1:], attrs))
                if "/K" in item:
                    walk(item.K)

        walk(pdf.Root.StructTreeRoot.K)
    return out


def char_left(pdf: bytes, word: str, page: int = 0, occurrence: int = 0) -> tuple[float, float]:
    """(left, right) in points of the `occurrence`-th `word` on a page, from PDFium's char boxes."""
    document = pdfium.PdfDocument(pdf)
    try:
        text_page = document[page].get_textpage()
        text = text_page.get_text_range()
        start = -1
        for _ in range(occurrence + 1):
            start = text.index(word, start + 1)
        left = text_page.get_charbox(start)[0]
        right = text_page.get_charbox(start + len(word) - 1)[2]
        return left, right
    finally:
        document.close()


def ink_columns(pdf: bytes, box: tuple[float, float, float, float], dpi: float = 144) -> tuple[float, float]:
    """(left, right) of the ink inside box (x, y from the top-left, w, h), in points from the page's left."""
    image = page_image(pdf, dpi=dpi).convert("L")
    scale = dpi / 72
    x, y, w, h = box
    left_px, top_px = round(x * scale), round(y * scale)
    crop = image.crop((left_px, top_px, round((x + w) * scale), round((y + h) * scale)))
    columns = [i for i in range(crop.width) if any(crop.getpixel((i, j)) < 128 for j in range(crop.height))]
    assert columns, "no ink in the box"
    return (left_px + columns[0]) / scale, (left_px + columns[-1] + 1) / scale
