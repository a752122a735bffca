"""Pages of existing PDFs placed as vector content (extensions.md 12): a letterhead or a form
under a design, a PDF page as an image.

A page is never rasterised. With pikepdf it becomes a form XObject (its content stream, its
resources and every object they reach, its visible box as the form's /BBox, its /Rotate and
/UserUnit as the form's /Matrix), written once as bytes with holes where references go, and
put into each document ReportLab writes through engine.pdf.reportlab_internals.add_written_form:
text in it stays text, selectable and sharp at any zoom.

What a page is made of is worked out once per (content digest, page) and kept by the image
library across documents (engine.media.images.ImageLibrary.placed_page): a letterhead drawn
under every row of a batch costs a handful of small objects per document.
"""

from __future__ import annotations

import io
import re
import zlib
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pikepdf
from pikepdf import Name

from ..pdf import reportlab_internals
from . import stream_sizes
from .foreign_pages import DROPPED_KEYS, annotation_problems, unwanted

PDF_MAGIC = b"%PDF-"
MAX_PDF_PAGES = 200  # extensions.md 12
# A decompression bomb: PDFium inflates a stream whole before it reads it, and a content stream
# of 1 GB of spaces (under 1 MB compressed) aborts its process; 500 MB of them draws in 1.5 s.
MAX_STREAM_BYTES = 256 * 1024 * 1024  # one stream, decompressed (images excepted: drawn downsampled)
MAX_STREAMS_BYTES = 1024 * 1024 * 1024  # all of a file's streams together

# ISO 32000-1 11.3.5: the blend modes PDF/A-2 and -3 allow (ISO 19005-3 6.2.10, veraPDF 6.2.10-1).
STANDARD_BLEND_MODES = frozenset(
    "/" + mode
    for mode in (
        "Normal Compatible Multiply Screen Overlay Darken Lighten ColorDodge ColorBurn HardLight SoftLight "
        "Difference Exclusion Hue Saturation Color Luminosity"
    ).split()
)
# Keys of the source file's own bookkeeping, meaningless in ours: its structure tree (we do not
# copy it; a tagged profile marks the placed page as a whole) and sub-objects' XMP.
_DROPPED_KEYS = frozenset({"/StructParent", "/StructParents", "/Metadata", "/PieceInfo"})


class PdfPageError(ValueError):
    """A PDF, or a page of one, that cannot be placed; the message says what to do."""


def is_pdf(data: bytes) -> bool:
    """PDF bytes, from the bytes themselves (readers accept the header within the first KB)."""
    return PDF_MAGIC in data[:1024]


@dataclass(frozen=True)
class PdfFacts:
    """What an upload of a PDF records: its page count and page 1's visible size in points."""

    pages: int
    width: float
    height: float


def open_pdf(data: bytes) -> pikepdf.Pdf:
    """The PDF opened for reading, or a PdfPageError naming the fix: encrypted, unreadable."""
    try:
        pdf = pikepdf.open(io.BytesIO(data))
    except pikepdf.PasswordError:
        raise PdfPageError(
            "the PDF is encrypted (password-protected): save or print it again without a password and upload that"
        ) from None
    except Exception:
        raise PdfPageError(
            "the PDF could not be read (it is corrupt or truncated): re-export it and upload again"
        ) from None
    if pdf.is_encrypted:
        pdf.close()
        raise PdfPageError(
            "the PDF is encrypted (it has permissions set): save or print it again without encryption and upload that"
        )
    return pdf


def pdf_facts(data: bytes) -> PdfFacts:
    """Check a PDF as an upload (extensions.md 12: readable, not encrypted, at most 200 pages)."""
    with open_pdf(data) as pdf:
        try:
            count = len(pdf.pages)
        except Exception:
            raise PdfPageError("the PDF's page tree could not be read: re-export it and upload again") from None
        if count == 0:
            raise PdfPageError("the PDF has no pages: upload a PDF with at least one page")
        if count > MAX_PDF_PAGES:
            raise PdfPageError(
                f"the PDF has {count} pages; at most {MAX_PDF_PAGES} are accepted: "
                "upload only the pages you place (split it first)"
            )
        width, height = page_size(pdf.pages[0])
        check_stream_sizes(pdf)
        # What generate does with each page, done now: a page that cannot be placed (a form that
        # draws itself, a damaged object) is refused here, not at every generate. The pages share
        # the work: what several of them use (a letterhead's forms, fonts) is read once.
        shared = _SharedWork()
        for number in range(1, count + 1):
            _prepared(pdf, number, "0" * 24, "the PDF", shared)
    return PdfFacts(count, width, height)


