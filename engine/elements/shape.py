"""Shapes: rectangle (optionally rounded), circle/ellipse, line and arrow, as vectors."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from ..design.colors import HexColor, to_rl
from .base import (
    Box,
    BoxPosition,
    DrawContext,
    EditorHints,
    ElementType,
    HitArea,
    NonNegative,
    Opacity,
    StrictModel,
    VariableSpec,
    box_size,
    require_string,
)

ShapeType = Literal["rectangle", "circle", "line", "arrow"]


class ShapeData(StrictModel):
    shapeType: ShapeType = "rectangle"
    alt: str | None = Field(None, max_length=2000, description="Alternative text; none marks it decorative")


class ShapeStyles(StrictModel):
    fill: HexColor | None = Field(None, description="Fill colour; null for none (lines ignore it)")
    stroke: HexColor | None = Field("#000000", description="Outline colour; null for none")
    strokeWidth: NonNegative = 1.0
    dash: list[Annotated[float, Field(ge=0, le=1000)]] | None = Field(
        None, max_length=16, description="Dash pattern in points, e.g. [4, 2]"
    )
    cornerRadius: NonNegative = Field(0.0, description="Rounds a rectangle's corners")
    opacity: Opacity = 1.0

    @field_validator("dash")
    @classmethod
    def _visible_dash(cls, dash: list[float] | None) -> list[float] | None:
        if dash is not None and dash and sum(dash) <= 0:
            raise ValueError("a dash pattern needs at least one length above 0, e.g. [4, 2]")
        return dash or None


def draw(node: Any, box: Box, ctx: DrawContext, part: Any = None) -> None:
    styles = node.styles
    canvas = ctx.canvas
    canvas.saveState()
    if styles.opacity < 1:
        canvas.setFillAlpha(styles.opacity)
        canvas.setStrokeAlpha(styles.opacity)
    stroke = styles.stroke is not None and styles.strokeWidth > 0
    if stroke:
        canvas.setStrokeColor(to_rl(styles.stroke))
        canvas.setLineWidth(styles.strokeWidth)
        if styles.dash:
            canvas.setDash(styles.dash)
    bottom = ctx.pdf_y(box.y, box.h)
    kind = node.data.shapeType
    if kind in ("line", "arrow"):
        _draw_line(ctx, box, styles, arrow=kind == "arrow")
    else:
        fill = styles.fill is not None
        if fill:
            canvas.setFillColor(to_rl(styles.fill))
        if kind == "circle":
            canvas.ellipse(box.x, bottom, box.x + box.w, bottom + box.h, stroke=int(stroke), fill=int(fill))
        elif styles.cornerRadius > 0:
            radius = min(styles.cornerRadius, box.w / 2, box.h / 2)
            canvas.roundRect(box.x, bottom, box.w, box.h, radius, stroke=int(stroke), fill=int(fill))
        else:
            canvas.rect(box.x, bottom, box.w, box.h, stroke=int(stroke), fill=int(fill))
    canvas.restoreState()


def _draw_line(ctx: DrawContext, box: Box, styles: ShapeStyles, arrow: bool) -> None:
    """A line runs from the box's top-left to its bottom-right corner (h = 0: horizontal)."""
    canvas = ctx.canvas
    x0, y0 = box.x, ctx.pdf_y(box.y)
    x1, y1 = box.x + box.w, ctx.pdf_y(box.y + box.h)
    if not arrow:
        canvas.line(x0, y0, x1, y1)
        return
    colour = to_rl(styles.stroke or "#000000")
    head = max(styles.strokeWidth * 4, 6.0)
    angle = math.atan2(y1 - y0, x1 - x0)
    # Stop the shaft inside the head so a thick line does not poke through its tip.
    shaft_end = (x1 - math.cos(angle) * head * 0.8, y1 - math.sin(angle) * head * 0.8)
    canvas.line(x0, y0, *shaft_end)
    path = canvas.beginPath()
    path.moveTo(x1, y1)
    for side in (1, -1):
        corner = angle + math.pi - side * math.radians(25)
        path.lineTo(x1 + math.cos(corner) * head, y1 + math.sin(corner) * head)
    path.close()
    canvas.setDash([])
    canvas.setFillColor(colour)
    canvas.drawPath(path, stroke=0, fill=1)


def bind_value(node: Any, value: Any) -> Any:
    from ..design.colors import check_hex

    check_hex(require_string(value))
    return node.model_copy(update={"styles": node.styles.model_copy(update={"fill": value})})


def hit_area(node: Any) -> HitArea:
    """An unfilled rectangle or circle is hit near its outline only: a page border drawn last
    must not take every click inside it. A line is hit along itself, not across its box."""
    kind = node.data.shapeType
    if kind in ("line", "arrow"):
        return "line"
    if node.styles.fill is not None:
        return "box"
    return "ellipse" if kind == "circle" else "stroke"


ELEMENT = ElementType(
    name="shape",
    summary="rectangle, circle, line or arrow in an explicit box; position {x, y, w, h}",
    Position=BoxPosition,
    Data=ShapeData,
    Styles=ShapeStyles,
    measure=box_size,
    draw=draw,
    title="Shape",
    variable=VariableSpec(kind="color", field="styles.fill", accepts="a hex colour string", apply=bind_value),
    editor=EditorHints(
        defaults={
            "position": {"w": 140, "h": 90},
            "data": {"shapeType": "rectangle"},
            "styles": {"fill": "#dbe7f7", "stroke": "#1f4e8c"},
        },
        hit_area_of=hit_area,
    ),
)
