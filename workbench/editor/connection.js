// The page's connection to what runs it. In the workbench, Bokeh's websocket to the docbench
// server: when it drops (the server restarted), a notice floats over the page (it moves
// nothing under it), the server's health URL is asked with a growing pause, and once it
// answers the page loads again, from the saved tree (docs/editor-state.md). In Jupyter the
// kernel is the server: there is no websocket, so the page asks the kernel for a pong every
// few seconds and says so while none comes; the notebook is never reloaded.
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 5000;
const PING_EVERY_MS = 4000;
const SILENCE_MS = 10000;

function notice(title, detail) {
  const box = document.createElement("div");
  box.className = "dbk-connection-lost";
  box.setAttribute("role", "alert");
  // Styled here, not by the editor's stylesheet: it sits on the document's body, outside the
  // components' shadow roots, and must show even if the page's other styles did not load.
  Object.assign(box.style, {
    position: "fixed",
    inset: "0",
    zIndex: "10000",
    display: "flex",
    alignItems: "flex-start",
    justifyContent: "center",
    paddingTop: "120px",
    background: "rgba(255, 255, 255, 0.6)",
    font: "15px system-ui, sans-serif",
  });
  const card = document.createElement("div");
  Object.assign(card.style, {
    background: "#fff8e1",
    border: "1px solid #e0b000",
    borderRadius: "6px",
    padding: "14px 20px",
    maxWidth: "460px",
    boxShadow: "0 4px 16px rgba(0, 0, 0, 0.15)",
  });
  const heading = document.createElement("b");
  heading.textContent = title;
  const text = document.createElement("p");
  text.style.margin = "6px 0 0";
  text.textContent = detail;
  card.append(heading, text);
  box.append(card);
  return box;
}

function reconnect(healthUrl) {
  if (document.querySelector(".dbk-connection-lost")) return; // already at it
  document.body.append(
    notice(
      "Reconnecting…",
      "The docbench server is not answering. This page loads again by itself when it is back; " +
        "everything you saved is kept.",
    ),
  );
  let pause = FIRST_PAUSE_MS;
  const ask = async () => {
    try {
      const answer = await fetch(healthUrl, { cache: "no-store" });
      if (answer.ok) {
        location.reload();
        return;
      }
    } catch (error) {
      // not up yet: ask again after a longer pause
    }
    pause = Math.min(LONGEST_PAUSE_MS, pause * 1.6);
    setTimeout(ask, pause);
  };
  setTimeout(ask, pause);
}

function watchKernel(model, el, host) {
  let heard = Date.now();
  let shown = null;
  model.on("msg:custom", (msg) => {
    if (!msg || !("pong" in msg)) return;
    heard = Date.now();
    if (shown) {
      shown.remove();
      shown = null;
    }
  });
  const timer = setInterval(() => {
    if (!host.isConnected) {
      clearInterval(timer); // the output was cleared or the cell run again
      return;
    }
    if (!shown && Date.now() - heard > SILENCE_MS) {
      shown = notice(
        "The notebook's kernel is not answering",
        "It is busy running a cell, or was restarted. After a restart, run this cell again; " +
          "everything you saved is kept.",
      );
      // Over the editor's output only, not the whole window: the rest of the notebook stays usable.
      Object.assign(shown.style, { position: "absolute", inset: "auto", top: "0", left: "0", width: "100%" });
      shown.style.paddingTop = "40px";
      el.append(shown);
    }
    try {
      model.send_msg({ ping: Date.now() });
    } catch (error) {
      // no comm to the kernel any more (it restarted): the notice says so already, or soon
    }
  }, PING_EVERY_MS);
}

export function render({ model, el, view }) {
  if (model.health_url) {
    view.model.document.on_event("connection_lost", () => reconnect(model.health_url));
  } else {
    watchKernel(model, el, view.el);
  }
}