def check_stream_sizes(pdf: pikepdf.Pdf) -> None:
    """PdfPageError naming the bound when a stream (not an image) decompresses to more than
    MAX_STREAM_BYTES, or all of them to more than MAX_STREAMS_BYTES: decoded through all its
    filters as a reader does, counted as it decodes, never held (engine.media.stream_sizes).
    An image is a stream read as nothing else: one that is also a page's content is counted."""
    counted = [obj for obj in pdf.objects if isinstance(obj, pikepdf.Stream) and stream_sizes.decodes(obj)]
    if any(obj.get("/Subtype") == Name.Image for obj in counted):  # the walk only images need
        images = stream_sizes.images_only(pdf)
        counted = [obj for obj in counted if obj.objgen not in images]
    slow = stream_sizes.SlowInput()
    total = 0
    for obj in counted:
        try:
            size = stream_sizes.decoded_size(obj, MAX_STREAM_BYTES, slow)
        except stream_sizes.StreamNotChecked as exc:
            raise PdfPageError(
                f"the PDF holds a stream (object {obj.objgen[0]}) compressed in a way docbench does not decompress "
                f"to check its size ({exc}): re-export the PDF (current producers compress with Flate alone) and "
                "upload it again"
            ) from None
        total += size
        if size > MAX_STREAM_BYTES:
            raise PdfPageError(
                f"the PDF holds a stream (object {obj.objgen[0]}) that decompresses to more than "
                f"{MAX_STREAM_BYTES // 1024**2} MB (a decompression bomb, or a damaged file); a stream may hold "
                f"at most {MAX_STREAM_BYTES // 1024**2} MB decompressed: re-export the PDF and upload it again"
            )
        if total > MAX_STREAMS_BYTES:
            raise PdfPageError(
                f"the PDF's streams decompress to more than {MAX_STREAMS_BYTES // 1024**2} MB together; a PDF "
                f"may hold at most {MAX_STREAMS_BYTES // 1024**2} MB decompressed (images apart): re-export it "
                "smaller, or split it, and upload it again"
            )


def _number(value: Any) -> float:
    return float(value)


def visible_box(page: pikepdf.Page) -> tuple[float, float, float, float]:
    """The page's CropBox (what viewers show) within its MediaBox, as (llx, lly, urx, ury)."""
    media = [_number(v) for v in page.mediabox]
    crop = [_number(v) for v in page.cropbox]
    mx0, mx1 = sorted((media[0], media[2]))
    my0, my1 = sorted((media[1], media[3]))
    cx0, cx1 = sorted((crop[0], crop[2]))
    cy0, cy1 = sorted((crop[1], crop[3]))
    box = (max(mx0, cx0), max(my0, cy0), min(mx1, cx1), min(my1, cy1))
    if box[2] - box[0] <= 0 or box[3] - box[1] <= 0:
        return (mx0, my0, mx1, my1)
    return box


def _unit(page: pikepdf.Page) -> float:
    unit = page.obj.get("/UserUnit")
    return float(unit) if isinstance(unit, int | Decimal | float) and float(unit) > 0 else 1.0


def placement(page: pikepdf.Page) -> tuple[list[float], tuple[float, float, float, float]]:
    """The matrix that takes the page's user space to its placed form's (/Rotate and /UserUnit,
    as pikepdf makes the form) and the visible box there, (x0, y0, x1, y1)."""
    form = page.as_form_xobject(handle_transformations=True)
    matrix = [float(v) for v in form.get("/Matrix", [1, 0, 0, 1, 0, 0])]
    return matrix, transformed_bounds(matrix, visible_box(page))


