"""Text of the simple scripts shaped by HarfBuzz a word at a time, and drawn as TJ arrays.

The simple scripts are what engine.text.shaping leaves to the fast path (Latin, Greek,
Cyrillic in a left-to-right paragraph: shaping.needs_shaping is false). They need no bidi
and no reordering, but a typesetter still kerns them and sets their ligatures, contextual
forms and numeral styles (extensions.md 17): each word is shaped by HarfBuzz with the
font's default features and the style's own (TextStyle.features), once, and kept as what a
PDF draws: one character per glyph for the subset font (the cmap's own character; a
private code for a ligature or an alternate no character maps to, whose ToUnicode says the
text it was drawn for) and the TJ numbers that move a glyph from the font's advance to
HarfBuzz's.

Words are shaped apart and the spaces between them are their own glyphs: kerning across a
space is rare in text faces, a word measures the same on every line, and a line is drawn
in one TJ array whose spaces a justified line stretches or shrinks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

from reportlab.lib.rl_accel import escapePDF, fp_str
from reportlab.pdfbase import pdfmetrics

from .. import fonts
from ..pdf import reportlab_internals
from . import shaping
from .style import TextStyle

# A kerning smaller than this (1/1000 em) is no kerning: the TJ number would be noise.
NEGLIGIBLE = 1e-3


@dataclass(frozen=True, slots=True)
class Glyphs:
    """A piece of text in one face as HarfBuzz set it, as the PDF draws it."""

    face: fonts.Face
    drawn: str  # one character per glyph, the subset font's encoding of it
    shifts: tuple[tuple[int, float], ...]  # (glyph index, TJ number before it), 1/1000 em
    rises: tuple[tuple[int, float], ...]  # (glyph index, its rise and the ones after it), 1/1000 em
    advance: float  # HarfBuzz's advances summed, 1/1000 em
    meanings: tuple[tuple[int, str], ...]  # private codes among `drawn` and the text each stands for
    # Its Tj or TJ operator where every glyph has a printable ASCII code, the same in every
    # document (subset 0: ReportLab's asciiReadable), or a private code (left in the string as
    # the character it is, for line_operators to put the document's code in), and nothing
    # rises; else None.
    shown: str | None


@lru_cache(maxsize=65536)
def shaped(text: str, face: fonts.Face, lang: str, features: tuple[tuple[str, bool], ...]) -> Glyphs:
    """A word (or any text of one face without line breaks) shaped and encoded. The glyphs
    are placed where HarfBuzz put them: TJ numbers take the PDF's pen (which moves by the
    font's advance of each character drawn) to each glyph's position, and back to the end of
    the word's advances after the last; a mark above or below its base rises (Ts)."""
    widths = reportlab_internals.char_widths(face.name)
    if text and text[0] in FIGURES:
        table = pair_kerning(face, lang, features)
        if table.characters.issuperset(text):
            return _pairwise(text, face, table, widths)
    if not text:
        return Glyphs(face, "", (), (), 0.0, (), None)
    buffer, scale = shaping.shaped_buffer(text, face, False, "Zyyy", lang, features)
    infos, positions = buffer.glyph_infos, buffer.glyph_positions
    cmap = reportlab_internals.character_map(face.name)
    if len(infos) == len(text):
        simple = _one_per_character(text, face, infos, positions, scale, cmap, widths)
        if simple is not None:
            return simple
    drawn: list[str] = []
    shifts: list[tuple[int, float]] = []
    rises: list[tuple[int, float]] = []
    meanings: list[tuple[int, str]] = []
    at = 0.0  # where the PDF's pen is
    pen = 0.0  # where HarfBuzz's is
    rise = 0.0
    one_to_one = len(infos) == len(text) and all(info.cluster == i for i, info in enumerate(infos))
    if not one_to_one:
        starts = sorted({info.cluster for info in infos})
        ends = dict(zip(starts, [*starts[1:], len(text)], strict=True))
    for index, (info, position) in enumerate(zip(infos, positions, strict=True)):
        x_offset, y_offset, x_advance, _ = position.position
        glyph = info.codepoint
        source = text[index] if one_to_one else text[info.cluster : ends[info.cluster]]
        if len(source) == 1 and cmap.get(ord(source)) == glyph:
            code = ord(source)  # most glyphs: the character's own
        else:
            code, private = shaping.glyph_character(face, glyph, source)
            if private:
                meanings.append((code, source))
        drawn.append(chr(code))
        target = pen + x_offset * scale
        if abs(at - target) > NEGLIGIBLE:
            shifts.append((index, at - target))  # a TJ number moves the next glyph left
        dy = y_offset * scale
        if dy != rise:
            rises.append((index, dy))
            rise = dy
        at = target + widths.get(code, 0.0)
        pen += x_advance * scale
    glyph_count = len(infos)
    if abs(at - pen) > NEGLIGIBLE:
        shifts.append((glyph_count, at - pen))
    if rise:
        rises.append((glyph_count, 0.0))
    text_drawn = "".join(drawn)
    shown = None if rises else _ascii_shown_of(text_drawn, shifts)
    return Glyphs(face, text_drawn, tuple(shifts), tuple(rises), pen, tuple(meanings), shown)


