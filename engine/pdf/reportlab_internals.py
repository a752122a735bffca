"""Every reliance of the engine on ReportLab's internals, in one place (issue 32).

Anywhere in the engine ReportLab is used through its public API: a Canvas's drawing methods
(`addLiteral`, `doForm`, `hasForm`, …), pdfmetrics to register fonts and measure text,
rl_accel's number formatting, svglib's drawings. What it offers only internally is reached
here and nowhere else, by named functions:

- a canvas's private state (its document, the page's operators, what the page uses);
- XObjects and images registered in the document's object tables;
- objects written as bytes of our own (`WrittenObject`), values formatted by ReportLab;
- the catalog, pages, annotations and document info of the tagged profiles (engine.pdf.structure_tree);
- the file's cross-reference table and trailer, which the tagged profiles extend;
- TrueType fonts: a face's tables, a document's subsets and their objects, ToUnicode maps,
  and the meaning of the private codes engine.text.shaping draws glyphs with (kept per document).

tests/engine/pdf/test_reportlab_contract.py checks each assumption made here against the installed
ReportLab: after upgrading ReportLab, run that file. tests/test_architecture.py checks that
no other engine module imports ReportLab's internal modules or reads its private attributes.

ReportLab never encrypts the engine's documents (pikepdf does, engine.finishing.options): objects
written here as bytes could not be encrypted by it, and `WrittenObject` refuses to be.
"""

from __future__ import annotations

import copy
import hashlib
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from reportlab import rl_config
from reportlab.pdfbase import pdfdoc, pdfmetrics, ttfonts
from reportlab.pdfbase.pdfdoc import PDFDocument, PDFImageXObject, PDFObject, PDFObjectReference, PDFString

if TYPE_CHECKING:
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen.canvas import Canvas

# The types of a canvas's document and of an image XObject, for type hints elsewhere.
Document = PDFDocument
ImageXObject = PDFImageXObject

# --- A canvas's state -------------------------------------------------------------------


def document_of(canvas: Canvas) -> PDFDocument:
    """The document a canvas draws into (fonts' subsets and XObjects are kept per document)."""
    return canvas._doc


def page_content(canvas: Canvas) -> bytes:
    """The page's operators so far, encoded as ReportLab writes a content stream (its
    literals joined by newlines)."""
    return pdfdoc.pdfdocEnc("\n".join(canvas._code))


def mark_page_has_images(canvas: Canvas) -> None:
    """The page's /ProcSet names the image procedures, as Canvas.drawImage has it."""
    canvas._currentPageHasImages = 1


def xobjects_used(canvas: Canvas) -> list[str]:
    """The XObjects (by the names given to doForm) the page draws, in order, repeats kept."""
    return list(canvas._formsinuse)


def uses_annotations_colors_or_shadings(canvas: Canvas) -> bool:
    """The page made annotations, used named (separation) colours or shadings: resources a
    page has but a form XObject of its operators would not."""
    return bool(canvas._annotationrefs or canvas._colorsUsed or canvas._shadingUsed)


def graphics_state_resources(canvas: Canvas) -> str:
    """The page's graphics states (opacity) as a resource entry, " /ExtGState <<…>>", or "".
    They are direct dictionaries: no reference to resolve."""
    states = canvas._extgstate.getState()
    if states is None:
        return ""
    return " /ExtGState " + pdfdoc.format(states, canvas._doc).decode("latin-1")


def current_font(canvas: Canvas) -> tuple[str, float]:
    """The canvas's current font name and size."""
    return canvas._fontname, canvas._fontsize


def enforces_color_space(canvas: Canvas) -> bool:
    """The canvas converts colours into an enforced colour space (it was made with
    enforceColorSpace): a colour operator written by hand would bypass that."""
    return canvas._enforceColorSpace is not None


# --- XObjects and images --------------------------------------------------------------------


def xobject_name(canvas: Canvas, name: str) -> str:
    """The resource name under which the document holds the XObject given doForm's `name`."""
    return canvas._doc.getXObjectName(name)


def object_names(canvas: Canvas) -> frozenset[str]:
    """The names of every object the canvas's document holds."""
    return frozenset(canvas._doc.idToObject)


def add_form(canvas: Canvas, name: str, form: PDFObject) -> None:
    """Register a form XObject under doForm's `name` (check canvas.hasForm first)."""
    canvas._doc.addForm(name, form)


