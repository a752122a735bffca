"""Charts bound to data (extensions.md 15): bar, stacked bar, line, area, pie, donut, scatter.

A chart is bound like a table: its value is rows, objects keyed by `data.x` (the category, or
the x value of a scatter) and the series' keys. It is drawn as vectors straight onto the page
(rects and paths), its labels set by engine.text.typeset in the chart's font: real text,
shaped, searchable, and painted in reading order (title, legend at the top, the y axis's
title and ticks top to bottom, the x axis's ticks left to right and its title, then a legend
at the bottom or right; a pie's labels clockwise from the top). Axis numbers are formatted like
typed table columns (extensions.md 11: dataType and an LDML `format`).

Why not reportlab.graphics.charts: it builds a Drawing of shape objects and renders them
through renderPDF, with its own string drawing (no HarfBuzz shaping, no bidi, no fallback
fonts, no tagging hooks), and costs far more: three 50-bar VerticalBarCharts drawn by renderPDF
took 142 ms a page where a whole render_pdf of three such chart elements took 10 ms; a spec
language (Vega-Lite) would need a JavaScript runtime, which extensions.md 15 rules out.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from functools import lru_cache
from typing import Annotated, Any, Literal

from babel.numbers import format_percent
from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

from ..design.colors import HexColor, to_rl
from ..design.names import check_visible
from ..fonts import DEFAULT_FAMILY, FontFamily
from ..text import typeset
from ..text.formatting import check_format, check_locale, format_value, number_formatter, parse_date, parse_number
from ..text.style import Align, TextStyle
from .base import (
    Box,
    BoxPosition,
    DrawContext,
    EditorHints,
    ElementType,
    KeyedRows,
    StrictModel,
    VariableSpec,
    box_size,
    merge_keys,
    validated_element,
    with_data,
)

ChartKind = Literal["bar", "stackedBar", "line", "area", "pie", "donut", "scatter"]
LegendPlace = Literal["none", "top", "right", "bottom"]
SeriesType = Literal["number", "currency"]

# Bounds (the manual, "Limits"): a chart's rows, series, palette and every text.
MAX_ROWS = 1_000
MAX_SERIES = 12
MAX_PALETTE = 24
MAX_LABEL = 200  # a category, a series label, an axis title
MAX_TITLE = 300
MAX_ALT = 2_000
MAX_FORMAT = 100

# Okabe & Ito's palette (2008), safe for the common colour-vision deficiencies; its yellow and
# black come last (yellow is faint on white, black reads as an axis).
DEFAULT_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
TEXT_COLOR = "#333333"
AXIS_COLOR = "#666666"
GRID_COLOR = "#DDDDDD"
KIND_NAMES = {
    "bar": "Bar chart",
    "stackedBar": "Stacked bar chart",
    "line": "Line chart",
    "area": "Area chart",
    "pie": "Pie chart",
    "donut": "Donut chart",
    "scatter": "Scatter chart",
}
ROUND_KINDS = ("pie", "donut")

Key = Annotated[str, Field(min_length=1, max_length=100), AfterValidator(check_visible)]
Label = Annotated[str, Field(max_length=MAX_LABEL)]
Pattern = Annotated[str, Field(min_length=1, max_length=MAX_FORMAT)]
# A row's value: a category (text), a number, or null (a missing value, skipped).
RowValue = str | float | None


def _check_axis_format(pattern: str | None) -> str | None:
    """An x axis's format applies to numbers (a scatter's x) or ISO dates (categories): it
    must be a pattern for one of the two."""
    if pattern is None:
        return None
    errors = []
    for data_type in ("number", "date"):
        try:
            check_format(data_type, pattern, "en", "USD")
            return pattern
        except ValueError as exc:
            errors.append(str(exc))
    raise ValueError(f"axis.x.format {pattern!r} is neither an LDML number pattern nor a date pattern: {errors[0]}")


class ChartSeries(StrictModel):
    """One series: the rows' key it plots, and how it is named, coloured and formatted."""

    key: Key = Field(description="The rows' key holding this series' numbers")
    label: Label | None = Field(None, description="Its name in the legend; default the key")
    color: HexColor | None = Field(None, description="Its colour; default the palette's next one")
    dataType: SeriesType = Field("number", description="How its numbers are shown: number or currency (USD)")
    format: Pattern | None = Field(None, description="LDML number pattern, e.g. '#,##0.0' or '#,##0 €'")

    @model_validator(mode="after")
    def _format(self) -> ChartSeries:
        check_format(self.dataType, self.format, "en", "USD")
        return self

    @property
    def name(self) -> str:
        return self.label if self.label else self.key


class XAxis(StrictModel):
    title: Label | None = Field(None, description="Shown under the axis")
    format: Pattern | None = Field(
        None, description="LDML pattern for numeric x values (scatter) or ISO-date categories, e.g. 'MMM y'"
    )

    @field_validator("format")
    @classmethod
    def _pattern(cls, pattern: str | None) -> str | None:
        return _check_axis_format(pattern)


class YAxis(StrictModel):
    title: Label | None = Field(None, description="Shown above the axis")
    format: Pattern | None = Field(None, description="LDML number pattern; default the first series' format")
    min: float | None = Field(None, ge=-1e15, le=1e15, description="The axis's lowest value; default from the data")
    max: float | None = Field(None, ge=-1e15, le=1e15, description="The axis's highest value; default from the data")

    @model_validator(mode="after")
    def _range(self) -> YAxis:
        if self.format is not None:
            check_format("number", self.format, "en", "USD")
        if self.min is not None and self.max is not None and self.min >= self.max:
            raise ValueError(f"axis.y.min ({self.min:g}) must be below axis.y.max ({self.max:g})")
        return self


