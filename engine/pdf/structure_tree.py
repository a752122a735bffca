"""The tagged profiles: `accessible` (PDF/UA-1) and `pdf-a` (PDF/A-3b, tagged, no UA claim).

ReportLab draws the marked content (see `tagging.py`); what ReportLab does not write
is added here: the structure tree and its ParentTree, /StructParents on pages,
/MarkInfo, /Lang, /ViewerPreferences, XMP metadata that agrees with the document
info, and for PDF/A an sRGB OutputIntent; the empty /Trans ReportLab writes on every
page and the info's /Trapped (no XMP counterpart) are left out.

`save_tagged` writes all of it into ReportLab's document before it is saved, and the
structure elements straight after ReportLab's objects, so the file is serialised once (a
pikepdf pass — parse, edit, write again — cost as much as drawing the document). A
render whose finishing needs pikepdf anyway (attachments, a Factur-X e-invoice,
encryption) takes the pikepdf pass, `finish`, which adds the same.
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pikepdf
from pikepdf import Array, Dictionary, Name, String
from reportlab.pdfgen.canvas import Canvas

from ..design.tree import DesignTree
from ..finishing.options import NO_FINISHING, FinishingPlan
from . import reportlab_internals as rl
from .tagging import DEFAULT_LANGUAGE, AnnotationRef, StructNode, Tagger

ICC_PROFILE = Path(__file__).parent / "icc" / "sRGB.icc"
# Structure attributes that belong in an attribute object (/A) rather than on the element.
_ATTRIBUTE_OWNERS = {"Scope": "Table", "ListNumbering": "List"}


@cache
def _icc_bytes() -> bytes:
    return ICC_PROFILE.read_bytes()


# Formatted objects, by what they are made from (formatted_once): the sRGB profile's stream,
# the output intent, a design's metadata. Bounded: emptied when full (each is made again as it
# is asked for, the same bytes); shared by threads (a dict's get and set are atomic, and two
# threads formatting one key agree).
FORMATTED: dict[Hashable, bytes] = {}
FORMATTED_MAX = 256


def formatted_once(key: Hashable, make: Callable[[], bytes]) -> bytes:
    """The bytes `make` formats for `key`, formatted the first time it is asked for."""
    formatted = FORMATTED.get(key)
    if formatted is None:
        if len(FORMATTED) >= FORMATTED_MAX:
            FORMATTED.clear()
        formatted = FORMATTED[key] = make()
    return formatted


def _written_once(doc: rl.Document, key: Hashable, make: Callable[[], bytes]) -> rl.WrittenObject:
    """An object formatted once (formatted_once) and written as those bytes. Only for objects
    that refer to no other object."""
    return rl.WrittenObject((formatted_once(key, make),))


def _icc_stream(doc: rl.Document) -> bytes:
    """The sRGB profile's stream object as ReportLab formats it (unfiltered, as the pikepdf
    pass wrote it): the same bytes in every document."""
    return formatted_once("sRGB profile", lambda: rl.format_stream(doc, {"N": 3}, _icc_bytes()))


_HOLE = "docbench-hole"


def _output_intent(doc: rl.Document) -> list[bytes]:
    """The sRGB output intent's dictionary, before and after its reference to the profile
    (the same in every document)."""
    intent = {
        "Type": rl.pdf_name("OutputIntent"),
        "S": rl.pdf_name("GTS_PDFA1"),
        "OutputConditionIdentifier": rl.text_string("sRGB"),
        "Info": rl.text_string("sRGB IEC61966-2.1"),
        "DestOutputProfile": _HOLE,
    }
    return formatted_once("OutputIntent", lambda: rl.format_dictionary(doc, intent)).split(_HOLE.encode())


@lru_cache(maxsize=64)
def _xmp_of(info: tuple[tuple[str, str], ...], title: str, language: str, profile: str) -> str:
    """_xmp of the document info's fields, remembered: a design's documents share them."""
    return _xmp(dict(info), title, language, profile)


def save_tagged(
    canvas: Canvas,
    buffer: io.BytesIO,
    tree: DesignTree,
    tagger: Tagger,
    profile: str,
    finishing: FinishingPlan = NO_FINISHING,
    write_directly: bool = True,
) -> bytes:
    """Save a drawn tagged document (instead of `canvas.save()`) and return its bytes.

    The structure, metadata and output intent are written into ReportLab's document before
    it is saved; finishing that pikepdf does (attachments, Factur-X, encryption) takes the
    pikepdf pass, `finish`, instead, as every render does with `write_directly` off (the
    reference path, RenderOptions.tagged_written_directly)."""
    if not write_directly or finishing.needs_pdf_pass or finishing.xmp:
        canvas.save()
        return finish(buffer.getvalue(), tree, tagger, profile, finishing)
    doc = rl.document_of(canvas)
    structure = _write_tagged(doc, tree, tagger, profile)
    canvas.save()
    return _append_structure(buffer.getvalue(), doc, structure, eol_before_endstream=profile == "pdf-a")


def finish(
    pdf_bytes: bytes, tree: DesignTree, tagger: Tagger, profile: str, finishing: FinishingPlan = NO_FINISHING
) -> bytes:
    """Turn ReportLab's marked-up output into a tagged PDF of the given profile, with the
    render's finishing (attachments, e-invoice, encryption) in the same pikepdf pass."""
    pdf = pikepdf.open(io.BytesIO(pdf_bytes))
    pages = [page.obj for page in pdf.pages]
    _structure(pdf, pages, tagger)
    title = tree.metadata.title or "Untitled document"
    language = tree.metadata.language or DEFAULT_LANGUAGE
    for page in pages:
        if "/Trans" in page:
            del page["/Trans"]  # ReportLab writes an empty transition on every page
    pdf.Root.MarkInfo = Dictionary(Marked=True)
    pdf.Root.Lang = String(language)
    pdf.Root.ViewerPreferences = Dictionary(DisplayDocTitle=True)
    pdf.docinfo[Name.Title] = title
    if "/Trapped" in pdf.docinfo:
        del pdf.docinfo["/Trapped"]  # has no XMP counterpart; PDF/A wants the two to agree
    finishing.apply(pdf)
    pdf.Root.Metadata = pdf.make_stream(
        _xmp(pdf.docinfo, title, language, profile, finishing.xmp).encode(), Type=Name.Metadata, Subtype=Name.XML
    )
    if profile == "pdf-a":
        icc = pikepdf.Stream(pdf, _icc_bytes())
        icc.N = 3
        pdf.Root.OutputIntents = Array(
            [
                pdf.make_indirect(
                    Dictionary(
                        Type=Name.OutputIntent,
                        S=Name.GTS_PDFA1,
                        OutputConditionIdentifier=String("sRGB"),
                        Info=String("sRGB IEC61966-2.1"),
                        DestOutputProfile=pdf.make_indirect(icc),
                    )
                )
            ]
        )
    out = io.BytesIO()
    # save_options: a deterministic /ID (the same input gives the same bytes) and the
    # streams copied as ReportLab wrote them, unless the document is encrypted.
    pdf.save(out, min_version="1.7", fix_metadata_version=False, **finishing.save_options())
    return out.getvalue()


