"""Table: a grid sized from its columns and content (spec 4.4, 4.5).

Width comes from `data.columnWidths` (one per column) or `data.width` split equally;
each row is as tall as its tallest cell. A bound table grows or shrinks with its
value, and `paginate` splits it across pages at row boundaries, repeating the header.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import Field, PrivateAttr, ValidationInfo, model_validator

from ..design.colors import HexColor, is_opaque, to_rl
from ..fonts import DEFAULT_FAMILY, FontFamily
from ..text import style as text_style
from ..text import typeset
from .base import (
    MAX_LENGTH,
    Box,
    Computing,
    Coordinate,
    DrawContext,
    EditorHints,
    ElementName,
    ElementType,
    ExpressionText,
    NonNegative,
    StrictModel,
    VariableSpec,
    merge_keys,
    validated_element,
)
from .editing import CELLS, Widget
from .table_rows import (
    ColumnDef,
    FooterRow,
    Shown,
    ShownRow,
    cell_texts,
    check_columns,
    column_types,
    design_rows,
    read_value,
    shown,
    uses,
)
from .text import ALIGN_HELP, HYPHENS_HELP, LIGATURES_HELP, NUMERIC_HELP, FontWeight

MAX_ROWS = 500
MAX_COLUMNS = 50
# the manual, "Limits" (issue 31, item 3): every cell's text together; a table past it belongs
# in several tables (a bound one grows over new sheets).
MAX_TABLE_CHARACTERS = 200_000
DEFAULT_COLUMN_WIDTH = 100.0
# Validation context: the data was validated when it was set or bound, and is validated again to be drawn.
DRAWN = "drawn"


class TablePosition(StrictModel):
    x: Coordinate
    y: Coordinate


class CellData(StrictModel):
    content: str = ""


class CellStyles(StrictModel):
    """Per-cell overrides; anything left out comes from the table's styles."""

    fontFamily: FontFamily | None = None
    fontSize: float | None = Field(None, gt=0, le=500)
    fontWeight: FontWeight | None = None
    italic: bool | None = None
    color: HexColor | None = None
    backgroundColor: HexColor | None = None
    align: text_style.Align | None = None
    fontVariantNumeric: text_style.NumericVariant | None = None


class Cell(StrictModel):
    type: Literal["text"] = "text"
    data: CellData = Field(default_factory=CellData)
    styles: CellStyles = Field(default_factory=CellStyles)


def set_cell_texts(cells: list[list[str | Cell]] | None, texts: list[list[str]]) -> list[list[Any]]:
    """New texts for a grid, each cell keeping its own styles (JSON, for update_element).

    The editor's grid and its CSV paste edit texts only: a cell's overrides (bold, a
    background) stay with its position. Cells past the current grid start plain."""
    current = cells or []
    grid: list[list[Any]] = []
    for r, row in enumerate(texts):
        old_row = current[r] if r < len(current) else []
        new_row: list[Any] = []
        for c, text in enumerate(row):
            old = old_row[c] if c < len(old_row) else ""
            if isinstance(old, str):
                new_row.append(text)
            else:
                new_row.append(
                    old.model_copy(update={"data": CellData(content=text)}).model_dump(mode="json", exclude_none=True)
                )
        grid.append(new_row)
    return grid


# Edited as a grid of texts; set_cell_texts keeps each cell's styles.
def check_table_size(texts: list[list[str]], what: str) -> None:
    """Every cell's text together: at most MAX_TABLE_CHARACTERS; `what` holds them."""
    size = sum(len(text) for row in texts for text in row)
    if size > MAX_TABLE_CHARACTERS:
        raise ValueError(
            f"{what} {size:,} characters; a table holds at most {MAX_TABLE_CHARACTERS:,} in its cells together: "
            "split the rows over several tables"
        )


CellRows = Annotated[list[list[str | Cell]], Widget(CELLS, shown=cell_texts, stored=set_cell_texts)]


