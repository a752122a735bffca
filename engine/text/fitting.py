"""Fitting text into a box (extensions.md 2): shrinking the size, and limiting the lines.

`fit_text` takes a text block's typesetting (a function laying it out at a given style,
engine.text.typeset underneath) and the limits of its box, and returns the block at the size
it is drawn at, with its lines cut to the limit when the overflow rule says so.

Shrinking searches the sizes rather than stepping through them: the candidates are
fontSize, fontSize − 0.5, … down to minFontSize, and a smaller size never needs more
lines, so a binary search over that grid finds the largest size that fits in
1 + ⌈log2(steps)⌉ layouts instead of one per step.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from . import richtext, shaping, typeset
from . import style as text_style

SIZE_STEP = 0.5  # points between the sizes shrink tries (extensions.md 2)
ELLIPSIS = "\u2026"
Overflow = Literal["visible", "ellipsis", "clip", "flow"]

# (marker, lines) per list item, or one block for a plain text (engine.elements.text).
Blocks = tuple[tuple[str, tuple[typeset.Line, ...]], ...]
# style -> (marker indent, widest line, blocks): the text's own typesetting at that style.
Typeset = Callable[[text_style.TextStyle], tuple[float, float, Blocks]]


@dataclass(frozen=True)
class Limits:
    """What a text must fit in: None where the box sets no limit."""

    max_width: float | None
    max_height: float | None
    max_lines: int | None

    def line_limit(self, leading: float) -> int | None:
        """How many lines fit: maxLines, and the lines of `leading` that fit maxHeight (at least one,
        so a text is never wholly cut away)."""
        limit = self.max_lines
        if self.max_height is not None:
            by_height = max(1, math.floor(self.max_height / leading + 1e-6))
            limit = by_height if limit is None else min(limit, by_height)
        return limit


@dataclass(frozen=True)
class FittedText:
    style: text_style.TextStyle  # the style the text is drawn with: its size is the fitted size
    indent: float
    widest: float
    blocks: Blocks
    layouts: int  # how many sizes were laid out to find the size (bounded: see the module's docstring)
    cut: bool  # lines past the limit were dropped (ellipsis or clip)


def candidate_sizes(font_size: float, min_size: float) -> list[float]:
    """fontSize, then 0.5 pt steps down, ending at minFontSize when it is off the grid."""
    steps = max(0, math.floor((font_size - min_size) / SIZE_STEP + 1e-9))
    sizes = [font_size - k * SIZE_STEP for k in range(steps + 1)]
    if sizes[-1] > min_size + 1e-9:
        sizes.append(min_size)
    return sizes


def fit_text(
    items: tuple[str, ...],
    lay_out: Typeset,
    style: text_style.TextStyle,
    limits: Limits,
    shrink: bool,
    min_size: float,
    overflow: Overflow,
) -> FittedText:
    """The text laid out at the largest candidate size that fits (the given size without
    shrink), its lines cut to the limit for ellipsis and clip."""
    tried: set[float] = set()

    def at(size: float) -> tuple[text_style.TextStyle, tuple[float, float, Blocks]]:
        tried.add(size)
        sized = replace(style, size=size)
        return sized, lay_out(sized)

    def fits(size: float) -> bool:
        sized, (indent, _, blocks) = at(size)
        limit = limits.line_limit(sized.leading)
        if limit is not None and sum(len(lines) for _, lines in blocks) > limit:
            return False
        return limits.max_width is None or _words_fit(items, sized, limits.max_width - indent)

    size = style.size
    if shrink:
        sizes = candidate_sizes(style.size, min(min_size, style.size))
        if not fits(sizes[0]):
            # The first index whose size fits, in [1, len]; len means none does (then the smallest).
            low, high = 1, len(sizes)
            while low < high:
                middle = (low + high) // 2
                if fits(sizes[middle]):
                    high = middle
                else:
                    low = middle + 1
            size = sizes[min(low, len(sizes) - 1)]
        else:
            size = sizes[0]
    sized, (indent, widest, blocks) = at(size)
    limit = limits.line_limit(sized.leading)
    cut = overflow in ("ellipsis", "clip") and limit is not None and sum(len(lines) for _, lines in blocks) > limit
    if cut:
        assert limit is not None
        width = None if limits.max_width is None else limits.max_width - indent
        blocks = _cut(blocks, limit, sized, width if overflow == "ellipsis" else None, overflow == "ellipsis")
        widest = max((line.width for _, lines in blocks for line in lines), default=0.0)
    return FittedText(sized, indent, widest, blocks, len(tried), cut)


def _words_fit(items: tuple[str, ...], style: text_style.TextStyle, width: float) -> bool:
    """No word is wider than the box: otherwise wrapping breaks it between characters."""
    for item in items:
        for word in set(_unbreakable(item.replace("\n", " ").replace("\t", " "), style)):
            if word and typeset.width_of(word, style) > width + 0.01:
                return False
    return True


def _unbreakable(text: str, style: text_style.TextStyle) -> list[str]:
    """The pieces wrapping never breaks: words between spaces on the fast path; outside it,
    the text between Unicode line-break opportunities (UAX #14: each ideograph of Chinese)."""
    if style.direction != "rtl" and not shaping.needs_shaping(text):
        return text.split(" ")
    return [unit.rstrip(" ") for unit in shaping.break_units(text)]


def _cut(blocks: Blocks, limit: int, style: text_style.TextStyle, width: float | None, ellipsis: bool) -> Blocks:
    """The first `limit` lines; with ellipsis the last one kept ends in "…" within the width."""
    kept: list[tuple[str, tuple[typeset.Line, ...]]] = []
    room = limit
    for marker, lines in blocks:
        if room <= 0:
            break
        kept.append((marker, lines[:room]))
        room -= len(lines[:room])
    if ellipsis and kept:
        marker, lines = kept[-1]
        if isinstance(lines, richtext.RichBlock):  # markup (extensions.md 3): pieces in their own styles
            kept[-1] = (marker, lines.with_last(richtext.ellipsised(lines[-1], ELLIPSIS, style, width)))
        else:
            kept[-1] = (marker, (*lines[:-1], _ellipsised(lines[-1], style, width)))
    return tuple(kept)


def _ellipsised(line: typeset.Line, style: text_style.TextStyle, width: float | None) -> typeset.Line:
    """The line with "…" at its end, characters dropped from its end until it fits the width."""
    text = line.text.rstrip()
    while True:
        shown = text + ELLIPSIS
        # A right-to-left line keeps its direction: the mark goes at its logical end (its left).
        shown_width = shaping.line_width(shown, style, True) if line.rtl else typeset.width_of(shown, style)
        if width is None or shown_width <= width + 0.01 or not text:
            # The last kept line now ends a paragraph: it is never justified.
            return typeset.Line(shown, shown_width, True, line.rtl)
        # Whole grapheme clusters go (a consonant keeps its vowel sign); the fast path drops characters.
        cut = len(shaping.clusters(text)[-1]) if shaping.needs_shaping(text) else 1
        text = text[:-cut].rstrip()


# Flowing text (overflow "flow"): its lines split across sheets.

KEEP_LINES = 2  # a paragraph of 4+ lines leaves at least 2 at a sheet's foot and carries at least 2
KEEP_FROM = 4


@dataclass(frozen=True)
class TextPart:
    """Lines [start, end) of a flowing text drawn on one sheet (counting every line of the text)."""

    start: int
    end: int
    height: float


def split_lines(ends_paragraph: list[bool], leading: float, first_room: float, page_room: float) -> list[TextPart]:
    """Parts of lines fitting first_room, then page_room each (extensions.md 2).

    Lines are never split; a break inside a paragraph of KEEP_FROM or more lines keeps
    KEEP_LINES of it on each side (no widow, no orphan). An empty first part means the
    text starts on the next sheet. A sheet too short for the rule takes what it holds.
    """
    count = len(ends_paragraph)
    # The first line of each line's paragraph, and the paragraph's length.
    paragraph_start: list[int] = []
    lengths: list[int] = []
    first = 0
    for index, ends in enumerate(ends_paragraph):
        paragraph_start.append(first)
        if ends or index == count - 1:
            lengths.extend([index + 1 - first] * (index + 1 - first))
            first = index + 1
    parts: list[TextPart] = []
    start, room = 0, first_room
    while start < count:
        holds = max(0, math.floor((room + 0.01) / leading))
        end = min(count, start + holds)
        if end < count:
            end = _kept_together(end, paragraph_start, lengths)
        if end <= start:
            if room < page_room - 0.01:  # not a whole sheet: start on the next one
                parts.append(TextPart(start, start, 0.0))
                room = page_room
                continue
            end = min(count, start + max(1, holds))  # a sheet shorter than the rule asks
        parts.append(TextPart(start, end, (end - start) * leading))
        start, room = end, page_room
    return parts


def _kept_together(end: int, paragraph_start: list[int], lengths: list[int]) -> int:
    """The break before line `end`, moved up so a long paragraph keeps 2 lines on each side."""
    first = paragraph_start[end]
    length = lengths[end]
    if first == end or length < KEEP_FROM:
        return end  # between paragraphs, or a short paragraph: any break will do
    before = end - first
    after = length - before
    if before < KEEP_LINES:
        return first  # the paragraph moves whole to the next sheet
    if after < KEEP_LINES:
        return end - (KEEP_LINES - after)
    return end
