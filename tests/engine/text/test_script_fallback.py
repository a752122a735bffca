"""Each family's scripts, and fallback per character (extensions.md 6): the element's family,
then the catalog's family for the character's script, then DejaVu Sans; never .notdef."""

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import uharfbuzz

from engine import fonts, render_pdf
from tests.paths import ROOT
from tests.pdf_probes import font_report, pdf_text

from ...conftest import add, build
from ...pdf_glyphs import notdef_glyphs, shown_glyphs

# One word per script, in an Inter text: (word, the family that must draw it, right to left)
WORDS = [
    ("مرحبا", "Noto Sans Arabic", True),
    ("שלום", "Noto Sans Hebrew", True),
    ("नमस्ते", "Noto Sans Devanagari", False),
    ("নমস্কার", "Noto Sans Bengali", False),
    ("வணக்கம்", "Noto Sans Tamil", False),
    ("สวัสดี", "Noto Sans Thai", False),
    ("你好", "Noto Sans SC", False),
    ("안녕하세요", "Noto Sans KR", False),
]
KANA = "こんにちは"
# Sentences of the scripts written without spaces (as in test_word_breaks.py): Lao "Lao is the
# official language of the Lao PDR", Khmer "Khmer is the official language of Cambodia" (with
# four subscript consonants: ខ្ម ផ្ល ប្រ ម្ព), Burmese from UDHR article 1 (a stacked ္ခ, a medial ြ).
LAO = "ພາສາລາວເປັນພາສາທາງການຂອງສາທາລະນະລັດປະຊາທິປະໄຕປະຊາຊົນລາວ"
KHMER = "ភាសាខ្មែរគឺជាភាសាផ្លូវការនៃប្រទេសកម្ពុជា"
BURMESE = "လူတိုင်းသည်တူညီလွတ်လပ်သောဂုဏ်သိက္ခာဖြင့်လည်းကောင်း"


def postscript_stem(family: str) -> str:
    return family.replace(" ", "")


def font_names(pdf: bytes) -> set[str]:
    return {f["name"].split("+", 1)[-1].lstrip("/") for f in font_report(pdf)}


def render_text(content: str, **styles) -> bytes:
    return render_pdf(build([add("text", "t", {"x": 20, "y": 20, "maxWidth": 500}, {"content": content}, styles)]))


# --- the catalog's scripts -------------------------------------------------------------


def test_every_family_lists_the_scripts_it_covers():
    scripts = {e.id: e.scripts for e in fonts.families()}
    assert scripts["Inter"] == ["Latn", "Grek", "Cyrl"]
    assert scripts["Noto Sans Arabic"] == ["Latn", "Arab"]
    assert scripts["Noto Sans Hebrew"] == ["Latn", "Hebr"]
    for family, code in [
        ("Devanagari", "Deva"),
        ("Bengali", "Beng"),
        ("Tamil", "Taml"),
        ("Thai", "Thai"),
        ("Lao", "Laoo"),
        ("Khmer", "Khmr"),
        ("Myanmar", "Mymr"),
    ]:
        assert scripts[f"Noto Sans {family}"] == ["Latn", code]
    # One CJK family per language, each listing its locale's code (and kana / Hangul).
    assert scripts["Noto Sans SC"][-1:] == ["Hans"]
    assert scripts["Noto Sans JP"][-3:] == ["Jpan", "Hira", "Kana"]
    assert scripts["Noto Sans KR"][-2:] == ["Kore", "Hang"]
    assert all("Latn" in codes for codes in scripts.values())
    assert fonts.scripts_of("Noto Sans SC") == tuple(scripts["Noto Sans SC"])


@pytest.mark.parametrize(
    "script,lang,family",
    [
        ("Arab", "", "Noto Sans Arabic"),
        ("Hebr", "", "Noto Sans Hebrew"),  # not Open Sans or DejaVu Sans, which have Hebrew too
        ("Deva", "", "Noto Sans Devanagari"),
        ("Beng", "", "Noto Sans Bengali"),
        ("Taml", "", "Noto Sans Tamil"),
        ("Thai", "", "Noto Sans Thai"),
        ("Laoo", "", "Noto Sans Lao"),  # not DejaVu Sans, which has most Lao letters
        ("Khmr", "", "Noto Sans Khmer"),
        ("Mymr", "", "Noto Sans Myanmar"),
        ("Hani", "", "Noto Sans SC"),
        ("Hani", "zh-Hans", "Noto Sans SC"),
        ("Hani", "ja", "Noto Sans JP"),
        ("Hani", "ko-KR", "Noto Sans KR"),
        ("Hira", "", "Noto Sans JP"),
        ("Kana", "zh", "Noto Sans JP"),
        ("Hang", "", "Noto Sans KR"),
        ("Latn", "", fonts.FALLBACK_FAMILY),  # the design scripts go to DejaVu Sans, as before
        ("Cyrl", "", fonts.FALLBACK_FAMILY),
        ("Syrc", "", fonts.FALLBACK_FAMILY),  # no family: DejaVu Sans
    ],
)
def test_the_catalogs_family_for_a_script(script, lang, family):
    assert fonts.family_for_script(script, lang) == family


