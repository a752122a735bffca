"""Compiled designs (issue 20): what a design draws the same for every row is drawn once.

A design is authored once and generated thousands of times, yet most of a page (a border, a
title, a paragraph, a logo, the page background) looks the same in every document. In the
standard profile each run of such static drawing on a sheet (consecutive in paint order, so the
stacking with what varies is kept) becomes a Form XObject: drawn once on a scratch canvas, its
operators compressed once, and per document only placed with one `Do`.

What is static: an element whose node is the design's own (no value replaced it, no field of a
variable was filled), that shows no {page}/{pages}, is not a share of a split element, carries
no link (its annotation belongs to the page), plus the page background. Anything the form
cannot carry makes its run draw the ordinary way, with the same result: characters outside the
fonts' fixed ASCII codes (ReportLab assigns those in order of first use per document), shadings,
annotations, or any other object the drawing adds to the document.

A form is self-contained but for what a document holds once anyway: its fonts resolve to the
document's own font subsets (ASCII has the same code in every document, so the form's text
needs no glyphs of its own) and its images to the document's image XObjects (engine.media.images).

Forms are kept by what they draw (each static node's content as the design holds it now, its
box, the digests of its images, the page and the language), in one process-wide cache bounded
by size and evicted least recently used, shared by generate, batch rows and previews. An edit,
made in place or not, changes the key: a form is never used for content it was not drawn from.
"""

from __future__ import annotations

import hashlib
import io
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from reportlab.lib.rl_accel import fp_str
from reportlab.pdfgen.canvas import Canvas

from ..design.tree import DesignTree
from ..elements import ELEMENT_TYPES
from ..media import pdf_pages
from ..media.images import PlacedPage, PreparedImage, placed_named, prepared_named
from ..media.images import register as register_image
from ..pdf import reportlab_internals
from .layout import Placement

# Operators below this many bytes cost less to write again than a form costs to place (an
# image alone is one `Do` of an XObject every document shares already; a one-line heading).
WORTH_A_FORM = 256
# Forms of every design in the process together; a certificate's forms take a few KB.
DEFAULT_CAPACITY_BYTES = 32 * 1024 * 1024
# What a cached form costs beyond its compressed operators (its key, names, references).
_ENTRY_OVERHEAD = 512
_PROCSET_ARRAY = "[/PDF /Text /ImageB /ImageC /ImageI]"


@dataclass(frozen=True)
class StaticForm:
    """One run of static drawing, compiled: its operators compressed once, and what it uses."""

    name: str  # unique per content: one registration per document however often it is placed
    stream: bytes  # the operators, Flate-compressed
    bbox: tuple[float, float, float, float]
    fonts: tuple[tuple[str, str], ...]  # (registered font name, the form's own resource name)
    images: tuple[PreparedImage, ...]
    # The form's own ExtGState resources (opacity), written once: " /ExtGState <<…>>" or "".
    ext_g_states: str
    # Pages of PDFs it places (a letterhead background: engine.media.pdf_pages), registered in
    # each document as its images are.
    pages: tuple[PlacedPage, ...] = ()

    @property
    def size(self) -> int:
        """Bytes the form keeps alive: its operators, and the image streams and pages it holds
        (they stay with the form after the image library lets them go)."""
        size = reportlab_internals.stream_size
        held = sum(size(image.xobject) + size(image.smask) for image in self.images)
        return len(self.stream) + held + sum(page.size for page in self.pages) + _ENTRY_OVERHEAD

    @property
    def bbox_text(self) -> str:
        return " ".join(fp_str(v) for v in self.bbox)

    def place(self, canvas: Canvas) -> None:
        """Draw the form on the canvas's page: register it in the document once, then `Do`."""
        if not canvas.hasForm(self.name):
            form = reportlab_internals.WrittenObject(self._object(self._fonts_in(canvas), self._images_in(canvas)))
            reportlab_internals.add_form(canvas, self.name, form)
        if self.images:
            reportlab_internals.mark_page_has_images(canvas)
        canvas.doForm(self.name)

    def _fonts_in(self, canvas: Canvas) -> list[tuple[str, str]]:
        """(the form's resource name, the document's font object) for each font it uses: ASCII
        in subset 0 at its own code, as on the scratch canvas."""
        doc = reportlab_internals.document_of(canvas)
        return [(local, reportlab_internals.ascii_subset_name(font_name, doc)) for font_name, local in self.fonts]

    def _images_in(self, canvas: Canvas) -> list[str]:
        """The document's image XObjects (and placed pages) the form draws, registered as any is."""
        images = [register_image(canvas, image) for image in self.images]
        return images + [pdf_pages.register(canvas, page) for page in self.pages]

    def _object(self, fonts: list[tuple[str, str]], images: list[str]) -> list[bytes | str]:
        """The form in one document: its cached stream under a dictionary naming that document's
        own fonts and images (the names between the bytes: references to them). Written
        directly: a few hundred documents a second would spend more formatting ReportLab
        dictionaries than drawing the form saves."""
        pieces: list[bytes | str] = [
            f"<< /Type /XObject /Subtype /Form /FormType 1 /BBox [{self.bbox_text}] /Matrix [1 0 0 1 0 0] "
            f"/Resources << /ProcSet {_PROCSET_ARRAY}".encode("latin-1")
        ]
        for kind, named in ((b"Font", fonts), (b"XObject", [(name, name) for name in images])):
            if named:
                pieces.append(b" /" + kind + b" <<")
                for local, name in named:
                    pieces += [f" /{local} ".encode("latin-1"), name]
                pieces.append(b" >>")
        tail = f"{self.ext_g_states} >> /Filter /FlateDecode /Length {len(self.stream)} >>\nstream\n"
        pieces += [tail.encode("latin-1"), self.stream, b"endstream\n"]
        return pieces


