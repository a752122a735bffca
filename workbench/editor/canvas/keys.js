// Keyboard shortcuts on the canvas: arrows nudge, Delete deletes, Ctrl+C/V/D/Z/Y/A copy,
// paste, duplicate, undo, redo and select all, Alt+letters align and distribute, Escape
// clears the selection. Each is one message, sent on keydown.

import { boxById, select, selected, send, show } from "./boxes.js";

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

// Where a key pressed outside the canvas is someone typing (or a control's own arrows), not a shortcut.
function typing(target) {
  if (!target || target.nodeType !== 1) return false;
  if (target.isContentEditable || target.closest(".dbk-text-edit")) return true;
  const tag = target.tagName;
  return tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && !["checkbox", "button", "submit"].includes(target.type));
}

// The canvas that takes arrows and Escape pressed elsewhere on the page: the one last pressed or
// whose selection last changed (a page may hold two editors, as a notebook can).
let keysFor = null;

export function watchKeys(canvas) {
  const { model, root } = canvas;
  let clipboard = []; // kept here: a paste then carries what it copies in one message
  keysFor = keysFor || canvas;
  const claim = () => (keysFor = canvas);
  root.addEventListener("pointerdown", claim);
  model.on("selection", claim);
  // After a pick in Layers or a click on the Align bar, focus is outside the canvas: arrows still
  // nudge and Escape still clears the selection there, unless the focus is in a text field.
  document.addEventListener("keydown", (e) => {
    const path = e.composedPath();
    if (path.includes(root) || keysFor !== canvas || !root.isConnected || typing(path[0])) return;
    if (e.key === "Escape" || e.key.startsWith("Arrow")) shortcut(e);
  });
  root.addEventListener("keydown", (e) => shortcut(e));
  function shortcut(e) {
    if (e.target.closest && e.target.closest(".dbk-text-edit")) return; // typing, not shortcuts
    const mod = e.ctrlKey || e.metaKey;
    const ids = [...selected(canvas)];
    const step = e.shiftKey ? 10 : 1;
    const arrows = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (arrows[e.key] && ids.length) {
      const [dx, dy] = arrows[e.key];
      const moving = ids.map((id) => boxById(canvas, id)).filter((b) => b && !b.locked);
      if (moving.length) {
        // A nudge is relative: the server moves the saved element, so quick presses add up
        // whatever this page was showing when each was pressed.
        show(canvas, moving.map((b) => ({ id: b.id, x: b.x + dx, y: b.y + dy })));
        send(canvas, "nudge", { ids: moving.map((b) => b.id), dx, dy });
      }
    } else if ((e.key === "Delete" || e.key === "Backspace") && ids.length) {
      send(canvas, "delete", { ids });
    } else if (mod && e.key.toLowerCase() === "c" && ids.length) {
      clipboard = ids;
    } else if (mod && e.key.toLowerCase() === "v") {
      send(canvas, "paste", { ids: clipboard });
    } else if (mod && e.key.toLowerCase() === "z") {
      send(canvas, e.shiftKey ? "redo" : "undo", {});
    } else if (mod && e.key.toLowerCase() === "y") {
      send(canvas, "redo", {});
    } else if (mod && e.key.toLowerCase() === "a") {
      select(canvas, model.boxes.map((b) => b.id));
    } else if (mod && e.key.toLowerCase() === "d" && ids.length) {
      send(canvas, "duplicate", { ids });
    } else if (arrangeKey(e) && ids.length) {
      const { kind, payload } = arrangeKey(e);
      send(canvas, kind, { ids, ...payload });
    } else if (e.key === "Escape") {
      select(canvas, []);
    } else {
      return;
    }
    e.preventDefault();
  }
}