class TableData(StrictModel):
    rows: int | None = Field(None, ge=1, le=MAX_ROWS, description="Derived from cells when omitted")
    columns: int | None = Field(None, ge=1, le=MAX_COLUMNS, description="Derived from cells when omitted")
    columnWidths: list[Annotated[float, Field(gt=0, le=MAX_LENGTH)]] | None = Field(
        None, description="Points, one per column"
    )
    width: float | None = Field(None, gt=0, le=MAX_LENGTH, description="Total width, split equally between columns")
    cells: CellRows | None = Field(None, description="Rows of cells: strings or {type, data, styles}")
    headerRow: bool = Field(True, description="The first row is a header: styled, and repeated on new pages")
    headerColumn: bool = Field(False, description="The first column is a header column")
    # extensions.md 11; each left out of dumps while unset, so stored tables stay as they were.
    columnDefs: list[ColumnDef] | None = Field(
        None,
        max_length=MAX_COLUMNS,
        description="One per column, in order: {key, header?, dataType?, format?, locale?, currency?, align?, "
        "value?}; the table's value is then a list of row objects keyed by column key",
        exclude_if=lambda defs: defs is None,
    )
    footer: list[FooterRow] | None = Field(
        None,
        description='Rows after the last data row: column key -> an expression ("=sum(amount)") or literal text; '
        "never left alone at the top of a sheet",
        exclude_if=lambda rows: rows is None,
    )
    groupBy: ElementName | None = Field(
        None,
        description="A column key: consecutive rows with the same value form a group, headed by a group row "
        "and closed by groupFooter rows",
        exclude_if=lambda key: key is None,
    )
    groupHeader: ExpressionText | None = Field(
        None,
        description="The group row's text, an expression; default the group's value",
        exclude_if=lambda t: t is None,
    )
    groupFooter: list[FooterRow] | None = Field(
        None,
        description="Rows closing each group, like footer; their aggregates see the group's rows",
        exclude_if=lambda rows: rows is None,
    )
    # The rows as shown once engine.design.computed resolved the table for a generation
    # (table_rows.shown with the design's values); unset: computed from the data alone.
    _shown: Shown | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _grid(self, info: ValidationInfo) -> TableData:
        if self.cells is None:
            rows, columns = self.rows or 2, self.columns or 2
            self.cells = [[""] * columns for _ in range(rows)]
        if not self.cells or not all(self.cells):
            raise ValueError("cells needs at least one row, and every row at least one cell")
        rows = len(self.cells)
        columns = max(len(r) for r in self.cells)
        if self.rows is not None and self.rows != rows:
            raise ValueError(f"rows is {self.rows} but cells has {rows} rows")
        if self.columns is not None:
            if columns > self.columns:
                raise ValueError(f"columns is {self.columns} but a row of cells has {columns}")
            columns = self.columns
        if rows > MAX_ROWS or columns > MAX_COLUMNS:
            raise ValueError(f"a table holds at most {MAX_ROWS} rows by {MAX_COLUMNS} columns")
        check_table_size(cell_texts(self.cells), "the cells of " + validated_element(info, "the table") + " hold")
        self.cells = [list(r) + [""] * (columns - len(r)) for r in self.cells]
        self.rows, self.columns = rows, columns
        if self.columnWidths is not None:
            if self.width is not None:
                raise ValueError("send data.columnWidths or data.width, not both")
            if len(self.columnWidths) != columns or any(w <= 0 for w in self.columnWidths):
                raise ValueError(f"columnWidths needs {columns} positive widths, one per column")
        # A table validated again to be drawn was checked when set or bound: its cells are not read twice.
        check_columns(self, read_cells=not (info.context or {}).get(DRAWN, False))
        return self


class TableStyles(StrictModel):
    fontFamily: FontFamily = DEFAULT_FAMILY
    fontSize: float = Field(10, gt=0, le=500)
    fontWeight: FontWeight = 400
    italic: bool = False
    color: HexColor = "#000000"
    align: text_style.Align = Field("left", description=ALIGN_HELP)
    direction: text_style.Direction = Field(
        "auto",
        description="rtl: the columns run from the right (the first column on the right) and cells' start/end "
        "align right/left; ltr: from the left; auto: from the left, each cell's paragraphs taking their direction "
        "from their first strong character",
    )
    lineHeight: float = Field(1.2, gt=0, le=10)
    cellPadding: NonNegative = 4.0
    borderColor: HexColor | None = "#000000"
    borderWidth: NonNegative = 0.5
    backgroundColor: HexColor | None = None
    stripeColor: HexColor | None = Field(None, description="Background of every other body row")
    headerBackgroundColor: HexColor | None = "#f2f2f2"
    headerColor: HexColor | None = None
    headerFontWeight: FontWeight = 700
    # extensions.md 17
    hyphens: text_style.Hyphens | None = Field(None, description=HYPHENS_HELP)
    fontVariantNumeric: text_style.NumericVariant = Field("normal", description=NUMERIC_HELP)
    ligatures: text_style.Ligatures = Field("normal", description=LIGATURES_HELP)


class CellLayout(NamedTuple):
    """A cell as laid out (a tuple: made for every cell of every new row, where a frozen
    dataclass's field-by-field __init__ shows in a table's profile)."""

    text: str
    style: text_style.TextStyle
    background: str | None
    lines: tuple[typeset.Line, ...]


@dataclass(frozen=True)
class Grid:
    column_widths: tuple[float, ...]
    row_heights: tuple[float, ...]
    cells: tuple[tuple[CellLayout, ...], ...]
    # Each row's kind (table_rows.RowKind): a header row, a body row, a group row (one cell
    # spanning the table), a group footer or footer row (extensions.md 11).
    kinds: tuple[str, ...] = ()

    def spans(self, r: int) -> bool:
        """Row r is one cell across the table (a group row)."""
        return self.kinds[r] == "group"


@dataclass(frozen=True)
class TablePart:
    """Rows [start, end) of a table drawn on one page, after the header when repeated."""

    start: int
    end: int
    repeat_header: bool
    height: float


