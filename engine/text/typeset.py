"""Line breaking and drawing of text with real font metrics.

Shared by the text element and table cells so both measure exactly as they draw.
Coordinates here are page coordinates: origin at the top-left, y growing down.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache

from reportlab.lib.rl_accel import fp_str
from reportlab.pdfgen.canvas import Canvas

from ..design.colors import is_opaque, to_rl
from ..pdf import reportlab_internals
from . import breaking, shaping, words
from .style import Align, TextStyle

SOFT_HYPHEN = "\u00ad"


@dataclass(frozen=True)
class Line:
    text: str
    width: float
    ends_paragraph: bool  # the last line of a paragraph is never justified
    rtl: bool = False  # the line's paragraph runs right to left (extensions.md 6)

    @cached_property
    def shaped(self) -> bool:
        """Drawn by engine.text.shaping (bidi, HarfBuzz) rather than the fast path (asked of
        each line each time a table is drawn: kept)."""
        return (self.rtl and not shaping.reads_alike_both_ways(self.text)) or shaping.needs_shaping(self.text)


def width_of(text: str, style: TextStyle) -> float:
    """The text's width as drawn: shaped by HarfBuzz (kerned, ligated), the simple scripts
    word by word with their spaces between (engine.text.words)."""
    if shaping.needs_shaping(text):
        return shaping.width(text, style)  # shaped advances: a box measures as it draws
    return words.width(text, style)


def wrap(text: str, style: TextStyle, max_width: float | None) -> list[Line]:
    """Break text into lines no wider than max_width (None: only at newlines)."""
    return list(_wrap_cached(text, style, max_width))


class LineBreaker:
    """wrap for the texts of one style, remembered by text: a table asks it for each cell's
    lines without hashing the style (twelve fields) for every cell as wrap's cache must, and
    a new text that fits on one line costs a width per new word."""

    # Bounded per style; styles are bounded by breaker_for's cache.
    REMEMBERED = 2048

    def __init__(self, style: TextStyle) -> None:
        self.style = style
        self._known: dict[tuple[str, float | None], tuple[Line, ...]] = {}
        self._widths: dict[str, float] = {}

    def lines(self, text: str, max_width: float | None) -> tuple[Line, ...]:
        """wrap's lines as a tuple, shared (not to be changed)."""
        key = (text, max_width)
        lines = self._known.get(key)
        if lines is None:
            if len(self._known) >= self.REMEMBERED:
                self._known.clear()
                self._widths.clear()
            lines = self._one_line(text, max_width) or _wrap_cached.__wrapped__(text, self.style, max_width)
            self._known[key] = lines
        return lines

    def _width(self, word: str) -> float:
        width = self._widths.get(word)
        if width is None:
            width = self._widths[word] = width_of(word, self.style)
        return width

    def _one_line(self, text: str, max_width: float | None) -> tuple[Line] | None:
        """The line _wrap_paragraph makes of a paragraph that fits whole: its words' widths
        and spaces summed in its order (the sum only grows, so the last sum fitting means
        every one did). None for anything else, which wrap itself breaks."""
        if (
            max_width is None
            or self.style.direction == "rtl"
            or "\n" in text
            or "\r" in text
            or "\t" in text
            or SOFT_HYPHEN in text
            or shaping.needs_shaping(text)
        ):
            return None
        words = text.split(" ")
        width = self._width(words[0])
        if len(words) > 1:
            space = self._width(" ")
            for word in words[1:]:
                width = width + space + self._width(word)
        if width > max_width:
            return None
        return (Line(text, width, True),)


@lru_cache(maxsize=32)
def breaker_for(style: TextStyle) -> LineBreaker:
    return LineBreaker(style)


@lru_cache(maxsize=8192)
def _wrap_cached(text: str, style: TextStyle, max_width: float | None) -> tuple[Line, ...]:
    lines: list[Line] = []
    # No font has glyphs for carriage returns or tabs: normalise them before measuring.
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
    for paragraph in text.split("\n"):
        rtl_alike = style.direction == "rtl" and shaping.reads_alike_both_ways(paragraph)
        if (style.direction == "rtl" and not rtl_alike) or shaping.needs_shaping(paragraph):
            # A soft hyphen is invisible unless a line breaks there; shaped text breaks by UAX #14.
            lines.extend(_wrap_shaped(paragraph.replace(SOFT_HYPHEN, ""), style, max_width))
            continue
        if max_width is None:
            shown = paragraph.replace(SOFT_HYPHEN, "")
            lines.append(Line(shown, width_of(shown, style), True, rtl_alike))
            continue
        lines.extend(_wrap_paragraph(paragraph, style, max_width, rtl_alike))
    return tuple(lines)


