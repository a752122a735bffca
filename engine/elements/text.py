"""Text: a string or a list, sized from its content (spec 4.4: the box hugs the text
unless `position.maxWidth` pins the width and the content wraps inside it), with the
keys of extensions.md 1-3: `{name}` fields, fitting to maxWidth/maxHeight/maxLines
(engine.text.fitting), flowing over sheets, inline Markdown (engine.text.markup, engine.text.richtext)
and links."""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, ValidationInfo, model_validator

from ..design import expressions
from ..design.colors import HexColor, to_rl
from ..fonts import DEFAULT_FAMILY, FontFamily
from ..pdf import links, tagging
from ..text import fitting, markup, richtext, shaping, typeset
from ..text import placeholders as placeholders
from ..text.formatting import VALUE_TYPES, DataType, check_format, check_locale, check_value, format_value
from ..text.style import Align, Direction, Hyphens, Ligatures, NumericVariant, TextStyle
from .base import (
    MAX_LENGTH,
    Box,
    Computing,
    Coordinate,
    DrawContext,
    EditorHints,
    ElementType,
    ExpressionText,
    ExpressionUse,
    FieldHost,
    InlineText,
    Opacity,
    StrictModel,
    TextLook,
    VariableSpec,
    merge_keys,
    validated_element,
    with_data,
)
from .editing import MULTILINE, SAMPLES, WEIGHT, Widget

ListFormat = Literal["none", "ordered", "unordered"]
# extensions.md 2: what happens to content that still does not fit maxHeight / maxLines.
Overflow = Literal["visible", "ellipsis", "clip", "flow"]
Fit = Literal["none", "shrink"]
DEFAULT_MIN_FONT_SIZE = 6.0
Markup = Literal["none", "markdown"]
TextTransform = Literal["none", "uppercase", "lowercase", "capitalize"]
VerticalAlign = Literal["top", "middle", "bottom"]
LINK_COLOR = "#1a56db"
TextRole = Literal["p", "h1", "h2", "h3", "h4", "h5", "h6"]
BULLET = "\u2022"
ALIGN_HELP = (
    "left, center and right are physical; start and end are logical: start is left in a left-to-right "
    "paragraph and right in a right-to-left one"
)
DIRECTION_HELP = (
    "auto: each paragraph's direction from its first strong character (Unicode bidi P2-P3); "
    "ltr or rtl set it for every paragraph"
)
HYPHENS_HELP = (
    "Where words may break: manual (only at soft hyphens, U+00AD), auto (also by the language's "
    "hyphenation patterns), none; unset: auto for justified text, else manual"
)
NUMERIC_HELP = "Figures: tabular-nums (all one width, for columns of amounts), oldstyle-nums, lining-nums, slashed-zero"
LIGATURES_HELP = "normal: the font's standard ligatures (fi, fl, ffi); none: letters stay apart"
# A well-formed BCP 47 tag (RFC 5646 langtag, no grandfathered forms): language, then an
# optional script, region, variants, extensions and private use. Shaping takes any
# well-formed tag, so the check is the syntax, not a list of known languages.
_BCP47 = re.compile(
    r"^([A-Za-z]{2,3}(-[A-Za-z]{3}){0,3}|[A-Za-z]{4,8})"
    r"(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*"
    r"(-[0-9A-WY-Za-wy-z](-[A-Za-z0-9]{2,8})+)*(-[Xx](-[A-Za-z0-9]{1,8})+)?$"
)


def check_lang(value: str | None) -> str | None:
    """data.lang: a BCP 47 tag, refused with the fix when it is not one."""
    if value is not None and not _BCP47.match(value):
        raise ValueError(
            f"data.lang '{value}' is not a BCP 47 language tag: use a tag like 'ar', 'he', 'hi-IN', 'zh-Hans' "
            "or 'ja' (hyphens, not underscores), or leave data.lang out to use the design's language"
        )
    return value


Lang = Annotated[str | None, AfterValidator(check_lang)]


def _weight(value: Any) -> Any:
    named = {"normal": 400, "regular": 400, "medium": 500, "semibold": 600, "bold": 700}
    return named.get(value, value) if isinstance(value, str) else value


