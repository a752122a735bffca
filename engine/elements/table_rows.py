"""A table's rows as shown (extensions.md 11): typed columns, computed cells, groups, footers.

A table with `data.columnDefs` shows, in order: its header row (each column's `header`, or
its key), its body rows (the design's `cells` below the header, or a generation's rows),
each value read by its column's `dataType` and formatted like a text element's, computed
columns filled from the row's other keys, `groupBy` groups (a group row spanning the table,
then the group's rows, then its `groupFooter` rows), and the `footer` rows. Expressions are
those of engine.design.expressions; engine.design.computed checks them against the design
and hands every table a Scope (the design's variables and their values) to resolve with.

A table without columnDefs shows its cells as they are: none of this runs for it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import AfterValidator, Field

from ..design import expressions
from ..text import style as text_style
from ..text.formatting import (
    VALUE_TYPES,
    DataType,
    check_format,
    check_locale,
    format_value,
    number_formatter,
    parse_date,
    parse_number,
)
from .base import ElementName, ExpressionText, ExpressionUse, StrictModel

RowKind = Literal["header", "body", "group", "groupFooter", "footer"]
MAX_FOOTER_ROWS = 20
# A footer cell: an expression (leading "=", or a call of one of the language's functions)
# or literal text.
FooterText = Annotated[str, Field(max_length=expressions.MAX_EXPRESSION_LENGTH)]
FooterRow = dict[ElementName, FooterText]


class ColumnDef(StrictModel):
    """One column of a typed table: its key, header, type and format, or the expression that
    computes it."""

    key: ElementName = Field(description="The column's name in row objects and expressions; unique in the table")
    header: str | None = Field(None, max_length=1000, description="The header cell's text; default the key")
    dataType: DataType = Field("string", description="How the column's values are read and shown")
    format: str | None = Field(None, description="LDML pattern for number/currency/date values, e.g. '#,##0.00'")
    locale: Annotated[str, AfterValidator(check_locale)] = "en"
    currency: str = Field("USD", pattern=r"^[A-Z]{3}$", description="ISO 4217 code for dataType currency")
    align: text_style.Align | None = Field(None, description="The column's cells' alignment; default the table's")
    value: ExpressionText | None = Field(
        None,
        description='An expression computed per row from the row\'s other keys, e.g. "qty * price"; '
        "such a column takes no input",
    )

    def formats(self) -> bool:
        return self.dataType != "string"

    def check(self) -> None:
        check_format(self.dataType, self.format, self.locale, self.currency)


def footer_expression(text: str) -> str | None:
    """The expression a footer cell holds, or None for literal text: a cell starting with `=`
    is one ("=sum(amount)"); so is a call of one of the language's functions ("sum(amount)")."""
    stripped = text.strip()
    if stripped.startswith("="):
        return stripped[1:].strip()
    head, paren, _ = stripped.partition("(")
    if paren and head.strip().lower() in expressions.FUNCTIONS and stripped.endswith(")"):
        return stripped
    return None


class ShownRow(NamedTuple):
    """A row as drawn: its kind, one text per column (a group row: one text spanning them), and
    the design row whose cell styles it takes (None: styled like the header)."""

    kind: RowKind
    texts: tuple[str, ...]
    template: int | None


