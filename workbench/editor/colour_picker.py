"""A colour field as a designer expects it: the browser's colour picker, a hex entry, "none"
for an optional colour, and swatches of the colours the design already uses.

The swatches come from the tree (`design_colours`): every field whose type is marked as a
colour (engine.elements.editing COLOR), wherever it sits in an element (a table cell's own styles
too), and the page and document backgrounds, most used first.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import panel as pn
import param
from pydantic import BaseModel

from engine import DesignTree
from engine.design.colors import parse_gradient
from engine.elements.editing import COLOR, widget_of

from .style import STYLESHEET

SWATCHES_SHOWN = 12
_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")


def normal_hex(value: str) -> str:
    """A hex colour in one spelling (lower case, #rgb widened), so equal colours are one swatch."""
    value = value.lower()
    if len(value) == 4:
        return "#" + "".join(c * 2 for c in value[1:])
    return value


def _fill_colours(value: Any) -> list[str]:
    """The hex colours of a stored colour or background: itself, or a gradient's stops."""
    if not isinstance(value, str) or not value:
        return []
    if _HEX.match(value):
        return [normal_hex(value)]
    try:
        return [normal_hex(c) for c in parse_gradient(value).colors]
    except ValueError:
        return []


def _model_colours(model: BaseModel, found: Counter[str]) -> None:
    for name, field in type(model).model_fields.items():
        value = getattr(model, name)
        marker = widget_of(field)
        if marker is not None and marker.kind == COLOR:
            found.update(_fill_colours(value))
        _value_colours(value, found)


def _value_colours(value: Any, found: Counter[str]) -> None:
    if isinstance(value, BaseModel):
        _model_colours(value, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _value_colours(item, found)


def design_colours(tree: DesignTree, limit: int = SWATCHES_SHOWN) -> list[str]:
    """The distinct colours the design uses so far, most used first (ties: first seen first)."""
    found: Counter[str] = Counter()
    for node in tree.nodes.values():
        _model_colours(node, found)
    for page in tree.pages:
        found.update(_fill_colours(page.backgroundColor))
    found.update(_fill_colours(tree.background.backgroundColor))
    return [colour for colour, _ in found.most_common(limit)]


class ColourPicker(pn.custom.JSComponent):
    """`value` is the colour as stored: a hex string, "" for none. The hex entry commits on
    Enter or when it loses focus; a swatch or the browser's picker commits at once."""

    value = param.String(default="")
    caption = param.String(default="", doc="the field's label, above the picker")
    swatches = param.List(default=[], doc="hex colours to offer, e.g. the design's (design_colours)")
    optional = param.Boolean(default=False, doc="offer 'none' (the value '')")
    free_text = param.Boolean(default=False, doc="the entry also takes other text (a background's linear-gradient)")

    _esm = Path(__file__).with_name("colour_picker.js")
    _stylesheets = [STYLESHEET]
