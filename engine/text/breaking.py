"""Paragraphs broken into lines by total fit (Knuth and Plass, "Breaking paragraphs into
lines", 1981), with hyphenation by the language's patterns (extensions.md 17).

A line-by-line breaker fills each line as full as it can and leaves the next one whatever
is left: a justified paragraph gets a line of huge spaces wherever a long word falls. Total
fit chooses every break of the paragraph together, so that the spaces of all its lines
stray as little as they can from their natural width: each possible line has a badness
(100 r³, r how far its spaces stretch or shrink, as a share of what they may), and the
breaks with the least sum of demerits over the paragraph win. Justified text has spaces
that stretch by half and shrink by a third of their width (TeX's proportions); ragged text
(left, right, centre) has fixed spaces and a stretch of three ems at the end of each line,
which evens the lines' lengths out.

The paragraph comes as words, each cut where it may break (at a soft hyphen, at the
language's hyphenation points, after a hard hyphen): the breaker sees boxes (a word's
pieces), glue (the spaces) and penalties (the breaks inside words, which cost more and
cost most twice in a row). Passes as TeX makes them: first without hyphenating, then with,
then with any stretch; None when no breaks fit at all (a piece wider than the line), for
the caller's line-by-line breaking.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import pyphen

# The costs TeX gives them (The TeXbook, ch. 14): a line, a hyphenated break, two hyphenated
# lines in a row, and lines whose spacing differs by more than one class (tight, decent,
# loose, very loose) one after the other.
LINE_PENALTY = 10.0
HYPHEN_PENALTY = 50.0
DOUBLE_HYPHEN_DEMERITS = 3000.0
FITNESS_DEMERITS = 100.0
# How far spaces may stretch (r, a share of their stretch) in each pass: TeX's pretolerance
# (badness 100) without hyphenating, tolerance (some 800) with, then any.
PASSES = ((1.0, False), (2.0, True), (float("inf"), True))
# Justified spaces stretch by a half and shrink by a third of their width; ragged lines have a
# stretch of three ems at their end.
STRETCH = 1 / 2
SHRINK = 1 / 3
RAGGED_STRETCH_EMS = 3.0
# Total fit costs time in the number of words times the words a line holds (the breaks a line
# may start from); paragraphs past this much of it are broken line by line (a 100,000-character
# paragraph is allowed, in a box of any width at any size): some 0.1 s of breaking at most.
MOST_WORK = 60_000
# Pyphen's margins: at least two letters before a hyphen and three after it (TeX's for English).
LEFT_MIN = 2
RIGHT_MIN = 3
SHORTEST_HYPHENATED = 5


@dataclass(frozen=True, slots=True)
class Word:
    """A word's pieces between the places it may break; `hyphenated[i]`: breaking after piece
    i adds a hyphen (not after a hard hyphen). Widths in points, the pieces' summing to the
    word's."""

    pieces: tuple[str, ...]
    widths: tuple[float, ...]
    hyphenated: tuple[bool, ...]  # one per piece but the last


@dataclass(frozen=True, slots=True)
class BrokenLine:
    text: str
    natural: float  # its width with natural spaces, a hyphen included
    hyphen: bool  # it ends in a hyphen added where its last word broke


@lru_cache(maxsize=64)
def hyphenator(lang: str) -> pyphen.Pyphen | None:
    """The hyphenation patterns for a BCP 47 tag (the Hunspell patterns of LibreOffice that
    pyphen ships, 80-odd languages); English for none; None for a language without patterns."""
    tag = (lang or "en").replace("-", "_")
    if tag.lower() == "en":
        tag = "en_US"  # Liang's patterns for American English, as TeX and Typst default to
    found = pyphen.language_fallback(tag)
    if found is None and "_" not in tag:
        found = pyphen.language_fallback(f"{tag}_{tag.upper()}")
    return pyphen.Pyphen(lang=found, left=LEFT_MIN, right=RIGHT_MIN) if found else None


@lru_cache(maxsize=16384)
def hyphenation_points(word: str, lang: str) -> tuple[int, ...]:
    """Where the language's patterns let a word break (indexes into it). Only words of
    letters are hyphenated, with any punctuation around them left whole."""
    start = 0
    while start < len(word) and not word[start].isalpha():
        start += 1
    end = len(word)
    while end > start and not word[end - 1].isalpha():
        end -= 1
    letters = word[start:end]
    if len(letters) < SHORTEST_HYPHENATED or not letters.isalpha():
        return ()
    patterns = hyphenator(lang)
    if patterns is None:
        return ()
    return tuple(start + at for at in patterns.positions(letters))