def page_size(page: pikepdf.Page) -> tuple[float, float]:
    """The page's visible size in points as a reader shows it: /Rotate and /UserUnit applied."""
    x0, y0, x1, y1 = visible_box(page)
    w, h = (x1 - x0) * _unit(page), (y1 - y0) * _unit(page)
    rotate = int(page.obj.get("/Rotate", 0) or 0) % 360
    return (h, w) if rotate in (90, 270) else (w, h)


@dataclass(frozen=True)
class PlacedPage:
    """A page ready to be placed: the form and every object it reaches, as bytes with holes.

    `objects[0]` is the form XObject; a str piece of an object names another of `objects` by
    its key (reportlab_internals.add_written_form)."""

    name: str  # doForm's name: unique per content and page
    page_number: int
    width: float  # visible size in points (rotation applied)
    height: float
    # The form's visible box in its user space once its /Matrix is applied: where it draws.
    bounds: tuple[float, float, float, float]
    objects: tuple[tuple[str, tuple[bytes | str, ...]], ...]
    # What the pdf-a profile refuses (ISO 19005-3): fonts whose programs are not embedded,
    # and what else the page carries that PDF/A-3 forbids (transparency with a blend mode
    # outside ISO 32000-1, transfer functions, PostScript XObjects, …).
    unembedded_fonts: tuple[str, ...] = ()
    pdf_a_problems: tuple[str, ...] = ()
    size: int = field(default=0, compare=False)  # bytes it holds, for the cache

    def place(self, canvas: Any, x: float, y: float, w: float, h: float) -> None:
        """Draw the page stretched into the PDF-space box (x, y bottom-left)."""
        register(canvas, self)
        x0, y0, x1, y1 = self.bounds
        sx, sy = w / (x1 - x0), h / (y1 - y0)
        canvas.saveState()
        canvas.transform(sx, 0, 0, sy, x - x0 * sx, y - y0 * sy)
        canvas.doForm(self.name)
        canvas.restoreState()


def register(canvas: Any, page: PlacedPage) -> str:
    """The page's form (and what it reaches) in the canvas's document, added once; its
    resource name there. Compiled forms (engine.render.form_cache) register pages this way too."""
    return reportlab_internals.add_written_form(canvas, page.name, page.objects)


def prepare_page(data: bytes, page_number: int, digest: str, label: str = "the PDF") -> PlacedPage:
    """Build the placed form of page `page_number` (1-based) of the PDF bytes."""
    with open_pdf(data) as pdf:
        return _prepared(pdf, page_number, digest, label)


@dataclass
class _SharedWork:
    """What the checks of one document's pages share (pdf_facts, at upload): each object written,
    each form's content read and each form's drawing followed for loops once for all pages. A
    page's PlacedPage made with it holds only the objects no page before reached."""

    writer: _GraphWriter = field(default_factory=lambda: _GraphWriter())
    drawn: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    followed: dict[tuple[tuple[int, int], tuple[int, int]], bool] = field(default_factory=dict)


def _prepared(
    pdf: pikepdf.Pdf, page_number: int, digest: str, label: str, shared: _SharedWork | None = None
) -> PlacedPage:
    shared = shared or _SharedWork()
    count = len(pdf.pages)
    if not 1 <= page_number <= count:
        raise PdfPageError(f"{label} has {count} page(s): pageNumber {page_number} does not exist (pages count from 1)")
    try:
        page = pdf.pages[page_number - 1]
        form = page.as_form_xobject(handle_transformations=True)
        _refuse_drawing_loop(form, page_number, shared.drawn, shared.followed)
        x0, y0, x1, y1 = visible_box(page)
        matrix = [float(v) for v in form.get("/Matrix", [1, 0, 0, 1, 0, 0])]
        bounds = transformed_bounds(matrix, (x0, y0, x1, y1))
        content = _without_marked_structure(form)
        width, height = page_size(page)
        writer = shared.writer
        own = ("/Length", "/Filter", "/DecodeParms", *_DROPPED_KEYS)  # the stream is written anew
        entries = {key: form[key] for key in form.keys() if key not in own}
        entries["/BBox"] = pikepdf.Array([x0, y0, x1, y1])
        root = writer.stream_object(entries, zlib.compress(content), b"/FlateDecode")
        # Bytes between references joined once here: per document only the references are filled in.
        objects = tuple((key, _joined(pieces)) for key, pieces in (("form", root), *writer.written(pdf)))
        fonts = tuple(sorted(set(_unembedded_fonts(form))))
        problems = tuple(dict.fromkeys(_pdf_a_problems(form)))
    except (PdfPageError, MemoryError):
        raise  # out of memory: the render process's failure (api.renderers.worker recycles it), not the PDF's
    except Exception:  # a damaged or malformed object somewhere in what the page reaches
        raise PdfPageError(
            f"page {page_number} of {label} could not be read to be placed (an object it uses is damaged): "
            "re-export the PDF and upload it again"
        ) from None
    name = f"pdfpage{digest[:24]}p{page_number}"
    size = sum(len(p) for _, pieces in objects for p in pieces if isinstance(p, bytes))
    return PlacedPage(name, page_number, width, height, bounds, objects, fonts, problems, size)


