"""The properties panel, generated from the selected element's pydantic models.

Each field of the type's Position, Data and Styles models becomes a widget chosen by
its type, never by its name: a field type marked with an engine.elements.editing `Widget`
(HexColor: a colour picker, FontFamily: the font picker, the icon id: the icon picker,
text content: a text area, a table's cells: the cell grid…) gets that widget, with the
type's own conversions; any other field is edited by its plain type (Literal: a select,
bool: a checkbox, numbers, strings, lists of numbers). A new element type or field
appears here with fitting widgets and no editor code. A change sends one
update_element action.

Every element also gets its node's `repeat` (unless its type always splits across sheets)
and `showIf` (a variable of the design, with an optional equals / not-equals text); a type
that hosts placeholders (`ElementType.fields`) gets "Insert field", and its samples are
edited one input per placeholder of its content (engine.elements.editing SAMPLES).

The form is built once per selected element; after an edit it shows the element's new
values in place (`show_node`), so its sections stay open or closed and the panel keeps its
scroll position. Setting a widget's value fires its watcher like an edit would; the batch
it sends equals the saved tree and is not sent (docs/editor-state.md point 6).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import panel as pn
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from engine.design.conditions import as_text
from engine.elements import ELEMENT_TYPES, editing
from engine.elements.base import NodeBase
from engine.elements.editing import Widget, plain_type, widget_of
from engine.fonts import DEFAULT_FAMILY

from .colour_picker import ColourPicker
from .computed_form import COLUMN_KEYS, Preview, column_editor, expression_input
from .keyed_rows import keyed_rows_editor
from .language_hint import LanguageHint
from .pickers import CellGrid, FontPicker, icon_picker
from .style import TYPED_TEXT

Send = Callable[[list[dict]], None]
# Editors of an element's content lead their card (a text's lines, a table's grid).
LEADING_KINDS = {editing.MULTILINE, editing.CELLS}
# The form's sections, in order: what a designer changes most comes first (issue 14).
SECTIONS = ("styles", "data", "position")


def _label(name: str) -> str:
    words = "".join(" " + c.lower() if c.isupper() else c for c in name)
    return words[:1].upper() + words[1:]


def _titled(label: str, *widgets: Any) -> pn.Column:
    return pn.Column(pn.pane.Markdown(f"**{label}**", margin=(0, 5)), *widgets, sizing_mode="stretch_width")


def _shows(widget: Any, shown: Callable[[Any], None]) -> Any:
    """Attach how the widget shows a new stored value in place (`show_value`)."""
    widget.show_value = shown
    return widget


def _marked_widget(
    marker: Widget,
    label: str,
    value: Any,
    optional: bool,
    send: Callable[[Any], None],
    swatches: Sequence[str],
    holder: Callable[[], Any] | None = None,
) -> Any:
    """The widget a field type asks for; `send` takes the edited value (before conversion).
    `holder()` is the saved node holding the field, for widgets shaped by the node (samples)."""
    kind = marker.kind
    shown = marker.show(value)
    if kind in (editing.HIDDEN, editing.IMAGE):
        return None  # a crop is edited on the canvas, an image ref from the Images panel
    if kind == editing.FONT:
        picker = FontPicker.catalog(shown or DEFAULT_FAMILY)
        picker.param.watch(lambda e: send(e.new), "value")
        return _shows(_titled(label, picker), lambda v: setattr(picker, "value", marker.show(v) or DEFAULT_FAMILY))
    if kind == editing.ICON:
        column = icon_picker(shown, send)
        grid = column[1]  # icon_picker: the search, then the grid
        return _shows(column, lambda v: setattr(grid, "value", marker.show(v)))
    if kind == editing.COLOR:
        picker = ColourPicker(
            caption=label,
            value=shown or "",
            optional=optional,
            swatches=list(swatches),
            sizing_mode="stretch_width",
            margin=(5, 10),
        )
        _watch(picker, lambda v: send(v or None) if optional else v and send(v))
        return _shows(picker, lambda v: setattr(picker, "value", marker.show(v) or ""))
    if kind == editing.MULTILINE:
        widget = pn.widgets.TextAreaInput(
            label=label, value=shown or "", auto_grow=True, max_rows=8, stylesheets=[TYPED_TEXT]
        )
        return _shows(_watch(widget, send), lambda v: setattr(widget, "value", marker.show(v) or ""))
    if kind == editing.CELLS:
        column = cells_editor(label, shown or [], send)
        return _shows(column, lambda v: column.show_cells(marker.show(v) or []))
    if kind == editing.TEXT:
        widget = pn.widgets.TextInput(
            label=label, value=shown or "", stylesheets=[TYPED_TEXT], sizing_mode="stretch_width"
        )
        _watch(widget, lambda v: send(None if v == "" and optional else v))
        return _shows(widget, lambda v: setattr(widget, "value", marker.show(v) or ""))
    if kind == editing.BOOLEAN:
        widget = pn.widgets.Checkbox(label=label, value=bool(shown), sizing_mode="stretch_width")
        _watch(widget, send)
        return _shows(widget, lambda v: setattr(widget, "value", bool(marker.show(v))))
    if kind == editing.CHOICE:
        # Panel's Select maps what it shows to the value; "" stands for none chosen.
        choices = {shown_as: value for value, shown_as in marker.choices}
        if optional:
            choices = {"(none)": "", **choices}
        widget = pn.widgets.Select(
            label=label, options=choices, value="" if shown is None else shown, sizing_mode="stretch_width"
        )
        _watch(widget, lambda v: send(None if v == "" and optional else v))
        return _shows(widget, lambda v: setattr(widget, "value", "" if marker.show(v) is None else marker.show(v)))
    if kind == editing.DATE:
        widget = pn.widgets.DatePicker(label=label, value=_date(shown), sizing_mode="stretch_width")
        _watch(widget, lambda v: send(v.isoformat() if v is not None else None))
        return _shows(widget, lambda v: setattr(widget, "value", _date(marker.show(v))))
    if kind == editing.SAMPLES:
        # Samples are per placeholder: only a type that hosts placeholders has them to edit.
        hosts = holder is not None and ELEMENT_TYPES[holder().type].fields is not None
        return samples_editor(label, holder, value or {}, send) if hosts else None
    return None  # a kind this editor does not know: shown as its plain type by the caller


def _date(text: Any) -> dt.date | None:
    """A date picker's value for stored YYYY-MM-DD text (None for none, or text that is not one)."""
    try:
        return dt.date.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        return None