def column_widths(data: TableData) -> tuple[float, ...]:
    if data.columnWidths is not None:
        return tuple(data.columnWidths)
    total = data.width if data.width is not None else DEFAULT_COLUMN_WIDTH * (data.columns or 1)
    return (total / (data.columns or 1),) * (data.columns or 1)


def _cell_style(
    own: CellStyles | None, styles: TableStyles, header: bool, striped: bool
) -> tuple[text_style.TextStyle, str | None]:
    """A cell's text style and background: its own overrides, else the table's."""
    weight = styles.headerFontWeight if header else styles.fontWeight
    color = (styles.headerColor or styles.color) if header else styles.color
    background = styles.headerBackgroundColor if header else styles.backgroundColor
    if striped:
        background = styles.stripeColor
    style = text_style.TextStyle(
        family=(own and own.fontFamily) or styles.fontFamily,
        weight=(own and own.fontWeight) or weight,
        italic=own.italic if own and own.italic is not None else styles.italic,
        size=(own and own.fontSize) or styles.fontSize,
        line_height=styles.lineHeight,
        color=(own and own.color) or color,
        align=_physical_align((own and own.align) or styles.align, styles.direction),
        direction=styles.direction,
        hyphens=styles.hyphens,
        numeric=(own and own.fontVariantNumeric) or styles.fontVariantNumeric,
        ligatures=styles.ligatures,
    )
    return style, (own and own.backgroundColor) or background


def _cell_layout(cell: str | Cell, styles: TableStyles, header: bool, body_index: int, width: float) -> CellLayout:
    text, own = (cell, None) if isinstance(cell, str) else (cell.data.content, cell.styles)
    striped = not header and bool(styles.stripeColor) and body_index % 2 == 1
    style, background = _cell_style(own, styles, header, striped)
    inner = max(width - 2 * styles.cellPadding, 1.0)
    return CellLayout(text, style, background, tuple(typeset.wrap(text, style, inner)))


def _physical_align(align: text_style.Align, direction: text_style.Direction) -> text_style.Align:
    """start/end in a table of a set direction are its sides (start is right in an rtl table);
    in an auto table each cell's paragraphs resolve them (extensions.md 6)."""
    if direction == "auto" or align not in ("start", "end"):
        return align
    return "right" if (align == "start") == (direction == "rtl") else "left"


def cell_extent(layout: Grid, r: int, c: int, lefts: tuple[float, ...]) -> tuple[float, float]:
    """(left, width) of cell c of row r: its column's, or the whole table's for a group row."""
    if layout.spans(r):
        return min(lefts), sum(layout.column_widths)
    return lefts[c], layout.column_widths[c]


def column_lefts(widths: tuple[float, ...], left: float, direction: text_style.Direction) -> tuple[float, ...]:
    """Each column's left edge, in column order: from `left` rightwards, or in an rtl table
    from the right edge leftwards, the first column on the right (extensions.md 6)."""
    edges = []
    x = left + sum(widths) if direction == "rtl" else left
    for width in widths:
        if direction == "rtl":
            x -= width
            edges.append(x)
        else:
            edges.append(x)
            x += width
    return tuple(edges)


def grid(node: Any) -> Grid:
    # Models are not hashable; their JSON is, and costs far less than re-wrapping cells.
    data = node.data
    rows = None
    if data.columnDefs is not None:
        rows = (data._shown or design_rows(data)).rows
    return _grid_cached(data.model_dump_json(), node.styles.model_dump_json(), rows)


# The kinds of row drawn like the header row (extensions.md 11: footers are "styled like the header").
HEADER_LIKE = frozenset(("header", "group", "groupFooter", "footer"))


