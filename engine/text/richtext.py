"""Lines of styled spans (extensions.md 3): wrapping and drawing text whose words change face.

The plain path (`typeset.wrap` / `typeset.draw_lines`) sets a whole text in one style; this
one sets markup: every piece of a line has its own style (bold takes weight 700 of the
family, italic the family's italic, at the nearest weight that has one), strikethrough and
links (underlined, in the link colour, covered by a link annotation per line box). Lines
break at spaces exactly as the plain path does, so a text measures the same either way
when it has no markup.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import overload

from reportlab.lib.rl_accel import fp_str
from reportlab.pdfgen.canvas import Canvas

from .. import fonts
from ..design.colors import to_rl
from ..pdf import reportlab_internals
from ..pdf.tagging import Untagged
from . import breaking, shaping, words
from .markup import Span
from .typeset import TextStyle, align_offset, baseline_offset, first_overflow, strike_rise, width_of

BOLD = 700


@dataclass(frozen=True)
class Piece:
    """Text drawn in one style; `link` is the link's number in its block (None: no link)."""

    text: str
    style: TextStyle
    width: float
    link: int | None = None


Word = tuple[Piece, ...]


@dataclass(frozen=True)
class RichLine:
    words: tuple[Word, ...]
    gaps: tuple[Piece, ...]  # the space before each word but the first ("" between ideographs)
    width: float
    ends_paragraph: bool
    rtl: bool = False  # its paragraph runs right to left (extensions.md 6)
    broke_at_space: bool = True  # a wrapped line ended at a space (not between ideographs)

    @property
    def text(self) -> str:
        out = "".join(p.text for p in self.words[0]) if self.words else ""
        for gap, word in zip(self.gaps, self.words[1:], strict=True):
            out += gap.text + "".join(p.text for p in word)
        return out


@dataclass(frozen=True)
class RichBlock:
    """A text block's lines and the URL of each link, by number."""

    lines: tuple[RichLine, ...]
    urls: tuple[str, ...]

    # A block reads like the plain path's tuple of lines (counted, iterated, sliced), so that
    # fitting (engine.text.fitting: cutting to maxLines) and flow (a sheet's share of the lines)
    # treat both alike; a slice keeps every URL, so link numbers stay valid.
    def __len__(self) -> int:
        return len(self.lines)

    def __iter__(self) -> Iterator[RichLine]:
        return iter(self.lines)

    @overload
    def __getitem__(self, index: int) -> RichLine: ...
    @overload
    def __getitem__(self, index: slice) -> RichBlock: ...
    def __getitem__(self, index: int | slice) -> RichLine | RichBlock:
        if isinstance(index, slice):
            return dataclasses.replace(self, lines=self.lines[index])
        return self.lines[index]

    def with_last(self, line: RichLine) -> RichBlock:
        """The block with its last line replaced (an ellipsised one)."""
        return dataclasses.replace(self, lines=(*self.lines[:-1], line))


def ellipsised(line: RichLine, mark: str, base: TextStyle, width: float | None) -> RichLine:
    """The line ending in `mark` ("…", in the last piece's style and link), pieces and then
    characters dropped from its end until it fits `width`; it then ends a paragraph."""
    words = [list(word) for word in line.words]
    gaps = list(line.gaps)
    while True:
        while words and not words[-1]:  # an emptied word goes with the space before it
            words.pop()
            if gaps:
                gaps.pop()
        last = words[-1][-1] if words else None
        style = last.style if last is not None else base
        tail = Piece(mark, style, width_of(mark, style), last.link if last is not None else None)
        used = sum(p.width for word in words for p in word) + sum(g.width for g in gaps[: max(0, len(words) - 1)])
        if width is None or used + tail.width <= width + 0.01 or last is None:
            shown = [*words[:-1], [*words[-1], tail]] if words else [[tail]]
            kept_gaps = tuple(gaps[: len(shown) - 1])
            return RichLine(tuple(tuple(w) for w in shown), kept_gaps, used + tail.width, True, line.rtl)
        # Whole grapheme clusters go (a consonant keeps its vowel sign); the fast path drops characters.
        cut = len(shaping.clusters(last.text)[-1]) if shaping.needs_shaping(last.text) else 1
        text = last.text[:-cut]
        if text:
            words[-1][-1] = Piece(text, last.style, width_of(text, last.style), last.link)
        else:
            words[-1].pop()


