// Live drags: the dragged elements' own pixels (sprites cut from the preview) move with the
// pointer, over the page without them once the editor sends it ("lift" → `under`), until the
// saved tree's preview is painted, and a readout shows where they are in points. A lift saves
// nothing and costs no credit (a free preview).
//
// State on the canvas: `lift` {key, sprites: Map(id -> {el, from}), dropped: the preview's
// src at the drop}, and the layers made at the first drag: `under`, `spriteLayer`, `readout`.

const SPRITE_PAD_PT = 2; // a dragged element's pixels reach a little past its box (strokes, glyphs)

function liftLayers(canvas) {
  if (canvas.under) return;
  const { sheet, layer } = canvas;
  const under = document.createElement("img");
  under.className = "dbk-under";
  under.alt = "";
  under.draggable = false;
  const spriteLayer = document.createElement("div");
  spriteLayer.className = "dbk-sprites";
  const readout = document.createElement("div");
  readout.className = "dbk-readout";
  sheet.insertBefore(under, layer);
  sheet.insertBefore(spriteLayer, layer);
  sheet.append(readout);
  Object.assign(canvas, { under, spriteLayer, readout });
}

// A gesture `g` started to move: its elements' pixels are lifted off the preview.
export function liftStart(canvas, g) {
  liftLayers(canvas);
  const visible = g.boxes.filter((b) => !b.hidden);
  const key = visible.map((b) => b.id).join(",");
  // The same elements again before the last drop's preview came: they keep their pixels.
  if (canvas.lift && canvas.lift.key === key) {
    canvas.lift.dropped = null;
    return;
  }
  endLift(canvas);
  if (!visible.length) return;
  const source = canvas.img.getAttribute("src");
  const lift = { key, sprites: new Map(), dropped: null };
  canvas.lift = lift;
  for (const b of visible) {
    const el = document.createElement("div");
    el.className = "dbk-sprite";
    if (source) el.style.backgroundImage = `url("${source}")`;
    canvas.spriteLayer.append(el);
    lift.sprites.set(b.id, { el, from: { ...b } });
  }
  canvas.model.send_msg({ kind: "lift", ids: visible.map((b) => b.id) }); // not an edit: editAt stays
}

// The lifted pixels and the readout follow the gesture's result.
export function liftFollow(canvas, g, s) {
  if (canvas.lift) {
    for (const r of g.result) {
      const sprite = canvas.lift.sprites.get(r.id);
      if (sprite) placeSprite(canvas, sprite, r, s);
    }
  }
  const xs = g.result.map((r) => r.x), ys = g.result.map((r) => r.y);
  const rect = {
    x: Math.min(...xs),
    y: Math.min(...ys),
    w: Math.max(...g.result.map((r) => r.x + r.w)) - Math.min(...xs),
    h: Math.max(...g.result.map((r) => r.y + r.h)) - Math.min(...ys),
  };
  showReadout(canvas, rect, g.kind === "resize", s);
}

function placeSprite({ model }, { el, from }, box, s) {
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

function showReadout({ model, readout }, rect, resizing, s) {
  const pt = (v) => (Math.round(v * 10) / 10).toFixed(1);
  const parts = [`x ${pt(rect.x)}`, `y ${pt(rect.y)}`];
  if (resizing) parts.push(`w ${pt(rect.w)}`, `h ${pt(rect.h)}`);
  readout.textContent = `${parts.join(" · ")} pt`;
  const below = (rect.y + rect.h) * s + 6;
  readout.style.left = `${Math.max(0, rect.x * s)}px`;
  readout.style.top = `${below + 22 < model.page_height * s ? below : Math.max(0, rect.y * s - 44)}px`;
  readout.style.display = "block";
}

export function hideReadout({ readout }) {
  if (readout) readout.style.display = "none";
}

// Dropped: the pixels stay until a preview other than this one is painted.
export function liftDropped({ lift, img }) {
  if (lift) lift.dropped = img.getAttribute("src") || "";
}

export function endLift(canvas) {
  const { lift, under } = canvas;
  if (!lift) return;
  for (const { el } of lift.sprites.values()) el.remove();
  under.style.display = "none";
  under.removeAttribute("src");
  canvas.lift = null;
}

export function watchLift(canvas) {
  const { model, img } = canvas;
  model.on("msg:custom", (msg) => {
    if (!msg) return;
    if (msg.redraw) endLift(canvas); // nothing was saved: the elements are back where they were
    if (msg.under && canvas.lift && (msg.ids || []).join(",") === canvas.lift.key) {
      canvas.under.src = msg.under;
      canvas.under.style.display = "block";
    }
  });
  // After a drop the pixels stay until the saved tree's preview is painted; a save that leaves
  // the picture as it was (a hidden element) brings no new picture to wait for.
  img.addEventListener("load", () => {
    const waiting = canvas.lift;
    if (waiting && waiting.dropped !== null && img.getAttribute("src") !== waiting.dropped) {
      requestAnimationFrame(() => canvas.lift === waiting && waiting.dropped !== null && endLift(canvas));
    }
  });
  model.on("boxes", () => {
    const waiting = canvas.lift;
    requestAnimationFrame(() => {
      if (canvas.lift === waiting && waiting && waiting.dropped === img.getAttribute("src") && !canvas.gesture) endLift(canvas);
    });
  });
  for (const name of ["zoom", "page_width", "page_height"]) model.on(name, () => canvas.gesture || endLift(canvas));
}