@lru_cache(maxsize=512)
def _grid_cached(data_json: str, styles_json: str, shown: tuple[ShownRow, ...] | None) -> Grid:
    data = ELEMENT.Data.model_validate_json(data_json, context={DRAWN: True})  # the declared model, with data.link
    styles = TableStyles.model_validate_json(styles_json)
    widths = column_widths(data)
    inner_widths = [max(width - 2 * styles.cellPadding, 1.0) for width in widths]
    header_rows = 1 if data.headerRow else 0
    if shown is None:
        shown = tuple(
            ShownRow("header" if r < header_rows else "body", tuple(cell_texts([row])[0]), r)
            for r, row in enumerate(data.cells or [])
        )
    aligns = [column.align for column in data.columnDefs or []]
    # A plain cell (a string) takes one of a few styles: made once each, not once a cell.
    plain_styles: dict[tuple[bool, bool, Any], tuple[typeset.LineBreaker, str | None]] = {}
    rows: list[tuple[CellLayout, ...]] = []
    heights: list[float] = []
    body_index = 0
    for row in shown:
        laid: list[CellLayout] = []
        header_like = row.kind in HEADER_LIKE
        if row.kind == "group":
            style, background = _cell_style(None, styles, True, False)
            text = row.texts[0]
            laid.append(
                CellLayout(
                    text,
                    style,
                    background,
                    tuple(typeset.wrap(text, style, max(sum(widths) - 2 * styles.cellPadding, 1.0))),
                )
            )
        else:
            design_row = (data.cells or [])[row.template] if row.template is not None else ()
            for c, text in enumerate(row.texts):
                header = header_like or bool(data.headerColumn and c == 0)
                cell = design_row[c] if c < len(design_row) else ""
                align = aligns[c] if c < len(aligns) else None
                if not isinstance(cell, str):
                    if cell.data.content != text:
                        cell = cell.model_copy(update={"data": CellData(content=text)})
                    if align is not None and cell.styles.align is None:
                        cell = cell.model_copy(update={"styles": cell.styles.model_copy(update={"align": align})})
                    laid.append(_cell_layout(cell, styles, header, body_index, widths[c]))
                    continue
                striped = not header and bool(styles.stripeColor) and body_index % 2 == 1
                if (header, striped, align) not in plain_styles:
                    own = CellStyles(align=align) if align is not None else None
                    style, background = _cell_style(own, styles, header, striped)
                    plain_styles[header, striped, align] = typeset.breaker_for(style), background
                breaker, background = plain_styles[header, striped, align]
                laid.append(CellLayout(text, breaker.style, background, breaker.lines(text, inner_widths[c])))
        if row.kind == "body":
            body_index += 1
        rows.append(tuple(laid))
        tallest = max(len(cell.lines) * cell.style.leading for cell in laid)
        heights.append(tallest + 2 * styles.cellPadding)
    return Grid(widths, tuple(heights), tuple(rows), tuple(row.kind for row in shown))


def measure(node: Any) -> tuple[float, float]:
    layout = grid(node)
    return sum(layout.column_widths), sum(layout.row_heights)


def paginate(node: Any, first_room: float, page_room: float) -> list[TablePart]:
    """Split the rows into parts fitting first_room, then page_room each.

    Rows are never split and a header is never left alone at a page's foot; the
    header row is repeated at the top of every later part. Rows that keep together (a group
    row and its first row; footer rows and the data row before them, extensions.md 11) go to
    the next part together, unless they would not fit a whole page either. An empty first
    part means the table starts on the next page. A row taller than a whole page gets a
    part of its own and overflows it.
    """
    layout = grid(node)
    heights = layout.row_heights
    count = len(heights)
    header = 1 if layout.kinds and layout.kinds[0] == "header" else 0
    header_height = sum(heights[:header])
    glued = _glued(layout.kinds)
    parts: list[TablePart] = []
    start, room = 0, first_room
    while start < count:
        repeat = start > 0 and header > 0
        used = header_height if repeat else 0.0
        end = start
        while end < count and used + heights[end] <= room + 0.01:
            used += heights[end]
            end += 1
        needed = min(count, start + (header + 1 if start == 0 else 1))
        kept = end
        while start < kept < count and glued[kept - 1]:
            kept -= 1  # the rows that keep together with the next one go with it
        if kept >= needed:
            end = kept
            used = (header_height if repeat else 0.0) + sum(heights[start:end])
        elif start < end < count and glued[end - 1] and room < page_room - 0.01:
            end = start  # the block fits no part of this sheet: it starts on the next one
        if end < needed:
            if room < page_room - 0.01:
                parts.append(TablePart(start, start, False, 0.0))
                room = page_room
                continue
            end = needed
            used = (header_height if repeat else 0.0) + sum(heights[start:end])
        parts.append(TablePart(start, end, repeat, used))
        start, room = end, page_room
    return parts


def _glued(kinds: tuple[str, ...]) -> list[bool]:
    """Whether each row keeps together with the row after it: a group row with its group's
    first row, and a data row (or group footer) with the footer rows after it."""
    glued = [False] * len(kinds)
    for r in range(len(kinds) - 1):
        after = kinds[r + 1]
        glued[r] = kinds[r] == "group" or (after in ("groupFooter", "footer") and kinds[r] != "header")
    return glued


def draw(node: Any, box: Box, ctx: DrawContext, part: TablePart | None = None) -> None:
    layout = grid(node)
    styles = node.styles
    rows = list(range(len(layout.row_heights)))
    repeated_header = part is not None and part.repeat_header
    if part is not None:
        rows = ([0] if part.repeat_header else []) + rows[part.start : part.end]
    canvas = ctx.canvas
    tags = ctx.tags
    canvas.saveState()
    # Each drawn row's top, then the table's bottom (summed in drawing order, as placed).
    row_tops = list(itertools.accumulate((layout.row_heights[r] for r in rows), initial=box.y))
    bottom = row_tops.pop()
    options = ctx.options
    batched = (
        options.batched_cells and not tags.tagged and _draw_cells_batched(ctx, node, layout, rows, row_tops, box.x)
    )
    # One Table structure element however many pages the table runs over.
    with tags.group("Table", key=node.id):
        if not batched:
            # Made once for the rows: the writer keeps what it looked up for each style.
            lefts = column_lefts(layout.column_widths, box.x, styles.direction)
            writer = typeset.TextWriter(canvas)
            direct = options.batched_cells and typeset.writes_directly(canvas, options.direct_text)
            alpha_is_one = False  # set before the first direct cell; a canvas-drawn cell may change it
        for position, r in enumerate([] if batched else rows):
            # A header repeated on a continuation page is a visual aid, not content again.
            repeat = repeated_header and position == 0
            with tags.artifact(canvas) if repeat else tags.group("TR"):
                alpha_is_one = _draw_row(
                    ctx, node, layout, r, lefts, row_tops[position], writer, direct, alpha_is_one, tagged=not repeat
                )
    if styles.borderColor and styles.borderWidth > 0:
        with tags.artifact(canvas):
            _draw_grid(ctx, box, layout, row_tops, bottom, styles, rows)
    canvas.restoreState()