def test_fetch_script_writes_exactly_the_committed_catalog(tmp_path):
    """scripts/fetch_fonts.sh --catalog on a copy of the font folders (TTFs linked, not copied)."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "fetch_fonts.sh", tmp_path / "scripts")
    dest = tmp_path / "engine" / "fonts"
    for folder in fonts.FONT_DIR.iterdir():
        if folder.is_dir() and any(folder.glob("*.ttf")):
            (dest / folder.name).mkdir(parents=True)
            for item in folder.iterdir():
                (dest / folder.name / item.name).symlink_to(item)
    env = {"PYTHON": sys.executable, "PATH": "/usr/bin:/bin", "FONTS_WORK": str(tmp_path / "work")}
    subprocess.run(
        ["bash", "scripts/fetch_fonts.sh", "--catalog"], cwd=tmp_path, env=env, check=True, capture_output=True
    )
    assert json.loads((dest / "catalog.json").read_text()) == json.loads((fonts.FONT_DIR / "catalog.json").read_text())
    assert (dest / "catalog.json").read_bytes() == (fonts.FONT_DIR / "catalog.json").read_bytes()
    notice = (dest / "noto-sans-sc" / "NOTICE.txt").read_text()
    assert notice == (fonts.FONT_DIR / "noto-sans-sc" / "NOTICE.txt").read_text()


# A stand-in for `npm pack @expo-google-fonts/<slug>@<version>`: the package's tarball, made
# from the committed files (each TTF in its weight folder, OFL.txt as LICENSE_FONT).
FAKE_NPM = r"""#!/usr/bin/env bash
spec="${@: -1}"; pkg="${spec%@*}"; version="${spec##*@}"; slug="${pkg#@expo-google-fonts/}"
src="$FONTS_SOURCE/$slug"; tmp=$(mktemp -d); mkdir -p "$tmp/package"
printf '{"name": "%s", "version": "%s"}\n' "$pkg" "$version" > "$tmp/package/package.json"
cp "$src/OFL.txt" "$tmp/package/LICENSE_FONT"
for f in "$src"/*.ttf; do
  b=$(basename "$f" .ttf); mkdir -p "$tmp/package/${b#*_}"; ln -s "$f" "$tmp/package/${b#*_}/$b.ttf"
done
tar -chzf "expo-google-fonts-$slug-$version.tgz" -C "$tmp" package; rm -rf "$tmp"
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Oblique.ttf").is_file(), reason="no DejaVu")
def test_the_whole_fetch_script_runs_and_reproduces_every_font_file(tmp_path):
    """scripts/fetch_fonts.sh end to end, npm replaced by a stand-in that packs the committed
    files: the selection, copies, NOTICE.txt files and catalog come out as committed."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "fetch_fonts.sh", tmp_path / "scripts")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "npm").write_text(FAKE_NPM)
    (tmp_path / "bin" / "npm").chmod(0o755)
    env = {
        "PYTHON": sys.executable,
        "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin",
        "FONTS_WORK": str(tmp_path / "work"),
        "FONTS_SOURCE": str(fonts.FONT_DIR),
    }
    subprocess.run(["bash", "scripts/fetch_fonts.sh"], cwd=tmp_path, env=env, check=True, capture_output=True)
    dest = tmp_path / "engine" / "fonts"
    made = sorted(p.relative_to(dest) for p in dest.rglob("*") if p.is_file())
    committed = sorted(
        p.relative_to(fonts.FONT_DIR)
        for p in fonts.FONT_DIR.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".md", ".pyc")
    )
    assert made == committed
    for relative in made:
        if relative.name != "LICENSE.txt":  # Debian's copyright file, as installed here
            assert (dest / relative).read_bytes() == (fonts.FONT_DIR / relative).read_bytes(), relative


# --- runs ----------------------------------------------------------------------------


def test_a_text_the_family_covers_is_one_run_in_it():
    inter = fonts.face("Inter")
    assert fonts.runs("Plain Latin, 123 – Ωμέγα Жизнь", inter) == (("Plain Latin, 123 – Ωμέγα Жизнь", inter),)


def test_an_arabic_sentence_is_one_run_spaces_digits_and_punctuation_included():
    sentence = "يولد جميع الناس أحرارًا متساوين في الكرامة والحقوق، 2024."
    runs = fonts.runs(f"Article 1: {sentence} (UDHR)", fonts.face("Inter"))
    assert [(text, face.family) for text, face in runs] == [
        ("Article 1: ", "Inter"),
        (sentence + " (", "Noto Sans Arabic"),  # neutrals continue the run they follow
        ("UDHR)", "Inter"),
    ]


@pytest.mark.parametrize("word,family,_rtl", WORDS)
def test_each_script_falls_back_to_its_family(word, family, _rtl):
    runs = fonts.runs(f"Hello {word} world", fonts.face("Inter"))
    assert [(t, f.family) for t, f in runs][1] == (word + " ", family)


def test_han_follows_the_language_or_the_kana_and_hangul_beside_it():
    inter = fonts.face("Inter")

    def han_family(text: str, lang: str = "") -> str:
        return next(f.family for t, f in fonts.runs(text, inter, lang) if "世" in t)

    assert han_family("世界") == "Noto Sans SC"
    assert han_family("世界", "zh-CN") == "Noto Sans SC"
    assert han_family("世界", "ja-JP") == "Noto Sans JP"
    assert han_family("世界", "ko") == "Noto Sans KR"
    assert han_family("こんにちは世界") == "Noto Sans JP"  # a Japanese sentence: one family throughout
    assert han_family("안녕하세요 世界") == "Noto Sans KR"
    assert len(fonts.runs("「こんにちは、世界。」", inter)) == 1  # CJK punctuation stays with the text
    # A character the language's family lacks comes from another CJK family, never .notdef.
    assert [(t, f.family) for t, f in fonts.runs("你们 안녕", inter)] == [
        ("你们 ", "Noto Sans SC"),
        ("안녕", "Noto Sans KR"),
    ]


def test_the_fallback_follows_the_weight_and_slant_of_the_element():
    for weight, expected in [(300, 400), (400, 400), (500, 400), (600, 700), (800, 700)]:
        runs = fonts.runs("Bold مرحبا", fonts.face("Inter", weight))
        assert runs[1][1].family == "Noto Sans Arabic" and runs[1][1].weight == expected
    italic = fonts.runs("Italic Ωμέγα 你好", fonts.face("Lato", 400, italic=True))
    assert {f.family: f.italic for _, f in italic} == {"Lato": True, "DejaVu Sans": True, "Noto Sans SC": False}


def test_a_character_nothing_covers_goes_to_dejavu_sans():
    runs = fonts.runs("Planet \U0001fa90", fonts.face("Inter"))
    assert runs[-1] == ("\U0001fa90", fonts.fallback_face(fonts.face("Inter")))


def test_string_width_measures_the_runs_it_draws():
    inter = fonts.face("Inter")
    text = "Total 你好 مرحبا"
    expected = sum(fonts.pdfmetrics.stringWidth(t, f.name, 12) for t, f in fonts.runs(text, inter, "ja"))
    assert fonts.string_width(text, inter, 12, "ja") == pytest.approx(expected)
    assert fonts.string_width(text, inter, 12) > fonts.string_width("Total", inter, 12) + 3 * 12


# --- real PDFs ---------------------------------------------------------------------


def test_an_inter_text_in_eight_scripts_draws_each_with_its_family():
    korean = next(word for word, family, _ in WORDS if family == "Noto Sans KR")
    content = "Inter: " + " ".join(word for word, _, _ in WORDS if word != korean)
    pdf = render_pdf(
        build(
            [
                add("text", "scripts", {"x": 20, "y": 20, "maxWidth": 500}, {"content": content}),
                # Hangul or kana would make the Han above Korean or Japanese: in a text of their own.
                add("text", "kana", {"x": 20, "y": 80}, {"content": f"{KANA} {korean}"}),
            ]
        )
    )
    names = font_names(pdf)
    for _, family, _ in WORDS:
        assert any(name.startswith(postscript_stem(family)) for name in names), (family, names)
    assert any(name.startswith("NotoSansJP") for name in names)
    assert not any(name.startswith("DejaVuSans") for name in names)  # every script had its family
    assert notdef_glyphs(pdf) == []
    text = pdf_text(pdf)[0]
    for word, _, rtl in WORDS:
        # Left-to-right words come back as written; right-to-left ones (until shaping orders
        # them) at least with every letter.
        assert word in text if not rtl else Counter(word) <= Counter(text), word
    assert KANA in pdf_text(pdf)[0]


def test_a_japanese_text_draws_its_kanji_in_the_japanese_family():
    pdf = render_text("日本語のテキストと漢字")
    assert {n.split("-")[0] for n in font_names(pdf)} == {"NotoSansJP"}
    chinese = render_text("中文和汉字")
    assert {n.split("-")[0] for n in font_names(chinese)} == {"NotoSansSC"}


def test_a_bold_text_falls_back_to_the_bold_faces():
    pdf = render_text("Bold مرحبا 你好 नमस्ते", fontWeight=700)
    names = font_names(pdf)
    assert {"NotoSansArabic-Bold", "NotoSansSC-Bold", "NotoSansDevanagari-Bold"} <= names, names
    assert not any(n.startswith("Noto") and n.endswith("Regular") for n in names)


def test_the_glyph_check_sees_a_notdef_when_nothing_covers_a_character():
    """The check below (tests/pdf_glyphs.py) must be able to fail: a character no font has."""
    pdf = render_text("Planet \U0001fa90")
    missing = notdef_glyphs(pdf)
    assert len(missing) == 1 and "DejaVuSans" in missing[0].font
    assert len(shown_glyphs(pdf)) == len("Planet \U0001fa90")  # each character's glyph


def test_markdown_and_table_cells_fall_back_per_script_too():
    """The markup path (richtext) and table cells take their runs from the same place."""
    pdf = render_pdf(
        build(
            [
                add(
                    "text",
                    "rich",
                    {"x": 20, "y": 20, "maxWidth": 400},
                    {"content": "**مرحبا** and *שלום* 你好", "markup": "markdown"},
                ),
                add(
                    "table",
                    "cells",
                    {"x": 20, "y": 120},
                    {"cells": [["Item", "项目"], ["नमस्ते", "안녕"]], "width": 300},
                ),
            ]
        )
    )
    names = font_names(pdf)
    expected = {
        "NotoSansArabic-Bold",
        "NotoSansHebrew-Regular",
        "NotoSansSC",
        "NotoSansDevanagari-Regular",
        "NotoSansKR",
    }
    assert all(any(n.startswith(e) for n in names) for e in expected), names
    assert notdef_glyphs(pdf) == []
    text = pdf_text(pdf)[0]
    assert all(word in text for word in ("你好", "项目", "नमस्ते", "안녕"))


@pytest.mark.parametrize("weight,style", [(400, "Regular"), (700, "Bold")])
def test_lao_khmer_and_burmese_sentences_draw_in_their_noto_families_shaped(weight, style):
    """Each sentence, in an Inter text, is drawn in its Noto family at the text's weight, with
    no .notdef, extracts as written, and is shaped: as many glyphs as HarfBuzz makes of it with
    that font (a Khmer subscript consonant is one glyph for coeng + consonant)."""
    sentences = {"NotoSansLao": LAO, "NotoSansKhmer": KHMER, "NotoSansMyanmar": BURMESE}
    pdf = render_pdf(
        build(
            [
                add("text", stem, {"x": 20, "y": 20 + 60 * i}, {"content": sentence}, {"fontWeight": weight})
                for i, (stem, sentence) in enumerate(sentences.items())
            ]
        )
    )
    assert font_names(pdf) == {f"{stem}-{style}" for stem in sentences}  # no DejaVu Sans, no Inter
    assert notdef_glyphs(pdf) == []
    assert pdf_text(pdf)[0].split("\r\n") == list(sentences.values())  # one line each, as written
    drawn = Counter(glyph.font.split("+")[-1] for glyph in shown_glyphs(pdf))
    for stem, sentence in sentences.items():
        family = next(e.id for e in fonts.families() if postscript_stem(e.id) == stem)
        buffer = uharfbuzz.Buffer()
        buffer.add_str(sentence)
        buffer.guess_segment_properties()
        uharfbuzz.shape(uharfbuzz.Font(uharfbuzz.Face(fonts.face_file(family, weight).path.read_bytes())), buffer)
        shaped = len(buffer.glyph_infos)
        # One glyph more at most: the line's invisible extraction anchor (engine.text.shaping).
        assert shaped <= drawn[f"{stem}-{style}"] <= shaped + 1, (stem, drawn, shaped)
    assert drawn[f"NotoSansKhmer-{style}"] <= len(KHMER) - 4  # the four subscripts fused