class ChartAxis(StrictModel):
    x: XAxis = Field(default_factory=XAxis)
    y: YAxis = Field(default_factory=YAxis)


class ChartData(StrictModel):
    kind: ChartKind = Field("bar", description="bar, stackedBar, line, area, pie, donut or scatter")
    x: Key = Field("label", description="The rows' key of the categories (a scatter's: of the x numbers)")
    series: list[ChartSeries] = Field(
        default_factory=lambda: [ChartSeries(key="value")],
        min_length=1,
        max_length=MAX_SERIES,
        description="The keys plotted, in order; a pie or donut plots the first",
    )
    rows: list[dict[Key, RowValue]] = Field(
        default_factory=list,
        max_length=MAX_ROWS,
        description="Design-time rows (the preview), objects keyed by x and the series' keys; "
        "a generation's value replaces them",
    )
    title: str | None = Field(None, max_length=MAX_TITLE, description="Shown above the chart")
    legend: LegendPlace = Field("bottom", description="Where the legend is: none, top, right or bottom")
    axis: ChartAxis = Field(default_factory=ChartAxis, description="{x: {title, format}, y: {title, format, min, max}}")
    alt: str | None = Field(
        None, max_length=MAX_ALT, description="Alternative text; default a summary of the series (tagged profiles)"
    )

    @field_validator("rows", mode="before")
    @classmethod
    def _row_shapes(cls, rows: Any) -> Any:
        # Pydantic reads true as 1.0 and names a nested value's place in its own words: the
        # refusals are said here, naming the row.
        if isinstance(rows, list):
            for number, row in enumerate(rows, start=1):
                if not isinstance(row, dict):
                    raise ValueError(
                        f"row {number} is a {type(row).__name__}: send every row as an object keyed by "
                        "data.x and the series' keys"
                    )
                for key, value in row.items():
                    if isinstance(value, bool) or not isinstance(value, (str, int, float, type(None))):
                        raise ValueError(
                            f"row {number}, '{key}': expected a number, a text or null, got {type(value).__name__}"
                        )
                    if isinstance(value, str) and len(value) > MAX_LABEL:
                        raise ValueError(f"row {number}, '{key}': a value is at most {MAX_LABEL} characters")
        return rows

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> ChartData:
        keys = [series.key for series in self.series]
        for index, key in enumerate(keys):
            if key in keys[:index]:
                raise ValueError(f"series[{index}].key '{key}' is used twice: every series plots its own key")
            if key == self.x:
                raise ValueError(f"series[{index}].key '{key}' is data.x: the series plot other keys than the x")
        try:
            self.rows = checked_rows(self, self.rows)
        except ValueError as exc:
            raise ValueError(f"data.rows of {validated_element(info, 'the chart')}: {exc}") from None
        return self


# A JSON number within range: taken as it is (the common case, checked without building a message).
_PLAIN_NUMBERS = (int, float)
_LARGEST = 1e15


def _number(value: Any, number: int, key: str, scatter_x: bool = False) -> float | None:
    """A row's number (a JSON number, or text such as "1,234.5"), None for a missing one;
    ValueError naming row `number` and `key`."""
    if type(value) in _PLAIN_NUMBERS and -_LARGEST <= value <= _LARGEST:  # NaN and inf fail the comparison
        return float(value)
    if value is None or value == "":
        return None
    where = f"row {number}, '{key}'" + (" (the x of a scatter)" if scatter_x else "")
    expected = "a number" if scatter_x else "a number (or null)"
    if isinstance(value, bool):
        raise ValueError(f"{where} must be {expected}, got a boolean")
    if isinstance(value, (int, float)):
        raise ValueError(f"{where} must be a finite number within ±10^15, got {value!r}")
    try:
        parsed = parse_number(value)
    except ValueError:
        raise ValueError(f"{where} must be {expected}, got {value!r}") from None
    if abs(parsed) > Decimal(10) ** 15:
        raise ValueError(f"{where} is out of range (at most 10^15)")
    return float(parsed)


def checked_rows(data: Any, rows: list) -> list[dict[str, Any]]:
    """The rows as drawn: each an object with data.x (a number for a scatter) and the series'
    values as numbers or null; numeric texts ("1,234.5") read as numbers, "" as null.
    ValueError names the row and the key."""
    if len(rows) > MAX_ROWS:
        raise ValueError(f"{len(rows):,} rows is more than the {MAX_ROWS:,} a chart plots: aggregate them first")
    keys = {series.key for series in data.series}
    x = data.x
    scatter = data.kind == "scatter"
    out = []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise ValueError(
                f"row {number} is a {type(row).__name__}: "
                "send every row as an object keyed by data.x and the series' keys"
            )
        category = row.get(x)
        if category is None or category == "":
            raise ValueError(f"row {number} has no '{x}' (data.x): every row needs its category or x value")
        clean: dict[str, Any] = {}
        for key, value in row.items():
            if key in keys:
                clean[key] = _number(value, number, key)
            elif key != x:
                known = ", ".join([x, *(series.key for series in data.series)])
                raise ValueError(
                    f"row {number}: '{key}' is neither data.x nor a series' key (the chart's keys: {known})"
                )
            elif scatter:
                clean[key] = _number(value, number, key, scatter_x=True)
            elif isinstance(value, bool) or not isinstance(value, (str, int, float)):
                raise ValueError(f"row {number}, '{key}': a category is a text or a number")
            elif isinstance(value, str) and len(value) > MAX_LABEL:
                raise ValueError(f"row {number}, '{key}': a category is at most {MAX_LABEL} characters")
            else:
                clean[key] = value
        out.append(clean)
    return out


