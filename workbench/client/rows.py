"""Rows of variable values from what analysts hold: pandas or polars DataFrames, lists of dicts.

A row is the object `submit_batch` and `generate_pdf` take: variable name -> JSON value.
This module only changes representation; the service checks every value. Scalars become
strings (the engine reads numbers and dates from strings for typed text), dates become
ISO dates, and a missing value (None, NaN, NaT, NA) leaves its variable out of the row,
so the variable renders its design-time content (spec 4.11). A nested DataFrame or a
list of records becomes a table's 2-D array of strings, header row first when the bound
table has one (the manual, "Variables and values").
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import engine

_MISSING = object()


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


def _sequence(value: Any) -> list | None:
    if isinstance(value, (list, tuple)):
        return list(value)
    if _library(value) in ("numpy", "polars", "pandas") and hasattr(value, "tolist") and hasattr(value, "__len__"):
        return value.tolist()  # an array or Series in a cell
    return None


def _grid(rows: list[Mapping], columns: list[Any], header: bool) -> list[list[str]]:
    body = [[_cell(row.get(column)) for column in columns] for row in rows]
    return [[str(c) for c in columns], *body] if header else body


def is_tabular(value: Any) -> bool:
    """A value that becomes a table: a DataFrame or a non-empty list of records."""
    items = None if is_frame(value) else _sequence(value)
    return is_frame(value) or (bool(items) and all(isinstance(i, Mapping) for i in items))


def to_value(value: Any, header: bool = True) -> Any:
    """One cell of the data as a variable value; `_MISSING` when it has none."""
    if is_frame(value):
        return _grid(*records(value), header)
    items = _sequence(value)
    if items is not None:
        if items and all(isinstance(i, Mapping) for i in items):
            return _grid(*records(items), header)
        if items and all(_sequence(i) is not None for i in items):
            return [[_cell(c) for c in _sequence(row) or []] for row in items]
        return [_cell(i) for i in items]  # a text list
    if _missing(value):
        return _MISSING
    if isinstance(value, Mapping):
        return dict(value)  # not a shape any variable takes: the service says why
    return _scalar(value)


def header_rows(tree: engine.DesignTree) -> Callable[[str], bool]:
    """Whether each variable's table value starts with a header row: its table has one (a
    variable of another type, or an unknown name, takes a header row if given a table)."""
    nodes = {name: tree.nodes[v.nodeId] for name, v in tree.variables.items() if v.nodeId is not None}
    headers = {name: bool(getattr(node.data, "headerRow", True)) for name, node in nodes.items()}
    return lambda name: headers.get(name, True)


def values(data: Mapping[str, Any], header: Callable[[str], bool]) -> dict[str, Any]:
    """One set of values (`generate`): converted, missing ones left out."""
    converted = {name: to_value(item, header(name)) for name, item in data.items()}
    return {name: item for name, item in converted.items() if item is not _MISSING}


def column_map(available: list[Any], variables: Iterable[str], columns: Mapping[str, Any] | None) -> dict[str, Any]:
    """Variable -> column: same-named columns, then the explicit `columns` mapping on top."""
    chosen = {name: name for name in variables if name in available}
    for variable, column in (columns or {}).items():
        if column not in available:
            shown = ", ".join(map(str, available)) or "none"
            raise ValueError(f"column {column!r} (for variable {variable!r}) is not in the data; its columns: {shown}")
        chosen[variable] = column
    return chosen


def rows_for(
    data: Any, variables: list[str], header: Callable[[str], bool], columns: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Every row of the data as values for the design's variables."""
    rows, available = records(data)
    chosen = column_map(available, variables, columns)
    if rows and variables and not chosen:
        raise ValueError(
            f"no column of the data is a variable of this design (its variables: {', '.join(variables)}); "
            "name the columns after them or map them with columns={'variable': 'column'}"
        )
    out = []
    for row in rows:
        converted = {variable: to_value(row.get(column), header(variable)) for variable, column in chosen.items()}
        out.append({name: item for name, item in converted.items() if item is not _MISSING})
    return out