FontWeight = Annotated[int, BeforeValidator(_weight), Field(ge=100, le=900), Widget(WEIGHT)]


def _lines(content: str | list[str]) -> str:
    return "\n".join(content) if isinstance(content, list) else content


def _content(current: str | list[str], edited: str) -> str | list[str]:
    """An edit of the lines back to the content's shape: list items stay a list."""
    return edited.split("\n") if isinstance(current, list) else edited


# the manual, "Limits": what one text element holds (issue 31, item 3). A text is measured on
# every change of it and drawn in every PDF; past this it belongs in several elements.
MAX_TEXT_CHARACTERS = 100_000
SPLIT_TEXT = "split it over several text elements (data.overflow 'flow' carries one text over to new sheets)"


def characters(content: str | list[str] | tuple[str, ...]) -> int:
    """A content's length as shown: a list's items one per line."""
    if isinstance(content, str):
        return len(content)
    return sum(len(item) for item in content) + max(len(content) - 1, 0)


def check_text_size(content: str | list[str], info: ValidationInfo) -> str | list[str]:
    """data.content: at most MAX_TEXT_CHARACTERS characters (checked before anything reads it)."""
    size = characters(content)
    if size > MAX_TEXT_CHARACTERS:
        text = validated_element(info, "the text")
        raise ValueError(
            f"{text} is {size:,} characters; a text element holds at most {MAX_TEXT_CHARACTERS:,}: {SPLIT_TEXT}"
        )
    return content


# One text area for a string or for list items, one per line.
TextContent = Annotated[
    str | list[str], AfterValidator(check_text_size), Widget(MULTILINE, shown=_lines, stored=_content)
]


class TextPosition(StrictModel):
    x: Coordinate
    y: Coordinate
    maxWidth: float | None = Field(
        None, gt=0, le=MAX_LENGTH, description="Pins the box width; the text wraps inside it"
    )
    # Left out of dumps while unset, so a text's position stays {x, y, maxWidth?} as before
    # (the editor's width handle sends only maxWidth; stored trees without fitting are unchanged).
    maxHeight: float | None = Field(
        None,
        gt=0,
        le=MAX_LENGTH,
        description="The box's height limit; data.overflow says what happens past it",
        exclude_if=lambda limit: limit is None,
    )