def _one_per_character(
    text: str,
    face: fonts.Face,
    infos: list,
    positions: list,
    scale: float,
    cmap: Mapping[int, int],
    widths: Mapping[int, float],
) -> Glyphs | None:
    """Most words: a glyph per character, in order, on the line; only advances kerned. The
    pen is moved after a glyph by what HarfBuzz's advance differs from the font's; a glyph its
    character does not map to (a contextual form) is drawn with its private code. None for
    any other shaping."""
    codes: list[int] = []
    found: list[tuple[int, str]] = []
    shifts: list[tuple[int, float]] = []
    total = 0.0
    for index, (char, info, position) in enumerate(zip(text, infos, positions, strict=True)):
        x_offset, y_offset, x_advance, _ = position.position
        if info.cluster != index or x_offset or y_offset:
            return None
        glyph = info.codepoint
        code = ord(char)
        if cmap.get(code) != glyph:
            code, private = shaping.glyph_character(face, glyph, char)
            if private:
                found.append((code, char))
        codes.append(code)
        advance = x_advance * scale
        total += advance
        kern = widths[code] - advance
        if kern > NEGLIGIBLE or kern < -NEGLIGIBLE:
            shifts.append((index + 1, kern))
    if found:
        drawn = "".join(map(chr, codes))
        return Glyphs(face, drawn, tuple(shifts), (), total, tuple(found), _ascii_shown_of(drawn, shifts))
    return Glyphs(face, text, tuple(shifts), (), total, (), _ascii_shown_of(text, shifts))


def _ascii_shown_of(drawn: str, shifts: list[tuple[int, float]] | tuple[()]) -> str | None:
    """Glyphs.shown of a word: its operator where its characters are printable ASCII or private
    codes (kept as characters in the operator's strings), else None."""
    ascii_part = drawn if drawn.isascii() else _PRIVATE.sub("", drawn)
    if not (ascii_part.isascii() and ascii_part.isprintable()):
        return None
    return _shown(drawn, list(shifts))


# engine.text.shaping's private codes (planes 15 and 16), which a document gives codes of its own.
_PRIVATE = re.compile("[\U000f0000-\U0010ffff]")


# Amounts and numbers are most of what varies between rows, and new to the caches in each
# document: set from a table of their pairs where the font only kerns them pairwise.
FIGURES = "0123456789.,"


@dataclass(frozen=True, slots=True)
class PairKerning:
    """Characters a face sets, with some features, as the cmap's glyphs kerned pair by pair
    (HarfBuzz checked on every pair and every three of them): what a word of them comes to."""

    characters: frozenset[str]
    kerning: dict[tuple[str, str], float]  # 1/1000 em added to the first of a pair's advance