def transformed(text: str, transform: str, previous: str = " ") -> str:
    """styles.textTransform of a text; `previous` is the character before it (capitalize
    starts a word after a space or punctuation, not after a letter, digit or apostrophe)."""
    if transform == "uppercase":
        return text.upper()
    if transform == "lowercase":
        return text.lower()
    if transform != "capitalize":
        return text
    out: list[str] = []
    for char in text:
        starts_word = not (previous.isalnum() or previous in "'\u2019")
        out.append(char.upper() if starts_word else char)
        previous = char
    return "".join(out)


def transformed_lines(lines: tuple[tuple[Span, ...], ...], transform: str) -> tuple[tuple[Span, ...], ...]:
    """textTransform over markup: the spans' text changes, their styles and links do not."""
    if transform == "none":
        return lines
    out = []
    for spans in lines:
        previous = " "
        changed = []
        for span in spans:
            changed.append(dataclasses.replace(span, text=transformed(span.text, transform, previous)))
            previous = span.text[-1:] or previous
        out.append(tuple(changed))
    return tuple(out)


@lru_cache(maxsize=1024)
def span_style(style: TextStyle, bold: bool, italic: bool, strike: bool, link: bool) -> TextStyle:
    weight = max(style.weight, BOLD) if bold else style.weight
    if italic and not style.italic:
        slanted = fonts.italic_weights(style.family)
        if slanted:  # families without an italic stay upright rather than faking a slant
            weight = fonts.nearest_weight(slanted, weight)
    return dataclasses.replace(
        style,
        weight=weight,
        italic=style.italic or italic,
        strikethrough=style.strikethrough or strike,
        underline=style.underline or link,
        color=style.link_color if link else style.color,
    )


def _words(spans: tuple[Span, ...], style: TextStyle, first_link: int) -> tuple[list[list[Piece]], list[Piece], list]:
    """Words (lists of pieces) and the gaps between them; the URLs of links started here."""
    words: list[list[Piece]] = [[]]
    gaps: list[Piece] = []
    urls: list[str] = []
    previous_url: str | None = None
    for span in spans:
        link = None
        if span.link is not None:
            if span.link != previous_url:
                urls.append(span.link)
            link = first_link + len(urls) - 1
        previous_url = span.link
        piece_style = span_style(style, span.bold, span.italic, span.strike, span.link is not None)
        # Soft hyphens break only in plain text (engine.text.typeset): here they stay invisible.
        for index, part in enumerate(span.text.replace("\u00ad", "").split(" ")):
            if index:
                gaps.append(Piece(" ", piece_style, width_of(" ", piece_style), link))
                words.append([])
            if not part:
                continue
            # Outside the fast path a word may break without a space (UAX #14: between
            # ideographs, after a hyphen): each unit is a word, after an empty gap.
            units = shaping.break_units(part) if shaping.needs_shaping(part) else (part,)
            for number, unit in enumerate(units):
                if number:
                    gaps.append(Piece("", piece_style, 0.0, link))
                    words.append([])
                words[-1].append(Piece(unit, piece_style, width_of(unit, piece_style), link))
    return words, gaps, urls