def image_xobject(name: str, reader: ImageReader) -> tuple[ImageXObject, ImageXObject | None]:
    """An image's XObject, its pixel stream compressed, and its soft mask (its alpha) apart,
    for `add_image`: ReportLab keeps the mask on the XObject, registered with it per document."""
    xobject = PDFImageXObject(name, reader, mask="auto")
    smask = getattr(xobject, "_smask", None)
    if smask is not None:
        del xobject._smask
    return xobject, smask


def stream_size(xobject: ImageXObject | None) -> int:
    """Bytes an image XObject's stream holds."""
    return len(getattr(xobject, "streamContent", b"") or b"") if xobject is not None else 0


def add_image(canvas: Canvas, name: str, xobject: ImageXObject, smask: ImageXObject | None) -> str:
    """The image (from `image_xobject`) in the canvas's document under doForm's `name`, added
    once, with its soft mask; its resource name. The XObject is copied: its stream, compressed
    once, is shared by every document."""
    doc = canvas._doc
    registered = doc.getXObjectName(name)
    if registered not in doc.idToObject:
        xobject = copy.copy(xobject)
        canvas._setXObjects(xobject)
        doc.Reference(xobject, registered)
        doc.addForm(name, xobject)
        if smask is not None:
            # Masks are named by their alpha data: images with the same alpha share one.
            mask_name = doc.getXObjectName(smask.name)
            if mask_name in doc.idToObject:
                xobject.smask = PDFObjectReference(mask_name)
            else:
                smask = copy.copy(smask)
                canvas._setXObjects(smask)
                xobject.smask = doc.Reference(smask, mask_name)
    return registered


def add_written_form(canvas: Canvas, name: str, objects: Sequence[tuple[str, Sequence[bytes | str]]]) -> str:
    """A form XObject made elsewhere (a page of another PDF, engine.media.pdf_pages) in the
    canvas's document under doForm's `name`, added once; its resource name.

    `objects` are the form first, then every object it reaches, each as (key, pieces): bytes
    written as they are and, between them, the keys of other objects of `objects` (never the
    form's: nothing refers to it), written as references to them ("12 0 R"). They become
    WrittenObjects of this document, named after the form ("FormXob.<name>/<key>"): the same
    form placed twice in a document is one set of objects, and two forms' objects never meet."""
    doc = canvas._doc
    registered = doc.getXObjectName(name)
    if registered not in doc.idToObject:
        prefix = registered + "/"
        (_, form_pieces), *reached = objects
        doc.addForm(name, WrittenObject(p if type(p) is bytes else prefix + p for p in form_pieces))
        for key, pieces in reached:
            doc.Reference(WrittenObject(p if type(p) is bytes else prefix + p for p in pieces), prefix + key)
    return registered


# --- Objects and values -----------------------------------------------------------------------


class WrittenObject(PDFObject):
    """An indirect object written as bytes we made: `pieces`, each bytes written as it is or
    the name of another object of the document, written as a reference to it ("12 0 R").
    Referenced only (never inline), as ReportLab's streams and dictionaries of fonts are."""

    __RefOnly__ = 1

    def __init__(self, pieces: Iterable[bytes | str] = ()) -> None:
        self.pieces: list[bytes | str] = list(pieces)

    def format(self, document: PDFDocument) -> bytes:
        if type(document.encrypt) is not pdfdoc.NoEncryption:
            raise ValueError("a document ReportLab encrypts cannot hold objects written as bytes")
        numbers = document.idToObjectNumberAndVersion
        return b"".join(piece if type(piece) is bytes else b"%d 0 R" % numbers[piece][0] for piece in self.pieces)


def reference(doc: PDFDocument, obj: PDFObject, name: str | None = None) -> str:
    """Register `obj` as an indirect object (numbered in order of registration), under `name`
    or one ReportLab makes up; the name it has in the document."""
    return doc.Reference(obj, name).name


def reference_to(name: str) -> PDFObjectReference:
    """A value referring to the object registered as `name`."""
    return PDFObjectReference(name)


def object_number(doc: PDFDocument, name: str) -> int:
    """The number of the object registered as `name` (its generation is always 0)."""
    return doc.idToObjectNumberAndVersion[name][0]


