"""The faces of every script (extensions.md 6) in real PDFs: styles.direction on texts and
tables, logical align start/end, right-to-left tables (header, body and every sheet of a
table that grows), right-to-left lists, and data.lang as /Lang on the structure element of
a text in another language than the document's. Positions are PDFium's char boxes."""

from __future__ import annotations

import io
from pathlib import Path

import pikepdf
import pytest

from engine import DesignTree, render_pdf
from engine.elements.text import check_lang
from engine.errors import ActionError
from tests.pdf_probes import char_left, page_count, page_image, structure_elements
from tests.text_samples import HEADER, WIDTHS

from ...conftest import action, add, build
from ...pdf_checker import problems
from ...validators import assert_passes_its_profiles_validator


def table(direction: str, cells: list[list[str]] | None = None, **styles) -> DesignTree:
    data = {"cells": cells or [HEADER, ["a1", "b1", "c1"]], "columnWidths": WIDTHS}
    return build([add("table", "t", {"x": 40, "y": 40}, data, {"direction": direction, **styles})])


def with_language(tree: DesignTree, language: str) -> DesignTree:
    return tree.model_copy(update={"metadata": tree.metadata.model_copy(update={"language": language})})


# -- right-to-left tables ---------------------------------------------------------------------


def test_an_rtl_table_puts_its_first_column_on_the_right():
    ltr = render_pdf(table("ltr"))
    rtl = render_pdf(table("rtl"))
    for pdf, expected in ((ltr, HEADER), (rtl, HEADER[::-1])):
        lefts = {word: char_left(pdf, word)[0] for word in HEADER}
        assert sorted(HEADER, key=lefts.get) == expected
    # The first column spans the table's last 120 points: 40 + 60 + 90 = 190 from the page's edge.
    assert 190 < char_left(rtl, "Alpha")[0] < 190 + 120
    assert 40 < char_left(rtl, "Charlie")[0] < 40 + 90
    # The body runs the same way as the header.
    body = {word: char_left(rtl, word)[0] for word in ("a1", "b1", "c1")}
    assert body["a1"] > body["b1"] > body["c1"]


def test_start_and_end_are_the_sides_of_an_rtl_table():
    pad = 4.0
    start = render_pdf(table("rtl", align="start"))
    # start in an rtl table is right: Alpha ends at its column's right edge, less the padding.
    assert char_left(start, "Alpha")[1] == pytest.approx(40 + 270 - pad, abs=1.5)
    end = render_pdf(table("rtl", align="end"))
    assert char_left(end, "Alpha")[0] == pytest.approx(40 + 150 + pad, abs=1.5)
    # left and right stay physical: left is left in an rtl table too.
    left = render_pdf(table("rtl", align="left"))
    assert char_left(left, "Alpha")[0] == pytest.approx(40 + 150 + pad, abs=1.5)
    # In a left-to-right table start is left.
    ltr_start = render_pdf(table("ltr", align="start"))
    assert char_left(ltr_start, "Alpha")[0] == pytest.approx(40 + pad, abs=1.5)


def test_a_cells_own_start_align_resolves_in_an_rtl_table():
    cells = [HEADER, ["a1", {"data": {"content": "b1"}, "styles": {"align": "start"}}, "c1"]]
    pdf = render_pdf(table("rtl", cells))
    # b1's column is the middle one, 60 wide, from 40 + 90 to 40 + 150: b1 sits at its right.
    assert char_left(pdf, "b1")[1] == pytest.approx(40 + 150 - 4, abs=1.5)


def red(pixel: tuple[int, int, int]) -> bool:
    return pixel[0] > 240 and pixel[1] < 20 and pixel[2] < 20


def test_an_rtl_tables_backgrounds_and_borders_mirror():
    cells = [HEADER, [{"data": {"content": "a1"}, "styles": {"backgroundColor": "#ff0000"}}, "b1", "c1"]]
    tree = table("rtl", cells, borderWidth=2)
    image = page_image(render_pdf(tree), dpi=72).convert("RGB")
    row_middle = 40 + 20 + 10  # the body row, under a header row of 10 pt text and 4 pt padding
    assert red(image.getpixel((40 + 270 - 20, row_middle)))  # a1's cell is the rightmost
    assert not red(image.getpixel((40 + 20, row_middle)))
    # The inner vertical borders are at 90 and 150 from the table's left (widths 90, 60, 120 from the left).
    for x in (40 + 90, 40 + 150):
        assert image.getpixel((x, row_middle))[0] < 100, x
    assert image.getpixel((40 + 120, row_middle))[0] > 200  # where the ltr table's border would be


def test_every_sheet_of_a_growing_rtl_table_runs_from_the_right():
    tree = build(
        [
            add(
                "table",
                "t",
                {"x": 40, "y": 40},
                {"cells": [HEADER, ["", "", ""]], "columnWidths": WIDTHS},
                {"direction": "rtl"},
            ),
            action("bind_variable", name="t"),
        ]
    )
    rows = [HEADER] + [[f"a{i}", f"b{i}", f"c{i}"] for i in range(120)]
    pdf = render_pdf(tree, {"t": rows})
    assert page_count(pdf) >= 2
    last = page_count(pdf) - 1
    # The header repeated on the last sheet, and that sheet's rows, mirrored as on the first.
    header = {word: char_left(pdf, word, last)[0] for word in HEADER}
    assert header["Alpha"] > header["Bravo"] > header["Charlie"]
    body = {word: char_left(pdf, word, last)[0] for word in ("a119", "b119", "c119")}
    assert body["a119"] > body["b119"] > body["c119"]


# -- texts and lists --------------------------------------------------------------------------


