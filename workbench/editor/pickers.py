"""Small browser widgets the editor needs and Panel does not have: a font picker that
shows each family in its own face, an icon picker over the catalog, a table cell grid
and a layer list that reorders by drag. Plain ESM, no imports (offline).
"""

from __future__ import annotations

import base64
import io
from functools import cache
from typing import Any

import panel as pn
import param
from PIL import Image, ImageDraw, ImageFont

import engine
from engine.fonts import FONT_DIR

LIST_STYLE = """
.dbk-list { max-height: 260px; overflow-y: auto; border: 1px solid #d5dbe3; border-radius: 6px; background: white; }
.dbk-option { display: flex; align-items: center; gap: 8px; padding: 4px 8px; cursor: pointer;
  border-bottom: 1px solid #f0f2f5; }
.dbk-option:hover { background: #eef4fd; } .dbk-option.chosen { background: #dbe7f7; }
.dbk-option img { display: block; }
.dbk-icons { display: grid; grid-template-columns: repeat(6, 1fr); gap: 2px; padding: 4px; }
.dbk-icons .dbk-option { flex-direction: column; gap: 2px; font: 9px system-ui; color: #556; border: none;
  overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.dbk-icons svg { width: 26px; height: 26px; }
"""


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
    value = param.String(default="Inter")
    options = param.List(default=[], doc="[{name, image}]")

    _esm = """
export function render({ model, el }) {
  const list = document.createElement("div");
  list.className = "dbk-list dbk-fonts";
  function draw() {
    list.replaceChildren(...model.options.map((o) => {
      const row = document.createElement("div");
      row.className = "dbk-option" + (o.name === model.value ? " chosen" : "");
      row.dataset.value = o.name;
      row.title = o.name;
      const img = document.createElement("img");
      img.src = o.image; img.alt = o.name; img.style.height = "22px";
      row.append(img);
      row.addEventListener("click", () => { model.value = o.name; });
      return row;
    }));
  }
  model.on("value", draw); model.on("options", draw); draw();
  el.append(list);
}"""
    _stylesheets = [LIST_STYLE]

    @classmethod
    def catalog(cls, value: str) -> FontPicker:
        options = [{"name": e.id, "image": font_sample(e.id)} for e in engine.fonts.families()]
        return cls(value=value, options=options, sizing_mode="stretch_width")


class IconGrid(pn.custom.JSComponent):
    value = param.String(default="star")
    options = param.List(default=[], doc="[{id, svg}]")

    _esm = """
export function render({ model, el }) {
  const grid = document.createElement("div");
  grid.className = "dbk-list dbk-icons";
  function draw() {
    grid.replaceChildren(...model.options.map((o) => {
      const cell = document.createElement("div");
      cell.className = "dbk-option" + (o.id === model.value ? " chosen" : "");
      cell.dataset.value = o.id;
      cell.title = o.id;
      cell.innerHTML = o.svg;
      const label = document.createElement("span"); label.textContent = o.id; cell.append(label);
      cell.addEventListener("click", () => { model.value = o.id; });
      return cell;
    }));
  }
  model.on("value", draw); model.on("options", draw); draw();
  el.append(grid);
}"""
    _stylesheets = [LIST_STYLE]


def icon_matches(query: str, limit: int = 48) -> list[dict]:
    """Catalog icons whose id contains every word of the query (the catalog is 5,000+ icons)."""
    words = query.lower().split()
    found = [i for i in engine.icons.icon_ids() if all(w in i for w in words)][:limit]
    return [{"id": icon_id, "svg": engine.icons.icon_svg(icon_id, "#1b2330")} for icon_id in found]


def icon_picker(value: str, on_pick) -> pn.Column:  # noqa: ANN001
    search = pn.widgets.TextInput(placeholder="search 5,000+ icons…", name="Icon", value="")
    grid = IconGrid(value=value, options=icon_matches(value.split("-")[0]), sizing_mode="stretch_width")
    search.param.watch(lambda e: setattr(grid, "options", icon_matches(e.new)), "value_input")
    grid.param.watch(lambda e: on_pick(e.new), "value")
    return pn.Column(search, grid, sizing_mode="stretch_width", css_classes=["dbk-icon-picker"])