_DATE = re.compile(r"D:(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})([+-Z])?(\d{2})?'?(\d{2})?")


def _xmp_date(pdf_date: str) -> str:
    """A PDF date (D:20000101000000+00'00) as the XMP date it must equal (PDF/A)."""
    match = _DATE.match(pdf_date)
    if not match:
        return ""
    year, month, day, hour, minute, second, sign, tz_hour, tz_minute = match.groups()
    zone = "Z" if sign in (None, "Z") else f"{sign}{tz_hour or '00'}:{tz_minute or '00'}"
    return f"{year}-{month}-{day}T{hour}:{minute}:{second}{zone}"


def _xmp(info: pikepdf.Dictionary, title: str, language: str, profile: str, extra: str = "") -> str:
    """The XMP packet, mirroring the document info field by field; `extra` is more
    rdf:Description elements (the Factur-X properties and their extension schema).

    Written as text rather than through pikepdf's metadata editor, which costs more
    than the rest of this pass; every value is XML-escaped.
    """

    def value(key: str) -> str:
        return escape(str(info.get(key, "")), {'"': "&quot;"})

    fields = [
        f'<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{escape(title)}</rdf:li></rdf:Alt></dc:title>',
        f"<dc:language><rdf:Bag><rdf:li>{escape(language)}</rdf:li></rdf:Bag></dc:language>",
    ]
    if value("/Author"):
        fields.append(f"<dc:creator><rdf:Seq><rdf:li>{value('/Author')}</rdf:li></rdf:Seq></dc:creator>")
    if value("/Subject"):
        fields.append(
            f'<dc:description><rdf:Alt><rdf:li xml:lang="x-default">{value("/Subject")}</rdf:li>'
            "</rdf:Alt></dc:description>"
        )
    for key, element in (("/Keywords", "pdf:Keywords"), ("/Producer", "pdf:Producer"), ("/Creator", "xmp:CreatorTool")):
        if value(key):
            fields.append(f"<{element}>{value(key)}</{element}>")
    for key, element in (("/CreationDate", "xmp:CreateDate"), ("/ModDate", "xmp:ModifyDate")):
        if _xmp_date(str(info.get(key, ""))):
            fields.append(f"<{element}>{_xmp_date(str(info.get(key)))}</{element}>")
    if profile == "accessible":
        fields.append("<pdfuaid:part>1</pdfuaid:part>")
    else:  # spec 4.11: pdf-a is tagged but does not claim PDF/UA
        fields.append("<pdfaid:part>3</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance>")
    return (
        '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" '
        'xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" '
        'xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">'
        + "".join(fields)
        + "</rdf:Description>"
        + extra
        + '</rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>'
    )