def _wrap_paragraph(paragraph: str, style: TextStyle, max_width: float, rtl: bool = False) -> list[Line]:
    """A paragraph of the simple scripts broken by total fit (engine.text.breaking), at spaces,
    soft hyphens, hard hyphens and, under hyphens: auto, the language's hyphenation points;
    line by line (_wrap_greedily) where total fit would take more lines, or cannot fit a word."""
    greedy = _wrap_greedily(paragraph.replace(SOFT_HYPHEN, ""), style, max_width, rtl)
    if len(greedy) < 2:
        return greedy
    parts = paragraph.split(" ")
    if breaking.too_much(len(parts), sum(line.width for line in greedy), max_width):
        return greedy  # before hyphenating every word of a paragraph too long to set as a whole
    found = [_breakable_word(word, style) for word in parts]
    if any(sum(word.widths) > max_width for word in found):
        return greedy  # a word wider than the box: broken between characters, line by line
    justified = style.align == "justify"
    broken = breaking.break_paragraph(
        found, width_of(" ", style), width_of("-", style), max_width, justified, style.size
    )
    if broken is None or len(broken) > len(greedy):
        return greedy
    lines: list[Line] = []
    for number, line in enumerate(broken):
        last = number == len(broken) - 1
        width = width_of(line.text, style)
        if justified and not last and " " in line.text:
            width = max_width  # its spaces stretch or shrink to the box
        lines.append(Line(line.text, width, last, rtl))
    return lines


def _breakable_word(word: str, style: TextStyle) -> breaking.Word:
    """A word cut where it may break: at its soft hyphens (unless hyphens: none), after a hard
    hyphen between letters, and at the language's hyphenation points (hyphens: auto)."""
    mode = style.hyphenation
    cuts: dict[int, bool] = {}  # where, and whether a hyphen is added there
    text = word
    if SOFT_HYPHEN in word:
        text = word.replace(SOFT_HYPHEN, "")
        if mode != "none":
            at = 0
            for piece in word.split(SOFT_HYPHEN)[:-1]:
                at += len(piece)
                if 0 < at < len(text):
                    cuts[at] = True
    for at in range(1, len(text) - 1):
        if text[at - 1] == "-" and text[at].isalpha() and text[at - 2 : at - 1].isalpha():
            cuts[at] = False
    if mode == "auto" and not cuts:
        for at in breaking.hyphenation_points(text, style.lang):
            cuts[at] = True
    if not cuts:
        return breaking.Word((text,), (width_of(text, style),), ())
    ends = [*sorted(cuts), len(text)]
    prefix_widths = [width_of(text[:end], style) for end in ends]
    starts = [0, *ends[:-1]]
    pieces = tuple(text[a:b] for a, b in zip(starts, ends, strict=True))
    widths = tuple(b - a for a, b in zip([0.0, *prefix_widths[:-1]], prefix_widths, strict=True))
    return breaking.Word(pieces, widths, tuple(cuts[end] for end in ends[:-1]))


def _wrap_greedily(paragraph: str, style: TextStyle, max_width: float, rtl: bool = False) -> list[Line]:
    space = width_of(" ", style)
    lines: list[Line] = []
    current: list[str] = []
    current_width = 0.0
    for word in paragraph.split(" "):
        word_width = width_of(word, style)
        added = word_width if not current else current_width + space + word_width
        if current and added > max_width:
            lines.append(Line(" ".join(current), current_width, False, rtl))
            current, current_width = [], 0.0
            added = word_width
        if not current and word_width > max_width:
            # A word wider than the box is broken between characters, as browsers do
            # with overflow-wrap: anywhere, so nothing spills out of its box.
            pieces = _break_word(word, style, max_width)
            lines.extend(Line(p, width_of(p, style), False, rtl) for p in pieces[:-1])
            word = pieces[-1]
            added = width_of(word, style)
        current.append(word)
        current_width = added
    lines.append(Line(" ".join(current), current_width, True, rtl))
    return lines


# Lines are filled piece by piece (units, clusters, characters), and a shaped line is measured
# whole (kerning and joining cross the pieces). Measuring the line after each piece cost a
# shaping per piece: tens of seconds for a 100,000-character Chinese paragraph, and quadratic
# in a line of thousands of pieces (a tiny size in a wide box). The end of a line is searched
# instead, from a guess: about two measurements a line (issue 31, item 3). A line made longer
# by a piece is never narrower (advances are positive; only a letterSpacing below minus a
# glyph's advance breaks that), so the end found is the one filling piece by piece found;
# where a piece does narrow a line, the end found is still one whose line fits.


