"""QR code: always square (spec 4.4), drawn as vector modules, matrix cached by content."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal

import qrcode
import qrcode.constants
from pydantic import Field, model_validator
from qrcode.exceptions import DataOverflowError

from ..colors import HexColor, to_rl
from ..editing import MULTILINE, Widget
from .base import (
    MAX_LENGTH,
    Box,
    Coordinate,
    DrawContext,
    ElementType,
    StrictModel,
    VariableSpec,
    require_string,
    with_data,
)

ErrorCorrection = Literal["L", "M", "Q", "H"]
_LEVELS = {
    "L": qrcode.constants.ERROR_CORRECT_L,
    "M": qrcode.constants.ERROR_CORRECT_M,
    "Q": qrcode.constants.ERROR_CORRECT_Q,
    "H": qrcode.constants.ERROR_CORRECT_H,
}


class QrPosition(StrictModel):
    x: Coordinate
    y: Coordinate
    size: float = Field(gt=0, le=MAX_LENGTH, description="Side of the square in points")


# A QR code often holds several lines (a vCard, Wi-Fi settings).
QrContent = Annotated[str, Widget(MULTILINE)]


class QrData(StrictModel):
    content: QrContent = Field(description="Text or URL to encode")
    errorCorrection: ErrorCorrection = Field("M", description="L 7%, M 15%, Q 25%, H 30% recoverable")
    alt: str | None = Field(None, max_length=2000, description="Alternative text; none marks it decorative")

    @model_validator(mode="after")
    def _encodable(self) -> QrData:
        check_encodable(self.content, self.errorCorrection)
        return self


class QrStyles(StrictModel):
    color: HexColor = "#000000"
    backgroundColor: HexColor | None = Field("#ffffff", description="null for transparent")
    quietZone: int = Field(2, ge=0, le=8, description="Blank modules around the code (scanners want 2-4)")


@lru_cache(maxsize=2048)
def module_runs(content: str, level: ErrorCorrection) -> tuple[int, tuple[tuple[int, int, int], ...]]:
    """(modules per side, dark runs as (row, first column, length))."""
    code = qrcode.QRCode(error_correction=_LEVELS[level], border=0)
    code.add_data(content)
    code.make(fit=True)
    matrix = code.get_matrix()
    runs: list[tuple[int, int, int]] = []
    for row_index, row in enumerate(matrix):
        col = 0
        while col < len(row):
            if row[col]:
                start = col
                while col < len(row) and row[col]:
                    col += 1
                runs.append((row_index, start, col - start))
            else:
                col += 1
    return len(matrix), tuple(runs)


@lru_cache(maxsize=2048)
def _fit(content: str, level: ErrorCorrection) -> int:
    """The QR version that holds `content`, from its length alone: 0.1 ms, where drawing the
    matrix (mask patterns tried) takes 10 ms, and a value is checked where it is received,
    not in the render process that draws it."""
    code = qrcode.QRCode(error_correction=_LEVELS[level], border=0)
    code.add_data(content)
    return code.best_fit()


def check_encodable(content: str, level: ErrorCorrection) -> None:
    try:
        _fit(content, level)
    except (DataOverflowError, ValueError):
        # qrcode reports overflow as DataOverflowError or, past version 40, ValueError.
        raise ValueError(
            f"content is too long for a QR code at error correction {level} "
            f"({len(content.encode())} bytes); shorten it or use level L"
        ) from None


def measure(node: Any) -> tuple[float, float]:
    return node.position.size, node.position.size


def draw(node: Any, box: Box, ctx: DrawContext, part: Any = None) -> None:
    count, runs = module_runs(node.data.content, node.data.errorCorrection)
    styles = node.styles
    canvas = ctx.canvas
    bottom = ctx.pdf_y(box.y, box.h)
    canvas.saveState()
    if styles.backgroundColor:
        canvas.setFillColor(to_rl(styles.backgroundColor))
        canvas.rect(box.x, bottom, box.w, box.h, stroke=0, fill=1)
    module = box.w / (count + 2 * styles.quietZone)
    left = box.x + module * styles.quietZone
    top = box.y + module * styles.quietZone
    path = canvas.beginPath()
    for row, col, length in runs:
        path.rect(left + col * module, ctx.pdf_y(top + (row + 1) * module), length * module, module)
    canvas.setFillColor(to_rl(styles.color))
    canvas.drawPath(path, stroke=0, fill=1)
    canvas.restoreState()


def bind_value(node: Any, value: Any) -> Any:
    check_encodable(require_string(value), node.data.errorCorrection)
    return with_data(node, content=value)


ELEMENT = ElementType(
    name="qr",
    summary="A QR code, always square; position {x, y, size}",
    Position=QrPosition,
    Data=QrData,
    Styles=QrStyles,
    measure=measure,
    draw=draw,
    title="QR code",
    defaults={"position": {"size": 96}, "data": {"content": "https://example.com"}},
    variable=VariableSpec(kind="code", field="data.content", accepts="a string", apply=bind_value),
    position_hints={
        "w": "QR codes are square: use position.size",
        "h": "QR codes are square: use position.size",
    },
)