def _write_tagged(doc: rl.Document, tree: DesignTree, tagger: Tagger, profile: str) -> _Structure:
    """What `finish` adds with pikepdf, written into ReportLab's document before it is saved;
    the structure elements are returned, to be appended to the saved file."""
    title = tree.metadata.title or "Untitled document"
    language = tree.metadata.language or DEFAULT_LANGUAGE
    pages = rl.pages_of(doc)
    page_names = [rl.reference(doc, page) for page in pages]
    for index, page in enumerate(pages):
        rl.set_entries(page, StructParents=index, Trans=None)  # ReportLab writes an empty /Trans
    # The structure tree's root is ReportLab's object (the catalog refers to it), written as
    # a blank placeholder; its elements are appended after ReportLab's objects, numbered on
    # from them (_append_structure), which costs a fraction of ReportLab's work per object.
    # ReportLab's objects referred to (the root, pages, annotations) have their numbers
    # already: each element is written here but for the references to the appended ones.
    structure = _Structure(rl.reference(doc, rl.WrittenObject((_ROOT_PLACEHOLDER,))))
    objects = structure.objects
    root_ref = b"%d 0 R" % rl.object_number(doc, structure.root_name)
    page_refs = [b"%d 0 R" % rl.object_number(doc, name) for name in page_names]
    page_entries = [b" /Pg " + ref for ref in page_refs]
    owners: list[list[int | None]] = [[None] * len(mcids) for mcids in tagger.pages]
    annotation_owners: list[int] = []  # by StructParent key, after the pages' keys
    # An element whose one child is marked content and which has no attributes (a cell, a
    # paragraph): its template's start by role, and its end by page and MCID.
    starts: dict[str, bytes] = {}

    def element(node: StructNode, parent: int | None) -> int:
        """The element's object (index in objects); parent None: the structure tree's root."""
        index = len(objects)
        objects.append(_NO_OBJECT)
        parent_ref = _OWN_REF if parent is not None else root_ref
        refs = [index] if parent is None else [index, parent]
        children = node.children
        if len(children) == 1 and not node.attributes and type(children[0]) is tuple:
            page_index, mcid = children[0]
            owners[page_index][mcid] = index
            start = starts.get(node.role)
            if start is None:
                start = starts[node.role] = _OBJECT_START + _name(node.role).replace(b"%", b"%%") + b" /P "
            objects[index] = (start + parent_ref + page_entries[page_index] + b" /K %d >>" % mcid + _OBJECT_END, refs)
            return index
        kids: list[bytes] = []
        page_entry = b""
        for child in children:
            if type(child) is tuple:
                page_index, mcid = child
                page_entry = page_entries[page_index]
                owners[page_index][mcid] = index
                kids.append(b"%d" % mcid)
            elif type(child) is AnnotationRef:
                key = len(pages) + len(annotation_owners)
                kids.append(_annotation_objr(doc, pages[child.page], page_refs[child.page], child.index, key))
                annotation_owners.append(index)
            else:
                grandchildren = child.children
                if len(grandchildren) == 1 and not child.attributes and type(grandchildren[0]) is tuple:
                    # A cell or paragraph, written here rather than by a call of its own.
                    leaf = len(objects)
                    page_index, mcid = grandchildren[0]
                    owners[page_index][mcid] = leaf
                    start = starts.get(child.role)
                    if start is None:
                        start = starts[child.role] = _OBJECT_START + _name(child.role).replace(b"%", b"%%") + b" /P "
                    end = page_entries[page_index] + b" /K %d >>" % mcid + _OBJECT_END
                    objects.append((start + _OWN_REF + end, (leaf, index)))
                    refs.append(leaf)
                else:
                    refs.append(element(child, index))
                kids.append(_OWN_REF)
        template = [_OBJECT_START, _name(node.role).replace(b"%", b"%%"), b" /P ", parent_ref, page_entry]
        if len(kids) == 1:
            template += [b" /K ", kids[0]]
        elif kids:
            template += [b" /K [ ", b" ".join(kids), b" ]"]
        for key, value in node.attributes.items():
            if value is None:
                continue
            if key in _ATTRIBUTE_OWNERS:
                template.append(
                    b" /A << /O " + _name(_ATTRIBUTE_OWNERS[key]) + b" " + _name(key) + b" " + _name(value) + b" >>"
                )
            else:
                template.append(b" " + _name(key) + b" " + rl.format_value(doc, rl.text_string(value)))
            template[-1] = template[-1].replace(b"%", b"%%")
        template.append(b" >>" + _OBJECT_END)
        objects[index] = (b"".join(template), refs)
        return index

    document_element = element(tagger.root, None)
    nums: list[bytes] = [b"%d 0 obj\n<< /Nums ["]
    nums_refs = [len(objects)]
    for index in range(len(pages)):
        page_owners = [owner for owner in owners[index] if owner is not None]
        nums.append(b" %d [" % index + b" %d 0 R" * len(page_owners) + b" ]")
        nums_refs += page_owners
    for offset, owner in enumerate(annotation_owners):
        nums.append(b" %d %%d 0 R" % (len(pages) + offset))
        nums_refs.append(owner)
    nums.append(b" ] >>" + _OBJECT_END)
    objects.append((b"".join(nums), nums_refs))
    structure.root = (
        b"<< /Type /StructTreeRoot /K %%d 0 R /ParentTree %%d 0 R /ParentTreeNextKey %d >>"
        % (len(pages) + len(annotation_owners)),
        [document_element, len(objects) - 1],
    )

    fields = rl.set_info_without_trapped(doc, title)
    xmp = _xmp_of(tuple(fields.items()), title, language, profile)
    # The objects below are the same for every document of a design (and the first two for
    # every document): formatted once, then written as those bytes (a WrittenObject). The
    # metadata is unfiltered (PDF/A: it stays readable without decoding).
    metadata_key = ("Metadata", xmp, rl.default_stream_filters(doc))
    metadata = {"Type": rl.pdf_name("Metadata"), "Subtype": rl.pdf_name("XML")}
    rl.set_catalog_entries(
        doc,
        StructTreeRoot=rl.reference_to(structure.root_name),
        MarkInfo=_written_once(doc, "MarkInfo", lambda: rl.format_dictionary(doc, {"Marked": "true"})),
        Lang=rl.text_string(language),
        ViewerPreferences=_written_once(
            doc, "ViewerPreferences", lambda: rl.format_dictionary(doc, {"DisplayDocTitle": "true"})
        ),
        Metadata=_written_once(doc, metadata_key, lambda: rl.format_stream(doc, metadata, xmp.encode())),
    )
    if profile == "pdf-a":
        icc = rl.reference(doc, rl.WrittenObject((_icc_stream(doc),)))
        before, after = _output_intent(doc)
        intent = rl.reference(doc, rl.WrittenObject((before, icc, after)))
        rl.set_catalog_entries(doc, OutputIntents=rl.pdf_array([rl.reference_to(intent)]))
    rl.require_pdf_version(doc, (1, 7))
    return structure