@lru_cache(maxsize=2048)
def wrap(paragraphs: tuple[tuple[Span, ...], ...], style: TextStyle, max_width: float | None) -> RichBlock:
    """Break the paragraphs into lines no wider than max_width (None: only at line breaks)."""
    lines: list[RichLine] = []
    urls: list[str] = []
    for spans in paragraphs:
        words, gaps, started = _words(spans, style, len(urls))
        urls.extend(started)
        wrapped = _wrap_paragraph(words, gaps, max_width, style)
        text = "".join(span.text for span in spans)
        if style.direction == "rtl" or shaping.needs_shaping(text):
            rtl = shaping.is_rtl(text, style.direction)
            wrapped = [dataclasses.replace(line, rtl=rtl) for line in wrapped]
        lines.extend(wrapped)
    return RichBlock(tuple(lines), tuple(urls))


def _word_width(word: list[Piece]) -> float:
    return sum(p.width for p in word)


def _wrap_paragraph(
    words: list[list[Piece]], gaps: list[Piece], max_width: float | None, style: TextStyle
) -> list[RichLine]:
    """Lines of whole words by total fit (engine.text.breaking), as the plain path breaks
    them; line by line where total fit would take more lines or a word is wider than the box."""
    greedy = _wrap_greedily(words, gaps, max_width)
    if max_width is None or len(greedy) < 2 or any(_word_width(word) > max_width for word in words):
        return greedy
    justified = style.align == "justify"
    widths = [_word_width(word) for word in words]
    starts = breaking.break_words(widths, [gap.width for gap in gaps], max_width, justified, style.size)
    if starts is None or len(starts) > len(greedy):
        return greedy
    lines: list[RichLine] = []
    for start, end in zip(starts, [*starts[1:], len(words)], strict=True):
        last = end == len(words)
        line_gaps = tuple(gaps[start : end - 1])
        width = sum(widths[start:end]) + sum(gap.width for gap in line_gaps)
        if justified and not last and end - start > 1:
            width = min(width, max_width)  # its spaces stretch or shrink to the box
        broke_at_space = last or gaps[end - 1].text == " "
        lines.append(RichLine(tuple(tuple(w) for w in words[start:end]), line_gaps, width, last, False, broke_at_space))
    return lines


def _wrap_greedily(words: list[list[Piece]], gaps: list[Piece], max_width: float | None) -> list[RichLine]:
    lines: list[RichLine] = []
    current: list[tuple[Piece, ...]] = []
    current_gaps: list[Piece] = []
    current_width = 0.0
    for index, word in enumerate(words):
        gap = gaps[index - 1] if index else None
        word_width = _word_width(word)
        added = word_width if not current else current_width + gap.width + word_width  # type: ignore[union-attr]
        if max_width is not None and current and added > max_width:
            lines.append(RichLine(tuple(current), tuple(current_gaps), current_width, False, False, gap.text == " "))  # type: ignore[union-attr]
            current, current_gaps, added = [], [], word_width
        elif current:
            current_gaps.append(gap)  # type: ignore[arg-type]
        if max_width is not None and not current and word_width > max_width:
            # As the plain path: a word wider than the box breaks between characters.
            pieces = _break_word(word, max_width)
            lines.extend(RichLine((p,), (), _word_width(list(p)), False, False, False) for p in pieces[:-1])
            word = list(pieces[-1])
            added = _word_width(word)
        current.append(tuple(word))
        current_width = added
    lines.append(RichLine(tuple(current), tuple(current_gaps), current_width, True))
    return lines


def _break_word(word: list[Piece], max_width: float) -> list[tuple[Piece, ...]]:
    chunks: list[tuple[Piece, ...]] = []
    line: list[Piece] = []
    used = 0.0
    for piece in word:
        start = 0
        # Between grapheme clusters outside the fast path, never inside one.
        ends = _cluster_ends(piece.text) if shaping.needs_shaping(piece.text) else range(1, len(piece.text) + 1)
        done = 0  # ends tried
        guess: int | None = None
        while (found := _first_too_wide(piece, ends, done, start, bool(line), used, max_width, guess)) is not None:
            guess = found + (found - done)  # the next line as long as this one
            end, done = ends[found - 1], found
            if end - start > 1:
                text = piece.text[start : end - 1]
                line.append(Piece(text, piece.style, width_of(text, piece.style), piece.link))
                start = end - 1
            chunks.append(tuple(line))
            line, used = [], 0.0
        rest = piece.text[start:]
        if rest:
            line.append(Piece(rest, piece.style, width_of(rest, piece.style), piece.link))
            used += line[-1].width
    chunks.append(tuple(line))
    return [c for c in chunks if c] or [()]


