"""The gallery's "new design" form: name, paper, orientation or custom size, in one message.

A form of Panel widgets sends each field as its own event, and Panel handles a session's
events on several threads (`pn.config.nthreads`), so a click on Create could be handled
before the name typed just before it. This component sends the whole form with the click.
"""

from __future__ import annotations

import panel as pn
import param

from engine.paper import PAPER_SIZES


class NewDesignForm(pn.custom.JSComponent):
    papers = param.List(default=[*PAPER_SIZES, "Custom"])
    submitted = param.Dict(default={}, doc="{name, paper, orientation, width, height, at} on each Create")

    _esm = """
export function render({ model, el }) {
  const form = document.createElement("form");
  form.className = "dbk-new";
  const field = (label, control, cls) => {
    const wrap = document.createElement("label");
    wrap.className = cls;
    wrap.append(label, control);
    form.append(wrap);
    return wrap;
  };
  const input = (type, value, placeholder) => {
    const node = document.createElement("input");
    node.type = type; node.value = value; node.placeholder = placeholder || "";
    return node;
  };
  const select = (options, value) => {
    const node = document.createElement("select");
    for (const option of options) node.add(new Option(option, option, false, option === value));
    return node;
  };
  const name = input("text", "", "Certificate of completion");
  const paper = select(model.papers, "A4");
  const orientation = select(["portrait", "landscape"], "portrait");
  const width = input("number", "400"), height = input("number", "250");
  field("Name", name, "dbk-new-name");
  field("Paper", paper, "dbk-new-paper");
  const turned = field("Orientation", orientation, "dbk-new-orientation");
  const sized = [field("Width (pt)", width, "dbk-new-width"), field("Height (pt)", height, "dbk-new-height")];
  const create = document.createElement("div");
  create.className = "dbk-create";
  const button = document.createElement("button");
  button.type = "submit"; button.textContent = "Create design";
  create.append(button);
  form.append(create);
  const custom = () => {
    const on = paper.value === "Custom";
    turned.hidden = on;
    for (const node of sized) node.hidden = !on;
  };
  paper.addEventListener("change", custom);
  custom();
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    model.submitted = {
      name: name.value, paper: paper.value, orientation: orientation.value,
      width: Number(width.value), height: Number(height.value), at: Date.now(),
    };
  });
  el.append(form);
}
"""

    _stylesheets = [
        """
.dbk-new { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-end; font: inherit; padding: 0 10px; }
.dbk-new label { display: flex; flex-direction: column; gap: 4px; font-size: 13px; }
.dbk-new label[hidden] { display: none; }
.dbk-new input, .dbk-new select { font: inherit; padding: 6px 8px; border: 1px solid #c8ccd2; border-radius: 4px; }
.dbk-new-name input { width: 260px; }
.dbk-new-width input, .dbk-new-height input { width: 90px; }
.dbk-create button { font: inherit; padding: 7px 14px; border: 0; border-radius: 4px; background: #0072b5;
  color: white; cursor: pointer; }
.dbk-create button:hover { background: #005a8f; }
"""
    ]
