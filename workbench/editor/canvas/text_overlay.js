// Text typed in place: an overlay at the element's box, in its face (when the page has it,
// else the generic family of its class), size, colour and alignment at the current zoom.
// Enter or leaving it saves the text as one edit (one undo step); Escape drops it;
// Shift+Enter is a new line. What it edits, and whether, is the type's declaration
// (`inline_text` in each box): the raw text, placeholders and markup as written.
//
// A part selected in it is made bold, italic or a link by Ctrl+B / Ctrl+I / Ctrl+K, the
// small bar floating over it, or the text toolbar's B and I: the Markdown is written around
// exactly that part (markdown_format.js), and a plain text becomes a Markdown one in the
// same edit. With nothing or everything selected, the toolbar styles the whole text as
// before. A Markdown text is shown as its source, the markers greyed and bold words thicker.
//
// State on the canvas: `facesAsked` (the faces asked of the server, once per page),
// `refitText` (the open overlay's fit(), to run again once its face has loaded) and
// `formatPart` (the open overlay's formatting of its selected part, for the toolbar's B and I).

import { boxById, scale, send } from "./boxes.js";
import { escapePlain, isLink, toggleEmphasis, toggleLink } from "./markdown_format.js";

const SIZES = { bold: 2, italic: 1 };

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
    // Opaque: the preview's pixels of the old text never show through what is typed.
    background: lightInk(inline.color) ? "rgb(40, 46, 58)" : "rgb(255, 255, 255)",
  });
  let markdown = inline.markdown; // the text reads Markdown (now, or once saved)
  let turnedMarkdown = false; // a plain text this editing made Markdown
  const mirror = document.createElement("div"); // a Markdown text's source, shown under the typing
  mirror.className = "dbk-text-mirror";
  mirror.setAttribute("aria-hidden", "true");
  const showMarkdown = () => {
    if (!markdown) return;
    if (!mirror.isConnected) {
      for (const name of ["left", "top", "width", "fontFamily", "fontSize", "fontWeight", "fontStyle", "textDecoration",
        "color", "textAlign", "lineHeight", "whiteSpace", "background"]) mirror.style[name] = area.style[name];
      mirror.dir = area.dir;
      area.classList.add("dbk-text-edit-marked"); // its own letters transparent: the mirror's show
      area.style.background = "transparent";
      area.before(mirror);
    }
    mirror.replaceChildren(...markedSource(area.value));
    mirror.style.width = area.style.width;
    mirror.style.height = area.style.height;
  };
  const fit = () => {
    // Grow with the text: down always; sideways too when the box hugs its text.
    area.style.height = "0px";
    area.style.height = `${Math.max(area.scrollHeight, box.h * s)}px`;
    if (!inline.wraps) {
      area.style.width = "0px";
      area.style.width = `${Math.max(area.scrollWidth + 2, box.w * s, 24)}px`;
    }
    showMarkdown();
  };
  // The small bar over the overlay while a part is selected: B, I, link; and the link's address.
  const bar = formatBar((kind) => formatPart(kind), () => askUrl());
  bar.el.style.left = `${box.x * s}px`;
  bar.el.style.top = `${Math.max(box.y * s - 36, 0)}px`;
  const partSelected = () => {
    const { selectionStart: a, selectionEnd: b, value } = area;
    return a !== b && !(a === 0 && b === value.length);
  };
  const showBar = () => {
    bar.el.hidden = !(partSelected() || bar.asking());
  };
  // The selected part made bold, italic or a link (`url`), or unmade; false when nothing is.
  const formatPart = (kind, url) => {
    let { selectionStart: start, selectionEnd: end, value: text } = area;
    if (start === end || !(markdown || inline.formats)) return false;
    if (!markdown) ({ text, start, end } = escapePlain(text, start, end));
    const done = kind === "link" ? toggleLink(text, start, end, url) : toggleEmphasis(text, start, end, SIZES[kind]);
    if (!done) return false;
    if (!markdown) turnedMarkdown = markdown = true;
    area.value = done.text;
    area.setSelectionRange(done.start, done.end);
    fit();
    showBar();
    return true;
  };
  // Ctrl+K: a link off at once; else its address asked in the bar, the selection kept meanwhile.
  let asked = null;
  const askUrl = () => {
    const { selectionStart: start, selectionEnd: end } = area;
    if (start === end) return;
    if (isLink(area.value, start, end)) {
      formatPart("link");
      return;
    }
    asked = [start, end];
    bar.ask((url) => {
      const [a, b] = asked;
      asked = null;
      area.focus({ preventScroll: true });
      area.setSelectionRange(a, b);
      if (url) formatPart("link", url);
      showBar();
    });
  };
  let finished = false;
  // `back`: the keys go to the canvas again (Enter, Escape); after a click elsewhere they
  // stay where the click put them.
  const finish = (save, back) => {
    if (finished) return;
    finished = true;
    const text = area.value;
    canvas.refitText = null;
    canvas.formatPart = null;
    document.removeEventListener("selectionchange", showBar);
    if (back) root.focus({ preventScroll: true });
    area.remove();
    mirror.remove();
    bar.el.remove();
    if (save && text !== inline.text) {
      send(canvas, "edit_text", turnedMarkdown ? { id, text, markdown: true } : { id, text });
    }
  };
  askFace(canvas, inline);
  canvas.refitText = fit;
  canvas.formatPart = { partSelected, apply: (kind) => formatPart(kind) };
  area.addEventListener("input", fit);
  document.addEventListener("selectionchange", showBar); // removed when the typing ends
  area.addEventListener("select", showBar);
  area.addEventListener("keyup", showBar);
  area.addEventListener("pointerup", showBar);
  area.addEventListener("keydown", (e) => {
    e.stopPropagation(); // the canvas's shortcuts (Delete, arrows, Ctrl+Z…) are not for typing
    const mod = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey;
    const format = mod && { b: "bold", i: "italic", k: "link" }[e.key.toLowerCase()];
    if (format) {
      e.preventDefault();
      if (format === "link") askUrl();
      else formatPart(format);
    } else if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      finish(true, true);
    } else if (e.key === "Escape") {
      e.preventDefault();
      finish(false, true);
    }
  });
  // Focus going to the link's address box is still editing; anywhere else ends it.
  const leaving = (e) => !(e.relatedTarget && (e.relatedTarget === area || bar.el.contains(e.relatedTarget)));
  area.addEventListener("blur", (e) => leaving(e) && finish(true, false));
  bar.onLeave((e) => leaving(e) && finish(true, false));
  // A click inside places the caret; it starts no band or drag on the sheet.
  area.addEventListener("pointerdown", (e) => e.stopPropagation());
  sheet.append(area, bar.el);
  fit();
  area.focus({ preventScroll: true });
  area.select();
  showBar();
}

