"""The canvas editor for one design: toolbar, canvas, layers and side panels, properties.

It talks to the service only through a `Client` (in-process in the workbench server,
REST or in-process in a notebook), and only in action batches (`DesignSession`).

docs/editor-state.md is its state model: the saved tree is the truth and the page only
shows it; the browser's gestures come as messages; every callback of a page, the poll
included, runs in that page's lane (one at a time, in arrival order), so nothing here
takes a lock or guards against a callback running beside another.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import panel as pn

from api.errors import ApiError
from api.images.processing import fitted_png
from api.models import PREVIEW_WITHOUT_MAX_LENGTH
from api.operations import UploadedFile
from api.renderers import TaskCancelled
from engine.design import computed

from ..client.api import Client
from . import arrange, geometry
from .canvas import Canvas
from .colour_picker import design_colours
from .drop import dropped_file
from .lanes import in_page_lane
from .panels import PDF_MIME, SIDE_PANELS, PanelContext, image_field
from .pdf_options import PdfOptions
from .pickers import LayerList
from .properties import element_form, form_shape
from .publishing import Publishing
from .session import PREVIEWS_KEPT, DesignSession, page_content
from .style import STYLESHEET
from .text import text
from .text_toolbar import TextToolbar

log = logging.getLogger("docbench.editor")
GENERATE_LABEL = "Generate PDF · 1 credit"  # with the design's sample values
SAMPLES_LABEL = "Generate with sample values · 1 credit"  # its label while tried values are shown
POLL_MS = 1000  # spec'd: a change made over the API shows within 2 s
THUMBNAIL_SIDE = 120


class Download(pn.custom.JSComponent):
    """Starts a browser download of a file each time `start` is called."""

    _esm = Path(__file__).with_name("download.js")

    def start(self, href: str, filename: str) -> None:
        # A message, not a param: the same PDF generated twice is two downloads.
        self._send_msg({"href": href, "filename": filename})


class Editor:
    def __init__(
        self,
        client: Client,
        design_id: str,
        poll: bool = True,
        home: str | None = "./",
        files_served: bool = True,
    ):
        """`home` is where "← Designs" leads (the gallery); None for no link, as inline in Jupyter.
        `files_served`: whether the signed `/files` URLs the API returns reach the browser. They do
        in the workbench (the same server) and over REST; an embedded service in a notebook serves
        no HTTP, so there a generated PDF reaches the browser as a data: URL instead."""
        self.client = client
        self.home = home
        self.files_served = files_served
        self.session = DesignSession(client, design_id)
        self.page = 0
        self.sheet = 0  # which of the page's sheets the canvas shows (its tables and flowing texts grown)
        self._sheet_count = 1  # how many the page shown lays out as
        self._tried: dict | None = None  # the values "Try values" shows on the canvas; None: the design's
        self._form_shows: str | None = None  # the element (id and type) the properties form was built for
        self._thumbnails: dict[str, bytes] = {}  # fitted page previews by page content
        self._revision_thumbnails: dict[int, bytes] = {}  # by revision: a revision never changes
        self._kept: dict = {}  # what side panels keep across rebuilds (PanelContext.kept)
        # A message floats over the canvas's bottom edge (editor.css .dbk-overlays): showing one moves nothing.
        self.status = pn.pane.Alert(
            "", alert_type="light", visible=False, css_classes=["dbk-status"], margin=0
        )
        self.canvas = Canvas(
            on_gesture=self.gesture, sizing_mode="stretch_both", min_height=520, css_classes=["dbk-canvas-host"]
        )
        self.layers = LayerList(on_gesture=self.gesture, sizing_mode="stretch_width")
        self.properties = pn.Column(sizing_mode="stretch_width", css_classes=["dbk-properties-host"])
        self.download = Download(height=0, width=0, margin=0)
        self.credits = pn.pane.Markdown("", css_classes=["dbk-credits"], margin=(8, 10))
        self.side = pn.Tabs(
            dynamic=True, sizing_mode="stretch_width", css_classes=["dbk-side-tabs"], stylesheets=[STYLESHEET]
        )
        self.canvas.param.watch(self._on_selection, "selection")
        self.layers.param.watch(self._on_layer_selection, "selection")
        self.side.param.watch(lambda e: self._refresh_side(), "active")
        self.session.listeners.append(self.refresh)
        self.publishing = Publishing(self.session, self.run, self.say)
        self.view = self._layout()
        self.refresh()
        self._update_credits()
        # A poll never runs beside a gesture of this page; `self.poll` is looked up at each tick.
        self._poll_in_lane = in_page_lane(lambda: self.poll())
        self._poller = pn.state.add_periodic_callback(self._poll_in_lane, period=POLL_MS) if poll else None

    # -- layout ------------------------------------------------------------------------

    def _layout(self) -> pn.viewable.Viewable:
        name = pn.widgets.TextInput(value=self.session.name, width=200, css_classes=["dbk-design-name"], margin=(8, 10))
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
        generate = self._button(GENERATE_LABEL, self.generate, "dbk-generate")
        generate.color = "primary"
        self._generate = generate
        # Shown while tried values are on the canvas: the PDF with them (generate's path, 1 credit).
        self._generate_tried = self._button("Generate this · 1 credit", self.generate_tried, "dbk-generate-tried")
        self._generate_tried.param.update(color="primary", visible=False)
        self.pdf_options = PdfOptions()
        self.run(lambda: self.pdf_options.set_sheets(self.session.label_sheet_presets()))
        self.pdf_options.sheet.param.watch(lambda e: self.run(lambda: self._show_label_sheet(e.new)), "value")
        home = [pn.pane.HTML(f'<a href="{self.home}" class="dbk-home">← Designs</a>', margin=(14, 10))]
        header = pn.Row(
            *(home if self.home else []),
            name,
            undo,
            redo,
            pn.Spacer(width=12),
            *zoom,
            self._zoom_readout(),
            self._sheet_pager(),
            pn.HSpacer(),
            self.publishing.label,
            self.publishing.button,
            self.credits,
            self.pdf_options.toggle,
            self._generate_tried,
            generate,
            self.download,
            sizing_mode="stretch_width",
            css_classes=["dbk-header"],
        )
        adders = [
            self._button(f"+ {title}", lambda kind=kind: self.add(kind), f"dbk-add-{kind}")
            for kind, title in geometry.element_kinds()
        ]
        # The keyboard's shortcuts, one line however narrow the editor (the toolbar row keeps its
        # height, so the canvas below keeps its place); hovering shows them all.
        keys = (
            "Double-click a text to type in it · Arrows nudge (Shift: 10 pt) · Delete · Ctrl+C / Ctrl+V · "
            "Ctrl+Z / Ctrl+Shift+Z · Shift-click or drag on the page to select several · Alt-click: the element "
            "below · Alt while dragging: no snapping, Shift: keep the aspect · "
            "Ctrl+D duplicates · Alt+A / H / D align left / centre / right, Alt+W / V / S top / middle / bottom "
            "(one element: to the page), Alt+Shift+H / V distribute · Ctrl+wheel zooms · right-click: more"
        )
        shortcuts = pn.pane.HTML(
            f'<small class="dbk-shortcuts" title="{keys}">{keys}</small>',
            margin=(8, 10),
            min_width=0,
            sizing_mode="stretch_width",
            stylesheets=[
                ".dbk-shortcuts { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }"
            ],
        )
        toolbar = pn.Row(*adders, shortcuts, sizing_mode="stretch_width", css_classes=["dbk-toolbar"])
        # Each tab with what fills it: the layer list lives on; the other panels are built
        # from the tree when shown (`_refresh_side`).
        self._tabs = [("Layers", pn.Column(self.layers, sizing_mode="stretch_width"), None)] + [
            (title, pn.Column(sizing_mode="stretch_width"), builder) for title, builder in SIDE_PANELS
        ]
        self.side[:] = [(title, holder) for title, holder, _ in self._tabs]
        # The side columns scroll inside the window's height, so the page itself never scrolls and
        # the canvas below the bars gets the rest of the height (Fit fits the page into it).
        left = pn.Column(self.side, width=300, sizing_mode="stretch_height", scroll=True, css_classes=["dbk-left"])
        right = pn.Column(
            self.properties, width=320, sizing_mode="stretch_height", scroll=True, css_classes=["dbk-right"]
        )
        self.text_toolbar = TextToolbar(apply=self.apply)  # styles of the selected texts, above the canvas
        # The canvas stays put: the text toolbar's row is always there, and what comes and goes
        # (the Align bar, messages, the font list, PDF options) floats over it (editor.css).
        centre = pn.Column(
            self.text_toolbar,
            self.canvas,
            # The Align bar and the messages, stacked at the canvas's bottom edge.
            pn.Column(self.status, self._arrange_bar(), css_classes=["dbk-overlays"], stylesheets=[STYLESHEET]),
            sizing_mode="stretch_both",
            css_classes=["dbk-centre"],
            stylesheets=[STYLESHEET],
        )
        body = pn.Row(left, centre, right, sizing_mode="stretch_both")
        return pn.Column(
            header,
            self.pdf_options.panel,
            self.publishing.panel,
            toolbar,
            body,
            sizing_mode="stretch_both",
            css_classes=["dbk-editor"],
            stylesheets=[STYLESHEET],
        )

    def _button(self, label: str, action: Any, css: str) -> pn.widgets.Button:
        # No hover tooltips: Bokeh's popovers cover the neighbouring buttons.
        button = pn.widgets.Button(label=label, css_classes=[css], margin=(8, 3))
        button.on_click(lambda e: self.run(action))
        return button

    def _zoom(self, factor: float) -> None:
        current = self.canvas.zoom or self.canvas.fit_scale
        self.canvas.zoom = max(0.2, min(6.0, current * factor))

    # -- showing the saved tree ------------------------------------------------------------

    def refresh(self) -> None:
        """Show the session's tree: after every save, undo, reload or page switch."""
        tree = self.session.tree
        self.page = min(self.page, len(tree.pages) - 1)
        page = tree.pages[self.page]
        boxes = geometry.boxes(tree, self.page)
        ids = {b["id"] for b in boxes}
        self._show_tried(None)  # a tried picture never outlives an edit (docs/editor-state.md point 1)
        image = self._picture()
        # The selection is the browser's; this only drops elements that are gone (an equal list is
        # not sent, so a click the lane has not reached yet is not undone).
        self.canvas.param.update(
            page_width=page.width,
            page_height=page.height,
            boxes=boxes if self.sheet == 0 else [],  # a continuation sheet is looked at, not edited
            image=image,
            selection=[i for i in self.canvas.selection if i in ids],
        )
        self.layers.layers = [{k: b[k] for k in ("id", "name", "type", "hidden", "locked")} for b in boxes]
        if self._name.value != self.session.name:
            self._name.value = self.session.name
        self._refresh_properties()
        self._refresh_side()
        self.publishing.saved()

    def _refresh_properties(self) -> None:
        selected = self._selected()
        self._refresh_text_toolbar(selected)
        if len(selected) != 1:
            shows = f"{len(selected)} selected"
            if shows != self._form_shows:
                hint = "Select an element to edit it." if not selected else f"{len(selected)} elements selected."
                self.properties[:] = [pn.pane.Markdown(hint, css_classes=["dbk-hint"])]
                self._form_shows = shows
            return
        node = selected[0]
        swatches = design_colours(self.session.tree)
        variables = list(self.session.tree.variables)  # offered by Insert field and showIf
        bound = self.session.tree.variable_of(node) is not None
        form = self.properties[0] if len(self.properties) else None
        # The element, and so its set of fields and the widgets its type chooses for it.
        shows = f"{node.id} {node.type} {form_shape(node)}"
        if shows != self._form_shows or not hasattr(form, "show_node"):
            # Another element: a new form, whose sections open and close as the last one's did.
            collapsed = {part: card.collapsed for part, card in getattr(form, "sections", {}).items()}
            self.properties[:] = [
                element_form(
                    node,
                    self.apply,
                    swatches,
                    collapsed,
                    variables,
                    self.preview_expression,
                    bound,
                    lambda: self.session.tree.metadata.language,
                )
            ]
            self._form_shows = shows
            return
        # The same element after any edit: its widgets show the new values in place, so the
        # sections stay as they are and the panel keeps its scroll position. The edits these
        # settings echo equal the saved tree and save nothing (docs/editor-state.md point 6).
        form.show_node(node, swatches, variables, bound)

    def preview_expression(self, node_id: str, where: str, text: str) -> str:
        """An expression's result on the saved design's samples, for the form's live checks
        (engine.design.computed.preview; ValueError with the engine's message)."""
        return computed.preview(self.session.tree, node_id, where, text)

    def _refresh_text_toolbar(self, selected: list[Any]) -> None:
        self.text_toolbar.show(selected, self.session.tree)

    def _selected(self) -> list[Any]:
        nodes = self.session.tree.nodes
        return [nodes[i] for i in self.canvas.selection if i in nodes]

    def panel_context(self) -> PanelContext:
        return PanelContext(
            tree=self.session.tree,
            page=self.page,
            selection=tuple(node.id for node in self._selected()),
            client=self.client,
            apply=self.apply,
            run=self._run_from_panel,
            add=lambda element_type, **data: self.run(lambda: self.add(element_type, **data)),
            show_page=lambda index: self.run(lambda: self.show_page(index)),
            thumbnail=self.thumbnail,
            design_id=self.session.design_id,
            show_try=lambda values: self.run(lambda: self.show_try(values)),
            sheets=lambda index: self.session.sheet_preview(index)[1],
            kept=self._kept,
            add_page=lambda: self.run(self.add_page),
            select=lambda ids: self.run(lambda: self.select_elements(ids)),
            revisions=self.session.revisions,
            revision_thumbnail=self.revision_thumbnail,
            restore=lambda revision: self.run(lambda: self.restore(revision)),
        )

    def _refresh_side(self) -> None:
        _, holder, builder = self._tabs[self.side.active]
        if builder is not None:
            holder.objects = [builder(self.panel_context())]

    def _run_from_panel(self, action: Any) -> None:
        """A panel's own action (an upload, a new placeholder): run, then the panel shows its result."""
        self.run(action)
        self._refresh_side()

    def thumbnail(self, index: int) -> bytes:
        """Page `index`'s preview fitted for the pages panel; made again only when the page changed."""
        key = page_content(self.session.tree, index)
        if key not in self._thumbnails:
            if len(self._thumbnails) >= PREVIEWS_KEPT:
                self._thumbnails.pop(next(iter(self._thumbnails)))  # the oldest
            self._thumbnails[key] = fitted_png(self.session.preview_png(index), THUMBNAIL_SIDE)
        return self._thumbnails[key]

    def revision_thumbnail(self, revision: int) -> bytes:
        """Page 1 of a revision, small, for the History tab: rendered once, kept for good."""
        if revision not in self._revision_thumbnails:
            if len(self._revision_thumbnails) >= PREVIEWS_KEPT:
                self._revision_thumbnails.pop(next(iter(self._revision_thumbnails)))  # the oldest
            png = self.session.revision_preview(revision)
            self._revision_thumbnails[revision] = fitted_png(png, THUMBNAIL_SIDE)
        return self._revision_thumbnails[revision]

    def restore(self, revision: int) -> None:
        """Revision `revision` as a new revision, on the canvas at once (Undo takes it back)."""
        restored = self.session.restore(revision)
        self.say(f"Restored revision {revision} as revision {restored['revision']}. Undo takes it back.", "success")

    def _update_credits(self) -> None:
        try:
            self.credits.object = f"**Credits:** {self.session.credits()}"
        except ApiError as error:
            self.credits.object = f"Credits: unavailable ({error.code})"

    def poll(self) -> None:
        """Show what another client saved (REST, MCP, another tab)."""
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
        # Clear the last message first: a message the action itself shows ("Generated …") stays.
        self.status.visible = False
        try:
            return action()
        except ApiError as error:
            self.say(error.message, "danger")
        except TaskCancelled:  # the tab closed while a render was waiting: nobody to tell
            pass
        except ValueError as error:
            self.say(str(error), "danger")
        except Exception:  # a bug of ours: logged with its traceback, shown as one sentence
            log.exception("editor action failed")
            self.say("Something went wrong on our side; the design was not changed.", "danger")
        return None

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
        field = image_field(element_type)
        if field is not None and field not in data:  # a new image shows a placeholder until one is chosen
            data[field] = self._placeholder_ref()
        action = self._landing(geometry.new_element(self.session.tree, element_type, self.page, (0, 0), **data))
        results = self.session.apply([action])
        self.canvas.selection = [r["data"]["id"] for r in results if "id" in r.get("data", {})]

    def _landing(self, action: dict) -> dict:
        """The add_element action placed in the middle of what the canvas shows, past the
        elements already there (geometry.landing_spot)."""
        tree = self.session.tree
        page = tree.pages[self.page]
        centre = self.canvas.view_centre
        taken = [(box["x"], box["y"]) for box in geometry.boxes(tree, self.page)]
        x, y = geometry.landing_spot(
            (page.width, page.height),
            geometry.size_of_new(action),
            (float(centre[0]), float(centre[1])) if len(centre) == 2 else None,
            taken,
        )
        action["args"]["position"].update(x=x, y=y)
        return action

    def _placeholder_ref(self) -> str:
        asset = self.client.call("create_placeholder_asset", body={"name": "Image placeholder", "label": "Image"})
        return asset["ref"]

    def generate(self) -> None:
        """The PDF with the design's sample values (its design-time content), whatever was tried."""
        self._generated(None)

    def generate_tried(self) -> None:
        """The PDF with the values "Try values" shows on the canvas (one credit, as generate)."""
        if self._tried is None:
            self.say("No tried values are shown: open Try values and show a preview first.")
            return
        self._generated(self._tried)

    def _show_label_sheet(self, preset: str) -> None:
        """The picture of one sheet of the chosen preset filled with the design ("Print on label sheet")."""
        self.pdf_options.show_sheet(None)
        if preset:
            png, labels = self.session.label_sheet_preview({"preset": preset})
            self.pdf_options.show_sheet(png, labels)

    def _generated(self, values: dict | None) -> None:
        sheet = self.pdf_options.chosen_sheet
        if sheet is not None:  # one label on the sheet, through a batch of one row
            generated = self.session.generate_on_label_sheet(sheet, values, options=self.pdf_options.body_keys())
        else:
            generated = self.session.generate(values, options=self.pdf_options.body_keys())
        filename, url = generated["filename"], generated["downloadUrl"]
        if not self.files_served:
            url = "data:application/pdf;base64," + base64.b64encode(self.client.fetch(url)).decode()
        self.download.start(url, filename)
        self._update_credits()
        extras = self.pdf_options.describe()
        which = "with the values you tried" if values is not None else "with the design's sample values"
        self.say(f"Generated {filename} {which} ({f'{extras}; ' if extras else ''}1 credit).", "success")

    def _on_selection(self, event: Any) -> None:
        if list(self.layers.selection) != list(event.new):
            self.layers.selection = list(event.new)
        self._refresh_properties()

    def _on_layer_selection(self, event: Any) -> None:
        if list(self.canvas.selection) != list(event.new):
            self.canvas.selection = list(event.new)

    def gesture(self, message: dict) -> None:
        """One gesture from the canvas or the layer list, saved as one action batch."""
        kind = message.get("kind")
        log.debug("gesture %s", kind)
        if kind == "lift":  # not an edit: nothing is saved, and the drag goes on (no redraw)
            self.run(lambda: self._lift(message["ids"]))
            return
        handlers = {
            "move": lambda: self._place(message["changes"], resized=False),
            "resize": lambda: self._place(message["changes"], resized=True),
            "nudge": lambda: self._nudge(message["ids"], float(message["dx"]), float(message["dy"])),
            "delete": lambda: self._delete(message["ids"]),
            "paste": lambda: self._paste(message["ids"]),
            "edit_text": lambda: self._edit_text(message["id"], message["text"], message.get("markdown") is True),
            "undo": self.undo,
            "redo": self.redo,
            "toggle": lambda: self._toggle(message["id"], message["flag"]),
            "reorder": lambda: self.session.apply(
                [{"type": "reorder_element", "args": {"id": message["id"], "to": int(message["to"])}}]
            ),
            "align": lambda: self._align(message["ids"], message["how"]),
            "distribute": lambda: self._distribute(message["ids"], message["axis"]),
            "duplicate": lambda: self._duplicate(message["ids"]),
            "order": lambda: self._order(message["ids"], message["to"]),
            "lock": lambda: self._lock(message["ids"], bool(message["locked"])),
            "drop": lambda: self._drop(message),
        }
        handler = handlers.get(kind)
        before = self.session.tree
        if handler is not None:
            self.run(handler)
        if self.session.tree is before:
            # Nothing saved (refused, locked, or no change): no new boxes will come, so the
            # browser puts back what it moved.
            self.canvas.redraw()

    def _place(self, changes: list[dict], resized: bool) -> None:
        nodes = self.session.tree.nodes
        actions = [
            geometry.placement_patch(nodes[c["id"]], c, resized)
            for c in changes
            if c["id"] in nodes and not nodes[c["id"]].isLocked
        ]
        self.session.apply(actions)

    def _lift(self, ids: list[str]) -> None:
        """A drag began: send the page without the dragged elements, shown under them while they
        move. A free preview, cached by what it shows: nothing is saved and no credit is spent."""
        on_page = set(self.session.tree.pages[self.page].elements)
        lifted = tuple(i for i in ids if i in on_page)
        # Past the preview's limit (about 100 elements) the dragged pixels move over the page as it is.
        if lifted and len(",".join(lifted)) <= PREVIEW_WITHOUT_MAX_LENGTH:
            # The ids come back as sent: the browser matches the picture to the drag that asked.
            self.canvas.show_under(list(ids), self.session.preview_data_url(self.page, without=lifted))

    def _nudge(self, ids: list[str], dx: float, dy: float) -> None:
        """Move by (dx, dy) from where the saved tree has each element: quick nudges add up."""
        nodes = self.session.tree.nodes
        moved = [nodes[i] for i in ids if i in nodes and not nodes[i].isLocked]
        changes = [{"id": n.id, "x": n.position.x + dx, "y": n.position.y + dy} for n in moved]
        self.session.apply([geometry.placement_patch(nodes[c["id"]], c, resized=False) for c in changes])

    def _edit_text(self, node_id: str, typed: str, markdown: bool = False) -> None:
        """Text typed on the canvas: one update_element, so one undo step. A locked element,
        one gone meanwhile, or a type without inline text saves nothing. `markdown`: a part
        was made bold, italic or a link, so the text reads Markdown from now on."""
        node = self.session.tree.nodes.get(node_id)
        if node is None or geometry.inline_text(node) is None or not isinstance(typed, str):
            return
        self.session.apply([geometry.text_typed(node, typed, markdown)])

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

    def _drop(self, message: dict) -> None:
        """A file dropped on the page, uploaded to the asset library: a PDF becomes the page's
        background (its page 1; the Pages tab changes the page), an image is placed centred
        where it was dropped (extensions.md 12)."""
        name, data = dropped_file(message, self.canvas.drop_limit)
        asset = self.client.call("create_asset", file=UploadedFile(data, name), form={"name": name})
        if asset.get("mimeType") == PDF_MIME:
            self.session.apply(
                [
                    {
                        "type": "set_page_background",
                        "args": {"page": self.page, "backgroundImage": asset["ref"], "backgroundPageNumber": 1},
                    }
                ]
            )
            self.say(f"{name} is page {self.page + 1}'s background (its page 1 of {asset.get('pages', 1)}).")
            return
        at = (float(message.get("x") or 0), float(message.get("y") or 0))
        action = geometry.new_element(self.session.tree, "image", self.page, at, src=asset["ref"])
        w, h = geometry.size_of_new(action)
        action["args"]["position"].update(x=round(at[0] - w / 2, 2), y=round(at[1] - h / 2, 2))
        results = self.session.apply([action])
        self.canvas.selection = [r["data"]["id"] for r in results if "id" in r.get("data", {})]

    def _toggle(self, node_id: str, flag: str) -> None:
        node = self.session.tree.nodes[node_id]
        self.session.apply([{"type": "update_element", "args": {"id": node_id, flag: not getattr(node, flag)}}])

    # -- arranging a selection (issue 14) -------------------------------------------------------

    def _arrange_bar(self) -> pn.viewable.Viewable:
        """Align and distribute buttons for a multi-selection, floating over the canvas's bottom edge
        (editor.css .dbk-overlays), so selecting a second element moves nothing under the pointer."""
        labels = {"left": "⇤ Left", "centre": "↔ Centre", "right": "⇥ Right", "top": "⤒ Top", "middle": "↕ Middle"}
        labels |= {"bottom": "⤓ Bottom", "horizontal": "Distribute ↔", "vertical": "Distribute ↕"}

        def selection() -> list[str]:  # read at each click
            return list(self.canvas.selection)

        align = [
            self._button(labels[how], lambda how=how: self._align(selection(), how), f"dbk-align-{how}")
            for how in arrange.ALIGNMENTS
        ]
        distribute = [
            self._button(labels[axis], lambda axis=axis: self._distribute(selection(), axis), f"dbk-distribute-{axis}")
            for axis in arrange.AXES
        ]
        buttons = pn.Row(
            pn.pane.HTML("<small>Align</small>", margin=(14, 4, 0, 10)),
            *align,
            pn.Spacer(width=12),
            *distribute,
            visible=False,
            css_classes=["dbk-arrange"],
            stylesheets=[STYLESHEET],
        )

        def show(event: Any) -> None:
            buttons.visible = len(event.new) >= 2

        self.canvas.param.watch(show, "selection")
        return pn.Row(buttons, margin=0, css_classes=["dbk-arrange-band"], stylesheets=[STYLESHEET])

    def _arranged(self, ids: list[str]) -> list[Any]:
        nodes = self.session.tree.nodes
        return [nodes[i] for i in ids if i in nodes]

    def _align(self, ids: list[str], how: str) -> None:
        page = self.session.tree.pages[self.page]
        self.session.apply(arrange.align(self._arranged(ids), how, (page.width, page.height)))

    def _distribute(self, ids: list[str], axis: str) -> None:
        self.session.apply(arrange.distribute(self._arranged(ids), axis))

    def _duplicate(self, ids: list[str]) -> None:
        """Copies of the elements in one batch, nudged down and right, and selected."""
        copied = [node.model_dump(exclude_none=True) for node in self._arranged(ids)]
        if not copied:
            return
        results = self.session.apply(geometry.pasted(self.session.tree, copied, self.page))
        self.canvas.selection = [r["data"]["id"] for r in results if "id" in r.get("data", {})]

    def _order(self, ids: list[str], to: str) -> None:
        """Bring to front or send to back, keeping the elements' order among themselves."""
        if to not in ("front", "back"):
            raise ValueError(f"unknown paint order {to!r}")
        painted = self.session.tree.pages[self.page].elements
        chosen = [i for i in painted if i in set(ids)]  # back to front
        moves = chosen if to == "front" else list(reversed(chosen))
        self.session.apply([{"type": "reorder_element", "args": {"id": i, "to": to}} for i in moves])

    def _lock(self, ids: list[str], locked: bool) -> None:
        self.session.apply(
            [{"type": "update_element", "args": {"id": n.id, "isLocked": locked}} for n in self._arranged(ids)]
        )

    def _zoom_readout(self) -> pn.viewable.Viewable:
        """The zoom in %, 100 % being the "100%" button's 96 px per inch; follows every zoom change
        (buttons, Fit, Ctrl+wheel), which all land in the canvas's `zoom` or `fit_scale`."""
        readout = pn.pane.HTML("", css_classes=["dbk-zoom-readout"], margin=(14, 6))

        def show(*_: Any) -> None:
            pixels_per_point = self.canvas.zoom or self.canvas.fit_scale
            readout.object = f'<span class="dbk-zoom-value">{round(pixels_per_point / (96 / 72) * 100)}%</span>'

        self.canvas.param.watch(show, ["zoom", "fit_scale"])
        show()
        return readout

    def add_page(self) -> None:
        """Add a page after the last one and show it, in one refresh (a second rebuild of the
        panel in the same callback collides with the first in the browser)."""
        shown = self.page
        self.page = len(self.session.tree.pages)  # the new page's index: refresh shows it once saved
        try:
            self.session.apply([{"type": "add_page", "args": {}}])
        except Exception:
            self.page = shown
            raise

    def show_try(self, values: dict | None) -> None:
        """A preview with tried values on the canvas in place of the page (its first sheet), marked
        as such, with "Generate this" offered; None (or any edit, which refreshes the canvas) shows
        the page again. The service checks the values: a refusal leaves the canvas as it was."""
        if values is not None:
            png, sheets = self.session.tried_preview(self.page, values, 0)
            self._show_tried(values)
            self.sheet = 0
            self._show_sheet(png, sheets)
            return
        self._show_tried(None)
        self.status.visible = False
        self.sheet = min(self.sheet, self.session.sheet_preview(self.page)[1] - 1)
        self.canvas.param.update(
            image=self._picture(), boxes=geometry.boxes(self.session.tree, self.page) if self.sheet == 0 else []
        )

    def _show_tried(self, values: dict | None) -> None:
        """Remember the values shown (None: the design's) and say which values each Generate uses."""
        if values is None and self._tried is not None:
            self.status.visible = False  # its "PREVIEW with the values you tried" is no longer true
        self._tried = values
        tried = values is not None
        if self._generate_tried.visible != tried:  # every refresh passes here: only a change is sent
            self._generate_tried.visible = tried
            self._generate.param.update(
                label=SAMPLES_LABEL if tried else GENERATE_LABEL,
                color="default" if tried else "primary",  # "Generate this" is the one offered
            )
        if values is not None:
            self.say(
                'PREVIEW with the values you tried (free, not saved). "Generate this" makes the PDF with them '
                '(1 credit); "Generate with sample values" uses the design\'s. Edit the design or go back to see '
                "the page.",
                "warning",
            )

    # -- the sheets of a page (issue 35) -------------------------------------------------------

    def _sheet_pager(self) -> pn.viewable.Viewable:
        """ "◀ Sheet 2 of 3 ▶": a page whose tables or flowing texts grow lays out as several sheets,
        each rendered when it is looked at (and cached). Hidden while the page has one."""
        self._sheet_label = pn.pane.HTML("", css_classes=["dbk-sheet-label"], margin=(14, 4))
        previous = self._button("◀", lambda: self.show_sheet(self.sheet - 1), "dbk-sheet-previous")
        following = self._button("▶", lambda: self.show_sheet(self.sheet + 1), "dbk-sheet-next")
        self._sheets_row = pn.Row(previous, self._sheet_label, following, visible=False, css_classes=["dbk-sheets"])
        return self._sheets_row

    def _picture(self) -> str:
        """The canvas's picture of the shown sheet of the page, as saved: a data URL. A sheet the
        page no longer has (an edit shortened it) gives way to its last one."""
        try:
            png, sheets = self.session.sheet_preview(self.page, self.sheet)
        except ApiError:
            if self.sheet == 0:
                raise
            self.sheet = max(0, self.session.sheet_preview(self.page)[1] - 1)
            png, sheets = self.session.sheet_preview(self.page, self.sheet)
        self._show_count(sheets)
        return "data:image/png;base64," + base64.b64encode(png).decode()

    def _show_count(self, sheets: int) -> None:
        self._sheet_count = sheets
        if self._sheets_row.visible != (sheets > 1):
            self._sheets_row.visible = sheets > 1
        label = f'<span class="dbk-sheet-value">Sheet {self.sheet + 1} of {sheets}</span>'
        if self._sheet_label.object != label:
            self._sheet_label.object = label

    def _show_sheet(self, png: bytes, sheets: int) -> None:
        self._show_count(sheets)
        self.canvas.image = "data:image/png;base64," + base64.b64encode(png).decode()

    def show_sheet(self, index: int) -> None:
        """Show sheet `index` of the page (with the tried values while they are shown); on a
        continuation sheet the elements' handles are hidden: they are edited on the first."""
        if index < 0:
            return
        if self._tried is not None:
            png, sheets = self.session.tried_preview(self.page, self._tried, min(index, self._sheet_count - 1))
            self.sheet = min(index, sheets - 1)
            self._show_tried(self._tried)  # its message again (run() cleared it)
            self._show_sheet(png, sheets)
            return
        self.sheet = min(index, self.session.sheet_preview(self.page)[1] - 1)
        image = self._picture()
        boxes = geometry.boxes(self.session.tree, self.page) if self.sheet == 0 else []
        self.canvas.param.update(image=image, boxes=boxes)

    def show_page(self, index: int) -> None:
        self.page = index
        self.sheet = 0
        self.canvas.selection = []
        self.refresh()

    def select_elements(self, ids: Sequence[str]) -> None:
        """Select these elements on the canvas, showing the page of the first if it is another."""
        pages = self.session.tree.pages
        on = next((i for i, page in enumerate(pages) for node_id in ids if node_id in page.elements), None)
        if on is None:
            return
        if on != self.page:
            self.show_page(on)
        self.canvas.selection = [i for i in ids if i in pages[on].elements]

    def __panel__(self) -> pn.viewable.Viewable:
        return self.view