def test_start_and_end_align_a_text_at_a_width():
    def placed(align: str, direction: str = "ltr") -> tuple[float, float]:
        styles = {"align": align, "direction": direction}
        tree = build([add("text", "t", {"x": 40, "y": 40, "maxWidth": 300}, {"content": "Hello"}, styles)])
        return char_left(render_pdf(tree), "Hello")

    assert placed("start")[0] == pytest.approx(40, abs=1.5)
    assert placed("end")[1] == pytest.approx(340, abs=1.5)


def test_an_rtl_list_has_its_markers_on_the_right():
    items = ["שלום", "עולם"]
    tree = build([add("text", "l", {"x": 40, "y": 40, "maxWidth": 200}, {"content": items, "listFormat": "unordered"})])
    pdf = render_pdf(tree)
    bullet_left = char_left(pdf, "\u2022")[0]
    assert bullet_left > 40 + 150  # at the right edge of the 200-point box
    ltr = build([add("text", "l", {"x": 40, "y": 40, "maxWidth": 200}, {"content": ["one"], "listFormat": "ordered"})])
    assert char_left(render_pdf(ltr), "1.")[0] == pytest.approx(40, abs=1.5)  # as before: markers on the left


def test_direction_ltr_keeps_a_hebrew_lists_markers_on_the_left():
    data = {"content": ["שלום"], "listFormat": "unordered"}
    tree = build([add("text", "l", {"x": 40, "y": 40, "maxWidth": 200}, data, {"direction": "ltr"})])
    assert char_left(render_pdf(tree), "\u2022")[0] == pytest.approx(40, abs=1.5)


# -- the model's keys and refusals ------------------------------------------------------------


@pytest.mark.parametrize("tag", ["ar", "he-IL", "hi", "zh-Hans", "zh-Hans-CN", "ja", "ko-KR", "sr-Latn", "de-CH-1996"])
def test_well_formed_language_tags_are_kept(tag):
    assert check_lang(tag) == tag


@pytest.mark.parametrize("tag", ["en_US", "", "arabic-", "a", "zh-", "1234"])
def test_a_malformed_language_tag_is_refused_naming_the_fix(tag):
    with pytest.raises(ValueError, match="is not a BCP 47 language tag: use a tag like 'ar'"):
        check_lang(tag)


def test_direction_is_one_of_auto_ltr_rtl():
    with pytest.raises(ActionError, match="styles.direction: Input should be 'auto', 'ltr' or 'rtl'"):
        build([add("text", "t", {"x": 0, "y": 0}, {"content": "x"}, {"direction": "right-to-left"})])
    with pytest.raises(ActionError, match="styles.direction: Input should be 'auto', 'ltr' or 'rtl'"):
        table("sideways")


def test_lang_stays_out_of_a_texts_dump_while_unset():
    def data(tree: DesignTree) -> dict:
        return tree.nodes[tree.pages[0].elements[0]].model_dump(mode="json")["data"]

    assert "lang" not in data(build([add("text", "t", {"x": 0, "y": 0}, {"content": "x"})]))
    assert data(build([add("text", "t", {"x": 0, "y": 0}, {"content": "x", "lang": "ar"})]))["lang"] == "ar"


# -- /Lang in tagged profiles -----------------------------------------------------------------

TEXTS = [
    ("arabic", "مرحبا بالعالم", "ar", "p"),
    ("hebrew", "שלום עולם", "he", "h1"),
    ("english", "Hello world", None, "p"),
    ("british", "Colour", "en-GB", "p"),  # the document's own language: no /Lang of its own
]


def languages(pdf: bytes) -> list[tuple[str, str | None]]:
    """(role, /Lang) of every structure element, in reading order."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        found = [
            (str(item.S)[1:], str(item.Lang) if "/Lang" in item else None) for item in structure_elements(document)
        ]
        assert str(document.Root.Lang) == "en-GB"
    return found


def tagged_design() -> DesignTree:
    actions = [
        add(
            "text",
            name,
            {"x": 40, "y": 40 + 40 * i},
            {"content": content, "role": role} | ({"lang": lang} if lang else {}),
        )
        for i, (name, content, lang, role) in enumerate(TEXTS)
    ]
    actions.append(
        add("text", "list", {"x": 40, "y": 220}, {"content": ["אחד", "שניים"], "listFormat": "ordered", "lang": "he"})
    )
    rich = {"content": "**سلام** [دنیا](https://example.org)", "markup": "markdown", "lang": "fa"}
    actions.append(add("text", "rich", {"x": 300, "y": 40}, rich))
    actions.append(
        add("table", "t", {"x": 40, "y": 300}, {"cells": [["שם", "כמות"], ["א", "1"]]}, {"direction": "rtl"})
    )
    return with_language(build(actions, title="Every script"), "en-GB")


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_a_text_in_another_language_carries_its_lang(profile, tmp_path: Path):
    pdf = render_pdf(tagged_design(), profile=profile)
    found = languages(pdf)
    assert ("P", "ar") in found and ("H1", "he") in found and ("L", "he") in found and ("P", "fa") in found
    assert ("P", None) in found  # english and british: the document's /Lang applies
    assert all(lang in (None, "ar", "he", "fa") for _, lang in found)
    assert problems(pdf) == []
    path = tmp_path / f"{profile}.pdf"
    path.write_bytes(pdf)
    assert_passes_its_profiles_validator(path, profile)


def test_a_text_in_the_documents_language_has_no_lang_of_its_own():
    tree = with_language(build([add("text", "t", {"x": 0, "y": 0}, {"content": "Hi", "lang": "EN-gb"})]), "en-GB")
    assert [lang for _, lang in languages(render_pdf(tree, profile="accessible"))] == [None, None]