// B, I and a link button, floating over the overlay; a press keeps the typing's focus and
// selection. The link button (or Ctrl+K) opens a box for the address: Enter sets it, Escape
// drops it.
function formatBar(format, link) {
  const el = document.createElement("div");
  el.className = "dbk-format-bar";
  el.hidden = true;
  const button = (label, title, css, run) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = `dbk-bar-${css}`;
    b.textContent = label;
    b.title = title;
    b.addEventListener("click", run);
    return b;
  };
  const url = document.createElement("input");
  url.className = "dbk-format-url";
  url.type = "text";
  url.placeholder = "https://… then Enter";
  url.hidden = true;
  let answer = null;
  const close = (value) => {
    const give = answer;
    answer = null;
    url.hidden = true;
    if (give) give(value);
  };
  url.addEventListener("keydown", (e) => {
    e.stopPropagation();
    if (e.key === "Enter") {
      e.preventDefault();
      close(url.value.trim());
    } else if (e.key === "Escape") {
      e.preventDefault();
      close("");
    }
  });
  el.append(
    button("B", "Bold the selected words (Ctrl+B)", "bold", () => format("bold")),
    button("I", "Italicise the selected words (Ctrl+I)", "italic", () => format("italic")),
    button("Link", "Link the selected words (Ctrl+K)", "link", link),
    url,
  );
  // Pressing a button keeps the focus (and the selection) in the text; the address box takes it.
  el.addEventListener("pointerdown", (e) => e.stopPropagation()); // no band or drag on the sheet
  el.addEventListener("mousedown", (e) => e.target !== url && e.preventDefault());
  return {
    el,
    asking: () => answer !== null,
    ask(give) {
      answer = give;
      url.value = "";
      url.hidden = false;
      el.hidden = false;
      url.focus({ preventScroll: true });
    },
    onLeave(leave) {
      url.addEventListener("blur", (e) => {
        if (answer === null) return;
        answer = null;
        url.hidden = true;
        leave(e);
      });
    },
  };
}

