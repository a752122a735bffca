// Snapping: a moving rectangle's edges and centre snap to the page's and to the other
// elements', and a guide line marks each snap. The guides live in `canvas.guides`.

const SNAP_PX = 6; // how near, in screen pixels, an edge must come to snap

export function clearGuides({ guides }) {
  while (guides.length) guides.pop().remove();
}

function guide({ sheet, guides }, axis, at, s) {
  const line = document.createElement("div");
  line.className = `dbk-guide dbk-guide-${axis}`;
  if (axis === "v") line.style.left = `${at * s}px`;
  else line.style.top = `${at * s}px`;
  sheet.append(line);
  guides.push(line);
}

// How far to shift `rect` (in points) to snap it; the elements in `skip` are the moving ones.
export function snap(canvas, rect, skip, s) {
  const { model } = canvas;
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
  clearGuides(canvas);
  if (fx) guide(canvas, "v", fx.at, s);
  if (fy) guide(canvas, "h", fy.at, s);
  return { dx: fx ? fx.d : 0, dy: fy ? fy.d : 0 };
}