def _plain_widget(annotation: Any, optional: bool, label: str, part: str, value: Any, send: Callable) -> Any:
    if typing.get_origin(annotation) is Literal:
        # An optional choice left unset ("default": what the field's description says it is).
        choices: Any = list(typing.get_args(annotation))
        if optional:
            choices = {"default": "", **{choice: choice for choice in choices}}
        widget = pn.widgets.Select(label=label, options=choices, value="" if value is None else value)
        widget.sizing_mode = "stretch_width"
        _watch(widget, lambda v: send(None if v == "" and optional else v))
        return _shows(widget, lambda v: setattr(widget, "value", "" if v is None else v))
    elif annotation is bool:
        widget = pn.widgets.Checkbox(label=label, value=bool(value))
        widget.sizing_mode = "stretch_width"
        _watch(widget, lambda v: send(v))
        return _shows(widget, lambda v: setattr(widget, "value", bool(v)))
    elif annotation is int:
        widget = pn.widgets.IntInput(label=label, value=value)
    elif annotation is float:
        widget = pn.widgets.FloatInput(label=label, value=value, step=1 if part == "position" else 0.5)
    elif typing.get_origin(annotation) is list and plain_type(typing.get_args(annotation)[0])[0] in (int, float):

        def listed(numbers: Any) -> str:
            return ", ".join(f"{v:g}" for v in numbers) if numbers else ""

        widget = pn.widgets.TextInput(
            label=f"{label} (comma-separated)", value=listed(value), sizing_mode="stretch_width"
        )
        _watch(widget, lambda v: send([float(x) for x in v.replace(";", ",").split(",") if x.strip()] or None))
        return _shows(widget, lambda v: setattr(widget, "value", listed(v)))
    elif typing.get_origin(annotation) is list and plain_type(typing.get_args(annotation)[0])[0] is str:
        # Short texts, e.g. a palette's hex colours: each checked by the engine's field type.

        def texts(items: Any) -> str:
            return ", ".join(items) if items else ""

        widget = pn.widgets.TextInput(
            label=f"{label} (comma-separated)", value=texts(value), sizing_mode="stretch_width"
        )
        _watch(widget, lambda v: send([x.strip() for x in v.split(",") if x.strip()] or None))
        return _shows(widget, lambda v: setattr(widget, "value", texts(v)))
    elif annotation is str:
        widget = pn.widgets.TextInput(label=label, value=value or "", stylesheets=[TYPED_TEXT])
        widget.sizing_mode = "stretch_width"
        _watch(widget, lambda v: send(None if v == "" and optional else v))
        return _shows(widget, lambda v: setattr(widget, "value", v or ""))
    else:
        return None
    widget.sizing_mode = "stretch_width"
    _watch(widget, lambda v: send(None if v == "" and optional else v))
    return _shows(widget, lambda v: setattr(widget, "value", v))


