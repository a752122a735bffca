"""Text: a string or a list, sized from its content (spec 4.4: the box hugs the text
unless `position.maxWidth` pins the width and the content wraps inside it)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, model_validator

from .. import fields as placeholders
from .. import typeset
from ..colors import HexColor
from ..editing import MULTILINE, WEIGHT, Widget
from ..fonts import DEFAULT_FAMILY, FontFamily
from ..formatting import DataType, check_format, check_locale, check_value, format_value
from .base import (
    MAX_LENGTH,
    Box,
    Coordinate,
    DrawContext,
    ElementType,
    FieldHost,
    InlineText,
    Opacity,
    StrictModel,
    TextLook,
    VariableSpec,
    merge_keys,
    with_data,
)

ListFormat = Literal["none", "ordered", "unordered"]
TextRole = Literal["p", "h1", "h2", "h3", "h4", "h5", "h6"]
BULLET = "\u2022"


def _weight(value: Any) -> Any:
    named = {"normal": 400, "regular": 400, "medium": 500, "semibold": 600, "bold": 700}
    return named.get(value, value) if isinstance(value, str) else value


FontWeight = Annotated[int, BeforeValidator(_weight), Field(ge=100, le=900), Widget(WEIGHT)]


def _lines(content: str | list[str]) -> str:
    return "\n".join(content) if isinstance(content, list) else content


def _content(current: str | list[str], edited: str) -> str | list[str]:
    """An edit of the lines back to the content's shape: list items stay a list."""
    return edited.split("\n") if isinstance(current, list) else edited


# One text area for a string or for list items, one per line.
TextContent = Annotated[str | list[str], Widget(MULTILINE, shown=_lines, stored=_content)]


class TextPosition(StrictModel):
    x: Coordinate
    y: Coordinate
    maxWidth: float | None = Field(
        None, gt=0, le=MAX_LENGTH, description="Pins the box width; the text wraps inside it"
    )


class TextData(StrictModel):
    content: TextContent = Field("", description="A string, or item strings when listFormat is a list")
    listFormat: ListFormat = "none"
    listStart: int = Field(1, ge=0, description="The first number of an ordered list")
    dataType: DataType = Field("string", description="How values are read and shown")
    format: str | None = Field(
        None, description="LDML pattern for number/currency/date values, e.g. '#,##0.00' or 'd MMMM y'"
    )
    locale: Annotated[str, AfterValidator(check_locale)] = "en"
    currency: str = Field("USD", pattern=r"^[A-Z]{3}$", description="ISO 4217 code for dataType currency")
    role: TextRole = Field("p", description="Structure role: a paragraph or a heading level")
    fields: bool = Field(
        False,
        description="When true, {name} in content is a placeholder filled at generation ({{ and }} are literal "
        "braces; {page} and {pages} are the sheet's number and the sheet count)",
    )
    samples: dict[str, str] = Field(
        default_factory=dict, description="Placeholder name -> design-time value, shown when a generation gives none"
    )

    @model_validator(mode="after")
    def _consistent(self) -> TextData:
        if self.listFormat == "none" and isinstance(self.content, list):
            raise ValueError("content is a list: set data.listFormat to 'ordered' or 'unordered', or send a string")
        if self.listFormat != "none" and isinstance(self.content, str):
            self.content = self.content.split("\n") if self.content else []
        check_fields(self)
        if self.dataType != "string":
            check_format(self.dataType, self.format, self.locale, self.currency)
            for item in self.items():
                if item != "":
                    check_value(item, self.dataType, self.format, self.locale, self.currency)
        return self

    def items(self) -> list[str]:
        return self.content if isinstance(self.content, list) else [self.content]


class TextStyles(StrictModel):
    fontFamily: FontFamily = DEFAULT_FAMILY
    fontSize: float = Field(12, gt=0, le=1000)
    fontWeight: FontWeight = 400
    italic: bool = False
    underline: bool = False
    color: HexColor = "#000000"
    align: typeset.Align = "left"
    lineHeight: float = Field(1.2, gt=0, le=10, description="A multiple of fontSize")
    opacity: Opacity = 1.0


