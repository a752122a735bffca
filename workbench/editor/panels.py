"""The editor's side panels: pages, images, variables, document, try values, history.

Each is built from a `PanelContext` (panel_context.py: the tree, the page shown, the selection and what a
panel may do) when its tab is shown and after every save; every change goes out as an
action batch through `apply`. `SIDE_PANELS` declares the tabs with their builders.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import panel as pn

from api.errors import ApiError
from api.operations import UploadedFile
from engine import DesignTree
from engine.design.paper import PAPER_SIZES, named_size, shown_points
from engine.design.placeholder_variables import field_value, placeholder_nodes
from engine.design.tree import Metadata
from engine.elements import ELEMENT_TYPES

from .colour_picker import ColourPicker, design_colours
from .history import history_panel
from .panel_context import PanelContext
from .properties import variable_widget
from .style import TYPED_TEXT
from .text import text
from .try_values import try_values_panel

WIDE = {"sizing_mode": "stretch_width"}


def image_field(element_type: str) -> str | None:
    """The data field of the type that holds an image ref, if any (its declared image_fields)."""
    declared = ELEMENT_TYPES[element_type].image_fields
    data_fields = [path.split(".", 1)[1] for path in declared if path.startswith("data.")]
    return data_fields[0] if data_fields else None


def _action(kind: str, **args: Any) -> dict:
    return {"type": kind, "args": args}


def pages_panel(ctx: PanelContext) -> pn.Column:
    tree = ctx.tree
    thumbs = []
    for index in range(len(tree.pages)):
        button = pn.widgets.Button(
            label=f"Page {index + 1}" + (" ●" if index == ctx.page else ""),
            css_classes=[f"dbk-page-{index}"],
            color="primary" if index == ctx.page else "default",
        )
        button.on_click(lambda e, index=index: ctx.show_page(index))
        thumbnail = ctx.thumbnail(index)  # previewed first: the page's sheet count comes with it
        sheets = ctx.sheets(index)
        count = pn.pane.HTML(
            f"<small>{sheets} sheets</small>" if sheets > 1 else "", css_classes=[f"dbk-page-sheets-{index}"]
        )
        thumbs.append(pn.Column(pn.pane.PNG(thumbnail, width=110), button, count, width=130))
    page = tree.pages[ctx.page]
    add = pn.widgets.Button(label="+ Add page", css_classes=["dbk-add-page"])
    # The new page is shown: the next "Remove this page" is about it, never the finished one before.
    add.on_click(lambda e: ctx.add_page())
    paper = named_size(page.width, page.height)
    size = pn.widgets.Select(
        label="Paper",
        options=["Custom", *PAPER_SIZES],
        value=paper[0] if paper else "Custom",
        css_classes=["dbk-paper-size"],
        **WIDE,
    )
    orientation = pn.widgets.RadioButtonGroup(
        options=["portrait", "landscape"], value=("landscape" if page.width > page.height else "portrait")
    )
    width = pn.widgets.FloatInput(label="Width (pt)", value=round(page.width, 2), width=120)
    height = pn.widgets.FloatInput(label="Height (pt)", value=round(page.height, 2), width=120)
    apply_format = pn.widgets.Button(label="Apply page format", css_classes=["dbk-apply-format"])

    def set_format(event: Any) -> None:
        args: dict[str, Any] = {"page": ctx.page}
        if size.value == "Custom":
            args.update(width=width.value, height=height.value)
        else:
            args.update(size=size.value, orientation=orientation.value)
        ctx.apply([_action("update_page", **args)])

    apply_format.on_click(set_format)
    colour = _colour_input("Page background", page.backgroundColor, design_colours(ctx.tree))
    colour.param.watch(
        lambda e: ctx.apply([_action("set_page_background", page=ctx.page, backgroundColor=e.new or None)]),
        "value",
    )
    return pn.Column(
        pn.pane.Markdown("**Pages**"),
        pn.FlexBox(*thumbs),
        pn.Row(add, _page_removal(ctx)),
        pn.pane.Markdown(
            f"**Page {ctx.page + 1}** — {paper_label(page.width, page.height)}", css_classes=["dbk-paper"]
        ),
        size,
        orientation,
        pn.Row(width, height),
        apply_format,
        colour,
        *_background_page(ctx),
        **WIDE,
    )


def _background_page(ctx: PanelContext) -> list[Any]:
    """The "PDF page" of the page's background, when that is a PDF: a number 1..its page count."""
    page = ctx.tree.pages[ctx.page]
    count = pdf_pages(ctx.client, page.backgroundImage)
    if not count:
        return []
    number = pn.widgets.IntInput(
        name=f"Background: PDF page (1–{count})",
        value=page.backgroundPageNumber or 1,
        start=1,
        end=count,
        css_classes=["dbk-background-page"],
        **WIDE,
    )
    number.param.watch(
        lambda e: ctx.apply([_action("set_page_background", page=ctx.page, backgroundPageNumber=int(e.new or 1))]),
        "value",
    )
    return [number]


