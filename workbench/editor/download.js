// Starts a browser download for each message {href, filename} from Python: a signed /files
// URL of the same server (or, from an embedded notebook service, a data: URL).
export function render({ model, el }) {
  model.on("msg:custom", (msg) => {
    if (!msg || !msg.href) return;
    const a = document.createElement("a");
    a.href = msg.href;
    a.download = msg.filename || "document.pdf";
    a.target = "_blank"; // a URL of another origin (a notebook over REST) opens beside the page
    a.rel = "noopener";
    a.style.display = "none";
    el.append(a);
    a.click();
    a.remove();
  });
}
