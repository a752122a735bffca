"""Text: a string or a list, sized from its content (spec 4.4: the box hugs the text
unless `position.maxWidth` pins the width and the content wraps inside it)."""

from __future__ import annotations

from contextlib import nullcontext
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, model_validator

from .. import fitting, typeset
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
    InlineText,
    Opacity,
    StrictModel,
    TextLook,
    VariableSpec,
    merge_keys,
    with_data,
)

ListFormat = Literal["none", "ordered", "unordered"]
# extensions.md 2: what happens to content that still does not fit maxHeight / maxLines.
Overflow = Literal["visible", "ellipsis", "clip", "flow"]
Fit = Literal["none", "shrink"]
DEFAULT_MIN_FONT_SIZE = 6.0
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
    maxHeight: float | None = Field(
        None, gt=0, le=MAX_LENGTH, description="The box's height limit; data.overflow says what happens past it"
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
    maxLines: int | None = Field(None, ge=1, le=10_000, description="At most this many lines (see overflow)")
    overflow: Overflow = Field(
        "visible",
        description="Content that still does not fit maxHeight/maxLines: visible (the box grows), ellipsis "
        "(the last kept line ends in …), clip (lines past the limit are dropped), flow (the box grows, "
        "pushes the elements below and continues on new sheets)",
    )

    @model_validator(mode="after")
    def _consistent(self) -> TextData:
        if self.listFormat == "none" and isinstance(self.content, list):
            raise ValueError("content is a list: set data.listFormat to 'ordered' or 'unordered', or send a string")
        if self.listFormat != "none" and isinstance(self.content, str):
            self.content = self.content.split("\n") if self.content else []
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
    fit: Fit = Field(
        "none",
        description="shrink: the size steps down in 0.5 pt steps towards minFontSize until the content fits "
        "position.maxWidth and maxHeight/maxLines (needs position.maxWidth)",
    )
    minFontSize: float = Field(
        DEFAULT_MIN_FONT_SIZE, gt=0, le=1000, description="The smallest size fit: shrink goes to; at most fontSize"
    )

    @model_validator(mode="after")
    def _sizes(self) -> TextStyles:
        # The default minimum is no rule on a text smaller than 6 pt that never shrinks.
        explicit = self.minFontSize != DEFAULT_MIN_FONT_SIZE or self.fit == "shrink"
        if explicit and self.minFontSize > self.fontSize:
            raise ValueError(
                f"minFontSize {self.minFontSize:g} is larger than fontSize {self.fontSize:g}: "
                f"set styles.minFontSize to at most {self.fontSize:g}, or raise styles.fontSize"
            )
        return self


def check_parts(node: Any) -> None:
    """extensions.md 2: the fitting keys that only make sense together, or never together."""
    position, data, styles = node.position, node.data, node.styles
    if styles.fit == "shrink" and position.maxWidth is None:
        raise ValueError('styles.fit "shrink" needs a width to fit: set position.maxWidth, or set styles.fit to "none"')
    if data.overflow == "flow":
        clashing = [
            key
            for key, used in (
                ("data.maxLines", data.maxLines is not None),
                ("position.maxHeight", position.maxHeight is not None),
                ('styles.fit "shrink"', styles.fit == "shrink"),
            )
            if used
        ]
        if clashing:
            raise ValueError(
                f'data.overflow "flow" cannot be combined with {" or ".join(clashing)}: flowing text grows '
                f'without a limit; remove {" and ".join(clashing)}, or choose overflow "visible", "ellipsis" or "clip"'
            )


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


def display_items(data: TextData) -> tuple[str, ...]:
    """The strings shown: each value formatted by dataType/format."""
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


def layout(node: Any):
    fitted = fitted_text(node)
    if fitted is not None:
        return fitted.indent, fitted.widest, fitted.blocks
    items = display_items(node.data)
    return _layout(items, tuple(_markers(node.data, len(items))), text_style(node.styles), node.position.maxWidth)


def fits_somehow(node: Any) -> bool:
    """The node uses a fitting key (extensions.md 2); a text that uses none takes no extra work."""
    return node.styles.fit != "none" or node.data.maxLines is not None or node.position.maxHeight is not None


def fitted_text(node: Any) -> fitting.FittedText | None:
    """The text at its fitted size with its lines cut to its limit; None when it has no limit."""
    if not fits_somehow(node):
        return None
    items = display_items(node.data)
    return _fitted(
        items,
        tuple(_markers(node.data, len(items))),
        text_style(node.styles),
        fitting.Limits(node.position.maxWidth, node.position.maxHeight, node.data.maxLines),
        node.styles.fit == "shrink",
        node.styles.minFontSize,
        node.data.overflow,
    )


@lru_cache(maxsize=1024)
def _fitted(
    items: tuple[str, ...],
    markers: tuple[str, ...],
    style: typeset.TextStyle,
    limits: fitting.Limits,
    shrink: bool,
    min_size: float,
    overflow: fitting.Overflow,
) -> fitting.FittedText:
    return fitting.fit_text(
        items, lambda sized: _layout(items, markers, sized, limits.max_width), style, limits, shrink, min_size, overflow
    )


def drawn_style(node: Any) -> typeset.TextStyle:
    """The style the text is drawn with: at its fitted size when it shrinks."""
    fitted = fitted_text(node)
    return text_style(node.styles) if fitted is None else fitted.style


def measure(node: Any) -> tuple[float, float]:
    indent, widest, blocks = layout(node)
    line_count = sum(len(lines) for _, lines in blocks)
    width = node.position.maxWidth if node.position.maxWidth is not None else indent + widest
    return width, line_count * drawn_style(node).leading


def flows(node: Any) -> bool:
    """The text splits across sheets and pushes the elements below it (extensions.md 2)."""
    return node.data.overflow == "flow"


def paginate(node: Any, first_room: float, page_room: float) -> list[fitting.TextPart]:
    """A flowing text's lines split into parts: first_room, then page_room each."""
    _, _, blocks = layout(node)
    ends = [line.ends_paragraph for _, lines in blocks for line in lines]
    return fitting.split_lines(ends, drawn_style(node).leading, first_room, page_room)


def _part_blocks(blocks: Any, part: fitting.TextPart) -> tuple[int, tuple]:
    """(index of the first block shown, the blocks' lines in [part.start, part.end)); a list
    item continued from the sheet before shows no marker again."""
    kept = []
    first_shown = None
    first = 0
    for index, (marker, lines) in enumerate(blocks):
        shown = lines[max(0, part.start - first) : max(0, part.end - first)]
        if shown:
            first_shown = index if first_shown is None else first_shown
            kept.append((marker if first >= part.start else "", shown))
        first += len(lines)
    return first_shown or 0, tuple(kept)


def draw(node: Any, box: Box, ctx: DrawContext, part: Any = None) -> None:
    indent, _, blocks = layout(node)
    style = drawn_style(node)
    first_item = 0
    if part is not None:
        first_item, blocks = _part_blocks(blocks, part)
    # A flowing text continued on the next sheet stays one structure element (keyed groups).
    continued = None if part is None else node.id
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
        role = node.data.role.upper() if node.data.role != "p" else "P"
        # Each sheet's share of a flowing paragraph is a span of the one paragraph.
        with tags.group(role, key=continued) if continued else nullcontext():
            with tags.content(canvas, "Span" if continued else role, ActualText=spoken(lines)):
                draw_lines(lines, top)
    else:
        numbering = "Decimal" if node.data.listFormat == "ordered" else "Disc"
        with tags.group("L", key=continued, ListNumbering=numbering):
            for item, (marker, lines) in enumerate(blocks, start=first_item):
                with tags.group("LI", key=continued and f"{continued}/{item}"):
                    if marker:  # an item continued from the sheet before has its label there
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


def merge_data(current: dict, patch: dict) -> dict:
    """Key-by-key merge; switching a list back to plain text joins its items by lines."""
    merged = merge_keys(current, patch)
    turned_plain = "listFormat" in patch and patch["listFormat"] in (None, "none")
    if turned_plain and "content" not in patch and isinstance(merged.get("content"), list):
        merged["content"] = "\n".join(merged["content"])
    return merged


def look(node: Any) -> TextLook:
    styles = node.styles
    return TextLook(
        family=styles.fontFamily,
        size=drawn_style(node).size,  # typing shows the fitted size (extensions.md 2)
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
    ),
    position_hints={
        "w": "text boxes are measured from their content: use position.maxWidth to fix the width",
        "h": "text height follows the content, fontSize and lineHeight: use position.maxWidth to wrap",
    },
    merge_data=merge_data,
    check=check_parts,
    paginate=paginate,
    splits_when=flows,
    tags_itself=True,
    # The raw content: placeholders and markup are typed as written (extensions.md 1, 3).
    inline_text=InlineText(field="data.content", look=look),
    text_toolbar=("fontFamily", "fontSize", "fontWeight", "italic", "underline", "color", "align"),
)