def paper_label(width: float, height: float) -> str:
    """The paper line: "Paper: A4 landscape · 841.9 × 595.3 pt", or "Paper: Custom · 400 × 250 pt"."""
    paper = named_size(width, height)
    name = f"{paper[0]} {paper[1]}" if paper else "Custom"
    return f"Paper: {name} · {shown_points(width)} × {shown_points(height)} pt"


def _page_removal(ctx: PanelContext) -> pn.Row:
    """The "Remove this page" button: at once for an empty page; for one with elements, the button turns into
    a question with Confirm and Cancel first (in the panel: a browser dialog would block the page)."""
    tree, index = ctx.tree, ctx.page
    count = len(tree.pages[index].elements)
    holder = pn.Row(css_classes=["dbk-page-removal"])
    remove = pn.widgets.Button(
        label="Remove this page", color="danger", disabled=len(tree.pages) == 1, css_classes=["dbk-remove-page"]
    )

    def removed() -> None:
        ctx.apply([_action("remove_page", page=index)])

    question = pn.pane.Markdown(
        f"Remove page {index + 1} and its {count} element{'s' if count != 1 else ''}?", css_classes=["dbk-remove-ask"]
    )
    confirm = pn.widgets.Button(label="Confirm", color="danger", css_classes=["dbk-remove-confirm"])
    cancel = pn.widgets.Button(label="Cancel", css_classes=["dbk-remove-cancel"])
    confirm.on_click(lambda e: removed())
    cancel.on_click(lambda e: setattr(holder, "objects", [remove]))
    remove.on_click(lambda e: removed() if count == 0 else setattr(holder, "objects", [question, confirm, cancel]))
    holder.objects = [remove]
    return holder


def _colour_input(label: str, value: str | None, swatches: Sequence[str] = ()) -> ColourPicker:
    """A background colour: picked, typed as hex or as a linear-gradient(…), or none (value "")."""
    return ColourPicker(
        caption=f"{label} (a colour, a linear-gradient, or none)",
        value=value or "",
        optional=True,
        free_text=True,
        swatches=list(swatches),
        margin=(5, 10),
        **WIDE,
    )


PDF_MIME = "application/pdf"


def media_label(asset: dict) -> str:
    """An asset's line in the library: its name and "(placeholder)"; for a PDF, "PDF · N pages"
    on a line of its own."""
    label = text(asset["name"]) + (" (placeholder)" if asset.get("isPlaceholder") else "")
    if asset.get("mimeType") == PDF_MIME:
        count = asset.get("pages") or 1
        label += f"<br><small>PDF · {count} page{'s' if count != 1 else ''}</small>"
    return label


def pdf_pages(client: Any, ref: str | None) -> int | None:
    """The page count of a PDF asset or upload `ref`; None for an image (or a ref not found)."""
    # Only assets can be looked up (an upload has no read operation): an upload's page is kept as set.
    if not ref or not ref.startswith("assets:"):
        return None
    try:
        record = client.call("get_asset", params={"assetId": ref.split(":", 1)[1]})
    except ApiError:  # a ref gone or of another workspace: the page number is not offered
        return None
    return record.get("pages") if record.get("mimeType") == PDF_MIME else None


