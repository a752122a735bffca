"""Tables and texts drawn by the direct text path (typeset.TextWriter) and, untagged, a
table's cells batched into one background path per colour and one text object: the glyphs
land where ReportLab's text objects put them, the text reads the same, the tagged profiles
keep their TH/TD structure, and the bytes stay deterministic."""

from __future__ import annotations

import io
import re

import pikepdf
import pytest
from PIL import ImageChops

from engine import RenderOptions, render_pdf
from engine.text import typeset
from tests.pdf_probes import char_boxes, page_image, pdf_text, structure
from workbench import samples

from ...conftest import add, build
from ...pdf_checker import problems
from ...validators import assert_passes_outloud, assert_valid_pdf_a

CharBox = tuple[str, tuple[float, float, float, float]]


def assert_same_places(direct: list[CharBox], general: list[CharBox]) -> None:
    assert [char for char, _ in direct] == [char for char, _ in general]
    for (char, box), (_, expected) in zip(direct, general, strict=True):
        assert box == pytest.approx(expected, abs=0.01), char


# Drawn with ReportLab's text objects, cell by cell, as before the direct path.
GENERAL_PATH = RenderOptions(direct_text=False, batched_cells=False)


def render_both(tree, values, profile="standard", resolver=None) -> tuple[bytes, bytes]:
    direct = render_pdf(tree, values, resolver, profile)
    general = render_pdf(tree, values, resolver, profile, options=GENERAL_PATH)
    return direct, general


def page_content(pdf: bytes, index: int = 0) -> str:
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return document.pages[index].Contents.read_bytes().decode("latin-1")


def text_objects(pdf: bytes) -> int:
    return len(re.findall(r"\bBT\b", page_content(pdf)))


@pytest.mark.parametrize("profile", ["standard", "accessible", "pdf-a"])
def test_invoice_glyphs_land_where_text_objects_put_them(profile):
    direct, general = render_both(samples.invoice(), samples.invoice_row(7), profile, samples.resolver)
    assert_same_places(char_boxes(direct), char_boxes(general))
    assert pdf_text(direct) == pdf_text(general)


@pytest.mark.parametrize("profile", ["standard", "accessible"])
def test_a_table_over_three_pages_lands_its_glyphs_as_text_objects_do(profile):
    direct, general = render_both(samples.invoice(), samples.invoice_row(8, lines=70), profile, samples.resolver)
    assert len(pdf_text(direct)) == 3  # the header repeated on each continuation page
    assert_same_places(char_boxes(direct), char_boxes(general))
    assert pdf_text(direct) == pdf_text(general)


def test_an_untagged_table_is_one_text_object_and_one_path_per_background_colour():
    direct, general = render_both(samples.invoice(), samples.invoice_row(3), resolver=samples.resolver)
    # The general path: a text object per cell and per line of the other texts (84 + 7).
    assert text_objects(general) >= 84
    content = page_content(direct)
    # The table's 84 cells share one text object (the other texts have one each, or are in a
    # compiled form of the static drawing).
    assert text_objects(direct) <= 5
    # Kerned text is shown by TJ arrays: their strings joined across the kerning numbers.
    blocks = re.findall(r"\bBT .*? ET\b", content, re.S)
    table_text = next(block for block in blocks if "(Description)" in re.sub(r"\)\s*-?[\d.]+\s*\(", "", block))
    assert len(re.findall(r"\) Tj|\] TJ", table_text)) == 84
    stripes, header = typeset.fill_operator("#f6f8fb"), typeset.fill_operator("#f2f2f2")
    assert content.count(stripes) == 1 and content.count(header) == 1
    assert page_content(general).count(stripes) == 40  # ten striped rows of four cells
    # Ten striped rows of four cells in the stripes' one path.
    stripe_path = content[content.index(stripes) :].split("f*")[0]
    assert stripe_path.count(" re") == 40


def test_invoice_reads_in_row_order():
    pdf = render_pdf(samples.invoice(), samples.invoice_row(11), samples.resolver)
    text = pdf_text(pdf)[0]
    cells = [cell for row in samples.invoice_row(11)["lines"] for cell in row]
    positions = [text.index(cell, text.index(cells[0])) for cell in cells[:8]]
    assert positions == sorted(positions)
    rows = [line for line in text.splitlines() if line.startswith("Service 11-")]
    assert [row.split()[1] for row in rows] == [f"11-{r}" for r in range(1, 21)]


def mixed_table(**styles):
    """A table with a cell that needs shaping (Hebrew), a wrapped cell and right alignment."""
    cells = [
        ["Item", "Note", "Price"],
        ["Apples", "שלום עולם", "1.50"],
        ["A long description that wraps over lines", "plain", "12.00"],
        ["Pears", "", "3.25"],
        ["\n", "Two\nlines", "#"],
    ]
    return build(
        [
            add(
                "table",
                "t",
                {"x": 40, "y": 60},
                {"cells": cells, "columnWidths": [150, 90, 70], "headerRow": True},
                {"fontSize": 11, "align": "right", "stripeColor": "#eef2f7", **styles},
            )
        ],
        size="A4",
    )


@pytest.mark.parametrize("profile", ["standard", "accessible"])
@pytest.mark.parametrize("styles", [{}, {"lineHeight": 0.5}, {"cellPadding": 0}, {"direction": "rtl"}])
def test_a_table_with_a_shaped_cell_draws_its_glyphs_in_the_same_places(styles, profile):
    direct, general = render_both(mixed_table(**styles), None, profile)
    assert_same_places(char_boxes(direct), char_boxes(general))
    assert pdf_text(direct) == pdf_text(general)


