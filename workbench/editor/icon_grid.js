// The icon grid: the icons matching the picker's search, as inline SVG; a click sets `value`.
export function render({ model, el }) {
  const grid = document.createElement("div");
  grid.className = "dbk-list dbk-icons";
  function draw() {
    grid.replaceChildren(...model.options.map((o) => {
      const cell = document.createElement("div");
      cell.className = "dbk-option" + (o.id === model.value ? " chosen" : "");
      cell.dataset.value = o.id;
      cell.title = o.id;
      cell.innerHTML = o.svg;
      const label = document.createElement("span"); label.textContent = o.id; cell.append(label);
      cell.addEventListener("click", () => { model.value = o.id; });
      return cell;
    }));
  }
  model.on("value", draw); model.on("options", draw); draw();
  el.append(grid);
}
