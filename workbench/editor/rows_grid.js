// Row objects as a grid of text inputs, the first line holding their keys. A cell that loses
// focus after a change sends that one cell ({row, col, text}); the server answers with the saved
// rows in `cells`, so an edit never carries other cells' stale texts along.
export function render({ model, el }) {
  const table = document.createElement("table");
  table.className = "dbk-grid dbk-rows";
  function input(r, c, value) {
    const box = document.createElement("input");
    box.value = value;
    box.dataset.row = r; box.dataset.col = c;
    box.dir = "auto";
    if (r === 0) box.className = "dbk-grid-key";
    box.addEventListener("change", () => model.send_msg({ row: r, col: c, text: box.value }));
    return box;
  }
  function draw() {
    const cells = model.cells;
    const same = table.rows.length === cells.length &&
      cells.every((row, r) => table.rows[r].cells.length === row.length);
    if (same) {
      // In place: the input being typed in keeps its text and focus.
      const focused = el.getRootNode().activeElement;
      cells.forEach((row, r) => row.forEach((value, c) => {
        const box = table.rows[r].cells[c].firstChild;
        if (box !== focused) box.value = value;
      }));
      return;
    }
    table.replaceChildren(...cells.map((row, r) => {
      const tr = document.createElement("tr");
      row.forEach((value, c) => {
        const td = document.createElement("td");
        td.append(input(r, c, value));
        tr.append(td);
      });
      return tr;
    }));
  }
  model.on("cells", draw); draw();
  el.append(table);
}
