"""The tagged profiles: `accessible` (PDF/UA-1) and `pdf-a` (PDF/A-3b, tagged, no UA claim).

ReportLab draws the marked content (see `tagging.py`); this pikepdf pass adds what
ReportLab cannot: the structure tree and its ParentTree, /StructParents on pages,
/MarkInfo, /Lang, /ViewerPreferences, XMP metadata that agrees with the document
info, and for PDF/A an sRGB OutputIntent. It also removes the empty /Trans ReportLab
writes on every page.
"""

from __future__ import annotations

import io
import re
from functools import cache
from pathlib import Path
from xml.sax.saxutils import escape

import pikepdf
from pikepdf import Array, Dictionary, Name, String

from .finishing import NO_FINISHING, FinishingPlan
from .tagging import DEFAULT_LANGUAGE, AnnotationRef, StructNode, Tagger
from .tree import DesignTree

ICC_PROFILE = Path(__file__).parent / "icc" / "sRGB.icc"
# Structure attributes that belong in an attribute object (/A) rather than on the element.
_ATTRIBUTE_OWNERS = {"Scope": "Table", "ListNumbering": "List"}


@cache
def _icc_bytes() -> bytes:
    return ICC_PROFILE.read_bytes()


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