# Bytes a name writes as #XX (ISO 32000-1 7.3.5): outside 0x21..0x7E, the delimiters and '#'.
# ReportLab's PDFName leaves '/' bare (a form option "a/b" became two names) and writes a
# character past U+00FF as '#' and its code point, which no reader decodes.
_NAME_ESCAPED = frozenset(b"()<>[]{}/%#")


def pdf_name(value: str) -> str:
    """A PDF name, "/Value": its UTF-8 bytes, each one a name cannot hold written as #XX."""
    return "/" + "".join(
        chr(byte) if 0x21 <= byte <= 0x7E and byte not in _NAME_ESCAPED else f"#{byte:02X}"
        for byte in value.encode("utf-8")
    )


def pdf_array(values: Iterable[Any]) -> Any:
    """An array value (of references, names, numbers), written inline."""
    return pdfdoc.PDFArray(values)


def text_string(value: str) -> PDFString:
    """A text string value, written as ReportLab writes strings (PDFDocEncoding or UTF-16)."""
    return PDFString(value)


def format_value(doc: PDFDocument, value: Any) -> bytes:
    """A value (a text_string, a WrittenObject's or ReportLab's object) as ReportLab writes it."""
    return pdfdoc.format(value, doc, toplevel=1)


def format_dictionary(doc: PDFDocument, entries: Mapping[str, Any]) -> bytes:
    """A dictionary as ReportLab writes it (keys sorted). A str value is written as it is
    ("true", a pdf_name), as are bytes; numbers as fp_str writes them."""
    return pdfdoc.format(pdfdoc.PDFDictionary(dict(entries)), doc, toplevel=1)


def format_stream(doc: PDFDocument, entries: Mapping[str, Any], content: bytes) -> bytes:
    """A stream object's dictionary and content as ReportLab writes it, with the document's
    default filters (none in the engine's documents: default_stream_filters)."""
    return pdfdoc.format(pdfdoc.PDFStream(pdfdoc.PDFDictionary(dict(entries)), content), doc, toplevel=1)


def default_stream_filters(doc: PDFDocument) -> tuple[Any, ...]:
    """The filters ReportLab applies to a stream that names none."""
    return tuple(doc.defaultStreamFilters or ())


# --- The document's catalog, pages, annotations and info ---------------------------------


def pages_of(doc: PDFDocument) -> list[Any]:
    """The document's page objects, in order (each registered once drawn: Canvas.showPage)."""
    return doc.Pages.pages


def set_entries(obj: Any, **entries: Any) -> None:
    """Set entries of a ReportLab catalog or page; None leaves one out. A key the object's
    class does not list is added to what it writes (its values are written as they are: a
    WrittenObject is referenced, a reference_to is a reference)."""
    listed = obj.__NoDefault__
    missing = [key for key in entries if key not in listed and key not in obj.__Defaults__]
    if missing:
        obj.__NoDefault__ = [*listed, *missing]
    for key, value in entries.items():
        setattr(obj, key, value)


def set_catalog_entries(doc: PDFDocument, **entries: Any) -> None:
    """set_entries on the document's catalog. Its StructTreeRoot, MarkInfo, Metadata and
    ViewerPreferences are registered as indirect objects when the catalog is written."""
    set_entries(doc.Catalog, **entries)


def annotation_name(page: Any, index: int) -> str:
    """The registered name of a page's index-th annotation (in the order they were made)."""
    return page.Annots[index].name


def set_annotation_entry(doc: PDFDocument, name: str, key: str, value: Any) -> None:
    """Set an entry of the annotation registered as `name` (before the document is saved)."""
    doc.idToObject[name][key] = value


def set_dictionary_entry(doc: PDFDocument, name: str, key: str, value: Any) -> None:
    """Set an entry of the dictionary registered as `name` (a form field's /Kids once all its
    widgets are drawn), before the document is saved."""
    doc.idToObject[name][key] = value


def is_registered(doc: PDFDocument, name: str) -> bool:
    """Whether the document holds an object registered as `name`."""
    return name in doc.idToObject


def dictionary(entries: Mapping[str, Any]) -> Any:
    """A dictionary value, written inline where it is used, or registered with `reference`.
    Values as format_dictionary writes them."""
    return pdfdoc.PDFDictionary(dict(entries))


def form_stream(entries: Mapping[str, Any], content: bytes) -> PDFObject:
    """A stream (a widget's appearance, a form XObject) with the document's default filters:
    register it with `reference` or `add_form`."""
    return pdfdoc.PDFStream(pdfdoc.PDFDictionary(dict(entries)), content)