def _annotation_objr(doc: rl.Document, page: Any, page_ref: bytes, index: int, key: int) -> bytes:
    """The OBJR of a page's index-th annotation, which points back through /StructParent; a
    page with annotations tabs through them in structure order (PDF/UA)."""
    annotation_name = rl.annotation_name(page, index)
    rl.set_annotation_entry(doc, annotation_name, "StructParent", key)
    rl.set_entries(page, Tabs=rl.pdf_name("S"))
    annotation_ref = b"%d 0 R" % rl.object_number(doc, annotation_name)
    return b"<< /Type /OBJR /Obj " + annotation_ref + b" /Pg " + page_ref + b" >>"


@lru_cache(maxsize=1024)
def _name(value: str) -> bytes:
    """A PDF name, escaped as ReportLab escapes names."""
    return rl.pdf_name(value).encode("latin-1")


@dataclass
class _Structure:
    """The structure elements and the ParentTree, to be appended to ReportLab's file. Each
    object is a template and the indexes of the objects it refers to: the template is the
    whole indirect object (`%d 0 obj` … `endobj`), `%d` for its own number and each appended
    object it refers to (the indexes' order), `%%` for a % of its own."""

    root_name: str  # ReportLab's name of the StructTreeRoot, a placeholder until appended
    objects: list[tuple[bytes, list[int] | tuple[int, ...]]] = field(default_factory=list)
    root: tuple[bytes, list[int]] = (b"", [])  # the root's dictionary: a template and its references