def field_widget(
    element_type: str,
    part: str,
    name: str,
    field: FieldInfo,
    value: Any,
    send_value: Callable,
    swatches: Sequence[str] = (),
    current: Callable[[], Any] | None = None,
    holder: Callable[[], Any] | None = None,
    preview: Preview | None = None,
    marker: Widget | None = None,
) -> Any:
    """A widget for one model field, or None when the field is edited elsewhere.

    `send_value` takes the field's new JSON value; a marked type's conversion (engine.elements.editing)
    turns the widget's edit into it, from the current value (`current()` when given: a form
    updated in place converts from what is saved now, not from what it was built with).
    The widget's `show_value(stored)` shows a new stored value in place. An expression field
    shows its result on the samples through `preview` (engine.design.computed.preview).
    `marker`: how this node's field is edited (ElementType.widget), when not by its field type."""
    annotation, optional = plain_type(field.annotation)
    label = _label(name)
    marker = marker if marker is not None else widget_of(field)
    if marker is not None and marker.kind == editing.EXPRESSION and holder is not None:
        where = f"{part}.{name}"
        return expression_input(
            f"{label} (computed; its result shows on the samples)",
            value,
            lambda text: preview(holder().id, where, text) if preview is not None else "",
            send_value,
            lambda: getattr(getattr(holder(), part), name),
            css=f"dbk-{part}-{name}",
            placeholder="e.g. round(total * 0.19, 2)",
        )
    if marker is not None:

        def send_edited(edited: Any) -> None:
            send_value(marker.store(current() if current is not None else value, edited))

        widget = _marked_widget(marker, label, value, optional, send_edited, swatches, holder)
        if widget is not None or marker.kind in (editing.HIDDEN, editing.IMAGE):
            return widget
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model_widget(element_type, part, name, annotation, value, send_value, swatches)
    return _plain_widget(annotation, optional, label, part, value, send_value)


def model_widget(
    element_type: str,
    part: str,
    name: str,
    model: type[BaseModel],
    value: BaseModel | None,
    send_value: Callable,
    swatches: Sequence[str] = (),
) -> Any:
    """A nested model's fields (a chart's axis: x and y, each with a title and a format), each
    by its type under the field's label; an edit sends the whole model with that field changed."""
    if value is None:
        try:
            value = model.model_validate({})
        except ValidationError:
            return None  # a nested model with required fields is not edited in the form
    saved = {"value": value}
    children: dict[str, Any] = {}
    for child, field in model.model_fields.items():

        def sent(new: Any, child: str = child) -> None:
            dumped = saved["value"].model_dump(mode="json", exclude_none=True)
            if new is None:
                dumped.pop(child, None)
            else:
                dumped[child] = new
            send_value(dumped)

        widget = field_widget(element_type, part, child, field, getattr(value, child), sent, swatches)
        if widget is not None:
            widget.css_classes = [*widget.css_classes, f"dbk-field-{child}"]
            children[child] = widget
    if not children:
        return None
    column = pn.Column(
        pn.pane.Markdown(f"**{_label(name)}**", margin=(0, 5)),
        *children.values(),
        css_classes=[f"dbk-model-{name}"],
        sizing_mode="stretch_width",
    )

    def show(new: BaseModel | None) -> None:
        saved["value"] = new if new is not None else model.model_validate({})
        for child, widget in children.items():
            widget.show_value(getattr(saved["value"], child))

    return _shows(column, show)


