"""Linear barcodes drawn as vector bars, with the human-readable value beneath."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Literal

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


@lru_cache(maxsize=1024)
def _bars_path(content: str, fmt: BarcodeFormat, left: float, width: float, bottom: float, height: float) -> str:
    """The bars as PDF path operators ("n x y w h re ..."), numbers written by ReportLab's
    fp_str as PDFPathObject.rect writes them: one string per code and place, where a rect
    call per bar formatted each number on its own."""
    _, runs, count = bars(content, fmt)
    module = width / count
    return "n " + " ".join(
        f"{fp_str(left + start * module, bottom, length * module, height)} re" for start, length in runs
    )


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
    text, _, _ = bars(node.data.content, node.data.format)
    styles = node.styles
    canvas = ctx.canvas
    canvas.saveState()
    if styles.backgroundColor:
        canvas.setFillColor(to_rl(styles.backgroundColor))
        canvas.rect(box.x, ctx.pdf_y(box.y, box.h), box.w, box.h, stroke=0, fill=1)
    bar_height = box.h
    style = None
    if node.data.displayValue:
        size = styles.fontSize or min(box.h / 5, 12.0)
        style = text_style.TextStyle(
            family=styles.fontFamily, size=size, line_height=1.15, color=styles.color, align="center"
        )
        bar_height = max(box.h - style.leading, box.h * 0.4)
    path = _bars_path(node.data.content, node.data.format, box.x, box.w, ctx.pdf_y(box.y, bar_height), bar_height)
    canvas.setFillColor(to_rl(styles.color))
    canvas.drawPath(PDFPathObject(code=[path]), stroke=0, fill=1)
    if style is not None:
        line = typeset.Line(text, typeset.width_of(text, style), True)
        top = box.y + bar_height
        typeset.draw_lines(canvas, [line], style, box.x, top, box.w, ctx.page_height, direct=ctx.options.direct_text)
    canvas.restoreState()


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