def _draw_row(
    ctx: DrawContext,
    node: Any,
    layout: Grid,
    r: int,
    lefts: tuple[float, ...],
    top: float,
    writer: typeset.TextWriter,
    direct: bool,
    alpha_is_one: bool,
    tagged: bool,
) -> bool:
    """A row's cells, each in its TD/TH element when tagged; `direct`: plain cells may be
    written as literals (_direct_cell_code). `alpha_is_one`: the fill alpha is known to be 1
    (set by an earlier row), and is returned as the row leaves it."""
    canvas = ctx.canvas
    styles = node.styles
    padding = styles.cellPadding
    height = layout.row_heights[r]
    header_row = layout.kinds[r] == "header"
    begin_content = ctx.tags.begin_content
    # The row's literals, added to the canvas as one (joined by the newline that separates
    # literals) before anything is drawn through the canvas, and at the end.
    pending: list[str] = []
    for c, cell in enumerate(layout.cells[r]):
        left, width = cell_extent(layout, r, c, lefts)
        header_column = node.data.headerColumn and c == 0 and not layout.spans(r)
        if header_row or header_column:
            role, attributes = "TH", _COLUMN_HEADER if header_row else _ROW_HEADER
        else:
            role, attributes = "TD", _NO_ATTRIBUTES
        # The cell's marked content (its TD/TH element and MCID) opened, its drawing and the EMC
        # written as literals: the lines the block and the canvas calls would write.
        opening = begin_content(role, attributes) if tagged else None
        code = _direct_cell_code(ctx, writer, cell, left, top, width, height, padding) if direct else None
        if code is None:
            if opening:
                pending.append(opening)
            if pending:
                canvas.addLiteral("\n".join(pending))
                pending = []
            _draw_cell_on_canvas(ctx, cell, left, top, width, height, padding)
            if opening:
                pending.append("EMC")
            alpha_is_one = False
            continue
        if opening:
            pending.append(opening)
        if not alpha_is_one and (cell.background or cell.text):
            if pending:
                canvas.addLiteral("\n".join(pending))
                pending = []
            canvas.setFillAlpha(1)  # what setFillColor does for an opaque colour (nothing, unless it was not)
            alpha_is_one = True
        if code:
            pending.append(code)
        if opening:
            pending.append("EMC")
    if pending:
        canvas.addLiteral("\n".join(pending))
    return alpha_is_one


# A cell's structure attributes, shared by its table's cells (never changed once made).
_COLUMN_HEADER = {"Scope": "Column"}
_ROW_HEADER = {"Scope": "Row"}
_NO_ATTRIBUTES: dict[str, str] = {}


def _draw_cell_on_canvas(
    ctx: DrawContext, cell: CellLayout, left: float, top: float, width: float, height: float, padding: float
) -> None:
    """A cell through the canvas and typeset.draw_lines (shaped text, translucent colours)."""
    canvas = ctx.canvas
    if cell.background:
        canvas.setFillColor(to_rl(cell.background))
        canvas.rect(left, ctx.pdf_y(top, height), width, height, stroke=0, fill=1)
    if cell.text:
        # Drawn in the style the cell was measured with: the design's language would choose
        # other faces (Han) than the layout measured, so it only names the tagged /Lang.
        typeset.draw_lines(
            canvas,
            cell.lines,
            cell.style,
            left + padding,
            top + padding,
            width - 2 * padding,
            ctx.page_height,
            direct=ctx.options.direct_text,
        )