def test_glyphs_that_leave_their_lines_keep_cell_by_cell_painting():
    # A line height of 0.5: the glyphs reach into the neighbouring rows, whose backgrounds
    # must still be painted before them (as the general path does).
    direct, _ = render_both(mixed_table(lineHeight=0.5), None)
    content = page_content(direct)
    # Each header or striped cell's background (3 + 2 rows of 3) filled on its own, before its text.
    assert len(re.findall(r"\bn( [-\d.]+){4} re f\*", content)) == 3 + 6
    assert text_objects(direct) > 3


def test_the_batched_table_looks_like_the_general_one():
    direct, general = render_both(mixed_table(), None)
    difference = ImageChops.difference(page_image(direct).convert("RGB"), page_image(general).convert("RGB"))
    # Only anti-aliasing differs, where neighbouring backgrounds meet (one path, no seam).
    assert max(high for _, high in difference.getextrema()) <= 4


@pytest.mark.parametrize("align", ["left", "center", "right", "justify"])
def test_text_elements_place_glyphs_as_text_objects_do(align):
    tree = build(
        [
            add(
                "text",
                "body",
                {"x": 50, "y": 50, "maxWidth": 180},
                {"content": "Plain words that wrap over several lines, with “quotes” and €uros.\nA second one."},
                {"fontSize": 13, "align": align, "color": "#224466"},
            ),
            add("text", "spaced", {"x": 50, "y": 300}, {"content": "Spaced out"}, {"letterSpacing": 2}),
            add("text", "mixed", {"x": 50, "y": 340}, {"content": "Latin and 日本語 together"}),
        ],
        size="A4",
    )
    direct, general = render_both(tree, None)
    assert_same_places(char_boxes(direct), char_boxes(general))
    assert pdf_text(direct) == pdf_text(general)


def test_the_tagged_invoice_keeps_its_table_structure():
    pdf = render_pdf(samples.invoice(), samples.invoice_row(5), samples.resolver, "accessible")
    assert problems(pdf) == []
    roles = [role for role, _ in structure(pdf)]
    assert roles.count("Table") == 1 and roles.count("TR") == 21
    assert roles.count("TH") == 4 and roles.count("TD") == 80
    # Every cell's text sits in its own marked content: one text object per TD/TH.
    content = page_content(pdf)
    assert len(re.findall(r"/T[DH] <</MCID \d+>> BDC", content)) == 84


@pytest.mark.parametrize("profile", ["standard", "accessible"])
def test_the_same_row_gives_the_same_bytes(profile):
    tree = samples.invoice()
    first = render_pdf(tree, samples.invoice_row(9), samples.resolver, profile)
    render_pdf(tree, samples.invoice_row(10), samples.resolver, profile)
    assert render_pdf(tree, samples.invoice_row(9), samples.resolver, profile) == first


def test_the_general_path_draws_text_objects():
    pdf = render_pdf(samples.invoice(), samples.invoice_row(2), samples.resolver, options=GENERAL_PATH)
    assert text_objects(pdf) >= 84
    assert text_objects(render_pdf(samples.invoice(), samples.invoice_row(2), samples.resolver)) < 84


@pytest.mark.parametrize(
    "style",
    [
        typeset.TextStyle(size=10),
        typeset.TextStyle(family="Lora", size=13.3, weight=700),
        typeset.TextStyle(size=9, direction="rtl"),
        typeset.TextStyle(size=11, letter_spacing=0.7),
    ],
)
def test_a_line_breaker_breaks_as_wrap_does(style):
    words = ["Service", "3-1", "12.00", "", "a", "Ünïcode", "日本", "WWWWWWWW", "x", "long-word-here", "שלום"]
    breaker = typeset.LineBreaker(style)
    for i in range(1500):
        text = " ".join(words[(i * 7 + k * 3) % len(words)] for k in range(1 + i % 5))
        if i % 11 == 0:
            text += "\n" + text
        max_width = [None, 10.0, 30.0, 57.3, 80.0, 150.0, 400.0][i % 7]
        assert breaker.lines(text, max_width) == tuple(typeset.wrap(text, style, max_width)), (text, max_width)
        # Asked again, the remembered lines.
        assert breaker.lines(text, max_width) == tuple(typeset.wrap(text, style, max_width))


def test_the_tagged_invoice_passes_the_outside_validators(tmp_path):
    accessible, pdf_a = tmp_path / "accessible.pdf", tmp_path / "pdf-a.pdf"
    accessible.write_bytes(render_pdf(samples.invoice(), samples.invoice_row(4), samples.resolver, "accessible"))
    pdf_a.write_bytes(render_pdf(samples.invoice(), samples.invoice_row(4), samples.resolver, "pdf-a"))
    assert_passes_outloud(accessible)
    assert_valid_pdf_a(pdf_a)


@pytest.mark.parametrize(
    ("tree", "values"),
    [
        (samples.invoice(), samples.invoice_row(8, lines=70)),  # over three pages, the header repeated
        (mixed_table(), None),  # a shaped cell among plain ones
        (mixed_table(cellPadding=0), None),
    ],
    ids=["three-pages", "shaped-cell", "no-padding"],
)
def test_tagged_cells_written_as_literals_are_each_marked_content_of_their_own(tree, values):
    """Tagger.begin_content and one literal per cell: each cell its own TD/TH marked content,
    numbered in order, and the structure sound. (A Tagger.content block around each cell, the
    path this replaced, wrote the same bytes: tests/engine/render/test_same_bytes.py's reference documents.)"""
    pdf = render_pdf(tree, values, samples.resolver, "pdf-a")
    mcids = [int(mcid) for mcid in re.findall(r"/T[DH] <</MCID (\d+)>> BDC", page_content(pdf))]
    assert len(mcids) > 4 and mcids == sorted(set(mcids))
    assert problems(pdf) == []
