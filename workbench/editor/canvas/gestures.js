// Pointer gestures on the sheet: a press on an element moves it (with the selection), a press
// on a handle resizes it, a press where nothing is hit draws a band that selects. The gesture
// under way is `canvas.gesture` ({kind: "move"|"resize"|"band", ...}); it is sent once, on
// pointerup, as one message that Python turns into an action batch.

import { boxById, place, scale, select, selected, send, show, sync } from "./boxes.js";
import { hitsAt } from "./hits.js";
import { endLift, hideReadout, liftDropped, liftFollow, liftStart } from "./live_drag.js";
import { clearGuides, snap } from "./snap.js";

const DRAG_PX = 3; // a press that moves less than this is a click

// A press on a box: its handles resize it; elsewhere the element hit at the point is pressed
// (a selected one first, so a selection is dragged even under another element), and a spot
// where nothing is hit starts a band.
export function pressBox(canvas, e, node) {
  if (e.button !== 0) return;
  if (e.target.dataset && e.target.dataset.handle) return startOnBox(canvas, e, node);
  if (!pressAt(canvas, e)) {
    e.stopPropagation();
    startBand(canvas, e);
  }
}

function pressAt(canvas, e) {
  const stack = hitsAt(canvas, e.clientX, e.clientY);
  if (!stack.length) return false;
  const chosen = selected(canvas);
  const id = e.shiftKey ? stack[0] : stack.find((i) => chosen.has(i)) || stack[0];
  startOnBox(canvas, e, canvas.nodes.get(id), stack);
  return true;
}

function startOnBox(canvas, e, node, stack = [node.dataset.id]) {
  if (e.button !== 0) return;
  e.preventDefault();
  e.stopPropagation();
  canvas.root.focus({ preventScroll: true });
  const id = node.dataset.id;
  const chosen = selected(canvas);
  const before = [...chosen];
  const handle = e.target.dataset ? e.target.dataset.handle : undefined;
  if (e.shiftKey && !handle) { // Shift on a handle resizes keeping (or freeing) the aspect ratio
    chosen.has(id) ? chosen.delete(id) : chosen.add(id);
    select(canvas, chosen);
    return;
  }
  // Alt-click selects on release (the next element below); only a press that becomes a drag
  // selects what it drags, when it starts to move.
  const deferred = e.altKey && !handle && !chosen.has(id);
  if (!chosen.has(id)) {
    chosen.clear();
    chosen.add(id);
    if (!deferred) select(canvas, chosen);
  }
  const moving = [...chosen].map((i) => boxById(canvas, i)).filter((b) => b && !b.locked);
  // Captured by whoever got the event: the box, or the sheet for a box that clicks pass through.
  e.currentTarget.setPointerCapture(e.pointerId);
  canvas.gesture = {
    kind: handle ? "resize" : "move",
    handle,
    node,
    startX: e.clientX,
    startY: e.clientY,
    boxes: handle ? [boxById(canvas, id)].filter((b) => b && !b.locked) : moving,
    result: null,
    moved: false,
    stack: handle ? null : stack,
    before,
    alt: e.altKey,
    selectOnDrag: deferred ? [id] : null,
  };
  if (!canvas.gesture.boxes.length && !canvas.gesture.alt) canvas.gesture = null;
}

function startBand(canvas, e) {
  const { root, sheet } = canvas;
  e.preventDefault();
  root.focus({ preventScroll: true });
  sheet.setPointerCapture(e.pointerId);
  const r = sheet.getBoundingClientRect();
  canvas.gesture = { kind: "band", originX: e.clientX - r.left, originY: e.clientY - r.top, rect: null };
}

function moveBand(canvas, e) {
  const { band, sheet, gesture } = canvas;
  const r = sheet.getBoundingClientRect();
  const s = scale(canvas);
  const x1 = Math.min(gesture.originX, e.clientX - r.left), y1 = Math.min(gesture.originY, e.clientY - r.top);
  const x2 = Math.max(gesture.originX, e.clientX - r.left), y2 = Math.max(gesture.originY, e.clientY - r.top);
  Object.assign(band.style, { display: "block", left: `${x1}px`, top: `${y1}px`, width: `${x2 - x1}px`, height: `${y2 - y1}px` });
  gesture.rect = x2 - x1 > 3 || y2 - y1 > 3 ? { x: x1 / s, y: y1 / s, w: (x2 - x1) / s, h: (y2 - y1) / s } : null;
}