def check_fields(data: TextData) -> None:
    """extensions.md 1: a valid template in each item, samples only of its placeholders."""
    if not data.fields:
        if data.samples:
            raise ValueError("data.samples holds placeholder values: set data.fields to true, or send no samples")
        return
    if data.dataType != "string":
        raise ValueError("data.fields needs dataType 'string': placeholders are text, not a number or a date")
    items = data.items()
    for position, item in enumerate(items):
        try:
            placeholders.parse(item)
        except placeholders.FieldSyntaxError as exc:
            where = f"item {position}, " if isinstance(data.content, list) else ""
            raise ValueError(f"content: {where}{exc}") from None
    known = placeholders.variable_names(items)
    for name in data.samples:
        if name in placeholders.RESERVED:
            what = "number" if name == placeholders.PAGE else "count"
            raise ValueError(f"samples: '{name}' is the sheet's {what}, not a sample")
        if name not in known:
            shown = ", ".join(known) or "none"
            raise ValueError(f"samples: no placeholder {{{name}}} in the content (its placeholders: {shown})")


def text_style(styles: Any) -> typeset.TextStyle:
    """The typesetting style of an element's (or a table cell's) styles."""
    return typeset.TextStyle(
        family=styles.fontFamily,
        weight=styles.fontWeight,
        italic=styles.italic,
        size=styles.fontSize,
        line_height=styles.lineHeight,
        color=styles.color,
        align=styles.align,
        underline=styles.underline,
    )


def display_items(data: TextData, sheet: placeholders.Sheet = placeholders.DESIGN_SHEET) -> tuple[str, ...]:
    """The strings shown: each value formatted by dataType/format; with fields, each
    placeholder replaced by its sample (a generation's values are samples by then,
    engine.field_variables) and {page}/{pages} by the sheet's."""
    if data.fields:
        return tuple(placeholders.fill(item, data.samples, sheet) for item in data.items())
    if data.dataType == "string":
        return tuple(data.items())
    return tuple(
        format_value(item, data.dataType, data.format, data.locale, data.currency) if item else ""
        for item in data.items()
    )


def _markers(data: TextData, count: int) -> list[str]:
    if data.listFormat == "unordered":
        return [BULLET] * count
    if data.listFormat == "ordered":
        return [f"{data.listStart + i}." for i in range(count)]
    return [""] * count


@lru_cache(maxsize=4096)
def _layout(
    items: tuple[str, ...], markers: tuple[str, ...], style: typeset.TextStyle, max_width: float | None
) -> tuple[float, float, tuple[tuple[str, tuple[typeset.Line, ...]], ...]]:
    """(indent, content width, [(marker, lines)]) for a text block."""
    indent = 0.0
    if any(markers):
        indent = max(typeset.width_of(m, style) for m in markers) + style.size * 0.5
    inner = None if max_width is None else max(max_width - indent, 1.0)
    blocks = tuple((m, tuple(typeset.wrap(item, style, inner))) for m, item in zip(markers, items, strict=True))
    widest = max((line.width for _, lines in blocks for line in lines), default=0.0)
    return indent, widest, blocks


def layout(node: Any, sheet: placeholders.Sheet = placeholders.DESIGN_SHEET):
    items = display_items(node.data, sheet)
    return _layout(items, tuple(_markers(node.data, len(items))), text_style(node.styles), node.position.maxWidth)


def measure(node: Any) -> tuple[float, float]:
    indent, widest, blocks = layout(node)
    line_count = sum(len(lines) for _, lines in blocks)
    width = node.position.maxWidth if node.position.maxWidth is not None else indent + widest
    return width, line_count * node.styles.fontSize * node.styles.lineHeight


def draw(node: Any, box: Box, ctx: DrawContext, part: Any = None) -> None:
    indent, widest, blocks = layout(node, ctx.sheet)
    if node.data.fields and node.position.maxWidth is None:
        box = box._replace(w=indent + widest)  # {page}/{pages} were measured as sheet 1 of 1
    style = text_style(node.styles)
    canvas = ctx.canvas
    tags = ctx.tags
    marker_style = typeset.TextStyle(
        style.family, style.weight, style.italic, style.size, style.line_height, style.color
    )

    def draw_lines(lines: tuple[typeset.Line, ...], top: float) -> None:
        typeset.draw_lines(canvas, list(lines), style, box.x + indent, top, box.w - indent, ctx.page_height)

    def spoken(lines: tuple[typeset.Line, ...]) -> str:
        # Wrapped lines lose the space they broke at in extracted text; ActualText keeps it.
        return " ".join(line.text for line in lines)

    canvas.saveState()
    if node.styles.opacity < 1:
        canvas.setFillAlpha(node.styles.opacity)
        canvas.setStrokeAlpha(node.styles.opacity)
    top = box.y
    if node.data.listFormat == "none":
        lines = blocks[0][1] if blocks else ()
        with tags.content(canvas, node.data.role.upper() if node.data.role != "p" else "P", ActualText=spoken(lines)):
            draw_lines(lines, top)
    else:
        with tags.group("L", ListNumbering="Decimal" if node.data.listFormat == "ordered" else "Disc"):
            for marker, lines in blocks:
                with tags.group("LI"):
                    with tags.content(canvas, "Lbl"):
                        marker_line = typeset.Line(marker, typeset.width_of(marker, style), True)
                        typeset.draw_lines(canvas, [marker_line], marker_style, box.x, top, indent, ctx.page_height)
                    with tags.content(canvas, "LBody", ActualText=spoken(lines)):
                        draw_lines(lines, top)
                top += len(lines) * style.leading
    canvas.restoreState()


