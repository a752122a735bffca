// The page canvas: the engine's PNG preview under interactive element boxes.
// Plain ESM, no imports: the workbench must work offline. Boxes are reused by id and
// never redrawn during a drag (that would drop the pointer capture). Each gesture is sent
// once, on pointerup or keydown, as one message that Python turns into an action batch;
// the server's boxes are the truth, and what this page shows before they come back is only
// a guess (docs/editor-state.md).

const HANDLES = {
  free: ["nw", "n", "ne", "e", "se", "s", "sw", "w"],
  width: ["e", "w"],
  square: ["nw", "ne", "se", "sw"],
  none: [],
};
const SNAP_PX = 6;
const HIT_PX = 6; // how near an outline or a line a click must land to hit it, in screen pixels
const DRAG_PX = 3; // a press that moves less than this is a click
const SPRITE_PAD_PT = 2; // a dragged element's pixels reach a little past its box (strokes, glyphs)

export function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "dbk-canvas";
  root.tabIndex = 0;
  const sheet = document.createElement("div");
  sheet.className = "dbk-sheet";
  const img = document.createElement("img");
  img.className = "dbk-preview";
  img.alt = "page preview";
  img.draggable = false;
  const layer = document.createElement("div");
  layer.className = "dbk-boxes";
  const band = document.createElement("div");
  band.className = "dbk-band";
  sheet.append(img, layer, band);
  root.append(sheet);
  el.append(root);

  const nodes = new Map();
  const guides = [];
  let gesture = null; // {kind: "move"|"resize"|"band", ...}
  let clipboard = [];
  let painted = 0;

  const scale = () => {
    if (model.zoom > 0) return model.zoom;
    const room = root.clientWidth - 32;
    const tall = root.clientHeight - 32;
    if (room <= 0) return 1;
    const byWidth = room / model.page_width;
    return tall > 100 ? Math.min(byWidth, tall / model.page_height) : byWidth;
  };
  const selected = () => new Set(model.selection);
  // Boxes shown where this page moved them, until the server's boxes come back: a drag
  // started meanwhile starts from what the person sees.
  const shown = new Map();
  const boxById = (id) => shown.get(id) || model.boxes.find((b) => b.id === id);
  function show(changes) {
    const s = scale();
    for (const change of changes) {
      const box = { ...boxById(change.id), ...change };
      shown.set(change.id, box);
      const node = nodes.get(change.id);
      if (node) place(node, box, s);
    }
  }

  function send(kind, payload) {
    root.dataset.editAt = String(performance.now());
    model.send_msg({ kind, ...payload });
  }
  function select(ids) {
    model.selection = [...ids];
  }

  img.addEventListener("load", () => {
    requestAnimationFrame(() => {
      painted += 1;
      root.dataset.painted = String(painted);
      root.dataset.paintedAt = String(performance.now());
    });
  });

  function place(node, box, s) {
    node.style.left = `${box.x * s}px`;
    node.style.top = `${box.y * s}px`;
    node.style.width = `${Math.max(box.w * s, 4)}px`;
    node.style.height = `${Math.max(box.h * s, 4)}px`;
  }

  function makeNode(box) {
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
    node.addEventListener("pointerdown", (e) => pressBox(e, node));
    return node;
  }

  function sync() {
    if (gesture) return;
    const s = scale();
    // Python zooms in and out from the scale the page was actually fitted at.
    if (model.zoom <= 0 && Math.abs(model.fit_scale - s) > 0.001) model.fit_scale = s;
    sheet.style.width = `${model.page_width * s}px`;
    sheet.style.height = `${model.page_height * s}px`;
    if (img.getAttribute("src") !== model.image && model.image) img.src = model.image;
    const chosen = selected();
    const seen = new Set();
    for (const saved of model.boxes) {
      const box = shown.get(saved.id) || saved;
      let node = nodes.get(box.id);
      if (!node) {
        node = makeNode(box);
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

  function clearGuides() {
    while (guides.length) guides.pop().remove();
  }
  function guide(axis, at, s) {
    const line = document.createElement("div");
    line.className = `dbk-guide dbk-guide-${axis}`;
    if (axis === "v") line.style.left = `${at * s}px`;
    else line.style.top = `${at * s}px`;
    sheet.append(line);
    guides.push(line);
  }

  // Snap a moving rectangle's edges and centre to the page and to other elements.
  function snap(rect, skip, s) {
    const xs = [0, model.page_width / 2, model.page_width];
    const ys = [0, model.page_height / 2, model.page_height];
    for (const b of model.boxes) {
      if (skip.has(b.id) || b.hidden) continue;
      xs.push(b.x, b.x + b.w / 2, b.x + b.w);
      ys.push(b.y, b.y + b.h / 2, b.y + b.h);
    }
    const limit = SNAP_PX / s;
    const best = (edges, targets) => {
      let found = null;
      for (const [offset, edge] of edges) {
        for (const t of targets) {
          const d = t - edge;
          if (Math.abs(d) <= limit && (!found || Math.abs(d) < Math.abs(found.d))) found = { d, at: t, offset };
        }
      }
      return found;
    };
    const fx = best([[0, rect.x], [rect.w / 2, rect.x + rect.w / 2], [rect.w, rect.x + rect.w]], xs);
    const fy = best([[0, rect.y], [rect.h / 2, rect.y + rect.h / 2], [rect.h, rect.y + rect.h]], ys);
    clearGuides();
    if (fx) guide("v", fx.at, s);
    if (fy) guide("h", fy.at, s);
    return { dx: fx ? fx.d : 0, dy: fy ? fy.d : 0 };
  }

  function startOnBox(e, node, stack = [node.dataset.id]) {
    if (e.button !== 0) return;
    e.preventDefault();
    e.stopPropagation();
    root.focus({ preventScroll: true });
    const id = node.dataset.id;
    const chosen = selected();
    const before = [...chosen];
    const handle = e.target.dataset ? e.target.dataset.handle : undefined;
    if (e.shiftKey && !handle) { // Shift on a handle resizes keeping (or freeing) the aspect ratio
      chosen.has(id) ? chosen.delete(id) : chosen.add(id);
      select(chosen);
      return;
    }
    // Alt-click selects on release (the next element below); only a press that becomes a drag
    // selects what it drags, when it starts to move.
    const deferred = e.altKey && !handle && !chosen.has(id);
    if (!chosen.has(id)) {
      chosen.clear();
      chosen.add(id);
      if (!deferred) select(chosen);
    }
    const moving = [...chosen].map(boxById).filter((b) => b && !b.locked);
    // Captured by whoever got the event: the box, or the sheet for a box that clicks pass through.
    e.currentTarget.setPointerCapture(e.pointerId);
    gesture = {
      kind: handle ? "resize" : "move",
      handle,
      node,
      startX: e.clientX,
      startY: e.clientY,
      boxes: handle ? [boxById(id)].filter((b) => b && !b.locked) : moving,
      result: null,
      moved: false,
      stack: handle ? null : stack,
      before,
      alt: e.altKey,
      selectOnDrag: deferred ? [id] : null,
    };
    if (!gesture.boxes.length && !gesture.alt) gesture = null;
  }

  function moveGesture(e) {
    if (!gesture.boxes.length) return; // an Alt-click on locked elements: it only selects
    if (!gesture.moved) {
      if (Math.hypot(e.clientX - gesture.startX, e.clientY - gesture.startY) < DRAG_PX) return;
      gesture.moved = true;
      if (gesture.selectOnDrag) select(gesture.selectOnDrag);
      liftStart(gesture);
    }
    const s = scale();
    const dx = (e.clientX - gesture.startX) / s;
    const dy = (e.clientY - gesture.startY) / s;
    if (gesture.kind === "move") {
      const xs = gesture.boxes.map((b) => b.x), ys = gesture.boxes.map((b) => b.y);
      const group = {
        x: Math.min(...xs) + dx,
        y: Math.min(...ys) + dy,
        w: Math.max(...gesture.boxes.map((b) => b.x + b.w)) - Math.min(...xs),
        h: Math.max(...gesture.boxes.map((b) => b.y + b.h)) - Math.min(...ys),
      };
      const fix = e.altKey ? { dx: 0, dy: 0 } : snap(group, new Set(gesture.boxes.map((b) => b.id)), s);
      gesture.result = gesture.boxes.map((b) => ({ id: b.id, x: b.x + dx + fix.dx, y: b.y + dy + fix.dy, w: b.w, h: b.h }));
    } else {
      const b = gesture.boxes[0];
      const h = gesture.handle;
      let { x, y, w, h: height } = b;
      if (h.includes("e")) w = b.w + dx;
      if (h.includes("w")) { w = b.w - dx; x = b.x + dx; }
      if (h.includes("s")) height = b.h + dy;
      if (h.includes("n")) { height = b.h - dy; y = b.y + dy; }
      if (b.resize === "square") {
        const side = Math.max(w, height);
        if (h.includes("w")) x = b.x + b.w - side;
        if (h.includes("n")) y = b.y + b.h - side;
        w = height = side;
      }
      if (b.resize === "width") { height = b.h; y = b.y; }
      if (b.resize === "free" && h.length === 2 && !!b.keeps_aspect !== e.shiftKey && b.w > 0 && b.h > 0) {
        // A corner keeps the width-to-height ratio: pictures unless Shift is held, others with it.
        const kx = w / b.w, ky = height / b.h;
        const k = Math.max(Math.abs(kx - 1) > Math.abs(ky - 1) ? kx : ky, 4 / Math.min(b.w, b.h));
        w = b.w * k;
        height = b.h * k;
        x = h.includes("w") ? b.x + b.w - w : b.x;
        y = h.includes("n") ? b.y + b.h - height : b.y;
      }
      w = Math.max(w, 4);
      height = Math.max(height, 4);
      gesture.result = [{ id: b.id, x, y, w, h: height }];
    }
    for (const r of gesture.result) place(nodes.get(r.id), r, s);
    liftFollow(gesture, s);
  }

  function endGesture() {
    const done = gesture;
    gesture = null;
    clearGuides();
    if (done.kind === "band") {
      band.style.display = "none";
      const r = done.rect;
      if (r) {
        const hits = model.boxes.filter((b) => b.x < r.x + r.w && b.x + b.w > r.x && b.y < r.y + r.h && b.y + b.h > r.y);
        select(hits.map((b) => b.id));
      } else {
        select([]);
      }
      return;
    }
    if (readout) readout.style.display = "none";
    if (done.result) {
      // The boxes stay where they were dropped until the saved tree comes back.
      const round = (v) => Math.round(v * 100) / 100;
      const changes = done.result.map((r) => ({ id: r.id, x: round(r.x), y: round(r.y), w: round(r.w), h: round(r.h) }));
      show(changes);
      send(done.kind === "move" ? "move" : "resize", { changes });
      liftDropped();
    } else {
      endLift();
      if (done.stack) pickOnClick(done);
      sync();
    }
  }

  // -- Hit testing: each element is hit where its type says (box.hit, ElementType.hit_area): an
  // unfilled shape only near its outline, so a page border drawn last takes no click inside it.
  function hitsAt(clientX, clientY) {
    const r = sheet.getBoundingClientRect();
    const s = scale();
    const px = clientX - r.left, py = clientY - r.top;
    const stack = [];
    for (let i = model.boxes.length - 1; i >= 0; i--) {
      const box = boxById(model.boxes[i].id);
      if (box && hits(box, px, py, s)) stack.push(box.id);
    }
    return stack; // topmost first
  }
  function hits(box, px, py, s) {
    // As the box is drawn (place): at least 4 px each way.
    const x = box.x * s, y = box.y * s, w = Math.max(box.w * s, 4), h = Math.max(box.h * s, 4);
    const near = HIT_PX;
    const inside = (grow) => px >= x - grow && px <= x + w + grow && py >= y - grow && py <= y + h + grow;
    const area = box.hit || "box";
    if (area === "box") return inside(0);
    if (!inside(near)) return false;
    if (area === "stroke") return w <= 2 * near || h <= 2 * near || !inside(-near);
    if (area === "line") {
      const x2 = (box.x + box.w) * s, y2 = (box.y + box.h) * s;
      const dx = x2 - x, dy = y2 - y, length2 = dx * dx + dy * dy;
      const t = length2 ? Math.max(0, Math.min(1, ((px - x) * dx + (py - y) * dy) / length2)) : 0;
      return Math.hypot(px - (x + t * dx), py - (y + t * dy)) <= near;
    }
    if (area === "ellipse") {
      const a = w / 2, b = h / 2, cx = px - (x + a), cy = py - (y + b);
      if (a <= near || b <= near) return true;
      // Distance to the outline, to first order: |f| / |grad f| for f = (cx/a)² + (cy/b)² - 1.
      const f = (cx * cx) / (a * a) + (cy * cy) / (b * b) - 1;
      const grad = Math.hypot((2 * cx) / (a * a), (2 * cy) / (b * b));
      return grad > 0 && Math.abs(f) / grad <= near;
    }
    return inside(0);
  }
  // A press on a box: its handles resize it; elsewhere the element hit at the point is pressed
  // (a selected one first, so a selection is dragged even under another element), and a spot
  // where nothing is hit starts a band.
  function pressBox(e, node) {
    if (e.button !== 0) return;
    if (e.target.dataset && e.target.dataset.handle) return startOnBox(e, node);
    if (!pressAt(e)) {
      e.stopPropagation();
      startBand(e);
    }
  }
  function pressAt(e) {
    const stack = hitsAt(e.clientX, e.clientY);
    if (!stack.length) return false;
    const chosen = selected();
    const id = e.shiftKey ? stack[0] : stack.find((i) => chosen.has(i)) || stack[0];
    startOnBox(e, nodes.get(id), stack);
    return true;
  }
  // A click (no drag): Alt selects the next element below the one selected at that point
  // (round the stack); a plain click selects the topmost, if a selection underneath was pressed.
  function pickOnClick(done) {
    const stack = done.stack;
    if (done.alt) {
      const at = stack.findIndex((i) => done.before.includes(i));
      select([stack[(at + 1) % stack.length]]);
    } else if (!selected().has(stack[0])) {
      select([stack[0]]);
    }
  }

  // -- Live drags: the dragged elements' own pixels (sprites cut from the preview) move with the
  // pointer, over the page without them once the editor sends it ("lift" → `under`), until the
  // saved tree's preview is painted. A lift saves nothing and costs no credit (a free preview).
  let lift = null; // {key, sprites: Map(id -> {el, from}), dropped: the preview's src at the drop}
  let under = null, spriteLayer = null, readout = null; // made at the first drag
  function liftLayers() {
    if (under) return;
    under = document.createElement("img");
    under.className = "dbk-under";
    under.alt = "";
    under.draggable = false;
    spriteLayer = document.createElement("div");
    spriteLayer.className = "dbk-sprites";
    readout = document.createElement("div");
    readout.className = "dbk-readout";
    sheet.insertBefore(under, layer);
    sheet.insertBefore(spriteLayer, layer);
    sheet.append(readout);
  }
  function liftStart(g) {
    liftLayers();
    const visible = g.boxes.filter((b) => !b.hidden);
    const key = visible.map((b) => b.id).join(",");
    // The same elements again before the last drop's preview came: they keep their pixels.
    if (lift && lift.key === key) {
      lift.dropped = null;
      return;
    }
    endLift();
    if (!visible.length) return;
    const source = img.getAttribute("src");
    lift = { key, sprites: new Map(), dropped: null };
    for (const b of visible) {
      const el = document.createElement("div");
      el.className = "dbk-sprite";
      if (source) el.style.backgroundImage = `url("${source}")`;
      spriteLayer.append(el);
      lift.sprites.set(b.id, { el, from: { ...b } });
    }
    model.send_msg({ kind: "lift", ids: visible.map((b) => b.id) }); // not an edit: editAt stays
  }
  function liftFollow(g, s) {
    if (lift) {
      for (const r of g.result) {
        const sprite = lift.sprites.get(r.id);
        if (sprite) placeSprite(sprite, r, s);
      }
    }
    const xs = g.result.map((r) => r.x), ys = g.result.map((r) => r.y);
    const rect = {
      x: Math.min(...xs),
      y: Math.min(...ys),
      w: Math.max(...g.result.map((r) => r.x + r.w)) - Math.min(...xs),
      h: Math.max(...g.result.map((r) => r.y + r.h)) - Math.min(...ys),
    };
    showReadout(rect, g.kind === "resize", s);
  }
  function placeSprite({ el, from }, box, s) {
    // Raster point P lands at box.x + (P - from.x) * k: the pixels stretch with a resize.
    const kx = from.w > 0 ? box.w / from.w : 1, ky = from.h > 0 ? box.h / from.h : 1;
    const padX = SPRITE_PAD_PT * kx, padY = SPRITE_PAD_PT * ky;
    el.style.left = `${(box.x - padX) * s}px`;
    el.style.top = `${(box.y - padY) * s}px`;
    el.style.width = `${(box.w + 2 * padX) * s}px`;
    el.style.height = `${(box.h + 2 * padY) * s}px`;
    el.style.backgroundSize = `${model.page_width * s * kx}px ${model.page_height * s * ky}px`;
    el.style.backgroundPosition = `${(SPRITE_PAD_PT - from.x) * kx * s}px ${(SPRITE_PAD_PT - from.y) * ky * s}px`;
  }
  function showReadout(rect, resizing, s) {
    const pt = (v) => (Math.round(v * 10) / 10).toFixed(1);
    const parts = [`x ${pt(rect.x)}`, `y ${pt(rect.y)}`];
    if (resizing) parts.push(`w ${pt(rect.w)}`, `h ${pt(rect.h)}`);
    readout.textContent = `${parts.join(" · ")} pt`;
    const below = (rect.y + rect.h) * s + 6;
    readout.style.left = `${Math.max(0, rect.x * s)}px`;
    readout.style.top = `${below + 22 < model.page_height * s ? below : Math.max(0, rect.y * s - 44)}px`;
    readout.style.display = "block";
  }
  function liftDropped() {
    if (lift) lift.dropped = img.getAttribute("src") || "";
  }
  function endLift() {
    if (!lift) return;
    for (const { el } of lift.sprites.values()) el.remove();
    under.style.display = "none";
    under.removeAttribute("src");
    lift = null;
  }
  model.on("msg:custom", (msg) => {
    if (!msg) return;
    if (msg.redraw) endLift(); // nothing was saved: the elements are back where they were
    if (msg.under && lift && (msg.ids || []).join(",") === lift.key) {
      under.src = msg.under;
      under.style.display = "block";
    }
  });
  // After a drop the pixels stay until the saved tree's preview is painted; a save that leaves
  // the picture as it was (a hidden element) brings no new picture to wait for.
  img.addEventListener("load", () => {
    const waiting = lift;
    if (waiting && waiting.dropped !== null && img.getAttribute("src") !== waiting.dropped) {
      requestAnimationFrame(() => lift === waiting && waiting.dropped !== null && endLift());
    }
  });
  model.on("boxes", () => {
    const waiting = lift;
    requestAnimationFrame(() => {
      if (lift === waiting && waiting && waiting.dropped === img.getAttribute("src") && !gesture) endLift();
    });
  });
  for (const name of ["zoom", "page_width", "page_height"]) model.on(name, () => gesture || endLift());

  sheet.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 || e.target.closest(".dbk-box")) return;
    if (pressAt(e)) return; // on the outline of a shape whose inside clicks pass through
    startBand(e);
  });
  function startBand(e) {
    e.preventDefault();
    root.focus({ preventScroll: true });
    sheet.setPointerCapture(e.pointerId);
    const r = sheet.getBoundingClientRect();
    gesture = { kind: "band", originX: e.clientX - r.left, originY: e.clientY - r.top, rect: null };
  }
  const onMove = (e) => {
    if (!gesture) return;
    if (gesture.kind === "band") {
      const r = sheet.getBoundingClientRect();
      const s = scale();
      const x1 = Math.min(gesture.originX, e.clientX - r.left), y1 = Math.min(gesture.originY, e.clientY - r.top);
      const x2 = Math.max(gesture.originX, e.clientX - r.left), y2 = Math.max(gesture.originY, e.clientY - r.top);
      Object.assign(band.style, { display: "block", left: `${x1}px`, top: `${y1}px`, width: `${x2 - x1}px`, height: `${y2 - y1}px` });
      gesture.rect = x2 - x1 > 3 || y2 - y1 > 3 ? { x: x1 / s, y: y1 / s, w: (x2 - x1) / s, h: (y2 - y1) / s } : null;
      return;
    }
    moveGesture(e);
  };
  const onUp = () => gesture && endGesture();
  // Boxes sit inside the sheet, so their captured pointer events bubble here too.
  sheet.addEventListener("pointermove", onMove);
  sheet.addEventListener("pointerup", onUp);
  sheet.addEventListener("pointercancel", onUp);

  root.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest(".dbk-text-edit")) return; // typing, not shortcuts
    const mod = e.ctrlKey || e.metaKey;
    const ids = [...selected()];
    const step = e.shiftKey ? 10 : 1;
    const arrows = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (arrows[e.key] && ids.length) {
      const [dx, dy] = arrows[e.key];
      const moving = ids.map(boxById).filter((b) => b && !b.locked);
      if (moving.length) {
        // A nudge is relative: the server moves the saved element, so quick presses add up
        // whatever this page was showing when each was pressed.
        show(moving.map((b) => ({ id: b.id, x: b.x + dx, y: b.y + dy })));
        send("nudge", { ids: moving.map((b) => b.id), dx, dy });
      }
    } else if ((e.key === "Delete" || e.key === "Backspace") && ids.length) {
      send("delete", { ids });
    } else if (mod && e.key.toLowerCase() === "c" && ids.length) {
      clipboard = ids; // kept here: a paste then carries what it copies in one message
    } else if (mod && e.key.toLowerCase() === "v") {
      send("paste", { ids: clipboard });
    } else if (mod && e.key.toLowerCase() === "z") {
      send(e.shiftKey ? "redo" : "undo", {});
    } else if (mod && e.key.toLowerCase() === "y") {
      send("redo", {});
    } else if (mod && e.key.toLowerCase() === "a") {
      select(model.boxes.map((b) => b.id));
    } else if (mod && e.key.toLowerCase() === "d" && ids.length) {
      send("duplicate", { ids });
    } else if (arrangeKey(e) && ids.length) {
      const { kind, payload } = arrangeKey(e);
      send(kind, { ids, ...payload });
    } else if (e.key === "Escape") {
      select([]);
    } else {
      return;
    }
    e.preventDefault();
  });

  // The server's boxes replace whatever this page guessed; so does its word that a gesture
  // saved nothing (refused, or on locked elements).
  const reconcile = () => {
    shown.clear();
    sync();
  };
  model.on("boxes", reconcile);
  model.on("msg:custom", (msg) => msg && msg.redraw && reconcile());
  for (const name of ["selection", "image", "zoom", "page_width", "page_height"]) model.on(name, sync);
  new ResizeObserver(() => model.zoom > 0 || sync()).observe(root);
  sync();

  layer.addEventListener("dblclick", (e) => {
    const node = e.target.closest(".dbk-box");
    if (node) editText(node.dataset.id);
  });
  watchViewCentre();
  const facesAsked = new Set();
  let refitText = null; // the open overlay's fit(), to run again once its face has loaded
  model.on("msg:custom", (msg) => msg && msg.face && addFace(msg.face));

  // Text typed in place: an overlay at the element's box, in its face (when the page has it,
  // else the generic family of its class), size, colour and alignment at the current zoom.
  // Enter or leaving it saves the text as one edit (one undo step); Escape drops it;
  // Shift+Enter is a new line. What it edits, and whether, is the type's declaration
  // (`inline_text` in each box): the raw text, placeholders and markup as written.
  function editText(id) {
    const box = boxById(id);
    const inline = box && box.inline_text;
    if (!inline || sheet.querySelector(".dbk-text-edit")) return;
    const s = scale();
    const area = document.createElement("textarea");
    area.className = "dbk-text-edit";
    area.dataset.id = id;
    area.spellcheck = false;
    // Typed right to left where the text is: dir="auto" finds each paragraph's direction from
    // its first strong character, as the engine does; start/end align follows it (CSS's own).
    area.dir = inline.direction || "auto";
    area.value = inline.text;
    Object.assign(area.style, {
      left: `${box.x * s}px`,
      top: `${box.y * s}px`,
      width: `${Math.max(box.w * s, 24)}px`,
      fontFamily: inline.font_family,
      fontSize: `${inline.font_size * s}px`,
      fontWeight: String(inline.font_weight),
      fontStyle: inline.italic ? "italic" : "normal",
      textDecoration: inline.underline ? "underline" : "none",
      color: inline.color,
      textAlign: inline.align,
      lineHeight: String(inline.line_height),
      whiteSpace: inline.wraps ? "pre-wrap" : "pre",
      background: lightInk(inline.color) ? "rgba(40, 46, 58, 0.94)" : "rgba(255, 255, 255, 0.94)",
    });
    const fit = () => {
      // Grow with the text: down always; sideways too when the box hugs its text.
      area.style.height = "0px";
      area.style.height = `${Math.max(area.scrollHeight, box.h * s)}px`;
      if (!inline.wraps) {
        area.style.width = "0px";
        area.style.width = `${Math.max(area.scrollWidth + 2, box.w * s, 24)}px`;
      }
    };
    let finished = false;
    // `back`: the keys go to the canvas again (Enter, Escape); after a click elsewhere they
    // stay where the click put them.
    const finish = (save, back) => {
      if (finished) return;
      finished = true;
      const text = area.value;
      refitText = null;
      if (back) root.focus({ preventScroll: true });
      area.remove();
      if (save && text !== inline.text) send("edit_text", { id, text });
    };
    askFace(inline);
    refitText = fit;
    area.addEventListener("input", fit);
    area.addEventListener("keydown", (e) => {
      e.stopPropagation(); // the canvas's shortcuts (Delete, arrows, Ctrl+Z…) are not for typing
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        finish(true, true);
      } else if (e.key === "Escape") {
        e.preventDefault();
        finish(false, true);
      }
    });
    area.addEventListener("blur", () => finish(true, false));
    // A click inside places the caret; it starts no band or drag on the sheet.
    area.addEventListener("pointerdown", (e) => e.stopPropagation());
    sheet.append(area);
    fit();
    area.focus({ preventScroll: true });
    area.select();
  }

  // The element's own face, from the server once per page (the generic family shows until then).
  function askFace(inline) {
    const key = `${inline.family}|${inline.font_weight}|${inline.italic}`;
    if (facesAsked.has(key)) return;
    facesAsked.add(key);
    model.send_msg({ kind: "face", family: inline.family, weight: inline.font_weight, italic: inline.italic });
  }
  function addFace(face) {
    // From bytes, not a URL: the page's CSP fetches no font, and a notebook has no URL to give.
    const bytes = Uint8Array.from(atob(face.data), (c) => c.charCodeAt(0));
    const style = face.italic ? "italic" : "normal";
    new FontFace(face.family, bytes, { weight: String(face.weight), style })
      .load()
      .then((loaded) => {
        document.fonts.add(loaded);
        if (refitText) refitText();
      })
      .catch(() => {}); // a face the browser cannot read: the generic family stays
  }

  // White text is typed on a dark ground, dark text on a light one: the overlay hides the
  // preview's pixels of the old text, whatever the page's background.
  function lightInk(hex) {
    const long = hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join("")}` : hex; // #rgb
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(long.slice(i, i + 2), 16) / 255);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.6;
  }

  // The middle of the page's visible part, in points, for Python to place new elements there:
  // view state like the zoom, written when scrolling, zooming or resizing changes it.
  function watchViewCentre() {
    let queued = false;
    const measure = () => {
      queued = false;
      const s = scale();
      const view = root.getBoundingClientRect();
      const page = sheet.getBoundingClientRect();
      if (!view.width || !page.width || s <= 0) return;
      const clamp = (v, most) => Math.round(Math.min(Math.max(v, 0), most));
      const x = clamp((view.left + view.width / 2 - page.left) / s, model.page_width);
      const y = clamp((view.top + view.height / 2 - page.top) / s, model.page_height);
      const [oldX, oldY] = model.view_centre || [];
      if (x === oldX && y === oldY) return;
      model.view_centre = [x, y];
      root.dataset.viewCentre = `${x},${y}`; // what the page told Python last (tests wait on it)
    };
    const later = () => {
      if (!queued) {
        queued = true;
        requestAnimationFrame(measure);
      }
    };
    root.addEventListener("scroll", later, { passive: true });
    for (const name of ["zoom", "page_width", "page_height"]) model.on(name, later);
    new ResizeObserver(later).observe(root);
    later();
  }
  // -- Arranging (issue 14): align keys, a context menu, Ctrl+wheel zoom, rulers ----------
  // `el` holds the menu and the rulers beside the scrolling root, so they stay put as it scrolls.
  el.style.position = "relative";

  // Alt+letter aligns (as in Figma: A H D left/centre/right, W V S top/middle/bottom), and
  // Alt+Shift+H / V distribute. Physical keys: Alt+A types "å" on a Mac keyboard.
  function arrangeKey(e) {
    if (!e.altKey || e.ctrlKey || e.metaKey) return null;
    const letter = e.code.replace(/^Key/, "");
    if (e.shiftKey) {
      const axis = { H: "horizontal", V: "vertical" }[letter];
      return axis ? { kind: "distribute", payload: { axis } } : null;
    }
    const how = { A: "left", H: "centre", D: "right", W: "top", V: "middle", S: "bottom" }[letter];
    return how ? { kind: "align", payload: { how } } : null;
  }

  // The element under a pointer event: its box, or (should boxes stop taking events) the
  // topmost saved box at that point, the last in paint order.
  function elementAt(e) {
    const node = e.target.closest ? e.target.closest(".dbk-box") : null;
    if (node && node.dataset.id) return node.dataset.id;
    const r = sheet.getBoundingClientRect();
    const s = scale();
    const x = (e.clientX - r.left) / s, y = (e.clientY - r.top) / s;
    const hit = [...model.boxes].reverse().find((b) => {
      const box = boxById(b.id);
      return x >= box.x && x <= box.x + box.w && y >= box.y && y <= box.y + box.h;
    });
    return hit ? hit.id : null;
  }

  // The context menu: each item is one message, which Python saves as one batch.
  const menu = document.createElement("div");
  menu.className = "dbk-menu";
  menu.setAttribute("role", "menu");
  menu.style.display = "none";
  el.append(menu);
  const menuOpen = () => menu.style.display !== "none";
  function closeMenu() {
    if (!menuOpen()) return;
    const hadFocus = menu.contains(document.activeElement) || menu.contains(el.getRootNode().activeElement);
    menu.style.display = "none";
    if (hadFocus) root.focus({ preventScroll: true });
  }
  function openMenu(e, id) {
    const chosen = selected();
    if (!chosen.has(id)) {
      // A right-click on an element outside the selection acts on that element alone.
      chosen.clear();
      chosen.add(id);
      select(chosen);
    }
    const ids = [...chosen];
    const locked = ids.every((i) => (boxById(i) || {}).locked);
    const items = [
      ["Bring to front", "dbk-menu-front", "order", { ids, to: "front" }],
      ["Send to back", "dbk-menu-back", "order", { ids, to: "back" }],
      ["Duplicate", "dbk-menu-duplicate", "duplicate", { ids }],
      ["Delete", "dbk-menu-delete", "delete", { ids }],
      [locked ? "Unlock" : "Lock", "dbk-menu-lock", "lock", { ids, locked: !locked }],
    ];
    menu.replaceChildren(
      ...items.map(([label, css, kind, payload]) => {
        const item = document.createElement("button");
        item.type = "button";
        item.className = `dbk-menu-item ${css}`;
        item.setAttribute("role", "menuitem");
        item.textContent = label;
        item.addEventListener("click", () => {
          closeMenu();
          send(kind, payload);
        });
        return item;
      })
    );
    const area = el.getBoundingClientRect();
    menu.style.display = "";
    // Kept inside the editor's area, however near its edge the click was.
    const left = Math.min(e.clientX - area.left, el.clientWidth - menu.offsetWidth - 4);
    const top = Math.min(e.clientY - area.top, el.clientHeight - menu.offsetHeight - 4);
    menu.style.left = `${Math.max(left, 0)}px`;
    menu.style.top = `${Math.max(top, 0)}px`;
    menu.querySelector("button").focus({ preventScroll: true });
  }
  root.addEventListener("contextmenu", (e) => {
    const id = elementAt(e);
    if (!id) {
      closeMenu();
      return; // the browser's own menu elsewhere
    }
    e.preventDefault();
    openMenu(e, id);
  });
  menu.addEventListener("keydown", (e) => {
    const items = [...menu.querySelectorAll("button")];
    const at = items.indexOf(el.getRootNode().activeElement);
    if (e.key === "Escape") closeMenu();
    else if (e.key === "ArrowDown") items[(at + 1) % items.length].focus();
    else if (e.key === "ArrowUp") items[(at - 1 + items.length) % items.length].focus();
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
  const closeOutside = (e) => {
    if (!menu.isConnected) return window.removeEventListener("pointerdown", closeOutside, true);
    if (menuOpen() && !e.composedPath().includes(menu)) closeMenu();
  };
  window.addEventListener("pointerdown", closeOutside, true);

  // Ctrl+wheel (and a trackpad's pinch, which Chromium sends as one) zooms around the
  // pointer: the point under it stays put, by scrolling the view, along each axis on which the
  // page is larger than the view (a smaller page stays centred, whole). A plain wheel scrolls.
  function zoomAround(clientX, clientY, factor) {
    const before = scale();
    const after = Math.max(0.2, Math.min(6, before * factor)); // the bounds of Python's zoom buttons
    if (Math.abs(after - before) < 1e-4) return;
    const r = sheet.getBoundingClientRect();
    const at = { x: (clientX - r.left) / before, y: (clientY - r.top) / before }; // in points
    model.zoom = after;
    sync();
    const moved = sheet.getBoundingClientRect();
    root.scrollLeft += moved.left + at.x * after - clientX;
    root.scrollTop += moved.top + at.y * after - clientY;
    drawRulers();
  }
  root.addEventListener(
    "wheel",
    (e) => {
      if (!(e.ctrlKey || e.metaKey) || gesture) return;
      e.preventDefault(); // not the browser's page zoom
      closeMenu();
      const lines = e.deltaMode === 1 ? 33 : 1; // a line is about 33 px
      zoomAround(e.clientX, e.clientY, Math.exp(-e.deltaY * lines * 0.0015));
    },
    { passive: false }
  );

  // Rulers along the top and the left of the view, in points from the sheet's corner. They
  // overlay the root's padding, take no pointer events, and slide with the scroll.
  const RULER_PX = 16;
  const ruler = (side) => {
    const bar = document.createElement("div");
    bar.className = `dbk-ruler dbk-ruler-${side}`;
    const track = document.createElement("div");
    track.className = "dbk-ruler-track";
    const marker = document.createElement("div");
    marker.className = "dbk-ruler-pointer";
    bar.append(track, marker);
    el.append(bar);
    return { bar, track, marker };
  };
  const rulers = { top: ruler("top"), left: ruler("left") };
  const corner = document.createElement("div");
  corner.className = "dbk-ruler-corner";
  el.append(corner);
  let rulersDrawnFor = "";

  function rulerTicks(track, length, s, horizontal) {
    const minor = [10, 50, 100].find((step) => step * s >= 5) || 100;
    const major = [50, 100, 200, 500, 1000].find((step) => step % minor === 0 && step * s >= 45) || 1000;
    const ticks = document.createDocumentFragment();
    for (let pt = 0; pt <= length + 0.01; pt += minor) {
      const tick = document.createElement("div");
      tick.className = pt % major === 0 ? "dbk-tick major" : "dbk-tick";
      tick.style[horizontal ? "left" : "top"] = `${pt * s}px`;
      if (pt % major === 0) {
        const label = document.createElement("span");
        label.className = "dbk-ruler-label";
        label.textContent = String(pt);
        tick.append(label);
      }
      ticks.append(tick);
    }
    track.replaceChildren(ticks);
  }

  function drawRulers() {
    const s = scale();
    const drawnFor = `${s}|${model.page_width}|${model.page_height}`;
    if (drawnFor !== rulersDrawnFor) {
      rulersDrawnFor = drawnFor;
      rulerTicks(rulers.top.track, model.page_width, s, true);
      rulerTicks(rulers.left.track, model.page_height, s, false);
    }
    const area = el.getBoundingClientRect(), view = root.getBoundingClientRect(), page = sheet.getBoundingClientRect();
    const left = view.left - area.left, top = view.top - area.top;
    Object.assign(rulers.top.bar.style, { left: `${left + RULER_PX}px`, top: `${top}px`, width: `${Math.max(root.clientWidth - RULER_PX, 0)}px` });
    Object.assign(rulers.left.bar.style, { left: `${left}px`, top: `${top + RULER_PX}px`, height: `${Math.max(root.clientHeight - RULER_PX, 0)}px` });
    Object.assign(corner.style, { left: `${left}px`, top: `${top}px` });
    rulers.top.track.style.transform = `translateX(${page.left - view.left - RULER_PX}px)`;
    rulers.left.track.style.transform = `translateY(${page.top - view.top - RULER_PX}px)`;
  }
  let rulersQueued = false;
  const queueRulers = () => {
    if (rulersQueued) return;
    rulersQueued = true;
    requestAnimationFrame(() => {
      rulersQueued = false;
      drawRulers();
    });
  };
  root.addEventListener("scroll", () => {
    closeMenu();
    queueRulers();
  });
  // Where the pointer is, marked on both rulers.
  root.addEventListener("pointermove", (e) => {
    const view = root.getBoundingClientRect();
    rulers.top.marker.style.cssText = `display: block; left: ${e.clientX - view.left - RULER_PX}px`;
    rulers.left.marker.style.cssText = `display: block; top: ${e.clientY - view.top - RULER_PX}px`;
  });
  root.addEventListener("pointerleave", () => {
    rulers.top.marker.style.display = rulers.left.marker.style.display = "none";
  });
  for (const name of ["zoom", "page_width", "page_height", "boxes"]) model.on(name, queueRulers);
  new ResizeObserver(queueRulers).observe(root);
  queueRulers();
}
