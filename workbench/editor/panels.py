"""The editor's side panels: pages, images, variables, document. Each is rebuilt from
the current tree when shown; every change goes through the editor as an action batch."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import panel as pn

from api.images.processing import fitted_png
from api.operations import UploadedFile
from engine.paper import PAPER_SIZES

from .text import text

if TYPE_CHECKING:
    from .editor import Editor

WIDE = {"sizing_mode": "stretch_width"}


def _action(kind: str, **args: Any) -> dict:
    return {"type": kind, "args": args}


def pages_panel(editor: Editor) -> pn.Column:
    tree = editor.session.tree
    thumbs = []
    for index in range(len(tree.pages)):
        png = fitted_png(editor.session.preview_png(index), 120)
        button = pn.widgets.Button(
            name=f"Page {index + 1}" + (" ●" if index == editor.page else ""),
            css_classes=[f"dbk-page-{index}"],
            button_type="primary" if index == editor.page else "default",
        )
        button.on_click(lambda e, index=index: editor.run(lambda: editor.show_page(index)))
        thumbs.append(pn.Column(pn.pane.PNG(png, width=110), button, width=130))
    page = tree.pages[editor.page]
    add = pn.widgets.Button(name="+ Add page", css_classes=["dbk-add-page"])
    add.on_click(lambda e: editor.apply([_action("add_page")]))
    remove = pn.widgets.Button(name="Remove this page", button_type="danger", disabled=len(tree.pages) == 1)
    remove.on_click(lambda e: editor.apply([_action("remove_page", page=editor.page)]))
    size = pn.widgets.Select(name="Paper", options=["Custom", *PAPER_SIZES], value="Custom", **WIDE)
    orientation = pn.widgets.RadioButtonGroup(
        options=["portrait", "landscape"], value=("landscape" if page.width > page.height else "portrait")
    )
    width = pn.widgets.FloatInput(name="Width (pt)", value=page.width, width=120)
    height = pn.widgets.FloatInput(name="Height (pt)", value=page.height, width=120)
    apply_format = pn.widgets.Button(name="Apply page format", css_classes=["dbk-apply-format"])

    def set_format(event: Any) -> None:
        args: dict[str, Any] = {"page": editor.page}
        if size.value == "Custom":
            args.update(width=width.value, height=height.value)
        else:
            args.update(size=size.value, orientation=orientation.value)
        editor.apply([_action("update_page", **args)])

    apply_format.on_click(set_format)
    colour = _colour_input("Page background", page.backgroundColor)
    colour.param.watch(
        lambda e: editor.apply([_action("set_page_background", page=editor.page, backgroundColor=e.new or None)]),
        "value",
    )
    return pn.Column(
        pn.pane.Markdown("**Pages**"),
        pn.FlexBox(*thumbs),
        pn.Row(add, remove),
        pn.pane.Markdown(f"**Page {editor.page + 1} format** — {page.width:g} × {page.height:g} pt"),
        size,
        orientation,
        pn.Row(width, height),
        apply_format,
        colour,
        **WIDE,
    )


def _colour_input(label: str, value: str | None) -> pn.widgets.TextInput:
    return pn.widgets.TextInput(name=f"{label} (hex or linear-gradient, empty for none)", value=value or "", **WIDE)


def _assets(editor: Editor) -> list[dict]:
    return editor.client.call("list_assets", query={"limit": 50})["items"]


def images_panel(editor: Editor) -> pn.Column:
    upload = pn.widgets.FileInput(accept=".png,.jpg,.jpeg,.webp,.svg", css_classes=["dbk-upload"], **WIDE)

    def uploaded(event: Any) -> None:
        if event.new:
            data, filename = event.new, upload.filename or "image"
            editor.run(
                lambda: (
                    editor.client.call("create_asset", file=UploadedFile(data, filename), form={"name": filename}),
                    editor._refresh_side(),
                )
            )

    upload.param.watch(uploaded, "value")
    label = pn.widgets.TextInput(name="Placeholder label", value="Logo", width=160)
    placeholder = pn.widgets.Button(name="+ Placeholder", margin=(22, 5))
    placeholder.on_click(
        lambda e: editor.run(
            lambda: (
                editor.client.call(
                    "create_placeholder_asset",
                    body={"name": label.value or "Placeholder", "label": (label.value or "Placeholder")[:40]},
                ),
                editor._refresh_side(),
            )
        )
    )
    rows = []
    selected = [editor.session.tree.nodes[i] for i in editor.canvas.selection if i in editor.session.tree.nodes]
    image_node = selected[0] if len(selected) == 1 and selected[0].type == "image" else None
    for asset in _assets(editor):
        thumb = editor.client.fetch(asset["thumbnailUrl"])
        place = pn.widgets.Button(name="Place", css_classes=["dbk-place"], width=60)
        place.on_click(lambda e, ref=asset["ref"]: editor.run(lambda: editor.add("image", src=ref)))
        use = pn.widgets.Button(name="Use in selected", width=110, disabled=image_node is None)
        if image_node is not None:
            use.on_click(
                lambda e, ref=asset["ref"], node=image_node: editor.apply(
                    [_action("update_element", id=node.id, data={"src": ref})]
                )
            )
        background = pn.widgets.Button(name="Page background", width=120)
        background.on_click(
            lambda e, ref=asset["ref"]: editor.apply(
                [_action("set_page_background", page=editor.page, backgroundImage=ref)]
            )
        )
        rows.append(
            pn.Row(
                pn.pane.Image(thumb, width=56, height=56, fixed_aspect=True),
                pn.Column(
                    pn.pane.Markdown(
                        text(asset["name"]) + (" (placeholder)" if asset["isPlaceholder"] else ""), margin=(0, 5)
                    ),
                    pn.Row(place, use),
                    background,
                ),
                css_classes=["dbk-asset"],
            )
        )
    return pn.Column(
        pn.pane.Markdown("**Upload an image** (PNG, JPEG, WebP, SVG)"),
        upload,
        pn.Row(label, placeholder),
        pn.pane.Markdown("**Library**"),
        *rows,
        **WIDE,
    )


def variables_panel(editor: Editor) -> pn.Column:
    """Bind or unbind each element; its design-time content is the sample value."""
    tree = editor.session.tree
    rows: list[Any] = [pn.pane.Markdown("A bound element is filled at generation; its content here is the sample.")]
    for node in tree.nodes.values():
        if node.type == "shape":
            continue
        bound = pn.widgets.Checkbox(
            name=f"{node.name} ({node.type})", value=node.name in tree.variables, css_classes=["dbk-bind"]
        )
        bound.param.watch(
            lambda e, name=node.name: editor.apply(
                [_action("bind_variable" if e.new else "unbind_variable", name=name)]
            ),
            "value",
        )
        rows.append(bound)
        sample = _sample_editor(editor, node)
        if sample is not None:
            rows.append(sample)
    return pn.Column(*rows, **WIDE)


def _sample_editor(editor: Editor, node: Any) -> Any:
    def update(**data: Any) -> None:
        editor.apply([_action("update_element", id=node.id, data=data)])

    if node.type in ("text", "qr", "barcode") and isinstance(node.data.content, str):
        sample = pn.widgets.TextInput(value=node.data.content, name="Sample value", margin=(0, 10, 10, 30), **WIDE)
        sample.param.watch(lambda e: update(content=e.new), "value")
        return sample
    if node.type == "table":
        import csv

        text = io.StringIO()
        csv.writer(text).writerows(
            [[c if isinstance(c, str) else c.data.content for c in row] for row in node.data.cells or []]
        )
        sample = pn.widgets.TextAreaInput(
            value=text.getvalue(), name="Sample rows (CSV, header first)", rows=4, margin=(0, 10, 10, 30), **WIDE
        )
        sample.param.watch(lambda e: update(cells=[r for r in csv.reader(io.StringIO(e.new)) if r]), "value")
        return sample
    return None


def document_panel(editor: Editor) -> pn.Column:
    tree = editor.session.tree
    fields = []
    for field in ("title", "author", "subject", "keywords", "creator", "language"):
        widget = pn.widgets.TextInput(
            name=field.capitalize() + (" (BCP 47, e.g. en-GB)" if field == "language" else ""),
            value=getattr(tree.metadata, field) or "",
            css_classes=[f"dbk-meta-{field}"],
            **WIDE,
        )
        widget.param.watch(
            lambda e, field=field: editor.apply([_action("set_metadata", **{field: e.new or None})]), "value"
        )
        fields.append(widget)
    colour = _colour_input("Document background", tree.background.backgroundColor)
    colour.param.watch(
        lambda e: editor.apply([_action("set_document_background", backgroundColor=e.new or None)]), "value"
    )
    return pn.Column(pn.pane.Markdown("**PDF metadata**"), *fields, pn.pane.Markdown("**Every page**"), colour, **WIDE)
