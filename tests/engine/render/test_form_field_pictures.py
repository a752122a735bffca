"""A form field's widget (extensions.md 13) shows in the editor's preview and in a generation's
page pictures: PDFium draws widgets from their appearance streams only in its form environment."""

from __future__ import annotations

import io

from PIL import Image

from engine import render_pdf, render_png
from engine.render.pictures import PageOutput, page_pictures

from ...conftest import add, build

DPI = 72  # a pixel per point: the boxes below are pixel boxes too
TEXT_BOX = (60, 60, 260, 84)
CHECK_BOX = (60, 120, 80, 140)


def form():
    return build(
        [
            add("field", "name", {"x": 60, "y": 60, "w": 200, "h": 24}, {"value": "Ada Lovelace"}),
            add("field", "agree", {"x": 60, "y": 120, "w": 20, "h": 20}, {"fieldType": "checkbox", "value": True}),
        ]
    )


def dark_pixels(png: bytes, box: tuple[int, int, int, int]) -> int:
    image = Image.open(io.BytesIO(png)).convert("L").crop(box)
    return sum(1 for value in image.tobytes() if value < 128)


def test_the_preview_shows_a_fields_border_value_and_tick():
    png = render_png(form(), 0, dpi=DPI)
    assert dark_pixels(png, TEXT_BOX) > 150  # the border (448 px around) and "Ada Lovelace"
    assert dark_pixels(png, (66, 126, 74, 134)) > 5  # the tick inside the check box's border


def test_a_generations_page_pictures_show_the_fields():
    (png,) = page_pictures(render_pdf(form()), PageOutput(format="png", dpi=DPI))
    assert dark_pixels(png, TEXT_BOX) > 150
    assert dark_pixels(png, CHECK_BOX) > 40