def _first_too_wide(
    piece: Piece,
    ends: Sequence[int],
    done: int,
    start: int,
    filled: bool,
    used: float,
    max_width: float,
    guess: int | None,
) -> int | None:
    """How many of the piece's `ends` are tried when one first makes the line too wide (the
    line holds `used` points, and `filled` when it holds a piece); typeset.first_overflow."""

    def overflows(count: int) -> bool:
        end = ends[count - 1]
        return (filled or end - start > 1) and used + width_of(piece.text[start:end], piece.style) > max_width

    return first_overflow(done, len(ends), overflows, guess)


def _cluster_ends(text: str) -> list[int]:
    ends: list[int] = []
    for cluster in shaping.clusters(text):
        ends.append((ends[-1] if ends else 0) + len(cluster))
    return ends


# (url, rect (x0, y0, x1, y1) in PDF coordinates, label) for each link's box on a line.
LinkBox = tuple[str, tuple[float, float, float, float], str]


def labels(block: RichBlock) -> list[str]:
    """Each link's label text, by link number (the /Contents of its annotations)."""
    found = [""] * len(block.urls)
    for line in block.lines:
        pieces = list(line.words[0]) if line.words else []
        for gap, word in zip(line.gaps, line.words[1:], strict=True):
            pieces += [gap, *word]
        for piece in pieces:
            if piece.link is not None:
                found[piece.link] += piece.text
        for number in {p.link for p in pieces if p.link is not None}:
            if not line.ends_paragraph:
                found[number] += " "
    return [label.strip() for label in found]


def draw_lines(
    canvas: Canvas,
    block: RichBlock,
    style: TextStyle,
    left: float,
    top: float,
    box_width: float,
    page_height: float,
    tags: Untagged,
    key: str,
    add_link: Callable[[int, tuple[float, float, float, float]], None],
) -> None:
    """Draw the block's lines in the box whose top-left corner is (left, top).

    Each run of pieces with one link (or none) is its own marked content, so that in the
    tagged profiles a link's label sits in its Link element; `add_link(number, rect)` is
    called for each link's box on each line, inside that marked content's Link element.
    `key` names the block among the document's (a link's Link element spans its lines).
    """
    baseline = top + baseline_offset(style)
    for line in block.lines:
        y = page_height - baseline
        placed = _place(line, style, left, box_width)
        line_top = page_height - (baseline - baseline_offset(style))
        line_bottom = line_top - style.leading
        if _shaped(line):
            _draw_shaped(canvas, line, style, left, box_width, y, tags, key, add_link, (line_bottom, line_top))
            baseline += style.leading
            continue
        if not placed:  # an empty line still belongs to its element, as in the plain path
            with tags.marked(canvas):
                pass
        for number, pieces in _by_link(placed):
            if number is None:
                with tags.marked(canvas, _actual_text(pieces, line)):
                    _draw_pieces(canvas, pieces, y)
            else:
                with tags.group("Link", key=f"{key}/link-{number}"):
                    with tags.marked(canvas, _actual_text(pieces, line)):
                        _draw_pieces(canvas, pieces, y)
                    add_link(number, (pieces[0][0], line_bottom, pieces[-1][0] + pieces[-1][1].width, line_top))
        baseline += style.leading