// A Markdown source as nodes: the markers greyed, bold parts thicker, italic ones tinted, link
// labels blue. A light reading of the syntax for the eye (markdown-it's flanking rules are the
// engine's); every character stays in place, in the same face, so it lies under the typing.
function markedSource(source) {
  const nodes = [];
  let bold = false;
  let italic = false;
  let link = false;
  let text = "";
  const flush = () => {
    if (!text) return;
    const span = document.createElement("span");
    span.textContent = text;
    if (bold) span.className += " dbk-md-bold";
    if (italic) span.className += " dbk-md-italic";
    if (link) span.className += " dbk-md-link";
    nodes.push(span);
    text = "";
  };
  const marker = (chars) => {
    flush();
    const span = document.createElement("span");
    span.className = "dbk-md-marker";
    span.textContent = chars;
    nodes.push(span);
  };
  for (let i = 0; i < source.length; ) {
    const c = source[i];
    if (c === "\\" && i + 1 < source.length && source[i + 1] !== "\n") {
      marker(c);
      text += source[i + 1];
      i += 2;
    } else if (c === "*" || c === "_" || c === "~") {
      let n = 1;
      while (source[i + n] === c) n += 1;
      marker(source.slice(i, i + n));
      if (c !== "~") {
        if (n >= 2) bold = !bold;
        if (n % 2 === 1) italic = !italic;
      }
      i += n;
    } else if (c === "[") {
      marker(c);
      link = true;
      i += 1;
    } else if (c === "]" && link && source[i + 1] === "(") {
      const close = source.indexOf(")", i);
      const end = close < 0 ? source.length : close + 1;
      flush();
      link = false;
      marker(source.slice(i, end));
      i = end;
    } else {
      if (c === "\n") {
        flush();
        bold = italic = link = false; // each line is read on its own
      }
      text += c;
      i += 1;
    }
  }
  flush();
  nodes.push(document.createTextNode("\u200b")); // a last empty line keeps its height
  return nodes;
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

// The text toolbar's B and I (Panel widgets outside the canvas, marked dbk-format-bold and
// dbk-format-italic) act on a part selected in the overlay: their press is taken before
// Bokeh sees it, so the typing keeps its focus and the whole text's style is left alone.
function formatKind(e) {
  for (const node of e.composedPath()) {
    const classes = node.classList;
    if (!classes) continue;
    if (classes.contains("dbk-format-bold")) return "bold";
    if (classes.contains("dbk-format-italic")) return "italic";
  }
  return null;
}

function watchToolbarFormatting(canvas) {
  let pressed = null; // the toolbar button pressed over a selected part, until its click
  // Its mousedown's default would move the focus out of the text (a pointerdown's does not).
  const take = (e) => {
    if (e.type !== "pointerdown") e.preventDefault();
    e.stopImmediatePropagation();
  };
  for (const type of ["pointerdown", "mousedown"]) {
    window.addEventListener(type, (e) => {
      const kind = canvas.formatPart && formatKind(e);
      // Only a press while a part is selected: else the toolbar's own toggle runs, as always.
      if (kind && canvas.formatPart.partSelected()) {
        pressed = kind;
        take(e);
      }
    }, true);
  }
  for (const type of ["pointerup", "mouseup"]) window.addEventListener(type, (e) => pressed && take(e), true);
  window.addEventListener("click", (e) => {
    if (!pressed) return;
    const kind = pressed;
    pressed = null;
    take(e);
    if (canvas.formatPart) canvas.formatPart.apply(kind);
  }, true);
}

// A double click on an element opens the overlay; the faces it asks for come as messages.
export function watchTextOverlay(canvas) {
  const { model, layer } = canvas;
  watchToolbarFormatting(canvas);
  layer.addEventListener("dblclick", (e) => {
    const node = e.target.closest(".dbk-box");
    if (node) editText(canvas, node.dataset.id);
  });
  model.on("msg:custom", (msg) => msg && msg.face && addFace(canvas, msg.face));
}