def _joined(pieces: Sequence[bytes | str]) -> tuple[bytes | str, ...]:
    """The pieces with each run of bytes joined into one."""
    out: list[bytes | str] = []
    run: list[bytes] = []
    for piece in pieces:
        if type(piece) is bytes:
            run.append(piece)
            continue
        if run:
            out.append(b"".join(run))
            run = []
        out.append(piece)
    if run:
        out.append(b"".join(run))
    return tuple(out)


def transformed_bounds(m: list[float], box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    a, b, c, d, e, f = m
    corners = [(box[0], box[1]), (box[0], box[3]), (box[2], box[1]), (box[2], box[3])]
    xs = [a * x + c * y + e for x, y in corners]
    ys = [b * x + d * y + f for x, y in corners]
    return (min(xs), min(ys), max(xs), max(ys))


def _without_marked_structure(form: pikepdf.Stream) -> bytes:
    """The form's operators without the source's marked-content sequences that carry an MCID:
    they point into a structure tree we do not copy, and inside our artifact or Figure they
    would be content claimed by nothing (PDF/UA). Other marked content (optional content) stays."""
    raw = form.read_bytes()
    if b"BDC" not in raw and b"BMC" not in raw:
        return raw
    kept: list[Any] = []
    stack: list[bool] = []
    for item in pikepdf.parse_content_stream(form):
        operator = str(item.operator) if hasattr(item, "operator") else ""
        if operator in ("BDC", "BMC"):
            operands = item.operands
            drops = operator == "BDC" and isinstance(operands[-1], pikepdf.Dictionary) and "/MCID" in operands[-1]
            stack.append(drops)
            if drops:
                continue
        elif operator == "EMC":
            if stack and stack.pop():
                continue
        kept.append(item)
    return pikepdf.unparse_content_stream(kept)


# --- Writing the object graph ------------------------------------------------------------------


def _is_page_node(obj: pikepdf.Object) -> bool:
    """A page or the page tree: reachable through a stray /Parent or /P, never placed."""
    return isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") in (Name("/Page"), Name("/Pages"))


class _GraphWriter:
    """Writes pikepdf objects as bytes, an indirect object reached as a hole (its key), and
    collects every indirect object reached, transitively."""

    def __init__(self) -> None:
        self._pending: deque[pikepdf.Object] = deque()
        self._seen: set[tuple[int, int]] = set()

    def _key(self, obj: pikepdf.Object) -> str:
        return f"{obj.objgen[0]}.{obj.objgen[1]}"

    def value(self, obj: Any, out: list[bytes | str], whole: bool = False) -> None:
        """Write `obj`; an indirect one as a hole, unless `whole` (the object itself is written)."""
        if not whole and unwanted(obj):
            out.append(b"null")  # an action, an annotation, a file: never kept (engine.media.foreign_pages)
            return
        if not whole and isinstance(obj, pikepdf.Object) and obj.is_indirect:
            if _is_page_node(obj):
                out.append(b"null")
                return
            if obj.objgen not in self._seen:
                self._seen.add(obj.objgen)
                self._pending.append(obj)
            out.append(self._key(obj))
            return
        if isinstance(obj, bool):
            out.append(b"true" if obj else b"false")
        elif isinstance(obj, int):
            out.append(b"%d" % obj)
        elif isinstance(obj, Decimal | float):
            out.append(_real(obj))
        elif obj is None:
            out.append(b"null")
        elif isinstance(obj, pikepdf.Dictionary):
            self.dictionary({key: obj[key] for key in obj.keys()}, out)
        elif isinstance(obj, pikepdf.Array):
            out.append(b"[")
            for index, item in enumerate(obj):
                if index:
                    out.append(b" ")
                self.value(item, out)
            out.append(b"]")
        else:
            out.append(obj.unparse())  # a name, a string: pikepdf escapes them

    def dictionary(self, entries: dict[str, Any], out: list[bytes | str]) -> None:
        out.append(b"<<")
        for key, item in entries.items():
            if key in _DROPPED_KEYS or key in DROPPED_KEYS or unwanted(item):
                continue
            out.append(_name_bytes(key) + b" ")
            self.value(item, out)
            out.append(b"\n")
        out.append(b">>")

    def stream_object(self, entries: dict[str, Any], data: bytes, filters: bytes | None = None) -> list[bytes | str]:
        out: list[bytes | str] = []
        entries = {k: v for k, v in entries.items() if k != "/Length"}
        if filters is not None:
            entries = {k: v for k, v in entries.items() if k not in ("/Filter", "/DecodeParms")}
        self.dictionary(entries, out)
        out[-1] = (b"/Filter " + filters + b" " if filters is not None else b"") + b"/Length %d\n>>" % len(data)
        out.append(b"\nstream\n")
        out.append(data)
        out.append(b"\nendstream")
        return out

    def written(self, pdf: pikepdf.Pdf) -> Iterator[tuple[str, tuple[bytes | str, ...]]]:
        """Every indirect object reached (and those they reach), as (key, pieces)."""
        while self._pending:
            obj = self._pending.popleft()
            if isinstance(obj, pikepdf.Stream):
                entries = {key: obj[key] for key in obj.keys()}
                if obj.get("/Subtype") == Name.Form and b"/MCID" in obj.read_bytes():
                    # A form inside the page with the source's marked structure: left out as in the page's own.
                    content = zlib.compress(_without_marked_structure(obj))
                    pieces = self.stream_object(entries, content, b"/FlateDecode")
                else:
                    pieces = self.stream_object(entries, obj.read_raw_bytes())
            else:
                pieces = []
                self.value(obj, pieces, whole=True)
            yield self._key(obj), tuple(pieces)


_REGULAR = frozenset(range(0x21, 0x7F)) - frozenset(b"()<>[]{}/%#")


def _name_bytes(key: str) -> bytes:
    """A dictionary key as a PDF name, from its bytes: pikepdf gives a key that is not UTF-8
    (fuzzed files have them) as a str with surrogate escapes, which pikepdf.Name refuses."""
    raw = key[1:].encode("utf-8", "surrogateescape")
    return b"/" + b"".join(bytes([c]) if c in _REGULAR else b"#%02x" % c for c in raw)


def _real(value: Decimal | float) -> bytes:
    text = format(Decimal(str(value)) if isinstance(value, float) else value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return (text or "0").encode()


# --- What PDF/A-3 forbids ----------------------------------------------------------------------


def _resources_tree(form: pikepdf.Object) -> Iterator[pikepdf.Object]:
    """The form's resource dictionaries and those of every form, Type 3 font, pattern and
    soft mask group they reach, each once. A holder (the form, font, pattern or group) is
    entered once, by its object: a form whose inline /Resources names the form itself (an
    850-byte PDF did) is a loop through no indirect resource dictionary."""
    seen: set[tuple[int, int]] = set()
    stack = [form.get("/Resources")]

    def enter(holder: pikepdf.Object, resources: Any) -> None:
        if holder.is_indirect:
            if holder.objgen in seen:
                return
            seen.add(holder.objgen)
        stack.append(resources)

    while stack:
        resources = stack.pop()
        if not isinstance(resources, pikepdf.Dictionary):
            continue
        if resources.is_indirect:
            if resources.objgen in seen:
                continue
            seen.add(resources.objgen)
        yield resources
        for kind in ("/XObject", "/Pattern", "/Font"):
            for item in _values(resources.get(kind)):
                if isinstance(item, pikepdf.Dictionary | pikepdf.Stream) and "/Resources" in item:
                    enter(item, item.Resources)
        for state in _values(resources.get("/ExtGState")):
            mask = state.get("/SMask") if isinstance(state, pikepdf.Dictionary) else None
            if isinstance(mask, pikepdf.Dictionary) and isinstance(mask.get("/G"), pikepdf.Stream):
                enter(mask.G, mask.G.get("/Resources"))


_DO = re.compile(rb"/([^\x00\t\n\x0c\r ()<>\[\]{}/%]+)\s+Do(?![^\x00\t\n\x0c\r ()<>\[\]{}/%])")
_ESCAPE = re.compile(rb"#([0-9A-Fa-f]{2})")


def _drawn_names(form: pikepdf.Object) -> list[str]:
    """The XObject names `form`'s content draws (`/Name Do`), each once, as keys."""
    content = form.read_bytes() if isinstance(form, pikepdf.Stream) else b""
    return [
        "/" + _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), name).decode("utf-8", "surrogateescape")
        for name in dict.fromkeys(_DO.findall(content))
    ]


