// A file dropped on the page: a PDF becomes the page's background (its page 1), an image is
// placed where it was dropped. The file's bytes go to Python as one message (base64), which
// uploads it to the asset library as the Images tab does; a file past the upload limit
// (`model.drop_limit`, bytes) is not read at all, and Python says so.

import { scale, send } from "./boxes.js";

function base64Of(buffer) {
  const bytes = new Uint8Array(buffer);
  let binary = "";
  const CHUNK = 0x8000; // String.fromCharCode takes its arguments on the stack
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

export function watchDrop(canvas) {
  const { root, sheet, model } = canvas;
  const carriesFiles = (e) => e.dataTransfer && [...(e.dataTransfer.types || [])].includes("Files");
  root.addEventListener("dragover", (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault(); // without it the browser opens the file instead of dropping it here
    e.dataTransfer.dropEffect = "copy";
    root.classList.add("dbk-drop-over");
  });
  root.addEventListener("dragleave", () => root.classList.remove("dbk-drop-over"));
  root.addEventListener("drop", (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    root.classList.remove("dbk-drop-over");
    const file = e.dataTransfer.files[0];
    if (!file) return;
    const r = sheet.getBoundingClientRect();
    const s = scale(canvas);
    const at = { x: Math.round((e.clientX - r.left) / s), y: Math.round((e.clientY - r.top) / s) };
    const about = { name: file.name, type: file.type, size: file.size, ...at };
    if (file.size > model.drop_limit) {
      send(canvas, "drop", about); // no bytes: Python names the limit
      return;
    }
    file.arrayBuffer().then((buffer) => send(canvas, "drop", { ...about, data: base64Of(buffer) }));
  });
}