def _watch(widget: Any, handler: Callable[[Any], None]) -> Any:
    widget.param.watch(lambda e: handler(e.new), "value")
    return widget


def _leads(field: FieldInfo) -> bool:
    marker = widget_of(field)
    return marker is not None and marker.kind in LEADING_KINDS


def element_form(
    node: Any,
    send: Send,
    swatches: Sequence[str] = (),
    collapsed: Mapping[str, bool] | None = None,
    variables: Sequence[str] = (),
    preview: Preview | None = None,
    bound: bool = False,
    design_language: Callable[[], str | None] = lambda: None,
) -> pn.Column:
    """Name, flags, and every Styles, Data and Position field of the node's type, then where
    and when it is drawn (repeat, showIf, keepWithNext). `variables` are the design's variable
    names; `preview(node id, where, text)` an expression's result on the design's samples
    (engine.design.computed.preview), shown beside every expression input; `design_language()`
    the design's language, which a text without its own already takes. `bound`: a variable
    is bound to the element; a type that can be bound (its `variable` declaration) gets a
    "Variable" checkbox binding and unbinding it, its name being the variable's.

    `show_node(node, swatches, variables, bound)` on the column shows the same element's new
    values in place (after any edit); `position_widgets` are its position fields; `sections`
    its cards by part, whose open state `collapsed` carries over from a form shown before."""
    spec = ELEMENT_TYPES[node.type]
    shown = {"node": node}  # the saved node the form shows; conversions and comparisons read it

    def update(**changes: Any) -> None:
        if spec.editor.edited is not None:
            changes = spec.editor.edited(shown["node"], changes)
        send([{"type": "update_element", "args": {"id": node.id, **changes}}])

    name = pn.widgets.TextInput(label=_name_label(bound), value=node.name, sizing_mode="stretch_width")
    name.param.watch(lambda e: e.new and e.new != shown["node"].name and update(newName=e.new), "value")
    hidden = pn.widgets.Checkbox(label="Hidden", value=node.isHidden)
    hidden.param.watch(lambda e: update(isHidden=e.new), "value")
    locked = pn.widgets.Checkbox(label="Locked", value=node.isLocked)
    locked.param.watch(lambda e: update(isLocked=e.new), "value")
    flags: list[Any] = [hidden, locked]
    shown["bound"] = bound
    variable = None
    if spec.variable is not None:
        # Bound, the element is filled at generation by the variable of its name (bind_variable).
        variable = pn.widgets.Checkbox(label="Variable", value=bound, css_classes=["dbk-variable-toggle"])

        def bind(event: Any) -> None:
            if event.new != shown["bound"]:  # else the echo of show_node
                kind = "bind_variable" if event.new else "unbind_variable"
                send([{"type": kind, "args": {"id": shown["node"].id}}])

        variable.param.watch(bind, "value")
        flags.append(variable)
    sections: list[Any] = [pn.pane.Markdown(f"### {spec.title}"), name, pn.Row(*flags)]

    def item_widget(name: str, field: FieldInfo, value: Any, send_value: Callable[[Any], None]) -> Any:
        # A series' field (its label, colour, format) by its type, as the form's own fields.
        return field_widget(node.type, "data", name, field, value, send_value, swatches)

    position_widgets: dict[str, Any] = {}
    field_widgets: dict[tuple[str, str], Any] = {}
    colour_pickers: list[ColourPicker] = []
    cards: dict[str, pn.Card] = {}
    hints: list[LanguageHint] = []
    models = {"styles": spec.Styles, "data": spec.Data, "position": spec.Position}
    if "lang" in spec.Data.model_fields:
        # Kana or Hangul in a text without a language: one click sets it, at the form's top (issue 35).
        hints.append(LanguageHint(node, lambda tag: update(data={"lang": tag}), design_language))
        sections.append(hints[-1].view)
    # A type with typed columns (extensions.md 11) edits them, and what reads their keys, in
    # the column editor.
    typed = "columnDefs" in spec.Data.model_fields
    # A type whose rows, their naming key and series are edited together (EditorHints.keyed_rows).
    keyed = spec.editor.keyed_rows
    keyed_paths = {keyed.rows, keyed.label, keyed.series} if keyed is not None else set()
    for part in SECTIONS:
        current = getattr(node, part)
        leading, widgets = [], []
        for field_name, field in models[part].model_fields.items():
            if typed and part == "data" and field_name in COLUMN_KEYS:
                continue
            if f"{part}.{field_name}" in keyed_paths:
                continue

            def send_value(value: Any, part: str = part, field_name: str = field_name) -> None:
                update(**{part: {field_name: value}})

            def saved(part: str = part, field_name: str = field_name) -> Any:
                return getattr(getattr(shown["node"], part), field_name)

            value = getattr(current, field_name)
            widget = field_widget(
                node.type,
                part,
                field_name,
                field,
                value,
                send_value,
                swatches,
                saved,
                lambda: shown["node"],
                preview,
                spec.widget(node, f"{part}.{field_name}"),
            )
            if widget is None:
                continue
            # Where a page (or a test) finds the field's widget whatever its kind.
            widget.css_classes = [*widget.css_classes, f"dbk-field-{part}-{field_name}"]
            (leading if _leads(field) else widgets).append(widget)
            field_widgets[(part, field_name)] = widget
            if isinstance(widget, ColourPicker):
                colour_pickers.append(widget)
            if part == "position":
                position_widgets[field_name] = widget
        if part == "data" and spec.fields is not None and spec.fields.insert is not None:
            inserter = insert_field_control(spec.fields.insert, lambda: shown["node"], send, variables)
            leading.append(inserter)
        if typed and part == "data":
            columns = column_editor(lambda: shown["node"], update, preview)
            field_widgets[("data", "columnDefs")] = columns
            leading.append(columns)
        if keyed is not None and keyed.rows.partition(".")[0] == part:
            grid = keyed_rows_editor(keyed, _item_model(spec, keyed.series), lambda: shown["node"], update, item_widget)
            field_widgets[(part, keyed.rows.partition(".")[2])] = grid
            leading.append(grid)
        widgets = leading + widgets
        if widgets:
            closed = (collapsed or {}).get(part, False)
            cards[part] = pn.Card(
                *widgets,
                title=part.capitalize(),
                sizing_mode="stretch_width",
                collapsed=closed,
                css_classes=[f"dbk-section-{part}"],
            )
            sections.append(cards[part])
    drawn = drawn_when(spec, lambda: shown["node"], update, variables, preview)
    # The node's own keys, beside the type's parts (`sections` stays the parts' cards).
    sections.append(
        pn.Card(
            drawn,
            title="Repeat, condition, keep with next",
            sizing_mode="stretch_width",
            css_classes=["dbk-section-node"],
        )
    )
    form = pn.Column(*sections, sizing_mode="stretch_width", css_classes=["dbk-properties"])

    def show_node(
        new: Any,
        new_swatches: Sequence[str] = (),
        new_variables: Sequence[str] | None = None,
        new_bound: bool | None = None,
    ) -> None:
        shown["node"] = new  # first: the echoes of the settings below compare with the new values
        if new_bound is not None:
            shown["bound"] = new_bound
            name.name = _name_label(new_bound)
            if variable is not None:
                variable.value = new_bound
        name.value = new.name
        hidden.value = new.isHidden
        locked.value = new.isLocked
        for (part, field_name), widget in field_widgets.items():
            widget.show_value(getattr(getattr(new, part), field_name))
        drawn.show_value(new, new_variables)
        for hint in hints:
            hint.show(new)
        if "data" in cards:
            for widget in cards["data"].objects:
                if hasattr(widget, "show_variables") and new_variables is not None:
                    widget.show_variables(new_variables)
        for picker in colour_pickers:
            if picker.swatches != list(new_swatches):
                picker.swatches = list(new_swatches)

    form.position_widgets = position_widgets
    form.sections = cards
    form.show_node = show_node
    form.shows_id = node.id
    return form


