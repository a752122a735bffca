"""Rows of variable values from what analysts hold: pandas or polars DataFrames, lists of dicts.

A row is the object `submit_batch` and `generate_pdf` take: variable name -> JSON value.
This module only changes representation; the service checks every value. Scalars become
strings (the engine reads numbers and dates from strings for typed text), dates become
ISO dates, and a missing value (None, NaN, NaT, NA) leaves its variable out of the row,
so the variable renders its design-time content (spec 4.11). A nested DataFrame or a
list of records becomes a table's value: for a typed table (`data.columnDefs`) a list of
row objects keyed by column key (extensions.md 11), numbers kept as JSON numbers and a
missing value leaving its key out; for a plain table a 2-D array of strings, header row
first when the table has one (the manual, "Variables and values").

A column of the data that fills nothing is refused with the service's own message (REST
refuses such a name in every row): a misspelt column must not quietly give sample PDFs.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from api.errors import ApiError

if TYPE_CHECKING:
    import engine

_MISSING = object()


@dataclass(frozen=True)
class TableShape:
    """How a table value is sent: a grid of strings (its column names as the first row when
    `header`), or for a typed table row objects, the data's columns named by `keys`
    (column key -> the data's column, None: left out; other columns go under their own name)."""

    header: bool = True
    typed: bool = False
    keys: Mapping[str, Any] = field(default_factory=dict)


def _library(value: Any) -> str:
    return type(value).__module__.split(".", 1)[0]


def is_frame(value: Any) -> bool:
    """A pandas or polars DataFrame (polars LazyFrames too), without importing either."""
    return _library(value) in ("pandas", "polars") and hasattr(value, "columns") and not hasattr(value, "dtype")


def records(data: Any) -> tuple[list[Mapping], list[Any]]:
    """The rows of a DataFrame or list of dicts as mappings, and the column names in order."""
    if is_frame(data):
        if _library(data) == "polars":
            frame = data.collect() if hasattr(data, "collect") else data
            return frame.to_dicts(), list(frame.columns)
        return data.to_dict(orient="records"), list(data.columns)
    if isinstance(data, Mapping) or isinstance(data, (str, bytes)) or not isinstance(data, Iterable):
        raise TypeError(
            f"expected a pandas or polars DataFrame or a list of dicts, got {type(data).__name__} "
            "(for one set of values use generate())"
        )
    rows = list(data)
    columns: dict[Any, None] = {}
    for index, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise TypeError(f"row {index} is a {type(row).__name__}; every row must be a dict of column to value")
        columns.update(dict.fromkeys(row))
    return rows, list(columns)


def _missing(value: Any) -> bool:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return True
    return type(value).__name__ in ("NAType", "NaTType")


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dt.datetime):  # pandas' Timestamp is one too
        if value.tzinfo is None and value.time() == dt.time():
            return value.date().isoformat()  # a date column: a date, not midnight
        return value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if hasattr(value, "item") and _library(value) == "numpy":
        value = value.item()  # numpy scalars print as their Python value
    return str(value)


def _cell(value: Any) -> str:
    return "" if _missing(value) else _scalar(value)


def _json_cell(value: Any) -> Any:
    """A typed table's cell: numbers stay JSON numbers (the column's type reads them), a
    Decimal its exact text, a date its ISO form; `_MISSING` for no value."""
    if _missing(value):
        return _MISSING
    if hasattr(value, "item") and _library(value) == "numpy":
        value = value.item()
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return _scalar(value)


def _sequence(value: Any) -> list | None:
    if isinstance(value, (list, tuple)):
        return list(value)
    if _library(value) in ("numpy", "polars", "pandas") and hasattr(value, "tolist") and hasattr(value, "__len__"):
        return value.tolist()  # an array or Series in a cell
    return None


def _grid(rows: list[Mapping], columns: list[Any], header: bool) -> list[list[str]]:
    body = [[_cell(row.get(column)) for column in columns] for row in rows]
    return [[str(c) for c in columns], *body] if header else body