def first_overflow(done: int, count: int, overflows: Callable[[int], bool], guess: int | None = None) -> int | None:
    """The smallest `end` in (done, count] with overflows(end), else None; overflows stays
    true once true. Searched from `guess` in doubling steps, then by halving (issue 31)."""
    if count <= done:
        return None
    probe = min(max(guess if guess is not None else done + 1, done + 1), count)
    step = 1
    if overflows(probe):
        bad = probe
        while True:  # down to an end that fits (or `done`)
            probe = max(bad - step, done)
            if probe == done or not overflows(probe):
                fits = probe
                break
            bad, step = probe, step * 2
    else:
        fits = probe
        while True:  # up to an end that overflows
            if fits == count:
                return None
            probe = min(fits + step, count)
            if overflows(probe):
                bad = probe
                break
            fits, step = probe, step * 2
    while bad - fits > 1:
        middle = (fits + bad) // 2
        if overflows(middle):
            bad = middle
        else:
            fits = middle
    return bad


def _wrap_shaped(paragraph: str, style: TextStyle, max_width: float | None) -> list[Line]:
    """A paragraph that needs bidi or shaping: lines broken at Unicode line-break opportunities
    (UAX #14: after spaces, between ideographs…), each measured as drawn (shaped, whole)."""
    rtl = shaping.is_rtl(paragraph, style.direction)

    def measured(text: str, ends: bool) -> Line:
        return Line(text, shaping.line_width(text, style, rtl), ends, rtl)

    def too_wide(text: str) -> bool:
        return shaping.line_width(text.rstrip(" "), style, rtl) > max_width  # type: ignore[operator]

    if max_width is None:
        return [measured(paragraph, True)]
    whole = measured(paragraph.rstrip(" "), True)
    if whole.width <= max_width:
        return [whole]  # it fits: no break opportunities to look for (UAX #14 is the slow part)
    lines: list[Line] = []
    units = shaping.break_units(paragraph)
    offsets = list(itertools.accumulate((len(unit) for unit in units), initial=0))  # characters before each
    # Where a line ends is guessed from the characters the box holds at the width of a character
    # of the line before (of the whole paragraph for the first): right for most lines of Chinese.
    per_character = whole.width / max(len(whole.text), 1)
    current = ""
    index = 0
    while index < len(units):
        if current:
            # The units joining the line: up to the first whose addition makes it too wide.
            held = max_width / per_character if per_character > 0 else len(paragraph)
            guess = bisect.bisect_right(offsets, offsets[index] - len(current) + held)
            end = _joining_end(units, index, current, too_wide, guess)
            if end is None:
                current += "".join(units[index:])
                break
            current += "".join(units[index : end - 1])
            lines.append(measured(current.rstrip(" "), False))
            if lines[-1].text:
                per_character = lines[-1].width / len(lines[-1].text)
            current, index = "", end - 1
            continue
        unit = units[index]
        index += 1
        if too_wide(unit):
            # Wider than the box: broken between grapheme clusters, never inside one.
            clusters = shaping.clusters(unit)
            start = 0
            next_end: int | None = None  # guessed: the next line as long as the one before
            while (end := _cluster_line_end(clusters, start, too_wide, next_end)) is not None:
                lines.append(measured("".join(clusters[start : end - 1]).rstrip(" "), False))
                next_end = end + (end - 1 - start)
                start = end - 1
            unit = "".join(clusters[start:])
        current = unit
    lines.append(measured(current.rstrip(" "), True))
    return lines


def _joining_end(
    units: tuple[str, ...], first: int, line: str, too_wide: Callable[[str], bool], guess: int
) -> int | None:
    """first_overflow of the units from `first` added to `line`."""
    return first_overflow(first, len(units), lambda end: too_wide(line + "".join(units[first:end])), guess)


def _cluster_line_end(
    clusters: tuple[str, ...], first: int, too_wide: Callable[[str], bool], guess: int | None
) -> int | None:
    """first_overflow of the clusters from `first` filling a line (a blank one never overflows)."""

    def overflows(end: int) -> bool:
        piece = "".join(clusters[first : end - 1])
        return bool(piece.strip(" ")) and too_wide(piece + clusters[end - 1])

    return first_overflow(first, len(clusters), overflows, guess)