class TextData(StrictModel):
    content: TextContent = Field(
        "", description="A string, or item strings when listFormat is a list; at most 100,000 characters"
    )
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
    markup: Markup = Field(
        "none",
        description="'markdown': inline **bold**, *italic*, ~~strike~~ and [label](url) in the content; "
        "block syntax stays literal",
    )
    fields: bool = Field(
        False,
        description="When true, {name} in content is a placeholder filled at generation ({{ and }} are literal "
        "braces; {page} and {pages} are the sheet's number and the sheet count)",
    )
    samples: Annotated[dict[str, str], Widget(SAMPLES)] = Field(
        default_factory=dict, description="Placeholder name -> design-time value, shown when a generation gives none"
    )
    # extensions.md 11; left out of dumps while unset, so stored trees stay as they were.
    expression: ExpressionText | None = Field(
        None,
        description='The content is this expression\'s result (e.g. "sum(items.amount) * 1.2"), formatted by '
        "dataType/format/locale/currency; content then holds the result on the design's samples",
        exclude_if=lambda text: text is None,
    )
    # extensions.md 6; left out of dumps while unset, so stored trees stay as they were.
    lang: Lang = Field(
        None,
        description="BCP 47 tag of the content, e.g. 'ar', 'he', 'hi', 'zh-Hans' (shaping and the tagged PDF's "
        "/Lang); unset: the design's language (metadata.language); with neither, Han takes the Chinese face "
        "unless kana or Hangul beside it say Japanese or Korean",
        exclude_if=lambda lang: lang is None,
    )

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> TextData:
        if self.listFormat == "none" and isinstance(self.content, list):
            raise ValueError("content is a list: set data.listFormat to 'ordered' or 'unordered', or send a string")
        if self.listFormat != "none" and isinstance(self.content, str):
            self.content = self.content.split("\n") if self.content else []
        check_fields(self, info)
        if self.expression is not None and (self.fields or self.listFormat != "none"):
            raise ValueError(
                "data.expression makes the whole content one result: leave data.fields and data.listFormat off "
                "(or write {= expression} inside a text with fields)"
            )
        if self.dataType != "string":
            check_format(self.dataType, self.format, self.locale, self.currency)
            for item in self.items():
                if item != "":
                    check_value(item, self.dataType, self.format, self.locale, self.currency)
        return self

    @model_validator(mode="after")
    def _markup_links(self) -> TextData:
        # extensions.md 3: a markup link's URL is refused at add/update like data.link's.
        if self.markup == "markdown":
            for item in self.items():
                markup.check_links(item)
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
    align: Align = Field("left", description=ALIGN_HELP)
    direction: Direction = Field("auto", description=DIRECTION_HELP)
    lineHeight: float = Field(1.2, gt=0, le=10, description="A multiple of fontSize")
    # extensions.md 17
    hyphens: Hyphens | None = Field(None, description=HYPHENS_HELP)
    fontVariantNumeric: NumericVariant = Field("normal", description=NUMERIC_HELP)
    ligatures: Ligatures = Field("normal", description=LIGATURES_HELP)
    opacity: Opacity = 1.0
    fit: Fit = Field(
        "none",
        description="shrink: the size steps down in 0.5 pt steps towards minFontSize until the content fits "
        "position.maxWidth and maxHeight/maxLines (needs position.maxWidth)",
    )
    minFontSize: float = Field(
        DEFAULT_MIN_FONT_SIZE, gt=0, le=1000, description="The smallest size fit: shrink goes to; at most fontSize"
    )
    # extensions.md 3
    strikethrough: bool = False
    letterSpacing: float = Field(0, ge=-5, le=50, description="Points added between characters")
    textTransform: TextTransform = "none"
    backgroundColor: HexColor | None = Field(None, description="A colour behind the text box")
    padding: float = Field(0, ge=0, le=MAX_LENGTH, description="Points the background reaches around the text")
    borderRadius: float = Field(0, ge=0, le=MAX_LENGTH, description="Rounds the background's corners (points)")
    verticalAlign: VerticalAlign = Field("top", description="Where the text sits inside position.maxHeight")
    linkColor: HexColor = Field(LINK_COLOR, description="The colour of link labels (underlined)")

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


def check_fields(data: TextData, info: ValidationInfo | None = None) -> None:
    """extensions.md 1: a valid template in each item, samples only of its placeholders."""
    if not data.fields:
        if data.samples:
            raise ValueError("data.samples holds placeholder values: set data.fields to true, or send no samples")
        return
    if data.dataType != "string":
        raise ValueError("data.fields needs dataType 'string': placeholders are text, not a number or a date")
    items = data.items()
    shown = max(len(items) - 1, 0)  # the line breaks between list items
    for position, item in enumerate(items):
        try:
            segments = placeholders.parse(item)
        except placeholders.FieldSyntaxError as exc:
            where = f"item {position}, " if isinstance(data.content, list) else ""
            raise ValueError(f"content: {where}{exc}") from None
        for segment in segments:
            if isinstance(segment, placeholders.Computed):
                try:
                    expressions.parse(segment.expression)
                except expressions.ExpressionError as exc:
                    where = f"item {position}, " if isinstance(data.content, list) else ""
                    raise ValueError(
                        f"content: {where}the {{= expression}} at character {segment.index}: {exc}"
                    ) from None
        shown += sum(
            len(s)
            if isinstance(s, str)
            else len(data.samples.get(s.key if isinstance(s, placeholders.Computed) else s.name, ""))
            for s in segments
        )
    if shown > MAX_TEXT_CHARACTERS:
        # Each placeholder shows its sample: a short content can show a long text.
        text = validated_element(info, "the text")
        raise ValueError(
            f"samples: {text} with its samples in place is {shown:,} characters; a text element shows at most "
            f"{MAX_TEXT_CHARACTERS:,}: shorten data.samples, or {SPLIT_TEXT}"
        )
    known = placeholders.variable_names(items)
    results = {segment.key for segment in placeholders.computed(items)}
    for name in data.samples:
        if name in results:
            continue  # a {= expression}'s result on the design's samples (engine.design.computed)
        if name in placeholders.RESERVED:
            what = "number" if name == placeholders.PAGE else "count"
            raise ValueError(f"samples: '{name}' is the sheet's {what}, filled when drawn: remove it from data.samples")
        if name not in known:
            shown = ", ".join(known) or "none"
            raise ValueError(f"samples: no placeholder {{{name}}} in the content (its placeholders: {shown})")


