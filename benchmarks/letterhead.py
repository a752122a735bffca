"""What a letterhead that is a PDF page costs (issue 36, extensions.md 12): a one-page letter
generated on a letterhead placed as vector content (a page of a PDF as the page background),
against the same letter on the same letterhead as a PNG (150 dpi), rendered interleaved in one
process. The target: at most 1.3 times the PNG letterhead's time.

    .venv/bin/python -m benchmarks.letterhead [--runs N]
"""

from __future__ import annotations

import argparse
import io
import statistics
import time

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from engine import apply, new_design, render_pdf
from engine.fonts import FONT_DIR
from engine.render.document import rasterize

TARGET = 1.3
A4 = (595.0, 842.0)


def letterhead_pdf() -> bytes:
    """A letterhead as a designer exports one: a name, an address block, a rule and a footer
    band, its two fonts embedded (ReportLab's canvas, as another producer)."""
    for name, file in (("LetterheadSans", "DejaVuSans.ttf"), ("LetterheadSansBold", "DejaVuSans-Bold.ttf")):
        if name not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(TTFont(name, str(FONT_DIR / "dejavu-sans" / file)))
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1, initialFontName="LetterheadSans")
    canvas.setFillColorRGB(0.12, 0.3, 0.55)
    canvas.circle(70, 780, 22, stroke=0, fill=1)
    canvas.setFont("LetterheadSansBold", 22)
    canvas.drawString(104, 772, "Northwind Trading Company")
    canvas.setFont("LetterheadSans", 8.5)
    for line, text in enumerate(["12 Harbour Road", "Bristol BS1 4QA", "+44 117 496 0000", "hello@northwind.example"]):
        canvas.drawRightString(545, 790 - 11 * line, text)
    canvas.setLineWidth(0.8)
    canvas.line(50, 735, 545, 735)
    canvas.rect(0, 0, 595, 36, stroke=0, fill=1)
    canvas.setFillColorRGB(1, 1, 1)
    canvas.drawCentredString(297, 14, "Registered in England No. 01234567 · VAT GB 123 4567 89")
    canvas.showPage()
    canvas.save()
    return out.getvalue()


def letter(background: str):
    actions = [
        {"type": "set_page_background", "args": {"page": 0, "backgroundImage": background}},
        {
            "type": "add_element",
            "args": {"type": "text", "name": "recipient", "position": {"x": 60, "y": 150, "maxWidth": 240}},
        },
        {
            "type": "add_element",
            "args": {"type": "text", "name": "body", "position": {"x": 60, "y": 260, "maxWidth": 475}},
        },
        {
            "type": "add_element",
            "args": {
                "type": "text",
                "name": "closing",
                "position": {"x": 60, "y": 600},
                "data": {"content": "Yours sincerely,\nThe Northwind team"},
            },
        },
        {"type": "bind_variable", "args": {"name": "recipient"}},
        {"type": "bind_variable", "args": {"name": "body"}},
    ]
    return apply(new_design(size="A4", title="Letter"), actions)[0]


def values(run: int) -> dict[str, str]:
    return {
        "recipient": f"Customer {run}\n{run} Market Street\nLeeds LS1 {run % 9}AB",
        "body": f"Dear customer {run},\n\nThank you for your order number {1000 + run}. "
        "It leaves our warehouse this week; the invoice follows by post. " * 3,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    args = parser.parse_args()
    pdf = letterhead_pdf()
    png = rasterize(pdf, 0, 150)
    files = {"uploads:pdf": pdf, "uploads:png": png}
    sides = {"PDF page": letter("uploads:pdf"), "PNG": letter("uploads:png")}
    times: dict[str, list[float]] = {name: [] for name in sides}
    for run in range(-3, args.runs):  # three warm-up rounds, then timed ones
        for side, (name, tree) in enumerate(sides.items()):
            # Each side its own letters: a paragraph one side laid out would be a cache hit for the other.
            row = values(100_000 * side + run)
            started = time.perf_counter()
            render_pdf(tree, row, files.__getitem__)
            if run >= 0:
                times[name].append(time.perf_counter() - started)
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    ratio = medians["PDF page"] / medians["PNG"]
    sizes = {name: len(render_pdf(tree, values(0), files.__getitem__)) // 1024 for name, tree in sides.items()}
    print(f"A one-page letter on a letterhead, {args.runs} runs each, interleaved (median ms)")
    print(f"  letterhead as a PDF page (vector)  {medians['PDF page']:8.2f} ms  ({sizes['PDF page']} KB)")
    print(f"  letterhead as a 150 dpi PNG        {medians['PNG']:8.2f} ms  ({sizes['PNG']} KB)")
    flag = "" if ratio <= TARGET else f"  <- above the {TARGET}x target"
    print(f"  PDF page / PNG                     {ratio:8.2f}x (target <= {TARGET}x){flag}")


if __name__ == "__main__":
    main()