def _item_model(spec: Any, path: str) -> type[BaseModel]:
    """The model of the items of the list field at `path` (a chart's series: ChartSeries)."""
    annotation, _ = plain_type(spec.model_field(path).annotation)
    item, _ = plain_type(typing.get_args(annotation)[0])
    return item


def _name_label(bound: bool) -> str:
    # Bound, the name is what a generation's values give this element's value under.
    return "Variable name" if bound else "Name"


def variable_widget(node: Any, send: Send) -> Any:
    """The widget for the field a variable of this node fills (its sample value), or None
    when the type cannot be bound or its field is edited elsewhere (an image ref)."""
    element = ELEMENT_TYPES[node.type]
    if element.variable is None:
        return None
    part, _, name = element.variable.field.partition(".")

    def send_value(value: Any) -> None:
        send([{"type": "update_element", "args": {"id": node.id, part: {name: value}}}])

    field = element.model_field(element.variable.field)
    value = getattr(getattr(node, part), name)
    marker = element.widget(node, element.variable.field)
    return field_widget(node.type, part, name, field, value, send_value, marker=marker)


def form_shape(node: Any) -> tuple:
    """What the form built for the node depends on besides its type: the widgets its type
    chooses per node (EditorHints.widget_for), e.g. a form field's value by its fieldType.
    A node whose shape changed gets a new form."""
    spec = ELEMENT_TYPES[node.type]
    if spec.editor.widget_for is None:
        return ()
    shape = []
    for part, model in (("styles", spec.Styles), ("data", spec.Data), ("position", spec.Position)):
        for name in model.model_fields:
            hinted = spec.editor.widget_for(node, f"{part}.{name}")
            if hinted is not None:
                shape.append((part, name, hinted.kind, hinted.choices))
    return tuple(shape)


