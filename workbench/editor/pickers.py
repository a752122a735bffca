"""Small browser widgets the editor needs and Panel does not have: a font picker that
shows each family in its own face, an icon picker over the catalog, a table cell grid
and a layer list that reorders by drag. Each one's browser side is a plain ES module
beside this file (no imports: the page loads nothing from elsewhere), styled by the
editor's one stylesheet.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import panel as pn
import param
from PIL import Image, ImageDraw, ImageFont

import engine
from engine.fonts import DEFAULT_FAMILY, FONT_DIR

from .canvas import GestureMessages
from .style import STYLESHEET


@cache
def font_sample(family: str) -> str:
    """The family's name set in its own regular face, as a PNG data URL (no web fonts needed)."""
    entry = next(e for e in engine.fonts.families() if e.id == family)
    weight = str(engine.fonts.nearest_weight(entry.weights, 400))
    font = ImageFont.truetype(str(FONT_DIR / entry.files[weight]), 30)
    left, top, right, bottom = font.getbbox(family)
    image = Image.new("RGBA", (right - left + 8, 44), (255, 255, 255, 0))
    ImageDraw.Draw(image).text((4 - left, 4), family, font=font, fill=(27, 35, 48, 255))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


class FontPicker(pn.custom.JSComponent):
    value = param.String(default=DEFAULT_FAMILY)
    options = param.List(default=[], doc="[{name, image}]")

    _esm = Path(__file__).with_name("font_picker.js")
    _stylesheets = [STYLESHEET]

    @classmethod
    def catalog(cls, value: str) -> FontPicker:
        options = [{"name": e.id, "image": font_sample(e.id)} for e in engine.fonts.families()]
        return cls(value=value, options=options, sizing_mode="stretch_width")


class IconGrid(pn.custom.JSComponent):
    value = param.String(default="star")
    options = param.List(default=[], doc="[{id, svg}]")

    _esm = Path(__file__).with_name("icon_grid.js")
    _stylesheets = [STYLESHEET]


def icon_matches(query: str, limit: int = 48) -> list[dict]:
    """Catalog icons whose id contains every word of the query (the catalog is 5,000+ icons)."""
    words = query.lower().split()
    found = [i for i in engine.icons.icon_ids() if all(w in i for w in words)][:limit]
    return [{"id": icon_id, "svg": engine.icons.icon_svg(icon_id, "#1b2330")} for icon_id in found]


def icon_picker(value: str, on_pick) -> pn.Column:  # noqa: ANN001
    search = pn.widgets.TextInput(placeholder="search 5,000+ icons…", label="Icon", value="")
    grid = IconGrid(value=value, options=icon_matches(value.split("-")[0]), sizing_mode="stretch_width")
    search.param.watch(lambda e: setattr(grid, "options", icon_matches(e.new)), "value_input")
    grid.param.watch(lambda e: on_pick(e.new), "value")
    return pn.Column(search, grid, sizing_mode="stretch_width", css_classes=["dbk-icon-picker"])


class CellGrid(pn.custom.JSComponent):
    """An editable grid of text cells; writes `cells` (a new list) when a cell loses focus."""

    cells = param.List(default=[])

    _esm = Path(__file__).with_name("cell_grid.js")
    _stylesheets = [STYLESHEET]


class LayerList(GestureMessages, pn.custom.JSComponent):
    """Layers, front first. Drag a row to reorder; the eye and lock buttons toggle.

    The browser owns the selection, as on the canvas; each edit (toggle, reorder) comes as one
    message, handed to `on_gesture` in the page's lane (docs/editor-state.md)."""

    layers = param.List(default=[], doc="[{id, name, type, hidden, locked}] in paint order (back first)")
    selection = param.List(default=[])
    icons = param.Dict(default={}, doc="the row buttons' SVGs, from the bundled icon catalog")

    _esm = Path(__file__).with_name("layer_list.js")
    _stylesheets = [STYLESHEET]

    def __init__(self, on_gesture: Callable[[dict], None] | None = None, **params: Any) -> None:
        icons = {name: engine.icons.icon_svg(name, "#3a4456") for name in ("eye", "eye-off", "lock", "lock-open")}
        super().__init__(on_gesture=on_gesture, icons=icons, **params)
