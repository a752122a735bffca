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

# A sample in each script family's own script, for the font picker (Latin families show
# their name, set in their own face).
SCRIPT_SAMPLES = {
    "Arab": "أبجد هوز",
    "Hebr": "שלום עולם",
    "Deva": "नमस्ते दुनिया",
    "Beng": "নমস্কার বিশ্ব",
    "Taml": "வணக்கம் உலகம்",
    "Thai": "สวัสดีชาวโลก",
    "Laoo": "ສະບາຍດີຊາວໂລກ",
    "Khmr": "សួស្តីពិភពលោក",
    "Mymr": "မင်္ဂလာပါ",  # "hello": "world" (ကမ္ဘာ) stacks below the sample's 52 pixels
    "Hans": "你好，世界",
    "Jpan": "こんにちは世界",
    "Kore": "안녕하세요 세계",
}
_RIGHT_TO_LEFT = {"Arab", "Hebr"}
_SAMPLE_LANGUAGE = {"Arab": "ar", "Hebr": "he", "Deva": "hi", "Beng": "bn", "Taml": "ta", "Thai": "th"}
_SAMPLE_LANGUAGE |= {"Laoo": "lo", "Khmr": "km", "Mymr": "my", "Hans": "zh-Hans", "Jpan": "ja", "Kore": "ko"}


def own_script(family: str) -> str | None:
    """The script the family is the catalog's family for (Noto Sans Arabic: Arab), or None
    for a design family (Open Sans has Hebrew letters, but Hebrew text goes to Noto)."""
    for code in engine.fonts.scripts_of(family):
        if code in SCRIPT_SAMPLES and engine.fonts.family_for_script(code) == family:
            return code
    return None


def _png(image: Image.Image) -> str:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def _regular_font(family: str, size: int = 30) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(_regular_file(family)), size)


def _regular_file(family: str) -> Path:
    entry = next(e for e in engine.fonts.families() if e.id == family)
    return FONT_DIR / entry.files[str(engine.fonts.nearest_weight(entry.weights, 400))]


@cache
def font_sample(family: str) -> str:
    """The family's name set in its own regular face, as a PNG data URL (no web fonts needed)."""
    font = _regular_font(family)
    left, top, right, bottom = font.getbbox(family)
    image = Image.new("RGBA", (right - left + 8, 44), (255, 255, 255, 0))
    ImageDraw.Draw(image).text((4 - left, 4), family, font=font, fill=(27, 35, 48, 255))
    return _png(image)


# A script sample's height and baseline, in pixels: room for the marks above Arabic, Thai and
# Devanagari letters and below Devanagari and Bengali ones, the same for every script.
SAMPLE_HEIGHT, SAMPLE_BASELINE = 52, 38


@cache
def script_sample(family: str) -> str:
    """A script family's sample in its own script (SCRIPT_SAMPLES), as a PNG data URL; ""
    for a design family. Pillow lays it out with libraqm (HarfBuzz and FriBiDi): Arabic
    joins and runs right to left, Devanagari reorders."""
    script = own_script(family)
    if script is None:
        return ""
    text, font = SCRIPT_SAMPLES[script], _regular_font(family)
    layout = {"direction": "rtl" if script in _RIGHT_TO_LEFT else "ltr", "language": _SAMPLE_LANGUAGE[script]}
    left, _, right, _ = font.getbbox(text, anchor="ls", **layout)
    image = Image.new("RGBA", (right - left + 8, SAMPLE_HEIGHT), (255, 255, 255, 0))
    draw = ImageDraw.Draw(image)
    draw.text((4 - left, SAMPLE_BASELINE), text, font=font, fill=(27, 35, 48, 255), anchor="ls", **layout)
    return _png(image)


def font_options() -> list[dict]:
    """The picker's rows: each family's name in its face, its scripts (ISO 15924) and, for a
    script family, a sample in its script. All are images drawn here: the browser is sent no
    font file (a CJK face is 5–10 MB), only a few kilobytes of PNG per family."""
    return [
        {"name": e.id, "image": font_sample(e.id), "scripts": list(e.scripts), "sample": script_sample(e.id)}
        for e in engine.fonts.families()
    ]


class FontPicker(pn.custom.JSComponent):
    value = param.String(default=DEFAULT_FAMILY)
    options = param.List(default=[], doc="[{name, image, scripts, sample}]")

    _esm = Path(__file__).with_name("font_picker.js")
    _stylesheets = [STYLESHEET]

    @classmethod
    def catalog(cls, value: str) -> FontPicker:
        return cls(value=value, options=font_options(), sizing_mode="stretch_width")


class IconGrid(pn.custom.JSComponent):
    value = param.String(default="star")
    options = param.List(default=[], doc="[{id, svg}]")

    _esm = Path(__file__).with_name("icon_grid.js")
    _stylesheets = [STYLESHEET]


def icon_matches(query: str, limit: int = 48) -> list[dict]:
    """Catalog icons whose id contains every word of the query (the catalog is 5,000+ icons)."""
    words = query.lower().split()
    found = [i for i in engine.media.icons.icon_ids() if all(w in i for w in words)][:limit]
    return [{"id": icon_id, "svg": engine.media.icons.icon_svg(icon_id, "#1b2330")} for icon_id in found]


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


class RowsGrid(pn.custom.JSComponent):
    """Row objects as an editable grid, their keys on the first line (workbench.editor.keyed_rows).
    Each edited cell comes as one message to `on_edit(row, column, text)`; the server shows the
    saved rows by assigning `cells`."""

    cells = param.List(default=[])

    _esm = Path(__file__).with_name("rows_grid.js")
    _stylesheets = [STYLESHEET]

    def __init__(self, on_edit: Callable[[int, int, str], None] | None = None, **params: Any) -> None:
        super().__init__(**params)
        self.on_edit = on_edit

    def _handle_msg(self, msg: Any) -> None:
        if isinstance(msg, dict) and self.on_edit is not None:
            row, column, text = msg.get("row"), msg.get("col"), msg.get("text")
            if isinstance(row, int) and isinstance(column, int) and isinstance(text, str):
                self.on_edit(row, column, text)


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
        icons = {name: engine.media.icons.icon_svg(name, "#3a4456") for name in ("eye", "eye-off", "lock", "lock-open")}
        super().__init__(on_gesture=on_gesture, icons=icons, **params)