def _direct_cell_code(
    ctx: DrawContext,
    writer: typeset.TextWriter,
    cell: CellLayout,
    left: float,
    top: float,
    width: float,
    height: float,
    padding: float,
) -> str | None:
    """A plain cell with opaque colours as one literal: its background's path and its text
    object (typeset.TextWriter), what the canvas calls of _draw_cell_on_canvas would write
    (but for the fill alpha, which the caller sets to 1 when the cell has a background or
    text); None when it is not such a cell. The caller has checked that the table's cells may
    be written directly (RenderOptions.batched_cells, typeset.writes_directly)."""
    if cell.background and not is_opaque(cell.background):
        return None
    if not typeset.is_plain(cell.lines, cell.style):  # which also asks for an opaque text colour
        return None
    if not cell.background and not cell.text:
        return ""
    number = typeset.pdf_number
    code = ""
    if cell.background:
        rect = f"{number(left)} {number(ctx.pdf_y(top, height))} {number(width)} {number(height)}"
        code = f"{typeset.fill_operator(cell.background)} n {rect} re f*"
    if cell.text:
        writer.set_fill(cell.style.color)
        writer.add(cell.lines, cell.style, left + padding, top + padding, width - 2 * padding, ctx.page_height)
    has_text = writer.has_text
    text = writer.take_code()  # taken even when empty: the next cell starts a clean text object
    if has_text:
        code = f"{code} {text}" if code else text
    return code


# Ink may stray past a glyph's advance and the font's ascent (overhangs, accents): a cell's
# text counts as inside it when its padding leaves this much room beyond the metrics.
INK_MARGIN = 1.0


def _stays_in_its_lines(style: text_style.TextStyle, padding: float) -> bool:
    """The glyphs' height sticking out of their lines (Inter's ascent-to-descent is 1.21 em,
    more than a 1.2 line) stays inside the cell's padding, and the colour is opaque."""
    face = style.face
    glyph_height = (face.ascent - face.descent) * style.size / 1000
    sticking_out = max(glyph_height - style.leading, 0.0) / 2
    return padding >= sticking_out + INK_MARGIN and is_opaque(style.color)


def _draw_cells_batched(
    ctx: DrawContext, node: Any, layout: Grid, rows: list[int], row_tops: list[float], left: float
) -> bool:
    """An untagged table's cells: every background first, one path per colour, then the
    texts in one text object (a cell that needs shaping drawn by the general path in its
    place). What a reader sees is what cell-by-cell painting gives as long as no glyph leaves
    its cell and every colour is opaque; otherwise nothing is drawn and False is returned."""
    canvas = ctx.canvas
    if not typeset.writes_directly(canvas, ctx.options.direct_text):
        return False
    padding = node.styles.cellPadding
    lefts = column_lefts(layout.column_widths, left, node.styles.direction)
    number = typeset.pdf_number
    texts: list[tuple[CellLayout, float, float, float]] = []
    fills: dict[str, list[str]] = {}
    fitting_styles: dict[int, bool] = {}  # by id: a table's cells share a few style objects
    for r, top in zip(rows, row_tops, strict=True):
        height = layout.row_heights[r]
        bottom = number(ctx.pdf_y(top, height))
        for c, cell in enumerate(layout.cells[r]):
            left, width = cell_extent(layout, r, c, lefts)
            inner = width - 2 * padding
            if cell.background:
                if not is_opaque(cell.background):
                    return False
                rect = f"{number(left)} {bottom} {number(width)} {number(height)} re"
                fills.setdefault(cell.background, []).append(rect)
            if cell.text:
                fits = fitting_styles.get(id(cell.style))
                if fits is None:
                    fits = fitting_styles[id(cell.style)] = _stays_in_its_lines(cell.style, padding)
                # No glyph reaches a neighbour's background: its lines fit the box, its glyphs the rows.
                if not fits or any(line.width > inner + 0.01 for line in cell.lines):
                    return False
                texts.append((cell, left + padding, top + padding, inner))
    if fills or texts:
        canvas.setFillAlpha(1)  # what setFillColor does for an opaque colour (nothing, unless it was not)
    for color, rects in fills.items():
        canvas.addLiteral(f"{typeset.fill_operator(color)} n {' '.join(rects)} f*")
    writer = typeset.TextWriter(canvas)
    for cell, cell_left, cell_top, inner in texts:
        if typeset.is_plain(cell.lines, cell.style):
            writer.set_fill(cell.style.color)
            writer.add(cell.lines, cell.style, cell_left, cell_top, inner, ctx.page_height)
            continue
        if writer.has_text:
            canvas.addLiteral(writer.code())
        writer = typeset.TextWriter(canvas)
        typeset.draw_lines(
            canvas, cell.lines, cell.style, cell_left, cell_top, inner, ctx.page_height, direct=ctx.options.direct_text
        )
    if writer.has_text:
        canvas.addLiteral(writer.code())
    # The fill colours were written by hand: the canvas's record of its fill colour is stale
    # until the restoreState that ends the table (nothing in between reads it).
    return True