class ChartStyles(StrictModel):
    fontFamily: FontFamily = DEFAULT_FAMILY
    fontSize: float = Field(9, ge=4, le=48, description="The labels' size; the title is 1.3 times it")
    palette: list[HexColor] | None = Field(
        None,
        min_length=1,
        max_length=MAX_PALETTE,
        description="Colours of the series (a pie's slices) in order; default a colour-blind-safe palette",
    )


# --- drawing -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlacedLabel:
    """A text placed on the page: its box's top-left corner and width (top-down page points)."""

    text: str
    style: TextStyle
    left: float
    top: float
    width: float
    measured: float | None = None  # the text's own width, when the layout measured it already


class Labels:
    """The chart's texts in reading order, drawn after its marks as one text object where the
    fast path may (typeset.TextWriter), so that the text extracts in that order."""

    def __init__(self) -> None:
        self.items: list[PlacedLabel] = []

    def add(
        self, text: str, style: TextStyle, left: float, top: float, width: float, measured: float | None = None
    ) -> None:
        if text:
            self.items.append(PlacedLabel(text, style, left, top, width, measured))

    @staticmethod
    def lines(item: PlacedLabel) -> list[typeset.Line]:
        """A label's lines: one line as measured (most labels; no wrap cache to look up), or
        the lines of a text holding line breaks (a wrapped title)."""
        if "\n" in item.text:
            return typeset.wrap(item.text, item.style, None)
        measured = item.measured if item.measured is not None else typeset.width_of(item.text, item.style)
        return [typeset.Line(item.text, measured, True)]

    def draw(self, ctx: DrawContext) -> None:
        canvas = ctx.canvas
        direct = ctx.options.direct_text
        writer = typeset.TextWriter(canvas) if typeset.writes_directly(canvas, direct) else None
        for item in self.items:
            lines = self.lines(item)
            if writer is not None and typeset.is_plain(lines, item.style):
                writer.set_fill(item.style.color)
                writer.add(lines, item.style, item.left, item.top, item.width, ctx.page_height)
                continue
            if writer is not None and writer.has_text:
                canvas.addLiteral(writer.take_code())
            typeset.draw_lines(
                canvas, lines, item.style, item.left, item.top, item.width, ctx.page_height, direct=direct
            )
        if writer is not None and writer.has_text:
            canvas.addLiteral(writer.code())


@lru_cache(maxsize=256)
def label_style(family: str, size: float, align: Align = "left", title: bool = False) -> TextStyle:
    """The style of a chart's labels (its title: bold, 1.3 times the size), one object per
    font, size and alignment: the text caches hash a style once per object, and every chart
    drawn in the font and size finds its widths there."""
    if title:
        return TextStyle(family=family, size=size * 1.3, weight=700, color=TEXT_COLOR, align=align, line_height=1.2)
    return TextStyle(family=family, size=size, color=TEXT_COLOR, align=align, line_height=1.2)


def _width(text: str, style: TextStyle) -> float:
    return typeset.width_of(text, style) if text else 0.0


def palette_of(node: Any) -> tuple[str, ...]:
    return tuple(node.styles.palette) if node.styles.palette else DEFAULT_PALETTE


def series_colors(node: Any) -> list[str]:
    """Each series' colour: its own, else the palette's in turn."""
    palette = palette_of(node)
    return [series.color or palette[index % len(palette)] for index, series in enumerate(node.data.series)]


@dataclass(frozen=True)
class Formats:
    """How the chart shows its numbers: the y axis's ticks, the x axis's (a scatter's) and
    categories, and percentages, in the design's language."""

    locale: str

    def y(self, node: Any) -> Any:
        first = node.data.series[0]
        pattern = node.data.axis.y.format or first.format
        return number_formatter(
            first.dataType if node.data.axis.y.format is None else "number", pattern, self.locale, "USD"
        )

    def x_number(self, node: Any) -> Any:
        return number_formatter("number", node.data.axis.x.format, self.locale, "USD")

    def category(self, value: Any, pattern: str | None) -> str:
        if pattern is not None:
            try:
                if isinstance(value, (int, float)):
                    return number_formatter("number", pattern, self.locale, "USD")(Decimal(repr(value)))
                parse_date(value)
                return format_value(value, "date", pattern, self.locale)
            except ValueError:
                pass  # a category that is no date is shown as it is
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)

    def percent(self, share: float) -> str:
        return _percent(share, self.locale)


@lru_cache(maxsize=4096)
def _percent(share: float, locale: str) -> str:
    return format_percent(share, locale=locale)


@lru_cache(maxsize=64)
def _locale(language: str) -> str:
    try:
        return check_locale(language) if language else "en"
    except ValueError:
        return "en"


