"""Every script (extensions.md 6) in the typesetter: shaping, bidi, Unicode line breaking.

Each test renders a real PDF and reads it back: the text PDFium extracts (it must come back
as written, in logical order), the glyphs drawn (the content stream's codes decoded through
each font's ToUnicode map, in the order and at the x they are drawn), the ink on the page.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import unicodedata
from dataclasses import dataclass

import pikepdf
import pytest

from engine import render_pdf
from engine.elements.text import fitted_text
from engine.pdf import reportlab_internals
from engine.text import shaping, typeset
from tests.paths import ROOT
from tests.pdf_probes import char_count, ink_columns, page_count, pdf_text

from ...conftest import add, build
from ...validators import assert_passes_its_profiles_validator

ARABIC = "Noto Sans Arabic"
HEBREW = "Noto Sans Hebrew"
DEVANAGARI = "Noto Sans Devanagari"


def text(content, position=None, styles=None, **data) -> dict:
    return add("text", "T", position or {"x": 40, "y": 40}, {"content": content, **data}, styles)


def render(*elements: dict, profile: str = "standard") -> bytes:
    tree = build([{**e, "args": {**e["args"], "name": f"T{i}"}} for i, e in enumerate(elements)], title="Every script")
    return render_pdf(tree, profile=profile)


def lines_of(pdf: bytes, page: int = 0) -> list[str]:
    return [line.strip() for line in pdf_text(pdf)[page].split("\r\n") if line.strip()]


@dataclass
class Shown:
    """A text object drawn on the page: where its first glyph is, what its glyphs decode to."""

    x: float
    y: float
    chars: str
    codes: int
    invisible: bool
    raw: list[tuple[str, int]]  # (font resource, code) of each glyph, in the order drawn


def _to_unicode(font: pikepdf.Dictionary) -> dict[int, str]:
    mapping: dict[int, str] = {}
    if "/ToUnicode" not in font:
        return mapping
    cmap = font.ToUnicode.read_bytes().decode("latin-1")
    cmap = cmap.split("beginbfchar", 1)[1].split("endbfchar", 1)[0]
    for code, value in re.findall(r"<([0-9A-Fa-f]{2})>\s*<([0-9A-Fa-f]+)>", cmap):
        mapping[int(code, 16)] = bytes.fromhex(value).decode("utf-16-be")
    return mapping


def shown(pdf: bytes, page: int = 0) -> list[Shown]:
    """Every text object (BT … ET) of a page, in the order drawn."""
    found: list[Shown] = []
    with pikepdf.open(io.BytesIO(pdf)) as document:
        pdf_page = document.pages[page]
        fonts = pdf_page.Resources.Font
        maps = {str(name): _to_unicode(fonts[name]) for name in fonts.keys()}
        current: dict[int, str] = {}
        font_name = ""
        render_mode = 0
        item: Shown | None = None
        for operands, operator in pikepdf.parse_content_stream(pdf_page):
            op = str(operator)
            if op == "BT":
                item = Shown(0.0, 0.0, "", 0, False, [])
            elif op == "Tf":
                font_name = str(operands[0])
                current = maps.get(font_name, {})
            elif op == "Tr":
                render_mode = int(operands[0])
            elif op == "Tm" and item is not None:
                item.x, item.y = float(operands[4]), float(operands[5])
            elif op in ("Tj", "TJ") and item is not None:
                strings = [operands[0]] if op == "Tj" else [s for s in operands[0] if isinstance(s, pikepdf.String)]
                for string in strings:
                    for byte in bytes(string):
                        item.chars += current.get(byte, "?")
                        item.codes += 1
                        item.raw.append((font_name, byte))
                item.invisible = render_mode == 3
            elif op == "ET" and item is not None:
                if item.codes:
                    found.append(item)
                item = None
    return [s for s in found if not s.invisible]


# Arabic: joined forms, the lam-alef ligature, right to left


def test_arabic_letters_are_joined_and_drawn_right_to_left():
    word = "سلام"
    letters = " ".join(word)  # each letter alone: its isolated form
    pdf = render(
        text(word, styles={"fontFamily": ARABIC, "fontSize": 24}),
        text(letters, {"x": 40, "y": 100}, {"fontFamily": ARABIC, "fontSize": 24}),
    )
    assert lines_of(pdf) == [word, letters]
    joined, isolated = shown(pdf)
    # The joined word's first letter (seen, initial form) and lam (medial) are other glyphs
    # than the letters alone; the word's glyphs extract to its letters, drawn right to left.
    assert len(joined.raw) == len(word)
    assert joined.raw[-1] not in isolated.raw and joined.raw[-2] not in isolated.raw
    assert unicodedata.normalize("NFKC", joined.chars) == word[::-1]
    face = typeset.TextStyle(family=ARABIC).face
    joined = [g[0] for g in shaping.shape(word, face, True, "Arab", "ar")]
    isolated = [shaping.shape(letter, face, True, "Arab", "ar")[0][0] for letter in word]
    assert sorted(joined) != sorted(isolated) and not set(joined) & set(isolated[1:3])
    # Right to left: the glyph drawn first (leftmost) is the word's last letter, its final form.
    clusters = [g[1] for g in shaping.shape(word, face, True, "Arab", "ar")]
    assert clusters == [3, 2, 1, 0]


def test_lam_alef_is_one_ligature_glyph():
    # DejaVu Sans has the ligature (Noto Sans Arabic draws lam-alef as two contextual glyphs).
    pdf = render(text("لا", styles={"fontFamily": "DejaVu Sans", "fontSize": 24}))
    assert lines_of(pdf) == ["لا"]
    [drawn] = shown(pdf)
    assert drawn.codes == 1


def test_hebrew_is_drawn_right_to_left_and_extracted_as_written():
    content = "שלום עולם"
    pdf = render(text(content, styles={"fontFamily": HEBREW, "fontSize": 20}))
    assert lines_of(pdf) == [content]
    [drawn] = shown(pdf)
    # Hebrew letters have no joined forms: the glyphs decode to the letters, in visual order.
    assert drawn.chars == content[::-1]


def test_arabic_with_a_number_and_a_latin_word_reads_in_logical_order():
    content = "قرأت 25 صفحة من Python اليوم"
    pdf = render(text(content, styles={"fontSize": 16}))
    assert lines_of(pdf) == [content]
    objects = shown(pdf)
    number = next(o for o in objects if "25" in o.chars)
    latin = next(o for o in objects if "Python" in o.chars)
    arabic = [o for o in objects if o not in (number, latin)]
    # The number and the Latin word read left to right inside the right-to-left line: the
    # number (written before the Latin word) is to its right; the first Arabic word rightmost.
    assert "25" in number.chars and "Python" in latin.chars
    assert latin.x < number.x < max(o.x for o in arabic)
    assert min(o.x for o in arabic) < latin.x


# Indic, Thai


def test_devanagari_conjunct_and_pre_base_matra():
    pdf = render(text("क्ष कि", styles={"fontFamily": DEVANAGARI, "fontSize": 24}))
    assert lines_of(pdf) == ["क्ष कि"]
    [drawn] = shown(pdf)
    # क्ष (3 characters) is drawn with fewer glyphs; the i-matra ि is drawn before (left of) क.
    face = typeset.TextStyle(family=DEVANAGARI).face
    assert len(shaping.shape("क्ष", face, False, "Deva", "hi")) < 3
    assert drawn.codes < len("क्ष कि")
    # Drawn in visual order, each glyph's code saying the characters in the order read.
    ka = reportlab_internals.character_map(face.name)[ord("क")]
    assert [g[0] for g in shaping.shape("कि", face, False, "Deva", "hi")][1:] == [ka]  # the matra first
    assert drawn.chars == "क्ष कि"


def test_thai_is_shaped_and_extracted_as_written():
    content = "สวัสดีครับ"
    pdf = render(text(content, styles={"fontFamily": "Noto Sans Thai", "fontSize": 20}))
    assert lines_of(pdf) == [content]
    face = typeset.TextStyle(family="Noto Sans Thai").face
    glyphs = shaping.shape(content, face, False, "Thai", "th")
    # Marks above and below sit on their consonants: HarfBuzz gives them no advance.
    assert any(g[2] == 0 for g in glyphs)


# CJK: lines break between ideographs, every character kept


@pytest.mark.parametrize(
    "family,content",
    [
        ("Noto Sans SC", "人人生而自由在尊严和权利上一律平等他们赋有理性和良心并应以兄弟关系的精神相对待"),
        ("Noto Sans JP", "すべての人間は生まれながらにして自由であり、かつ、尊厳と権利とについて平等である。"),
        ("Noto Sans KR", "모든 인간은 태어날 때부터 자유로우며 그 존엄과 권리에 있어 동등하다."),
    ],
)
def test_cjk_wraps_at_a_width_and_keeps_every_character(family, content):
    width = 120
    pdf = render(text(content, {"x": 40, "y": 40, "maxWidth": width}, {"fontFamily": family, "fontSize": 14}))
    extracted = lines_of(pdf)
    assert len(extracted) >= 3
    assert "".join(extracted).replace(" ", "") == content.replace(" ", "")
    style = typeset.TextStyle(family=family, size=14)
    assert all(line.width <= width + 0.01 for line in typeset.wrap(content, style, width))
    left, right = ink_columns(pdf, (30, 30, 200, 200))
    assert right <= 40 + width + 1


# Right to left: lists, alignment, justify


def test_right_to_left_list_has_its_markers_on_the_right():
    items = ["البند الأول", "البند الثاني"]
    pdf = render(text(items, {"x": 40, "y": 40, "maxWidth": 300}, {"fontSize": 14}, listFormat="ordered"))
    assert lines_of(pdf) == ["1. " + items[0], "2. " + items[1]] or all(i in pdf_text(pdf)[0] for i in items)
    objects = shown(pdf)
    markers = [o for o in objects if o.chars in ("1.", "2.")]
    words = [o for o in objects if o not in markers]
    assert len(markers) == 2
    assert all(m.x > max(w.x for w in words) for m in markers)


@pytest.mark.parametrize("align,side", [("start", "right"), ("end", "left"), ("left", "left"), ("right", "right")])
def test_logical_alignment_in_a_right_to_left_paragraph(align, side):
    pdf = render(text("مرحبا بالعالم", {"x": 40, "y": 40, "maxWidth": 300}, {"fontSize": 16, "align": align}))
    left, right = ink_columns(pdf, (30, 35, 320, 30))
    if side == "right":
        assert right > 40 + 300 - 4 and left > 40 + 100
    else:
        assert left < 40 + 4 and right < 40 + 200


def test_justify_in_right_to_left_stretches_the_gaps_and_ends_at_the_start():
    content = "هذا نص عربي طويل يملأ عدة أسطر حتى نرى كيف تمتد المسافات بين الكلمات في السطر هنا"
    position = {"x": 40, "y": 40, "maxWidth": 200}
    pdf = render(text(content, position, {"fontSize": 14, "align": "justify"}))
    assert " ".join(lines_of(pdf)) == content
    style = typeset.TextStyle(size=14, align="justify")
    lines = typeset.wrap(content, style, 200)
    assert len(lines) >= 3 and all(line.rtl for line in lines)
    leading = style.leading
    # The middle band of each line: Noto Sans Arabic's marks and descenders reach into the next.
    first = ink_columns(pdf, (30, 40 + leading * 0.35, 220, leading * 0.4))
    last = ink_columns(pdf, (30, 40 + leading * (len(lines) - 0.65), 220, leading * 0.4))
    assert first[0] < 40 + 4 and first[1] > 240 - 2  # a full line reaches both edges (less side bearings)
    assert last[1] > 240 - 2 and last[0] > 40 + 20  # the last line sits at the start: the right


# Fitting, flow, markup


def test_shrink_to_fit_arabic_measures_as_it_draws():
    content = "مرحبا بالعالم من القاهرة"
    tree = build(
        [
            add(
                "text",
                "T",
                {"x": 40, "y": 40, "maxWidth": 120},
                {"content": content, "maxLines": 1},
                {"fontSize": 24, "fit": "shrink", "minFontSize": 6},
            )
        ]
    )
    fitted = fitted_text(tree.node_by_name("T"))
    assert fitted.style.size < 24
    [(_, [line])] = fitted.blocks
    assert line.width <= 120 + 0.01 and line.rtl
    pdf = render_pdf(tree)
    assert lines_of(pdf) == [content]
    left, right = ink_columns(pdf, (30, 30, 200, 40))
    assert right <= 40 + 120 + 1


def test_arabic_ellipsis_keeps_whole_letters_and_reads_in_order():
    content = "مرحبا بالعالم من القاهرة والإسكندرية وأسوان"
    pdf = render(text(content, {"x": 40, "y": 40, "maxWidth": 100}, {"fontSize": 14}, maxLines=1, overflow="ellipsis"))
    [line] = lines_of(pdf)
    # PDFium gives the ellipsis of a right-to-left line as three full stops (its NFKC form).
    cut = line.removesuffix("\u2026").removesuffix("...").rstrip()
    assert line != cut and content.startswith(cut) and len(cut) > 5


def test_arabic_text_flows_onto_the_next_sheet_in_order():
    words = [f"كلمة{n}" for n in range(400)]
    pdf = render(text(" ".join(words), {"x": 40, "y": 80, "maxWidth": 200}, {"fontSize": 12}, overflow="flow"))
    assert page_count(pdf) >= 2
    extracted = " ".join(" ".join(lines_of(pdf, page)) for page in range(page_count(pdf))).split()
    assert extracted == words


def test_markdown_bold_and_a_link_in_arabic():
    content = "مرحبا **بالعالم** و [رابط](https://example.com) هنا"
    pdf = render(text(content, {"x": 40, "y": 40, "maxWidth": 400}, {"fontSize": 14}, markup="markdown"))
    assert lines_of(pdf) == ["مرحبا بالعالم و رابط هنا"]
    with pikepdf.open(io.BytesIO(pdf)) as document:
        names = {str(f.BaseFont) for f in document.pages[0].Resources.Font.values()}
        [link] = [a for a in document.pages[0].Annots if a.Subtype == "/Link"]
        rect = [float(v) for v in link.Rect]
    assert any("Bold" in name for name in names), names  # the bold word has the bold face
    # The link's box covers the linked word, which sits left of the words before it.
    objects = shown(pdf)
    first = max(o.x for o in objects)
    assert rect[0] < first and rect[2] - rect[0] > 10


# The fast path and the tagged profiles


def test_latin_text_takes_the_fast_path_unchanged():
    shaping._line_runs.cache_clear()
    content = "Ünïcödé Latin — “quoted” 25 € … Ελληνικά Кириллица"
    pdf = render(text(content, {"x": 40, "y": 40, "maxWidth": 200}, {"fontSize": 12, "align": "justify"}))
    assert shaping._line_runs.cache_info().misses == 0
    with pikepdf.open(io.BytesIO(pdf)) as document:
        stream = document.pages[0].Contents.read_bytes()
    assert b"ActualText" not in stream and b"/Span" not in stream
    assert " ".join(lines_of(pdf)) == content


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_tagged_profiles_validate_with_arabic_and_devanagari(profile, tmp_path):
    pdf = render(
        text("مرحبا بالعالم 123", {"x": 40, "y": 40, "maxWidth": 300}, {"fontSize": 14}),
        text("नमस्ते दुनिया क्षत्रिय", {"x": 40, "y": 100, "maxWidth": 300}, {"fontSize": 14, "fontFamily": DEVANAGARI}),
        text("مرحبا **بالعالم**", {"x": 40, "y": 160}, {"fontSize": 14}, markup="markdown"),
        profile=profile,
    )
    assert lines_of(pdf) == ["مرحبا بالعالم 123", "नमस्ते दुनिया क्षत्रिय", "مرحبا بالعالم"]
    path = tmp_path / "scripts.pdf"
    path.write_bytes(pdf)
    assert_passes_its_profiles_validator(path, profile)


def test_paragraph_direction_from_its_first_strong_character():
    assert shaping.base_level("abc שלום", "auto") == 0
    assert shaping.base_level("123 שלום abc", "auto") == 1
    assert shaping.base_level("abc", "rtl") == 1
    style = typeset.TextStyle(direction="rtl")
    [line] = typeset.wrap("Hello!", style, None)
    assert line.rtl  # a Latin paragraph set right to left goes through bidi: "!" on the left


def test_pypdfium_char_count_matches_the_text():
    content = "שלום עולם"
    pdf = render(text(content, styles={"fontFamily": HEBREW}))
    assert pdf_text(pdf)[0].strip() == content
    assert char_count(pdf) >= len(content)


def test_japanese_lines_never_start_with_closing_punctuation():
    # UAX #14: "、" and "。" close what comes before them; a line may not start with one,
    # whatever the width (breaking between any two characters would).
    content = (
        "すべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて平等である。"
        "人間は、理性と良心とを授けられており、互いに同胞の精神をもって行動しなければならない。"
    )
    style = typeset.TextStyle(family="Noto Sans JP", size=12)
    for width in range(40, 200, 3):
        lines = typeset.wrap(content, style, width)
        assert "".join(line.text for line in lines) == content
        assert not any(line.text[:1] in "、。" for line in lines), width


def test_table_cells_are_shaped_and_start_aligned_on_the_right():
    cells = [["الاسم", "Name"], ["مرحبا بالعالم", "Ada"]]
    position = {"x": 40, "y": 40}
    pdf = render(add("table", "T", position, {"cells": cells, "columnWidths": [200, 100]}, {"align": "start"}))
    extracted = pdf_text(pdf)[0]
    assert "الاسم" in extracted and "مرحبا بالعالم" in extracted
    objects = shown(pdf)
    arabic = next(o for o in objects if sorted(unicodedata.normalize("NFKC", o.chars)) == sorted("الاسم"))
    latin = next(o for o in objects if o.chars == "Name")
    # In the 200-point first column the Arabic header sits at the right (its start), the
    # Latin one in the second column at the left (its start).
    assert arabic.x > 40 + 100 and latin.x < 240 + 20


def _arabic_then_fresh(*earlier: dict, last: dict) -> tuple[bytes, bytes]:
    """`last` rendered after `earlier` in this process, and alone in a fresh one."""
    for element in earlier:
        render(element)
    here = render(last)
    script = (
        f"import sys\nfrom tests.engine.text.test_scripts import render\nsys.stdout.buffer.write(render({last!r}))\n"
    )
    root = ROOT
    env = {**os.environ, "PYTHONPATH": str(root)}
    fresh = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, check=True)
    return here, fresh.stdout


def test_a_documents_private_codes_mean_what_it_drew_whatever_the_process_drew_before():
    """A glyph no character maps to (a joined form, a conjunct) is drawn with a private code,
    which the font's ToUnicode map reads as the characters it was drawn for in that document
    (reportlab_internals.glyph_meanings). Arabic whose first letter carries a vowel mark (its
    joined form drawn for "بَ"), then Devanagari, then Arabic without the mark: the last document
    has the bytes it has in a fresh process, and its letter reads as "ب" alone."""
    marked = text("بَيت", styles={"fontFamily": ARABIC, "fontSize": 24})
    devanagari = text("क्ष कि", styles={"fontFamily": DEVANAGARI, "fontSize": 24})
    plain = text("بيت سلام", styles={"fontFamily": ARABIC, "fontSize": 24})
    here, fresh = _arabic_then_fresh(marked, devanagari, plain, last=plain)
    assert here == fresh
    [drawn] = shown(here)
    assert "\u064e" not in drawn.chars  # no fatha from the earlier document
    assert all(unicodedata.name(char).startswith("ARABIC") for char in drawn.chars.replace(" ", ""))
