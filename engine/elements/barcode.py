"""Linear barcodes drawn as vector bars, with the human-readable value beneath."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Any, Literal, NamedTuple

import barcode as python_barcode
from pydantic import Field, model_validator
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfgen.pathobject import PDFPathObject

from .. import fonts
from ..design.colors import HexColor, to_rl
from ..text import style as text_style
from ..text import typeset
from .base import (
    Box,
    BoxPosition,
    DrawContext,
    EditorHints,
    ElementType,
    StrictModel,
    VariableSpec,
    box_size,
    require_string,
    with_data,
)

BarcodeFormat = Literal["CODE128", "EAN13", "EAN8", "UPCA", "CODE39", "ITF", "ISBN13"]

# (python-barcode class name, digits without / with the check digit)
_CHECKED = {"EAN13": ("ean13", 12), "EAN8": ("ean8", 7), "UPCA": ("upca", 11), "ISBN13": ("isbn13", 12)}
_CODE39 = re.compile(r"^[0-9A-Z \-.$/+%]+$")


def _check_digit_code(fmt: str, digits: str) -> str:
    cls_name, body = _CHECKED[fmt]
    return python_barcode.get_barcode_class(cls_name)(digits[:body], writer=None).get_fullcode()


def normalise(content: str, fmt: BarcodeFormat) -> str:
    """The value as the bars encode it; ValueError naming the fix when it cannot be encoded."""
    if not content:
        raise ValueError("content is empty")
    if fmt == "CODE128":
        if len(content) > 80 or any(ord(c) > 127 for c in content):
            raise ValueError("CODE128 takes up to 80 ASCII characters")
        return content
    if fmt == "CODE39":
        if not _CODE39.match(content):
            raise ValueError("CODE39 takes upper-case A-Z, digits, space and - . $ / + %")
        return content
    if fmt == "ITF":
        if not content.isdigit() or len(content) % 2:
            raise ValueError("ITF takes an even number of digits (prefix a 0 to an odd count)")
        return content
    digits = content.replace("-", "").replace(" ", "") if fmt == "ISBN13" else content
    body = _CHECKED[fmt][1]
    if not digits.isdigit() or len(digits) not in (body, body + 1):
        raise ValueError(f"{fmt} takes {body} digits, or {body + 1} with the check digit")
    if fmt == "ISBN13" and not digits.startswith(("978", "979")):
        raise ValueError("ISBN13 starts with 978 or 979")
    full = _check_digit_code(fmt, digits)
    if len(digits) == body + 1 and full != digits:
        raise ValueError(f"check digit of {content} is wrong: it should be {full[-1]}")
    return full


@lru_cache(maxsize=4096)
def bars(content: str, fmt: BarcodeFormat) -> tuple[str, tuple[tuple[int, int], ...], int]:
    """(human-readable text, dark runs as (first module, length), module count)."""
    text = normalise(content, fmt)
    name = {"CODE128": "code128", "CODE39": "code39", "ITF": "itf"}.get(fmt) or _CHECKED[fmt][0]
    options = {"add_checksum": False} if fmt == "CODE39" else {}
    code = python_barcode.get_barcode_class(name)(text if fmt != "ISBN13" else text, writer=None, **options)
    modules = "".join(code.build())
    runs = tuple((m.start(), m.end() - m.start()) for m in re.finditer("1+", modules))
    return text, runs, len(modules)


# Quiet zones (left, right) in narrow-element widths, the least each standard allows: kept
# blank inside the element's box, the symbol drawn smaller so that they fit (a scanner must
# see light on both sides of the bars to find them; a dark shape beside the box is not read
# into the code). Where the GS1 General Specifications and extensions.md 17 differ,
# the larger of the two is kept.
QUIET_ZONES: dict[str, tuple[int, int]] = {
    "CODE128": (10, 10),  # ISO/IEC 15417: 10X each side
    "EAN13": (11, 7),  # ISO/IEC 15420 and GS1: 11X left, 7X right
    "ISBN13": (11, 7),  # an EAN-13
    "EAN8": (11, 7),  # GS1 asks 7X each side; extensions.md 17 11X left for every EAN
    "UPCA": (11, 9),  # GS1 asks 9X each side; extensions.md 17 11X left
    "CODE39": (10, 10),  # ISO/IEC 16388: 10X each side
    "ITF": (10, 10),  # ISO/IEC 16390: 10X each side
}
# python-barcode's units per narrow element: ITF's narrow bar is 2 units, its wide one 5.
_NARROW_UNITS = {"ITF": 2}


def quiet_zones(fmt: BarcodeFormat) -> tuple[int, int]:
    """The quiet zones (left, right) in the units of bars()' module count."""
    left, right = QUIET_ZONES[fmt]
    unit = _NARROW_UNITS.get(fmt, 1)
    return left * unit, right * unit