def nice_ticks(low: float, high: float, count: int, fixed_low: float | None = None, fixed_high: float | None = None):
    """Ticks at a 1-2-5 step covering [low, high] in about `count` steps, as Decimals (so
    that 0.1 + 0.2 shows as 0.3), and the axis's range: the outer ticks, or the fixed ends."""
    if fixed_low is not None:
        low = fixed_low
    if fixed_high is not None:
        high = fixed_high
    if high <= low:
        # One value, or one fixed end beyond the data: the range opens away from the fixed end.
        spread = abs(low if fixed_high is None else high) or 1.0
        if fixed_high is not None:
            low = high - spread
        elif fixed_low is not None:
            high = low + spread
        elif low == 0:
            high = 1.0
        else:
            low, high = low - spread / 2, high + spread / 2
    raw = (high - low) / max(count, 1)
    exponent = math.floor(math.log10(raw))
    fraction = raw / 10**exponent
    mantissa = 1 if fraction <= 1 else 2 if fraction <= 2 else 5 if fraction <= 5 else 10
    step = Decimal(mantissa).scaleb(exponent)
    first = (Decimal(repr(low)) / step).to_integral_value(ROUND_FLOOR if fixed_low is None else ROUND_CEILING) * step
    last = (Decimal(repr(high)) / step).to_integral_value(ROUND_CEILING if fixed_high is None else ROUND_FLOOR) * step
    ticks = []
    tick = first
    while tick <= last and len(ticks) < 100:
        ticks.append(tick)
        tick += step
    start = float(first) if fixed_low is None else fixed_low
    end = float(last) if fixed_high is None else fixed_high
    return ticks, start, end


def _values(node: Any, rows: list[dict], index: int) -> list[float | None]:
    key = node.data.series[index].key
    return [row.get(key) for row in rows]


def y_range(node: Any, rows: list[dict]) -> tuple[float, float]:
    """The data's lowest and highest y; bars and areas stand on 0, which is in it."""
    kind = node.data.kind
    if kind == "stackedBar":
        lows, highs = [0.0], [0.0]
        for row in rows:
            values = [row.get(series.key) or 0.0 for series in node.data.series]
            highs.append(sum(v for v in values if v > 0))
            lows.append(sum(v for v in values if v < 0))
        return min(lows), max(highs)
    values = [v for i in range(len(node.data.series)) for v in _values(node, rows, i) if v is not None]
    if kind in ("bar", "area"):
        values.append(0.0)
    if not values:
        return 0.0, 1.0
    return min(values), max(values)


def draw(node: Any, box: Box, ctx: DrawContext, part: Any = None) -> None:
    """The chart inside its box, a Figure in the tagged profiles: its data.alt, or a summary of
    its series (extensions.md 15), the labels its content."""
    canvas = ctx.canvas
    # The summary is made only for a tagged profile: untagged, nothing reads it.
    alt = node.data.alt or (summary(node, _locale(ctx.language)) if ctx.tags.tagged else None)
    with ctx.tags.figure(canvas, alt):
        canvas.saveState()
        try:
            _draw(node, box, ctx)
        finally:
            canvas.restoreState()


def _draw(node: Any, box: Box, ctx: DrawContext) -> None:
    data, styles = node.data, node.styles
    size = styles.fontSize
    label = label_style(styles.fontFamily, size)
    formats = Formats(_locale(ctx.language))
    labels = Labels()
    top, bottom, left, right = box.y, box.bottom, box.x, box.x + box.w
    if data.title:
        title = label_style(styles.fontFamily, size, "center", title=True)
        lines = typeset.wrap(data.title, title, box.w)
        labels.add("\n".join(line.text for line in lines), title, left, top, box.w)
        top += len(lines) * title.leading + size * 0.5
    entries = _legend_entries(node, formats)
    legend = data.legend if entries else "none"
    later = Labels()  # the legend at the bottom or right, read after the axes
    if legend in ("top", "bottom"):
        height = _legend_rows(entries, label, box.w, size, left, 0.0, ctx, None)
        if legend == "top":
            _legend_rows(entries, label, box.w, size, left, top, ctx, labels)
            top += height + size * 0.6
        else:
            bottom -= height
            _legend_rows(entries, label, box.w, size, left, bottom, ctx, later)
            bottom -= size * 0.6
    elif legend == "right":
        width = _legend_column(entries, label, size, right, top, bottom, ctx, later)
        right -= width + size
    if data.kind in ROUND_KINDS:
        _draw_round(node, Box(left, top, max(right - left, 0.0), max(bottom - top, 0.0)), ctx, label, formats, labels)
    else:
        _draw_axes(node, Box(left, top, max(right - left, 0.0), max(bottom - top, 0.0)), ctx, label, formats, labels)
    labels.items.extend(later.items)
    labels.draw(ctx)


# --- legend -------------------------------------------------------------------------------------------


def _legend_entries(node: Any, formats: Formats) -> list[tuple[str, str]]:
    """(colour, name) of each series, or of each slice of a pie or donut, its category formatted
    as the slices' labels are (`formats`: the design's language)."""
    if node.data.kind in ROUND_KINDS:
        palette = palette_of(node)
        key = node.data.series[0].key
        return [
            (palette[index % len(palette)], formats.category(row[node.data.x], node.data.axis.x.format))
            for index, row in enumerate(node.data.rows)
            if (row.get(key) or 0) > 0
        ]
    return list(zip(series_colors(node), (series.name for series in node.data.series), strict=True))


def _swatch(ctx: DrawContext, color: str, left: float, top: float, side: float) -> None:
    canvas = ctx.canvas
    canvas.setFillColor(to_rl(color))
    canvas.rect(left, ctx.pdf_y(top, side), side, side, stroke=0, fill=1)