def cells_editor(label: str, texts: list[list[str]], send: Callable[[list[list[str]]], None]) -> pn.Column:
    """A table's cells as a grid of texts, or pasted as CSV (first row is the header).

    Only texts travel: the field type's conversion (engine.elements.table.set_cell_texts)
    keeps each cell's styles."""
    grid = CellGrid(cells=texts, sizing_mode="stretch_width")
    grid.param.watch(lambda e: send(e.new), "cells")
    paste = pn.widgets.TextAreaInput(label="Paste CSV to replace the cells", placeholder="Item,Qty\nPens,3", rows=3)

    def pasted(value: str) -> list[list[str]]:
        rows = [row for row in csv.reader(io.StringIO(value)) if row]
        width = max((len(row) for row in rows), default=0)
        return [row + [""] * (width - len(row)) for row in rows]

    def from_csv(event: Any) -> None:
        rows = pasted(event.new)
        if rows:
            send(rows)

    def show_cells(cells: list[list[str]]) -> None:
        grid.cells = cells
        # Pasted rows that are no longer the cells (an undo, an edit in the grid) would be
        # pasted again by the next change here: the area empties.
        if paste.value and pasted(paste.value) != cells:
            paste.value = ""

    paste.param.watch(from_csv, "value")
    column = _titled(label, grid, paste)
    column.show_cells = show_cells
    return column