def text_style(styles: Any, lang: str | None = None) -> TextStyle:
    """The typesetting style of an element's (or a table cell's) styles; `lang` is the
    content's BCP 47 tag (None: the design's language)."""
    return TextStyle(
        family=styles.fontFamily,
        weight=styles.fontWeight,
        italic=styles.italic,
        size=styles.fontSize,
        line_height=styles.lineHeight,
        color=styles.color,
        align=styles.align,
        underline=styles.underline,
        direction=styles.direction,
        lang=lang or "",
        hyphens=styles.hyphens,
        numeric=styles.fontVariantNumeric,
        ligatures=styles.ligatures,
    )


def display_items(data: TextData, sheet: placeholders.Sheet = placeholders.DESIGN_SHEET) -> tuple[str, ...]:
    """The strings shown: each value formatted by dataType/format; with fields, each
    placeholder replaced by its sample (a generation's values are samples by then,
    engine.design.placeholder_variables) and {page}/{pages} by the sheet's. In a markdown text each value
    is escaped, so markup inside a value stays literal while the markup around a placeholder
    (`**{name}**`) applies to it (extensions.md 1, 3)."""
    if data.fields:
        escape = markup.escape if data.markup == "markdown" else None
        return tuple(placeholders.fill(item, data.samples, sheet, escape) for item in data.items())
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
    items: tuple[str, ...], markers: tuple[str, ...], style: TextStyle, max_width: float | None
) -> tuple[float, float, tuple[tuple[str, tuple[typeset.Line, ...]], ...]]:
    """(indent, content width, [(marker, lines)]) for a text block."""
    indent = 0.0
    if any(markers):
        indent = max(typeset.width_of(m, style) for m in markers) + style.size * 0.5
    inner = None if max_width is None else max(max_width - indent, 1.0)
    blocks = tuple((m, tuple(typeset.wrap(item, style, inner))) for m, item in zip(markers, items, strict=True))
    widest = max((line.width for _, lines in blocks for line in lines), default=0.0)
    return indent, widest, blocks


@lru_cache(maxsize=1024)
def _rich_layout(
    items: tuple[str, ...],
    markers: tuple[str, ...],
    style: TextStyle,
    max_width: float | None,
    transform: TextTransform,
) -> tuple[float, float, tuple[tuple[str, richtext.RichBlock], ...]]:
    """_layout for markup (extensions.md 3): each item's lines of styled pieces."""
    indent = 0.0
    if any(markers):
        indent = max(typeset.width_of(m, style) for m in markers) + style.size * 0.5
    inner = None if max_width is None else max(max_width - indent, 1.0)
    blocks = tuple(
        (m, richtext.wrap(richtext.transformed_lines(markup.parse(item), transform), style, inner))
        for m, item in zip(markers, items, strict=True)
    )
    widest = max((line.width for _, block in blocks for line in block.lines), default=0.0)
    return indent, widest, blocks


def element_style(styles: TextStyles, lang: str | None = None) -> TextStyle:
    """text_style with the styles only text elements have (extensions.md 3)."""
    style = text_style(styles, lang)
    if styles.strikethrough or styles.letterSpacing or styles.linkColor != LINK_COLOR:
        style = dataclasses.replace(
            style,
            strikethrough=styles.strikethrough,
            letter_spacing=styles.letterSpacing,
            link_color=styles.linkColor,
        )
    return style