def check_columns(data: Any, read_cells: bool = True) -> None:
    """The rules of columnDefs, footer and groupBy within one table (the model's validator);
    `read_cells`: also read each design cell by its column's type."""
    defs = data.columnDefs
    if defs is None:
        for key in ("footer", "groupBy", "groupHeader", "groupFooter"):
            if getattr(data, key) is not None:
                raise ValueError(f"data.{key} reads column keys: set data.columnDefs first, one per column")
        return
    if len(defs) != data.columns:
        raise ValueError(
            f"columnDefs has {len(defs)} columns but the table has {data.columns}: send one definition per column"
        )
    keys = [column.key for column in defs]
    for index, key in enumerate(keys):
        if key in keys[:index]:
            raise ValueError(f"columnDefs[{index}].key '{key}' is used twice: every column needs its own key")
    for index, column in enumerate(defs):
        try:
            column.check()
        except ValueError as exc:
            raise ValueError(f"columnDefs[{index}] ({column.key}): {exc}") from None
    for name, rows in (("footer", data.footer), ("groupFooter", data.groupFooter)):
        if rows is not None and len(rows) > MAX_FOOTER_ROWS:
            raise ValueError(f"data.{name} has {len(rows)} rows; a table has at most {MAX_FOOTER_ROWS}")
        for number, row in enumerate(rows or []):
            for key, text in row.items():
                if key not in keys:
                    raise ValueError(
                        f"data.{name}[{number}]: '{key}' is not a column key of this table "
                        f"(its keys: {', '.join(keys)})"
                    )
                formula = footer_expression(text)
                if formula is not None:
                    try:
                        expressions.parse(formula)
                    except expressions.ExpressionError as exc:
                        raise ValueError(f"data.{name}[{number}].{key}: {exc}") from None
    if data.groupBy is not None and data.groupBy not in keys:
        raise ValueError(
            f"data.groupBy '{data.groupBy}' is not a column key of this table (its keys: {', '.join(keys)})"
        )
    if data.groupBy is None and (data.groupHeader is not None or data.groupFooter is not None):
        raise ValueError(
            "data.groupHeader and data.groupFooter need data.groupBy: name the column that groups the rows"
        )
    header_rows = 1 if data.headerRow else 0
    for r, row in enumerate(cell_texts(data.cells)[header_rows:] if read_cells else [], start=1):
        for column, text in zip(defs, row, strict=False):
            if text and column.value is None and column.formats():
                try:
                    read_value(text, column)
                except ValueError as exc:
                    raise ValueError(f"cells: row {r}, column '{column.key}': {exc}") from None


def read_value(text: str, column: ColumnDef) -> None:
    """A cell's text read by its column's type (its format was checked on a sample when set):
    ValueError naming what was expected."""
    if VALUE_TYPES[column.dataType] == "number":
        parse_number(text)
    elif column.dataType == "date":
        parse_date(text)


def cell_texts(cells: Sequence[Sequence[Any]] | None) -> list[list[str]]:
    """The texts of a grid of cells (strings or {type, data, styles} cells), row by row."""
    return [[cell if isinstance(cell, str) else cell.data.content for cell in row] for row in cells or []]


# --- expressions: what the table's expressions are, and their types --------------------------------


def _computed_order(defs: Sequence[ColumnDef]) -> list[int]:
    """The computed columns' indexes in an order where each comes after those it reads; a
    cycle is refused naming it."""
    computed = {column.key: index for index, column in enumerate(defs) if column.value is not None}
    reads = {
        key: set(expressions.parse_names(defs[index].value or "")) & computed.keys() for key, index in computed.items()
    }
    order: list[int] = []
    done: set[str] = set()
    while len(done) < len(computed):
        ready = [key for key in computed if key not in done and reads[key] <= done]
        if not ready:
            stuck = sorted(key for key in computed if key not in done)
            raise ValueError(
                f"columnDefs: the computed columns {', '.join(stuck)} read each other in a circle: "
                "let one of them read input columns only"
            )
        for key in ready:
            done.add(key)
            order.append(computed[key])
    return order


def column_types(data: Any, names: expressions.Names | None = None) -> dict[str, str]:
    """Each column key -> its ValueType: by dataType, or for a computed string column by its
    expression's result (checked in dependency order against `names`)."""
    defs = data.columnDefs or []
    types = {column.key: VALUE_TYPES[column.dataType] for column in defs}
    for index in _computed_order(defs):
        column = defs[index]
        if column.dataType == "string":
            scope = dataclasses.replace(names or expressions.Names(), row=types)
            try:
                types[column.key] = expressions.check(column.value or "", scope).type
            except expressions.ExpressionError:
                types[column.key] = "any"  # refused where the design is checked; any keeps measuring
    return types


def uses(node: Any) -> list[ExpressionUse]:
    """Every expression of a table, for engine.design.computed to check: computed columns in
    the order they are computed, the group header, group footers and footers."""
    data = node.data
    if data.columnDefs is None:
        return []
    types = column_types(data)
    out: list[ExpressionUse] = []
    for index in _computed_order(data.columnDefs):
        column = data.columnDefs[index]
        others = {key: kind for key, kind in types.items() if key != column.key}
        out.append(ExpressionUse(f"data.columnDefs[{index}].value", column.value or "", others))
    if data.groupHeader is not None:
        out.append(ExpressionUse("data.groupHeader", data.groupHeader, types))
    for name, rows in (("groupFooter", data.groupFooter), ("footer", data.footer)):
        for number, row in enumerate(rows or []):
            for key, text in row.items():
                formula = footer_expression(text)
                if formula is not None:
                    out.append(ExpressionUse(f"data.{name}[{number}].{key}", formula, types, aggregates_only=True))
    return out


