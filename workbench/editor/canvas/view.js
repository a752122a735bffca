// The view: Ctrl+wheel zooms around the pointer, and the middle of the page's visible part
// is told to Python (view state like the zoom, docs/editor-state.md).

import { scale, sync } from "./boxes.js";
import { closeMenu } from "./menus.js";
import { drawRulers } from "./rulers.js";

// Ctrl+wheel (and a trackpad's pinch, which Chromium sends as one) zooms around the
// pointer: the point under it stays put, by scrolling the view, along each axis on which the
// page is larger than the view (a smaller page stays centred, whole). A plain wheel scrolls.
function zoomAround(canvas, clientX, clientY, factor) {
  const { model, root, sheet } = canvas;
  const before = scale(canvas);
  const after = Math.max(0.2, Math.min(6, before * factor)); // the bounds of Python's zoom buttons
  if (Math.abs(after - before) < 1e-4) return;
  const r = sheet.getBoundingClientRect();
  const at = { x: (clientX - r.left) / before, y: (clientY - r.top) / before }; // in points
  model.zoom = after;
  sync(canvas);
  const moved = sheet.getBoundingClientRect();
  root.scrollLeft += moved.left + at.x * after - clientX;
  root.scrollTop += moved.top + at.y * after - clientY;
  drawRulers(canvas);
}

export function watchWheel(canvas) {
  canvas.root.addEventListener(
    "wheel",
    (e) => {
      if (!(e.ctrlKey || e.metaKey) || canvas.gesture) return;
      e.preventDefault(); // not the browser's page zoom
      closeMenu(canvas);
      const lines = e.deltaMode === 1 ? 33 : 1; // a line is about 33 px
      zoomAround(canvas, e.clientX, e.clientY, Math.exp(-e.deltaY * lines * 0.0015));
    },
    { passive: false }
  );
}

// The middle of the page's visible part, in points, for Python to place new elements there:
// view state like the zoom, written when scrolling, zooming or resizing changes it.
export function watchViewCentre(canvas) {
  const { model, root, sheet } = canvas;
  let queued = false;
  const measure = () => {
    queued = false;
    const s = scale(canvas);
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