@lru_cache(maxsize=256)
def pair_kerning(face: fonts.Face, lang: str, features: tuple[tuple[str, object], ...]) -> PairKerning:
    """FIGURES' pair kerning in this face (some 1,900 shapings, once): a character whose pairs
    or threes HarfBuzz sets any other way (a ligature, a contextual form, a mark) is left out."""
    cmap = reportlab_internals.character_map(face.name)
    widths = reportlab_internals.char_widths(face.name)
    found = [c for c in FIGURES if ord(c) in cmap]

    def advances(text: str) -> list[float] | None:
        """HarfBuzz's advances when it sets each character's own glyph on the line, else None."""
        glyphs = shaping.shape.__wrapped__(text, face, False, "Zyyy", lang, features)
        if len(glyphs) != len(text) or any(
            g[0] != cmap[ord(c)] or g[1] != i or g[3] or g[4] for i, (g, c) in enumerate(zip(glyphs, text, strict=True))
        ):
            return None
        return [g[2] for g in glyphs]

    kerning: dict[tuple[str, str], float] = {}
    spoilt: set[str] = {c for c in found if advances(c) != [widths[ord(c)]]}
    for a in found:
        for b in found:
            got = advances(a + b)
            if got is None or abs(got[1] - widths[ord(b)]) > NEGLIGIBLE:
                spoilt |= {a, b}
            elif abs(got[0] - widths[ord(a)]) > NEGLIGIBLE:
                kerning[a, b] = got[0] - widths[ord(a)]
    kept = [c for c in found if c not in spoilt]
    for a in kept:
        for b in kept:
            for c in kept:
                got = advances(a + b + c)
                expected = [widths[ord(a)] + kerning.get((a, b), 0.0), widths[ord(b)] + kerning.get((b, c), 0.0)]
                if got is None or any(abs(x - y) > NEGLIGIBLE for x, y in zip(got, expected, strict=False)):
                    return PairKerning(frozenset(), {})  # a longer context: HarfBuzz sets every word
    return PairKerning(frozenset(kept), kerning)


def _pairwise(text: str, face: fonts.Face, table: PairKerning, widths: Mapping[int, float]) -> Glyphs:
    """A word of a PairKerning's characters, as HarfBuzz would set it."""
    shifts: list[tuple[int, float]] = []
    advance = 0.0
    for index, (a, b) in enumerate(zip(text, text[1:], strict=False)):
        kern = table.kerning.get((a, b))
        if kern is not None:
            shifts.append((index + 1, -kern))
            advance += kern
    advance += sum(widths[ord(c)] for c in text)
    return Glyphs(face, text, tuple(shifts), (), advance, (), _ascii_shown_of(text, shifts))


def pieces(text: str, style: TextStyle) -> Iterator[Glyphs]:
    """The text's glyphs in order: its runs of one face (fonts.runs: a character the style's
    face lacks comes from a fallback, and a space stays in the face of the run it is in),
    each cut into words and the spaces between them, each shaped."""
    features = style.features
    lang = style.lang
    face = style.face
    if face.glyphs.issuperset(map(ord, text)):
        runs: tuple[tuple[str, fonts.Face], ...] = ((text, face),)
    else:
        runs = fonts.runs(text, face, lang)
    for run, run_face in runs:
        if " " not in run:
            yield shaped(run, run_face, lang, features)
            continue
        space = shaped(" ", run_face, lang, features)
        for number, word in enumerate(run.split(" ")):
            if number:
                yield space
            if word:
                yield shaped(word, run_face, lang, features)


@lru_cache(maxsize=65536)
def _width(text: str, style: TextStyle) -> float:
    total = 0.0
    glyph_count = 0
    for piece in pieces(text, style):
        total += piece.advance
        glyph_count += len(piece.drawn)
    return total * style.size / 1000 + style.letter_spacing * glyph_count