# --- the rows as shown ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shown:
    """A resolved table: its rows as drawn, and its columns' values per body row (what
    `items.amount` reads elsewhere)."""

    rows: tuple[ShownRow, ...]
    columns: Mapping[str, tuple[Any, ...]]


class _Formatter:
    """A column's values as shown: formatted like a text element's by dataType/format; a
    computed result of another type shown as text (engine.design.expressions.to_text).
    One per way of showing (`formatter_for`), kept across documents: a batch's prices and
    quantities repeat, so most values are shown from `_cache`."""

    KEPT = 4096  # values remembered per formatter; past it the cache starts again

    def __init__(self, column: ColumnDef):
        self.column = column
        self._cache: dict[Any, str] = {}

    def __call__(self, value: Any) -> str:
        if value is None or value == "":
            return ""
        # Keyed by type too: Decimal("1") and True are equal (and hash alike) but show differently.
        key = (value.__class__, value)
        shown = self._cache.get(key)
        if shown is None:
            if len(self._cache) >= self.KEPT:
                self._cache = {}
            shown = self._cache[key] = self._format(value)
        return shown

    def _format(self, value: Any) -> str:
        column = self.column
        if isinstance(value, bool) or not column.formats():
            return value if isinstance(value, str) else expressions.to_text(value, column.locale)
        kind = VALUE_TYPES[column.dataType]
        if kind == "number" and isinstance(value, Decimal):
            return number_formatter(column.dataType, column.format, column.locale, column.currency)(value)
        if kind == "date" and not isinstance(value, Decimal | str):
            return format_value(value, column.dataType, column.format, column.locale, column.currency)
        return value if isinstance(value, str) else expressions.to_text(value, column.locale)


@lru_cache(maxsize=256)
def formatter_for(data_type: str, format: str | None, locale: str, currency: str) -> _Formatter:  # noqa: A002
    """The formatter of every column shown this way (its cache shared by their documents)."""
    return _Formatter(ColumnDef(key="_", dataType=data_type, format=format, locale=locale, currency=currency))


class RowError(ValueError):
    """A value of a row made an expression fail: the message names the row and the column."""