def _drawn_forms(names: list[str], resources: Any) -> list[pikepdf.Stream]:
    """The form XObjects the `names` are in `resources`."""
    xobjects = resources.get("/XObject") if isinstance(resources, pikepdf.Dictionary) else None
    if not isinstance(xobjects, pikepdf.Dictionary):
        return []
    drawn = []
    for key in names:
        item = xobjects.get(key)
        if isinstance(item, pikepdf.Stream) and item.get("/Subtype") == Name.Form:
            drawn.append(item)
    return drawn


def _refuse_drawing_loop(
    form: pikepdf.Object,
    page_number: int,
    names: dict[tuple[int, int], list[str]] | None = None,
    state: dict[tuple[tuple[int, int], tuple[int, int]], bool] | None = None,
) -> None:
    """PdfPageError when a form XObject the page draws draws itself, through any number of
    others: a loop with no end, which readers cut short somewhere of their own choosing.

    A form without resources of its own draws with those of what draws it (PDF 1.1 files do), so
    what it draws depends on them: such a form is followed once per resource dictionary it is
    drawn with, a form with its own once. `names` (what each form's content draws) and `state`
    (each drawing followed) may be shared by a document's pages: a drawing found to end for
    one page ends for every other."""
    names = {} if names is None else names

    def drawn_by(child: pikepdf.Stream) -> list[str]:
        if child.objgen not in names:
            names[child.objgen] = _drawn_names(child)
        return names[child.objgen]

    # Which resources a form draws with: an indirect dictionary by its object, a direct one by
    # the object it is written in (the form's own, or the form made of the page for this check).
    Drawing = tuple[tuple[int, int], tuple[int, int]]
    state = {} if state is None else state  # False: being drawn (on the path), True: done
    page_resources = form.get("/Resources")
    indirect = isinstance(page_resources, pikepdf.Dictionary) and page_resources.is_indirect
    page_key = page_resources.objgen if indirect else form.objgen
    # Each entry: the drawing (None for the page), its resources and their key, the forms it draws still to look at.
    path: list[tuple[Drawing | None, Any, tuple[int, int], list[pikepdf.Stream]]] = [
        (None, page_resources, page_key, _drawn_forms(_drawn_names(form), page_resources))
    ]
    while path:
        _, resources, resources_key, waiting = path[-1]
        if not waiting:
            done = path.pop()[0]
            if done is not None:
                state[done] = True
            continue
        child = waiting.pop()
        own = child.get("/Resources")
        if isinstance(own, pikepdf.Dictionary):
            child_resources, child_key = own, own.objgen if own.is_indirect else child.objgen
        else:
            child_resources, child_key = resources, resources_key
        drawing = (child.objgen, child_key)
        seen = state.get(drawing)
        if seen is False:
            raise PdfPageError(
                f"page {page_number} of the PDF draws a form XObject (object {child.objgen[0]}) inside itself, a "
                "loop that never ends: re-export the PDF (print it to PDF, say) and upload that"
            )
        if seen is None:
            state[drawing] = False
            path.append((drawing, child_resources, child_key, _drawn_forms(drawn_by(child), child_resources)))


