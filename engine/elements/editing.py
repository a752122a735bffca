"""How an editor edits a field, declared on the field's type.

A field type carries a `Widget` marker in its `Annotated[...]` metadata:
`HexColor` is edited with a colour picker, `FontFamily` with the font picker, the
icon id with the icon picker, whatever its field is called. Fields without a marker
are edited by their plain type (Literal: a select, bool: a checkbox, numbers, strings,
lists of numbers). The editor reads the marker with `widget_of(field)` and never looks
at a field's name, so a new field or element type gets a fitting widget by its type.

This module imports nothing of the engine, so every engine module may mark its types.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic.fields import FieldInfo

# The kinds the editor knows; a face shows an unknown kind as it would the plain type.
COLOR = "color"  # a hex colour
FONT = "font"  # a family of the font catalog
ICON = "icon"  # a bundled icon id
IMAGE = "image"  # an image ref, chosen from the image library rather than typed
HIDDEN = "hidden"  # edited elsewhere (a crop is drawn on the canvas), not in the form
MULTILINE = "multiline"  # text over several lines (a string, or list items one per line)
CELLS = "cells"  # a table's grid of cells
WEIGHT = "weight"  # a font weight, 100-900: a number in the form, the bold toggle in the text toolbar
# Placeholder name -> design-time value: one text input per placeholder the element's content
# holds (its type's FieldHost.names), not per key stored (extensions.md 1).
SAMPLES = "samples"
# An expression of engine.design.expressions (extensions.md 11): typed with its result on the
# design's samples shown beside it.
EXPRESSION = "expression"
# Kinds a type's EditorHints.widget_for gives a field whose widget depends on the node's other
# values (a form field's value is a check box, a choice of its options or a date by its type).
TEXT = "text"  # one line of text; empty is None when the field is optional
BOOLEAN = "boolean"  # a check box
CHOICE = "choice"  # one of `choices`, (value, what is shown); none chosen is None when optional
DATE = "date"  # a date picker; the value is the date as YYYY-MM-DD text


@dataclass(frozen=True)
class Widget:
    """The editor's widget for a field type, with the type's own conversions.

    `shown(stored)` turns the stored value (models, as the tree holds it) into what the
    widget edits; `stored(current, edited)` turns an edit back into the JSON value an
    update_element action sends, and may keep what the widget does not show (a table's
    cell styles when only the texts are edited). Without them the value passes as is.
    """

    kind: str
    shown: Callable[[Any], Any] | None = None
    stored: Callable[[Any, Any], Any] | None = None
    # CHOICE: the values offered, each with what the widget shows for it.
    choices: tuple[tuple[Any, str], ...] = ()

    def show(self, value: Any) -> Any:
        return self.shown(value) if self.shown is not None else value

    def store(self, current: Any, edited: Any) -> Any:
        return self.stored(current, edited) if self.stored is not None else edited


def _markers(annotation: Any) -> typing.Iterator[Widget]:
    """Widget markers on an annotation, through Annotated, Optional and unions (not inside lists)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        base, *metadata = typing.get_args(annotation)
        yield from (item for item in metadata if isinstance(item, Widget))
        yield from _markers(base)
    elif origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            yield from _markers(arg)


def widget_of(field: FieldInfo) -> Widget | None:
    """The field's Widget marker, or None when its plain type decides.

    Pydantic lifts only the outermost Annotated metadata into `field.metadata`; a marked
    type inside Optional (`HexColor | None`) stays in `field.annotation`, so both are read.
    """
    for item in field.metadata:
        if isinstance(item, Widget):
            return item
    return next(_markers(field.annotation), None)


def plain_type(annotation: Any) -> tuple[Any, bool]:
    """(the annotation without Annotated and Optional, whether None is allowed).

    A union of several types other than None comes back as the list of its members."""
    optional = False
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(annotation) if a is not type(None)]
            optional = optional or len(members) < len(typing.get_args(annotation))
            if len(members) != 1:
                return members, optional
            annotation = members[0]
        else:
            return annotation, optional