def shown(data: Any, scope: Any | None) -> Shown:
    """The table's rows as drawn; `scope` (engine.elements.base.Scope) gives the design's
    variables and their values. Without one (a design measured on its own) names of the design
    read as null and a failing expression shows an empty cell; with one, a failure is a
    RowError naming the row and the column."""
    defs: list[ColumnDef] = list(data.columnDefs or [])
    header_rows = 1 if data.headerRow else 0
    lenient = scope is None
    names = expressions.Names() if lenient else scope.names
    types = column_types(data, names)
    env_base = expressions.Env() if lenient else scope.env
    formatters = [formatter_for(column.dataType, column.format, column.locale, column.currency) for column in defs]
    cells = cell_texts(data.cells)
    rows: list[ShownRow] = []
    if header_rows:
        rows.append(
            ShownRow("header", tuple(column.header if column.header is not None else column.key for column in defs), 0)
        )
    # Each body row's values, typed, then its computed columns.
    inputs = [i for i, column in enumerate(defs) if column.value is None]
    order = _computed_order(defs)
    checked: dict[int, expressions.Checked | None] = {}
    for index in order:
        row_types = {key: kind for key, kind in types.items() if key != defs[index].key}
        checked[index] = _checked(defs[index].value or "", dataclasses.replace(names, row=row_types), lenient)
    body = cells[header_rows:]
    row_env = dataclasses.replace(env_base)
    values: list[list[Any]] = []
    for number, texts in enumerate(body, start=1):
        row_values: list[Any] = [None] * len(defs)
        for i in inputs:
            text = texts[i] if i < len(texts) else ""
            try:
                row_values[i] = expressions.as_input(text, types[defs[i].key], defs[i].key)
            except expressions.EvaluationError as exc:
                if not lenient:
                    raise RowError(f"row {number}, column '{defs[i].key}': {exc}") from None
                row_values[i] = None
        if order:
            row = {column.key: row_values[i] for i, column in enumerate(defs)}
            row_env.row = row  # one Env for the rows: what it memoises stays
            for i in order:
                env = row_env
                result = _evaluated(checked[i], env, lenient, f"row {number}, column '{defs[i].key}'")
                row_values[i] = row[defs[i].key] = result
        values.append(row_values)
    columns = {column.key: tuple(row[i] for row in values) for i, column in enumerate(defs)}
    group_at = next((i for i, column in enumerate(defs) if column.key == data.groupBy), None)
    if group_at is None:
        rows.extend(
            ShownRow("body", tuple(f(v) for f, v in zip(formatters, row, strict=True)), header_rows + r)
            for r, row in enumerate(values)
        )
    else:
        header_check = (
            None
            if data.groupHeader is None
            else _checked(data.groupHeader, dataclasses.replace(names, row=types), lenient)
        )
        start = 0
        while start < len(values):
            end = start + 1
            while end < len(values) and values[end][group_at] == values[start][group_at]:
                end += 1
            group_columns = {key: column[start:end] for key, column in columns.items()}
            if header_check is None:
                title = formatters[group_at](values[start][group_at])
            else:
                first = {column.key: values[start][i] for i, column in enumerate(defs)}
                env = dataclasses.replace(env_base, row=first, rows=group_columns)
                title = expressions.to_text(
                    _evaluated(header_check, env, lenient, f"the group of row {start + 1}"), defs[group_at].locale
                )
            rows.append(ShownRow("group", (title,), None))
            rows.extend(
                ShownRow("body", tuple(f(v) for f, v in zip(formatters, values[r], strict=True)), header_rows + r)
                for r in range(start, end)
            )
            rows.extend(
                _footer_rows(
                    data.groupFooter or [],
                    "groupFooter",
                    defs,
                    formatters,
                    types,
                    names,
                    dataclasses.replace(env_base, rows=group_columns),
                    lenient,
                )
            )
            start = end
    rows.extend(
        _footer_rows(
            data.footer or [],
            "footer",
            defs,
            formatters,
            types,
            names,
            dataclasses.replace(env_base, rows=columns),
            lenient,
        )
    )
    return Shown(tuple(rows), columns)


def _checked(text: str, names: expressions.Names, lenient: bool) -> expressions.Checked | None:
    try:
        return expressions.check(text, names)
    except expressions.ExpressionError:
        if lenient:
            return None
        raise


def _evaluated(checked: expressions.Checked | None, env: expressions.Env, lenient: bool, where: str) -> Any:
    if checked is None:
        return None
    try:
        return checked.evaluate(env)
    except expressions.EvaluationError as exc:
        if lenient:
            return None
        raise RowError(f"{where}: {exc}") from None


def _footer_rows(
    rows: Sequence[Mapping[str, str]],
    kind: RowKind,
    defs: Sequence[ColumnDef],
    formatters: Sequence[_Formatter],
    types: Mapping[str, str],
    names: expressions.Names,
    env: expressions.Env,
    lenient: bool,
) -> list[ShownRow]:
    out = []
    footer_names = dataclasses.replace(names, row=types, aggregates_only=True)
    for number, row in enumerate(rows):
        texts = []
        for index, column in enumerate(defs):
            text = row.get(column.key, "")
            formula = footer_expression(text)
            if formula is None:
                texts.append(text)
                continue
            checked = _checked(formula, footer_names, lenient)
            where = f"data.{kind}[{number}], column '{column.key}'"
            texts.append(formatters[index](_evaluated(checked, env, lenient, where)))
        out.append(ShownRow(kind, tuple(texts), None))
    return out


@lru_cache(maxsize=256)
def _design_rows(data_json: str, model: type) -> Shown:
    """A table measured on its own (no scope): its rows, kept by its data's JSON."""
    return shown(model.model_validate_json(data_json), None)


def design_rows(data: Any) -> Shown:
    return _design_rows(data.model_dump_json(), type(data))