def bind_value(node: Any, value: Any) -> Any:
    data = node.data
    if data.listFormat != "none":
        if isinstance(value, str):
            value = value.split("\n") if value else []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError("expected a string or a list of strings for a list text")
    elif isinstance(value, list):
        raise ValueError("expected a single value: this text is not a list (its listFormat is none)")
    for item in value if isinstance(value, list) else [value]:
        if item != "" or data.dataType == "string":
            check_value(item, data.dataType, data.format, data.locale, data.currency)
    content = value if isinstance(value, list) else (value if isinstance(value, str) else str(value))
    return with_data(node, content=content)


def field_text(node: Any) -> str:
    """What a placeholder named after this (bound) text shows: its content as displayed."""
    return "\n".join(display_items(node.data))


def field_names(node: Any) -> tuple[str, ...]:
    return placeholders.variable_names(node.data.items()) if node.data.fields else ()


def with_field_values(node: Any, values: Mapping[str, str]) -> Any:
    """The node showing `values` for its placeholders: they take the samples' place, so the
    layout and drawing of a filled text are those of a design-time one."""
    return with_data(node, samples={**node.data.samples, **values})


def merge_data(current: dict, patch: dict) -> dict:
    """Key-by-key merge; switching a list back to plain text joins its items by lines."""
    merged = merge_keys(current, patch)
    turned_plain = "listFormat" in patch and patch["listFormat"] in (None, "none")
    if turned_plain and "content" not in patch and isinstance(merged.get("content"), list):
        merged["content"] = "\n".join(merged["content"])
    return _without_stale_samples(patch, merged)


def _without_stale_samples(patch: dict, merged: dict) -> dict:
    """extensions.md 1: samples of placeholders no longer in the content are dropped when the
    content changes (or fields are turned off); samples sent in the patch are checked instead."""
    samples = merged.get("samples")
    if "samples" in patch or not isinstance(samples, dict) or not samples:
        return merged
    if not merged.get("fields"):
        merged.pop("samples")
        return merged
    content = merged.get("content", "")
    items = content if isinstance(content, list) else [content]
    if "content" not in patch or not all(isinstance(item, str) for item in items):
        return merged
    try:
        kept = placeholders.variable_names(items)
    except placeholders.FieldSyntaxError:
        return merged  # the model refuses the content, naming the brace
    merged["samples"] = {name: value for name, value in samples.items() if name in kept}
    return merged


def look(node: Any) -> TextLook:
    styles = node.styles
    return TextLook(
        family=styles.fontFamily,
        size=styles.fontSize,
        weight=styles.fontWeight,
        italic=styles.italic,
        underline=styles.underline,
        color=styles.color,
        align=styles.align,
        line_height=styles.lineHeight,
        wraps=node.position.maxWidth is not None,
    )


ELEMENT = ElementType(
    name="text",
    summary="Text sized from its content; position {x, y, maxWidth?}",
    Position=TextPosition,
    Data=TextData,
    Styles=TextStyles,
    measure=measure,
    draw=draw,
    title="Text",
    defaults={
        "position": {"maxWidth": 220},
        "data": {"content": "Your text here"},
        "styles": {"fontSize": 16},
    },
    variable=VariableSpec(
        kind="text",
        field="data.content",
        accepts="a string (a number or ISO date string when data.dataType says so; a list of strings for lists)",
        apply=bind_value,
        field_text=field_text,
    ),
    fields=FieldHost(
        names=field_names,
        filled=with_field_values,
        sample=lambda node, name: node.data.samples.get(name),
        shows_sheet=lambda node: node.data.fields and placeholders.uses_sheet(node.data.items()),
    ),
    position_hints={
        "w": "text boxes are measured from their content: use position.maxWidth to fix the width",
        "h": "text height follows the content, fontSize and lineHeight: use position.maxWidth to wrap",
    },
    merge_data=merge_data,
    tags_itself=True,
    # The raw content: placeholders and markup are typed as written (extensions.md 1, 3).
    inline_text=InlineText(field="data.content", look=look),
    text_toolbar=("fontFamily", "fontSize", "fontWeight", "italic", "underline", "color", "align"),
)
