// Bold, italic and links on a selected part of a text, written as the engine's inline
// Markdown (extensions.md 3; engine/text/markup.py reads it with markdown-it, one line at a
// time): `**bold**`, `*italic*`, `[label](url)`. Each function takes the text and the
// selection [start, end) and gives {text, start, end}: the new text, and the same words
// selected in it. A part already formatted that way is unformatted (a toggle).
// Pure functions of strings: text_overlay.js applies them to its textarea.

// Whitespace at a selection's edges stays outside the markers: `** word**` is no emphasis.
const SPACE = /\s/;
// Characters Markdown would read in a text that was plain until now: escaped when it turns
// Markdown, so what was typed stays as typed (the engine's escape rule: a backslash before
// ASCII punctuation).
const PLAIN_SPECIALS = new Set(["\\", "*", "_", "~", "[", "]"]);

// A plain text turned Markdown: its specials escaped, the selection kept on the same characters.
export function escapePlain(text, start, end) {
  let out = "";
  let s = start;
  let e = end;
  for (let i = 0; i < text.length; i += 1) {
    if (PLAIN_SPECIALS.has(text[i])) {
      if (i < start) s += 1;
      if (i < end) e += 1;
      out += "\\";
    }
    out += text[i];
  }
  return { text: out, start: s, end: e };
}

// The selection without the whitespace and emphasis markers at its edges.
function inner(text, start, end, markers) {
  let s = start;
  let e = end;
  while (s < e && (SPACE.test(text[s]) || markers.includes(text[s]))) s += 1;
  while (e > s && (SPACE.test(text[e - 1]) || markers.includes(text[e - 1]))) e -= 1;
  return [s, e];
}

function runBefore(text, at, char) {
  let n = 0;
  while (at - n - 1 >= 0 && text[at - n - 1] === char) n += 1;
  return n;
}

function runAfter(text, at, char) {
  let n = 0;
  while (at + n < text.length && text[at + n] === char) n += 1;
  return n;
}

// Each line's selected part (a text is parsed line by line: emphasis never spans lines).
function lineParts(text, start, end, markers) {
  const parts = [];
  let from = start;
  while (from < end) {
    const newline = text.indexOf("\n", from);
    const to = newline < 0 || newline >= end ? end : newline;
    const [s, e] = inner(text, from, to, markers);
    if (s < e) parts.push([s, e]);
    from = to + 1;
  }
  return parts;
}

// `size` 2 is bold, 1 italic. A part is bold when at least two markers of one kind (* or _)
// touch it on each side, italic when an odd number do (`***x***` is both).
function emphasised(text, [s, e], size) {
  for (const char of ["*", "_"]) {
    const before = runBefore(text, s, char);
    const after = runAfter(text, e, char);
    const n = Math.min(before, after);
    if (size === 2 ? n >= 2 : n % 2 === 1) return char;
  }
  return null;
}

// Bold (size 2) or italic (size 1) on the selected part, or off where it has it.
export function toggleEmphasis(text, start, end, size) {
  const parts = lineParts(text, start, end, "*_");
  if (!parts.length) return null;
  const on = emphasised(text, parts[0], size) === null; // as the first part is, all become
  let out = text;
  let shift = 0; // how far the later parts moved
  let first = null;
  let last = null;
  for (const [s0, e0] of parts) {
    const s = s0 + shift;
    const e = e0 + shift;
    const char = emphasised(out, [s, e], size);
    let ns = s;
    let ne = e;
    if (on && char === null) {
      const marker = "*".repeat(size);
      out = out.slice(0, s) + marker + out.slice(s, e) + marker + out.slice(e);
      ns = s + size;
      ne = e + size;
      shift += 2 * size;
    } else if (!on && char !== null) {
      out = out.slice(0, s - size) + out.slice(s, e) + out.slice(e + size);
      ns = s - size;
      ne = e - size;
      shift -= 2 * size;
    }
    if (first === null) first = ns;
    last = ne;
  }
  return { text: out, start: first, end: last };
}

// The link the selection sits in, if any: [open, labelStart, labelEnd, close] (the `[`, the
// label, and one past the `)`), or null.
function linkAround(text, s, e) {
  const open = text.lastIndexOf("[", s);
  if (open < 0 || /[\]\n]/.test(text.slice(open + 1, s))) return null;
  const middle = text.indexOf("](", open);
  if (middle < s || /[[\n]/.test(text.slice(open + 1, middle))) return null;
  const close = text.indexOf(")", middle);
  if (close < 0 || e > close + 1 || text.slice(middle, close).includes("\n")) return null;
  return [open, open + 1, middle, close + 1];
}

export function isLink(text, start, end) {
  const [s, e] = inner(text, start, end, "[");
  return s < e && linkAround(text, s, e) !== null;
}

// A link on the selected part (`url` as the person typed it), or off where it is one.
export function toggleLink(text, start, end, url) {
  const [s, e] = inner(text, start, end, "[");
  if (s >= e) return null;
  const around = linkAround(text, s, e);
  if (around) {
    const [open, labelStart, labelEnd, close] = around;
    const label = text.slice(labelStart, labelEnd);
    return {
      text: text.slice(0, open) + label + text.slice(close),
      start: open,
      end: open + label.length,
    };
  }
  if (!url) return null;
  // A `[` or `]` inside the label would end it early: escaped, it stays as typed.
  const label = text.slice(s, e).replace(/[[\]]/g, (c) => `\\${c}`);
  return {
    text: `${text.slice(0, s)}[${label}](${linkUrl(url)})${text.slice(e)}`,
    start: s + 1,
    end: s + 1 + label.length,
  };
}

// What a link points at, from what was typed: "example.org" means https://example.org and
// "ada@example.org" mailto: (the engine takes https:, http: and mailto: only); spaces and
// parentheses are percent-encoded, as they would end the destination.
export function linkUrl(typed) {
  let url = typed.trim();
  if (!/^(https?|mailto):/i.test(url)) {
    url = /^[^\s/@]+@[^\s/@]+$/.test(url) ? `mailto:${url}` : `https://${url.replace(/^\/+/, "")}`;
  }
  return url.replace(/ /g, "%20").replace(/\(/g, "%28").replace(/\)/g, "%29");
}