def samples_editor(
    label: str, holder: Callable[[], Any], samples: Mapping[str, str], send: Callable[[dict[str, str]], None]
) -> pn.Column:
    """One text input per placeholder of the node's content (its type's FieldHost.names),
    holding that placeholder's sample; an edit sends every sample (empty ones left out)."""
    hint = pn.pane.HTML(
        "<small>Write {name} in the content with Fields on, or use Insert field.</small>", margin=(0, 10)
    )
    inputs = pn.Column(sizing_mode="stretch_width", margin=0)
    column = pn.Column(
        pn.pane.Markdown(f"**{label}**", margin=(0, 5)),
        inputs,
        hint,
        sizing_mode="stretch_width",
        css_classes=["dbk-samples"],
    )
    built: dict[str, pn.widgets.TextInput] = {}

    def saved() -> dict[str, str]:
        node = holder()
        return dict(node.data.samples) if hasattr(node.data, "samples") else {}

    def edited(placeholder: str, text: str) -> None:
        current = saved()
        if current.get(placeholder, "") == text:
            return  # what the saved tree holds (an echo of show_value): not an edit
        names = _placeholder_names(holder())
        new = {n: current[n] for n in names if current.get(n)}
        if text:
            new[placeholder] = text
        else:
            new.pop(placeholder, None)
        send(new)

    def show(stored: Mapping[str, str] | None) -> None:
        stored = stored or {}
        node = holder()
        names = _placeholder_names(node)
        if tuple(built) != tuple(names):
            built.clear()
            for placeholder in names:
                box = pn.widgets.TextInput(
                    label=f"{{{placeholder}}}",
                    value=stored.get(placeholder, ""),
                    placeholder="sample shown in the preview",
                    sizing_mode="stretch_width",
                    css_classes=["dbk-sample-input", f"dbk-sample-{placeholder}"],
                    stylesheets=[TYPED_TEXT],
                )
                box.param.watch(lambda e, p=placeholder: edited(p, e.new), "value")
                built[placeholder] = box
            inputs.objects = list(built.values())
        else:
            for placeholder, box in built.items():
                box.value = stored.get(placeholder, "")
        hint.visible = not names

    show(samples)
    return _shows(column, show)


def _placeholder_names(node: Any) -> tuple[str, ...]:
    host = ELEMENT_TYPES[node.type].fields
    return host.names(node) if host is not None else ()


def insert_field_control(
    insert: Callable[[Any, str], dict], holder: Callable[[], Any], send: Send, variables: Sequence[str]
) -> pn.Column:
    """A name (the design's variables offered) and a button adding `{name}` to the content
    with placeholders on: one update_element, so one undo step."""
    name = pn.widgets.AutocompleteInput(
        label="Field name",
        options=list(variables),
        restrict=False,
        case_sensitive=False,
        min_characters=1,
        placeholder="e.g. recipient",
        sizing_mode="stretch_width",
        css_classes=["dbk-field-name"],
    )
    button = pn.widgets.Button(label="Insert field", css_classes=["dbk-insert-field"])

    def insert_now(_: Any) -> None:
        typed = (name.value_input or name.value or "").strip()
        if not typed:
            return
        node = holder()
        send([{"type": "update_element", "args": {"id": node.id, **insert(node, typed)}}])
        name.value = ""

    button.on_click(insert_now)
    column = pn.Column(
        pn.Row(name, button, sizing_mode="stretch_width"), sizing_mode="stretch_width", css_classes=["dbk-insert"]
    )
    column.show_value = lambda _stored: None  # nothing stored: it only adds to the content

    def show_variables(names: Sequence[str]) -> None:
        if list(names) != name.options:
            name.options = list(names)

    column.show_variables = show_variables
    return column


NO_CONDITION = "(always)"
BY_EXPRESSION = "(an expression)"


