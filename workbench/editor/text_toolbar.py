"""The text toolbar above the canvas: family, size, weight, italic, underline, colour and
alignment of the selected texts and tables, at hand instead of in the properties panel.

Which fields it offers is each element type's declaration (`ElementType.text_toolbar`, a
list of its Styles fields); each is edited by its field type, as in the properties form:
the font picker for a FontFamily, the colour picker for a HexColor, a bold toggle for a
font weight (engine.elements.editing WEIGHT), a toggle for a bool, buttons for a Literal, a number
box for a number. Nothing here names a field or an element type.

A change goes to every selected element whose type offers that field, as one action batch
(one undo step). The widgets are built once and show each new selection or saved tree in
place (`show`). Setting a widget from here fires its watcher like a person's edit; an
edit equal to the value the toolbar shows is not one, so it sends nothing (a selection
whose elements differ keeps its differences until a person changes the field).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import panel as pn
from pydantic.fields import FieldInfo

from engine import DesignTree
from engine.elements import ELEMENT_TYPES
from engine.elements.editing import COLOR, FONT, WEIGHT, plain_type, widget_of
from engine.fonts import DEFAULT_FAMILY

from .colour_picker import ColourPicker, design_colours
from .pickers import FontPicker
from .style import STYLESHEET

# A weight from semibold up shows as bold; the toggle sets bold or regular.
BOLD_FROM, BOLD, REGULAR = 600, 700, 400
SWATCHES_IN_TOOLBAR = 6
# The toggles that, with a part of a text selected on the canvas, make that part bold or
# italic in Markdown instead (canvas/text_overlay.js reads these classes): the weight toggle,
# and the bool field of this name.
FORMAT_BOLD, FORMAT_ITALIC, ITALIC_FIELD = "dbk-format-bold", "dbk-format-italic", "italic"
TOOLBAR_HEIGHT = 44  # px; the row is there (this height) whatever is selected
HINT = "<small>Select a text or a table to style it here.</small>"


def _label(name: str) -> str:
    words = "".join(" " + c.lower() if c.isupper() else c for c in name)
    return words[:1].upper() + words[1:]


def offered_fields() -> dict[str, FieldInfo]:
    """Every field some element type offers in the toolbar, in declaration order (first type first)."""
    fields: dict[str, FieldInfo] = {}
    for element in ELEMENT_TYPES.values():
        for name in element.editor.text_toolbar:
            fields.setdefault(name, element.Styles.model_fields[name])
    return fields


def shown_values(selected: Sequence[Any]) -> dict[str, Any]:
    """The toolbar's fields for a selection, each with the stored value of the first selected
    element offering it; empty when no selected type offers any."""
    values: dict[str, Any] = {}
    for node in selected:
        for name in ELEMENT_TYPES[node.type].editor.text_toolbar:
            values.setdefault(name, getattr(node.styles, name))
    return values


def style_batch(selected: Sequence[Any], name: str, value: Any) -> list[dict]:
    """update_element actions giving `value` to the Styles field `name` of every selected element
    whose type offers it in the toolbar (through the field type's conversion)."""
    actions = []
    for node in selected:
        element = ELEMENT_TYPES[node.type]
        if name in element.editor.text_toolbar:
            args = element.edited(node, f"styles.{name}", value)
            actions.append({"type": "update_element", "args": {"id": node.id, **args}})
    return actions


@dataclass
class Control:
    """One field's widget in the toolbar."""

    view: Any
    show: Callable[[Any], None]  # put what the widget edits into it, in place
    shown: Callable[[Any], Any] = lambda stored: stored  # stored value -> what the widget edits
    stored: Callable[[Any], Any] = lambda edited: edited  # the widget's edit -> the stored value


class TextToolbar:
    def __init__(self, apply: Callable[[list[dict]], None]) -> None:
        self._apply = apply
        self._selected: list[Any] = []
        self._showing: dict[str, Any] = {}  # by field: what its widget was last given by `show`
        self._below: list[Any] = []  # parts that open under the row (the font list)
        self._controls: dict[str, Control] = {}
        for name, field in offered_fields().items():
            control = self._control(name, field)
            if control is not None:
                self._controls[name] = control
        self._hint = pn.pane.HTML(HINT, margin=(12, 10))
        # One row of a fixed height, with or without a selection, so the canvas under it never
        # moves; where the canvas is narrower than the controls it scrolls sideways (editor.css).
        row = pn.FlexBox(
            self._hint,
            *(control.view for control in self._controls.values()),
            css_classes=["dbk-text-toolbar-row"],
            stylesheets=[STYLESHEET],
            sizing_mode="stretch_width",
            height=TOOLBAR_HEIGHT,
            flex_wrap="nowrap",
            align_items="center",
        )
        self.view = pn.Column(
            row,
            *self._below,
            css_classes=["dbk-text-toolbar"],
            stylesheets=[STYLESHEET],
            sizing_mode="stretch_width",
            height=TOOLBAR_HEIGHT,
        )
        self.show([], None)

    def __panel__(self) -> pn.viewable.Viewable:
        return self.view

    # -- showing ---------------------------------------------------------------------------

    def show(self, selected: Sequence[Any], tree: DesignTree | None) -> None:
        """Show the selection's styles (the first selected element's value of each field)."""
        self._selected = list(selected)
        values = shown_values(selected)
        self._hint.visible = not values
        swatches = design_colours(tree)[:SWATCHES_IN_TOOLBAR] if tree is not None and values else []
        for name, control in self._controls.items():
            control.view.visible = name in values
            if name not in values:
                continue
            shown = control.shown(values[name])
            self._showing[name] = shown  # first: the watcher fired by the setting compares with it
            control.show(shown)
            if isinstance(control.view, ColourPicker) and control.view.swatches != swatches:
                control.view.swatches = swatches
        if not values:
            for part in self._below:
                part.visible = False

    # -- editing ---------------------------------------------------------------------------

    def _edit(self, name: str, edited: Any) -> None:
        if edited == self._showing.get(name):
            return  # what `show` put there, or no change: not an edit
        value = self._controls[name].stored(edited)
        self._apply(style_batch(self._selected, name, value))

    def _control(self, name: str, field: FieldInfo) -> Control | None:
        annotation, optional = plain_type(field.annotation)
        marker = widget_of(field)
        kind = marker.kind if marker is not None else None
        css = [f"dbk-tt-{name}"]

        def watched(widget: Any, control: Control) -> Control:
            widget.param.watch(lambda e: self._edit(name, e.new), "value")
            return control

        def set_value(widget: Any) -> Callable[[Any], None]:
            return lambda value: setattr(widget, "value", value)

        if kind == FONT:
            return self._family_control(name, css)
        if kind == COLOR:
            picker = ColourPicker(optional=optional, css_classes=[*css, "dbk-colour-inline"], width=210, margin=(6, 3))
            return watched(picker, Control(picker, set_value(picker), lambda v: v or "", lambda v: v or None))
        if kind == WEIGHT:
            toggle = pn.widgets.Toggle(
                label="B", css_classes=[*css, "dbk-tt-weight", FORMAT_BOLD], width=32, margin=(6, 1)
            )
            control = Control(toggle, set_value(toggle), lambda v: v >= BOLD_FROM, lambda on: BOLD if on else REGULAR)
            return watched(toggle, control)
        if annotation is bool:
            if name == ITALIC_FIELD:
                css.append(FORMAT_ITALIC)
            toggle = pn.widgets.Toggle(label=_label(name)[:1], css_classes=css, width=32, margin=(6, 1))
            return watched(toggle, Control(toggle, set_value(toggle), bool))
        if typing.get_origin(annotation) is Literal:
            options = {_label(str(option)): option for option in typing.get_args(annotation)}
            # The field's description is the buttons' tooltip: it says what start and end mean.
            buttons = pn.widgets.RadioButtonGroup(
                options=options,
                css_classes=[*css, "dbk-tt-buttons"],
                stylesheets=[STYLESHEET],  # narrow buttons (editor.css)
                margin=(6, 3),
                description=field.description,
            )
            return watched(buttons, Control(buttons, set_value(buttons)))
        if annotation in (int, float):
            box = (pn.widgets.IntInput if annotation is int else pn.widgets.FloatInput)(
                value=None, step=1, width=64, css_classes=css, margin=(6, 3)
            )
            return watched(box, Control(box, set_value(box)))
        return None  # a field type the toolbar has no compact widget for: the properties panel edits it

    def _family_control(self, name: str, css: list[str]) -> Control:
        """A button naming the family; it opens the font picker, floating over the canvas under the
        toolbar (editor.css .dbk-tt-fonts): opening it changes neither the layout nor the zoom."""
        button = pn.widgets.Button(label=DEFAULT_FAMILY, css_classes=css, width=110, margin=(6, 3))
        picker = FontPicker.catalog(DEFAULT_FAMILY)
        fonts = pn.Column(picker, visible=False, width=400, css_classes=["dbk-tt-fonts"], stylesheets=[STYLESHEET])
        self._below.append(fonts)
        button.on_click(lambda e: setattr(fonts, "visible", not fonts.visible))

        def picked(event: Any) -> None:
            if event.new != self._showing.get(name):  # a person's pick closes the list
                fonts.visible = False
            self._edit(name, event.new)

        picker.param.watch(picked, "value")

        def show(family: str) -> None:
            button.label = f"{family} ▾"
            picker.value = family

        return Control(button, show)
