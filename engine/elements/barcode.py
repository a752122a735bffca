"""Barcodes drawn as vector modules: linear ones as bars with the human-readable value
beneath, 2-D ones (DataMatrix, PDF417, Aztec) as rows of modules.

The formats of the first contract (CODE128 … ISBN13) are encoded by python-barcode, as they
always were; those of extensions.md 14 by ZXing C++ (zint underneath), which encodes all of
them, GS1's FNC1 included: GS1-128's after the start character, GS1 DataMatrix's as its first
codeword, and a separator after each variable-length application identifier.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import Any, Literal, NamedTuple

import barcode as python_barcode
import numpy as np
import zxingcpp
from pydantic import Field, model_validator
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfgen.pathobject import PDFPathObject

from .. import fonts
from ..design.colors import HexColor, to_rl
from ..text import style as text_style
from ..text import typeset
from . import gs1
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

BarcodeFormat = Literal[
    "CODE128",
    "EAN13",
    "EAN8",
    "UPCA",
    "CODE39",
    "ITF",
    "ISBN13",
    "datamatrix",
    "gs1-datamatrix",
    "pdf417",
    "aztec",
    "upce",
    "gs1-128",
    "itf14",
]
# Drawn as a matrix of modules, fitted into the box with square modules (extensions.md 14).
MATRIX_FORMATS = frozenset({"datamatrix", "gs1-datamatrix", "pdf417", "aztec"})
GS1_FORMATS = frozenset({"gs1-datamatrix", "gs1-128"})
# The formats ZXing C++ encodes, and with which of its symbologies.
_ZXING: dict[str, zxingcpp.BarcodeFormat] = {
    "datamatrix": zxingcpp.BarcodeFormat.DataMatrix,
    "gs1-datamatrix": zxingcpp.BarcodeFormat.DataMatrix,
    "pdf417": zxingcpp.BarcodeFormat.PDF417,
    "aztec": zxingcpp.BarcodeFormat.Aztec,
    "upce": zxingcpp.BarcodeFormat.UPCE,
    "gs1-128": zxingcpp.BarcodeFormat.Code128,
    "itf14": zxingcpp.BarcodeFormat.ITF14,
}
# What the largest symbol of each 2-D format holds as zint encodes it here (square ISO
# DataMatrix up to 144 x 144; PDF417 and Aztec at zint's default error correction), named
# when content is refused as too long.
CAPACITY = {
    "datamatrix": "3116 digits, 2335 letters or 1556 bytes",
    "gs1-datamatrix": "3116 digits or 2335 letters of AIs and values",
    "pdf417": "2528 digits, 1725 letters or 1034 bytes",
    "aztec": "3835 digits, 3068 letters or 1915 bytes",
}
# The most characters any content of the format could be (all digits): longer content is
# refused before it reaches the encoder.
_MOST_CHARACTERS = {"datamatrix": 3116, "gs1-datamatrix": 3116, "pdf417": 2528, "aztec": 3835}
# GS1 General Specifications 5.4.1: a GS1-128 symbol holds at most 48 data characters.
GS1_128_MOST = 48
_UTF8_ECI = 26  # as for QR codes (engine/elements/qr.py): non-ASCII text declared UTF-8

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
    if fmt in _NEW_FORMATS:
        return _NEW_FORMATS[fmt](content)
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


def _upce(content: str) -> str:
    """The 8 digits of a UPC-E: number system, the 6 digits, check digit."""
    if not content.isascii() or not content.isdigit() or len(content) not in (6, 7, 8):
        raise ValueError("upce takes 6 digits, 7 with the number system (0 or 1) first, or 8 with the check digit last")
    digits = "0" + content if len(content) == 6 else content
    if digits[0] not in "01":
        raise ValueError(f"upce's number system is 0 or 1; {content} starts with {digits[0]}: write 0 or 1 first")
    check = gs1.check_digit(upce_to_upca(digits[:7]))
    if len(digits) == 8 and digits[7] != check:
        raise ValueError(f"check digit of {content} is wrong: it should be {check}")
    return digits[:7] + check


def upce_to_upca(digits: str) -> str:
    """The 11 digits of the UPC-A a UPC-E (number system and 6 digits) stands for, without the
    check digit: the last of the 6 says where the zeros suppressed go (GS1 General Specifications 5.2.2.4.2)."""
    system, d = digits[0], digits[1:7]
    last = d[5]
    if last in "012":
        return system + d[0:2] + last + "0000" + d[2:5]
    if last == "3":
        return system + d[0:3] + "00000" + d[3:5]
    if last == "4":
        return system + d[0:4] + "00000" + d[4]
    return system + d[0:5] + "0000" + last


def _itf14(content: str) -> str:
    if not content.isascii() or not content.isdigit() or len(content) not in (13, 14):
        raise ValueError("itf14 takes 13 digits, or 14 with the check digit")
    check = gs1.check_digit(content[:13])
    if len(content) == 14 and content[13] != check:
        raise ValueError(f"check digit of {content} is wrong: it should be {check}")
    return content[:13] + check


def _gs1_128(content: str) -> str:
    pairs = gs1.parse(content)
    if gs1.data_length(pairs) > GS1_128_MOST:
        raise ValueError(
            f"gs1-128 holds at most {GS1_128_MOST} characters of AIs and values; this has "
            f"{gs1.data_length(pairs)}: split it over two symbols or use gs1-datamatrix"
        )
    return gs1.element_string(pairs)


def _too_long(fmt: str, content: str) -> ValueError:
    return ValueError(
        f"content is too long for {fmt} ({len(content.encode())} bytes): its largest symbol holds "
        f"{CAPACITY[fmt]}; shorten it or split it over several codes"
    )


def _gs1_datamatrix(content: str) -> str:
    if len(content) > _MOST_CHARACTERS["gs1-datamatrix"]:
        raise _too_long("gs1-datamatrix", content)
    return gs1.element_string(gs1.parse(content))


def _any_text(fmt: str) -> Callable[[str], str]:
    def within(content: str) -> str:
        if len(content) > _MOST_CHARACTERS[fmt]:
            raise _too_long(fmt, content)
        return content

    return within


_NEW_FORMATS = {
    "upce": _upce,
    "itf14": _itf14,
    "gs1-128": _gs1_128,
    "gs1-datamatrix": _gs1_datamatrix,
    "datamatrix": _any_text("datamatrix"),
    "pdf417": _any_text("pdf417"),
    "aztec": _any_text("aztec"),
}


def check_encodable(content: str, fmt: BarcodeFormat) -> None:
    """Refuses, where a value is received, what draw could not encode: the format's own rules,
    then, for the formats ZXing encodes, the encoder itself (cached for the draw that follows;
    about 0.03 ms for a label's code, 1 ms for the largest DataMatrix)."""
    normalise(content, fmt)
    if fmt in MATRIX_FORMATS:
        matrix(content, fmt)
    elif fmt in _ZXING:
        bars(content, fmt)


def _zxing_modules(text: str, fmt: str) -> np.ndarray:
    """The symbol's dark modules (rows x columns) as ZXing draws them at one pixel a module,
    without quiet zones; ValueError naming the limit when it does not fit the format."""
    options: dict[str, Any] = {}
    encoded = text
    if fmt in GS1_FORMATS:
        options["gs1"] = True
        encoded = gs1.bracketed(gs1.parse(text))
    elif not text.isascii():
        options["eci"] = _UTF8_ECI
    if fmt in ("datamatrix", "gs1-datamatrix"):
        # ISO/IEC 16022's square sizes: the rectangular DMRE sizes zint would otherwise pick
        # for short content (ISO/IEC 21471) are not read by every scanner in use.
        options["force_square"] = True
    try:
        code = zxingcpp.create_barcode(encoded, _ZXING[fmt], **options)
    except ValueError as error:
        if fmt in CAPACITY and "too long" in str(error):
            raise _too_long(fmt, text) from None
        raise ValueError(f"{fmt} cannot encode this content: {error}") from None
    return np.asarray(code.to_image(scale=1, add_quiet_zones=False)) == 0


# zint draws ITF-14 inside a bearer box this many modules thick (its default border width);
# the bars are read from inside it and the bearer bars drawn by draw().
_ITF14_BOX = 5


def _zxing_bar_row(text: str, fmt: str) -> str:
    """The modules of a linear symbol ZXing encodes, "1" dark: its top row crosses every bar
    (UPC-E's guard bars only reach further down); ITF-14's middle row, less the box's sides."""
    dark = _zxing_modules(text, fmt)
    row = dark[dark.shape[0] // 2, _ITF14_BOX:-_ITF14_BOX] if fmt == "itf14" else dark[0]
    return "".join("1" if module else "0" for module in row.tolist())


@lru_cache(maxsize=4096)
def bars(content: str, fmt: BarcodeFormat) -> tuple[str, tuple[tuple[int, int], ...], int]:
    """(human-readable text, dark runs as (first module, length), module count)."""
    text = normalise(content, fmt)
    if fmt in _ZXING:
        modules = _zxing_bar_row(text, fmt)
        runs = tuple((m.start(), m.end() - m.start()) for m in re.finditer("1+", modules))
        return text, runs, len(modules)
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
    "upce": (11, 7),  # GS1 asks 9X left and 7X right; extensions.md 17 11X left
    "gs1-128": (10, 10),  # GS1 General Specifications 5.4.4.5: 10X each side
    "itf14": (10, 10),  # GS1 General Specifications 5.3.2.2: at least 10X each side
}
# 2-D symbols' quiet zone on every side, in modules, kept inside the box as for the bars.
MATRIX_QUIET_ZONES: dict[str, int] = {
    "datamatrix": 1,  # ISO/IEC 16022 and GS1: 1X
    "gs1-datamatrix": 1,
    "pdf417": 2,  # ISO/IEC 15438: 2X
    "aztec": 1,  # ISO/IEC 24778 asks none (its finder is in its centre); one keeps it off a dark frame
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
    # UPC-E: start guard, six characters, the six-module end guard; the number system left of
    # the bars and the check digit right of them, smaller, as UPC-A's outer digits.
    "upce": RetailLayout(((0, 3), (45, 51)), ((1, 7, 3, 45),), 0, 7, 0.75),
}
# ITF-14's bearer bars above and below the bars, in modules (GS1 General Specifications
# 5.3.4.6 asks at least 2X, 4.8X nominal): a skewed scan line leaving through the top or bottom
# meets a bearer rather than reading part of the symbol as a shorter ITF.
ITF14_BEARER = 4.8
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
        check_encodable(self.content, self.format)
        return self


class BarcodeStyles(StrictModel):
    color: HexColor = "#000000"
    backgroundColor: HexColor | None = None
    fontFamily: fonts.FontFamily = fonts.DEFAULT_FAMILY
    fontSize: float | None = Field(None, gt=0, le=200, description="Default: a fifth of the height, at most 12")


class Matrix(NamedTuple):
    """A 2-D symbol's dark runs, equal rows merged into one band (a PDF417 row is 3 modules
    tall): run i covers rows [band_rows[i], + band_heights[i]) and columns [starts[i], + lengths[i]),
    top to bottom, left to right. Two bytes a number: the largest DataMatrix has some 5,000
    runs, which as tuples of Python ints held ten times the memory in the cache."""

    text: str  # the human-readable text: a GS1 element string, or the content
    columns: int
    rows: int
    band_rows: np.ndarray
    band_heights: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray


@lru_cache(maxsize=512)
def matrix(content: str, fmt: BarcodeFormat) -> Matrix:
    """A 2-D symbol's modules as runs; ValueError when it cannot be encoded."""
    text = normalise(content, fmt)
    dark = _zxing_modules(text, fmt)
    changes = (np.nonzero(np.any(dark[1:] != dark[:-1], axis=1))[0] + 1).tolist()
    firsts = np.array([0, *changes])
    heights = np.diff(np.append(firsts, dark.shape[0]))
    # A run starts where a band's row steps from light to dark and ends where it steps back;
    # a light module added at both ends of each row closes runs at the edges.
    bands = dark[firsts]
    light = np.zeros((bands.shape[0], 1), dtype=bool)
    steps = np.diff(np.hstack((light, bands, light)).view(np.int8), axis=1)
    band, starts = np.nonzero(steps == 1)
    _, stops = np.nonzero(steps == -1)
    arrays = [firsts[band], heights[band], starts, stops - starts]
    arrays = [array.astype(np.uint16) for array in arrays]
    for array in arrays:
        array.flags.writeable = False  # shared through the cache
    return Matrix(text, dark.shape[1], dark.shape[0], *arrays)


@lru_cache(maxsize=256)
def _matrix_path(content: str, fmt: BarcodeFormat, left: float, top: float, module: float, page_height: float) -> str:
    """The dark modules as PDF path operators, one rectangle per run (as the QR element's
    _modules_path): one string per code and place, each edge's number formatted once."""
    symbol = matrix(content, fmt)
    steps = np.arange(max(symbol.columns, symbol.rows) + 1)
    xs = fp_str((left + steps * module).tolist()).split(" ")
    widths = fp_str((steps * module).tolist()).split(" ")
    ys = fp_str((page_height - (top + steps * module)).tolist()).split(" ")
    return "n " + " ".join(
        f"{xs[start]} {ys[row + height]} {widths[length]} {widths[height]} re"
        for row, height, start, length in zip(
            symbol.band_rows.tolist(),
            symbol.band_heights.tolist(),
            symbol.starts.tolist(),
            symbol.lengths.tolist(),
            strict=True,
        )
    )


def _line_style(styles: Any, height: float) -> text_style.TextStyle:
    size = styles.fontSize or min(height / 5, 12.0)
    return text_style.TextStyle(
        family=styles.fontFamily, size=size, line_height=1.15, color=styles.color, align="center"
    )


def _within(style: text_style.TextStyle, text: str, width: float) -> text_style.TextStyle:
    """The default size made small enough that a line (a GS1 element string is long) fits `width`."""
    wide = typeset.width_of(text, style)
    return style if wide <= width else replace(style, size=style.size * width / wide)


def _draw_matrix(node: Any, box: Box, ctx: DrawContext) -> None:
    """A 2-D symbol with square modules, as large as the box allows, centred in it; under it,
    for gs1-datamatrix with displayValue, the element string (GS1 General Specifications 4.15).
    DataMatrix, PDF417 and Aztec have no human-readable line of their own."""
    fmt = node.data.format
    symbol = matrix(node.data.content, fmt)
    styles = node.styles
    canvas = ctx.canvas
    canvas.saveState()
    if styles.backgroundColor:
        canvas.setFillColor(to_rl(styles.backgroundColor))
        canvas.rect(box.x, ctx.pdf_y(box.y, box.h), box.w, box.h, stroke=0, fill=1)
    style = None
    height = box.h
    if node.data.displayValue and fmt in GS1_FORMATS:
        style = _line_style(styles, box.h)
        if not styles.fontSize:
            style = _within(style, symbol.text, box.w)
        height = max(box.h - style.leading, box.h * 0.4)
    quiet = MATRIX_QUIET_ZONES[fmt]
    module = min(box.w / (symbol.columns + 2 * quiet), height / (symbol.rows + 2 * quiet))
    left = box.x + (box.w - symbol.columns * module) / 2
    top = box.y + (height - symbol.rows * module) / 2
    path = _matrix_path(node.data.content, fmt, left, top, module, ctx.page_height)
    canvas.setFillColor(to_rl(styles.color))
    canvas.drawPath(PDFPathObject(code=[path]), stroke=0, fill=1)
    if style is not None:
        line = typeset.Line(symbol.text, typeset.width_of(symbol.text, style), True)
        line_top = top + (symbol.rows + quiet) * module
        typeset.draw_lines(
            canvas, [line], style, box.x, line_top, box.w, ctx.page_height, direct=ctx.options.direct_text
        )
    canvas.restoreState()


def draw(node: Any, box: Box, ctx: DrawContext, part: Any = None) -> None:
    fmt = node.data.format
    if fmt in MATRIX_FORMATS:
        _draw_matrix(node, box, ctx)
        return
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
        style = _line_style(styles, box.h)
        if layout is not None and not styles.fontSize:
            style = _fitted(style, text, module)
        elif fmt in _ZXING and not styles.fontSize:
            style = _within(style, text, box.w)
        bar_height = max(box.h - style.leading, box.h * 0.4)
    # EAN/UPC guard bars reach half a line into the digits' line, between the groups.
    reach = style.leading / 2 if layout is not None and style is not None else 0.0
    canvas.setFillColor(to_rl(styles.color))
    bars_top, bars_height, bearers = box.y, bar_height, ""
    if fmt == "itf14":
        # The bearer bars span the box, quiet zones included, in the bars' path.
        bearer = min(ITF14_BEARER * module, bar_height / 6)
        bearers = "".join(
            f" {fp_str(box.x, ctx.pdf_y(y, bearer), box.w, bearer)} re" for y in (box.y, box.y + bar_height - bearer)
        )
        bars_top, bars_height = box.y + bearer, bar_height - 2 * bearer
    path = _bars_path(node.data.content, fmt, left, module, ctx.pdf_y(bars_top, bars_height), bars_height, reach)
    canvas.drawPath(PDFPathObject(code=[path + bearers]), stroke=0, fill=1)
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
    check_encodable(require_string(value), node.data.format)
    return with_data(node, content=value)


def _shape(fmt: str) -> str:
    return fmt if fmt in ("pdf417", "gs1-datamatrix") else "square" if fmt in MATRIX_FORMATS else "linear"


def box_for_format(node: Any, changes: dict) -> dict:
    """The editor's edit with the box reshaped when the format's shape changes: a linear code's
    wide box would draw a DataMatrix as a small square in its middle. Square codes take a square
    box, PDF417 a box three times as wide as high, GS1 DataMatrix room for its element string
    under it; a linear code is given back a barcode's proportions."""
    new = (changes.get("data") or {}).get("format")
    if new is None or "position" in changes or _shape(new) == _shape(node.data.format):
        return changes
    w, h = node.position.w, node.position.h
    shape = _shape(new)
    if shape == "square":
        box = {"w": min(w, h), "h": min(w, h)}
    elif shape == "pdf417":
        box = {"h": round(w / 3, 2)}
    elif shape == "gs1-datamatrix":
        box = {"h": round(w / 2, 2)}
    else:
        wide = max(w, 200.0)
        box = {"w": wide, "h": round(wide * 0.35, 2)}
    return {**changes, "position": box}


ELEMENT = ElementType(
    name="barcode",
    summary=(
        "A barcode (CODE128 default, EAN13, EAN8, UPCA, CODE39, ITF, ISBN13, upce, itf14, gs1-128; "
        "2-D: datamatrix, gs1-datamatrix, pdf417, aztec); position {x, y, w, h}"
    ),
    Position=BoxPosition,
    Data=BarcodeData,
    Styles=BarcodeStyles,
    measure=box_size,
    draw=draw,
    title="Barcode",
    variable=VariableSpec(kind="code", field="data.content", accepts="a string valid for the format", apply=bind_value),
    editor=EditorHints(
        defaults={"position": {"w": 200, "h": 70}, "data": {"content": "DOCBENCH-0001", "format": "CODE128"}},
        edited=box_for_format,
    ),
)
