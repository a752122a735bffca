// The boxes: one node per element over the preview, placed at the current scale. The server's
// boxes are the truth; `canvas.shown` holds where this page moved some of them, a guess kept
// until the server's boxes come back (docs/editor-state.md). Boxes are reused by id and never
// redrawn during a gesture (that would drop the pointer capture).

const HANDLES = {
  free: ["nw", "n", "ne", "e", "se", "s", "sw", "w"],
  width: ["e", "w"],
  square: ["nw", "ne", "se", "sw"],
  none: [],
};

// Pixels per point: the zoom Python set, or 0 for "fit the page into the view".
export function scale({ model, root }) {
  if (model.zoom > 0) return model.zoom;
  const room = root.clientWidth - 32;
  const tall = root.clientHeight - 32;
  if (room <= 0) return 1;
  const byWidth = room / model.page_width;
  return tall > 100 ? Math.min(byWidth, tall / model.page_height) : byWidth;
}

export function selected({ model }) {
  return new Set(model.selection);
}

export function select({ model }, ids) {
  model.selection = [...ids];
}

// A box as this page shows it: a drag started before the server's boxes come back starts
// from what the person sees.
export function boxById({ model, shown }, id) {
  return shown.get(id) || model.boxes.find((b) => b.id === id);
}

export function show(canvas, changes) {
  const s = scale(canvas);
  for (const change of changes) {
    const box = { ...boxById(canvas, change.id), ...change };
    canvas.shown.set(change.id, box);
    const node = canvas.nodes.get(change.id);
    if (node) place(node, box, s);
  }
}

// One gesture, one message, which Python turns into one action batch.
export function send({ model, root }, kind, payload) {
  root.dataset.editAt = String(performance.now());
  model.send_msg({ kind, ...payload });
}

export function place(node, box, s) {
  node.style.left = `${box.x * s}px`;
  node.style.top = `${box.y * s}px`;
  node.style.width = `${Math.max(box.w * s, 4)}px`;
  node.style.height = `${Math.max(box.h * s, 4)}px`;
}

function makeNode(canvas, box) {
  const node = document.createElement("div");
  node.className = "dbk-box";
  node.dataset.id = box.id;
  const label = document.createElement("span");
  label.className = "dbk-label";
  node.append(label);
  for (const h of HANDLES.free) {
    const handle = document.createElement("div");
    handle.className = `dbk-handle dbk-${h}`;
    handle.dataset.handle = h;
    node.append(handle);
  }
  node.addEventListener("pointerdown", (e) => canvas.pressBox(e, node));
  return node;
}

export function sync(canvas) {
  const { model, sheet, img, layer, nodes, shown } = canvas;
  if (canvas.gesture) return;
  const s = scale(canvas);
  // Python zooms in and out from the scale the page was actually fitted at.
  if (model.zoom <= 0 && Math.abs(model.fit_scale - s) > 0.001) model.fit_scale = s;
  sheet.style.width = `${model.page_width * s}px`;
  sheet.style.height = `${model.page_height * s}px`;
  if (img.getAttribute("src") !== model.image && model.image) img.src = model.image;
  const chosen = selected(canvas);
  const seen = new Set();
  for (const saved of model.boxes) {
    const box = shown.get(saved.id) || saved;
    let node = nodes.get(box.id);
    if (!node) {
      node = makeNode(canvas, box);
      nodes.set(box.id, node);
      layer.append(node);
    }
    seen.add(box.id);
    place(node, box, s);
    node.dataset.name = box.name;
    node.dataset.type = box.type;
    node.dataset.resize = box.resize;
    node.querySelector(".dbk-label").textContent = box.name;
    node.classList.toggle("selected", chosen.has(box.id));
    node.classList.toggle("only", chosen.size === 1 && chosen.has(box.id));
    node.classList.toggle("hidden-element", !!box.hidden);
    node.classList.toggle("locked", !!box.locked);
    node.classList.toggle("dbk-thin", (box.hit || "box") !== "box"); // clicks pass through (hitsAt)
    for (const handle of node.querySelectorAll(".dbk-handle")) {
      handle.style.display = HANDLES[box.locked ? "none" : box.resize].includes(handle.dataset.handle) ? "" : "none";
    }
  }
  for (const [id, node] of nodes) {
    if (!seen.has(id)) {
      node.remove();
      nodes.delete(id);
    }
  }
  // Paint order: the last box is on top, as in the PDF.
  model.boxes.forEach((box, i) => (nodes.get(box.id).style.zIndex = String(i + 1)));
}

// Counts the previews painted (`data-painted`, `data-painted-at`): tests wait on them.
export function watchPaint({ img, root }) {
  let painted = 0;
  img.addEventListener("load", () => {
    requestAnimationFrame(() => {
      painted += 1;
      root.dataset.painted = String(painted);
      root.dataset.paintedAt = String(performance.now());
    });
  });
}

// The server's boxes replace whatever this page guessed; so does its word that a gesture
// saved nothing (refused, or on locked elements).
export function watchBoxes(canvas) {
  const { model, root } = canvas;
  const reconcile = () => {
    canvas.shown.clear();
    sync(canvas);
  };
  model.on("boxes", reconcile);
  model.on("msg:custom", (msg) => msg && msg.redraw && reconcile());
  for (const name of ["selection", "image", "zoom", "page_width", "page_height"]) model.on(name, () => sync(canvas));
  new ResizeObserver(() => model.zoom > 0 || sync(canvas)).observe(root);
  sync(canvas);
}
