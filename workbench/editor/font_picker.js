// The font picker: each family's name as an image in its own face, a script family's sample
// in its own script (both rendered on the server, so no web font is loaded) and badges naming
// the scripts the family covers (ISO 15924: Latn, Arab, Hans…); a click sets `value`.
export function render({ model, el }) {
  const list = document.createElement("div");
  list.className = "dbk-list dbk-fonts";
  // Names are 44 px images and samples 52 px ones at the same text size: shown at one scale.
  function image(src, alt, className, height) {
    const img = document.createElement("img");
    img.src = src; img.alt = alt; img.className = className; img.style.height = height;
    img.loading = "lazy";
    return img;
  }
  function draw() {
    list.replaceChildren(...model.options.map((o) => {
      const row = document.createElement("div");
      row.className = "dbk-option" + (o.name === model.value ? " chosen" : "");
      row.dataset.value = o.name;
      row.title = o.name;
      row.append(image(o.image, o.name, "dbk-font-name", "22px"));
      if (o.sample) row.append(image(o.sample, `${o.name} sample`, "dbk-font-sample", "26px"));
      const badges = document.createElement("span");
      badges.className = "dbk-font-scripts";
      for (const code of o.scripts || []) {
        const badge = document.createElement("span");
        badge.className = "dbk-badge";
        badge.textContent = code;
        badges.append(badge);
      }
      row.append(badges);
      row.addEventListener("click", () => { model.value = o.name; });
      return row;
    }));
  }
  model.on("value", draw); model.on("options", draw); draw();
  el.append(list);
}
