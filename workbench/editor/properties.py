"""The properties panel, generated from the selected element's pydantic models.

Each field of the type's Position, Data and Styles models becomes a widget chosen by
its annotation (Literal → select, bool → checkbox, number → number input, colour →
colour picker…), so a new element type or field appears here without editor code.
A change sends one update_element action.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any, Literal

import panel as pn
from pydantic.fields import FieldInfo

from engine.elements import ELEMENT_TYPES

from .pickers import CellGrid, FontPicker, icon_picker

Send = Callable[[list[dict]], None]
HEX = "#000000"
SKIP = {("image", "data", "crop"), ("image", "data", "src"), ("table", "data", "cells")}


def _base(annotation: Any) -> tuple[Any, bool]:
    """(the annotation without Optional/Annotated, whether None is allowed)."""
    optional = False
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            optional = optional or len(args) < len(typing.get_args(annotation))
            if len(args) != 1:
                return args, optional
            annotation = args[0]
        else:
            return annotation, optional


def _label(name: str) -> str:
    words = "".join(" " + c.lower() if c.isupper() else c for c in name)
    return words[:1].upper() + words[1:]


def field_widget(element_type: str, part: str, name: str, field: FieldInfo, value: Any, send_value: Callable) -> Any:
    """A widget for one model field, or None when the field has its own editor elsewhere."""
    if (element_type, part, name) in SKIP:
        return None
    annotation, optional = _base(field.annotation)
    label = _label(name)
    if name == "fontFamily":
        picker = FontPicker.catalog(value or "Inter")
        picker.param.watch(lambda e: send_value(e.new), "value")
        return pn.Column(pn.pane.Markdown(f"**{label}**", margin=(0, 5)), picker, sizing_mode="stretch_width")
    if name == "iconId":
        return icon_picker(value, send_value)
    if typing.get_origin(annotation) is Literal:
        widget = pn.widgets.Select(name=label, options=list(typing.get_args(annotation)), value=value)
    elif annotation is bool:
        widget = pn.widgets.Checkbox(name=label, value=bool(value))
    elif annotation is int:
        widget = pn.widgets.IntInput(name=label, value=value)
    elif annotation is float:
        widget = pn.widgets.FloatInput(name=label, value=value, step=1 if part == "position" else 0.5)
    elif annotation is str and ("color" in name.lower() or name in ("fill", "stroke")):
        if optional:
            widget = pn.widgets.TextInput(name=f"{label} (hex, empty for none)", value=value or "")
        else:
            widget = pn.widgets.ColorPicker(name=label, value=value or HEX)
    elif name == "content" or isinstance(annotation, list):  # text content: a string or list items
        text = "\n".join(value) if isinstance(value, list) else (value or "")
        widget = pn.widgets.TextAreaInput(name=label, value=text, auto_grow=True, max_rows=8)
        return _watch(widget, lambda v: send_value(v.split("\n") if isinstance(value, list) else v))
    elif typing.get_origin(annotation) is list:  # columnWidths, dash: numbers
        shown = ", ".join(f"{v:g}" for v in value) if value else ""
        widget = pn.widgets.TextInput(name=f"{label} (comma-separated)", value=shown)
        return _watch(
            widget, lambda v: send_value([float(x) for x in v.replace(";", ",").split(",") if x.strip()] or None)
        )
    elif annotation is str:
        widget = pn.widgets.TextInput(name=label, value=value or "")
    else:
        return None
    widget.sizing_mode = "stretch_width"
    return _watch(widget, lambda v: send_value(None if v == "" and optional else v))


def _watch(widget: Any, handler: Callable[[Any], None]) -> Any:
    widget.param.watch(lambda e: handler(e.new), "value")
    return widget


def element_form(node: Any, send: Send) -> pn.Column:
    """Name, flags, and every Position, Data and Styles field of the node's type.

    The column's `position_widgets` lets a drag update the position fields in place
    instead of rebuilding the form (rebuilding costs the browser more than the preview)."""
    spec = ELEMENT_TYPES[node.type]

    def update(**changes: Any) -> None:
        send([{"type": "update_element", "args": {"id": node.id, **changes}}])

    name = pn.widgets.TextInput(
        name="Name (the variable name when bound)", value=node.name, sizing_mode="stretch_width"
    )
    name.param.watch(lambda e: e.new and e.new != node.name and update(newName=e.new), "value")
    hidden = pn.widgets.Checkbox(name="Hidden", value=node.isHidden)
    hidden.param.watch(lambda e: update(isHidden=e.new), "value")
    locked = pn.widgets.Checkbox(name="Locked", value=node.isLocked)
    locked.param.watch(lambda e: update(isLocked=e.new), "value")
    sections: list[Any] = [pn.pane.Markdown(f"### {node.type.capitalize()}"), name, pn.Row(hidden, locked)]
    position_widgets: dict[str, Any] = {}
    for part, model in (("data", spec.Data), ("position", spec.Position), ("styles", spec.Styles)):
        current = getattr(node, part)
        widgets = []
        for field_name, field in model.model_fields.items():

            def send_value(value: Any, part: str = part, field_name: str = field_name) -> None:
                update(**{part: {field_name: value}})

            widget = field_widget(node.type, part, field_name, field, getattr(current, field_name), send_value)
            if widget is not None:
                widgets.append(widget)
                if part == "position":
                    position_widgets[field_name] = widget
        if node.type == "table" and part == "data":
            widgets.insert(0, table_cells(node, update))
        if widgets:
            sections.append(
                pn.Card(*widgets, title=part.capitalize(), sizing_mode="stretch_width", collapsed=part == "styles")
            )
    form = pn.Column(*sections, sizing_mode="stretch_width", css_classes=["dbk-properties"])
    form.position_widgets = position_widgets
    return form


def table_cells(node: Any, update: Callable[..., None]) -> pn.Column:
    """The table editor: its cells as a grid, or pasted as CSV (first row is the header)."""
    import csv
    import io

    cells = [[c if isinstance(c, str) else c.data.content for c in row] for row in (node.data.cells or [])]
    grid = CellGrid(cells=cells, sizing_mode="stretch_width")
    grid.param.watch(lambda e: update(data={"cells": e.new}), "cells")
    paste = pn.widgets.TextAreaInput(name="Paste CSV to replace the cells", placeholder="Item,Qty\nPens,3", rows=3)

    def from_csv(event: Any) -> None:
        rows = [row for row in csv.reader(io.StringIO(event.new)) if row]
        if rows:
            width = max(len(row) for row in rows)
            update(data={"cells": [row + [""] * (width - len(row)) for row in rows]})

    paste.param.watch(from_csv, "value")
    return pn.Column(pn.pane.Markdown("**Cells**", margin=(0, 5)), grid, paste, sizing_mode="stretch_width")