def drawn_when(
    spec: Any,
    holder: Callable[[], Any],
    update: Callable[..., None],
    variables: Sequence[str],
    preview: Preview | None = None,
) -> Any:
    """The node's `repeat` (a select of its values; not for a type that always splits across
    sheets), `showIf`: a variable of the design and an optional equals / not-equals text, or an
    expression (its true/false on the samples shown), and `keepWithNext`.

    Each widget's edit changes only its own part of the saved condition, so showing a new
    saved node (`show_value`) echoes the saved values and sends nothing."""
    widgets: list[Any] = []
    repeat = None
    if not spec.splits:
        annotation, _ = plain_type(NodeBase.model_fields["repeat"].annotation)
        repeat = _plain_widget(
            annotation, False, "Repeat on sheets", "node", holder().repeat, lambda v: v and update(repeat=v)
        )
        repeat.css_classes = ["dbk-repeat"]
        widgets.append(repeat)

    def options(names: Sequence[str]) -> list[str]:
        condition = holder().showIf
        names = list(names)
        if condition is not None and condition.variable is not None and condition.variable not in names:
            names.append(condition.variable)
        return [NO_CONDITION, BY_EXPRESSION, *names]

    def chosen_of(condition: Any) -> str:
        if condition is None:
            return NO_CONDITION
        return condition.variable if condition.variable is not None else BY_EXPRESSION

    condition = holder().showIf
    variable = pn.widgets.Select(
        label="Show if (a variable's value is not empty, or an expression is true)",
        options=options(variables),
        value=chosen_of(condition),
        sizing_mode="stretch_width",
        css_classes=["dbk-showif-variable"],
    )
    comparisons = {
        key: pn.widgets.TextInput(
            label=_label(key) + " (optional)",
            value=as_text(getattr(condition, key, None)),
            sizing_mode="stretch_width",
            css_classes=[f"dbk-showif-{key}"],
        )
        for key in ("equals", "notEquals")
    }

    def saved_condition() -> dict | None:
        saved = holder().showIf
        return saved.model_dump(exclude_none=True) if saved is not None else None

    def saved_expression() -> str | None:
        saved = holder().showIf
        return saved.expression if saved is not None else None

    def expression_sent(text: str | None) -> None:
        if text is None:
            if saved_expression() is not None:
                update(showIf=None)
            return
        update(showIf={"expression": text})

    expression = expression_input(
        "Show if this is true",
        condition.expression if condition is not None else None,
        lambda text: preview(holder().id, "showIf.expression", text) if preview is not None else "",
        expression_sent,
        saved_expression,
        css="dbk-showif-expression",
        placeholder="e.g. total > 100",
    )

    def shows_kind(chosen: str) -> None:
        expression.visible = chosen == BY_EXPRESSION
        for box in comparisons.values():
            box.visible = chosen != BY_EXPRESSION

    def chose(chosen: str) -> None:
        shows_kind(chosen)
        saved = saved_condition()
        if chosen == NO_CONDITION:
            if saved is not None:
                update(showIf=None)
            return
        if chosen == BY_EXPRESSION:
            return  # saved once an expression that checks is typed
        if saved is not None and saved.get("variable") == chosen:
            return
        new = {k: v for k, v in (saved or {}).items() if k != "expression"} or {
            k: w.value for k, w in comparisons.items() if w.value
        }
        update(showIf={**new, "variable": chosen})

    def compared(key: str, text: str) -> None:
        saved = saved_condition()
        if saved is None or saved.get("variable") is None or as_text(saved.get(key)) == text:
            return  # no condition to compare in, or what is saved (an echo)
        new = {k: v for k, v in saved.items() if k != key}
        if text:
            new[key] = text
        update(showIf=new)

    variable.param.watch(lambda e: chose(e.new), "value")
    for key, box in comparisons.items():
        box.param.watch(lambda e, key=key: compared(key, e.new), "value")
    keep = pn.widgets.Checkbox(
        label="Keep with next (moves to the next sheet with the element below it)",
        value=holder().keepWithNext,
        css_classes=["dbk-keep-with-next"],
        sizing_mode="stretch_width",
    )
    keep.param.watch(lambda e: e.new != holder().keepWithNext and update(keepWithNext=e.new), "value")
    widgets += [variable, expression, *comparisons.values(), keep]
    shows_kind(variable.value)
    column = pn.Column(*widgets, sizing_mode="stretch_width")

    def show(node: Any, names: Sequence[str] | None = None) -> None:
        if repeat is not None:
            repeat.value = node.repeat
        if names is not None and options(names) != variable.options:
            variable.options = options(names)
        shown_condition = node.showIf
        for key, box in comparisons.items():
            box.value = as_text(getattr(shown_condition, key, None))
        expression.show_value(shown_condition.expression if shown_condition is not None else None)
        keep.value = node.keepWithNext
        # Chosen "(an expression)" with none saved yet stays chosen while one is typed.
        if not (variable.value == BY_EXPRESSION and shown_condition is None):
            variable.value = chosen_of(shown_condition)
        shows_kind(variable.value)

    column.show_value = show
    return column