def _break_word(word: str, style: TextStyle, max_width: float) -> list[str]:
    pieces: list[str] = []
    start = 0
    guess: int | None = None
    while (end := _word_piece_end(word, start, style, max_width, guess)) is not None:
        pieces.append(word[start : end - 1])
        guess = end + (end - 1 - start)  # the next piece as long as this one
        start = end - 1
    pieces.append(word[start:])
    return pieces


def _word_piece_end(word: str, first: int, style: TextStyle, max_width: float, guess: int | None) -> int | None:
    """first_overflow of the characters from `first` (a piece holds at least one)."""
    return first_overflow(
        first, len(word), lambda end: end - first > 1 and width_of(word[first:end], style) > max_width, guess
    )


def baseline_offset(style: TextStyle) -> float:
    """Distance from a line's top to its baseline: half the leading above the glyph box."""
    face = style.face
    glyph_height = (face.ascent - face.descent) * style.size / 1000
    return (style.leading - glyph_height) / 2 + face.ascent * style.size / 1000


def draw_lines(
    canvas: Canvas,
    lines: list[Line] | tuple[Line, ...],
    style: TextStyle,
    left: float,
    top: float,
    box_width: float,
    page_height: float,
    *,
    direct: bool,
) -> None:
    """Draw lines inside a box whose top-left corner is (left, top) on the page; `direct`
    (RenderOptions.direct_text): plain lines as one text object of TextWriter's."""
    canvas.setFillColor(to_rl(style.color))
    if writes_directly(canvas, direct) and is_plain(lines, style):
        writer = TextWriter(canvas)
        writer.add(lines, style, left, top, box_width, page_height)
        if writer.has_text:
            canvas.addLiteral(writer.code())
        return
    baseline = top + baseline_offset(style)
    for line in lines:
        y = page_height - baseline
        if line.shaped:
            _draw_shaped(canvas, line, style, left, y, box_width)
        elif _justified(style, line):
            _draw_plain(canvas, line.text, style, left, y, justified_extra(line.text, style, box_width))
        else:
            x = left + align_offset(style.align, box_width - line.width, line.rtl)
            _draw_plain(canvas, line.text, style, x, y)
        if style.underline and line.text:
            _underline(canvas, style, left, y, box_width, line)
        if style.strikethrough and line.text:
            _underline(canvas, style, left, y, box_width, line, rise=strike_rise(style))
        baseline += style.leading


def writes_directly(canvas: Canvas, direct: bool) -> bool:
    """TextWriter draws on this canvas: the render takes the direct text path (`direct`,
    RenderOptions.direct_text), y grows upwards (TextWriter's Tm is ReportLab's bottom-up one)
    and no colour space is enforced (its rg is written as given)."""
    return direct and canvas.bottomup and not reportlab_internals.enforces_color_space(canvas)


def is_plain(lines: list[Line] | tuple[Line, ...], style: TextStyle) -> bool:
    """Lines TextWriter draws exactly as the general path does: unshaped, no letter spacing
    or decorations, an opaque colour (alpha is graphics state)."""
    if style.letter_spacing or style.underline or style.strikethrough or not is_opaque(style.color):
        return False
    return not any(line.shaped for line in lines)


@lru_cache(maxsize=4096)
def pdf_number(value: float) -> str:
    """A number as ReportLab writes it (fp_str joins its arguments' forms with spaces),
    remembered: cell edges and baselines repeat down a column and across a row."""
    return fp_str(value)


@lru_cache(maxsize=256)
def fill_operator(color: str) -> str:
    """The fill-colour operator ReportLab writes for an opaque hex colour (Canvas.setFillColor)."""
    rl = to_rl(color)
    return f"{fp_str((rl.red, rl.green, rl.blue))} rg"