def layout(node: Any, sheet: placeholders.Sheet = placeholders.DESIGN_SHEET):
    fitted = fitted_text(node, sheet)
    if fitted is not None:
        return fitted.indent, fitted.widest, fitted.blocks
    items = display_items(node.data, sheet)
    markers = tuple(_markers(node.data, len(items)))
    style = element_style(node.styles, node.data.lang)
    return _typeset(items, markers, style, node.position.maxWidth, node.data.markup, node.styles.textTransform)


def _typeset(
    items: tuple[str, ...],
    markers: tuple[str, ...],
    style: TextStyle,
    max_width: float | None,
    markup_kind: Markup,
    transform: TextTransform,
):
    """The text's blocks at `style`: lines of styled pieces with markup, plain lines without."""
    if markup_kind == "markdown":
        return _rich_layout(items, markers, style, max_width, transform)
    if transform != "none":
        items = tuple(richtext.transformed(item, transform) for item in items)
    return _layout(items, markers, style, max_width)


def fits_somehow(node: Any) -> bool:
    """The node uses a fitting key (extensions.md 2); a text that uses none takes no extra work."""
    return node.styles.fit != "none" or node.data.maxLines is not None or node.position.maxHeight is not None


def fitted_text(node: Any, sheet: placeholders.Sheet = placeholders.DESIGN_SHEET) -> fitting.FittedText | None:
    """The text at its fitted size with its lines cut to its limit; None when it has no limit."""
    if not fits_somehow(node):
        return None
    items = display_items(node.data, sheet)
    return _fitted(
        items,
        tuple(_markers(node.data, len(items))),
        element_style(node.styles, node.data.lang),
        fitting.Limits(node.position.maxWidth, node.position.maxHeight, node.data.maxLines),
        node.styles.fit == "shrink",
        node.styles.minFontSize,
        node.data.overflow,
        node.data.markup,
        node.styles.textTransform,
    )


@lru_cache(maxsize=1024)
def _fitted(
    items: tuple[str, ...],
    markers: tuple[str, ...],
    style: TextStyle,
    limits: fitting.Limits,
    shrink: bool,
    min_size: float,
    overflow: fitting.Overflow,
    markup_kind: Markup,
    transform: TextTransform,
) -> fitting.FittedText:
    # The word-width check reads the words as shown: markup's syntax is not drawn, and an
    # uppercase word is wider than the word as typed.
    if markup_kind == "markdown":
        shown = tuple(_shown_text(item, transform) for item in items)
    elif transform != "none":
        shown = tuple(richtext.transformed(item, transform) for item in items)
    else:
        shown = items
    return fitting.fit_text(
        shown,
        lambda sized: _typeset(items, markers, sized, limits.max_width, markup_kind, transform),
        style,
        limits,
        shrink,
        min_size,
        overflow,
    )


def _shown_text(item: str, transform: TextTransform) -> str:
    """A markdown item's text as drawn (markup's syntax left out), one line per line break."""
    lines = richtext.transformed_lines(markup.parse(item), transform)
    return "\n".join("".join(span.text for span in spans) for spans in lines)


def drawn_style(node: Any, sheet: placeholders.Sheet = placeholders.DESIGN_SHEET) -> TextStyle:
    """The style the text is drawn with: at its fitted size when it shrinks."""
    fitted = fitted_text(node, sheet)
    return element_style(node.styles, node.data.lang) if fitted is None else fitted.style


