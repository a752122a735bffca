"""Icon: one of the bundled outline icons (Tabler), drawn as vectors."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field

from ..design.colors import HexColor
from ..media import icons
from .base import (
    Box,
    BoxPosition,
    DrawContext,
    EditorHints,
    ElementType,
    Opacity,
    StrictModel,
    VariableSpec,
    box_size,
    require_string,
    with_data,
)
from .editing import ICON, Widget


def check_icon(value: str) -> str:
    if not icons.has_icon(value):
        try:
            icons.icon_svg(value)
        except KeyError as exc:
            raise ValueError(str(exc).strip("'\"")) from None
    return value


IconId = Annotated[str, AfterValidator(check_icon), Widget(ICON)]


class IconData(StrictModel):
    iconId: IconId = Field("star", description="A bundled outline icon id, e.g. star, check, mail")
    alt: str | None = Field(None, max_length=2000, description="Alternative text; none marks it decorative")


class IconStyles(StrictModel):
    color: HexColor = "#000000"
    strokeWidth: float = Field(2.0, gt=0, le=10, description="Outline width in icon units (24 per side)")
    opacity: Opacity = 1.0


def draw(node: Any, box: Box, ctx: DrawContext, part: Any = None) -> None:
    if box.w <= 0 or box.h <= 0:
        return
    canvas = ctx.canvas
    canvas.saveState()
    if node.styles.opacity < 1:
        canvas.setFillAlpha(node.styles.opacity)
        canvas.setStrokeAlpha(node.styles.opacity)
    icons.draw_icon(
        canvas,
        node.data.iconId,
        box.x,
        ctx.pdf_y(box.y, box.h),
        box.w,
        box.h,
        color=node.styles.color,
        stroke_width=node.styles.strokeWidth,
    )
    canvas.restoreState()


def bind_value(node: Any, value: Any) -> Any:
    return with_data(node, iconId=check_icon(require_string(value)))


ELEMENT = ElementType(
    name="icon",
    summary="A bundled outline icon in an explicit box; position {x, y, w, h}",
    Position=BoxPosition,
    Data=IconData,
    Styles=IconStyles,
    measure=box_size,
    draw=draw,
    title="Icon",
    variable=VariableSpec(kind="icon", field="data.iconId", accepts="an icon id string", apply=bind_value),
    editor=EditorHints(
        defaults={"position": {"w": 48, "h": 48}, "data": {"iconId": "star"}, "styles": {"color": "#1f4e8c"}},
    ),
)