_OWN_REF = b"%d 0 R"  # in a template: a reference to an appended object
_OBJECT_START = b"%d 0 obj\n<< /Type /StructElem /S "
_OBJECT_END = b"\nendobj\n"
_NO_OBJECT: tuple[bytes, tuple[int, ...]] = (b"", ())  # an element's place while its children are made


# Blank, and long enough for any root: its content is written over it, padded with spaces.
_ROOT_PLACEHOLDER = b"<<" + b" " * 156 + b">>"


def _append_structure(pdf: bytes, doc: rl.Document, structure: _Structure, eol_before_endstream: bool) -> bytes:
    """ReportLab's file with the structure tree's root written over its placeholder, the
    structure elements appended after its objects and its cross-reference table and trailer
    extended to them (rl.read_saved: ReportLab writes its objects in number order, then one
    table). For PDF/A, an end-of-line before every `endstream` (ISO 19005-3 6.1.7.1: the
    stream's /Length stops before it), which ReportLab does not write."""
    saved = rl.read_saved(pdf)
    xref_at = saved.xref_at
    ours = saved.count  # the first number after ReportLab's objects

    template, refs = structure.root
    root = template % tuple([ours + ref for ref in refs])
    if len(root) > len(_ROOT_PLACEHOLDER):
        raise ValueError("the structure tree's root outgrew its placeholder")
    placeholder_at = pdf.index(_ROOT_PLACEHOLDER, saved.offset(rl.object_number(doc, structure.root_name)))
    pieces = [
        pdf[:placeholder_at],
        root.ljust(len(_ROOT_PLACEHOLDER)),
        pdf[placeholder_at + len(_ROOT_PLACEHOLDER) : xref_at],
    ]
    entries = saved.entries
    if eol_before_endstream:
        # Each object's end checked where the next one starts (no object copied): a stream's
        # object gets its newline, and every later object moves on by one.
        bounds = [*saved.offsets(), xref_at]
        if bounds != sorted(bounds):
            raise ValueError("objects out of order: not a file as ReportLab writes it")
        body = b"".join(pieces)
        pieces = []
        moved = [entries[: rl.XREF_ENTRY]]  # object 0, the free list's head
        shift = 0
        copied = 0  # body[:copied] is in pieces
        for start, end in zip(bounds, bounds[1:], strict=False):
            moved.append(rl.xref_entry(start + shift))
            stream_end = end - len(rl.STREAM_OBJECT_END)
            if stream_end >= start and body.startswith(rl.STREAM_OBJECT_END, stream_end):
                pieces += [body[copied:stream_end], b"\n"]
                copied = stream_end
                shift += 1
        pieces.append(body[copied:xref_at])
        entries = b"".join(moved)
        at = xref_at + shift
    else:
        at = xref_at
    written = [template % tuple([ours + ref for ref in refs]) for template, refs in structure.objects]
    starts = list(itertools.accumulate(map(len, written), initial=at))
    at = starts.pop()
    entries = b"".join([entries, *map(rl.xref_entry, starts)])
    pieces += written
    pieces += rl.file_end(saved, entries, saved.count + len(structure.objects), at)
    return b"".join(pieces)