def this_page(canvas: Canvas) -> PDFObjectReference:
    """A reference to the page being drawn (an annotation's /P)."""
    return canvas._doc.thisPageRef()


def add_annotation(canvas: Canvas, name: str, entries: Mapping[str, Any]) -> str:
    """An annotation (a form field's widget) on the page being drawn, after those made before
    it (engine.pdf.tagging counts them in that order); its registered name."""
    canvas._addAnnotation(pdfdoc.PDFDictionary(dict(entries)), name)
    return canvas._doc.annotationName(name)


def require_pdf_version(doc: PDFDocument, version: tuple[int, int]) -> None:
    """The file's header says at least this PDF version."""
    doc._pdfVersion = max(doc._pdfVersion, version)


class _UntrappedInfo(pdfdoc.PDFInfo):
    """ReportLab's document info without /Trapped, which has no XMP counterpart (PDF/A wants
    the info and the XMP to agree)."""

    def format(self, document: PDFDocument) -> bytes:
        date = pdfdoc.PDFDate(ts=document._timeStamp, dateFormatter=self._dateFormatter)
        info = {
            "Title": PDFString(self.title),
            "Author": PDFString(self.author),
            "ModDate": date,
            "CreationDate": date,
            "Producer": PDFString(self.producer),
            "Creator": PDFString(self.creator),
            "Subject": PDFString(self.subject),
            "Keywords": PDFString(self.keywords),
        }
        return pdfdoc.PDFDictionary(info).format(document)


def set_info_without_trapped(doc: PDFDocument, title: str) -> dict[str, str]:
    """Give the document info `title` and no /Trapped; its fields as a reader decodes them,
    keyed as in the PDF (what the XMP mirrors)."""
    info = _UntrappedInfo()
    info.__dict__.update(doc.info.__dict__)
    info.title = title
    doc.info = info
    # The date as ReportLab writes it: "(D:…)", nothing in it escaped.
    date = pdfdoc.PDFDate(ts=doc._timeStamp, dateFormatter=info._dateFormatter).format(doc)
    date = date[1:-1].decode("latin-1")
    return {
        "/Title": info.title,
        "/Author": info.author,
        "/Subject": info.subject,
        "/Keywords": info.keywords,
        "/Producer": info.producer,
        "/Creator": info.creator,
        "/CreationDate": date,
        "/ModDate": date,
    }


# --- The saved file: objects in number order, one cross-reference table, the trailer -------

XREF_ENTRY = 20  # bytes of one entry: "0000012345 00000 n \n"
STREAM_OBJECT_END = b"endstream\nendobj\n"  # how a stream's object ends, its data right before


@dataclass(frozen=True)
class SavedFile:
    """A file as ReportLab's Canvas.save writes it: the header, objects 1 … count-1 in number
    order, then one cross-reference table of one section from 0, its trailer, startxref."""

    pdf: bytes
    xref_at: int  # where "xref" starts: the last object ends here
    count: int  # entries in the table: the objects and the free list's head (entry 0)
    entries_at: int

    @property
    def entries(self) -> bytes:
        """The table's entries as written, 20 bytes each, the free list's head first."""
        return self.pdf[self.entries_at : self.entries_at + XREF_ENTRY * self.count]

    def offset(self, number: int) -> int:
        """Where object `number` starts."""
        at = self.entries_at + XREF_ENTRY * number
        return int(self.pdf[at : at + 10])

    def offsets(self) -> list[int]:
        """Where each object 1 … count-1 starts."""
        entries = self.entries
        return [int(entries[n : n + 10]) for n in range(XREF_ENTRY, len(entries), XREF_ENTRY)]


def read_saved(pdf: bytes) -> SavedFile:
    tail = pdf.rindex(b"startxref\n")
    xref_at = int(pdf[tail + 10 :].split(b"\n", 1)[0])
    header_end = pdf.index(b"\n", xref_at + 5)  # "xref\n0 <count>\n"
    count = int(pdf[xref_at + 5 : header_end].split()[1])
    return SavedFile(pdf, xref_at, count, header_end + 1)


def xref_entry(offset: int) -> bytes:
    return b"%010d 00000 n \n" % offset


