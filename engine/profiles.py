"""The tagged profiles: `accessible` (PDF/UA-1) and `pdf-a` (PDF/A-3b, tagged, no UA claim).

ReportLab draws the marked content (see `tagging.py`); this pikepdf pass adds what
ReportLab cannot: the structure tree and its ParentTree, /StructParents on pages,
/MarkInfo, /Lang, /ViewerPreferences, XMP metadata that agrees with the document
info, and for PDF/A an sRGB OutputIntent. It also removes the empty /Trans ReportLab
writes on every page.
"""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

import pikepdf
from pikepdf import Array, Dictionary, Name, String

from .tagging import StructNode, Tagger
from .tree import DesignTree

ICC_PROFILE = Path(__file__).parent / "icc" / "sRGB.icc"
# Structure attributes that belong in an attribute object (/A) rather than on the element.
_ATTRIBUTE_OWNERS = {"Scope": "Table", "ListNumbering": "List"}


@cache
def _icc_bytes() -> bytes:
    return ICC_PROFILE.read_bytes()


def finish(pdf_bytes: bytes, tree: DesignTree, tagger: Tagger, profile: str) -> bytes:
    """Turn ReportLab's marked-up output into a tagged PDF of the given profile."""
    pdf = pikepdf.open(io.BytesIO(pdf_bytes))
    pages = [page.obj for page in pdf.pages]
    _structure(pdf, pages, tagger)
    title = tree.metadata.title or "Untitled document"
    language = tree.metadata.language or "en"
    for page in pages:
        if "/Trans" in page:
            del page["/Trans"]  # ReportLab writes an empty transition on every page
    pdf.Root.MarkInfo = Dictionary(Marked=True)
    pdf.Root.Lang = String(language)
    pdf.Root.ViewerPreferences = Dictionary(DisplayDocTitle=True)
    pdf.docinfo[Name.Title] = title
    if "/Trapped" in pdf.docinfo:
        del pdf.docinfo["/Trapped"]  # has no XMP counterpart; PDF/A wants the two to agree
    with pdf.open_metadata(set_pikepdf_as_editor=False) as meta:
        # open_metadata drops document-info keys that the XMP lacks: load them first.
        meta.load_from_docinfo(pdf.docinfo)
        meta["dc:title"] = title
        meta["dc:language"] = [language]
        if profile == "accessible":
            meta["pdfuaid:part"] = "1"
        else:
            # spec 4.11: pdf-a is tagged but does not claim PDF/UA.
            meta["pdfaid:part"] = "3"
            meta["pdfaid:conformance"] = "B"
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
    # deterministic_id keeps the engine's promise: the same input gives the same bytes.
    # Streams are copied exactly as ReportLab wrote them (as in the standard profile):
    # letting qpdf decode and compress them again was 6 of this pass's 10 ms.
    pdf.save(
        out,
        min_version="1.7",
        fix_metadata_version=False,
        deterministic_id=True,
        stream_decode_level=pikepdf.StreamDecodeLevel.none,
        compress_streams=False,
    )
    return out.getvalue()


def _structure(pdf: pikepdf.Pdf, pages: list[pikepdf.Dictionary], tagger: Tagger) -> None:
    root = pdf.make_indirect(Dictionary(Type=Name.StructTreeRoot))
    owners: list[list[pikepdf.Object | None]] = [[None] * len(mcids) for mcids in tagger.pages]

    def element(node: StructNode, parent: pikepdf.Object) -> pikepdf.Object:
        made = pdf.make_indirect(Dictionary(Type=Name.StructElem, S=Name("/" + node.role), P=parent))
        kids: list = []
        for child in node.children:
            if isinstance(child, tuple):
                page_index, mcid = child
                made.Pg = pages[page_index]
                owners[page_index][mcid] = made
                kids.append(mcid)
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
    root.ParentTree = pdf.make_indirect(Dictionary(Nums=Array(nums)))
    root.ParentTreeNextKey = len(pages)
    pdf.Root.StructTreeRoot = root
