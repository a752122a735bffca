// The context menu (issue 14): a right-click on an element opens it, each item is one
// message, which Python saves as one batch. It sits in `el`, beside the scrolling root, so
// it stays put as the root scrolls; scrolling, a press outside it or Escape close it.

import { boxById, select, selected, send } from "./boxes.js";
import { elementAt } from "./hits.js";

export function makeMenu(canvas) {
  const { el, root } = canvas;
  const menu = document.createElement("div");
  menu.className = "dbk-menu";
  menu.setAttribute("role", "menu");
  menu.style.display = "none";
  el.append(menu);
  canvas.menu = menu;
  root.addEventListener("contextmenu", (e) => {
    const id = elementAt(canvas, e);
    if (!id) {
      closeMenu(canvas);
      return; // the browser's own menu elsewhere
    }
    e.preventDefault();
    openMenu(canvas, e, id);
  });
  menu.addEventListener("keydown", (e) => {
    const items = [...menu.querySelectorAll("button")];
    const at = items.indexOf(el.getRootNode().activeElement);
    if (e.key === "Escape") closeMenu(canvas);
    else if (e.key === "ArrowDown") items[(at + 1) % items.length].focus();
    else if (e.key === "ArrowUp") items[(at - 1 + items.length) % items.length].focus();
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
  const closeOutside = (e) => {
    if (!menu.isConnected) return window.removeEventListener("pointerdown", closeOutside, true);
    if (menuOpen(canvas) && !e.composedPath().includes(menu)) closeMenu(canvas);
  };
  window.addEventListener("pointerdown", closeOutside, true);
  root.addEventListener("scroll", () => closeMenu(canvas));
}

function menuOpen({ menu }) {
  return menu.style.display !== "none";
}

export function closeMenu(canvas) {
  const { el, menu, root } = canvas;
  if (!menuOpen(canvas)) return;
  const hadFocus = menu.contains(document.activeElement) || menu.contains(el.getRootNode().activeElement);
  menu.style.display = "none";
  if (hadFocus) root.focus({ preventScroll: true });
}

function openMenu(canvas, e, id) {
  const { el, menu } = canvas;
  const chosen = selected(canvas);
  if (!chosen.has(id)) {
    // A right-click on an element outside the selection acts on that element alone.
    chosen.clear();
    chosen.add(id);
    select(canvas, chosen);
  }
  const ids = [...chosen];
  const locked = ids.every((i) => (boxById(canvas, i) || {}).locked);
  const items = [
    ["Bring to front", "dbk-menu-front", "order", { ids, to: "front" }],
    ["Send to back", "dbk-menu-back", "order", { ids, to: "back" }],
    ["Duplicate", "dbk-menu-duplicate", "duplicate", { ids }],
    ["Delete", "dbk-menu-delete", "delete", { ids }],
    [locked ? "Unlock" : "Lock", "dbk-menu-lock", "lock", { ids, locked: !locked }],
  ];
  menu.replaceChildren(
    ...items.map(([label, css, kind, payload]) => {
      const item = document.createElement("button");
      item.type = "button";
      item.className = `dbk-menu-item ${css}`;
      item.setAttribute("role", "menuitem");
      item.textContent = label;
      item.addEventListener("click", () => {
        closeMenu(canvas);
        send(canvas, kind, payload);
      });
      return item;
    })
  );
  const area = el.getBoundingClientRect();
  menu.style.display = "";
  // Kept inside the editor's area, however near its edge the click was.
  const left = Math.min(e.clientX - area.left, el.clientWidth - menu.offsetWidth - 4);
  const top = Math.min(e.clientY - area.top, el.clientHeight - menu.offsetHeight - 4);
  menu.style.left = `${Math.max(left, 0)}px`;
  menu.style.top = `${Math.max(top, 0)}px`;
  menu.querySelector("button").focus({ preventScroll: true });
}
