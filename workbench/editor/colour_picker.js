// A colour field (colour_picker.py): the browser's picker, a hex entry, "none" when the colour
// is optional, and the design's colours as swatches. Each pick sets `value` once.
const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

// What <input type=color> can show: #rrggbb (an alpha or a gradient is shown as its nearest).
function sixDigits(value) {
  if (!HEX.test(value)) {
    const stop = /#[0-9a-fA-F]{3,8}/.exec(value || "");
    return stop && HEX.test(stop[0]) ? sixDigits(stop[0]) : "#000000";
  }
  if (value.length === 4) return "#" + [...value.slice(1)].map((c) => c + c).join("").toLowerCase();
  return value.slice(0, 7).toLowerCase();
}

export function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "dbk-colour";
  const caption = document.createElement("div");
  caption.className = "dbk-colour-caption";
  const row = document.createElement("div");
  row.className = "dbk-colour-row";
  const native = document.createElement("input");
  native.type = "color";
  native.className = "dbk-colour-native";
  const entry = document.createElement("input");
  entry.type = "text";
  entry.className = "dbk-colour-hex";
  entry.spellcheck = false;
  const none = document.createElement("button");
  none.type = "button";
  none.className = "dbk-colour-none";
  none.textContent = "none";
  const swatches = document.createElement("div");
  swatches.className = "dbk-swatches";
  row.append(native, entry, none);
  root.append(caption, row, swatches);
  el.append(root);

  function commit(value) {
    entry.classList.remove("invalid");
    entry.value = value;
    if (value !== model.value) model.value = value;
  }
  // The entry is left alone while someone types in it: a value or swatches arriving then
  // (another edit saved, the design's colours grown) must not replace what is being typed.
  function drawValue() {
    caption.textContent = model.caption;
    caption.hidden = !model.caption;
    none.hidden = !model.optional;
    root.dataset.value = model.value;
    entry.placeholder = model.optional ? "none" : "#rrggbb";
    if (root.getRootNode().activeElement !== entry) {
      entry.value = model.value;
      entry.classList.remove("invalid");
    }
    native.value = sixDigits(model.value);
    none.classList.toggle("chosen", !model.value);
    drawSwatches();
  }
  // The swatches keep their places while this field is shown: a pick changes how often the
  // design uses each colour (the order Python offers them in), and the swatch just clicked must
  // not move from under the pointer. New colours go at the end; one no longer used stays.
  let order = [];
  function drawSwatches() {
    const chosen = (model.value || "").toLowerCase();
    order = [...order, ...model.swatches.filter((colour) => !order.includes(colour))];
    swatches.replaceChildren(...order.map((colour) => {
      const swatch = document.createElement("button");
      swatch.type = "button";
      swatch.className = "dbk-swatch" + (colour === chosen ? " chosen" : "");
      swatch.dataset.colour = colour;
      swatch.title = colour;
      swatch.style.background = colour;
      swatch.addEventListener("click", () => commit(colour));
      return swatch;
    }));
  }
  // `change`, not `input`: the picker commits once when closed, not at every step of a drag.
  native.addEventListener("change", () => commit(native.value));
  entry.addEventListener("change", () => {
    const typed = entry.value.trim();
    if (typed === "" && model.optional) commit("");
    else if (HEX.test(typed) || (model.free_text && typed)) commit(typed);
    else entry.classList.add("invalid"); // kept for correcting; nothing is saved
  });
  entry.addEventListener("keydown", (e) => e.key === "Enter" && entry.blur());
  none.addEventListener("click", () => commit(""));
  for (const name of ["value", "caption", "optional"]) model.on(name, drawValue);
  model.on("swatches", drawSwatches);
  drawValue();
}
