"""Text extracted from the PDF comes back in logical order with the spaces the content has
(extensions.md 17), in PDFium (Chrome, pypdfium2), poppler and MuPDF (their command-line readers).

Right-to-left glyphs are drawn in visual order, as Chromium and Typst draw them (see
engine.text.shaping, "Drawing."): MuPDF 1.21 reads them backwards, as it reads theirs; those
cases are strict xfails, so that a change shows. pdf.js is not run here (the test machine has no
copy of it); measured by hand, it reads every one-run line below as written.
"""

from __future__ import annotations

import io

import pytest
from reportlab.pdfgen.canvas import Canvas

from engine import render_pdf
from engine.text import shaping
from engine.text.typeset import TextStyle
from tests.pdf_probes import mupdf_text, operators, pdf_text, poppler_text, structure

from ...conftest import add, build


def pdfium_lines(pdf: bytes) -> list[str]:
    return [line.strip() for line in pdf_text(pdf)[0].split("\r\n") if line.strip()]


READERS = {
    "pdfium": pdfium_lines,
    "poppler": lambda pdf: poppler_text(pdf)[0].split("\n"),
    "mupdf": lambda pdf: mupdf_text(pdf)[0].split("\n"),
}

JAPANESE = "山田太郎様、本日はご来店いただき誠にありがとうございました。"
# (content, family): one line each.
LINES = {
    "hebrew": ("שלום עולם", "Noto Sans Hebrew"),
    "arabic": ("مرحبا بالعالم", "Noto Sans Arabic"),
    "hindi": ("नमस्ते दुनिया", "Noto Sans Devanagari"),
    "thai": ("ทั้ง ศักดิ์", "Noto Sans Thai"),
    "latin": ("office ffi fl", "EB Garamond"),
    "lam-alef": ("لا", "DejaVu Sans"),  # one ligature glyph for two letters
}
RIGHT_TO_LEFT = ("hebrew", "arabic", "lam-alef")


def case(sample: str, reader: str) -> object:
    if reader == "mupdf" and sample in RIGHT_TO_LEFT:
        return pytest.param(sample, reader, marks=pytest.mark.xfail(strict=True, reason="MuPDF reads visual order"))
    return (sample, reader)


CASES = [case(sample, reader) for sample in sorted(LINES) for reader in sorted(READERS)]


def text_pdf(content: str, family: str, profile: str = "standard", width: float | None = None) -> bytes:
    position = {"x": 40, "y": 40} | ({"maxWidth": width} if width else {})
    actions = [add("text", "T", position, {"content": content}, {"fontFamily": family, "fontSize": 14})]
    return render_pdf(build(actions, title="Extraction"), profile=profile)