def conformance(page: pikepdf.Page) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """A whole page's (its inherited resources too) unembedded fonts and PDF/A-3 problems, as a
    placed page's are found, with its annotations' (engine.media.foreign_pages: those it kept),
    and what of its annotations PDF/UA-1 forbids: for pages copied whole (extensions.md 12,
    append and prepend)."""
    form = pikepdf.Dictionary(Resources=page.resources)
    pdf_a, ua = annotation_problems(page)
    fonts = tuple(sorted(set(_unembedded_fonts(form))))
    return fonts, tuple(dict.fromkeys([*_pdf_a_problems(form), *pdf_a])), tuple(dict.fromkeys(ua))


def _values(holder: Any) -> list[Any]:
    if not isinstance(holder, pikepdf.Dictionary):
        return []
    return [holder[key] for key in holder.keys()]


def _font_name(font: pikepdf.Object) -> str:
    name = font.get("/BaseFont")
    return str(name)[1:] if name is not None else "an unnamed font"


def _embedded(descriptor: Any) -> bool:
    return isinstance(descriptor, pikepdf.Dictionary) and any(
        key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3")
    )


def _unembedded_fonts(form: pikepdf.Object) -> Iterator[str]:
    """ISO 19005-3 6.2.11.4.1: every font's program is embedded (Type 3 fonts draw with operators)."""
    for resources in _resources_tree(form):
        for font in _values(resources.get("/Font")):
            if not isinstance(font, pikepdf.Dictionary) or font.get("/Subtype") == Name.Type3:
                continue
            if font.get("/Subtype") == Name.Type0:
                descendants = font.get("/DescendantFonts")
                descendant = descendants[0] if isinstance(descendants, pikepdf.Array) and len(descendants) else None
                descriptor = descendant.get("/FontDescriptor") if isinstance(descendant, pikepdf.Dictionary) else None
            else:
                descriptor = font.get("/FontDescriptor")
            if not _embedded(descriptor):
                yield _font_name(font)