class RetailLayout(NamedTuple):
    """The human-readable digits of an EAN or UPC as the standard sets them (ISO/IEC 15420,
    the GS1 General Specifications), in modules from the symbol's left edge: the guard bars (and UPC-A's
    first and last symbol characters) run down between the digit groups, each group sits
    under its half, EAN-13's first digit and UPC-A's first and last stand in the quiet zones."""

    long_bars: tuple[tuple[int, int], ...]  # [first, end) module ranges whose bars reach down
    groups: tuple[tuple[int, int, int, int], ...]  # (first digit, end digit, first module, end module)
    outer_left: int | None  # index of the digit left of the bars, if any
    outer_right: int | None  # index of the digit right of the bars, if any
    outer_scale: float  # the outer digits' size against the groups' (UPC-A's are smaller)


_EAN13_LAYOUT = RetailLayout(((0, 3), (45, 50), (92, 95)), ((1, 7, 3, 45), (7, 13, 50, 92)), 0, None, 1.0)
RETAIL_LAYOUTS: dict[str, RetailLayout] = {
    "EAN13": _EAN13_LAYOUT,
    "ISBN13": _EAN13_LAYOUT,
    "EAN8": RetailLayout(((0, 3), (31, 36), (64, 67)), ((0, 4, 3, 31), (4, 8, 36, 64)), None, None, 1.0),
    "UPCA": RetailLayout(((0, 10), (45, 50), (85, 95)), ((1, 6, 10, 45), (6, 11, 50, 85)), 0, 11, 0.75),
}
CHARACTER_MODULES = 7  # every EAN/UPC symbol character is 7 modules wide


@lru_cache(maxsize=1024)
def _bars_path(
    content: str, fmt: BarcodeFormat, left: float, module: float, bottom: float, height: float, reach: float
) -> str:
    """The bars as PDF path operators ("n x y w h re ..."), numbers written by ReportLab's
    fp_str as PDFPathObject.rect writes them: one string per code and place, where a rect
    call per bar formatted each number on its own. The bars of RETAIL_LAYOUTS' long ranges
    reach `reach` points further down (0: all bars alike)."""
    _, runs, _ = bars(content, fmt)
    layout = RETAIL_LAYOUTS.get(fmt) if reach else None
    parts = ["n"]
    for start, length in runs:
        if layout is not None and any(first <= start < end for first, end in layout.long_bars):
            parts.append(f"{fp_str(left + start * module, bottom - reach, length * module, height + reach)} re")
        else:
            parts.append(f"{fp_str(left + start * module, bottom, length * module, height)} re")
    return " ".join(parts)


class BarcodeData(StrictModel):
    content: str = Field(description="The value to encode, checked against the format")
    format: BarcodeFormat = "CODE128"
    displayValue: bool = Field(True, description="Print the human-readable value under the bars")
    alt: str | None = Field(None, max_length=2000, description="Alternative text; none marks it decorative")

    @model_validator(mode="after")
    def _encodable(self) -> BarcodeData:
        normalise(self.content, self.format)
        return self


class BarcodeStyles(StrictModel):
    color: HexColor = "#000000"
    backgroundColor: HexColor | None = None
    fontFamily: fonts.FontFamily = fonts.DEFAULT_FAMILY
    fontSize: float | None = Field(None, gt=0, le=200, description="Default: a fifth of the height, at most 12")