def _legend_rows(
    entries: list[tuple[str, str]],
    style: TextStyle,
    width: float,
    size: float,
    left: float,
    top: float,
    ctx: DrawContext,
    labels: Labels | None,
) -> float:
    """Entries in centred rows across `width` from `top`: their height; drawn when `labels` is given."""
    swatch, gap, spacing = size * 0.8, size * 0.35, size * 1.2
    rows: list[list[tuple[str, str, float]]] = [[]]
    used = 0.0
    for color, name in entries:
        name_width = min(_width(name, style), width - swatch - gap)
        need = swatch + gap + name_width
        if rows[-1] and used + spacing + need > width:
            rows.append([])
            used = 0.0
        used += (spacing if rows[-1] else 0.0) + need
        rows[-1].append((color, name, name_width))
    if labels is not None:
        for number, row in enumerate(rows):
            total = sum(swatch + gap + w for _, _, w in row) + spacing * (len(row) - 1)
            x = left + (width - total) / 2
            line_top = top + number * style.leading
            for color, name, name_width in row:
                _swatch(ctx, color, x, line_top + (style.leading - swatch) / 2, swatch)
                labels.add(name, style, x + swatch + gap, line_top, name_width)
                x += swatch + gap + name_width + spacing
    return len(rows) * style.leading


def _legend_column(
    entries: list[tuple[str, str]],
    style: TextStyle,
    size: float,
    right: float,
    top: float,
    bottom: float,
    ctx: DrawContext,
    labels: Labels,
) -> float:
    """Entries one under the other at the right, as many as fit: the column's width."""
    swatch, gap = size * 0.8, size * 0.35
    widest = max(_width(name, style) for _, name in entries)
    width = swatch + gap + widest
    left = right - width
    line_top = top
    for color, name in entries:
        if line_top + style.leading > bottom + 0.01:
            break
        _swatch(ctx, color, left, line_top + (style.leading - swatch) / 2, swatch)
        labels.add(name, style, left + swatch + gap, line_top, widest)
        line_top += style.leading
    return width


# --- bar, stacked bar, line, area, scatter -------------------------------------------------------------


def _draw_axes(node: Any, area: Box, ctx: DrawContext, style: TextStyle, formats: Formats, labels: Labels) -> None:
    data = node.data
    canvas = ctx.canvas
    size = style.size
    rows = data.rows
    top, bottom = area.y, area.bottom
    axis = data.axis
    if axis.y.title:
        labels.add(axis.y.title, style, area.x, top, area.w)
        top += style.leading + size * 0.3
    x_title_top = None
    if axis.x.title:
        bottom -= style.leading
        x_title_top = bottom
    bottom -= style.leading + size * 0.4  # the x ticks' labels
    top += style.leading / 2  # the top tick's label stands half above it
    plot_height = bottom - top
    if plot_height <= size or area.w <= size * 4:
        return  # no room to plot: the texts alone would mislead
    low, high = y_range(node, rows)
    count = max(2, min(10, int(plot_height / (size * 2.8))))
    ticks, y_low, y_high = nice_ticks(low, high, count, axis.y.min, axis.y.max)
    y_format = formats.y(node)
    tick_texts = [y_format(tick) for tick in ticks]
    tick_width = max((_width(text, style) for text in tick_texts), default=0.0)
    plot_left = area.x + tick_width + size * 0.5
    plot_right = area.x + area.w
    scatter = data.kind == "scatter"
    if scatter:
        x_values = [row[data.x] for row in rows]
        x_ticks, x_low, x_high = nice_ticks(
            min(x_values, default=0.0), max(x_values, default=1.0), max(2, int((plot_right - plot_left) / (size * 6)))
        )
        x_format = formats.x_number(node)
        x_texts = [x_format(tick) for tick in x_ticks]
        # The last x label is centred on the plot's right edge: room for its half.
        plot_right -= _width(x_texts[-1], style) / 2 if x_texts else 0.0
    plot_width = plot_right - plot_left
    if plot_width <= size:
        return

    def y_at(value: float) -> float:
        """The page's top-down y of a value."""
        return bottom - (value - y_low) / (y_high - y_low) * plot_height

    # Marks beyond a fixed axis end are clipped; their coordinates are also kept within a plot's
    # height of the plot (a value of 10^15 on a 0-10 axis is no number a PDF can hold).
    limits = (top - plot_height, bottom + plot_height)

    # Grid lines and the y axis's labels, top to bottom.
    canvas.setLineWidth(0.5)
    canvas.setStrokeColor(to_rl(GRID_COLOR))
    grid = canvas.beginPath()
    tick_ys = []
    for tick in ticks:
        y = y_at(float(tick))
        tick_ys.append(y)
        grid.moveTo(plot_left, ctx.pdf_y(y))
        grid.lineTo(plot_right, ctx.pdf_y(y))
    if scatter:
        x_positions = [plot_left + (float(t) - x_low) / (x_high - x_low) * plot_width for t in x_ticks]
        for x in x_positions:
            grid.moveTo(x, ctx.pdf_y(top))
            grid.lineTo(x, ctx.pdf_y(bottom))
    canvas.drawPath(grid, stroke=1, fill=0)
    right_aligned = label_style(style.family, style.size, "right")
    for text, y in sorted(zip(tick_texts, tick_ys, strict=True), key=lambda pair: pair[1]):
        labels.add(text, right_aligned, area.x, y - style.leading / 2, tick_width)

    clipped = axis.y.min is not None or axis.y.max is not None
    if clipped:
        canvas.saveState()
        clip = canvas.beginPath()
        clip.rect(plot_left, ctx.pdf_y(bottom), plot_width, plot_height)
        canvas.clipPath(clip, stroke=0, fill=0)
    baseline = y_at(min(max(0.0, y_low), y_high))
    colors = series_colors(node)
    band = plot_width / max(len(rows), 1)
    centres = [plot_left + band * (i + 0.5) for i in range(len(rows))]
    if data.kind == "bar":
        _bars(node, ctx, rows, centres, band, y_at, baseline, colors, limits)
    elif data.kind == "stackedBar":
        _stacked(node, ctx, rows, centres, band, y_at, colors, limits)
    elif data.kind in ("line", "area"):
        _lines_and_areas(node, ctx, rows, centres, y_at, baseline, colors, limits)
    else:
        xs = [plot_left + (row[data.x] - x_low) / (x_high - x_low) * plot_width for row in rows]
        _points(node, ctx, rows, xs, y_at, colors, size, limits)
    if clipped:
        canvas.restoreState()

    # The axis line at the baseline (0, or the range's end nearest it).
    canvas.setLineWidth(0.75)
    canvas.setStrokeColor(to_rl(AXIS_COLOR))
    canvas.line(plot_left, ctx.pdf_y(baseline), plot_right, ctx.pdf_y(baseline))

    # The x axis's labels, left to right.
    label_top = bottom + size * 0.4
    centred = label_style(style.family, style.size, "center")
    if scatter:
        for text, x in zip(x_texts, x_positions, strict=True):
            width = _width(text, style)
            labels.add(text, centred, x - width / 2, label_top, width, width)
    else:
        texts = [formats.category(row[data.x], axis.x.format) for row in rows]
        widths = [_width(text, style) for text in texts]
        # Every k-th category is named when their names would overlap.
        step = max(1, math.ceil((max(widths, default=0.0) + size * 0.5) / band)) if band > 0 else 1
        for index in range(0, len(texts), step):
            width = widths[index]
            labels.add(texts[index], centred, centres[index] - width / 2, label_top, width, width)
    if x_title_top is not None and axis.x.title:
        labels.add(axis.x.title, centred, plot_left, x_title_top, plot_width)