def _pdf_a_problems(form: pikepdf.Object) -> Iterator[str]:
    """What else the page carries that ISO 19005-3 forbids, as sentences (veraPDF's rules)."""
    for resources in _resources_tree(form):
        for state in _values(resources.get("/ExtGState")):
            if not isinstance(state, pikepdf.Dictionary):
                continue
            modes = state.get("/BM")
            for mode in modes if isinstance(modes, pikepdf.Array) else [modes] if modes is not None else []:
                if str(mode) not in STANDARD_BLEND_MODES:
                    yield f"transparency with the blend mode {mode}, which ISO 32000-1 does not define (6.2.10)"
            if "/TR" in state or state.get("/TR2", Name.Default) != Name.Default:
                yield "a transfer function (6.2.5)"
            if "/HTP" in state or "/HTO" in state:
                yield "a halftone origin or phase (6.2.5)"
        for xobject in _values(resources.get("/XObject")):
            if not isinstance(xobject, pikepdf.Stream):
                continue
            subtype = xobject.get("/Subtype")
            if subtype == Name.PS or "/PS" in xobject:
                yield "a PostScript XObject (6.2.9)"
            if "/Ref" in xobject:
                yield "a reference XObject (6.2.9)"
            if "/OPI" in xobject or "/Alternates" in xobject:
                yield "an image with OPI or alternates (6.2.8)"
            if xobject.get("/Interpolate") is True:
                yield "an image with /Interpolate true (6.2.8)"


__all__ = [
    "MAX_PDF_PAGES",
    "PdfFacts",
    "PdfPageError",
    "PlacedPage",
    "conformance",
    "is_pdf",
    "open_pdf",
    "page_size",
    "placement",
    "transformed_bounds",
    "visible_box",
    "pdf_facts",
    "prepare_page",
    "register",
]