def _shaped(line: RichLine) -> bool:
    """The line goes through engine.text.shaping (bidi, HarfBuzz) rather than the fast path."""
    return line.rtl or any(shaping.needs_shaping(p.text) for p in _logical(line))


def _logical(line: RichLine) -> list[Piece]:
    """The line's pieces and gaps in the order they were written."""
    pieces = list(line.words[0]) if line.words else []
    for gap, word in zip(line.gaps, line.words[1:], strict=True):
        pieces += [gap, *word]
    return pieces


def _draw_shaped(
    canvas: Canvas,
    line: RichLine,
    style: TextStyle,
    left: float,
    box_width: float,
    y: float,
    tags: Untagged,
    key: str,
    add_link: Callable[[int, tuple[float, float, float, float]], None],
    bottom_top: tuple[float, float],
) -> None:
    """A line outside the fast path: its pieces shaped and put in visual order (bidi), drawn
    run by run of one link (or none), each run's text in its marked content as written."""
    pieces = [p for p in _logical(line) if p.text]
    justified = style.align == "justify" and not line.ends_paragraph and len(line.words) > 1
    extra = 0.0
    if justified:
        spaces = sum(1 for p in pieces if p.text == " ")
        words_width = sum(_word_width(list(w)) for w in line.words)
        extra = (box_width - words_width - sum(g.width for g in line.gaps)) / spaces if spaces else 0.0
    segments = [shaping.Segment(p.text, p.style, extra if p.text == " " else 0.0) for p in pieces]
    placed = shaping.line_runs(segments, line.rtl)
    width = sum(item.run.width for item in placed)
    x = left if justified else left + align_offset(style.align, box_width - width, line.rtl)
    if not placed:
        with tags.marked(canvas):
            pass
        return
    bottom, top = bottom_top
    groups: list[tuple[int | None, list[int]]] = []
    for index, piece in enumerate(pieces):
        if groups and groups[-1][0] == piece.link and tags.tagged:
            groups[-1][1].append(index)
        elif groups and not tags.tagged:
            # Untagged, a line is one Span whatever its links: PDFium extracts a Span's text
            # once, so a line drawn in one piece reads back whole and in order.
            groups[-1][1].append(index)
        else:
            groups.append((piece.link, [index]))
    for number, members in groups:
        runs = [item for item in placed if item.run.segment in members]
        text = "".join(pieces[i].text for i in members)
        if members[-1] == len(pieces) - 1 and not line.ends_paragraph and line.broke_at_space:
            text += " "  # the space a wrapped line broke at, for extracted text
        links = {pieces[i].link for i in members} - {None}
        # PDFium reads right-to-left ActualText backwards: such a line reads from its glyphs.
        spoken = None if shaping.has_right_to_left(text) else text
        if not tags.tagged:
            _draw_runs(canvas, runs, pieces, x, y, text)
            for link in sorted(links):  # type: ignore[type-var]
                linked = [item for item in runs if pieces[item.run.segment].link == link]
                start = min(x + item.x for item in linked)
                end = max(x + item.x + item.run.width for item in linked)
                add_link(link, (start, bottom, end, top))
        elif number is None:
            with tags.marked(canvas, spoken):
                _draw_runs(canvas, runs, pieces, x, y, text)
        else:
            with tags.group("Link", key=f"{key}/link-{number}"):
                with tags.marked(canvas, spoken):
                    _draw_runs(canvas, runs, pieces, x, y, text)
                start = min(x + item.x for item in runs)
                end = max(x + item.x + item.run.width for item in runs)
                add_link(number, (start, bottom, end, top))