def _bounded(y: float, limits: tuple[float, float]) -> float:
    return min(max(y, limits[0]), limits[1])


def _within(points: list[tuple[float, float]], limits: tuple[float, float]) -> list[tuple[float, float]]:
    """A polyline (page points, y down) whose parts beyond the limits run along them instead:
    where a segment crosses a limit the crossing is added, so that inside the limits every
    segment is where it was."""
    low, high = limits
    if all(low <= y <= high for _, y in points):
        return points
    out: list[tuple[float, float]] = []
    for index, (x, y) in enumerate(points):
        if index:
            px, py = points[index - 1]
            crossings = sorted(((edge - py) / (y - py), edge) for edge in limits if (py - edge) * (y - edge) < 0)
            out.extend((px + t * (x - px), edge) for t, edge in crossings)
        out.append((x, _bounded(y, limits)))
    return out


def _bars(node, ctx, rows, centres, band, y_at, baseline, colors, limits) -> None:
    """Grouped bars: each category's series side by side in 80% of its band, from the baseline."""
    canvas = ctx.canvas
    count = len(node.data.series)
    group = band * 0.8
    width = group / count
    for index, color in enumerate(colors):
        canvas.setFillColor(to_rl(color))
        for centre, value in zip(centres, _values(node, rows, index), strict=True):
            if value is None:
                continue
            y = _bounded(y_at(value), limits)
            left = centre - group / 2 + index * width
            top, height = min(y, baseline), abs(baseline - y)
            canvas.rect(left, ctx.pdf_y(top, height), width, height, stroke=0, fill=1)


def _stacked(node, ctx, rows, centres, band, y_at, colors, limits) -> None:
    """Stacked bars in 60% of each band: positive values stack up from 0, negative ones down."""
    canvas = ctx.canvas
    width = band * 0.6
    up = [0.0] * len(rows)
    down = [0.0] * len(rows)
    for index, color in enumerate(colors):
        canvas.setFillColor(to_rl(color))
        for r, (centre, value) in enumerate(zip(centres, _values(node, rows, index), strict=True)):
            if not value:
                continue
            stack = up if value > 0 else down
            start, end = stack[r], stack[r] + value
            stack[r] = end
            top, low = _bounded(y_at(max(start, end)), limits), _bounded(y_at(min(start, end)), limits)
            canvas.rect(centre - width / 2, ctx.pdf_y(low), width, low - top, stroke=0, fill=1)


def _runs(xs: list[float], values: list[float | None]) -> Iterator[list[tuple[float, float]]]:
    """Consecutive points with values: a missing value breaks a line."""
    run: list[tuple[float, float]] = []
    for x, value in zip(xs, values, strict=True):
        if value is None:
            if run:
                yield run
            run = []
        else:
            run.append((x, value))
    if run:
        yield run


def _lighter(color: str, amount: float = 0.7) -> str:
    """The colour mixed with white: an area's fill, opaque (no transparency group needed in
    PDF/A), its line drawn in the full colour on it."""
    rl = to_rl(color)
    parts = [round((c + (1 - c) * amount) * 255) for c in (rl.red, rl.green, rl.blue)]
    return "#" + "".join(f"{p:02x}" for p in parts)