def measure(node: Any) -> tuple[float, float]:
    indent, widest, blocks = layout(node)
    line_count = sum(len(lines) for _, lines in blocks)
    width = node.position.maxWidth if node.position.maxWidth is not None else indent + widest
    height = line_count * drawn_style(node).leading
    if node.position.maxHeight is not None and node.styles.verticalAlign != "top":
        # The text sits inside the whole height limit: the box (its background, link, the
        # editor's handles, the elements following it) is the limit's, not the text's.
        height = max(height, node.position.maxHeight)
    return width, height


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
    indent, widest, blocks = layout(node, ctx.sheet)
    if node.data.fields and node.position.maxWidth is None:
        box = box._replace(w=indent + widest)  # {page}/{pages} were measured as sheet 1 of 1
    style = drawn_style(node, ctx.sheet)  # at the fitted size (extensions.md 2)
    # A text without data.lang was given the design's language before it was measured
    # (engine.design.languages), so it is drawn in the faces it was measured in.
    first_item = 0
    if part is not None:
        first_item, blocks = _part_blocks(blocks, part)
    # A flowing text continued on the next sheet stays one structure element (keyed groups).
    continued = None if part is None else node.id
    canvas = ctx.canvas
    tags = ctx.tags
    marker_style = TextStyle(
        style.family,
        style.weight,
        style.italic,
        style.size,
        style.line_height,
        style.color,
        lang=style.lang,
    )  # a marker ("1.", "•") is set on its own: which side it sits on is the list's direction
    # A right-to-left list has its markers on the right, its items' lines left of them.
    markers_right = node.data.listFormat != "none" and list_is_rtl(node)
    body_left = box.x if markers_right else box.x + indent
    # extensions.md 6: the structure element of a text in another language than the document's.
    language = tagging.own_language(node.data.lang, ctx.language)

    def draw_lines(lines: tuple[typeset.Line, ...], top: float) -> None:
        typeset.draw_lines(
            canvas, list(lines), style, body_left, top, box.w - indent, ctx.page_height, direct=ctx.options.direct_text
        )

    def spoken(lines: tuple[typeset.Line, ...]) -> str:
        # Wrapped lines lose the space they broke at in extracted text; ActualText keeps it.
        return shaping.spoken_lines([line.text for line in lines])

    def draw_body(role: str, lines: Any, top: float, index: int, continued: str | None, **attributes: str) -> None:
        # `continued`: the key of the one element a flowing paragraph's sheets share.
        if isinstance(lines, richtext.RichBlock):
            rich_key = f"{node.id}/{index}"  # a link's Link element spans its lines, across sheets too
            _draw_rich(node, lines, style, body_left, top, box.w - indent, ctx, role, rich_key, continued, **attributes)
            return
        # Each sheet's share of a flowing paragraph is a span of the one paragraph.
        if continued:
            with tags.group(role, key=continued, **attributes), tags.content(canvas, "Span", ActualText=spoken(lines)):
                draw_lines(lines, top)
            return
        with tags.content(canvas, role, ActualText=spoken(lines), **attributes):
            draw_lines(lines, top)

    canvas.saveState()
    if node.styles.opacity < 1:
        canvas.setFillAlpha(node.styles.opacity)
        canvas.setStrokeAlpha(node.styles.opacity)
    _draw_background(node, box, ctx)
    top = box.y + _vertical_offset(node, sum(len(lines) for _, lines in blocks) * style.leading)
    if node.data.listFormat == "none":
        lines = blocks[0][1] if blocks else ()
        draw_body(node.data.role.upper() if node.data.role != "p" else "P", lines, top, 0, continued, **language)
    else:
        numbering = "Decimal" if node.data.listFormat == "ordered" else "Disc"
        marker_left = box.x + box.w - indent if markers_right else box.x
        marker_align: Align = "right" if markers_right else "left"
        marker_style = dataclasses.replace(marker_style, align=marker_align)
        with tags.group("L", key=continued, ListNumbering=numbering, **language):
            for item, (marker, lines) in enumerate(blocks, start=first_item):
                with tags.group("LI", key=continued and f"{continued}/{item}"):
                    if markers_right:
                        # After its item's text in the content: PDFium reads a line's text from
                        # the shaped item's ActualText only when no other object precedes it there.
                        draw_body("LBody", lines, top, item, None)
                    if marker:  # an item continued from the sheet before has its label there
                        with tags.content(canvas, "Lbl"):
                            marker_line = typeset.Line(marker, typeset.width_of(marker, style), True)
                            typeset.draw_lines(
                                canvas,
                                [marker_line],
                                marker_style,
                                marker_left,
                                top,
                                indent,
                                ctx.page_height,
                                direct=ctx.options.direct_text,
                            )
                    if not markers_right:
                        draw_body("LBody", lines, top, item, None)
                top += len(lines) * style.leading
    canvas.restoreState()