def _pairs(available: list[Any], keys: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    """(column key, data column) for a typed table: the mapped ones, then every other column
    under its own name, so that one which is no column of the table is refused by the
    engine naming both."""
    for key, column in keys.items():
        if column is not None and column not in available:
            shown = ", ".join(map(str, available)) or "none"
            raise ValueError(
                f"column {column!r} (for the table's key {key!r}) is not in the data; its columns: {shown}"
            )
    mapped = [(key, column) for key, column in keys.items() if column is not None]
    sources = {column for _, column in mapped}
    return mapped + [(c, c) for c in available if c not in sources and c not in keys]


def _objects(rows: list[Mapping], available: list[Any], keys: Mapping[str, Any]) -> list[dict[str, Any]]:
    pairs = _pairs(available, keys) if rows else []
    out = []
    for row in rows:
        cells = {str(key): _json_cell(row.get(column)) for key, column in pairs}
        out.append({key: cell for key, cell in cells.items() if cell is not _MISSING})
    return out


def _table(data: Any, shape: TableShape) -> Any:
    rows, available = records(data)
    return _objects(rows, available, shape.keys) if shape.typed else _grid(rows, available, shape.header)


def is_tabular(value: Any) -> bool:
    """A value that becomes a table: a DataFrame or a non-empty list of records."""
    items = None if is_frame(value) else _sequence(value)
    return is_frame(value) or (bool(items) and all(isinstance(i, Mapping) for i in items))


def to_value(value: Any, shape: TableShape = TableShape()) -> Any:
    """One cell of the data as a variable value; `_MISSING` when it has none."""
    if is_frame(value):
        return _table(value, shape)
    items = _sequence(value)
    if items is not None:
        if items and all(isinstance(i, Mapping) for i in items):
            return _table(items, shape)
        if items and all(_sequence(i) is not None for i in items):
            return [[_cell(c) for c in _sequence(row) or []] for row in items]
        return [_cell(i) for i in items]  # a text list
    if _missing(value):
        return _MISSING
    if isinstance(value, Mapping):
        return dict(value)  # not a shape any variable takes: the service says why
    return _scalar(value)


def _table_data(tree: engine.DesignTree, name: str) -> Any:
    """The data of the element a table-kind variable fills (a table, a chart), else None."""
    from engine.elements import ELEMENT_TYPES

    variable = tree.variables.get(name)
    node = tree.nodes[variable.nodeId] if variable is not None and variable.nodeId is not None else None
    spec = ELEMENT_TYPES[node.type].variable if node is not None else None
    return node.data if spec is not None and spec.kind == "table" else None


def table_shapes(
    tree: engine.DesignTree, keys: Mapping[str, Mapping[str, Any]] | None = None
) -> Callable[[str], TableShape]:
    """Each variable's table shape: typed for a table with `data.columnDefs` (with its `keys`
    mapping, if any), else a grid with a header row when its table has one (a variable of
    another type, or an unknown name, takes a header row if given a table)."""
    shapes = {}
    for name in tree.variables:
        data = _table_data(tree, name)
        if data is not None:
            # A grid table takes rows of strings; a typed table (columnDefs) and a chart, whose
            # data has no header row, take row objects (extensions.md 11, 15).
            grid = "headerRow" in type(data).model_fields
            typed = not grid or data.columnDefs is not None
            header = bool(data.headerRow) if grid else False
            shapes[name] = TableShape(header, typed, (keys or {}).get(name, {}) if typed else {})
    return lambda name: shapes.get(name, TableShape())


def values(data: Mapping[str, Any], shape: Callable[[str], TableShape]) -> dict[str, Any]:
    """One set of values (`generate`): converted, missing ones left out."""
    converted = {name: to_value(item, shape(name)) for name, item in data.items()}
    return {name: item for name, item in converted.items() if item is not _MISSING}


@dataclass(frozen=True)
class ColumnChoice:
    """What `columns=` chose: variable -> the data's column, the typed tables' key mappings,
    and the columns left out on purpose."""

    sources: dict[str, Any]
    keys: dict[str, Mapping[str, Any]]
    dropped: set[Any]


def column_map(available: list[Any], variables: Iterable[str], columns: Mapping[str, Any] | None) -> ColumnChoice:
    """Variable -> column: same-named columns, then the explicit `columns` mapping on top.

    A mapping's value is a column of the data, None (the variable, and a column of that
    name, are left out), or for a typed table its keys' columns: `{key: column}` (the
    table's values in the column named after the variable) or `(column, {key: column})`."""
    variables = list(variables)
    sources = {name: name for name in variables if name in available}
    keys: dict[str, Mapping[str, Any]] = {}
    dropped: set[Any] = set()
    for variable, column in (columns or {}).items():
        if isinstance(column, Mapping):
            column = (variable, column)
        if isinstance(column, tuple):
            if len(column) != 2 or not isinstance(column[1], Mapping):
                raise ValueError(
                    f"columns[{variable!r}] must be a column, None, {{key: column}} or (column, {{key: column}})"
                )
            column, keys[variable] = column
        if column is None:
            sources.pop(variable, None)
            dropped.add(variable)
            continue
        if column not in available:
            shown = ", ".join(map(str, available)) or "none"
            raise ValueError(f"column {column!r} (for variable {variable!r}) is not in the data; its columns: {shown}")
        sources[variable] = column
    return ColumnChoice(sources, keys, dropped)


def refuse_unknown_columns(tree: engine.DesignTree, available: list[Any], choice: ColumnChoice) -> None:
    """A column that fills no variable is refused as REST refuses its name in a row: with the
    engine's message, word for word, before anything is submitted."""
    import engine
    from engine.errors import ValueBindingError

    used = set(choice.sources.values()) | choice.dropped | set(choice.sources)
    for column in available:
        if column in used or column in tree.variables:
            continue
        try:
            engine.check_values(tree, {str(column): ""})
        except ValueBindingError as exc:
            hint = (
                f"; to leave the column out pass columns={{{str(column)!r}: None}}, "
                f"to fill a variable from it columns={{'variable': {str(column)!r}}}"
            )
            raise ApiError("VALIDATION_ERROR", exc.message + hint) from None


def rows_for(data: Any, tree: engine.DesignTree, columns: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every row of the data as values for the design's variables (`column_map`)."""
    rows, available = records(data)
    variables = list(tree.variables)
    choice = column_map(available, variables, columns)
    shape = table_shapes(tree, choice.keys)
    for variable in choice.keys:
        if not shape(variable).typed:
            raise ValueError(
                f"columns[{variable!r}] maps table column keys, but {variable!r} is no table with data.columnDefs: "
                "map it to one column, or rename the nested data's columns"
            )
    refuse_unknown_columns(tree, available, choice)
    out = []
    for row in rows:
        converted = {
            variable: to_value(row.get(column), shape(variable)) for variable, column in choice.sources.items()
        }
        out.append({name: item for name, item in converted.items() if item is not _MISSING})
    return out
