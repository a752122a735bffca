// The page canvas: the engine's PNG preview under interactive element boxes. This is its
// entry: it makes the page's elements and the state the concerns share (`canvas`, below),
// then wires each concern, one module each. Each gesture is sent once, on pointerup or
// keydown, as one message that Python turns into an action batch; the server's boxes are the
// truth, and what this page shows before they come back is only a guess (docs/editor-state.md).
//
// Every module here is a plain ES module; canvas.py joins them into the one module Panel
// loads (a blob: URL, where relative imports do not resolve), so nothing is fetched: the
// workbench works offline.

import { watchBoxes, watchPaint } from "./boxes.js";
import { watchDrop } from "./drop.js";
import { pressBox, watchPointer } from "./gestures.js";
import { watchKeys } from "./keys.js";
import { watchLift } from "./live_drag.js";
import { makeMenu } from "./menus.js";
import { makeRulers } from "./rulers.js";
import { watchTextOverlay } from "./text_overlay.js";
import { watchViewCentre, watchWheel } from "./view.js";

export function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "dbk-canvas";
  root.tabIndex = 0;
  const sheet = document.createElement("div");
  sheet.className = "dbk-sheet";
  const img = document.createElement("img");
  img.className = "dbk-preview";
  img.alt = "page preview";
  img.draggable = false;
  const layer = document.createElement("div");
  layer.className = "dbk-boxes";
  const band = document.createElement("div");
  band.className = "dbk-band";
  sheet.append(img, layer, band);
  root.append(sheet);
  el.append(root);

  // What every concern is handed: the model, the page's elements, and the state they share.
  // A field a concern owns is named after it and written only there.
  const canvas = {
    model,
    el, // holds the root, and beside it the menu and the rulers (which stay put as it scrolls)
    root, // the scrolling view, which takes the keys
    sheet, // the page at the current scale
    img, // the preview
    layer, // the boxes
    band, // the selection band
    nodes: new Map(), // element id -> its box node (boxes.js)
    shown: new Map(), // element id -> the box where this page moved it, until the server's boxes come (boxes.js)
    gesture: null, // the pointer gesture under way (gestures.js)
    pressBox: (e, node) => pressBox(canvas, e, node), // what a press on a box node does
    guides: [], // the snap guides shown (snap.js)
    lift: null, // the lifted pixels of a live drag (live_drag.js)
    under: null, // the page without the dragged elements, under them (live_drag.js)
    spriteLayer: null, // the dragged pixels (live_drag.js)
    readout: null, // where the dragged elements are, in points (live_drag.js)
    facesAsked: new Set(), // faces asked of the server (text_overlay.js)
    refitText: null, // the open overlay's fit(), to run again once its face has loaded (text_overlay.js)
    menu: null, // the context menu (menus.js)
    rulers: null, // the rulers (rulers.js)
  };

  // The order matters where two concerns listen to one event (the preview's load, the
  // model's boxes and messages, the root's scroll): theirs runs in this order.
  watchPaint(canvas);
  watchLift(canvas);
  watchPointer(canvas);
  watchKeys(canvas);
  watchBoxes(canvas);
  watchTextOverlay(canvas);
  watchViewCentre(canvas);
  watchDrop(canvas);
  // -- Arranging (issue 14): a context menu, Ctrl+wheel zoom, rulers.
  el.style.position = "relative";
  makeMenu(canvas);
  watchWheel(canvas);
  makeRulers(canvas);
}