def _lines_and_areas(node, ctx, rows, centres, y_at, baseline, colors, limits) -> None:
    canvas = ctx.canvas
    area = node.data.kind == "area"
    canvas.setLineWidth(1.5)
    canvas.setLineJoin(1)
    canvas.setLineCap(1)
    for index, color in enumerate(colors):
        runs = [[(x, y_at(value)) for x, value in run] for run in _runs(centres, _values(node, rows, index))]
        if area:
            canvas.setFillColor(to_rl(_lighter(color)))
            fill = canvas.beginPath()
            for run in runs:
                outline = _within([(run[0][0], baseline), *run, (run[-1][0], baseline)], limits)
                fill.moveTo(outline[0][0], ctx.pdf_y(outline[0][1]))
                for x, y in outline[1:]:
                    fill.lineTo(x, ctx.pdf_y(y))
                fill.close()
            canvas.drawPath(fill, stroke=0, fill=1)
        canvas.setStrokeColor(to_rl(color))
        path = canvas.beginPath()
        for run in runs:
            line = _within(run, limits)
            path.moveTo(line[0][0], ctx.pdf_y(line[0][1]))
            for x, y in line[1:]:
                path.lineTo(x, ctx.pdf_y(y))
        canvas.drawPath(path, stroke=1, fill=0)
        if len(rows) <= 24 and not area:
            canvas.setFillColor(to_rl(color))
            for run in runs:
                for x, y in run:
                    if limits[0] <= y <= limits[1]:
                        canvas.circle(x, ctx.pdf_y(y), 2.0, stroke=0, fill=1)


def _points(node, ctx, rows, xs, y_at, colors, size, limits) -> None:
    canvas = ctx.canvas
    radius = max(size / 4, 1.5)
    for index, color in enumerate(colors):
        canvas.setFillColor(to_rl(color))
        for x, value in zip(xs, _values(node, rows, index), strict=True):
            if value is not None and limits[0] <= y_at(value) <= limits[1]:
                canvas.circle(x, ctx.pdf_y(y_at(value)), radius, stroke=0, fill=1)


# --- pie and donut --------------------------------------------------------------------------------------


def slices(node: Any) -> list[tuple[int, float, float, float]]:
    """(row index, value, start angle, sweep) of each slice of the first series' positive
    values, clockwise from 12 o'clock, angles in degrees counter-clockwise from 3 o'clock."""
    key = node.data.series[0].key
    values = [(index, row.get(key)) for index, row in enumerate(node.data.rows)]
    positive = [(index, value) for index, value in values if value is not None and value > 0]
    total = sum(value for _, value in positive)
    out = []
    angle = 90.0
    for index, value in positive:
        sweep = value / total * 360.0
        out.append((index, value, angle, -sweep))
        angle -= sweep
    return out


def _draw_round(node: Any, area: Box, ctx: DrawContext, style: TextStyle, formats: Formats, labels: Labels) -> None:
    data = node.data
    canvas = ctx.canvas
    size = style.size
    parts = slices(node)
    if not parts:
        return
    total = sum(value for _, value, _, _ in parts)
    texts = []
    for index, value, _, _ in parts:
        share = formats.percent(value / total)
        name = formats.category(data.rows[index][data.x], data.axis.x.format)
        texts.append(share if data.legend != "none" else f"{name} {share}")
    widest = max(_width(text, style) for text in texts)
    gap = size * 0.6
    radius = min(area.h / 2 - style.leading - gap, area.w / 2 - widest - gap)
    radius = max(radius, min(area.w, area.h) / 4)
    if radius <= 1:
        return
    cx, cy = area.x + area.w / 2, ctx.pdf_y(area.y + area.h / 2)
    palette = palette_of(node)
    inner = radius * 0.55 if data.kind == "donut" else 0.0
    canvas.setStrokeColor(to_rl("#FFFFFF"))
    canvas.setLineWidth(1.0 if len(parts) > 1 else 0.0)
    canvas.setLineJoin(1)
    for number, (_, _, start, sweep) in enumerate(parts):
        canvas.setFillColor(to_rl(palette[number % len(palette)]))
        path = canvas.beginPath()
        if inner:
            path.arc(cx - radius, cy - radius, cx + radius, cy + radius, start, sweep)
            path.arcTo(cx - inner, cy - inner, cx + inner, cy + inner, start + sweep, -sweep)
        else:
            path.moveTo(cx, cy)
            path.arcTo(cx - radius, cy - radius, cx + radius, cy + radius, start, sweep)
        path.close()
        canvas.drawPath(path, stroke=1 if len(parts) > 1 else 0, fill=1)
    # Each slice's share outside it, at its middle angle, clockwise from the top.
    for text, (_, _, start, sweep) in zip(texts, parts, strict=True):
        middle = math.radians(start + sweep / 2)
        x = cx + (radius + gap) * math.cos(middle)
        y = ctx.page_height - (cy + (radius + gap) * math.sin(middle))
        width = _width(text, style)
        cos = math.cos(middle)
        left = x - width / 2 if abs(cos) < 0.2 else x if cos > 0 else x - width
        sin = math.sin(middle)
        top = y - style.leading / 2 - (style.leading / 2 if sin > 0.9 else 0) + (style.leading / 2 if sin < -0.9 else 0)
        labels.add(text, style, left, top, width, width)


# --- alternative text -----------------------------------------------------------------------------------


