"""Actions on pages, backgrounds and document metadata (spec 4.6)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field

from ..design.colors import Fill
from ..design.names import check_visible
from ..design.paper import Orientation, PaperSize, oriented, paper_dimensions
from ..design.tree import BackgroundSize, Page, page_size
from ..elements import StrictModel
from ..elements.image import check_src
from .base import ActionSpec, ApplyContext, PageAddress, changed_fields, check_page

BACKGROUND_FIELDS = ("backgroundColor", "backgroundImage", "backgroundSize", "backgroundPageNumber")
BackgroundRef = Annotated[str, AfterValidator(check_src)]
PageName = Annotated[str, Field(max_length=200), AfterValidator(check_visible)]


class BackgroundArgs(StrictModel):
    backgroundColor: Fill | None = Field(
        None, description="Hex colour or 'linear-gradient(90deg, #a, #b)'; null clears"
    )
    backgroundImage: BackgroundRef | None = Field(None, description="uploads:<id> or assets:<id>; null clears")
    backgroundSize: BackgroundSize | None = Field(None, description="cover (default), contain or stretch; null clears")
    backgroundPageNumber: int | None = Field(
        None, ge=1, description="When backgroundImage is a PDF: which of its pages, 1-based (default 1); null clears"
    )


class PageFormatArgs(BackgroundArgs):
    size: PaperSize | None = Field(None, description="A4, A3, A5, Letter or Legal")
    width: float | None = Field(None, gt=0, description="Custom width in points (with height; not with size)")
    height: float | None = Field(None, gt=0, description="Custom height in points (with width; not with size)")
    orientation: Orientation | None = Field(
        None, description="portrait or landscape: the page's sides follow it, custom width/height included"
    )
    name: PageName | None = None


def _orientation_of(page: Page) -> Orientation:
    return "landscape" if page.width > page.height else "portrait"


def _resolve_format(args: PageFormatArgs, base: Page) -> tuple[float, float]:
    """A format request against a base page: no format keeps (or re-orients) its size.

    spec 4.6: on add_page and update_page, orientation makes the dimensions follow it,
    custom width/height included (unlike creating a design, where spec 4.2 rule 2 takes
    a custom sheet literally). Without orientation, width/height are taken as given.
    """
    if args.size is None and args.width is None and args.height is None:
        return oriented(base.width, base.height, args.orientation) if args.orientation else (base.width, base.height)
    if args.size is not None and args.width is None and args.height is None:
        return paper_dimensions(args.size, args.orientation or _orientation_of(base))
    width, height = page_size(args.size, args.orientation, args.width, args.height)
    return oriented(width, height, args.orientation) if args.orientation else (width, height)


def _page_echo(index: int, page: Page) -> dict:
    return {"page": index, "id": page.id, "name": page.name, "width": page.width, "height": page.height}


def run_add_page(ctx: ApplyContext, args: PageFormatArgs) -> dict:
    tree = ctx.tree
    width, height = _resolve_format(args, tree.pages[-1])
    page = Page(
        id=ctx.new_id("page", {p.id for p in tree.pages}),
        name=args.name,
        width=width,
        height=height,
        **{f: getattr(args, f) for f in BACKGROUND_FIELDS},
    )
    tree.pages.append(page)
    return _page_echo(len(tree.pages) - 1, page)


class UpdatePageArgs(PageFormatArgs, PageAddress):
    pass


def run_update_page(ctx: ApplyContext, args: UpdatePageArgs) -> dict:
    check_page(ctx.tree, args.page)
    page = ctx.tree.pages[args.page]
    width, height = _resolve_format(args, page)
    changes: dict[str, Any] = {"width": width, "height": height}
    changes.update(changed_fields(args, ("name", *BACKGROUND_FIELDS)))
    updated = Page.model_validate({**page.model_dump(), **changes})
    ctx.tree.pages[args.page] = updated
    return _page_echo(args.page, updated)


def run_remove_page(ctx: ApplyContext, args: PageAddress) -> dict:
    tree = ctx.tree
    check_page(tree, args.page)
    if len(tree.pages) == 1:
        raise ValueError("a design keeps at least one page: add another before removing this one")
    removed = tree.pages.pop(args.page)
    for node_id in removed.elements:
        node = tree.nodes[node_id]
        if tree.variable_of(node) is not None:  # a field of the same name is not the element's to remove
            del tree.variables[node.name]
        del tree.nodes[node_id]
    for node in tree.nodes.values():
        if node.page > args.page:
            node.page -= 1
    return {"page": args.page, "id": removed.id, "removedElements": len(removed.elements)}


def _require_some(args: StrictModel, fields: tuple[str, ...]) -> dict[str, Any]:
    changes = changed_fields(args, fields)
    if not changes:
        raise ValueError(f"send at least one of {', '.join(fields)} (null clears a field)")
    return changes


class PageBackgroundArgs(BackgroundArgs, PageAddress):
    pass


def run_set_page_background(ctx: ApplyContext, args: PageBackgroundArgs) -> dict:
    check_page(ctx.tree, args.page)
    page = ctx.tree.pages[args.page]
    for field, value in _require_some(args, BACKGROUND_FIELDS).items():
        setattr(page, field, value)
    return {"page": args.page, **{f: getattr(page, f) for f in BACKGROUND_FIELDS}}


def run_set_document_background(ctx: ApplyContext, args: BackgroundArgs) -> dict:
    background = ctx.tree.background
    for field, value in _require_some(args, BACKGROUND_FIELDS).items():
        setattr(background, field, value)
    return background.model_dump()


METADATA_FIELDS = ("title", "author", "subject", "keywords", "creator", "language")


class SetMetadataArgs(StrictModel):
    title: str | None = Field(None, max_length=1000)
    author: str | None = Field(None, max_length=1000)
    subject: str | None = Field(None, max_length=1000)
    keywords: str | None = Field(None, max_length=2000, description="Comma-separated")
    creator: str | None = Field(None, max_length=1000)
    language: str | None = Field(
        None, pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$", description="BCP 47 tag, e.g. en-GB"
    )


def run_set_metadata(ctx: ApplyContext, args: SetMetadataArgs) -> dict:
    metadata = ctx.tree.metadata
    for field, value in _require_some(args, METADATA_FIELDS).items():
        setattr(metadata, field, value)
    return metadata.model_dump(exclude={"schemaVersion"})


PAGE_ACTIONS = [
    ActionSpec(
        "add_page",
        "Append a page. Without size/width/height it copies the last page's format; orientation alone turns "
        "that format; size with orientation picks a paper size; width+height (points) make a custom sheet, "
        "turned to match orientation when one is sent (595.28 x 841.89 with landscape gives 841.89 x 595.28).",
        PageFormatArgs,
        run_add_page,
    ),
    ActionSpec(
        "update_page",
        "Edit an existing page in place (zero-based 'page'): paper size, orientation, custom width/height, "
        "name, background. Orientation makes the dimensions follow it, as in add_page. This is how the paper "
        "of an existing design changes; elements keep their positions.",
        UpdatePageArgs,
        run_update_page,
    ),
    ActionSpec(
        "remove_page",
        "Remove a page with its elements and their variables. The last remaining page cannot be removed.",
        PageAddress,
        run_remove_page,
    ),
    ActionSpec(
        "set_page_background",
        "Set or clear (null) one page's backgroundColor (hex or linear-gradient), backgroundImage (image ref) "
        "and backgroundSize; fields not sent are kept. A page's own fields override the document's.",
        PageBackgroundArgs,
        run_set_page_background,
    ),
    ActionSpec(
        "set_document_background",
        "The same background fields at document level; they apply to every page that lacks its own.",
        BackgroundArgs,
        run_set_document_background,
    ),
    ActionSpec(
        "set_metadata",
        "Set PDF metadata: title, author, subject, keywords, creator, and the content language (BCP 47). "
        "Fields not sent are kept; null clears one.",
        SetMetadataArgs,
        run_set_metadata,
    ),
]
