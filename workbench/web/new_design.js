// The gallery's "new design" form: Create (or Enter) sends the whole form as one `submitted`
// message; the custom-size fields show instead of the orientation when the paper is "Custom".
export function render({ model, el }) {
  const form = document.createElement("form");
  form.className = "dbk-new";
  const field = (label, control, cls) => {
    const wrap = document.createElement("label");
    wrap.className = cls;
    wrap.append(label, control);
    form.append(wrap);
    return wrap;
  };
  const input = (type, value, placeholder) => {
    const node = document.createElement("input");
    node.type = type; node.value = value; node.placeholder = placeholder || "";
    return node;
  };
  const select = (options, value) => {
    const node = document.createElement("select");
    for (const option of options) node.add(new Option(option, option, false, option === value));
    return node;
  };
  const name = input("text", "", "Certificate of completion");
  const paper = select(model.papers, "A4");
  const orientation = select(["portrait", "landscape"], "portrait");
  const width = input("number", "400"), height = input("number", "250");
  field("Name", name, "dbk-new-name");
  field("Paper", paper, "dbk-new-paper");
  const turned = field("Orientation", orientation, "dbk-new-orientation");
  const sized = [field("Width (pt)", width, "dbk-new-width"), field("Height (pt)", height, "dbk-new-height")];
  const create = document.createElement("div");
  create.className = "dbk-create";
  const button = document.createElement("button");
  button.type = "submit"; button.textContent = "Create design";
  create.append(button);
  form.append(create);
  const custom = () => {
    const on = paper.value === "Custom";
    turned.hidden = on;
    for (const node of sized) node.hidden = !on;
  };
  paper.addEventListener("change", custom);
  custom();
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    model.submitted = {
      name: name.value, paper: paper.value, orientation: orientation.value,
      width: Number(width.value), height: Number(height.value), at: Date.now(),
    };
  });
  el.append(form);
}