def list_is_rtl(node: Any) -> bool:
    """A list laid out right to left: styles.direction rtl, or auto and the first strong
    character of its items right-to-left (Unicode bidi P2-P3, as for a paragraph)."""
    if node.styles.direction != "auto":
        return node.styles.direction == "rtl"
    for item in node.data.items():
        for character in item:
            kind = unicodedata.bidirectional(character)
            if kind in ("L", "R", "AL"):
                return kind != "L"
    return False


def _draw_rich(
    node: Any,
    block: richtext.RichBlock,
    style: TextStyle,
    left: float,
    top: float,
    width: float,
    ctx: DrawContext,
    role: str,
    key: str,
    group_key: str | None = None,
    **attributes: str,
) -> None:
    """Markup lines in a structure element of `role` holding a Link element per link;
    `group_key` makes every sheet of a flowing text add to the same element."""
    labels = richtext.labels(block)

    def add_link(number: int, rect: tuple[float, float, float, float]) -> None:
        links.add_link(ctx.canvas, ctx.tags, block.urls[number], rect, labels[number])

    with ctx.tags.group(role, key=group_key, **attributes):
        richtext.draw_lines(ctx.canvas, block, style, left, top, width, ctx.page_height, ctx.tags, key, add_link)


def _draw_background(node: Any, box: Box, ctx: DrawContext) -> None:
    """styles.backgroundColor behind the box, `padding` points around it, corners rounded."""
    styles = node.styles
    if styles.backgroundColor is None:
        return
    pad = styles.padding
    canvas = ctx.canvas
    with ctx.tags.artifact(canvas):
        canvas.setFillColor(to_rl(styles.backgroundColor))
        width, height = box.w + 2 * pad, box.h + 2 * pad
        radius = min(styles.borderRadius, width / 2, height / 2)
        canvas.roundRect(box.x - pad, ctx.pdf_y(box.y, box.h) - pad, width, height, radius, stroke=0, fill=1)


def _vertical_offset(node: Any, text_height: float) -> float:
    """styles.verticalAlign: the text's drop inside position.maxHeight (measure makes the box
    that tall); without a limit the box hugs the text and there is nothing to align."""
    limit = node.position.maxHeight
    if limit is None or node.styles.verticalAlign == "top":
        return 0.0
    return max(limit - text_height, 0.0) * (0.5 if node.styles.verticalAlign == "middle" else 1.0)


def bind_value(node: Any, value: Any) -> Any:
    data = node.data
    if data.listFormat != "none":
        if isinstance(value, str):
            value = value.split("\n") if value else []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError("expected a string or a list of strings for a list text")
    elif isinstance(value, list):
        raise ValueError("expected a single value: this text is not a list (its listFormat is none)")
    size = characters(value) if isinstance(value, str | list) else 0
    if size > MAX_TEXT_CHARACTERS:
        raise ValueError(
            f"the value is {size:,} characters; a text element shows at most {MAX_TEXT_CHARACTERS:,}: send a "
            "shorter value, or split the text over several variables"
        )
    for item in value if isinstance(value, list) else [value]:
        if item != "" or data.dataType == "string":
            check_value(item, data.dataType, data.format, data.locale, data.currency)
    content = value if isinstance(value, list) else (value if isinstance(value, str) else str(value))
    items = content if isinstance(content, list) else [content]
    if data.markup == "markdown":
        # The value is the text's content, so its markup applies, and its links are refused
        # as a designed content's are (extensions.md 3).
        for item in items:
            markup.check_links(item)
    if data.fields:
        # Values are literal (extensions.md 1): braces in a value never open a placeholder.
        literal = [placeholders.literal(item) for item in items]
        content = literal if isinstance(content, list) else literal[0]
    return with_data(node, content=content)


def field_text(node: Any) -> str:
    """What a placeholder named after this (bound) text shows: its content as displayed."""
    return "\n".join(display_items(node.data))


def field_names(node: Any) -> tuple[str, ...]:
    return placeholders.variable_names(node.data.items()) if node.data.fields else ()


