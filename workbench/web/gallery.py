"""The workspace's designs: thumbnails, create (name, paper, orientation, custom size), new
from a template or from a PDF, rename, open, duplicate, delete (asked in the card first)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import panel as pn

from api.errors import ApiError
from api.images.processing import fitted_png
from api.operations import UploadedFile
from api.renderers import TaskCancelled

from ..client.api import Client
from ..editor.text import text
from ..templates import create_from_template, template_choices
from .new_design import NewDesignForm

WIDE = {"sizing_mode": "stretch_width"}


class Gallery:
    def __init__(self, client: Client, open_design: Callable[[str], None]):
        self.client = client
        self._open_design = open_design
        self.left = False  # a design was opened in its place: the thumbnails left are for nobody
        self.message = pn.pane.Alert("", alert_type="danger", visible=False, **WIDE)
        self.grid = pn.FlexBox(css_classes=["dbk-gallery"], **WIDE)
        self.view = pn.Column(
            pn.pane.Markdown("## Designs"),
            self._create_form(),
            self._template_form(),
            self._pdf_form(),
            self.message,
            self.grid,
            **WIDE,
        )
        self.refresh()

    def open_design(self, design_id: str) -> None:
        self.left = True
        self._open_design(design_id)

    def _create_form(self) -> NewDesignForm:
        form = NewDesignForm(**WIDE)

        def submit(event: Any) -> None:
            fields = event.new
            body: dict[str, Any] = {"name": str(fields.get("name", "")).strip() or "Untitled design"}
            if fields.get("paper") == "Custom":
                body.update(width=fields.get("width"), height=fields.get("height"))
            else:
                body.update(size=fields.get("paper"), orientation=fields.get("orientation"))
            try:
                created = self.client.call("create_design", body=body)
            except ApiError as error:
                self.message.param.update(object=text(error.message), visible=True)
                return
            self.open_design(created["designId"])

        form.param.watch(submit, "submitted")
        return form

    def _template_form(self) -> pn.Row:
        """The "New from template" form: the bundled examples (workbench.samples.TEMPLATES), made and opened."""
        choices = template_choices()
        template = pn.widgets.Select(
            label="New from template",
            options=choices,
            value=next(iter(choices.values())),
            width=220,
            css_classes=["dbk-template"],
        )
        create = pn.widgets.Button(label="Create from template", css_classes=["dbk-template-create"], margin=(24, 5))
        create.on_click(
            lambda e: self._run(lambda: self.open_design(create_from_template(self.client, template.value)))
        )
        return pn.Row(template, create, css_classes=["dbk-templates"])

    def _pdf_form(self) -> pn.Row:
        """"From a PDF…": the chosen PDF goes to the asset library, and a design is made from it
        (`basePdf`: a page per PDF page at its size, its form fields as elements) and opened."""
        choose = pn.widgets.FileInput(accept=".pdf", css_classes=["dbk-from-pdf"], width=260)

        def chosen(event: Any) -> None:
            if not event.new:
                return
            filename = choose.filename or "document.pdf"
            name = filename.rsplit(".", 1)[0] or "Untitled design"

            def create() -> None:
                pdf = UploadedFile(event.new, filename)
                asset = self.client.call("create_asset", file=pdf, form={"name": filename})
                created = self.client.call("create_design", body={"name": name, "basePdf": {"ref": asset["ref"]}})
                self.open_design(created["designId"])

            self._run(create)

        choose.param.watch(chosen, "value")
        return pn.Row(
            pn.pane.Markdown("**From a PDF…** (a letterhead or a form: a page per PDF page, its fields as elements)"),
            choose,
            css_classes=["dbk-new-from-pdf"],
        )

    def _run(self, action: Callable[[], Any]) -> None:
        """A card's or the template form's action; a refusal becomes the gallery's message."""
        self.message.visible = False
        try:
            action()
        except ApiError as error:
            self.message.param.update(object=text(error.message), visible=True)

    def refresh(self) -> None:
        designs = self.client.call("list_designs", query={"limit": 48})["items"]
        # Each thumbnail's pane exists from the start and only its image is set later: a new
        # model pushed while the person clicks could collide with the click's own message
        # (Bokeh: "reference already known"), and the click was lost.
        thumbs = {d["designId"]: _thumbnail_slot() for d in designs}
        cards = [self._card(design, thumbs[design["designId"]]) for design in designs]
        self.grid.objects = cards or [pn.pane.Markdown("No designs yet: create the first one above.")]
        # Thumbnails render after the page is shown, so a large workspace opens at once; one
        # at a time, each a task of the page's lane that queues the next when it ends, so a
        # click waits for one thumbnail at most, never for the whole grid (docs/editor-state.md).
        pending = list(thumbs.items())
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None and pn.config.nthreads:
            pn.state.onload(lambda: self._fill_next(pending), threaded=True)
        else:
            while pending and self._fill_one(*pending.pop(0)):
                pass

    def _fill_next(self, pending: list[tuple[str, pn.Column]]) -> None:
        if pending and self._fill_one(*pending.pop(0)) and pending:
            pn.state.execute(lambda: self._fill_next(pending), schedule="thread")

    def _fill_one(self, design_id: str, slot: pn.Column) -> bool:
        """One thumbnail; False when the tab has closed or the gallery was left (nobody will see the rest)."""
        cancel = getattr(self.client, "cancel", None)
        if self.left or (cancel is not None and cancel.cancelled):
            return False
        try:
            preview = self.client.call("preview_page", {"designId": design_id}, query={"page": 0})
            slot[0].object = fitted_png(self.client.fetch(preview["previewUrl"]), 180)
        except TaskCancelled:  # the render under way was dropped with the tab
            return False
        except ApiError:
            slot.objects = [pn.pane.Markdown("(no preview)")]
        return True

    def _card(self, design: dict, thumb: pn.Column) -> pn.Column:
        design_id = design["designId"]
        name = pn.widgets.TextInput(value=design["name"], width=180, css_classes=["dbk-card-name"])

        def rename(event: Any) -> None:
            if event.new.strip():
                self.client.call("update_design", {"designId": design_id}, {"name": event.new.strip()})

        name.param.watch(rename, "value")
        open_button = pn.widgets.Button(label="Open", color="primary", css_classes=["dbk-open"], width=180)
        open_button.on_click(lambda e: self.open_design(design_id))
        card = pn.Column(thumb, name, open_button, width=200, css_classes=["dbk-card"], styles={"background": "white"})
        card.append(self._housekeeping(design_id, name, card))
        return card

    def _housekeeping(self, design_id: str, name: pn.widgets.TextInput, card: pn.Column) -> pn.Column:
        """Duplicate, and Delete, which first turns into a question with Confirm and Cancel in the
        card (there is no undo for a delete)."""
        holder = pn.Column(css_classes=["dbk-card-actions"], margin=0)
        duplicate = pn.widgets.Button(label="Duplicate", css_classes=["dbk-duplicate"], width=85)
        delete = pn.widgets.Button(label="Delete", color="danger", css_classes=["dbk-delete"], width=85)
        actions = pn.Row(duplicate, delete, margin=0)

        def duplicated() -> None:
            # The copy is the newest design: its card goes first, the others stay as they are
            # (a whole new grid would be a model per widget again, and every thumbnail asked again).
            copy = self.client.call("duplicate_design", {"designId": design_id}, {})
            slot = _thumbnail_slot()
            self.grid.objects = [self._card(copy, slot), *(c for c in self.grid.objects if isinstance(c, pn.Column))]
            self._fill_one(copy["designId"], slot)

        def deleted() -> None:
            self.client.call("delete_design", {"designId": design_id})
            self.grid.objects = [c for c in self.grid.objects if c is not card] or [
                pn.pane.Markdown("No designs yet: create the first one above.")
            ]

        question = pn.pane.Markdown("", css_classes=["dbk-delete-ask"], margin=(0, 5))
        confirm = pn.widgets.Button(label="Confirm", color="danger", css_classes=["dbk-delete-confirm"], width=85)
        cancel = pn.widgets.Button(label="Cancel", css_classes=["dbk-delete-cancel"], width=85)

        def ask(event: Any) -> None:
            question.object = text(f"Delete {name.value}? There is no undo.")
            holder.objects = [question, pn.Row(confirm, cancel, margin=0)]

        duplicate.on_click(lambda e: self._run(duplicated))
        delete.on_click(ask)
        confirm.on_click(lambda e: self._run(deleted))
        cancel.on_click(lambda e: setattr(holder, "objects", [actions]))
        holder.objects = [actions]
        return holder


def _thumbnail_slot() -> pn.Column:
    # Width and height both: a landscape page fitted to the height alone came out wider than its card.
    return pn.Column(pn.pane.PNG(None, width=180, height=140, fixed_aspect=True), height=140, width=180)