def _structure(pdf: pikepdf.Pdf, pages: list[pikepdf.Dictionary], tagger: Tagger) -> None:
    root = pdf.make_indirect(Dictionary(Type=Name.StructTreeRoot))
    owners: list[list[pikepdf.Object | None]] = [[None] * len(mcids) for mcids in tagger.pages]
    annotation_owners: list[pikepdf.Object] = []  # by StructParent key, after the pages' keys

    def element(node: StructNode, parent: pikepdf.Object) -> pikepdf.Object:
        made = pdf.make_indirect(Dictionary(Type=Name.StructElem, S=Name("/" + node.role), P=parent))
        kids: list = []
        for child in node.children:
            if isinstance(child, tuple):
                page_index, mcid = child
                made.Pg = pages[page_index]
                owners[page_index][mcid] = made
                kids.append(mcid)
            elif isinstance(child, AnnotationRef):
                kids.append(_annotation_kid(pdf, pages[child.page], child.index, len(pages) + len(annotation_owners)))
                annotation_owners.append(made)
            else:
                kids.append(element(child, made))
        if kids:
            made.K = kids[0] if len(kids) == 1 else Array(kids)
        for key, value in node.attributes.items():
            if value is None:
                continue
            if key in _ATTRIBUTE_OWNERS:
                made.A = Dictionary({"/O": Name("/" + _ATTRIBUTE_OWNERS[key]), "/" + key: Name("/" + value)})
            else:
                made["/" + key] = String(value)
        return made

    document = element(tagger.root, root)
    root.K = document
    nums: list = []
    for index, page in enumerate(pages):
        page.StructParents = index
        nums += [index, Array([owner for owner in owners[index] if owner is not None])]
    for offset, owner in enumerate(annotation_owners):
        nums += [len(pages) + offset, owner]
    root.ParentTree = pdf.make_indirect(Dictionary(Nums=Array(nums)))
    root.ParentTreeNextKey = len(pages) + len(annotation_owners)
    pdf.Root.StructTreeRoot = root


def _annotation_kid(pdf: pikepdf.Pdf, page: pikepdf.Dictionary, index: int, key: int) -> pikepdf.Dictionary:
    """The OBJR of a page's index-th annotation, which points back through /StructParent;
    a page with annotations tabs through them in structure order (PDF/UA)."""
    annotation = page.Annots[index]
    annotation.StructParent = key
    page.Tabs = Name.S
    return Dictionary(Type=Name.OBJR, Obj=annotation, Pg=page)