def summary(node: Any, locale: str = "en") -> str:
    """What a screen reader says of a chart without data.alt: its kind and title, and each
    series' count of points and range (a pie's slices with their shares)."""
    data = node.data
    head = KIND_NAMES[data.kind] + (f": {data.title}" if data.title else "")
    formats = Formats(locale)
    if data.kind in ROUND_KINDS:
        parts = slices(node)
        total = sum(value for _, value, _, _ in parts)
        named = [
            f"{formats.category(data.rows[index][data.x], data.axis.x.format)} {formats.percent(value / total)}"
            for index, value, _, _ in parts[:MAX_SERIES]
        ]
        more = f", and {len(parts) - MAX_SERIES} more" if len(parts) > MAX_SERIES else ""
        return f"{head}, {data.series[0].name} in {len(parts)} slices: {', '.join(named)}{more}."
    y_format = formats.y(node)
    said = []
    for index, series in enumerate(data.series):
        values = [v for v in _values(node, data.rows, index) if v is not None]
        if not values:
            said.append(f"{series.name}, no points")
            continue
        low, high = min(values), max(values)
        points = "1 point" if len(values) == 1 else f"{len(values)} points"
        said.append(f"{series.name}, {points}, from {y_format(Decimal(repr(low)))} to {y_format(Decimal(repr(high)))}")
    return f"{head}; {'; '.join(said)}."


# --- binding ---------------------------------------------------------------------------------------------


def bind_value(node: Any, value: Any) -> Any:
    """Rows replace the design's: a list of objects keyed by data.x and the series' keys, or a
    2-D array whose first row names the keys (a pasted CSV, the editor's "Try values")."""
    if not isinstance(value, list):
        raise ValueError(
            f'expected a list of row objects, e.g. [{{"{node.data.x}": "Jan", "{node.data.series[0].key}": 12.5}}]'
        )
    if value and all(isinstance(row, list) for row in value):
        header, *body = value
        if not all(isinstance(key, str) for key in header):
            raise ValueError("the first row of a 2-D array names the keys: data.x and the series' keys, as texts")
        value = [dict(zip(header, row, strict=False)) for row in body]
    return with_data(node, rows=checked_rows(node.data, value))


def merge_data(current: dict, patch: dict) -> dict:
    """Key-by-key merge that keeps the design-time rows with the keys: a new `data.x`, or a
    series whose key changed in place (same position, same number of series, the old key gone
    and the new one new), renames that key in every row; a removed series' key leaves the
    rows. A patch that sends rows keeps them as sent."""
    merged = merge_keys(current, patch)
    if "rows" in patch or not isinstance(current.get("rows"), list):
        return merged
    renames: dict[str, str] = {}
    old_x, new_x = current.get("x"), merged.get("x")
    if isinstance(old_x, str) and isinstance(new_x, str) and old_x != new_x:
        renames[old_x] = new_x
    old_keys = [s.get("key") for s in current.get("series") or [] if isinstance(s, dict)]
    new_series = merged.get("series")
    if "series" not in patch or not isinstance(new_series, list):
        new_keys = old_keys
    else:
        new_keys = [s.get("key") if isinstance(s, dict) else None for s in new_series]
        if len(new_keys) == len(old_keys):
            # A key renamed in place: the old key is gone from the series and the new one is new
            # (a reordering or a swap renames nothing).
            renames.update(
                {
                    old: new
                    for old, new in zip(old_keys, new_keys, strict=True)
                    if old != new and old not in new_keys and new not in old_keys
                }
            )
    kept = {renames.get(key, key) for key in (old_x, *old_keys)} & {new_x, *new_keys}
    rows = []
    for row in current["rows"]:
        if not isinstance(row, dict):
            return merged  # not rows this merge understands: validation names what is wrong
        moved = {renames.get(key, key): value for key, value in row.items()}
        rows.append({key: value for key, value in moved.items() if key in kept})
    merged["rows"] = rows
    return merged


def has_no_rows(node: Any) -> bool:
    return not node.data.rows


ELEMENT = ElementType(
    name="chart",
    summary="A bar, stackedBar, line, area, pie, donut or scatter chart of rows bound like a table; "
    "position {x, y, w, h}",
    Position=BoxPosition,
    Data=ChartData,
    Styles=ChartStyles,
    measure=box_size,
    draw=draw,
    title="Chart",
    variable=VariableSpec(
        kind="table",
        field="data.rows",
        accepts="a list of row objects keyed by data.x and the series' keys (numbers or null), "
        'e.g. [{"month": "Jan", "revenue": 12.5}]; or a 2-D array whose first row names the keys',
        apply=bind_value,
        is_empty=has_no_rows,
        comparable=False,
    ),
    # Its Figure is opened by draw, with data.alt or a summary of its series (extensions.md 15).
    tags_itself=True,
    merge_data=merge_data,
    editor=EditorHints(
        defaults={
            "position": {"w": 360, "h": 220},
            "data": {
                "kind": "bar",
                "x": "month",
                "series": [{"key": "revenue", "label": "Revenue"}],
                "rows": [
                    {"month": "Jan", "revenue": 12},
                    {"month": "Feb", "revenue": 15},
                    {"month": "Mar", "revenue": 11},
                    {"month": "Apr", "revenue": 18},
                ],
                "title": "Revenue by month",
                "legend": "none",
            },
        },
        text_toolbar=("fontFamily", "fontSize"),
        # The editor's chart panel: the sample rows as a grid, x and the series by its columns.
        keyed_rows=KeyedRows(rows="data.rows", label="data.x", series="data.series"),
    ),
)