class NotNow(Exception):
    """This run cannot be compiled at the moment, though it may be next time."""


# --- Which drawing is static ------------------------------------------------------------


def is_static(placement: Placement, design: DesignTree) -> bool:
    """The placement draws the same in every document generated from this design."""
    node = placement.node
    if placement.part is not None or design.nodes.get(node.id) is not node:
        return False  # a share of a split element, or a node a value replaced
    element = ELEMENT_TYPES[node.type]
    if element.annotates or getattr(node.data, "link", None) is not None:
        return False  # its annotations belong to the page
    host = element.fields
    return host is None or not host.shows_sheet(node)


# --- Compiling a run ----------------------------------------------------------------------

# One thing a run draws: its part of the form's key, and how to draw it on a scratch context.
Item = tuple[Any, Callable[[Any], None]]


def compile_run(
    page_size: tuple[float, float],
    base_font: str,
    items: Sequence[Item],
    make_context: Callable[[Canvas], Any],
) -> StaticForm | None:
    """Draw the items on a scratch canvas and keep what they drew as a form, or None when the
    drawing needs something a form cannot carry (see the module's docstring)."""
    buffer = io.BytesIO()
    scratch = Canvas(buffer, pagesize=page_size, invariant=1, pageCompression=1, initialFontName=base_font)
    objects_before = reportlab_internals.object_names(scratch)
    ctx = make_context(scratch)
    for _, draw in items:
        draw(ctx)
    if reportlab_internals.uses_annotations_colors_or_shadings(scratch):
        return None
    fonts = reportlab_internals.ascii_fonts_used(reportlab_internals.document_of(scratch))
    if fonts is None:
        return None  # a character away from its fixed ASCII code, or not a TrueType font
    images, pages = _images(reportlab_internals.xobjects_used(scratch))
    expected = {reportlab_internals.xobject_name(scratch, i.digest) for i in images} | {
        reportlab_internals.xobject_name(scratch, i.smask.name) for i in images if i.smask is not None
    }
    for page in pages:
        registered = reportlab_internals.xobject_name(scratch, page.name)
        expected |= {registered} | {f"{registered}/{key}" for key, _ in page.objects[1:]}
    if reportlab_internals.object_names(scratch) - objects_before - expected:
        return None  # the drawing made an object the form does not know how to carry
    ext_g_states = reportlab_internals.graphics_state_resources(scratch)
    operators = reportlab_internals.page_content(scratch)
    if len(operators) < WORTH_A_FORM:
        return None
    # Named by what it draws: the same bytes for the same drawing, whatever the nodes' ids.
    uses = repr((fonts, [i.digest for i in images], ext_g_states, page_size)).encode()
    if pages:  # (only then: the names of forms without pages stay what they were)
        uses += repr([page.name for page in pages]).encode()
    digest = hashlib.blake2b(operators + uses, digest_size=12).hexdigest()
    return StaticForm(
        name=f"static{digest}",
        stream=zlib.compress(operators),
        bbox=(0.0, 0.0, page_size[0], page_size[1]),
        fonts=fonts,
        images=images,
        ext_g_states=ext_g_states,
        pages=pages,
    )


def _images(names: Sequence[str]) -> tuple[tuple[PreparedImage, ...], tuple[PlacedPage, ...]]:
    """The prepared images and the placed pages the scratch drawing placed."""
    images = []
    pages = []
    for name in dict.fromkeys(names):
        image = prepared_named(name)
        if image is not None:
            images.append(image)
            continue
        page = placed_named(name)
        if page is None:
            # Another kind of XObject, or an image another render just let go of: not kept as
            # "no form" for good, the next document tries again.
            raise NotNow()
        pages.append(page)
    return tuple(images), tuple(pages)


# --- The cache ----------------------------------------------------------------------------


class FormCache:
    """Compiled forms by what their run draws, least recently used out past a byte budget (the
    forms and their keys). A run that cannot be a form is remembered too (as None), so it is
    not tried again."""

    def __init__(self, capacity_bytes: int = DEFAULT_CAPACITY_BYTES):
        self.capacity_bytes = capacity_bytes
        self._entries: OrderedDict[Any, tuple[StaticForm | None, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get_or_compile(self, key: Any, compile_: Callable[[], StaticForm | None]) -> StaticForm | None:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                self.hits += 1
                return self._entries[key][0]
            self.misses += 1
        try:
            form = compile_()  # outside the lock: two threads may compile one run; both agree
        except NotNow:
            return None
        with self._lock:
            if key not in self._entries:
                size = len(repr(key)) + (form.size if form is not None else _ENTRY_OVERHEAD)
                self._entries[key] = (form, size)
                self._bytes += size
                while self._bytes > self.capacity_bytes and len(self._entries) > 1:
                    _, (_, evicted) = self._entries.popitem(last=False)
                    self._bytes -= evicted
        return form

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"forms": len(self._entries), "bytes": self._bytes, "hits": self.hits, "misses": self.misses}

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self.hits = self.misses = 0


FORMS = FormCache()