function moveGesture(canvas, e) {
  const { gesture, nodes } = canvas;
  if (!gesture.boxes.length) return; // an Alt-click on locked elements: it only selects
  if (!gesture.moved) {
    if (Math.hypot(e.clientX - gesture.startX, e.clientY - gesture.startY) < DRAG_PX) return;
    gesture.moved = true;
    if (gesture.selectOnDrag) select(canvas, gesture.selectOnDrag);
    liftStart(canvas, gesture);
  }
  const s = scale(canvas);
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
    const fix = e.altKey ? { dx: 0, dy: 0 } : snap(canvas, group, new Set(gesture.boxes.map((b) => b.id)), s);
    gesture.result = gesture.boxes.map((b) => ({ id: b.id, x: b.x + dx + fix.dx, y: b.y + dy + fix.dy, w: b.w, h: b.h }));
  } else {
    gesture.result = [resized(gesture.boxes[0], gesture.handle, dx, dy, e.shiftKey)];
  }
  for (const r of gesture.result) place(nodes.get(r.id), r, s);
  liftFollow(canvas, gesture, s);
}

// Box `b` resized by dragging its handle `h` ("n", "se", …) by (dx, dy) points.
function resized(b, h, dx, dy, shiftKey) {
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
  if (b.resize === "free" && h.length === 2 && !!b.keeps_aspect !== shiftKey && b.w > 0 && b.h > 0) {
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
  return { id: b.id, x, y, w, h: height };
}

function endGesture(canvas) {
  const { model, band } = canvas;
  const done = canvas.gesture;
  canvas.gesture = null;
  clearGuides(canvas);
  if (done.kind === "band") {
    band.style.display = "none";
    const r = done.rect;
    if (r) {
      const hits = model.boxes.filter((b) => b.x < r.x + r.w && b.x + b.w > r.x && b.y < r.y + r.h && b.y + b.h > r.y);
      select(canvas, hits.map((b) => b.id));
    } else {
      select(canvas, []);
    }
    return;
  }
  hideReadout(canvas);
  if (done.result) {
    // The boxes stay where they were dropped until the saved tree comes back.
    const round = (v) => Math.round(v * 100) / 100;
    const changes = done.result.map((r) => ({ id: r.id, x: round(r.x), y: round(r.y), w: round(r.w), h: round(r.h) }));
    show(canvas, changes);
    send(canvas, done.kind === "move" ? "move" : "resize", { changes });
    liftDropped(canvas);
  } else {
    endLift(canvas);
    if (done.stack) pickOnClick(canvas, done);
    sync(canvas);
  }
}

// A click (no drag): Alt selects the next element below the one selected at that point
// (round the stack); a plain click selects the topmost, if a selection underneath was pressed.
function pickOnClick(canvas, done) {
  const stack = done.stack;
  if (done.alt) {
    const at = stack.findIndex((i) => done.before.includes(i));
    select(canvas, [stack[(at + 1) % stack.length]]);
  } else if (!selected(canvas).has(stack[0])) {
    select(canvas, [stack[0]]);
  }
}

export function watchPointer(canvas) {
  const { sheet } = canvas;
  sheet.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 || e.target.closest(".dbk-box")) return;
    if (pressAt(canvas, e)) return; // on the outline of a shape whose inside clicks pass through
    startBand(canvas, e);
  });
  const onMove = (e) => {
    if (!canvas.gesture) return;
    if (canvas.gesture.kind === "band") moveBand(canvas, e);
    else moveGesture(canvas, e);
  };
  const onUp = () => canvas.gesture && endGesture(canvas);
  // Boxes sit inside the sheet, so their captured pointer events bubble here too.
  sheet.addEventListener("pointermove", onMove);
  sheet.addEventListener("pointerup", onUp);
  sheet.addEventListener("pointercancel", onUp);
}
