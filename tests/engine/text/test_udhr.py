"""The first article of the Universal Declaration of Human Rights in 20 languages, in one PDF:
no glyph is .notdef, and every language's text comes back out (issue 16's acceptance test)."""

import json
from collections import Counter

import pytest

from engine import apply, render_pdf
from engine.design.tree import new_design
from engine.elements import ELEMENT_TYPES
from tests.paths import DATA
from tests.pdf_probes import font_names, text_in_bands

from ...conftest import add, counter_ids
from ...pdf_checker import problems
from ...pdf_glyphs import notdef_glyphs, shown_glyphs
from ...validators import assert_passes_its_profiles_validator

LANGUAGES = json.loads((DATA / "udhr_article1.json").read_text())["languages"]
RIGHT_TO_LEFT = {"Arab", "Hebr"}
GAP = 8.0


def test_the_data_holds_twenty_languages_in_their_scripts():
    assert len(LANGUAGES) == 20 and len({row["lang"] for row in LANGUAGES}) == 20
    assert {row["script"] for row in LANGUAGES} >= {
        "Latn", "Grek", "Cyrl", "Arab", "Hebr", "Deva", "Beng", "Taml", "Thai", "Hans", "Jpan", "Kore"
    }  # fmt: skip


@pytest.fixture(scope="module")
def udhr_design():
    """One A4 page, the 20 texts stacked in Inter 9 pt (each with its `data.lang` once text
    elements take one); returns the design and each text's (row, top, height) in points."""
    takes_lang = "lang" in ELEMENT_TYPES["text"].Data.model_fields
    tree, ids, top, placed = (
        new_design(title="Universal Declaration of Human Rights, article 1"),
        counter_ids(),
        24.0,
        [],
    )
    for row in LANGUAGES:
        data = {"content": row["text"], **({"lang": row["lang"]} if takes_lang else {})}
        name = "udhr_" + row["lang"].replace("-", "_")
        tree, results = apply(
            tree, [add("text", name, {"x": 20, "y": top, "maxWidth": 555}, data, {"fontSize": 9})], ids
        )
        height = results[0]["data"]["position"]["h"]
        placed.append((row, top, height))
        top += height + GAP
    assert top < tree.pages[0].height  # all on the one page
    return tree, placed


@pytest.fixture(scope="module")
def udhr(udhr_design) -> tuple[bytes, list[tuple[dict, float, float]]]:
    tree, placed = udhr_design
    return render_pdf(tree), placed


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_the_tagged_profiles_validate_with_every_script(udhr_design, profile, tmp_path):
    tree, _ = udhr_design
    pdf = render_pdf(tree, None, None, profile)
    assert problems(pdf) == []
    path = tmp_path / f"udhr-{profile}.pdf"
    path.write_bytes(pdf)
    # outloud's TXT-004 warns where five codes of a font map to one text. Each glyph's code says
    # the characters it stands for (engine.text.shaping, "Drawing."): Arabic's joined forms of a
    # letter each map to the letter, and a Bengali pre-base vowel sign drawn before its
    # consonant is shared out in the order drawn, so that the line reads as written in
    # PDFium, poppler, MuPDF and pdf.js (test_every_language_comes_back_from_the_pdf).
    assert_passes_its_profiles_validator(path, profile, skip=("TXT-004",))
    assert notdef_glyphs(pdf) == []


def test_no_glyph_in_the_udhr_pdf_is_notdef(udhr):
    """Every shown glyph, decoded the way a viewer does: each string of each Tj/TJ split into
    codes by its font and mapped through the embedded subset's own cmap (simple TrueType) or
    CIDToGIDMap (Type0) to a glyph id; glyph 0 is .notdef (see tests/pdf_glyphs.py, and
    test_script_fallback's check that this finds a .notdef when one is drawn)."""
    pdf, _ = udhr
    shown = shown_glyphs(pdf)
    letters = sum(1 for row in LANGUAGES for c in row["text"] if not c.isspace())
    assert len(shown) >= letters * 0.8  # the check saw the text (shaping may merge some letters)
    assert notdef_glyphs(pdf) == []
    names = font_names(pdf)
    for family in ("Arabic", "Hebrew", "Devanagari", "Bengali", "Tamil", "Thai", "SC", "JP", "KR"):
        assert any(n.startswith(f"NotoSans{family}") for n in names), (family, names)


def test_every_language_comes_back_from_the_pdf(udhr):
    """Each text's own area, extracted by PDFium: left-to-right texts exactly (line breaks
    aside), right-to-left ones at least with every character until they are shaped."""
    pdf, placed = udhr
    bands = [(top - GAP / 2, top + height + GAP / 2) for _, top, height in placed]
    for (row, _, _), extracted in zip(placed, text_in_bands(pdf, 0, bands), strict=True):
        got, want = "".join(extracted.split()), "".join(row["text"].split())
        if row["script"] in RIGHT_TO_LEFT:
            assert Counter(got) == Counter(want.replace("\u200c", "")) or Counter(got) == Counter(want), row["lang"]
        else:
            assert got == want, row["lang"]
