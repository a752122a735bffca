"""Render the README's feature pictures from the showcase samples (and the benchmark's script documents).

    PYTHONPATH=$PWD .venv/bin/python scripts/readme_pictures.py   # writes docs/feature-*.png

Each picture is a generated PDF (engine.render_pdf with a sample row) rasterised by
PDFium, so it shows what a generation draws, page numbers and conditions included.
"""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image

from benchmarks import render as script_documents
from engine import render_pdf, render_png
from workbench import samples

DOCS = Path(__file__).resolve().parent.parent / "docs"
SCALE = 0.75  # 54 dpi: A4 is 446 × 631 px
GAP = 12


def sheets(pdf: bytes) -> list[Image.Image]:
    document = pdfium.PdfDocument(pdf)
    try:
        return [page.render(scale=SCALE).to_pil().convert("RGB") for page in document]
    finally:
        document.close()


def side_by_side(images: list[Image.Image]) -> Image.Image:
    """Sheets in a row on a grey ground, as a reader turns the pages."""
    width = sum(i.width for i in images) + GAP * (len(images) + 1)
    height = max(i.height for i in images) + 2 * GAP
    out = Image.new("RGB", (width, height), (226, 230, 236))
    x = GAP
    for image in images:
        out.paste(image, (x, GAP))
        x += image.width + GAP
    return out


def crop_points(image: Image.Image, top: float, bottom: float) -> Image.Image:
    """The band between two y positions given in points from the sheet's top."""
    return image.crop((0, round(top * SCALE), image.width, round(bottom * SCALE)))


def main() -> None:
    DOCS.mkdir(exist_ok=True)
    certificate = render_pdf(samples.fitted_certificate(), samples.fitted_certificate_row(3), samples.resolver)
    invoice = render_pdf(samples.paged_invoice(), samples.paged_invoice_row(3, paid=True), samples.resolver)
    letter = render_pdf(samples.flowing_letter(), samples.flowing_letter_row(), samples.resolver)
    letter_sheets = sheets(letter)
    arabic = render_pdf(
        script_documents.arabic_certificate(), script_documents.arabic_certificate_row(3), samples.resolver
    )
    chinese = render_pdf(script_documents.chinese_invoice(), script_documents.chinese_invoice_row(3), samples.resolver)
    pictures = {
        # 1 fields: "This certifies that {recipient} completed {course}" filled, the long name fitted
        "feature-fields.png": sheets(certificate)[0],
        # 2 fit and flow: the letter's body continues on a second sheet, the closing after it
        "feature-flow.png": side_by_side(letter_sheets),
        # 3 rich text: bold, italic, struck and linked words of the letter's body
        "feature-rich-text.png": crop_points(letter_sheets[0], 300, 560),
        # 4 repeat and showIf: header and "Page n of N" on each sheet, PAID because paid_on is set
        "feature-repeat.png": side_by_side(sheets(invoice)),
        # 6 every script: the certificate in Arabic (joined, right to left, start-aligned), the invoice in Chinese
        "feature-scripts.png": side_by_side([sheets(arabic)[0], sheets(chinese)[0]]),
    }
    # 5 variables: the design-time preview shows each field's sample, as GET /designs/:id/variables lists it
    preview = render_png(samples.fitted_certificate(), 0, samples.resolver, dpi=54)
    (DOCS / "feature-variables.png").write_bytes(preview)
    for name, image in pictures.items():
        image.save(DOCS / name, optimize=True)
    for name in [*pictures, "feature-variables.png"]:
        print(f"wrote docs/{name} ({(DOCS / name).stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