def width(text: str, style: TextStyle) -> float:
    """The text's width as drawn: HarfBuzz's advances (kerned, ligated) of its words and
    spaces, plus letterSpacing after every glyph."""
    return _width(text, style)


def line_operators(
    text: str, style: TextStyle, document: reportlab_internals.Document, font_now: str | None, space_extra: float = 0.0
) -> tuple[list[str], str | None]:
    """The operators drawing a line of the simple scripts from the current text position:
    Tf where the subset changes (`font_now`: the one set, as "name size"), a TJ array per
    subset run. `space_extra` points are added to every space (a justified line's, negative
    to shrink). Returns the operators and the subset set at their end."""
    size_text = fp_str(style.size)
    joined = _joined(text, style, space_extra)
    if joined is not None:
        font_name, operator, privates = joined
        subset = reportlab_internals.ascii_subset_name(font_name, document)
        if privates:
            operator = _with_codes(operator, privates, font_name, subset, document)
        if operator is not None:
            wanted = f"/{subset} {size_text}"
            return ([operator] if wanted == font_now else [f"{wanted} Tf", operator]), wanted
    runs = _gathered(text, style, space_extra)
    operators = []
    for run in runs:
        for code, meaning in run.meanings:
            reportlab_internals.glyph_meanings(document, run.face.name).setdefault(code, meaning)
        font = pdfmetrics.getFont(run.face.name)
        start = 0
        for name, codes in reportlab_internals.split_into_subsets(font, "".join(run.drawn), document):
            wanted = f"{name} {size_text}"
            if wanted != font_now:
                operators.append(f"{wanted} Tf")
                font_now = wanted
            if run.rises:
                operators.extend(_risen(codes, start, run, style.size))
            else:
                operators.append(_shown(codes, _among(run.shifts, start, start + len(codes))))
            start += len(codes)
    return operators, font_now


@lru_cache(maxsize=32768)
def _joined(text: str, style: TextStyle, space_extra: float) -> tuple[str, str, tuple[tuple[int, str], ...]] | None:
    """A line of words and spaces in one face, each shown by printable ASCII codes or private
    ones (Glyphs.shown): the face's name, one operator showing them all (a justified line's
    spaces moved by `space_extra` points; their strings merged where nothing moves between
    them) and the private codes in it, with what each stands for. None for any other line."""
    found = list(pieces(text, style))
    face = found[0].face if found else None
    if face is None or any(piece.shown is None or piece.face is not face for piece in found):
        return None
    privates = tuple(dict.fromkeys(meaning for piece in found for meaning in piece.meanings))
    space_shift = fp_str(-space_extra * 1000 / style.size) if space_extra else ""
    bodies = []
    for piece in found:
        shown = piece.shown
        bodies.append(shown[1:-4] if shown.endswith("] TJ") else shown[:-3])  # type: ignore[union-attr]
        if space_shift and piece.drawn == " ":
            bodies.append(space_shift)
    body = " ".join(bodies).replace(") (", "")  # strings side by side are one string
    if not space_shift and all(piece.shown.endswith(") Tj") for piece in found):  # type: ignore[union-attr]
        return face.name, f"{body} Tj", privates
    return face.name, f"[{body}] TJ", privates


def _with_codes(
    operator: str,
    privates: tuple[tuple[int, str], ...],
    font_name: str,
    subset: str,
    document: reportlab_internals.Document,
) -> str | None:
    """A joined line's operator with its private codes given the document's codes for them,
    their meanings told to the document's ToUnicode; None where one falls outside the font's
    first subset (the line is then drawn as any other)."""
    characters = "".join(chr(code) for code, _ in privates)
    split = reportlab_internals.split_into_subsets(pdfmetrics.getFont(font_name), characters, document)
    if any(name != f"/{subset}" for name, _ in split):
        return None
    codes = b"".join(data for _, data in split)
    meanings = reportlab_internals.glyph_meanings(document, font_name)
    for (code, meaning), byte in zip(privates, codes, strict=True):
        meanings.setdefault(code, meaning)
        operator = operator.replace(chr(code), escapePDF(bytes((byte,))))
    return operator