def _draw_runs(
    canvas: Canvas, runs: list[shaping.PlacedRun], pieces: list[Piece], x: float, y: float, text: str
) -> None:
    color: list[str] = []

    def fill(run: shaping.Run) -> None:
        wanted = pieces[run.segment].style.color
        if color != [wanted]:
            color[:] = [wanted]
            canvas.setFillColor(to_rl(wanted))

    shaping.draw_line(canvas, runs, x, y, text, before=fill)
    for item in runs:
        piece_style = pieces[item.run.segment].style
        strokes = (
            (piece_style.underline, -piece_style.size * 0.12),
            (piece_style.strikethrough, strike_rise(piece_style)),
        )
        for wanted, rise in strokes:
            if wanted and item.run.width > 0:
                canvas.setStrokeColor(to_rl(piece_style.color))
                canvas.setLineWidth(max(piece_style.size / 18, 0.5))
                canvas.line(x + item.x, y + rise, x + item.x + item.run.width, y + rise)


def _actual_text(pieces: list[tuple[float, Piece]], line: RichLine) -> str | None:
    """A wrapped line's last run loses the space it broke at in extracted text: ActualText keeps it."""
    return None if line.ends_paragraph else "".join(p.text for _, p in pieces) + " "


def _place(line: RichLine, style: TextStyle, left: float, box_width: float) -> list[tuple[float, Piece]]:
    """(x, piece) for every piece and gap of the line, aligned in the box."""
    justified = style.align == "justify" and not line.ends_paragraph and len(line.words) > 1
    if justified:
        spread = (box_width - sum(_word_width(list(w)) for w in line.words)) / (len(line.words) - 1)
        x = left
    else:
        slack = box_width - line.width
        x = left + {"center": slack / 2, "right": slack, "end": slack}.get(style.align, 0.0)
    placed: list[tuple[float, Piece]] = []
    for index, word in enumerate(line.words):
        if index:
            gap = line.gaps[index - 1]
            width = spread if justified else gap.width
            placed.append((x, dataclasses.replace(gap, width=width)))
            x += width
        for piece in word:
            placed.append((x, piece))
            x += piece.width
    return placed


def _by_link(placed: list[tuple[float, Piece]]) -> list[tuple[int | None, list[tuple[float, Piece]]]]:
    groups: list[tuple[int | None, list[tuple[float, Piece]]]] = []
    for item in placed:
        if groups and groups[-1][0] == item[1].link:
            groups[-1][1].append(item)
        else:
            groups.append((item[1].link, [item]))
    return groups


def _draw_pieces(canvas: Canvas, pieces: list[tuple[float, Piece]], y: float) -> None:
    # One text object for the run: each piece moves the text origin, rather than opening a
    # text object per word (fewer operators, a smaller content stream). A colour change ends
    # it: the canvas sets colours (their alpha, an enforced colour space) between text objects.
    document = reportlab_internals.document_of(canvas)
    operators: list[str] = []
    color: str | None = None
    spacing = 0.0
    font_now: str | None = None

    def flush() -> None:
        if operators:
            unspacing = " 0 Tc" if spacing else ""  # Tc outlives the text object
            canvas.addLiteral(f"BT {' '.join(operators)}{unspacing} ET")
            operators.clear()

    for x, piece in pieces:
        style = piece.style
        if not piece.text.strip(" "):
            continue
        if style.color != color:
            flush()
            color, font_now = style.color, None
            canvas.setFillColor(to_rl(color))
            if spacing:
                operators.append(f"{fp_str(spacing)} Tc")
        if style.letter_spacing != spacing:
            spacing = style.letter_spacing
            operators.append(f"{fp_str(spacing)} Tc")
        operators.append(f"1 0 0 1 {fp_str(x)} {fp_str(y)} Tm")
        drawn, font_now = words.line_operators(piece.text, style, document, font_now)
        operators.extend(drawn)
    flush()
    for x, piece in pieces:
        style = piece.style
        for wanted, rise in ((style.underline, -style.size * 0.12), (style.strikethrough, strike_rise(style))):
            if wanted and piece.width > 0:
                canvas.setStrokeColor(to_rl(style.color))
                canvas.setLineWidth(max(style.size / 18, 0.5))
                canvas.line(x, y + rise, x + piece.width, y + rise)
