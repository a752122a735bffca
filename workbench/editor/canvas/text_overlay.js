// Text typed in place: an overlay at the element's box, in its face (when the page has it,
// else the generic family of its class), size, colour and alignment at the current zoom.
// Enter or leaving it saves the text as one edit (one undo step); Escape drops it;
// Shift+Enter is a new line. What it edits, and whether, is the type's declaration
// (`inline_text` in each box): the raw text, placeholders and markup as written.
//
// State on the canvas: `facesAsked` (the faces asked of the server, once per page) and
// `refitText` (the open overlay's fit(), to run again once its face has loaded).

import { boxById, scale, send } from "./boxes.js";

function editText(canvas, id) {
  const { root, sheet } = canvas;
  const box = boxById(canvas, id);
  const inline = box && box.inline_text;
  if (!inline || sheet.querySelector(".dbk-text-edit")) return;
  const s = scale(canvas);
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
    canvas.refitText = null;
    if (back) root.focus({ preventScroll: true });
    area.remove();
    if (save && text !== inline.text) send(canvas, "edit_text", { id, text });
  };
  askFace(canvas, inline);
  canvas.refitText = fit;
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
function askFace({ model, facesAsked }, inline) {
  const key = `${inline.family}|${inline.font_weight}|${inline.italic}`;
  if (facesAsked.has(key)) return;
  facesAsked.add(key);
  model.send_msg({ kind: "face", family: inline.family, weight: inline.font_weight, italic: inline.italic });
}

function addFace(canvas, face) {
  // From bytes, not a URL: the page's CSP fetches no font, and a notebook has no URL to give.
  const bytes = Uint8Array.from(atob(face.data), (c) => c.charCodeAt(0));
  const style = face.italic ? "italic" : "normal";
  new FontFace(face.family, bytes, { weight: String(face.weight), style })
    .load()
    .then((loaded) => {
      document.fonts.add(loaded);
      if (canvas.refitText) canvas.refitText();
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

// A double click on an element opens the overlay; the faces it asks for come as messages.
export function watchTextOverlay(canvas) {
  const { model, layer } = canvas;
  layer.addEventListener("dblclick", (e) => {
    const node = e.target.closest(".dbk-box");
    if (node) editText(canvas, node.dataset.id);
  });
  model.on("msg:custom", (msg) => msg && msg.face && addFace(canvas, msg.face));
}
