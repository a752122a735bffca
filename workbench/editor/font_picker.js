// The font picker: each family's name as an image in its own face (rendered on the server,
// so no web font is loaded); a click sets `value`.
export function render({ model, el }) {
  const list = document.createElement("div");
  list.className = "dbk-list dbk-fonts";
  function draw() {
    list.replaceChildren(...model.options.map((o) => {
      const row = document.createElement("div");
      row.className = "dbk-option" + (o.name === model.value ? " chosen" : "");
      row.dataset.value = o.name;
      row.title = o.name;
      const img = document.createElement("img");
      img.src = o.image; img.alt = o.name; img.style.height = "22px";
      row.append(img);
      row.addEventListener("click", () => { model.value = o.name; });
      return row;
    }));
  }
  model.on("value", draw); model.on("options", draw); draw();
  el.append(list);
}