@lru_cache(maxsize=16384)
def _gathered(text: str, style: TextStyle, space_extra: float) -> tuple[_Run, ...]:
    """The line's glyphs in runs of one face, with what moves them (the same in every
    document: only their subsets' codes are the document's). Not to be changed."""
    space_shift = -space_extra * 1000 / style.size if space_extra else 0.0
    runs: list[_Run] = []
    for piece in pieces(text, style):
        if not runs or runs[-1].face is not piece.face:
            runs.append(_Run(piece.face))
        run = runs[-1]
        at = run.count
        run.shifts.extend((at + index, shift) for index, shift in piece.shifts)
        run.rises.extend((at + index, rise) for index, rise in piece.rises)
        if space_shift and piece.drawn == " ":
            run.shifts.append((at + 1, space_shift))
        run.drawn.append(piece.drawn)
        run.count += len(piece.drawn)
        run.meanings.extend(piece.meanings)
    return tuple(runs)


class _Run:
    """A line's glyphs in one face, gathered word by word."""

    __slots__ = ("count", "drawn", "face", "meanings", "rises", "shifts")

    def __init__(self, face: fonts.Face) -> None:
        self.face = face
        self.drawn: list[str] = []
        self.count = 0
        self.shifts: list[tuple[int, float]] = []
        self.rises: list[tuple[int, float]] = []
        self.meanings: list[tuple[int, str]] = []


def _among(shifts: list[tuple[int, float]], start: int, end: int) -> list[tuple[int, float]]:
    """The shifts drawn with glyphs start … end of a run, counted from start: those before its
    glyphs after the first, and after its last (which move the pen to where the next piece
    starts); the one before the first belongs to the piece before, but for the run's first."""
    return [(at - start, shift) for at, shift in shifts if at <= end and (at > start or start == 0)]


# What a PDF string escapes of printable ASCII (ISO 32000-1 7.3.4.2); private codes pass as they are.
_STRING_ESCAPES = str.maketrans({"\\": "\\\\", "(": "\\(", ")": "\\)"})


def _escaped(codes: bytes | str) -> str:
    """Codes as the inside of a PDF string: bytes (a subset's codes) as ReportLab escapes them;
    a str of printable ASCII and private codes (Glyphs.shown) with its \\, ( and ) escaped."""
    if isinstance(codes, bytes):
        return escapePDF(codes)
    return codes.translate(_STRING_ESCAPES)


def _shown(codes: bytes | str, shifts: list[tuple[int, float]]) -> str:
    """A TJ array (or a Tj when nothing moves) of codes, with shifts (_among) among them."""
    if not shifts:
        return f"({_escaped(codes)}) Tj"
    parts: list[str] = []
    cut = 0
    for at, shift in shifts:
        if at > cut:
            parts.append(f"({_escaped(codes[cut:at])})")
            cut = at
        parts.append(fp_str(shift))
    if cut < len(codes):
        parts.append(f"({_escaped(codes[cut:])})")
    return f"[{' '.join(parts)}] TJ"


def _risen(codes: bytes, start: int, run: _Run, size: float) -> list[str]:
    """_shown cut where a glyph rises or falls (a mark), with Ts between the pieces."""
    end = start + len(codes)
    rises = dict(run.rises)
    cuts = sorted({at for at in rises if start < at < end} | {start, end})
    out: list[str] = []
    for begin, finish in zip(cuts, cuts[1:], strict=False):
        if begin in rises and (begin > start or start == 0):
            out.append(f"{fp_str(rises[begin] * size / 1000)} Ts")
        out.append(_shown(codes[begin - start : finish - start], _among(run.shifts, begin, finish)))
    if end in rises:
        out.append(f"{fp_str(rises[end] * size / 1000)} Ts")
    return out