def shaped_line_pdf(content: str, family: str) -> bytes:
    """A line drawn by shaping.draw_line: HarfBuzz's glyphs (Latin text's ligatures and kerning
    too, which the typesetter's fast path draws otherwise)."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1)
    style = TextStyle(family=family, size=14)
    placed = shaping.line_runs([shaping.Segment(content, style)], rtl=shaping.base_level(content, "auto") == 1)
    shaping.draw_line(canvas, placed, 40, 700, content)
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


@pytest.mark.parametrize("sample,reader", CASES)
def test_a_line_is_extracted_as_written(sample, reader):
    content, family = LINES[sample]
    assert READERS[reader](text_pdf(content, family)) == [content]


@pytest.mark.parametrize("sample,reader", CASES)
def test_a_shaped_line_is_extracted_as_written(sample, reader):
    content, family = LINES[sample]
    assert READERS[reader](shaped_line_pdf(content, family)) == [content]


def test_a_latin_ligature_is_one_glyph_that_reads_as_its_letters():
    placed = shaping.line_runs([shaping.Segment("office", TextStyle(family="EB Garamond", size=14))], rtl=False)
    [run] = [item.run for item in placed]
    assert len(run.glyphs) < len("office")  # "ffi" is one glyph
    pdf = shaped_line_pdf("office", "EB Garamond")
    assert all(READERS[reader](pdf) == ["office"] for reader in READERS)


def test_a_line_without_placed_marks_carries_no_actual_text():
    """Latin with kerning and a ligature, Japanese, Hebrew and Arabic: the glyphs alone read
    right in every reader (a line of Thai or Devanagari, whose marks HarfBuzz places off the pen,
    carries ActualText for PDFium and poppler)."""
    for content, family in (
        ("Wave AVAT office", "EB Garamond"),
        (JAPANESE, "Noto Sans JP"),
        LINES["hebrew"],
        LINES["arabic"],
    ):
        drawn = operators(shaped_line_pdf(content, family))
        assert not any(op == "BDC" and "/ActualText" in operands[1] for operands, op in drawn), content


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_wrapped_japanese_paragraph_is_extracted_as_written(reader):
    lines = READERS[reader](text_pdf(JAPANESE, "Noto Sans JP", width=120))
    assert len(lines) > 1
    assert "".join(lines) == JAPANESE  # no Kangxi radical for 山 or 日, no character lost


@pytest.mark.parametrize("reader", [pytest.param(reader, marks=pytest.mark.xfail(strict=True)) for reader in READERS])
def test_numbers_after_right_to_left_words_in_a_left_to_right_line(reader):
    """In "Invoice رقم 123" the number is drawn left of رقم (bidi); PDFium, poppler and MuPDF
    read the line by where its glyphs are (Invoice 123 رقم), as they read Chromium's PDFs of it:
    a known limit, marked so that a change shows."""
    content = "Invoice رقم 123"
    assert READERS[reader](text_pdf(content, "Noto Sans Arabic")) == [content]


@pytest.mark.parametrize("profile", ["standard", "accessible"])
def test_a_right_to_left_line_in_two_faces_is_extracted_as_written(profile):
    """Rich text: a bold word in an Arabic line (its own run, face and marked content)."""
    content = "مرحبا **بالعالم** و [رابط](https://example.com) هنا"
    actions = [add("text", "T", {"x": 40, "y": 40, "maxWidth": 400}, {"content": content}, {"fontSize": 14})]
    actions[0]["args"]["data"]["markup"] = "markdown"
    pdf = render_pdf(build(actions, title="Extraction"), profile=profile)
    assert pdfium_lines(pdf) == ["مرحبا بالعالم و رابط هنا"]
    assert READERS["poppler"](pdf) == ["مرحبا بالعالم و رابط هنا"]


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_a_tagged_wrapped_japanese_paragraph_joins_its_lines_without_spaces(profile):
    pdf = text_pdf(JAPANESE, "Noto Sans JP", profile=profile, width=120)
    [paragraph] = [attrs for role, attrs in structure(pdf) if role == "P"]
    assert paragraph["/ActualText"] == JAPANESE


def test_wrapped_lines_of_spaced_scripts_keep_the_space_they_broke_at():
    assert shaping.spoken_lines(["Hello", "world"]) == "Hello world"
    assert shaping.spoken_lines(["山田太", "郎様"]) == "山田太郎様"
    assert shaping.spoken_lines(["안녕하세요", "세계"]) == "안녕하세요 세계"
    assert shaping.spoken_lines(["見る", "Web"]) == "見る Web"


@pytest.mark.parametrize("reader", ["pdfium", "poppler"])
def test_left_to_right_words_with_marks_in_a_line_with_arabic_are_extracted_as_written(reader):
    """Each left-to-right run with marks HarfBuzz placed off the pen carries its own ActualText
    (a whole line's would be read backwards, the line having right-to-left words)."""
    words = ["नमस्ते", "নমস্কার", "สวัสดี"]
    pdf = text_pdf("Inter: مرحبا " + " ".join(words), "Inter")
    [line] = READERS[reader](pdf)
    assert all(word in line for word in words), line