def images_panel(ctx: PanelContext) -> pn.Column:
    upload = pn.widgets.FileInput(accept=".png,.jpg,.jpeg,.webp,.svg,.pdf", css_classes=["dbk-upload"], **WIDE)

    def uploaded(event: Any) -> None:
        if event.new:
            data, filename = event.new, upload.filename or "image"
            ctx.run(lambda: ctx.client.call("create_asset", file=UploadedFile(data, filename), form={"name": filename}))

    upload.param.watch(uploaded, "value")
    label = pn.widgets.TextInput(label="Placeholder label", value="Logo", width=160)
    placeholder = pn.widgets.Button(label="+ Placeholder", margin=(22, 5))
    placeholder.on_click(
        lambda e: ctx.run(
            lambda: ctx.client.call(
                "create_placeholder_asset",
                body={"name": label.value or "Placeholder", "label": (label.value or "Placeholder")[:40]},
            )
        )
    )
    rows = []
    selected = [ctx.tree.nodes[i] for i in ctx.selection]
    target = selected[0] if len(selected) == 1 and image_field(selected[0].type) else None
    # "Place" adds the first element type that draws an image from a data field (the image).
    placed = next(name for name in ELEMENT_TYPES if image_field(name) is not None)
    for asset in ctx.client.call("list_assets", query={"limit": 50})["items"]:
        rows.append(_asset_row(ctx, asset, placed, target))
    return pn.Column(
        pn.pane.Markdown("**Upload an image or a PDF** (PNG, JPEG, WebP, SVG, PDF)"),
        upload,
        pn.Row(label, placeholder),
        pn.pane.Markdown("**Library**"),
        *rows,
        **WIDE,
    )


def _asset_row(ctx: PanelContext, asset: dict, placed: str, target: Any) -> pn.Row:
    """One library entry: its thumbnail and name, Place, Use in selected, Page background. For a
    PDF a page number (1..its page count) says which page each of them takes (extensions.md 12)."""
    ref = asset["ref"]
    thumb = ctx.client.fetch(asset["thumbnailUrl"])
    count = asset.get("pages") if asset.get("mimeType") == PDF_MIME else None
    number = (
        pn.widgets.IntInput(
            name="PDF page", value=1, start=1, end=count, width=80, css_classes=["dbk-asset-page"]
        )
        if count
        else None
    )

    def which() -> dict[str, Any]:
        return {"pageNumber": int(number.value or 1)} if number is not None else {}

    place = pn.widgets.Button(label="Place", css_classes=["dbk-place"], width=60)
    place.on_click(lambda e: ctx.add(placed, **{image_field(placed): ref, **which()}))
    use = pn.widgets.Button(label="Use in selected", width=110, disabled=target is None, css_classes=["dbk-use"])
    if target is not None:
        # An image taken from a PDF before keeps no stale page number: the page is always sent.
        use.on_click(
            lambda e, node=target: ctx.apply(
                [
                    _action(
                        "update_element",
                        id=node.id,
                        data={image_field(node.type): ref, **({"pageNumber": None} if count is None else which())},
                    )
                ]
            )
        )
    background = pn.widgets.Button(label="Page background", width=120, css_classes=["dbk-as-background"])
    background.on_click(
        lambda e: ctx.apply(
            [
                _action(
                    "set_page_background",
                    page=ctx.page,
                    backgroundImage=ref,
                    backgroundPageNumber=which()["pageNumber"] if count else None,
                )
            ]
        )
    )
    # The page number first: Place, Use in selected and Page background all take that page.
    controls = ([number] if number is not None else []) + [pn.Row(place, use), background]
    return pn.Row(
        pn.pane.Image(thumb, width=56, height=56, fixed_aspect=True),
        pn.Column(pn.pane.Markdown(media_label(asset), margin=(0, 5), width=190), *controls),
        css_classes=["dbk-asset"],
    )


def variables_panel(ctx: PanelContext) -> pn.Column:
    """Bind or unbind each element whose type can be bound; its design-time content is the sample.
    A variable's name selects its element (a field's, the texts holding it) on the canvas."""
    tree = ctx.tree
    rows: list[Any] = [
        pn.pane.Markdown("A ticked element is filled at generation; its content is the sample. A name selects it.")
    ]
    for node in tree.nodes.values():
        if ELEMENT_TYPES[node.type].variable is None:
            continue
        bound = pn.widgets.Checkbox(
            value=tree.variable_of(node) is not None, css_classes=["dbk-bind"], width=20, margin=(8, 0, 8, 10)
        )
        bound.param.watch(
            lambda e, name=node.name: ctx.apply([_action("bind_variable" if e.new else "unbind_variable", name=name)]),
            "value",
        )
        rows.append(pn.Row(bound, _selecting(f"{node.name} ({node.type})", [node.id], ctx), **WIDE))
        # The sample of an unbound element would only repeat its content: shown once it is bound.
        sample = variable_widget(node, ctx.apply) if tree.variable_of(node) is not None else None
        if sample is not None:
            rows.append(pn.Column(_fit_width(sample), margin=(0, 10, 10, 30), css_classes=["dbk-sample"], **WIDE))
    rows.extend(field_rows(tree, ctx.apply, ctx))
    return pn.Column(*rows, **WIDE)


