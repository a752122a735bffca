"""Complex text (extensions.md 6): bidi levels, script runs, HarfBuzz shaping, line breaks, drawing glyphs.

The typesetter (engine.text.typeset, engine.text.richtext) keeps its fast path for text that needs
none of this: every character below U+0590 (Latin, Greek, Cyrillic, …) in a left-to-right
paragraph. Anything else goes through here:

- levels: the paragraph's base direction (P2–P3, or styles.direction) and each character's
  embedding level, from python-bidi's own implementation of the Unicode bidi algorithm
  (rules up to I2; reordering, L1–L2, is done per line here, after line breaking);
- runs: a line split where the font (engine.fonts.runs: per-script fallback), the Unicode
  script (Common and Inherited characters join their neighbours) or the level changes, each
  shaped by HarfBuzz (joining, ligatures, reordering, marks; brackets mirrored in rtl runs)
  and the runs put in visual order (L2);
- break units: Unicode line-break opportunities (UAX #14, uniseg), and grapheme clusters
  (UAX #29) where a word wider than its box must break between characters;
- drawing: glyph ids become codes of ReportLab's subset fonts (the text's own character where
  the font's cmap maps it to the glyph, else a supplementary private-use code per glyph and
  the text it stands for, which the font's ToUnicode map says), drawn in visual order at
  HarfBuzz's positions, so that text extracted or copied from the PDF is the line's text in
  logical order (see "Drawing.").

Shaping results are cached in units of 1/1000 em per (text, face, direction, script, language):
a size only scales them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import uharfbuzz as hb
from bidi import algorithm as bidi_algorithm
from fontTools import unicodedata as ft_unicodedata
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase import pdfmetrics
from uniseg.graphemecluster import grapheme_clusters
from uniseg.linebreak import line_break, line_break_units

from .. import fonts
from ..memo import text_cache
from ..pdf import reportlab_internals
from . import segmentation

if TYPE_CHECKING:
    from reportlab.pdfgen.canvas import Canvas

    from .style import TextStyle

FIRST_COMPLEX = "\u0590"  # Hebrew: the first block that needs bidi or shaping
# Above it, what Latin text uses and no script needs shaped: Latin and Greek extended,
# typographic punctuation (dashes, quotes, ellipsis, bullet), currency, letterlike symbols,
# arrows, mathematical and technical symbols, box drawing, shapes, dingbats. Bidi controls
# and joiners (U+200B–200F, U+202A–202E, U+2060–206F) are not in it.
_COMPLEX = re.compile("[^\x00-\u058f\u1e00-\u1fff\u2010-\u2027\u2030-\u205e\u2070-\u2bff]")
_NEUTRAL_SCRIPTS = frozenset({"Zyyy", "Zinh", "Zzzz"})  # Common, Inherited, Unknown
# Codes for glyphs no character maps to (joined forms, ligatures, conjuncts): plane 15, private
# use, so they never clash with a font's own private-use characters in the BMP; plane 16 where
# a font maps plane 15 itself.
PRIVATE_START = 0xF0000
PRIVATE_START_16 = 0x100000


def needs_shaping(text: str) -> bool:
    """The text has a character of a script that needs bidi, shaping or UAX #14 breaks (Hebrew
    and up, but for the punctuation and symbols Latin text uses): one cheap test first."""
    return bool(text) and max(text) >= FIRST_COMPLEX and _COMPLEX.search(text) is not None


def reads_alike_both_ways(text: str) -> bool:
    """Text of the fast path's scripts made of letters, digits and spaces only: all at one level
    in a paragraph of either direction (bidi W7, N1), so drawn as written, unshaped; only its
    alignment follows the paragraph (a table cell's "Total" in a right-to-left table)."""
    return not needs_shaping(text) and text.replace(" ", "").isalnum()


@lru_cache(maxsize=4096)
def base_level(text: str, direction: str) -> int:
    """The paragraph's level: 1 for right to left. "auto": its first strong character (P2–P3)."""
    if direction == "rtl":
        return 1
    if direction == "ltr" or not needs_shaping(text):
        return 0
    return bidi_algorithm.get_base_level(text)


def is_rtl(text: str, direction: str) -> bool:
    return base_level(text, direction) == 1


@lru_cache(maxsize=4096)
def levels(text: str, base: int) -> tuple[int, ...]:
    """Each character's resolved embedding level (rules X1–I2), and L1 for the line's end."""
    if not needs_shaping(text) and base == 0:
        return (0,) * len(text)
    storage = bidi_algorithm.get_empty_storage()
    storage["base_level"] = base
    storage["base_dir"] = ("L", "R")[base]
    bidi_algorithm.get_embedding_levels(text, storage)
    bidi_algorithm.explicit_embed_and_overrides(storage)
    bidi_algorithm.resolve_weak_types(storage)
    bidi_algorithm.resolve_neutral_types(storage, False)
    bidi_algorithm.resolve_implicit_levels(storage, False)
    resolved = iter(ch["level"] for ch in storage["chars"])
    out: list[int] = []
    for char in text:
        # X9 drops embedding controls from the storage: they take their neighbour's level.
        if ft_unicodedata.bidirectional(char) in bidi_algorithm.X9_REMOVED:
            out.append(out[-1] if out else base)
        else:
            out.append(next(resolved, base))
    # L1: whitespace at the end of the line goes back to the paragraph's level.
    index = len(out) - 1
    while index >= 0 and text[index] in " \t\u00a0\u3000":
        out[index] = base
        index -= 1
    return tuple(out)


@lru_cache(maxsize=256)  # per face: the catalog has fewer
def _hb_font(face: fonts.Face) -> tuple[hb.Font, float]:
    """HarfBuzz's font for a face, built once, and the factor from font units to 1/1000 em."""
    hb_face = hb.Face(hb.Blob.from_file_path(str(face.path)))
    return hb.Font(hb_face), 1000 / hb_face.upem


# (glyph id, cluster: index of its first character in the run, x advance, x offset, y offset), 1/1000 em.
Glyph = tuple[int, int, float, float, float]


@lru_cache(maxsize=65536)
def shape(
    text: str, face: fonts.Face, rtl: bool, script: str, lang: str, features: tuple[tuple[str, object], ...] = ()
) -> tuple[Glyph, ...]:
    """HarfBuzz's glyphs for a run, in visual order, with the font's default features (kern,
    liga, …) and `features` turned on or off (TextStyle.features)."""
    if not text:
        return ()  # HarfBuzz gives an empty buffer no positions at all
    buffer, scale = shaped_buffer(text, face, rtl, script, lang, features)
    return tuple(
        (info.codepoint, info.cluster, pos.x_advance * scale, pos.x_offset * scale, pos.y_offset * scale)
        for info, pos in zip(buffer.glyph_infos, buffer.glyph_positions, strict=True)
    )


def shaped_buffer(
    text: str, face: fonts.Face, rtl: bool, script: str, lang: str, features: tuple[tuple[str, object], ...]
) -> tuple[hb.Buffer, float]:
    """HarfBuzz's buffer after shaping a (non-empty) run, uncached, and the factor from its
    font units to 1/1000 em: for a caller that keeps what it makes of it (engine.text.words)."""
    font, scale = _hb_font(face)
    buffer = hb.Buffer()
    buffer.add_str(text)
    buffer.guess_segment_properties()
    buffer.direction = "rtl" if rtl else "ltr"
    if script not in _NEUTRAL_SCRIPTS:
        buffer.script = script
    if lang:
        buffer.language = lang
    # A feature's value: on or off, or (start, end, on) ranges of the text (punctuation_squeeze).
    hb.shape(font, buffer, {tag: list(value) if isinstance(value, tuple) else value for tag, value in features})
    return buffer, scale


# Fullwidth punctuation of Chinese, Japanese and Korean text (JLREQ's classes cl-01, cl-02,
# cl-06, cl-07): each glyph is an em wide, its mark on one half and space on the other.
OPENING_PUNCTUATION = frozenset("「『（［｛〔〈《【〘〖〝")
CLOSING_PUNCTUATION = frozenset("」』）］｝〕〉》】〙〗〟、。，．：；！？")
_CJK_PUNCTUATION = OPENING_PUNCTUATION | CLOSING_PUNCTUATION


def punctuation_squeeze(text: str) -> tuple[tuple[int, int, bool], ...]:
    """Where two fullwidth punctuation marks meet, the space between them halved, as JLREQ
    (3.1.4) and CSS's text-spacing-trim do: a closing mark before any other loses its trailing
    half, an opening mark after another opening one its leading half. The ranges of the
    characters set half-width by the font's `halt` feature (Noto Sans CJK has it)."""
    if not _CJK_PUNCTUATION.intersection(text):
        return ()
    halves: list[tuple[int, int, bool]] = []
    for index in range(len(text) - 1):
        first, second = text[index], text[index + 1]
        if first in CLOSING_PUNCTUATION and second in _CJK_PUNCTUATION:
            halves.append((index, index + 1, True))
        elif first in OPENING_PUNCTUATION and second in OPENING_PUNCTUATION:
            halves.append((index + 1, index + 2, True))
    return tuple(halves)


def _scripts(text: str) -> list[str]:
    """Each character's script; Common and Inherited ones take the script before (or after) them."""
    found = [ft_unicodedata.script(char) for char in text]
    current = next((s for s in found if s not in _NEUTRAL_SCRIPTS), "Zyyy")
    for index, script in enumerate(found):
        if script in _NEUTRAL_SCRIPTS:
            found[index] = current
        else:
            current = script
    return found


@dataclass(frozen=True, eq=False)
class Run:
    """Part of a line in one face, script and level, shaped; `segment` is its piece of the line."""

    segment: int
    start: int  # index of its first character in the line
    text: str
    face: fonts.Face
    level: int
    glyphs: tuple[Glyph, ...]
    size: float
    letter_spacing: float
    extra: float = 0.0  # points added to the run's width (a justified gap)

    @cached_property
    def width(self) -> float:
        advance = sum(g[2] for g in self.glyphs) * self.size / 1000
        return advance + self.letter_spacing * len(self.glyphs) + self.extra


@dataclass(frozen=True)
class Segment:
    """A piece of a line in one style: the whole line on the plain path, a span's piece in markup."""

    text: str
    style: TextStyle
    extra: float = 0.0


@dataclass(frozen=True)
class PlacedRun:
    x: float  # from the line's left end
    run: Run


def line_runs(segments: Sequence[Segment], rtl: bool) -> list[PlacedRun]:
    """The line's runs in visual order (L2), each at its x from the line's left end."""
    return list(_line_runs(tuple(segments), rtl))


@lru_cache(maxsize=8192)
def _line_runs(segments: tuple[Segment, ...], rtl: bool) -> tuple[PlacedRun, ...]:
    text = "".join(s.text for s in segments)
    line_levels = levels(text, 1 if rtl else 0)
    runs: list[Run] = []
    offset = 0
    for number, segment in enumerate(segments):
        style = segment.style
        faces = [face for piece, face in fonts.runs(segment.text, style.face, style.lang) for _ in piece]
        scripts = _scripts(segment.text)
        first = len(runs)
        start = 0
        for end in range(1, len(segment.text) + 1):
            at = offset + end
            if end < len(segment.text) and (
                faces[end] is faces[start]
                and scripts[end] == scripts[start]
                and line_levels[at] == line_levels[offset + start]
            ):
                continue
            piece = segment.text[start:end]
            level = line_levels[offset + start]
            features = style.features
            squeezed = punctuation_squeeze(piece)
            if squeezed:
                features = (*features, ("halt", squeezed))
            glyphs = shape(piece, faces[start], level % 2 == 1, scripts[start], style.lang, features)
            face = faces[start]
            runs.append(Run(number, offset + start, piece, face, level, glyphs, style.size, style.letter_spacing))
            start = end
        if segment.extra and len(runs) > first:
            last = runs[-1]
            runs[-1] = dataclasses.replace(last, extra=last.extra + segment.extra)
        offset += len(segment.text)
    visual = _reordered(runs)
    placed: list[PlacedRun] = []
    x = 0.0
    for run in visual:
        placed.append(PlacedRun(x, run))
        x += run.width
    return tuple(placed)


def _reordered(runs: list[Run]) -> list[Run]:
    """L2: from the highest level down to the lowest odd one, reverse every sequence at that level or above."""
    if not runs:
        return []
    highest = max(r.level for r in runs)
    lowest_odd = min((r.level for r in runs if r.level % 2), default=highest + 1)
    order = list(runs)
    for level in range(highest, lowest_odd - 1, -1):
        index = 0
        while index < len(order):
            if order[index].level >= level:
                end = index
                while end < len(order) and order[end].level >= level:
                    end += 1
                order[index:end] = reversed(order[index:end])
                index = end
            else:
                index += 1
    return order


def line_width(text: str, style: TextStyle, rtl: bool) -> float:
    """The width of a line set in one style, as drawn (its shaped advances)."""
    return sum(p.run.width for p in _line_runs((Segment(text, style),), rtl))


def width(text: str, style: TextStyle) -> float:
    """A piece of text's shaped width, its direction from its own first strong character."""
    return line_width(text, style, is_rtl(text, style.direction))


# Line breaking (UAX #14) and grapheme clusters (UAX #29): uniseg is slow (some 70 µs a
# character: 7 s for a 100,000-character Chinese paragraph), so paragraphs are cached, up
# to this many characters of them (engine.memo), and ideographs are not given to it at all.
BROKEN_CHARACTERS = 2_000_000
# uniseg is only given the pieces between places where UAX #14 surely breaks and no rule reads
# across (issue 31, item 3), each piece cached while short, as they come back ("落，这", "word "):
# - before an ideograph of class ID (tests/engine/text/test_text_size.py checks each against uniseg) after a
#   character of class ID, CL, EX or NS (LB31: no rule keeps them together), where no rule
#   reads past the ideograph;
# - after a space between two letters (AL, HL: LB18), where the rules that read across spaces
#   (LB14-LB17) would need a bracket, quote or dash before it;
# - between two words of Thai, Lao, Khmer or Burmese (class SA, which uniseg takes for AL: no
#   break), found by ICU's dictionaries (engine.text.segmentation, extensions.md 17); both sides
#   are characters of those scripts, never a space, so no rule reads across.
_IDEOGRAPHS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fffd\U00030000-\U0003fffd"
_KANA = "".join(  # the kana of class ID (the small ones are CJ, which may not start a line)
    chr(code) for code in range(0x3040, 0x3100) if str(line_break(chr(code))) == "ID"
)
_IDEOGRAPH = re.compile(f"[{_IDEOGRAPHS}{_KANA}]")
_BEFORE_IDEOGRAPH = frozenset(("ID", "CL", "EX", "NS"))
_KEPT_AFTER_IDEOGRAPH = frozenset(("CL", "EX", "NS"))
_LETTERS = frozenset(("AL", "HL"))
SHORT_PIECE = 64


@text_cache(BROKEN_CHARACTERS)
def break_units(text: str) -> tuple[str, ...]:
    """The text cut at every line-break opportunity; each unit keeps the spaces that end it."""
    units: list[str] = []
    start = 0
    for cut in sorted(_sure_breaks(text)):
        units.extend(_piece_units(text[start:cut]))
        start = cut
    units.extend(_piece_units(text[start:]))
    return tuple(unit for unit in units if unit)


def _sure_breaks(text: str) -> Iterator[int]:
    for found in _IDEOGRAPH.finditer(text, 1):
        at = found.start()
        if _class_of(text[at - 1]) in _BEFORE_IDEOGRAPH:
            yield at
    at = text.find(" ", 1)
    while 0 < at < len(text) - 1:
        if _class_of(text[at - 1]) in _LETTERS and _class_of(text[at + 1]) in _LETTERS:
            yield at + 1
        at = text.find(" ", at + 1)
    yield from segmentation.word_breaks(text)


@lru_cache(maxsize=65536)
def _class_of(char: str) -> str:
    return str(line_break(char))


def _piece_units(piece: str) -> tuple[str, ...]:
    if len(piece) <= 1:
        return (piece,)
    if len(piece) == 2 and _class_of(piece[0]) == "ID" and _class_of(piece[1]) in _KEPT_AFTER_IDEOGRAPH:
        return (piece,)  # an ideograph and its comma or stop: one unit (LB13, LB21)
    if len(piece) <= SHORT_PIECE:
        return _short_piece_units(piece)
    return tuple(line_break_units(piece))  # cached whole, with its text, by break_units


@lru_cache(maxsize=16384)
def _short_piece_units(piece: str) -> tuple[str, ...]:
    return tuple(line_break_units(piece))


@text_cache(BROKEN_CHARACTERS)
def clusters(text: str) -> tuple[str, ...]:
    return tuple(grapheme_clusters(text))


# Drawing.
#
# Text is extracted from a PDF (PDFium, poppler, MuPDF, pdf.js) from its glyphs' ToUnicode
# entries, in the order they are drawn and where they are, each reader putting right-to-left
# text in order its own way. Glyphs are drawn in visual order, as Chromium (Skia) and Typst
# draw them, and each glyph's code says the characters it stands for: the character the text
# has there, never another the font maps to the same glyph (a Kangxi radical for a Han
# character, a presentation form for a joined Arabic letter); a cluster's characters shared
# over its glyphs. Measured on Hebrew, Arabic, Arabic with Latin and numbers, Devanagari, Thai,
# Latin ligatures and wrapped Japanese (tests/engine/text/test_extraction.py): PDFium and
# poppler read every line as written, with no /ActualText but on left-to-right runs with
# marks placed off the pen (_placed_marks); pdf.js too, but for the order of a right-to-left
# line's runs; MuPDF (1.21) reads right-to-left text in visual order, backwards, as it reads
# Chromium's and Typst's. Drawing right-to-left runs in logical order instead (leftwards, glyph
# by glyph) has MuPDF read them right but PDFium break lines of lists and links into pieces
# and pdf.js drop the spaces between words.


def _glyph_texts(run: Run, order: Sequence[int]) -> dict[int, str]:
    """What each glyph (by index in run.glyphs) stands for, so that the glyphs' texts read in
    drawing `order` are the run's text: each cluster's characters shared out over its glyphs in
    that order, one each and the rest to its last (a ligature takes all of them, a glyph past
    the cluster's characters none)."""
    if len(run.glyphs) == len(run.text) and all(run.glyphs[i][1] == at for at, i in enumerate(order)):
        return dict(zip(order, run.text, strict=True))  # a glyph per character (most Latin text)
    clusters = [run.glyphs[i][1] for i in order]
    starts = sorted(set(clusters))
    ends = dict(zip(starts, [*starts[1:], len(run.text)], strict=True))
    texts: dict[int, str] = {}
    count = len(order)
    at = 0
    while at < count:
        cluster = clusters[at]
        characters = run.text[cluster : ends[cluster]]
        last = at
        while last + 1 < count and clusters[last + 1] == cluster:
            last += 1
        if last == at:
            texts[order[at]] = characters
        else:
            for piece, index in enumerate(order[at:last]):
                texts[index] = characters[piece : piece + 1]
            texts[order[last]] = characters[last - at :]
        at = last + 1
    return texts


class _PathPen:
    """PDF path operators for a glyph's outline (HarfBuzz's draw callbacks), in font units."""

    def __init__(self) -> None:
        self.ops: list[str] = []
        self.at = (0.0, 0.0)

    def moveTo(self, point: tuple[float, float]) -> None:  # noqa: N802 (a pen's method names)
        self.ops.append(f"{fp_str(*point)} m")
        self.at = point

    def lineTo(self, point: tuple[float, float]) -> None:  # noqa: N802
        self.ops.append(f"{fp_str(*point)} l")
        self.at = point

    def curveTo(self, first: tuple[float, float], second: tuple[float, float], end: tuple[float, float]) -> None:  # noqa: N802
        self.ops.append(f"{fp_str(*first, *second, *end)} c")
        self.at = end

    def qCurveTo(self, control: tuple[float, float], end: tuple[float, float]) -> None:  # noqa: N802
        # A quadratic Bézier as the cubic PDF draws: control points two thirds of the way.
        (x0, y0), (qx, qy), (x, y) = self.at, control, end
        first = (x0 + 2 * (qx - x0) / 3, y0 + 2 * (qy - y0) / 3)
        second = (x + 2 * (qx - x) / 3, y + 2 * (qy - y) / 3)
        self.curveTo(first, second, end)

    def closePath(self) -> None:  # noqa: N802
        self.ops.append("h")


def nominal_advance(face: fonts.Face, glyph: int) -> float:
    """The glyph's own advance (its hmtx), 1/1000 em."""
    font, scale = _hb_font(face)
    return font.get_glyph_h_advance(glyph) * scale


def glyph_character(face: fonts.Face, glyph: int, source: str) -> tuple[int, bool]:
    """The character drawing `glyph`, which HarfBuzz set for the text `source`, and whether it
    is a private code (whose meaning, `source`, the document's ToUnicode must be told): the
    source character itself where the cmap maps it to the glyph, else the private code of the
    glyph and the text (a ligature, a tabular figure, a contextual form: extracted as the text
    it was set for). engine.text.words encodes the simple scripts' words with it, once each."""
    if len(source) == 1 and reportlab_internals.character_map(face.name).get(ord(source)) == glyph:
        return ord(source), False
    code = reportlab_internals.private_codes(face.name).get((glyph, source))
    if code is None:
        code = reportlab_internals.private_code(face.name, glyph, source, nominal_advance(face, glyph))
    return code, True


@lru_cache(maxsize=4096)
def _outline(face: fonts.Face, glyph: int) -> str:
    """A glyph's outline as PDF path operators, in font units."""
    font, _ = _hb_font(face)
    pen = _PathPen()
    font.draw_glyph_with_pen(glyph, pen)
    return " ".join(pen.ops)


def _code(face: fonts.Face, glyph: int, text: str, meanings: dict[int, str], cmap: Mapping[int, int]) -> int:
    """The character `glyph` is drawn with where it stands for `text`: the text's own character
    where the font maps it to that glyph (`cmap`), else a private code whose ToUnicode entry is
    the text (`meanings`: the document's table for the face, reportlab_internals.glyph_meanings)."""
    if len(text) == 1 and cmap.get(ord(text)) == glyph:
        return ord(text)
    code = reportlab_internals.private_codes(face.name).get((glyph, text))
    if code is None:
        font, scale = _hb_font(face)
        code = reportlab_internals.private_code(face.name, glyph, text, font.get_glyph_h_advance(glyph) * scale)
    meanings.setdefault(code, text)
    return code


def spoken_lines(lines: Sequence[str]) -> str:
    """A wrapped paragraph's lines as one text (a tagged paragraph's ActualText): the space a
    line broke at comes back, but none between two characters of a script written without
    spaces (Chinese, Japanese, Thai), which break anywhere: 山田太郎 wrapped after 山田太 is
    山田太郎, not 山田太 郎."""
    out = ""
    for line in lines:
        if out and line and not (_unspaced(out[-1]) and _unspaced(line[0])):
            out += " "
        out += line
    return out


def _unspaced(char: str) -> bool:
    """A character of a script whose words are not separated by spaces, or CJK punctuation."""
    code = ord(char)
    if 0x0E00 <= code <= 0x0EFF or 0x1000 <= code <= 0x109F or 0x1780 <= code <= 0x17FF:
        return True  # Thai, Lao, Myanmar, Khmer
    if 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF or 0x3130 <= code <= 0x318F:
        return False  # Hangul: Korean separates its words with spaces
    return ft_unicodedata.east_asian_width(char) in ("W", "F")


def has_right_to_left(text: str) -> bool:
    """Whether the text has a right-to-left letter (Hebrew, Arabic, …)."""
    return any(ft_unicodedata.bidirectional(char) in ("R", "AL") for char in text)


def actual_text(text: str) -> str:
    """A PDF text string (UTF-16BE with its byte-order mark) in hex."""
    return "<" + ("\ufeff" + text).encode("utf-16-be").hex().upper() + ">"


def draw_line(
    canvas: Canvas,
    placed: Sequence[PlacedRun],
    left: float,
    y: float,
    text: str,
    before: Callable[[Run], None] | None = None,
) -> None:
    """Draw a line's runs (line_runs) from x = left (see "Drawing." above), so that text
    extracted from the PDF is `text`, the line's own.
    `before(run)` is called before each run is drawn (markup sets its colour)."""
    for item in placed:
        if before is not None:
            before(item.run)
        spoken = _placed_marks(item.run)
        if spoken:
            canvas.addLiteral(f"/Span <</ActualText {actual_text(item.run.text)}>> BDC")
        draw_run(canvas, item.run, left + item.x, y)
        if spoken:
            canvas.addLiteral("EMC")


def _placed_marks(run: Run) -> bool:
    """Whether a left-to-right run has glyphs HarfBuzz placed off their pen position or without
    an advance (Thai tone marks, Bengali and Devanagari vowel signs): PDFium and poppler read
    those elsewhere in the line (ทั้ง as ทัง … ้), so the run carries its text as /ActualText,
    which both read as written there and MuPDF and pdf.js, which ignore it, need not (its glyphs
    read right). Not a right-to-left run: PDFium and poppler read its ActualText backwards."""
    return run.level % 2 == 0 and any(dx or dy or not advance for _, _, advance, dx, dy in run.glyphs)


def draw_run(canvas: Canvas, run: Run, x: float, y: float) -> None:
    """Draw a shaped run with its left end at (x, y) in one TJ, each glyph at HarfBuzz's
    position, in visual order."""
    if not run.glyphs:
        return
    font = pdfmetrics.getFont(run.face.name)
    doc = reportlab_internals.document_of(canvas)
    meanings = reportlab_internals.glyph_meanings(doc, run.face.name)
    size = run.size
    scale = size / 1000
    # Each glyph's text shared out in logical order (a right-to-left run's glyphs reversed); a
    # right-to-left glyph standing for more than one character (lam-alef) says them reversed:
    # PDFium, poppler and pdf.js turn each of its characters round with the run's.
    rtl = run.level % 2 == 1
    texts = _glyph_texts(run, list(range(len(run.glyphs) - 1, -1, -1) if rtl else range(len(run.glyphs))))
    if rtl:
        texts = {i: text[::-1] for i, text in texts.items()}
    # A glyph that stands for none of the text (a cluster with more glyphs than characters:
    # Noto Sans Arabic's dots, drawn apart from their letters) is drawn as its outline: as a
    # glyph with an empty ToUnicode entry, MuPDF reads it as U+FFFD and PDFium as a space.
    outlined = [i for i in range(len(run.glyphs)) if not texts[i]]
    order = [i for i in range(len(run.glyphs)) if texts[i]]
    cmap = reportlab_internals.character_map(run.face.name)
    codes = {i: _code(run.face, run.glyphs[i][0], texts[i], meanings, cmap) for i in order}
    chars = "".join(chr(codes[i]) for i in order)
    encoded = [(name, code) for name, data in reportlab_internals.split_into_subsets(font, chars, doc) for code in data]
    # Each glyph's origin and rise from (x, y), in visual order.
    origins: list[float] = []
    pen = 0.0
    for _, _, advance, dx, _ in run.glyphs:
        origins.append(pen + dx * scale)
        pen += advance * scale + run.letter_spacing
    ops = ["BT 0 Tc 0 Ts", f"1 0 0 1 {fp_str(x)} {fp_str(y)} Tm"] if order else []
    subset_now = None
    rise_now = 0.0
    array: list[str] = []
    widths = reportlab_internals.char_widths(run.face.name)
    at = 0.0  # where the PDF's text position is, from x

    def flush() -> None:
        if array:
            ops.append(f"[{' '.join(array)}] TJ")
            array.clear()

    for index, (subset, code) in zip(order, encoded, strict=True):
        if subset != subset_now:
            flush()
            ops.append(f"{subset} {fp_str(size)} Tf")
            subset_now = subset
        rise = run.glyphs[index][4] * scale
        if rise != rise_now:
            flush()
            ops.append(f"{fp_str(rise)} Ts")
            rise_now = rise
        target = origins[index]
        shift = (at - target) / scale  # TJ's numbers move the next glyph left, in 1/1000 em
        if abs(shift) > 1e-3:
            array.append(fp_str(shift))
        array.append(f"<{code:02X}>")
        at = target + widths.get(codes[index], 0) * scale
    flush()
    if order:
        ops.append("0 Ts ET" if rise_now else "ET")
    if outlined:
        _, units = _hb_font(run.face)
        to_points = fp_str(units * scale)
        for index in outlined:
            at_x, at_y = x + origins[index], y + run.glyphs[index][4] * scale
            path = _outline(run.face, run.glyphs[index][0])
            ops.append(f"q {to_points} 0 0 {to_points} {fp_str(at_x)} {fp_str(at_y)} cm {path} f Q")
    canvas.addLiteral(" ".join(ops))
