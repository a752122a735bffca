"""Image: an uploaded or library image in an explicit box, optionally cropped."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from ..media.images import REF_PATTERN, Crop, place
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
    with_data,
)
from .editing import HIDDEN, IMAGE, Widget

Fit = Literal["contain", "cover", "fill"]


def check_src(value: str) -> str:
    if REF_PATTERN.match(value) or value.startswith(("data:", "https://")):
        return value
    raise ValueError(
        f"'{value[:60]}' is not an image ref: use 'uploads:<id>' or 'assets:<id>' "
        "(a data: URI or https:// URL is stored as an upload by the service)"
    )


# Chosen from the image library (the Images panel), not typed.
ImageSrc = Annotated[str, AfterValidator(check_src), Widget(IMAGE)]


class CropBox(StrictModel):
    """The visible part of the source, as fractions 0-1 of its width and height."""

    x: float = Field(0, ge=0, le=1)
    y: float = Field(0, ge=0, le=1)
    w: float = Field(1, gt=0, le=1)
    h: float = Field(1, gt=0, le=1)

    @model_validator(mode="after")
    def _inside(self) -> CropBox:
        if self.x + self.w > 1.000001 or self.y + self.h > 1.000001:
            raise ValueError("crop must stay inside the image: x + w <= 1 and y + h <= 1")
        return self


# Cropping is done on the canvas, not in the properties form.
ImageCrop = Annotated[CropBox, Widget(HIDDEN)]


class ImageData(StrictModel):
    src: ImageSrc | None = Field(None, description="uploads:<id> or assets:<id> (an image, or a PDF: see pageNumber)")
    pageNumber: int | None = Field(
        None, ge=1, description="When src is a PDF: which of its pages is placed, as vectors (1-based, default 1)"
    )
    crop: ImageCrop | None = None
    fit: Fit = Field("contain", description="contain keeps it whole, cover fills and clips, fill stretches")
    alt: str | None = Field(None, max_length=2000, description="Alternative text; none marks it decorative")


class ImageStyles(StrictModel):
    opacity: Opacity = 1.0


def _fitted(fit: Fit, box: Box, px_w: int, px_h: int) -> tuple[float, float, float, float]:
    """The drawn rectangle (top-left x, y, w, h) of a px_w × px_h image in the box."""
    if fit == "fill" or px_w == 0 or px_h == 0:
        return box
    scale_w, scale_h = box.w / px_w, box.h / px_h
    scale = min(scale_w, scale_h) if fit == "contain" else max(scale_w, scale_h)
    w, h = px_w * scale, px_h * scale
    return box.x + (box.w - w) / 2, box.y + (box.h - h) / 2, w, h


def draw(node: Any, box: Box, ctx: DrawContext, part: Any = None) -> None:
    if not node.data.src or box.w <= 0 or box.h <= 0:
        return
    if ctx.images.is_pdf(node.data.src):
        _draw_pdf_page(node, box, ctx)
        return
    crop = node.data.crop
    image = ctx.images.prepared(
        node.data.src, Crop(crop.x, crop.y, crop.w, crop.h) if crop and crop != CropBox() else None
    )
    x, y, w, h = _fitted(node.data.fit, box, image.width, image.height)
    canvas = ctx.canvas
    canvas.saveState()
    if node.styles.opacity < 1:
        canvas.setFillAlpha(node.styles.opacity)
    if node.data.fit == "cover":
        clip = canvas.beginPath()
        clip.rect(box.x, ctx.pdf_y(box.y, box.h), box.w, box.h)
        canvas.clipPath(clip, stroke=0, fill=0)
    place(canvas, image, x, ctx.pdf_y(y, h), w, h)
    canvas.restoreState()


def _draw_pdf_page(node: Any, box: Box, ctx: DrawContext) -> None:
    """A page of a PDF placed as vector content (extensions.md 12), fitted as an image is: the
    crop (fractions of the page) is what is fitted, the rest of the page is clipped away."""
    page = ctx.images.placed_page(node.data.src, node.data.pageNumber, f"image '{node.name or node.id}'")
    crop = node.data.crop or CropBox()
    x, y, w, h = _fitted(node.data.fit, box, page.width * crop.w, page.height * crop.h)  # type: ignore[arg-type]
    canvas = ctx.canvas
    canvas.saveState()
    if node.styles.opacity < 1:
        canvas.setFillAlpha(node.styles.opacity)
        canvas.setStrokeAlpha(node.styles.opacity)
    clip = canvas.beginPath()
    if node.data.fit == "cover":
        clip.rect(box.x, ctx.pdf_y(box.y, box.h), box.w, box.h)
    else:
        clip.rect(x, ctx.pdf_y(y, h), w, h)
    canvas.clipPath(clip, stroke=0, fill=0)
    full_w, full_h = w / crop.w, h / crop.h
    left, top = x - crop.x * full_w, y - crop.y * full_h
    page.place(canvas, left, ctx.pdf_y(top, full_h), full_w, full_h)
    canvas.restoreState()


def bind_value(node: Any, value: Any) -> Any:
    if not isinstance(value, str) or not REF_PATTERN.match(value):
        raise ValueError("expected an image ref 'uploads:<id>' or 'assets:<id>'")
    return with_data(node, src=value)


ELEMENT = ElementType(
    name="image",
    summary="An image ref drawn into an explicit box; position {x, y, w, h}",
    Position=BoxPosition,
    Data=ImageData,
    Styles=ImageStyles,
    measure=box_size,
    draw=draw,
    title="Image",
    # The editor adds a placeholder asset as data.src when none is given.
    image_fields=("data.src",),
    variable=VariableSpec(
        kind="image",
        field="data.src",
        accepts="an image ref 'uploads:<id>' or 'assets:<id>'",
        apply=bind_value,
        image_ref=True,
    ),
    position_hints={"size": "images take an explicit box: send position.w and position.h"},
    # a picture resized from a corner keeps its proportions unless Shift is held
    editor=EditorHints(defaults={"position": {"w": 140, "h": 100}, "data": {"fit": "contain"}}, keeps_aspect=True),
)
