"""Rendering: a design tree (plus values) to PDF bytes, and a page to PNG.

The PNG is rasterised from the same PDF, so what a designer previews is exactly
what gets generated.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, nullcontext
from typing import Any, Literal

from reportlab import rl_config
from reportlab.pdfgen.canvas import Canvas

from .. import fonts
from ..design import computed
from ..design.colors import parse_gradient, to_rl
from ..design.languages import in_design_language
from ..design.placeholder_variables import shows_sheet_numbers
from ..design.tree import DesignTree
from ..design.variables import apply_values
from ..elements import ELEMENT_TYPES, DrawContext
from ..errors import EngineError, LimitExceeded
from ..finishing.added_pages import added_count_message, load_added
from ..finishing.options import NO_FINISHING, Finishing, FinishingPlan
from ..finishing.watermark import Watermark, draw_watermark
from ..media.images import ImageLibrary, PlacedPage, PreparedImage, Resolver, place
from ..pdf.forms import FormFields
from ..pdf.links import add_link
from ..pdf.tagging import Tagger, Untagged
from ..text.placeholders import Sheet
from . import form_cache
from .layout import LaidOutPage, Placement, layout
from .options import DEFAULT_OPTIONS, RenderOptions

Profile = Literal["standard", "accessible", "pdf-a"]
PRODUCER = "docbench"

# Streams are Flate-compressed already; ASCII85 on top only makes files 25% larger.
rl_config.useA85 = 0

# PDFium is not thread-safe: one call into it at a time per process.
_PDFIUM_LOCK = threading.Lock()


class PageNotFound(EngineError):
    code = "PAGE_NOT_FOUND"


class SheetNotFound(EngineError):
    """A sheet past those a page lays out as (a preview's `sheet`)."""


def render_pdf(
    tree: DesignTree,
    values: Mapping[str, Any] | None = None,
    resolver: Resolver | None = None,
    profile: Profile = "standard",
    pages: list[int] | None = None,
    max_sheets: int | None = None,
    watermark: Watermark | None = None,
    finishing: Finishing | None = None,
    options: RenderOptions = DEFAULT_OPTIONS,
    today: dt.date | None = None,
) -> bytes:
    """Render the design with the values filled in; hidden elements are left out.

    `today` is the generation's date, what the expressions' today() reads (extensions.md 11;
    the engine has no clock): without it today() is null.

    `max_sheets` bounds the document's length (continuation sheets of growing tables
    included): past it LimitExceeded is raised after layout, before anything is drawn,
    since drawing is where a long document spends its time.

    `finishing` (spec 9) adds attachments, a Factur-X e-invoice, a watermark and
    encryption; it is checked against the profile before anything is drawn. Its `sign`
    is the caller's to act on, after this returns (the signature comes last). `watermark`
    alone is the previews' shorthand for `Finishing(watermark=...)`.

    `options` chooses the drawing paths: the fast ones by default; RenderOptions.reference()
    is what they replaced, for tests to compare them with.
    """
    if finishing is not None and finishing.watermark is not None:
        if watermark is not None and watermark != finishing.watermark:
            raise EngineError("two watermarks given: pass it once, as finishing.watermark")
        watermark = finishing.watermark
    if profile not in ("standard", "accessible", "pdf-a"):
        raise EngineError(f"pdfProfile must be standard, accessible or pdf-a (got {profile!r})")
    plan = finishing.plan(profile) if finishing is not None else NO_FINISHING
    if finishing is not None and (finishing.prepend or finishing.append):
        # Opened and checked before anything is drawn; their pages count against max_sheets.
        added = load_added(finishing.prepend, finishing.append, resolver, profile)
        plan = dataclasses.replace(plan, added=added)
    pdf, _ = _render(
        tree,
        values,
        resolver,
        profile,
        pages,
        max_sheets,
        watermark=watermark,
        finishing=plan,
        options=options,
        today=today,
    )
    return pdf


def _render(
    tree: DesignTree,
    values: Mapping[str, Any] | None,
    resolver: Resolver | None,
    profile: Profile,
    pages: list[int] | None,
    max_sheets: int | None,
    only_sheet: int | None = None,
    watermark: Watermark | None = None,
    finishing: FinishingPlan = NO_FINISHING,
    options: RenderOptions = DEFAULT_OPTIONS,
    today: dt.date | None = None,
) -> tuple[bytes, int]:
    """The PDF and how many sheets the pages laid out as; `only_sheet`: that sheet alone is drawn."""
    if profile not in ("standard", "accessible", "pdf-a"):
        raise EngineError(f"pdfProfile must be standard, accessible or pdf-a (got {profile!r})")
    for page in pages or []:
        if not 0 <= page < len(tree.pages):
            raise PageNotFound(f"page {page} does not exist; the design has {len(tree.pages)} page(s), numbered from 0")
    # Texts without data.lang are measured and drawn in the design's language (extensions.md 6).
    tree = in_design_language(tree)
    filled = computed.resolve(apply_values(tree, values), today)  # extensions.md 11
    sheets = layout(tree, filled, pages)
    added = finishing.added.count if finishing.added is not None else 0
    if max_sheets is not None and added and len(sheets) + added > max_sheets:
        raise LimitExceeded(added_count_message(len(sheets) + added, added, max_sheets))
    if max_sheets is not None and len(sheets) > max_sheets:
        raise LimitExceeded(
            f"the document would have {len(sheets)} pages; at most {max_sheets} are rendered per document: "
            "split the data over several documents (a batch) or shorten the tables"
        )
    numbers = _sheet_numbers(tree, filled, sheets, pages)
    laid_out = len(sheets)
    if only_sheet is not None:
        if not 0 <= only_sheet < laid_out:
            raise SheetNotFound(
                f"sheet {only_sheet} does not exist; the page lays out as {laid_out} sheet(s), numbered from 0"
            )
        # A preview shows one sheet: the others would be drawn for nothing.
        sheets, numbers = sheets[only_sheet : only_sheet + 1], numbers[only_sheet : only_sheet + 1]
    base_face = fonts.install_defaults()
    buffer = io.BytesIO()
    first = sheets[0].page
    canvas = Canvas(
        buffer,
        pagesize=(first.width, first.height),
        invariant=1,  # no clock: the same input gives the same bytes
        pageCompression=1,
        initialFontName=base_face.name,
    )
    _set_metadata(canvas, filled)
    images = ImageLibrary(resolver, profile)
    tags = Tagger() if profile != "standard" else Untagged()
    # A document generated from values in the standard profile draws what every row shares
    # from compiled forms (engine.render.form_cache). The tagged profiles mark each element's content
    # in the page itself, and a design drawn without values (a design-time preview) has
    # nothing that varies and is drawn plainly, as it always was.
    use_forms = options.compiled_forms and profile == "standard" and bool(values)
    # extensions.md 13: the fillable fields of every sheet make one AcroForm.
    form_fields = FormFields(flatten=finishing.flatten, profile=profile)
    for sheet, number in zip(sheets, numbers, strict=False):
        canvas.setPageSize((sheet.page.width, sheet.page.height))
        tags.start_page(canvas)
        ctx = DrawContext(
            canvas,
            sheet.page.height,
            images,
            tags,
            sheet=number,
            language=filled.metadata.language or "",
            options=options,
            forms=form_fields,
        )
        if use_forms:
            _draw_compiled(ctx, tree, sheet, base_face.name)
        else:
            with tags.artifact(canvas):
                _draw_background(ctx, sheet)
            # Reading order is paint order (the manual, "Tagged PDF").
            for placement in sheet.placements:
                _draw_placement(ctx, placement)
        if watermark is not None:
            with tags.artifact(canvas):
                draw_watermark(canvas, sheet.page.width, sheet.page.height, watermark, base_face.name)
        canvas.showPage()
    form_fields.write(canvas)
    if isinstance(tags, Tagger):
        from ..pdf.structure_tree import save_tagged

        tagged = save_tagged(canvas, buffer, filled, tags, profile, finishing, options.tagged_written_directly)
        return tagged, laid_out
    canvas.save()
    return finishing.finish_untagged(buffer.getvalue()), laid_out


def _draw_placement(ctx: DrawContext, placement: Placement) -> None:
    node, canvas, tags = placement.node, ctx.canvas, ctx.tags
    element = ELEMENT_TYPES[node.type]
    block = nullcontext() if element.tags_itself else tags.figure(canvas, getattr(node.data, "alt", None))
    if placement.repeated_copy:
        block = tags.pagination(canvas)  # read once, where it is first drawn (extensions.md 4)
    # _linked stays outside the pagination block: a copy's link annotation joins the
    # Link element of the first drawing (OBJR) while its content is an artifact.
    with _linked(ctx, placement, element.tags_itself), block:
        element.draw(node, placement.box, ctx, placement.part)


def _draw_compiled(ctx: DrawContext, tree: DesignTree, sheet: LaidOutPage, base_font: str) -> None:
    """Draw the sheet (standard profile) with each run of static drawing, in paint order,
    placed as one compiled form, and the rest drawn as usual."""
    # Each item is keyed by all its drawing depends on: what it is (the node or the background
    # as the design has it now: an edit, in place or not, is a new key), where it goes, and the
    # digest of every image it draws (an image ref's bytes may change under the same design).
    images = ctx.images
    background = sheet.background
    background_ref = background.backgroundImage
    background_key = (background.model_dump_json(), images.digest(background_ref) if background_ref else None)
    run: list[form_cache.Item] = [(background_key, lambda c: _draw_background(c, sheet))]
    for placement in sheet.placements:
        node = placement.node
        if form_cache.is_static(placement, tree):
            drawn = tuple(images.digest(ref) for ref in ELEMENT_TYPES[node.type].image_refs(node))
            item_key = (node.model_dump_json(), tuple(placement.box), drawn)
            run.append((item_key, lambda c, p=placement: _draw_placement(c, p)))
            continue
        _draw_run(ctx, run, sheet, base_font)
        run = []
        _draw_placement(ctx, placement)
    _draw_run(ctx, run, sheet, base_font)


def _draw_run(ctx: DrawContext, run: list[form_cache.Item], sheet: LaidOutPage, base_font: str) -> None:
    if not run:
        return
    size = (sheet.page.width, sheet.page.height)
    # The options choose how the run's elements draw, so which operators the form holds.
    key = (size, ctx.language, ctx.options, tuple(item_key for item_key, _ in run))

    def scratch_context(canvas: Canvas) -> DrawContext:
        return DrawContext(
            canvas, ctx.page_height, ctx.images, Untagged(), sheet=ctx.sheet, language=ctx.language, options=ctx.options
        )  # its own FormFields: a compiled run holds no field (form_cache.is_static)

    form = form_cache.FORMS.get_or_compile(key, lambda: form_cache.compile_run(size, base_font, run, scratch_context))
    if form is None:
        for _, draw in run:
            draw(ctx)
    else:
        form.place(ctx.canvas)


@contextmanager
def _linked(ctx: DrawContext, placement: Placement, has_text: bool) -> Iterator[None]:
    """data.link (extensions.md 3, every element type): the element's box is a link; in the
    tagged profiles a Link element holds the element's own structure and the annotation.
    A picture's Link has no text to announce: its /Alt names it (the picture's alt or the URL)."""
    url = getattr(placement.node.data, "link", None)
    if url is None:
        yield
        return
    box = placement.box
    description = getattr(placement.node.data, "alt", None) or url
    # Keyed: the copies of a repeated element (extensions.md 4) add their annotations to it.
    with ctx.tags.group("Link", key=f"{placement.node.id}/link", Alt=None if has_text else description):
        yield
        rect = (box.x, ctx.pdf_y(box.y, box.h), box.x + box.w, ctx.pdf_y(box.y))
        add_link(ctx.canvas, ctx.tags, url, rect, description)


def _sheet_numbers(
    tree: DesignTree, filled: DesignTree, sheets: list[LaidOutPage], pages: list[int] | None
) -> list[Sheet]:
    """Each sheet's number in the document and the document's sheet count, continuation
    sheets included ({page} and {pages}, extensions.md 1). A preview of some pages numbers
    them as in the whole document, which is laid out for it only when a text shows them."""
    if pages is None or not shows_sheet_numbers(filled):
        return [Sheet(i + 1, len(sheets)) for i in range(len(sheets))]
    document = layout(tree, filled)
    first_of: dict[int, int] = {}
    for index, laid_out in enumerate(document):
        first_of.setdefault(laid_out.source, index)
    seen: dict[int, int] = {}
    numbers = []
    for sheet in sheets:
        within = seen[sheet.source] = seen.get(sheet.source, -1) + 1
        numbers.append(Sheet(first_of[sheet.source] + within + 1, len(document)))
    return numbers


def _set_metadata(canvas: Canvas, tree: DesignTree) -> None:
    meta = tree.metadata
    canvas.setTitle(meta.title or "")
    canvas.setAuthor(meta.author or "")
    canvas.setSubject(meta.subject or "")
    canvas.setKeywords(meta.keywords or "")
    canvas.setCreator(meta.creator or PRODUCER)
    canvas.setProducer(PRODUCER)


def _draw_background(ctx: DrawContext, sheet: LaidOutPage) -> None:
    background = sheet.background
    width, height = sheet.page.width, sheet.page.height
    canvas = ctx.canvas
    colour = background.backgroundColor
    if colour:
        canvas.saveState()
        if colour.startswith("#"):
            canvas.setFillColor(to_rl(colour))
            canvas.rect(0, 0, width, height, stroke=0, fill=1)
        else:
            gradient = parse_gradient(colour)
            clip = canvas.beginPath()
            clip.rect(0, 0, width, height)
            canvas.clipPath(clip, stroke=0, fill=0)
            canvas.linearGradient(
                *gradient.endpoints(0, 0, width, height),
                [to_rl(c) for c in gradient.colors],
                list(gradient.positions),
                extend=True,
            )
        canvas.restoreState()
    ref = background.backgroundImage
    if ref:
        # A PDF's page is placed as vector content (extensions.md 12), sized as an image is.
        drawn: PreparedImage | PlacedPage
        if ctx.images.is_pdf(ref):
            where = f"the background of page {sheet.source + 1}"
            drawn = ctx.images.placed_page(ref, background.backgroundPageNumber, where)
        else:
            drawn = ctx.images.prepared(ref)
        size = background.backgroundSize or "cover"
        w, h = width, height
        if size != "stretch" and drawn.width and drawn.height:
            scale = (max if size == "cover" else min)(width / drawn.width, height / drawn.height)
            w, h = drawn.width * scale, drawn.height * scale
        canvas.saveState()
        clip = canvas.beginPath()
        clip.rect(0, 0, width, height)
        canvas.clipPath(clip, stroke=0, fill=0)
        if isinstance(drawn, PlacedPage):
            drawn.place(canvas, (width - w) / 2, (height - h) / 2, w, h)
        else:
            place(canvas, drawn, (width - w) / 2, (height - h) / 2, w, h)
        canvas.restoreState()


def render_png(
    tree: DesignTree,
    page: int = 0,
    resolver: Resolver | None = None,
    dpi: float = 96,
    values: Mapping[str, Any] | None = None,
    watermark: Watermark | None = None,
    today: dt.date | None = None,
    sheet: int = 0,
) -> bytes:
    """One design page as PNG at the given resolution (its first sheet, or `sheet`: a page whose
    tables or flowing texts grow lays out as several), with `values` filled in if given, and a
    watermark over it if given; `today` as render_pdf's."""
    png, _ = render_sheet_png(tree, page, resolver, dpi, values, watermark, today, sheet)
    return png


def render_sheet_png(
    tree: DesignTree,
    page: int = 0,
    resolver: Resolver | None = None,
    dpi: float = 96,
    values: Mapping[str, Any] | None = None,
    watermark: Watermark | None = None,
    today: dt.date | None = None,
    sheet: int = 0,
) -> tuple[bytes, int]:
    """render_png's picture of sheet `sheet` of the page, and how many sheets the page lays out
    as (only that one is drawn): what a preview that pages through them needs."""
    if not 0 <= page < len(tree.pages):
        raise PageNotFound(f"page {page} does not exist; the design has {len(tree.pages)} page(s), numbered from 0")
    if not 10 <= dpi <= 1200:
        raise EngineError(f"dpi must be between 10 and 1200 (got {dpi})")
    pdf, sheets = _render(
        tree, values, resolver, "standard", [page], None, only_sheet=sheet, watermark=watermark, today=today
    )
    return rasterize(pdf, 0, dpi, {SHEETS_KEY: str(sheets)}), sheets


# A preview of a 200-inch poster at 96 dpi would be a 2.6 GB bitmap; past this many
# pixels the resolution is lowered instead (previews are free, memory is not).
MAX_PREVIEW_PIXELS = 16_000_000


SHEETS_KEY = "docbench:sheets"  # the PNG text chunk of a sheet's preview naming the page's sheet count


def sheets_of_png(png: bytes) -> int | None:
    """The sheet count a preview from render_sheet_png carries, or None."""
    from PIL import Image

    value = Image.open(io.BytesIO(png)).info.get(SHEETS_KEY)
    return int(value) if isinstance(value, str) and value.isdigit() else None


def rasterize(pdf: bytes, page_index: int = 0, dpi: float = 96, text: Mapping[str, str] | None = None) -> bytes:
    """Page `page_index` of the PDF as PNG; `text`: tEXt chunks to carry."""
    import pypdfium2 as pdfium
    from PIL.PngImagePlugin import PngInfo

    with _PDFIUM_LOCK:
        document = pdfium.PdfDocument(pdf)
        try:
            # Form fields' widgets are drawn by PDFium's form layer only (extensions.md 13): a
            # preview shows them as the PDF does. Nothing is done for a document without a form.
            document.init_forms()
            page = document[page_index]
            width, height = page.get_size()
            scale = min(dpi / 72, (MAX_PREVIEW_PIXELS / (width * height)) ** 0.5)
            bitmap = page.render(scale=scale)
            image = bitmap.to_pil()
        finally:
            document.close()
    out = io.BytesIO()
    # Level 1 costs a few percent in size and saves most of the encoding time.
    info = PngInfo()
    for key, value in (text or {}).items():
        info.add_text(key, value)
    image.save(out, format="PNG", compress_level=1, pnginfo=info)
    return out.getvalue()


__all__ = [
    "PageNotFound",
    "Profile",
    "SheetNotFound",
    "rasterize",
    "render_pdf",
    "render_png",
    "render_sheet_png",
    "sheets_of_png",
]