def file_end(saved: SavedFile, entries: bytes, total: int, xref_at: int) -> list[bytes]:
    """The cross-reference table of `total` entries (`entries`: the free list's head and each
    object's, as xref_entry writes them), the saved file's trailer with its /Size made `total`,
    startxref (`xref_at`: where this table starts) and the end-of-file marker."""
    trailer_at = saved.entries_at + XREF_ENTRY * saved.count
    old_trailer = saved.pdf[trailer_at : saved.pdf.rindex(b"startxref\n") + 10]
    trailer = old_trailer.replace(b"/Size %d\n" % saved.count, b"/Size %d\n" % total, 1)
    if trailer == old_trailer:
        raise ValueError("no /Size in the trailer: not a file as ReportLab writes it")
    return [b"xref\n0 %d\n" % total, entries, trailer, b"%d\n%%%%EOF\n" % xref_at]


# --- TrueType fonts ---------------------------------------------------------------------------


def _face(font_name: str) -> ttfonts.TTFontFace:
    return pdfmetrics.getFont(font_name).face


def character_map(font_name: str) -> Mapping[int, int]:
    """The font's character → glyph map (its cmap, and the private codes add_glyph_code gave
    it). Read only."""
    return _face(font_name).charToGlyph


def char_widths(font_name: str) -> Mapping[int, float]:
    """Each character's advance in 1/1000 em (private codes' too). Read only."""
    return _face(font_name).charWidths


def vertical_metrics(font_name: str) -> tuple[float, float]:
    """The font's ascent and descent (negative), per 1000 units of size."""
    face = _face(font_name)
    return face.ascent, face.descent


def add_glyph_code(font_name: str, code: int, glyph: int, width: float) -> None:
    """Let the font draw `glyph` as the character `code` (ReportLab subsets fonts by character):
    encoded by split_into_subsets, embedded in its subsets, `width` its advance. The same code
    is always given the same glyph (engine.text.shaping), so threads that add it at once agree."""
    face = _face(font_name)
    face.charToGlyph[code] = glyph
    drawn_as = face.glyphToChar.setdefault(glyph, [])
    if code not in drawn_as:
        drawn_as.append(code)
    face.charWidths[code] = width


_PRIVATE_CODES = "_docbench_private_codes"  # an attribute of ours on ReportLab's font face
_PRIVATE_PLANES = (range(0xF0000, 0xFFFFE), range(0x100000, 0x10FFFE))  # planes 15 and 16, private use
_PRIVATE_LOCK = threading.Lock()
# ReportLab's TTFontFace.makeSubset reads the font through one file position kept on the face:
# two threads cutting subsets of one face at once read each other's places (wrong bytes, or an
# IndexError). Subsets are cached (engine.fonts.embedding), so the lock is met on cold caches only.
_SUBSETTING = threading.Lock()


def private_code(font_name: str, glyph: int, meaning: str, width: float) -> int:
    """The private-use character the font draws `glyph` with where it stands for `meaning` (a
    joined form, a ligature, a piece of a conjunct: what its ToUnicode entry says): one code per
    glyph and meaning for the life of the font, taken from the private planes where the font's
    own cmap has nothing, `width` its advance. Which code is taken depends on what the process
    drew before; the document's bytes do not (ReportLab numbers a subset's codes in order of use)."""
    face = _face(font_name)
    with _PRIVATE_LOCK:
        table: dict[tuple[int, str], int] = face.__dict__.setdefault(_PRIVATE_CODES, {})
        code = table.get((glyph, meaning))
        if code is not None:
            return code
        taken = face.charToGlyph
        start = max(table.values(), default=_PRIVATE_PLANES[0].start - 1) + 1
        for plane in _PRIVATE_PLANES:
            code = next((c for c in range(max(start, plane.start), plane.stop) if c not in taken), None)
            if code is not None:
                break
        else:
            raise ValueError(f"{font_name}: no private code is left for glyph {glyph}")
        add_glyph_code(font_name, code, glyph, width)
        table[(glyph, meaning)] = code
        return code


def private_codes(font_name: str) -> Mapping[tuple[int, str], int]:
    """The private codes private_code gave the font so far, by glyph and meaning. Read only."""
    return _face(font_name).__dict__.get(_PRIVATE_CODES, {})


def split_into_subsets(font: Any, text: str, doc: PDFDocument) -> list[tuple[str, bytes]]:
    """The text as the font's subsets in this document encode it: (the subset's font resource
    name, "/F2+0", its one-byte codes) per run of one subset. Characters are given codes in the
    order the document first draws them; ASCII keeps its own codes in subset 0."""
    return [(font.getSubsetInternalName(subset, doc), codes) for subset, codes in font.splitString(text, doc)]