def _draw_grid(
    ctx: DrawContext,
    box: Box,
    layout: Grid,
    row_tops: list[float],
    bottom: float,
    styles: TableStyles,
    rows: list[int] | None = None,
) -> None:
    canvas = ctx.canvas
    canvas.setStrokeColor(to_rl(styles.borderColor))
    canvas.setLineWidth(styles.borderWidth)
    right = box.x + sum(layout.column_widths)
    path = canvas.beginPath()
    for y in [*row_tops, bottom]:
        path.moveTo(box.x, ctx.pdf_y(y))
        path.lineTo(right, ctx.pdf_y(y))
    # The column edges: each column's left, and the table's right (mirrored in an rtl table);
    # a group row spans the table, so the inner edges stop at it (extensions.md 11).
    edges = column_lefts(layout.column_widths, box.x, styles.direction)
    outer = (min(edges), right)
    tops = [*row_tops, bottom]
    spans = [layout.spans(r) for r in rows] if rows is not None else [False] * len(row_tops)
    for x in (*edges, right):
        inner = not any(abs(x - o) < 0.001 for o in outer)
        runs = [(0, len(row_tops))] if not inner or not any(spans) else _runs_without(spans)
        for first, last in runs:
            path.moveTo(x, ctx.pdf_y(tops[first] if tops else box.y))
            path.lineTo(x, ctx.pdf_y(tops[last]))
    canvas.drawPath(path, stroke=1, fill=0)


def _runs_without(spans: list[bool]) -> list[tuple[int, int]]:
    """[first, last) index ranges of consecutive rows that do not span."""
    runs, first = [], None
    for index, spanning in enumerate([*spans, True]):
        if not spanning and first is None:
            first = index
        elif spanning and first is not None:
            runs.append((first, index))
            first = None
    return runs


def resize_to_width(node: Any, width: float) -> dict:
    """update_element args that make the table `width` wide: its columns scale together."""
    if node.data.columnWidths:
        factor = width / (measure(node)[0] or 1)
        return {"data": {"columnWidths": [round(w * factor, 2) for w in node.data.columnWidths]}}
    return {"data": {"width": round(width, 2)}}


def bind_value(node: Any, value: Any) -> Any:
    """A 2-D array of strings replaces every cell (the first row is the header when
    the table has one); new rows inherit the styling of the design's last row. A typed table
    (data.columnDefs) also takes a list of row objects keyed by column key (extensions.md 11)."""
    data = node.data
    if (
        data.columnDefs is not None
        and isinstance(value, list)
        and (not value or any(isinstance(r, dict) for r in value))
    ):
        value = _rows_from_objects(data, value)
    elif not isinstance(value, list) or not value or not all(isinstance(r, list) for r in value):
        if data.columnDefs is not None:
            raise ValueError(
                "expected a list of row objects keyed by column key, e.g. "
                f'[{{"{data.columnDefs[0].key}": ...}}], or a 2-D array of strings'
            )
        raise ValueError("expected a non-empty 2-D array (list of rows) of strings")
    if len(value) > MAX_ROWS:
        raise ValueError(f"{len(value)} rows is more than the {MAX_ROWS} a table holds")
    design = data.cells or [[""] * (data.columns or 1)]
    cells: list[list[str | Cell]] = []
    for r, row in enumerate(value):
        if len(row) != data.columns:
            raise ValueError(f"row {r} has {len(row)} cells; the table has {data.columns} columns")
        if r < len(design):
            template = design[r]
        elif data.headerRow and len(design) == 1:
            template = [""] * (data.columns or 1)  # only a header to copy: body rows start plain
        else:
            template = design[-1]
        new_row: list[str | Cell] = []
        for c, item in enumerate(row):
            if not isinstance(item, (str, int, float)) or isinstance(item, bool):
                raise ValueError(f"cell [{r}][{c}] must be a string")
            text = item if isinstance(item, str) else str(item)
            styled = template[c]
            new_row.append(
                text if isinstance(styled, str) else styled.model_copy(update={"data": CellData(content=text)})
            )
        cells.append(new_row)
    check_table_size(cell_texts(cells), "the value's cells hold")  # a generation's value
    new_data = data.model_copy(update={"cells": cells, "rows": len(cells)})
    return node.model_copy(update={"data": new_data})


def _rows_from_objects(data: TableData, value: list) -> list[list[str]]:
    """Row objects as the 2-D array they stand for: the design's header row first (when the
    table has one), each object's values under their columns as text, a missing key an empty
    cell. A key that is no column, or a computed column's, is refused naming both; so is a
    value that is not one of the column's type."""
    defs = data.columnDefs or []
    keys = [column.key for column in defs]
    computed = [column.key for column in defs if column.value is not None]
    inputs = [key for key in keys if key not in computed]
    header = 1 if data.headerRow else 0
    if len(value) + header > MAX_ROWS:
        raise ValueError(
            f"{len(value)} rows and the header row are more than the {MAX_ROWS} rows a table holds: "
            "split the rows over several documents or tables"
        )
    grid: list[list[str]] = [cell_texts([data.cells[0]])[0]] if data.headerRow and data.cells else []
    for number, row in enumerate(value, start=1):
        if not isinstance(row, dict):
            raise ValueError(f"row {number} is a {type(row).__name__}: send every row as an object keyed by column key")
        texts = [""] * len(defs)
        for key, item in row.items():
            if key in computed:
                raise ValueError(
                    f"row {number}: '{key}' is a computed column (its value is data.columnDefs' expression): "
                    f"leave it out; the row's input columns are {', '.join(inputs)}"
                )
            if key not in keys:
                raise ValueError(
                    f"row {number}: '{key}' is not a column of this table; its input columns are {', '.join(inputs)}"
                )
            column = defs[keys.index(key)]
            texts[keys.index(key)] = _cell_text(item, column, number)
        grid.append(texts)
    if not grid:
        grid.append([""] * len(defs))  # a table has a row at least: no rows and no header show one empty row
    return grid


