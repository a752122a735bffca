"""Row objects edited as one grid, with the key naming each row and the series plotting the
others (engine.elements.base KeyedRows: a chart's design-time rows, its x and its series).

The grid's columns are the naming key, then the series' keys, in the series' order; its first
line holds the keys themselves. Typing a new key there renames it in the rows, the naming key
and the series at once; a cell of a series is a number (empty: null), a naming cell keeps the
type it had (a category typed as text, a scatter's x as a number). The naming key is chosen from
the columns (choosing a series' key swaps the two), each series' key likewise (choosing another
series' key swaps the two), and each series' other fields are edited by their types. Every
change is one update_element action, so one undo step. A change of the keys sends the rows as
they are to be after it, so what a type's merge does with rows left out of a patch (a chart
renames them with its keys) never decides.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import panel as pn
from pydantic.fields import FieldInfo

from engine.elements.base import KeyedRows

from .pickers import RowsGrid

WIDE = {"sizing_mode": "stretch_width"}
# (item field name, its FieldInfo, its value, send the field's new value) -> a widget with show_value.
ItemWidget = Callable[[str, FieldInfo, Any, Callable[[Any], None]], Any]


def _get(node: Any, path: str) -> Any:
    part, _, name = path.partition(".")
    return getattr(getattr(node, part), name)


def shown_cell(value: Any) -> str:
    """A stored value as the grid shows it: numbers without a needless ".0", null as empty."""
    if value is None:
        return ""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return value if isinstance(value, str) else repr(value)


def _as_number(text: str) -> float | str | None:
    """A series' cell: a number, null when empty; other text is sent as typed, for the engine to
    read ("1,234.5") or refuse naming the row and key."""
    text = text.strip()
    if not text:
        return None
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def _as_label(text: str, before: Any) -> Any:
    """A naming cell keeps its type: a number stays a number when the text reads as one."""
    if isinstance(before, (int, float)) and not isinstance(before, bool):
        number = _as_number(text)
        return number if isinstance(number, float) else text
    return text


class KeyedRowsState:
    """The declared fields of the saved node, as plain values."""

    def __init__(self, keyed: KeyedRows, node: Any) -> None:
        self.keyed = keyed
        self.rows: list[dict] = [dict(row) for row in _get(node, keyed.rows)]
        self.label: str = _get(node, keyed.label)
        self.series: list[dict] = [item.model_dump(exclude_none=True) for item in _get(node, keyed.series)]

    @property
    def columns(self) -> list[str]:
        return [self.label, *(item["key"] for item in self.series)]

    def cells(self) -> list[list[str]]:
        columns = self.columns
        return [columns, *([shown_cell(row.get(key)) for key in columns] for row in self.rows)]

    def changes(self, rows: Any = None, label: Any = None, series: Any = None) -> dict:
        """update_element args setting the given fields ({part: {name: value}})."""
        args: dict[str, dict] = {}
        for path, value in ((self.keyed.rows, rows), (self.keyed.label, label), (self.keyed.series, series)):
            if value is not None:
                part, _, name = path.partition(".")
                args.setdefault(part, {})[name] = value
        return args

    def renamed(self, old: str, new: str) -> dict:
        rows = [{(new if key == old else key): value for key, value in row.items()} for row in self.rows]
        series = [{**item, "key": new} if item["key"] == old else item for item in self.series]
        return self.changes(rows=rows, label=new if self.label == old else None, series=series)

    def cell_edited(self, row: int, column: int, text: str) -> dict | None:
        """The args for one cell typed in the grid (row 0: a key), or None when it is what is
        saved, is not a cell, or names a key that cannot be (empty, or another column's)."""
        columns = self.columns
        if not (0 <= row <= len(self.rows) and 0 <= column < len(columns)):
            return None
        key = columns[column]
        if row == 0:
            new = text.strip()
            if new == key or not new or new in columns:
                return None
            return self.renamed(key, new)
        if text == shown_cell(self.rows[row - 1].get(key)):
            return None
        rows = [dict(saved) for saved in self.rows]
        before = self.rows[row - 1].get(key)
        rows[row - 1][key] = _as_label(text, before) if column == 0 else _as_number(text)
        return self.changes(rows=rows)

    def label_chosen(self, key: str) -> dict | None:
        """x becomes `key`; the series that plotted it plots the old x (the two swap)."""
        if key == self.label or key not in self.columns:
            return None
        series = [{**item, "key": self.label} if item["key"] == key else item for item in self.series]
        # The rows are sent as they are: the data stays under its keys, only the roles swap.
        return self.changes(rows=self.rows, label=key, series=series)

    def series_key_chosen(self, index: int, key: str) -> dict | None:
        """Series `index` plots `key`; the series that plotted it plots this one's old key."""
        old = self.series[index]["key"]
        if key == old or key not in self.columns[1:]:
            return None
        series = [
            {**item, "key": key} if i == index else {**item, "key": old} if item["key"] == key else item
            for i, item in enumerate(self.series)
        ]
        return self.changes(rows=self.rows, series=series)

    def series_added(self) -> dict:
        taken, number = set(self.columns), len(self.series) + 1
        while f"series{number}" in taken:
            number += 1
        return self.changes(rows=self.rows, series=[*self.series, {"key": f"series{number}"}])

    def series_removed(self, index: int) -> dict:
        gone = self.series[index]["key"]
        rows = [{key: value for key, value in row.items() if key != gone} for row in self.rows]
        return self.changes(rows=rows, series=[item for i, item in enumerate(self.series) if i != index])

    def row_added(self) -> dict:
        """A row at the end, named after the last one: the next number, or "Item n"."""
        last = self.rows[-1].get(self.label) if self.rows else None
        if isinstance(last, (int, float)) and not isinstance(last, bool):
            name: Any = last + 1
        else:
            name = f"Item {len(self.rows) + 1}"
        return self.changes(rows=[*self.rows, {self.label: name}])

    def row_removed(self) -> dict:
        return self.changes(rows=self.rows[:-1])


def keyed_rows_editor(
    keyed: KeyedRows,
    item_model: type,
    holder: Callable[[], Any],
    update: Callable[..., None],
    item_widget: ItemWidget,
) -> pn.Column:
    """The naming key's select, a block per series (its key, its other fields, Remove), "+ Add
    series", and the rows' grid with "+ Add row" and "Remove last row". `update(**args)` sends
    one update_element; `item_widget` builds a series field's widget by its type (the form's).
    Rebuilt when the columns or the number of rows change; else shows new values in place."""
    column = pn.Column(css_classes=["dbk-keyed-rows"], margin=0, **WIDE)
    built: dict[str, Any] = {"shape": None, "show": []}

    def state() -> KeyedRowsState:
        return KeyedRowsState(keyed, holder())

    def send(args: dict | None) -> None:
        if args:
            update(**args)

    def shape(now: KeyedRowsState) -> tuple:
        return (tuple(now.columns), len(now.rows))

    def build() -> None:
        now = state()
        built["show"] = []
        label = pn.widgets.Select(
            label="Categories (x): the rows' key",
            options=now.columns,
            value=now.label,
            css_classes=["dbk-rows-label"],
            **WIDE,
        )
        label.param.watch(lambda e: send(state().label_chosen(e.new)), "value")
        built["show"].append(lambda now: setattr(label, "value", now.label))
        blocks: list[Any] = [label, pn.pane.Markdown("**Series**", margin=(0, 5))]
        for index in range(len(now.series)):
            blocks.append(_series_block(index, now, item_model, state, send, item_widget, built))
        add_series = pn.widgets.Button(label="+ Add series", css_classes=["dbk-add-series"], margin=(5, 10))
        add_series.on_click(lambda e: send(state().series_added()))
        blocks.append(add_series)
        grid = RowsGrid(cells=now.cells(), css_classes=["dbk-rows-grid"], **WIDE)

        def cell_edited(row: int, column: int, text: str) -> None:
            before = state()
            args = before.cell_edited(row, column, text)
            if args:
                send(args)  # saved, the form shows the new rows (show_value) before this returns
            if not args or state().cells() == before.cells():
                # Not sent, or refused (the editor says why): the grid shows what is saved again.
                grid.param.trigger("cells")

        grid.on_edit = cell_edited

        def show_grid(now: KeyedRowsState) -> None:
            grid.cells = now.cells()

        built["show"].append(show_grid)
        add_row = pn.widgets.Button(label="+ Add row", css_classes=["dbk-add-row"], margin=(5, 10))
        add_row.on_click(lambda e: send(state().row_added()))
        remove_row = pn.widgets.Button(
            label="Remove last row", css_classes=["dbk-remove-row"], margin=(5, 10), disabled=not now.rows
        )
        remove_row.on_click(lambda e: send(state().row_removed()))
        blocks += [
            pn.pane.Markdown("**Sample rows** (the preview; a generation's value replaces them)", margin=(0, 5)),
            pn.pane.HTML("<small>The first line holds the keys: type over one to rename it.</small>", margin=(0, 10)),
            grid,
            pn.Row(add_row, remove_row, margin=0),
        ]
        column.objects = blocks

    def show_value(_stored: Any = None) -> None:
        now = state()
        if shape(now) != built["shape"]:
            built["shape"] = shape(now)
            build()
            return
        for shown in built["show"]:
            shown(now)

    column.show_value = show_value
    show_value()
    return column


def _series_block(
    index: int,
    now: KeyedRowsState,
    item_model: type,
    state: Callable[[], KeyedRowsState],
    send: Callable[[dict | None], None],
    item_widget: ItemWidget,
    built: dict,
) -> pn.Column:
    item = now.series[index]
    key = pn.widgets.Select(
        label="Key", options=now.columns[1:], value=item["key"], css_classes=["dbk-series-key"], width=150
    )
    key.param.watch(lambda e: send(state().series_key_chosen(index, e.new)), "value")
    remove = pn.widgets.Button(
        label="Remove series", css_classes=["dbk-remove-series"], margin=(22, 10, 5, 10), disabled=len(now.series) == 1
    )
    remove.on_click(lambda e: send(state().series_removed(index)))
    fields: list[Any] = []
    shows: list[Callable[[dict], None]] = []
    for name, field in item_model.model_fields.items():
        if name == "key":
            continue

        def sent(value: Any, name: str = name) -> None:
            current = state()
            if index >= len(current.series) or current.series[index].get(name) == value:
                return  # an echo of what is saved
            series = [dict(s) for s in current.series]
            if value is None or value == "":
                series[index].pop(name, None)
            else:
                series[index][name] = value
            send(current.changes(series=series))

        widget = item_widget(name, field, getattr(item_model.model_validate(item), name), sent)
        if widget is None:
            continue
        widget.css_classes = [*widget.css_classes, f"dbk-series-{name.lower()}"]
        fields.append(widget)
        shows.append(lambda saved, widget=widget, name=name: widget.show_value(saved.get(name)))

    def show(now: KeyedRowsState) -> None:
        saved = item_model.model_validate(now.series[index])
        key.value = now.series[index]["key"]
        for shown in shows:
            shown({name: getattr(saved, name) for name in item_model.model_fields})

    built["show"].append(show)
    return pn.Column(
        pn.pane.HTML(f"<b>Series {index + 1}</b>", margin=(4, 10, 0, 10)),
        pn.Row(key, remove, margin=0),
        *fields,
        css_classes=["dbk-series", f"dbk-series-{index}"],
        styles={"border-top": "1px solid #ddd"},
        margin=(4, 0),
        **WIDE,
    )