def insert_field(node: Any, name: str) -> dict:
    """The data changes that append `{name}` to the content (its last item for a list) and turn
    placeholders on. Braces already in a content without fields were literal text: they are
    doubled so they stay so ({{ and }})."""

    def literal(text: str) -> str:
        return text if node.data.fields else placeholders.literal(text)

    placeholder = "{" + name + "}"
    content = node.data.content
    if isinstance(content, list):
        items = [literal(item) for item in content] or [""]
        items[-1] = _joined(items[-1], placeholder)
        return {"data": {"content": items, "fields": True}}
    return {"data": {"content": _joined(literal(content), placeholder), "fields": True}}


def _joined(text: str, placeholder: str) -> str:
    return f"{text} {placeholder}" if text and not text[-1].isspace() else text + placeholder


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


def expression_uses(node: Any) -> list[ExpressionUse]:
    """extensions.md 11: data.expression, and each `{= expression}` of a text with fields."""
    data = node.data
    uses = [ExpressionUse("data.expression", data.expression)] if data.expression is not None else []
    if data.fields:
        uses.extend(
            ExpressionUse(f"data.content {{= {segment.expression}}}", segment.expression)
            for segment in placeholders.computed(data.items())
        )
    return uses


def resolve_expressions(node: Any, scope: Any) -> Any:
    """The text showing its expressions' results on `scope`'s values (engine.design.computed):
    data.expression's as its content, each `{= expression}`'s among its samples."""
    data = node.data
    changes: dict[str, Any] = {}
    if data.expression is not None:
        changes["content"] = result_content(data, scope.evaluate(data.expression))
    if data.fields:
        found = placeholders.computed(data.items())
        if found:
            results = {s.key: expressions.to_text(scope.evaluate(s.expression), data.locale) for s in found}
            changes["samples"] = {**data.samples, **results}
    return with_data(node, **changes) if changes else node


def result_content(data: TextData, value: Any) -> str:
    """An expression's result as a text's content, read by its dataType: a number or a date as
    its plain form (formatted when shown), text as it is; a result the type cannot read is refused."""
    if value is None:
        return ""
    if data.dataType == "string":
        return expressions.to_text(value, data.locale)
    text = value if isinstance(value, str) else expressions.plain(value)
    try:
        check_value(text, data.dataType, data.format, data.locale, data.currency)
    except ValueError as exc:
        raise ValueError(
            f"data.expression gives {text!r}, which dataType {data.dataType} cannot show ({exc}): "
            "compute a value of that type, or set data.dataType to string"
        ) from None
    return text


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
        direction=styles.direction,
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
    variable=VariableSpec(
        kind="text",
        field="data.content",
        accepts="a string (a number or ISO date string when data.dataType says so; a list of strings for lists)",
        apply=bind_value,
        field_text=field_text,
        value_type=lambda node: "text" if node.data.listFormat != "none" else VALUE_TYPES[node.data.dataType],
    ),
    fields=FieldHost(
        names=field_names,
        filled=with_field_values,
        sample=lambda node, name: node.data.samples.get(name),
        shows_sheet=lambda node: node.data.fields and placeholders.uses_sheet(node.data.items()),
        insert=insert_field,
    ),
    position_hints={
        "w": "text boxes are measured from their content: use position.maxWidth to fix the width",
        "h": "text height follows the content, fontSize and lineHeight: use position.maxWidth to wrap",
    },
    merge_data=merge_data,
    check=check_parts,
    computing=Computing(uses=expression_uses, resolve=resolve_expressions),
    paginate=paginate,
    splits_when=flows,
    split_condition="data.overflow 'flow'",
    tags_itself=True,
    # The raw content: placeholders and markup are typed as written (extensions.md 1, 3).
    editor=EditorHints(
        defaults={
            "position": {"maxWidth": 220},
            "data": {"content": "Your text here"},
            "styles": {"fontSize": 16},
        },
        inline_text=InlineText(field="data.content", look=look, markup="data.markup"),
        text_toolbar=("fontFamily", "fontSize", "fontWeight", "italic", "underline", "color", "align"),
    ),
)
