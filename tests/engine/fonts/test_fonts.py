"""The closed font catalog, weight fallback, glyph fallback and embedding (spec 2.10)."""

import pytest

from engine import fonts, render_pdf
from tests.pdf_probes import font_report, pdf_text

from ...conftest import add, build

SCRIPTS = "Latin àéîõü ß Ææ Œœ — Greek Ωμέγα αβγδ — Cyrillic Жизнь ёлка ЩЫЮ"


def test_catalog_is_a_closed_set_of_design_and_script_families_plus_the_fallback():
    entries = fonts.families()
    google = [e for e in entries if e.source == "google"]
    # 24 design families (Latin, Greek, Cyrillic) and one Noto family per other script.
    assert 30 <= len(google) <= 40
    assert {e.font_class for e in entries} == {"sans", "serif", "display", "handwriting"}
    assert fonts.FALLBACK_FAMILY in {e.id for e in entries}
    for entry in entries:
        public = entry.public()
        assert set(public) == {"id", "class", "source", "weights", "tags", "scripts"}
        assert public["weights"] == sorted(public["weights"]) and public["weights"]
        for path in entry.files.values():
            assert (fonts.FONT_DIR / path).is_file()


def test_every_family_has_its_licence_beside_it():
    for entry in fonts.families():
        folder = (fonts.FONT_DIR / entry.files["400"]).parent
        assert any(f.name.upper().startswith(("OFL", "LICENSE")) for f in folder.iterdir())


@pytest.mark.parametrize("wanted,expected", [(100, 300), (400, 400), (450, 400), (550, 600), (900, 800)])
def test_missing_weight_falls_back_to_the_nearest(wanted, expected):
    assert fonts.face("Inter", wanted).weight == expected


def test_single_weight_family_always_gives_its_weight():
    assert fonts.face("Bebas Neue", 700).weight == 400


def test_unknown_family_is_refused_with_suggestions():
    with pytest.raises(ValueError, match="did you mean 'Roboto'"):
        fonts.check_family("Robotto")


def test_characters_a_family_lacks_fall_back_to_the_wide_face():
    face = fonts.face("Bebas Neue")
    runs = fonts.runs(SCRIPTS, face)
    assert {f.family for _, f in runs} == {"Bebas Neue", fonts.FALLBACK_FAMILY}
    for text, run_face in runs:
        assert all(run_face.covers(c) for c in text), (text, run_face.name)


@pytest.mark.parametrize("family", [e.id for e in fonts.families()])
def test_every_family_renders_latin_greek_cyrillic_without_notdef(family):
    face = fonts.face(family)
    assert all(f.covers(c) for text, f in fonts.runs(SCRIPTS, face) for c in text)
    pdf = render_pdf(build([add("text", "t", {"x": 20, "y": 20}, {"content": SCRIPTS}, {"fontFamily": family})]))
    assert pdf_text(pdf)[0].strip() == SCRIPTS
    assert all(f["embedded"] for f in font_report(pdf))


def test_no_pdf_carries_an_unembedded_font():
    tree = build(
        [
            add("text", "t", {"x": 20, "y": 20}, {"content": "Text ✓ ★"}),
            add("barcode", "b", {"x": 20, "y": 100, "w": 200, "h": 60}, {"content": "ABC-1"}),
            add("icon", "i", {"x": 20, "y": 200, "w": 30, "h": 30}, {"iconId": "mail"}),
            add("table", "tb", {"x": 20, "y": 300}, {"cells": [["a", "b"]], "width": 100}),
            add("qr", "q", {"x": 300, "y": 20, "size": 60}, {"content": "x"}),
            add("shape", "s", {"x": 300, "y": 100, "w": 60, "h": 60}),
        ]
    )
    report = font_report(render_pdf(tree))
    assert report and all(f["embedded"] for f in report), report
    assert not any(name in f["name"] for f in report for name in ("Helvetica", "Courier", "Times"))


def test_fonts_are_subset():
    report = font_report(render_pdf(build([add("text", "t", {"x": 20, "y": 20}, {"content": "abc"})])))
    # A subset font's name carries a six-letter tag: "AAAAAA+Inter-Regular".
    assert all("+" in f["name"] for f in report)
