// Hit testing: each element is hit where its type says (box.hit, ElementType.hit_area): an
// unfilled shape only near its outline, so a page border drawn last takes no click inside it.

import { boxById, scale } from "./boxes.js";

const HIT_PX = 6; // how near an outline or a line a click must land to hit it, in screen pixels

// The elements hit at a point of the screen, topmost first.
export function hitsAt(canvas, clientX, clientY) {
  const { model, sheet } = canvas;
  const r = sheet.getBoundingClientRect();
  const s = scale(canvas);
  const px = clientX - r.left, py = clientY - r.top;
  const stack = [];
  for (let i = model.boxes.length - 1; i >= 0; i--) {
    const box = boxById(canvas, model.boxes[i].id);
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

// The element under a pointer event: its box, or (should boxes stop taking events) the
// topmost saved box at that point, the last in paint order.
export function elementAt(canvas, e) {
  const { model, sheet } = canvas;
  const node = e.target.closest ? e.target.closest(".dbk-box") : null;
  if (node && node.dataset.id) return node.dataset.id;
  const r = sheet.getBoundingClientRect();
  const s = scale(canvas);
  const x = (e.clientX - r.left) / s, y = (e.clientY - r.top) / s;
  const hit = [...model.boxes].reverse().find((b) => {
    const box = boxById(canvas, b.id);
    return x >= box.x && x <= box.x + box.w && y >= box.y && y <= box.y + box.h;
  });
  return hit ? hit.id : null;
}
