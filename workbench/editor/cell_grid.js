// A table's cells as text inputs; a cell that loses focus after a change writes `cells` (a new
// list: Panel syncs a list param only when a new array is assigned).
export function render({ model, el }) {
  const table = document.createElement("table");
  table.className = "dbk-grid";
  function draw() {
    table.replaceChildren(...model.cells.map((row, r) => {
      const tr = document.createElement("tr");
      row.forEach((value, c) => {
        const td = document.createElement("td");
        const input = document.createElement("input");
        input.value = typeof value === "string" ? value : (value && value.data && value.data.content) || "";
        input.dataset.row = r; input.dataset.col = c;
        input.dir = "auto"; // Arabic and Hebrew cells show right to left as typed
        input.addEventListener("change", () => {
          model.cells = model.cells.map((cells, i) => cells.map((v, j) => (i === r && j === c ? input.value : v)));
        });
        td.append(input); tr.append(td);
      });
      return tr;
    }));
  }
  model.on("cells", draw); draw();
  el.append(table);
}