def _cell_text(item: Any, column: ColumnDef, number: int) -> str:
    """A row object's value as the cell's text, checked against its column's type."""
    if item is None:
        return ""
    if isinstance(item, bool) or not isinstance(item, (str, int, float)):
        raise ValueError(
            f"row {number}, column '{column.key}': expected a string or a number, got {type(item).__name__}"
        )
    text = item if isinstance(item, str) else repr(item) if isinstance(item, float) else str(item)
    if text and column.formats():
        try:
            read_value(text, column)
        except ValueError as exc:
            raise ValueError(f"row {number}, column '{column.key}': {exc}") from None
    return text


def has_no_body_text(node: Any) -> bool:
    """A table is empty for showIf when no cell below its header row holds text."""
    body = cell_texts(node.data.cells)[1 if node.data.headerRow else 0 :]
    return not any(text for row in body for text in row)


def resolve(node: Any, scope: Any) -> Any:
    """The table with its rows computed from the generation's values (extensions.md 11)."""
    if node.data.columnDefs is None:
        return node
    data = node.data.model_copy()
    data._shown = shown(data, scope)
    return node.model_copy(update={"data": data})


def _column_types(node: Any) -> dict[str, str] | None:
    return None if node.data.columnDefs is None else column_types(node.data)


def _column_values(node: Any) -> dict[str, tuple[Any, ...]]:
    data = node.data
    return dict((data._shown or design_rows(data)).columns)


def _count(value: Any, maximum: int) -> int | None:
    """A row/column count fit to resize with, or None to leave the value to validation."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= maximum:
        return value
    return None


def _resized_widths(widths: list[float], columns: int) -> list[float]:
    return (list(widths) + [widths[-1]] * columns)[:columns]


def merge_data(current: dict, patch: dict) -> dict:
    """Key-by-key merge that keeps the grid consistent.

    New cells re-derive rows/columns; new rows/columns without cells resize the grid
    (padding with empty cells); width and columnWidths replace each other; existing
    columnWidths follow a change in the number of columns.
    """
    merged = merge_keys(current, patch)
    if "cells" in patch:
        for key in ("rows", "columns"):
            if key not in patch:
                merged.pop(key, None)
    elif "rows" in patch or "columns" in patch:
        rows = _count(merged.get("rows"), MAX_ROWS) if "rows" in patch else len(current["cells"])
        columns = _count(merged.get("columns"), MAX_COLUMNS) if "columns" in patch else len(current["cells"][0])
        if rows is not None and columns is not None:
            cells = [list(r[:columns]) + [""] * (columns - len(r)) for r in current["cells"][:rows]]
            merged["cells"] = cells + [[""] * columns for _ in range(rows - len(cells))]
    if "width" in patch and "columnWidths" not in patch:
        merged.pop("columnWidths", None)
    if "columnWidths" in patch and "width" not in patch:
        merged.pop("width", None)
    cells = merged.get("cells")
    widths = merged.get("columnWidths")
    if "columnWidths" not in patch and widths and isinstance(cells, list) and cells and isinstance(cells[0], list):
        columns = merged.get("columns") if "columns" in patch else max(len(r) for r in cells if isinstance(r, list))
        if isinstance(columns, int) and columns >= 1:
            merged["columnWidths"] = _resized_widths(widths, columns)
    return merged


ELEMENT = ElementType(
    name="table",
    summary="A grid whose size comes from columnWidths/width and its content; position {x, y}",
    Position=TablePosition,
    Data=TableData,
    Styles=TableStyles,
    measure=measure,
    draw=draw,
    title="Table",
    variable=VariableSpec(
        kind="table",
        field="data.cells",
        accepts="a 2-D array of strings, header row first when the table has one; a table with data.columnDefs "
        "also takes a list of row objects keyed by column key",
        apply=bind_value,
        is_empty=has_no_body_text,
        comparable=False,
    ),
    position_hints={
        "w": "table width comes from the grid: use data.columnWidths or data.width",
        "h": "table height follows its rows' content: it cannot be set",
    },
    paginate=paginate,
    merge_data=merge_data,
    tags_itself=True,
    computing=Computing(uses=uses, resolve=resolve, columns=_column_types, column_values=_column_values),
    editor=EditorHints(
        defaults={
            "position": {},
            "data": {"cells": [["Item", "Qty", "Price"], ["", "", ""], ["", "", ""]], "columnWidths": [140, 60, 80]},
        },
        resize_width=resize_to_width,
        text_toolbar=("fontFamily", "fontSize", "fontWeight", "italic", "color", "align"),
    ),
)