_ASCII_NAMES = "_docbench_ascii_subset_names"  # an attribute of ours on ReportLab's document


def ascii_subset_name(font_name: str, doc: PDFDocument) -> str:
    """The resource name ("F1+0") of the font's first subset in the document, where ASCII has
    its own codes, set up as if the document had drawn with it (remembered per document)."""
    names: dict[str, str] = doc.__dict__.setdefault(_ASCII_NAMES, {})
    name = names.get(font_name)
    if name is None:
        font = pdfmetrics.getFont(font_name)
        font._assignState(doc)
        name = names[font_name] = font.getSubsetInternalName(0, doc)[1:]
    return name


def ascii_fonts_used(doc: PDFDocument) -> tuple[tuple[str, str], ...] | None:
    """The fonts the document drew with, each with the resource name its operators use for its
    first subset; None when one is not a TrueType font or drew a character away from its own
    ASCII code (those are given in order of first use, per document)."""
    out = []
    for font_name, internal in doc.fontMapping.items():
        font = pdfmetrics.getFont(font_name)
        if not isinstance(font, ttfonts.TTFont):
            return None
        state = font.state.get(doc)
        if state is not None:
            if len(state.subsets) != 1 or any(char != code for char, code in state.assignments.items()):
                return None
        out.append((font_name, f"{internal.lstrip('/')}+0"))
    return tuple(out)


_MEANINGS = "_docbench_glyph_meanings"  # an attribute of ours on ReportLab's document


def glyph_meanings(doc: PDFDocument, font_name: str) -> dict[int, str]:
    """What each private code of the font stands for in this document (engine.text.shaping: the
    characters of the cluster its glyph was first drawn for), read by the font's ToUnicode
    maps. Kept with the document: a code means in a document what it was drawn as there,
    whatever other documents of the process drew. Filled by the one thread drawing the document."""
    tables: dict[str, dict[int, str]] = doc.__dict__.setdefault(_MEANINGS, {})
    table = tables.get(font_name)
    if table is None:
        table = tables[font_name] = {}
    return table


def to_unicode_cmap(base_font_name: str, codes: Sequence[int], meanings: Mapping[int, str]) -> str:
    """A subset's ToUnicode CMap: each one-byte code to the UTF-16 of what it stands for (a
    private code's meaning, else its own character; beyond the BMP as a surrogate pair). The
    text is ReportLab's (ttfonts.makeToUnicodeCMap) but for the mapped values, which it writes
    as 4 hex digits of the code point."""
    cmap = [
        "/CIDInit /ProcSet findresource begin",
        "12 dict begin",
        "begincmap",
        "/CIDSystemInfo",
        f"<< /Registry ({base_font_name})",
        f"/Ordering ({base_font_name})",
        "/Supplement 0",
        ">> def",
        f"/CMapName /{base_font_name} def",
        "/CMapType 2 def",
        "1 begincodespacerange",
        f"<00> <{len(codes) - 1:02X}>",
        "endcodespacerange",
        f"{len(codes)} beginbfchar",
        *(
            f"<{index:02X}> <{meanings.get(code, chr(code)).encode('utf-16-be').hex().upper()}>"
            for index, code in enumerate(codes)
        ),
        "endbfchar",
        "endcmap",
        "CMapName currentdict /CMap defineresource pop",
        "end",
        "end",
    ]
    return "\n".join(cmap)


@dataclass(frozen=True)
class FontSubset:
    """One subset of a TrueType font in a document: what its objects are made of."""

    number: int
    base_font_name: str  # "AAAAAA+Inter-Regular"
    codes: tuple[int, ...]  # the character each one-byte code stands for, code 0 first
    meanings: tuple[tuple[int, str], ...]  # the private codes among them and what they stand for
    key: tuple[Any, ...]  # everything the objects' bytes depend on


@dataclass(frozen=True)
class SubsetObjects:
    """One subset's objects as bytes. The font dictionary and the descriptor are split where
    the document's own values go: FontDescriptor, the subset's /Name and ToUnicode for the
    font (in that order, their keys' sorted order); FontFile2 for the descriptor."""

    font: tuple[bytes, ...]
    to_unicode: bytes
    font_file: bytes
    descriptor: tuple[bytes, ...]

    @property
    def size(self) -> int:
        return sum(map(len, self.font)) + len(self.to_unicode) + len(self.font_file) + sum(map(len, self.descriptor))


