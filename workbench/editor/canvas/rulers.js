// Rulers along the top and the left of the view, in points from the sheet's corner, with
// where the pointer is marked on both. They sit in `el`, overlay the root's padding, take no
// pointer events, and slide with the scroll. State on the canvas: `rulers`.

import { scale } from "./boxes.js";

const RULER_PX = 16;

export function makeRulers(canvas) {
  const { el, model, root } = canvas;
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
  const top = ruler("top"), left = ruler("left");
  const corner = document.createElement("div");
  corner.className = "dbk-ruler-corner";
  el.append(corner);
  canvas.rulers = { top, left, corner, drawnFor: "", queued: false };
  const queue = () => queueRulers(canvas);
  root.addEventListener("scroll", queue);
  root.addEventListener("pointermove", (e) => {
    const view = root.getBoundingClientRect();
    top.marker.style.cssText = `display: block; left: ${e.clientX - view.left - RULER_PX}px`;
    left.marker.style.cssText = `display: block; top: ${e.clientY - view.top - RULER_PX}px`;
  });
  root.addEventListener("pointerleave", () => {
    top.marker.style.display = left.marker.style.display = "none";
  });
  for (const name of ["zoom", "page_width", "page_height", "boxes"]) model.on(name, queue);
  new ResizeObserver(queue).observe(root);
  queue();
}

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

export function drawRulers(canvas) {
  const { el, model, root, sheet, rulers } = canvas;
  const s = scale(canvas);
  const drawnFor = `${s}|${model.page_width}|${model.page_height}`;
  if (drawnFor !== rulers.drawnFor) {
    rulers.drawnFor = drawnFor;
    rulerTicks(rulers.top.track, model.page_width, s, true);
    rulerTicks(rulers.left.track, model.page_height, s, false);
  }
  const area = el.getBoundingClientRect(), view = root.getBoundingClientRect(), page = sheet.getBoundingClientRect();
  const left = view.left - area.left, top = view.top - area.top;
  Object.assign(rulers.top.bar.style, { left: `${left + RULER_PX}px`, top: `${top}px`, width: `${Math.max(root.clientWidth - RULER_PX, 0)}px` });
  Object.assign(rulers.left.bar.style, { left: `${left}px`, top: `${top + RULER_PX}px`, height: `${Math.max(root.clientHeight - RULER_PX, 0)}px` });
  Object.assign(rulers.corner.style, { left: `${left}px`, top: `${top}px` });
  rulers.top.track.style.transform = `translateX(${page.left - view.left - RULER_PX}px)`;
  rulers.left.track.style.transform = `translateY(${page.top - view.top - RULER_PX}px)`;
}

function queueRulers(canvas) {
  const { rulers } = canvas;
  if (rulers.queued) return;
  rulers.queued = true;
  requestAnimationFrame(() => {
    rulers.queued = false;
    drawRulers(canvas);
  });
}
