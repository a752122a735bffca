"""Render the typesetting guide's picture: one paragraph set by docbench and by Typst, side by side.

    PYTHONPATH=$PWD .venv/bin/python scripts/typesetting_picture.py   # writes docs/images/typesetting-vs-typst.png

Both set the same 95 words in EB Garamond 11 pt, justified, 300 pt wide, hyphenated by
their English patterns, from the same TTF (engine/fonts/eb-garamond); Typst 0.15 comes with
`make bench` (the `typst` package). Each PDF is rasterised by PDFium at 200 dpi; a thin rule
marks the column's edges, and the word spaces of each are printed (as multiples of the
natural space: worst and median), read from the PDFs as tests/engine/text/test_typesetting.py
reads them.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

import pypdfium2 as pdfium
import typst
from PIL import Image, ImageDraw, ImageFont

from engine import apply, fonts, new_design, render_pdf

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "images" / "typesetting-vs-typst.png"
FONT_DIR = ROOT / "engine" / "fonts" / "eb-garamond"
WIDTH, SIZE, DPI = 300, 11, 200
PARAGRAPH = (
    "In olden times when wishing still helped one, there lived a king whose daughters were all "
    "beautiful; and the youngest was so beautiful that the sun itself, which has seen so much, was "
    "astonished whenever it shone in her face. Close by the king's castle lay a dark forest, "
    "and under an old lime-tree in the forest was a well, and when the day was very warm, the "
    "king's child went out into the forest and sat down by the side of the cool fountain; and when "
    "she was bored she took a golden ball."
)


def docbench_pdf() -> bytes:
    design = new_design(title="Typesetting", width=WIDTH + 40, height=190)
    text = {"content": PARAGRAPH}
    styles = {"fontFamily": "EB Garamond", "fontSize": SIZE, "align": "justify", "lineHeight": 1.3}
    args = {"type": "text", "name": "Paragraph", "position": {"x": 20, "y": 20, "maxWidth": WIDTH}}
    design, _ = apply(design, [{"type": "add_element", "args": args | {"data": text, "styles": styles}}])
    return render_pdf(design)


def typst_pdf() -> bytes:
    source = f"""
#set page(width: {WIDTH + 40}pt, height: 190pt, margin: 20pt)
#set text(font: "EB Garamond", size: {SIZE}pt, lang: "en", hyphenate: true)
#set par(justify: true, leading: {SIZE * 1.3 - 7.15:.2f}pt)
{PARAGRAPH}
"""
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "paragraph.typ"
        path.write_text(source)
        return typst.compile(str(path), font_paths=[str(FONT_DIR)], ignore_system_fonts=True)


def word_spaces(pdf: bytes) -> tuple[float, float]:
    """Worst and median word space of the lines but the last, as multiples of the natural one."""
    document = pdfium.PdfDocument(pdf)
    try:
        text_page = document[0].get_textpage()
        chars = [
            (text_page.get_text_range(i, 1), text_page.get_charbox(i, loose=True))
            for i in range(text_page.count_chars())
        ]
    finally:
        document.close()
    lines: dict[float, list] = {}
    for char, box in chars:
        if char not in "\r\n":
            lines.setdefault(round(box[1], 1), []).append((char, box))
    natural = fonts.string_width(" ", fonts.face("EB Garamond"), SIZE)
    ratios = [
        (after[0] - box[0]) / natural
        for _, line in sorted(lines.items(), reverse=True)[:-1]
        for (char, box), (_, after) in zip(line, line[1:], strict=False)
        if char == " "
    ]
    return max(ratios), statistics.median(ratios)


def picture(pdf: bytes) -> Image.Image:
    document = pdfium.PdfDocument(pdf)
    try:
        image = document[0].render(scale=DPI / 72).to_pil().convert("RGB")
    finally:
        document.close()
    draw = ImageDraw.Draw(image)
    for x in (20, 20 + WIDTH):
        px = round(x * DPI / 72)
        draw.line([(px, 0), (px, image.height)], fill=(222, 90, 90), width=1)
    return image


def main() -> None:
    ours, theirs = docbench_pdf(), typst_pdf()
    label_font = ImageFont.truetype(str(fonts.face_file("Inter").path), 26)
    panels = []
    for name, pdf in (("docbench", ours), (f"Typst {typst.__version__}", theirs)):
        worst, median = word_spaces(pdf)
        image = picture(pdf)
        panel = Image.new("RGB", (image.width, image.height + 70), "white")
        panel.paste(image, (0, 70))
        ImageDraw.Draw(panel).text(
            (round(20 * DPI / 72), 20),
            f"{name}: word spaces {worst:.2f}x worst, {median:.2f}x median",
            fill=(30, 30, 30),
            font=label_font,
        )
        panels.append(panel)
    out = Image.new("RGB", (sum(p.width for p in panels) + 20, max(p.height for p in panels)), (226, 230, 236))
    out.paste(panels[0], (0, 0))
    out.paste(panels[1], (panels[0].width + 20, 0))
    OUT.parent.mkdir(exist_ok=True)
    out.save(OUT, optimize=True)
    print(OUT)


if __name__ == "__main__":
    main()
