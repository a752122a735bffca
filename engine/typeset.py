"""Line breaking and drawing of text with real font metrics.

Shared by the text element and table cells so both measure exactly as they draw.
Coordinates here are page coordinates: origin at the top-left, y growing down.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from reportlab.pdfgen.canvas import Canvas

from . import fonts
from .colors import to_rl

Align = Literal["left", "center", "right", "justify", "start", "end"]
# extensions.md 6: auto takes each paragraph's direction from its first strong character.
Direction = Literal["auto", "ltr", "rtl"]


@dataclass(frozen=True)
class TextStyle:
    family: str = fonts.DEFAULT_FAMILY
    weight: int = 400
    italic: bool = False
    size: float = 12.0
    line_height: float = 1.2  # a multiple of the font size
    color: str = "#000000"
    align: Align = "left"
    underline: bool = False
    # extensions.md 3; their defaults leave the plain path's work unchanged.
    strikethrough: bool = False
    letter_spacing: float = 0.0  # points added after every character (PDF Tc)
    link_color: str = "#1a56db"
    # extensions.md 6
    direction: Direction = "auto"
    lang: str = ""  # BCP 47 tag of the content ("": the design's language); shaping and /Lang

    @property
    def face(self) -> fonts.Face:
        return fonts.face(self.family, self.weight, self.italic)

    @property
    def leading(self) -> float:
        return self.size * self.line_height


@dataclass(frozen=True)
class Line:
    text: str
    width: float
    ends_paragraph: bool  # the last line of a paragraph is never justified


def width_of(text: str, style: TextStyle) -> float:
    width = fonts.string_width(text, style.face, style.size)
    if style.letter_spacing:
        width += style.letter_spacing * len(text)
    return width


def wrap(text: str, style: TextStyle, max_width: float | None) -> list[Line]:
    """Break text into lines no wider than max_width (None: only at newlines)."""
    return list(_wrap_cached(text, style, max_width))


@lru_cache(maxsize=8192)
def _wrap_cached(text: str, style: TextStyle, max_width: float | None) -> tuple[Line, ...]:
    lines: list[Line] = []
    # No font has glyphs for carriage returns or tabs: normalise them before measuring.
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
    for paragraph in text.split("\n"):
        if max_width is None:
            lines.append(Line(paragraph, width_of(paragraph, style), True))
            continue
        lines.extend(_wrap_paragraph(paragraph, style, max_width))
    return tuple(lines)


def _wrap_paragraph(paragraph: str, style: TextStyle, max_width: float) -> list[Line]:
    space = width_of(" ", style)
    lines: list[Line] = []
    current: list[str] = []
    current_width = 0.0
    for word in paragraph.split(" "):
        word_width = width_of(word, style)
        added = word_width if not current else current_width + space + word_width
        if current and added > max_width:
            lines.append(Line(" ".join(current), current_width, False))
            current, current_width = [], 0.0
            added = word_width
        if not current and word_width > max_width:
            # A word wider than the box is broken between characters, as browsers do
            # with overflow-wrap: anywhere, so nothing spills out of its box.
            pieces = _break_word(word, style, max_width)
            lines.extend(Line(p, width_of(p, style), False) for p in pieces[:-1])
            word = pieces[-1]
            added = width_of(word, style)
        current.append(word)
        current_width = added
    lines.append(Line(" ".join(current), current_width, True))
    return lines


def _break_word(word: str, style: TextStyle, max_width: float) -> list[str]:
    pieces: list[str] = []
    start = 0
    for end in range(1, len(word) + 1):
        if end - start > 1 and width_of(word[start:end], style) > max_width:
            pieces.append(word[start : end - 1])
            start = end - 1
    pieces.append(word[start:])
    return pieces


def baseline_offset(style: TextStyle) -> float:
    """Distance from a line's top to its baseline: half the leading above the glyph box."""
    face = style.face
    glyph_height = (face.ascent - face.descent) * style.size / 1000
    return (style.leading - glyph_height) / 2 + face.ascent * style.size / 1000


def draw_lines(
    canvas: Canvas,
    lines: list[Line],
    style: TextStyle,
    left: float,
    top: float,
    box_width: float,
    page_height: float,
) -> None:
    """Draw lines inside a box whose top-left corner is (left, top) on the page."""
    canvas.setFillColor(to_rl(style.color))
    baseline = top + baseline_offset(style)
    for line in lines:
        y = page_height - baseline
        if style.align == "justify" and not line.ends_paragraph and " " in line.text:
            _draw_justified(canvas, line, style, left, y, box_width)
        else:
            x = left + _align_offset(style.align, box_width - line.width)
            _draw_runs(canvas, line.text, style, x, y)
        if style.underline and line.text:
            _underline(canvas, style, left, y, box_width, line)
        if style.strikethrough and line.text:
            _underline(canvas, style, left, y, box_width, line, rise=strike_rise(style))
        baseline += style.leading


def _align_offset(align: Align, slack: float) -> float:
    if align == "center":
        return slack / 2
    if align in ("right", "end"):  # start/end: left-to-right until paragraphs have a direction
        return slack
    return 0.0


def _draw_runs(canvas: Canvas, text: str, style: TextStyle, x: float, y: float) -> None:
    if not text:
        return
    text_object = canvas.beginText(x, y)
    if style.letter_spacing:
        text_object.setCharSpace(style.letter_spacing)
    for run, face in fonts.runs(text, style.face):
        text_object.setFont(face.name, style.size)
        text_object.textOut(run)
    canvas.drawText(text_object)


def _draw_justified(canvas: Canvas, line: Line, style: TextStyle, left: float, y: float, box_width: float) -> None:
    # Word by word: PDF word spacing (Tw) only acts on single-byte code 32, which
    # subset TrueType fonts do not use, so the gaps are placed explicitly.
    words = line.text.split(" ")
    widths = [width_of(w, style) for w in words]
    gap = (box_width - sum(widths)) / (len(words) - 1)
    x = left
    for word, width in zip(words, widths, strict=True):
        _draw_runs(canvas, word, style, x, y)
        x += width + gap


def strike_rise(style: TextStyle) -> float:
    """Height of a strikethrough above the baseline: about half the x-height."""
    return style.size * 0.28


def _underline(
    canvas: Canvas, style: TextStyle, left: float, y: float, box_width: float, line: Line, rise: float | None = None
) -> None:
    """A line under the text, or through it at `rise` above the baseline (strikethrough)."""
    justified = style.align == "justify" and not line.ends_paragraph and " " in line.text
    width = box_width if justified else line.width
    x = left if justified else left + _align_offset(style.align, box_width - line.width)
    thickness = max(style.size / 18, 0.5)
    canvas.setStrokeColor(to_rl(style.color))
    canvas.setLineWidth(thickness)
    offset = -style.size * 0.12 if rise is None else rise
    canvas.line(x, y + offset, x + width, y + offset)
