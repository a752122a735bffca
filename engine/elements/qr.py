"""QR code: always square (spec 4.4), drawn as vector modules, matrix cached by content.

Encoded by ZXing C++ (zint underneath): about 0.1 ms a code where a pure-Python encoder
took 2.4 ms, which was a third of a certificate's render (issue 20).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal

import numpy as np
import zxingcpp
from pydantic import Field, model_validator
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfgen.pathobject import PDFPathObject

from ..design.colors import HexColor, to_rl
from .base import (
    MAX_LENGTH,
    Box,
    Coordinate,
    DrawContext,
    EditorHints,
    ElementType,
    StrictModel,
    VariableSpec,
    require_string,
    with_data,
)
from .editing import MULTILINE, Widget

ErrorCorrection = Literal["L", "M", "Q", "H"]
# ECI 26 is UTF-8 (ISO/IEC 18004 6.4.2): left to itself zint writes non-ASCII text in the
# smallest legacy charset that holds it (ISO 8859-7 for Greek, Shift JIS for Cyrillic) and
# declares it, which fewer readers follow than UTF-8; a reader that ignores the ECI still
# finds UTF-8 bytes, as it did from the pure-Python encoder. ASCII needs no declaration.
_UTF8_ECI = 26


# ISO/IEC 18004: four light modules on every side. A stored design holds its styles'
# defaults as values, so those saved before issue 33 say quietZone 2: a smaller quietZone
# than this is drawn as this, a larger one as given.
QUIET_ZONE = 4


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
    quietZone: int = Field(
        QUIET_ZONE,
        ge=0,
        le=8,
        description="Blank modules around the code, inside its square: at least 4 (ISO/IEC 18004) are kept",
    )


Runs = tuple[np.ndarray, np.ndarray, np.ndarray]  # rows, first columns, lengths of the dark runs


def _encode(content: str, level: ErrorCorrection) -> zxingcpp.Barcode:
    """ValueError (zint's message) when `content` does not fit a version-40 code at `level`."""
    options: dict[str, Any] = {"ec_level": level}
    if not content.isascii():
        options["eci"] = _UTF8_ECI
    return zxingcpp.create_barcode(content, zxingcpp.BarcodeFormat.QRCode, **options)


@lru_cache(maxsize=2048)
def module_runs(content: str, level: ErrorCorrection) -> tuple[int, Runs]:
    """(modules per side, the dark runs of each row, row by row, left to right)."""
    image = _encode(content, level).to_image(scale=1, add_quiet_zones=False)
    dark = np.asarray(image) == 0
    # A run starts where a row steps from light to dark and ends where it steps back;
    # a light module added at both ends of each row closes runs at the edges.
    light = np.zeros((dark.shape[0], 1), dtype=bool)
    steps = np.diff(np.hstack((light, dark, light)).view(np.int8), axis=1)
    rows, starts = np.nonzero(steps == 1)
    _, ends = np.nonzero(steps == -1)
    # One byte each (a code has at most 177 modules a side): an eighth of the cache's memory.
    runs = (rows.astype(np.uint8), starts.astype(np.uint8), (ends - starts).astype(np.uint8))
    for array in runs:
        array.flags.writeable = False  # shared through the cache
    return dark.shape[0], runs


# Bytes a version-40 code holds in byte mode, per level (ISO/IEC 18004 table 7). Every text
# fits in byte mode, so content within these (less room for the UTF-8 ECI header) is encodable.
_BYTE_CAPACITY: dict[str, int] = {"L": 2953, "M": 2331, "Q": 1663, "H": 1273}
_ECI_ROOM = 2  # the ECI header's 12 bits, rounded up


def check_encodable(content: str, level: ErrorCorrection) -> None:
    """Refuses, where a value is received, what draw could not encode. Content within byte
    mode's capacity is accepted at once (a batch's web process checks every row's value);
    longer content is tried with the encoder itself, which may pack digits or letters tighter."""
    if len(content.encode()) <= _BYTE_CAPACITY[level] - _ECI_ROOM:
        return
    try:
        module_runs(content, level)
    except ValueError:
        raise ValueError(
            f"content is too long for a QR code at error correction {level} "
            f"({len(content.encode())} bytes); shorten it or use level L"
        ) from None


# A path string is about 10 kB for a 29-module code: the cache serves the same code drawn
# again (previews, a design's fixed code) without holding every row's.
@lru_cache(maxsize=256)
def _modules_path(
    content: str, level: ErrorCorrection, left: float, top: float, module: float, page_height: float
) -> str:
    """The dark modules as PDF path operators ("n x y w h re ..."), numbers written by
    ReportLab's fp_str as PDFPathObject.rect writes them: one string per code and place,
    where hundreds of rect calls formatted each number on their own."""
    count, (rows, starts, lengths) = module_runs(content, level)
    # A run's x depends only on its column, its y on its row, its width on its length: format
    # each of those `count` values once (fp_str took 0.3 ms over a code's thousand numbers),
    # computed with the same float operations in the same order as the rect calls were.
    steps = np.arange(count + 1)
    xs = fp_str((left + steps * module).tolist()).split(" ")
    ys = fp_str((page_height - (top + (steps + 1) * module) - 0.0).tolist()).split(" ")
    widths = fp_str((steps * module).tolist()).split(" ")
    height = fp_str(module)
    return "n " + " ".join(
        f"{xs[start]} {ys[row]} {widths[length]} {height} re"
        for row, start, length in zip(rows.tolist(), starts.tolist(), lengths.tolist(), strict=True)
    )


def measure(node: Any) -> tuple[float, float]:
    return node.position.size, node.position.size


def draw(node: Any, box: Box, ctx: DrawContext, part: Any = None) -> None:
    count, _ = module_runs(node.data.content, node.data.errorCorrection)
    styles = node.styles
    canvas = ctx.canvas
    bottom = ctx.pdf_y(box.y, box.h)
    canvas.saveState()
    if styles.backgroundColor:
        canvas.setFillColor(to_rl(styles.backgroundColor))
        canvas.rect(box.x, bottom, box.w, box.h, stroke=0, fill=1)
    quiet = max(styles.quietZone, QUIET_ZONE)
    module = box.w / (count + 2 * quiet)
    left = box.x + module * quiet
    top = box.y + module * quiet
    path = _modules_path(node.data.content, node.data.errorCorrection, left, top, module, ctx.page_height)
    canvas.setFillColor(to_rl(styles.color))
    canvas.drawPath(PDFPathObject(code=[path]), stroke=0, fill=1)
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
    variable=VariableSpec(kind="code", field="data.content", accepts="a string", apply=bind_value),
    position_hints={
        "w": "QR codes are square: use position.size",
        "h": "QR codes are square: use position.size",
    },
    editor=EditorHints(defaults={"position": {"size": 96}, "data": {"content": "https://example.com"}}),
)