def _fit_width(sample: Any) -> Any:
    """The sample's inputs as wide as the panel: the properties form's widgets are 300 px wide
    (the right column's width), which past this panel's indent made the whole tab wider than
    its column, over the ruler."""
    for widget in sample.select(lambda o: isinstance(o, pn.widgets.Widget) and not isinstance(o, pn.widgets.Button)):
        widget.param.update(width=None, sizing_mode="stretch_width")
    return sample


def _selecting(label: str, ids: list[str], ctx: PanelContext) -> pn.widgets.Button:
    """A variable's name as a link-like button selecting its elements on the canvas."""
    button = pn.widgets.Button(
        label=label, color="light", css_classes=["dbk-variable-label"], margin=(4, 5)
    )
    button.on_click(lambda e: ctx.select(ids))
    return button


def field_rows(
    tree: DesignTree, apply: Callable[[list[dict]], None], ctx: PanelContext | None = None
) -> list[Any]:
    """Each field variable (a `{name}` placeholder no element is bound under, extensions.md 1)
    with its sample; an edit sets that sample in every element holding the placeholder, as
    one batch. With `ctx`, the field's name selects the elements holding it."""
    holders = placeholder_nodes(tree)
    fields = [name for name, variable in tree.variables.items() if variable.nodeId is None]
    if not fields:
        return []
    rows: list[Any] = [pn.pane.Markdown("**Fields** (placeholders in texts; the sample shows in the preview)")]
    for name in fields:
        nodes = holders.get(name, [])
        box = pn.widgets.TextInput(
            label=f"{{{name}}} (field, in {', '.join(node.name for node in nodes)})",
            value=field_value(tree, name) or "",
            css_classes=["dbk-field-sample"],
            stylesheets=[TYPED_TEXT],
            **WIDE,
        )

        def set_sample(event: Any, name: str = name, nodes: list[Any] = nodes) -> None:
            actions = []
            for node in nodes:
                kept = (
                    {**node.data.samples, name: event.new}
                    if event.new
                    else {k: v for k, v in node.data.samples.items() if k != name}
                )
                actions.append({"type": "update_element", "args": {"id": node.id, "data": {"samples": kept}}})
            apply(actions)

        box.param.watch(set_sample, "value")
        if ctx is not None and nodes:
            rows.append(_selecting(f"{{{name}}}", [node.id for node in nodes], ctx))
        rows.append(box)
    return rows


# The metadata a person fills in: every optional field of the tree's metadata model
# (`schemaVersion` has a fixed value).
METADATA_FIELDS = tuple(name for name, field in Metadata.model_fields.items() if field.default is None)


def document_panel(ctx: PanelContext) -> pn.Column:
    tree = ctx.tree
    fields = []
    for field in METADATA_FIELDS:
        description = Metadata.model_fields[field].description
        widget = pn.widgets.TextInput(
            label=field.capitalize() + (f" ({description})" if description else ""),
            value=getattr(tree.metadata, field) or "",
            css_classes=[f"dbk-meta-{field}"],
            **WIDE,
        )
        widget.param.watch(
            lambda e, field=field: ctx.apply([_action("set_metadata", **{field: e.new or None})]), "value"
        )
        fields.append(widget)
    colour = _colour_input("Document background", tree.background.backgroundColor, design_colours(tree))
    colour.param.watch(
        lambda e: ctx.apply([_action("set_document_background", backgroundColor=e.new or None)]), "value"
    )
    return pn.Column(pn.pane.Markdown("**PDF metadata**"), *fields, pn.pane.Markdown("**Every page**"), colour, **WIDE)


# The side tabs after Layers, in order, each with the builder that fills it.
SIDE_PANELS: list[tuple[str, Callable[[PanelContext], pn.viewable.Viewable]]] = [
    ("Pages", pages_panel),
    ("Images", images_panel),
    ("Variables", variables_panel),
    ("Document", document_panel),
    ("Try values", try_values_panel),
    ("History", history_panel),
]
