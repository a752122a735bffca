"""A watermark drawn over every page (extensions.md 9: `{ text, opacity?, angle?, color? }`).

Free previews with values (`POST /designs/:id/preview`) always carry one ("PREVIEW"), so a
picture made without spending a credit is never mistaken for the PDF a generation makes.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas

from ..design.colors import to_rl

# The turned text fits in this share of the page, whatever the paper and the angle.
PAGE_SHARE = 0.8
CAP_HEIGHT = 0.7  # of the font size, near enough for fitting capitals


class Watermark(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(min_length=1, max_length=200)
    opacity: float = Field(0.15, ge=0, le=1)
    angle: float = Field(45, ge=-360, le=360, description="Degrees, counter-clockwise")
    color: str = Field("#808080", pattern=r"^#[0-9a-fA-F]{6}$")


def draw_watermark(canvas: Canvas, width: float, height: float, watermark: Watermark, font_name: str) -> None:
    """The text centred on the page, turned by its angle, over everything drawn before it."""
    unit = pdfmetrics.stringWidth(watermark.text, font_name, 1) or 1  # its length at size 1
    cos, sin = abs(math.cos(math.radians(watermark.angle))), abs(math.sin(math.radians(watermark.angle)))
    # The box of the turned text at size 1, across and up the page.
    across, up = unit * cos + CAP_HEIGHT * sin, unit * sin + CAP_HEIGHT * cos
    size = PAGE_SHARE * min(width / across, height / up)
    canvas.saveState()
    colour = to_rl(watermark.color)
    canvas.setFillColor(colour)
    canvas.setFillAlpha(watermark.opacity)
    canvas.translate(width / 2, height / 2)
    canvas.rotate(watermark.angle)
    canvas.setFont(font_name, size)
    canvas.drawCentredString(0, -size * CAP_HEIGHT / 2, watermark.text)  # the capitals' middle on the centre
    canvas.restoreState()


__all__ = ["Watermark", "draw_watermark"]