class TextWriter:
    """Plain lines written as PDF text operators into one text object (BT … ET).

    ReportLab's PDFTextObject costs a text object and a font lookup per line; a table's cells
    are hundreds of lines per page. This writes each line as _draw_plain does — the same Tm
    origin, the same TJ arrays (engine.text.words) — with Tf only when the font changes and
    rg only when the colour does (text state persists between lines of one text object,
    ISO 32000-1 9.3.1).
    """

    def __init__(self, canvas: Canvas) -> None:
        self._document = reportlab_internals.document_of(canvas)
        self._operators: list[str] = []
        self._font: str | None = None  # "subset size", as Tf was last given them
        self._fill: str | None = None
        self.has_text = False

    def set_fill(self, color: str) -> None:
        """Set an opaque fill colour inside the text object (only when it changes)."""
        operator = fill_operator(color)
        if operator != self._fill:
            self._operators.append(operator)
            self._fill = operator

    def add(
        self,
        lines: list[Line] | tuple[Line, ...],
        style: TextStyle,
        left: float,
        top: float,
        box_width: float,
        page_height: float,
    ) -> None:
        """Lines for which is_plain holds, placed as draw_lines places them."""
        doc = self._document
        operators = self._operators
        baseline = top + baseline_offset(style)
        for line in lines:
            text = line.text
            if text:
                extra = 0.0
                if _justified(style, line):
                    x, extra = left, justified_extra(text, style, box_width)
                else:
                    x = left + align_offset(style.align, box_width - line.width, line.rtl)
                operators.append(f"1 0 0 1 {pdf_number(x)} {pdf_number(page_height - baseline)} Tm")
                drawn, self._font = words.line_operators(text, style, doc, self._font, extra)
                operators.extend(drawn)
                self.has_text = True
            baseline += style.leading

    def code(self) -> str:
        """The text object (check has_text first: an empty one is no use)."""
        return f"BT {' '.join(self._operators)} ET"

    def take_code(self) -> str:
        """The text object so far, the writer left ready for the next one (which sets its own
        font and colour again, as a text object of its own would)."""
        code = self.code()
        self._operators = []
        self._font = self._fill = None
        self.has_text = False
        return code


def align_offset(align: Align, slack: float, rtl: bool = False) -> float:
    """Where a line of `slack` points less than its box starts. start and end are logical
    (extensions.md 6): start is right in a right-to-left paragraph; left and right stay physical."""
    if align == "center":
        return slack / 2
    if align == "right" or (align == "end" and not rtl) or (align in ("start", "justify") and rtl):
        return slack
    return 0.0


def _justified(style: TextStyle, line: Line) -> bool:
    return style.align == "justify" and not line.ends_paragraph and " " in line.text


def _draw_shaped(canvas: Canvas, line: Line, style: TextStyle, left: float, y: float, box_width: float) -> None:
    """A line through engine.text.shaping: runs in visual order, a justified line's spaces stretched."""
    if not line.text:
        return
    if _justified(style, line):
        # Words and spaces shaped apart (a space's width is stretched), measured as such.
        words = line.text.split(" ")
        natural = sum(shaping.line_width(w, style, line.rtl) for w in words if w)
        natural += shaping.line_width(" ", style, line.rtl) * (len(words) - 1)
        extra = (box_width - natural) / (len(words) - 1)
        segments = [shaping.Segment(words[0], style)]
        for word in words[1:]:
            segments += [shaping.Segment(" ", style, extra), shaping.Segment(word, style)]
        x = left
    else:
        segments = [shaping.Segment(line.text, style)]
        x = left + align_offset(style.align, box_width - line.width, line.rtl)
    shaping.draw_line(canvas, shaping.line_runs([s for s in segments if s.text], line.rtl), x, y, line.text)


def justified_extra(text: str, style: TextStyle, box_width: float) -> float:
    """Points added to each space of a justified line of the simple scripts so that it fills
    the box (negative where total fit shrank its spaces)."""
    return (box_width - width_of(text, style)) / text.count(" ")


def _draw_plain(canvas: Canvas, text: str, style: TextStyle, x: float, y: float, space_extra: float = 0.0) -> None:
    """A line of the simple scripts from (x, y): one text object of TJ arrays (engine.text.words)."""
    if not text:
        return
    ops, _ = words.line_operators(text, style, reportlab_internals.document_of(canvas), None, space_extra)
    # Tc is text state, which outlives the text object: set back after a letter-spaced line.
    spacing, unspacing = (f"{fp_str(style.letter_spacing)} Tc ", " 0 Tc") if style.letter_spacing else ("", "")
    canvas.addLiteral(f"BT {spacing}1 0 0 1 {fp_str(x)} {fp_str(y)} Tm {' '.join(ops)}{unspacing} ET")


def strike_rise(style: TextStyle) -> float:
    """Height of a strikethrough above the baseline: about half the x-height."""
    return style.size * 0.28


def _underline(
    canvas: Canvas, style: TextStyle, left: float, y: float, box_width: float, line: Line, rise: float | None = None
) -> None:
    """A line under the text, or through it at `rise` above the baseline (strikethrough)."""
    justified = _justified(style, line)
    width = box_width if justified else line.width
    x = left if justified else left + align_offset(style.align, box_width - line.width, line.rtl)
    thickness = max(style.size / 18, 0.5)
    canvas.setStrokeColor(to_rl(style.color))
    canvas.setLineWidth(thickness)
    offset = -style.size * 0.12 if rise is None else rise
    canvas.line(x, y + offset, x + width, y + offset)