# Markers put where a document's own values go (the subset's /Name, references), to split a
# formatted object around them: PDF name characters, which PDFName leaves as they are.
_HOLES = ("docbench-hole-0", "docbench-hole-1", "docbench-hole-2")


def _split(formatted: bytes, holes: tuple[str, ...]) -> tuple[bytes, ...]:
    parts = [formatted]
    for marker in holes:
        before, after = parts[-1].split(marker.encode())
        parts[-1:] = [before, after]
    return tuple(parts)


def _interleaved(parts: tuple[bytes, ...], fills: Sequence[bytes | str]) -> list[bytes | str]:
    pieces: list[bytes | str] = [parts[0]]
    for fill, part in zip(fills, parts[1:], strict=True):
        pieces += [fill, part]
    return pieces


def subset_tag(font_name: str, texts: Sequence[str], glyphs: Sequence[int | None]) -> bytes:
    """A subset's six-letter tag ("KQWZTB" of "KQWZTB+Inter-Regular"): a function of the font and
    what the subset holds (the text each code stands for, the glyph it draws), so that each subset
    of a document is named apart (ISO 32000 9.6.4: the tag tells subsets apart; ReportLab tags
    every font's first subset AAAAAA) and the same subset is named alike in every document and
    process: the bytes depend on nothing the process did before."""
    digest = hashlib.sha256(repr((font_name, tuple(texts), tuple(glyphs))).encode()).digest()
    return bytes(ord("A") + byte % 26 for byte in digest[:6])


@lru_cache(maxsize=4096)
def _subset_tag_of(font_name: str, codes: tuple[int, ...], spoken: tuple[tuple[int, str], ...]) -> bytes:
    """subset_tag of a subset's codes and the private ones' meanings: by what each code draws
    and says, not by the codes (a private code's number depends on what the process drew
    before, private_code; the document does not), remembered by the codes in this process,
    where a code always draws the same glyph and says the same text."""
    meanings = dict(spoken)
    glyphs = _face(font_name).charToGlyph
    return subset_tag(font_name, tuple(meanings.get(code, chr(code)) for code in codes), tuple(map(glyphs.get, codes)))