class CellGrid(pn.custom.JSComponent):
    """An editable grid of text cells; writes `cells` (a new list) when a cell loses focus."""

    cells = param.List(default=[])

    _esm = """
export function render({ model, el }) {
  const table = document.createElement("table");
  table.className = "dbk-grid";
  function draw() {
    table.replaceChildren(...model.cells.map((row, r) => {
      const tr = document.createElement("tr");
      row.forEach((value, c) => {
        const td = document.createElement("td");
        const input = document.createElement("input");
        input.value = typeof value === "string" ? value : (value && value.data && value.data.content) || "";
        input.dataset.row = r; input.dataset.col = c;
        input.addEventListener("change", () => {
          model.cells = model.cells.map((cells, i) => cells.map((v, j) => (i === r && j === c ? input.value : v)));
        });
        td.append(input); tr.append(td);
      });
      return tr;
    }));
  }
  model.on("cells", draw); draw();
  el.append(table);
}"""
    _stylesheets = [
        ".dbk-grid{border-collapse:collapse;width:100%} .dbk-grid td{border:1px solid #d5dbe3;padding:0}"
        ".dbk-grid input{width:100%;box-sizing:border-box;border:none;padding:3px 4px;font:12px system-ui}"
        ".dbk-grid tr:first-child input{font-weight:600;background:#f5f7fa}"
    ]


class LayerList(pn.custom.JSComponent):
    """Layers, front first. Drag a row to reorder; the eye and lock buttons toggle."""

    layers = param.List(default=[], doc="[{id, name, type, hidden, locked}] in paint order (back first)")
    selection = param.List(default=[])
    edit = param.Dict(default={})
    icons = param.Dict(default={}, doc="the row buttons' SVGs, from the bundled icon catalog")

    _esm = """
export function render({ model, el }) {
  const list = document.createElement("div");
  list.className = "dbk-list dbk-layers";
  let seq = 0, dragged = null;
  const send = (edit) => { seq += 1; model.edit = { seq, ...edit }; };
  function draw() {
    const count = model.layers.length;
    const front = [...model.layers].reverse();
    list.replaceChildren(...front.map((layer, shown) => {
      const row = document.createElement("div");
      row.className = "dbk-option dbk-layer" + (model.selection.includes(layer.id) ? " chosen" : "");
      row.draggable = true;
      row.dataset.id = layer.id;
      row.dataset.name = layer.name;
      const name = document.createElement("span");
      name.textContent = layer.name; name.style.flex = "1"; name.style.opacity = layer.hidden ? ".45" : "1";
      const kind = document.createElement("small"); kind.textContent = layer.type; kind.style.color = "#8a94a6";
      const eye = document.createElement("button");
      eye.className = "dbk-eye"; eye.title = layer.hidden ? "Show" : "Hide";
      eye.innerHTML = model.icons[layer.hidden ? "eye-off" : "eye"];
      const lock = document.createElement("button");
      lock.className = "dbk-lock"; lock.title = layer.locked ? "Unlock" : "Lock";
      lock.innerHTML = model.icons[layer.locked ? "lock" : "lock-open"];
      const toggle = (flag) => (e) => { e.stopPropagation(); send({ kind: "toggle", id: layer.id, flag }); };
      eye.addEventListener("click", toggle("isHidden"));
      lock.addEventListener("click", toggle("isLocked"));
      row.addEventListener("click", (e) => {
        model.selection = e.shiftKey ? [...new Set([...model.selection, layer.id])] : [layer.id];
      });
      row.addEventListener("dragstart", (e) => { dragged = layer.id; e.dataTransfer.setData("text/plain", layer.id); });
      row.addEventListener("dragover", (e) => e.preventDefault());
      row.addEventListener("drop", (e) => {
        e.preventDefault();
        if (dragged && dragged !== layer.id) send({ kind: "reorder", id: dragged, to: count - 1 - shown });
        dragged = null;
      });
      row.append(name, kind, eye, lock);
      return row;
    }));
  }
  model.on("layers", draw); model.on("selection", draw); draw();
  el.append(list);
}"""
    _stylesheets = [
        LIST_STYLE + ".dbk-layer button{border:none;background:none;cursor:pointer;padding:0 2px}"
        ".dbk-layer svg{width:16px;height:16px}"
    ]

    def __init__(self, **params: Any) -> None:
        icons = {name: engine.icons.icon_svg(name, "#3a4456") for name in ("eye", "eye-off", "lock", "lock-open")}
        super().__init__(icons=icons, **params)