def break_paragraph(
    words: Sequence[Word], space: float, hyphen: float, max_width: float, justified: bool, size: float
) -> list[BrokenLine] | None:
    """The paragraph's lines by total fit, or None where no set of breaks fits."""
    if too_much(len(words), sum(sum(word.widths) for word in words) + space * len(words), max_width):
        return None
    items = _items(words, [space] * (len(words) - 1), hyphen, justified)
    breaks = _breaks(items, max_width, justified, size)
    return None if breaks is None else _lines(items, breaks)


def break_words(
    widths: Sequence[float], gaps: Sequence[float], max_width: float, justified: bool, size: float
) -> list[int] | None:
    """Lines of whole words by total fit (rich text: words of styled pieces, each gap its own
    width, a zero one between ideographs): the index of each line's first word, or None."""
    if too_much(len(widths), sum(widths) + sum(gaps), max_width):
        return None
    words = [Word(("",), (width,), ()) for width in widths]
    items = _items(words, gaps, 0.0, justified)
    breaks = _breaks(items, max_width, justified, size)
    if breaks is None:
        return None
    # Item 0 is the first word's box, then a gap's glue and a word's box by turns.
    return [0, *((end + 1) // 2 for end in breaks[:-1])]


def too_much(count: int, total_width: float, max_width: float) -> bool:
    """Whether breaking `count` words `total_width` long into lines `max_width` wide costs
    more than MOST_WORK (words times the words a line holds)."""
    per_line = max_width / (total_width / count) if total_width > 0 else count
    return count * max(per_line, 1.0) > MOST_WORK


def _breaks(items: list[tuple], max_width: float, justified: bool, size: float) -> list[int] | None:
    ragged = 0.0 if justified else RAGGED_STRETCH_EMS * size
    for tolerance, hyphenate in PASSES:
        breaks = _best_breaks(items, max_width, tolerance, ragged, allow_hyphens=hyphenate)
        if breaks is not None:
            return breaks
    return None


# Items: (kind, width, stretch, shrink, penalty, flagged, text).
BOX, GLUE, PENALTY = 0, 1, 2
FORCED = -1e9
NEVER = 1e9
INFINITE = float("inf")


def _items(words: Sequence[Word], spaces: Sequence[float], hyphen: float, justified: bool) -> list[tuple]:
    share = (STRETCH, SHRINK) if justified else (0.0, 0.0)
    items: list[tuple] = []
    for number, word in enumerate(words):
        if number:
            space = spaces[number - 1]
            items.append((GLUE, space, space * share[0], space * share[1], 0.0, False, " "))
        last = len(word.pieces) - 1
        for index, (piece, width) in enumerate(zip(word.pieces, word.widths, strict=True)):
            items.append((BOX, width, 0.0, 0.0, 0.0, False, piece))
            if index < last:
                added = word.hyphenated[index]
                items.append((PENALTY, hyphen if added else 0.0, 0.0, 0.0, HYPHEN_PENALTY, True, "-" if added else ""))
    # The last line is set at its natural width: an infinite stretch, then a forced break.
    items.append((GLUE, 0.0, NEVER, 0.0, 0.0, False, ""))
    items.append((PENALTY, 0.0, 0.0, 0.0, FORCED, False, ""))
    return items


@dataclass(slots=True)
class _Node:
    position: int  # the item broken at
    line: int  # lines before and up to it
    fitness: int
    width: float  # the totals after the break, the discarded glue skipped
    stretch: float
    shrink: float
    demerits: float
    previous: _Node | None


def _best_breaks(
    items: list[tuple], line_width: float, tolerance: float, ragged: float, allow_hyphens: bool
) -> list[int] | None:
    """The items to break at (the last is the paragraph's end), least demerits first."""
    active = [_Node(-1, 0, 1, 0.0, 0.0, 0.0, 0.0, None)]
    width = stretch = shrink = 0.0  # the sums of items before the one looked at
    for index, item in enumerate(items):
        kind = item[0]
        if kind == BOX:
            width += item[1]
            continue
        breakable = (kind == GLUE and index > 0 and items[index - 1][0] == BOX) or (
            kind == PENALTY and (allow_hyphens or item[4] <= FORCED)
        )
        if breakable:
            active = _try_break(items, index, active, width, stretch, shrink, line_width, tolerance, ragged)
            if not active:
                return None
        if kind == GLUE:
            width += item[1]
            stretch += item[2]
            shrink += item[3]
    best = min(active, key=lambda node: node.demerits, default=None)
    if best is None or best.position != len(items) - 1:
        return None
    breaks: list[int] = []
    node: _Node | None = best
    while node is not None and node.position >= 0:
        breaks.append(node.position)
        node = node.previous
    return breaks[::-1]


def _try_break(
    items: list[tuple],
    index: int,
    active: list[_Node],
    width: float,
    stretch: float,
    shrink: float,
    line_width: float,
    tolerance: float,
    ragged: float,
) -> list[_Node]:
    """The active breaks after considering a break at `index`: those a line could still
    start from, and the best new one per fitness class."""
    item = items[index]
    is_penalty = item[0] == PENALTY
    penalty = item[4] if is_penalty else 0.0
    forced = penalty <= FORCED
    flagged = is_penalty and item[5]
    extra = item[1] if is_penalty else 0.0  # a hyphen's width
    kept: list[_Node] = []
    best: dict[int, tuple[float, _Node]] = {}  # per fitness class: the least demerits, and from where
    for node in active:
        natural = width - node.width + extra
        if natural < line_width:
            room = stretch - node.stretch + ragged
            ratio = (line_width - natural) / room if room > 0 else INFINITE
        elif natural > line_width:
            room = shrink - node.shrink
            ratio = (line_width - natural) / room if room > 0 else -INFINITE
        else:
            ratio = 0.0
        if ratio >= -1 and not forced:
            kept.append(node)  # later breaks may still end a line from it
        if ratio < -1 or ratio > tolerance:
            continue
        # Capped as TeX caps it, but in the last pass, where every line may be loose and the
        # looser of two must still cost more.
        badness = 100 * abs(ratio) ** 3 if ratio != INFINITE else 1e8
        if tolerance != INFINITE:
            badness = min(badness, 10000.0)
        demerits = (LINE_PENALTY + badness) ** 2
        if penalty > 0:
            demerits += penalty**2
        elif not forced:
            demerits -= penalty**2
        if flagged and node.position >= 0 and items[node.position][0] == PENALTY and items[node.position][5]:
            demerits += DOUBLE_HYPHEN_DEMERITS
        fitness = 0 if ratio < -0.5 else 1 if ratio <= 0.5 else 2 if ratio <= 1 else 3
        if abs(fitness - node.fitness) > 1:
            demerits += FITNESS_DEMERITS
        total = node.demerits + demerits
        if fitness not in best or total < best[fitness][0]:
            best[fitness] = (total, node)
    if best:
        after = _after(items, index, width, stretch, shrink)
        for fitness, (total, node) in best.items():
            kept.append(_Node(index, node.line + 1, fitness, *after, total, node))
    return kept


def _after(items: list[tuple], index: int, width: float, stretch: float, shrink: float) -> tuple[float, float, float]:
    """The totals at the start of the line after a break at `index`: the glue after a break
    up to the next box is dropped (the space a line broke at is not drawn)."""
    for at in range(index, len(items)):
        item = items[at]
        kind = item[0]
        if kind == BOX or (kind == PENALTY and item[4] <= FORCED and at > index):
            break
        if kind == GLUE:
            width += item[1]
            stretch += item[2]
            shrink += item[3]
    return width, stretch, shrink


def _lines(items: list[tuple], breaks: list[int]) -> list[BrokenLine]:
    lines: list[BrokenLine] = []
    start = 0
    for end in breaks:
        while start < end and items[start][0] != BOX:
            start += 1  # the glue and penalties a line starts with are dropped
        text: list[str] = []
        natural = 0.0
        for item in items[start:end]:
            if item[0] == PENALTY:
                continue
            text.append(item[6])
            natural += item[1]
        hyphen = items[end][0] == PENALTY and items[end][6] == "-"
        if hyphen:
            text.append("-")
            natural += items[end][1]
        lines.append(BrokenLine("".join(text).rstrip(" "), natural, hyphen))
        start = end + 1
    return lines
