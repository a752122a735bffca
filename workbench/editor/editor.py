"""The canvas editor for one design: toolbar, canvas, layers and side panels, properties.

It talks to the service only through a `Client` (in-process in the workbench server,
REST or in-process in a notebook), and only in action batches (`DesignSession`).
"""

from __future__ import annotations

import base64
import logging
import threading
from typing import Any

import panel as pn
import param

from api.errors import ApiError
from api.renderers import TaskCancelled

from ..client import Client
from . import geometry
from .canvas import Canvas
from .panels import document_panel, images_panel, pages_panel, variables_panel
from .pickers import LayerList
from .properties import element_form
from .session import DesignSession
from .text import text

log = logging.getLogger("docbench.editor")
POLL_MS = 1000  # spec'd: a change made over the API shows within 2 s


class Download(pn.custom.JSComponent):
    """Starts a browser download of `href` (a data: URL) whenever it changes."""

    href = param.String(default="")
    filename = param.String(default="document.pdf")

    _esm = """
export function render({ model, el }) {
  model.on("href", () => {
    if (!model.href) return;
    const a = document.createElement("a");
    a.href = model.href; a.download = model.filename; a.style.display = "none";
    el.append(a); a.click(); a.remove();
  });
}"""


class Editor:
    def __init__(self, client: Client, design_id: str, poll: bool = True, home: str | None = "./"):
        """`home` is where "← Designs" leads (the gallery); None for no link, as inline in Jupyter."""
        self.client = client
        self.home = home
        self.session = DesignSession(client, design_id)
        self.page = 0
        self._lock = threading.RLock()
        self._form_key: tuple | None = None
        self._syncing = False
        self._gesture_seq = 0
        self.status = pn.pane.Alert("", alert_type="light", visible=False, sizing_mode="stretch_width", margin=(0, 10))
        self.canvas = Canvas(sizing_mode="stretch_both", min_height=520, css_classes=["dbk-canvas-host"])
        self.layers = LayerList(sizing_mode="stretch_width")
        self.properties = pn.Column(sizing_mode="stretch_width", css_classes=["dbk-properties-host"])
        self.download = Download(height=0, width=0, margin=0)
        self.credits = pn.pane.Markdown("", css_classes=["dbk-credits"], margin=(8, 10))
        self.side = pn.Tabs(dynamic=True, sizing_mode="stretch_width")
        self.canvas.param.watch(self._on_gesture, "edit")
        self.canvas.param.watch(self._on_selection, "selection")
        self.layers.param.watch(self._on_gesture, "edit")
        self.layers.param.watch(self._on_layer_selection, "selection")
        self.side.param.watch(lambda e: self._refresh_side(), "active")
        self.session.listeners.append(self.refresh)
        self.view = self._layout()
        self.refresh()
        self._update_credits()
        self._poller = pn.state.add_periodic_callback(self.poll, period=POLL_MS) if poll else None

    # -- layout ------------------------------------------------------------------------

    def _layout(self) -> pn.viewable.Viewable:
        name = pn.widgets.TextInput(value=self.session.name, width=260, css_classes=["dbk-design-name"], margin=(8, 10))
        name.param.watch(lambda e: e.new.strip() and self.run(lambda: self.session.rename(e.new.strip())), "value")
        self._name = name
        undo = self._button("Undo", self.undo, "dbk-undo")
        redo = self._button("Redo", self.redo, "dbk-redo")
        zoom = [
            self._button("Fit", lambda: setattr(self.canvas, "zoom", 0), "dbk-zoom-fit"),
            self._button("100%", lambda: setattr(self.canvas, "zoom", 96 / 72), "dbk-zoom-100"),
            self._button("−", lambda: self._zoom(1 / 1.25), "dbk-zoom-out"),
            self._button("+", lambda: self._zoom(1.25), "dbk-zoom-in"),
        ]
        generate = self._button("Generate PDF · 1 credit", self.generate, "dbk-generate")
        generate.button_type = "primary"
        home = [pn.pane.HTML(f'<a href="{self.home}" class="dbk-home">← Designs</a>', margin=(14, 10))]
        header = pn.Row(
            *(home if self.home else []),
            name,
            undo,
            redo,
            pn.Spacer(width=12),
            *zoom,
            pn.HSpacer(),
            self.credits,
            generate,
            self.download,
            sizing_mode="stretch_width",
            css_classes=["dbk-header"],
        )
        adders = [
            self._button(f"+ {geometry.TITLES[kind]}", lambda kind=kind: self.add(kind), f"dbk-add-{kind}")
            for kind in geometry.DEFAULTS
        ]
        shortcuts = pn.pane.HTML(
            "<small>Arrows nudge (Shift: 10 pt) · Delete · Ctrl+C / Ctrl+V · Ctrl+Z / Ctrl+Shift+Z · "
            "Shift-click or drag on the page to select several · Alt while dragging: no snapping</small>",
            margin=(8, 10),
            sizing_mode="stretch_width",  # wraps where the editor is narrow, as in a notebook
        )
        toolbar = pn.Row(*adders, shortcuts, sizing_mode="stretch_width", css_classes=["dbk-toolbar"])
        self.side[:] = [
            ("Layers", pn.Column(self.layers, sizing_mode="stretch_width")),
            ("Pages", pn.Column(sizing_mode="stretch_width")),
            ("Images", pn.Column(sizing_mode="stretch_width")),
            ("Variables", pn.Column(sizing_mode="stretch_width")),
            ("Document", pn.Column(sizing_mode="stretch_width")),
        ]
        left = pn.Column(self.side, width=300, css_classes=["dbk-left"])
        right = pn.Column(self.properties, width=320, css_classes=["dbk-right"], scroll=True, height=760)
        body = pn.Row(left, self.canvas, right, sizing_mode="stretch_both")
        return pn.Column(header, toolbar, self.status, body, sizing_mode="stretch_both", css_classes=["dbk-editor"])

    def _button(self, label: str, action: Any, css: str) -> pn.widgets.Button:
        # No hover tooltips: Bokeh's popovers cover the neighbouring buttons.
        button = pn.widgets.Button(name=label, css_classes=[css], margin=(8, 3))
        button.on_click(lambda e: self.run(action))
        return button

    def _zoom(self, factor: float) -> None:
        current = self.canvas.zoom or self.canvas.fit_scale
        self.canvas.zoom = max(0.2, min(6.0, current * factor))

    # -- refreshing --------------------------------------------------------------------

    def refresh(self) -> None:
        tree = self.session.tree
        self.page = min(self.page, len(tree.pages) - 1)
        page = tree.pages[self.page]
        boxes = geometry.boxes(tree, self.page)
        ids = {b["id"] for b in boxes}
        update: dict[str, Any] = {}
        # Write the selection back only when elements left it: a click in the browser can arrive
        # while this runs on another thread, and writing back what was read here would undo it.
        if any(i not in ids for i in self.canvas.selection):
            update["selection"] = [i for i in self.canvas.selection if i in ids]
        self.canvas.param.update(
            page_width=page.width,
            page_height=page.height,
            boxes=boxes,
            image=self.session.preview_data_url(self.page),
            applied=self._gesture_seq,  # in the same message as the boxes it produced
            **update,
        )
        self.layers.layers = [{k: b[k] for k in ("id", "name", "type", "hidden", "locked")} for b in boxes]
        if self._name.value != self.session.name:
            self._name.value = self.session.name
        self._refresh_properties()
        self._refresh_side()

    def _refresh_properties(self) -> None:
        selected = [self.session.tree.nodes[i] for i in self.canvas.selection if i in self.session.tree.nodes]
        if len(selected) != 1:
            key = ("none", len(selected))
            if key != self._form_key:
                text = "Select an element to edit it." if not selected else f"{len(selected)} elements selected."
                self.properties[:] = [pn.pane.Markdown(text, css_classes=["dbk-hint"])]
            self._form_key = key
            return
        node = selected[0]
        key = ("node", node.model_dump_json(exclude={"position"}))
        if key != self._form_key:
            self.properties[:] = [element_form(node, self._form_edit)]
            self._form_key = key
            return
        # Same element, moved or resized: refresh the position fields only.
        self._syncing = True
        try:
            for field, widget in getattr(self.properties[0], "position_widgets", {}).items():
                widget.value = getattr(node.position, field)
        finally:
            self._syncing = False

    def _form_edit(self, actions: list[dict]) -> None:
        if not self._syncing:  # a value we set ourselves is not an edit
            self.apply(actions)

    def _refresh_side(self) -> None:
        builders = [None, pages_panel, images_panel, variables_panel, document_panel]
        index = self.side.active
        if builders[index] is not None:
            self.side[index].objects = [builders[index](self)]

    def _update_credits(self) -> None:
        try:
            self.credits.object = f"**Credits:** {self.session.credits()}"
        except ApiError as error:
            self.credits.object = f"Credits: unavailable ({error.code})"

    def poll(self) -> None:
        """Show what another client saved (REST, MCP, another tab)."""
        with self._lock:
            try:
                self.session.changed_elsewhere()
            except ApiError as error:
                log.info("poll failed: %s", error.message)

    def stop(self) -> None:
        """Stop polling (the page's session ended)."""
        if self._poller is not None:
            self._poller.stop()

    # -- actions -------------------------------------------------------------------------

    def run(self, action: Any) -> Any:
        """Run one user action; a refusal becomes a message, never a traceback."""
        with self._lock:
            # Clear the last message first: a message the action itself shows ("Generated …") stays.
            self.status.visible = False
            try:
                result = action()
            except ApiError as error:
                self.say(error.message, "danger")
                return None
            except TaskCancelled:  # the tab closed while a render was waiting: nobody to tell
                return None
            except ValueError as error:
                self.say(str(error), "danger")
                return None
            except Exception:  # a bug of ours: logged with its traceback, shown as one sentence
                log.exception("editor action failed")
                self.say("Something went wrong on our side; the design was not changed.", "danger")
                return None
            return result

    def say(self, message: str, kind: str = "info") -> None:
        self.status.param.update(object=text(message), alert_type=kind, visible=True)

    def apply(self, actions: list[dict]) -> None:
        self.run(lambda: self.session.apply(actions))

    def undo(self) -> None:
        if not self.session.undo():
            self.say("Nothing to undo.")

    def redo(self) -> None:
        if not self.session.redo():
            self.say("Nothing to redo.")

    def add(self, element_type: str, **data: Any) -> None:
        page = self.session.tree.pages[self.page]
        offset = 12 * (len(page.elements) % 8)
        at = (round(page.width * 0.2 + offset, 2), round(page.height * 0.2 + offset, 2))
        if element_type == "image" and "src" not in data:
            data["src"] = self._placeholder_ref()
        action = geometry.new_element(self.session.tree, element_type, self.page, at, **data)
        results = self.session.apply([action])
        self.canvas.selection = [r["data"]["id"] for r in results if "id" in r.get("data", {})]

    def _placeholder_ref(self) -> str:
        asset = self.client.call("create_placeholder_asset", body={"name": "Image placeholder", "label": "Image"})
        return asset["ref"]

    def generate(self) -> None:
        filename, pdf = self.session.generate()
        self.download.filename = filename
        self.download.href = "data:application/pdf;base64," + base64.b64encode(pdf).decode()
        self._update_credits()
        self.say(f"Generated {filename} (1 credit).", "success")

    def _on_selection(self, event: Any) -> None:
        if list(self.layers.selection) != list(event.new):
            self.layers.selection = list(event.new)
        self._refresh_properties()

    def _on_layer_selection(self, event: Any) -> None:
        if list(self.canvas.selection) != list(event.new):
            self.canvas.selection = list(event.new)

    def _on_gesture(self, event: Any) -> None:
        edit = event.new or {}
        log.debug("gesture %s", edit.get("kind"))
        seq = edit.get("seq") if event.obj is self.canvas else None
        handlers = {
            "move": lambda: self._place(edit["changes"], resized=False),
            "resize": lambda: self._place(edit["changes"], resized=True),
            "delete": lambda: self._delete(edit["ids"]),
            "paste": lambda: self._paste(edit["ids"]),
            "undo": self.undo,
            "redo": self.redo,
            "toggle": lambda: self._toggle(edit["id"], edit["flag"]),
            "reorder": lambda: self.session.apply(
                [{"type": "reorder_element", "args": {"id": edit["id"], "to": int(edit["to"])}}]
            ),
        }
        handler = handlers.get(edit.get("kind"))
        with self._lock:
            if isinstance(seq, int):
                # Panel may hand one session's events to different threads, so they can arrive
                # out of order; a gesture older than one already handled is stale (positions
                # are absolute: the newer gesture already holds the result).
                if seq <= self._gesture_seq:
                    return
                self._gesture_seq = seq
            if handler is not None:
                self.run(handler)
            # A saved edit reports its seq with the new boxes (refresh); a refused or empty
            # one reports it here, so the browser drops its unsaved positions either way.
            if isinstance(seq, int) and self.canvas.applied != seq:
                self.canvas.applied = seq

    def _place(self, changes: list[dict], resized: bool) -> None:
        nodes = self.session.tree.nodes
        actions = [
            geometry.placement_patch(nodes[c["id"]], c, resized)
            for c in changes
            if c["id"] in nodes and not nodes[c["id"]].isLocked
        ]
        self.session.apply(actions)

    def _delete(self, ids: list[str]) -> None:
        nodes = self.session.tree.nodes
        self.session.apply([{"type": "remove_element", "args": {"id": i}} for i in ids if i in nodes])

    def _paste(self, ids: list[str]) -> None:
        nodes = self.session.tree.nodes
        copied = [nodes[i].model_dump(exclude_none=True) for i in ids if i in nodes]
        if not copied:
            self.say("Nothing to paste: select elements and press Ctrl+C first.")
            return
        results = self.session.apply(geometry.pasted(self.session.tree, copied, self.page))
        self.canvas.selection = [r["data"]["id"] for r in results if "id" in r.get("data", {})]

    def _toggle(self, node_id: str, flag: str) -> None:
        node = self.session.tree.nodes[node_id]
        self.session.apply([{"type": "update_element", "args": {"id": node_id, flag: not getattr(node, flag)}}])

    def show_page(self, index: int) -> None:
        self.page = index
        self.canvas.selection = []
        self.refresh()

    def __panel__(self) -> pn.viewable.Viewable:
        return self.view