def draw(node: Any, box: Box, ctx: DrawContext, part: Any = None) -> None:
    fmt = node.data.format
    text, _, count = bars(node.data.content, fmt)
    styles = node.styles
    canvas = ctx.canvas
    canvas.saveState()
    if styles.backgroundColor:
        canvas.setFillColor(to_rl(styles.backgroundColor))
        canvas.rect(box.x, ctx.pdf_y(box.y, box.h), box.w, box.h, stroke=0, fill=1)
    quiet_left, quiet_right = quiet_zones(fmt)
    module = box.w / (quiet_left + count + quiet_right)
    left = box.x + quiet_left * module
    layout = RETAIL_LAYOUTS.get(fmt) if node.data.displayValue else None
    bar_height = box.h
    style = None
    if node.data.displayValue:
        size = styles.fontSize or min(box.h / 5, 12.0)
        style = text_style.TextStyle(
            family=styles.fontFamily, size=size, line_height=1.15, color=styles.color, align="center"
        )
        if layout is not None and not styles.fontSize:
            style = _fitted(style, text, module)
        bar_height = max(box.h - style.leading, box.h * 0.4)
    # EAN/UPC guard bars reach half a line into the digits' line, between the groups.
    reach = style.leading / 2 if layout is not None and style is not None else 0.0
    path = _bars_path(node.data.content, fmt, left, module, ctx.pdf_y(box.y, bar_height), bar_height, reach)
    canvas.setFillColor(to_rl(styles.color))
    canvas.drawPath(PDFPathObject(code=[path]), stroke=0, fill=1)
    if style is not None:
        top = box.y + bar_height
        if layout is None:
            line = typeset.Line(text, typeset.width_of(text, style), True)
            typeset.draw_lines(
                canvas, [line], style, box.x, top, box.w, ctx.page_height, direct=ctx.options.direct_text
            )
        else:
            _draw_digits(text, layout, style, left, left + count * module, module, top, ctx)
    canvas.restoreState()


# An EAN/UPC digit is at most this many modules wide at the default size: a module's gap
# between neighbours under their 7-module characters.
_DIGIT_MODULES = 6.0


def _fitted(style: text_style.TextStyle, text: str, module: float) -> text_style.TextStyle:
    """The default size made small enough that each digit fits under its symbol character."""
    advance = typeset.width_of(text, style) / len(text)
    most = _DIGIT_MODULES * module
    return style if advance <= most else replace(style, size=style.size * most / advance)


def _draw_digits(
    text: str,
    layout: RetailLayout,
    style: text_style.TextStyle,
    left: float,
    right: float,
    module: float,
    top: float,
    ctx: DrawContext,
) -> None:
    """The digits in the standard layout: each group spread one digit under each 7-module
    character (letter spacing makes up the difference), the outer digits a module clear of
    the guard bars, their baseline the groups'. Drawn left to right, so text extracts in order."""
    direct = ctx.options.direct_text

    def put(digits: str, digit_style: text_style.TextStyle, x: float, line_top: float) -> None:
        line = typeset.Line(digits, typeset.width_of(digits, digit_style), True)
        typeset.draw_lines(ctx.canvas, [line], digit_style, x, line_top, line.width, ctx.page_height, direct=direct)

    outer = replace(style, size=style.size * layout.outer_scale, align="left")
    outer_top = top + typeset.baseline_offset(style) - typeset.baseline_offset(outer)
    if layout.outer_left is not None:
        digit = text[layout.outer_left]
        put(digit, outer, left - module - typeset.width_of(digit, outer), outer_top)
    advance = typeset.width_of(text, style) / len(text)
    spacing = max(CHARACTER_MODULES * module - advance, 0.0)
    spread = replace(style, align="left", letter_spacing=spacing)
    for first, end, first_module, end_module in layout.groups:
        digits = text[first:end]
        width = len(digits) * advance + (len(digits) - 1) * spacing
        put(digits, spread, left + (first_module + end_module) / 2 * module - width / 2, top)
    if layout.outer_right is not None:
        put(text[layout.outer_right], outer, right + module, outer_top)


def bind_value(node: Any, value: Any) -> Any:
    normalise(require_string(value), node.data.format)
    return with_data(node, content=value)


ELEMENT = ElementType(
    name="barcode",
    summary="A linear barcode (CODE128 default, EAN13, EAN8, UPCA, CODE39, ITF, ISBN13); position {x, y, w, h}",
    Position=BoxPosition,
    Data=BarcodeData,
    Styles=BarcodeStyles,
    measure=box_size,
    draw=draw,
    title="Barcode",
    variable=VariableSpec(kind="code", field="data.content", accepts="a string valid for the format", apply=bind_value),
    editor=EditorHints(
        defaults={"position": {"w": 200, "h": 70}, "data": {"content": "DOCBENCH-0001", "format": "CODE128"}},
    ),
)
