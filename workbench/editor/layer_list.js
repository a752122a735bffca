// Layers, front first. A click selects (Shift adds); drag a row to reorder; the eye and lock
// buttons toggle. Each edit is one message ({kind: "toggle" | "reorder", ...}), as on the canvas.
export function render({ model, el }) {
  const list = document.createElement("div");
  list.className = "dbk-list dbk-layers";
  let dragged = null;
  const send = (edit) => model.send_msg(edit);
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
      name.textContent = layer.name; name.title = layer.name; name.style.flex = "1"; name.style.opacity = layer.hidden ? ".45" : "1";
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
}