class TrueTypeFont(ttfonts.TTFont):
    """ReportLab's TrueType font, whose subsets' objects (ReportLab calls addObjects for each
    font a document used, as it is saved) are made by `subset_objects` and written as bytes:
    the same objects, under the same names, registered in the same order (so numbered the same)
    as TTFont.addObjects makes them, but for ToUnicode maps that say what private codes stand
    for (glyph_meanings) and write characters beyond the BMP as surrogate pairs."""

    def subset_objects(self, doc: PDFDocument, subset: FontSubset) -> SubsetObjects:
        """The subset's objects as TTFont.addObjects and TTFontFace.addSubsetObjects make them,
        formatted with markers where the document's own values go."""
        face = self.face
        font = pdfdoc.PDFTrueTypeFont()
        font.Name = _HOLES[1]
        font.BaseFont = subset.base_font_name
        font.FirstChar = 0
        font.LastChar = len(subset.codes) - 1
        font.Widths = pdfdoc.PDFArray(list(map(face.getCharWidth, subset.codes)))
        font.FontDescriptor = _HOLES[0]
        font.ToUnicode = _HOLES[2]

        to_unicode = pdfdoc.PDFStream()
        to_unicode.content = to_unicode_cmap(subset.base_font_name, subset.codes, dict(subset.meanings))
        font_file = pdfdoc.PDFStream()
        with _SUBSETTING:
            font_file.content = face.makeSubset(list(subset.codes))
        font_file.dictionary["Length1"] = len(font_file.content)
        if doc.compression:
            to_unicode.filters = [pdfdoc.PDFZCompress]
            font_file.filters = [pdfdoc.PDFZCompress]
        flags = (face.flags & ~ttfonts.FF_NONSYMBOLIC) | ttfonts.FF_SYMBOLIC
        descriptor = pdfdoc.PDFDictionary(
            {
                "Type": "/FontDescriptor",
                "Ascent": face.ascent,
                "CapHeight": face.capHeight,
                "Descent": face.descent,
                "Flags": flags,
                "FontBBox": pdfdoc.PDFArray(face.bbox),
                "FontName": pdfdoc.PDFName(subset.base_font_name),
                "ItalicAngle": face.italicAngle,
                "StemV": face.stemV,
                "FontFile2": _HOLES[0],
                "MissingWidth": face.defaultWidth,
            }
        )
        return SubsetObjects(
            # The keys are written sorted: FontDescriptor, Name, ToUnicode. The /Name hole is a
            # name: its slash goes with the hole, the fill brings its own.
            font=_split(pdfdoc.format(font, doc, toplevel=1), (_HOLES[0], "/" + _HOLES[1], _HOLES[2])),
            to_unicode=pdfdoc.format(to_unicode, doc, toplevel=1),
            font_file=pdfdoc.format(font_file, doc, toplevel=1),
            descriptor=_split(pdfdoc.format(descriptor, doc, toplevel=1), _HOLES[:1]),
        )

    def addObjects(self, doc: PDFDocument) -> None:  # noqa: N802 (ReportLab's name)
        try:
            state = self.state[doc]
        except KeyError:
            state = self.state[doc] = ttfonts.TTFont.State(self._asciiReadable)
        state.frozen = 1
        face = self.face
        glyphs = face.charToGlyph
        meanings = doc.__dict__.get(_MEANINGS, {}).get(self.fontName, {})  # glyph_meanings, if any
        fonts_dict = doc.idToObject["BasicFonts"].dict
        for number, codes in enumerate(state.subsets):
            internal_name = self.getSubsetInternalName(number, doc)[1:]
            codes = tuple(codes)
            glyph_ids = tuple(map(glyphs.get, codes))
            spoken = tuple((code, meanings[code]) for code in codes if code in meanings) if meanings else ()
            tag = _subset_tag_of(self.fontName, codes, spoken)
            base_font_name = b"".join((tag, b"+", face.name, face.subfontNameX)).decode("pdfdoc")
            key = (
                face.filename,
                face.subfontNameX,
                number,
                codes,
                glyph_ids,
                spoken,
                bool(doc.compression),
                rl_config.pdfMultiLine,
            )
            objects = self.subset_objects(doc, FontSubset(number, base_font_name, codes, spoken, key))
            to_unicode = doc.Reference(WrittenObject((objects.to_unicode,)), "toUnicodeCMap:" + base_font_name)
            font_file = doc.Reference(
                WrittenObject((objects.font_file,)), f"fontFile:{face.filename}({base_font_name})"
            )
            descriptor = WrittenObject(_interleaved(objects.descriptor, (font_file.name,)))
            descriptor_ref = doc.Reference(descriptor, "fontDescriptor:" + base_font_name)
            name = pdfdoc.pdfdocEnc(pdfdoc.PDFName(internal_name))
            font = WrittenObject(_interleaved(objects.font, (descriptor_ref.name, name, to_unicode.name)))
            font.__Comment__ = f"Font {self.fontName} subset {number}"
            doc.Reference(font, internal_name)
            fonts_dict[internal_name] = font
        del self.state[doc]


__all__ = [
    "Document",
    "FontSubset",
    "ImageXObject",
    "STREAM_OBJECT_END",
    "SavedFile",
    "XREF_ENTRY",
    "SubsetObjects",
    "TrueTypeFont",
    "WrittenObject",
    "add_form",
    "add_glyph_code",
    "add_image",
    "annotation_name",
    "ascii_fonts_used",
    "ascii_subset_name",
    "char_widths",
    "character_map",
    "current_font",
    "default_stream_filters",
    "document_of",
    "enforces_color_space",
    "file_end",
    "format_dictionary",
    "format_stream",
    "format_value",
    "glyph_meanings",
    "graphics_state_resources",
    "image_xobject",
    "mark_page_has_images",
    "object_names",
    "object_number",
    "page_content",
    "private_code",
    "private_codes",
    "pages_of",
    "pdf_array",
    "pdf_name",
    "read_saved",
    "reference",
    "reference_to",
    "require_pdf_version",
    "set_annotation_entry",
    "set_catalog_entries",
    "set_entries",
    "set_info_without_trapped",
    "split_into_subsets",
    "subset_tag",
    "stream_size",
    "text_string",
    "to_unicode_cmap",
    "uses_annotations_colors_or_shadings",
    "vertical_metrics",
    "xobject_name",
    "xobjects_used",
    "xref_entry",
]
