"""Existing PDFs put before and after the generated pages (extensions.md 12: generate's
`prepend` and `append`, e.g. terms and conditions), optionally only some of their pages.

The pages are copied with pikepdf (qpdf), content and resources as they are, inside the
render's one pikepdf pass and before the finishing that must cover the whole file (the
structure tree's last entries, embedded files, XMP, encryption, and the signature after
the engine). Their content is not re-tagged: under the accessible profile a PDF must be
tagged itself (/MarkInfo /Marked true and a /StructTreeRoot) and its structure is grafted
under ours whole; under pdf-a its pages are checked as placed pages are
(engine.media.pdf_pages: fonts embedded, nothing PDF/A-3 forbids).
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pikepdf
from pikepdf import Array, Dictionary, Name
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..errors import EngineError
from ..media.foreign_pages import ForeignPages
from ..media.pdf_pages import PdfPageError, conformance, open_pdf
from ..memo import SizedLRU

_RANGES = re.compile(r"^\d+(-\d+)?(,\d+(-\d+)?)*$")
_RANGES_FIX = 'write pages as 1-based numbers and ranges separated by commas, e.g. "1-3,5"'


def page_numbers(pages: str | None, count: int | None = None, where: str = "pages") -> list[int]:
    """The 1-based page numbers a `pages` text names, in its order ("1-3,5" → [1, 2, 3, 5]);
    every page (of `count`) when it is None. EngineError naming the fix when the text is not
    ranges, or (given `count`) names a page the PDF does not have."""
    if pages is None:
        return list(range(1, (count or 0) + 1))
    text = re.sub(r"\s+", "", pages)
    if not _RANGES.match(text):
        raise EngineError(f'{where}: "{pages[:40]}" is not a list of pages: {_RANGES_FIX}')
    numbers: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        start, end = int(first), int(last or first)
        if start < 1:
            raise EngineError(f"{where}: pages count from 1 (got {start}): {_RANGES_FIX}")
        if end < start:
            raise EngineError(f'{where}: the range "{part}" runs backwards: write it as {end}-{start}')
        if count is not None and end > count:
            raise EngineError(
                f"{where}: the PDF has {count} page(s), so page {end} does not exist: "
                f"name pages 1 to {count}, or leave out pages for all of them"
            )
        if end - start >= 10_000:
            raise EngineError(f'{where}: the range "{part}" is longer than any PDF we accept: {_RANGES_FIX}')
        numbers += range(start, end + 1)
    return numbers


class AddedPdf(BaseModel):
    """One PDF put before or after the generated pages: its ref, and which of its pages."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ref: str = Field(max_length=200, description="An uploaded PDF or PDF asset: uploads:… or assets:…")
    pages: str | None = Field(
        None, max_length=200, description='1-based pages and ranges, e.g. "1-3,5" (default: every page)'
    )

    @model_validator(mode="before")
    @classmethod
    def _from_ref(cls, value: object) -> object:
        return {"ref": value} if isinstance(value, str) else value  # "uploads:…" is {ref: "uploads:…"}

    @field_validator("pages")
    @classmethod
    def _ranges(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                page_numbers(value)
            except EngineError as exc:
                raise ValueError(exc.message) from None
        return value


@dataclass
class _Source:
    where: str  # "append[0] (uploads:upl_x)": how a message names it
    pdf: pikepdf.Pdf
    numbers: list[int]  # 1-based, in order
    whole: bool  # every page, in order: a tagged PDF's structure is grafted whole


@dataclass
class AddedPages:
    """The checked, opened PDFs of one render, inserted by `insert` in the pikepdf pass. Kept
    open until the document is saved: copied pages refer to their source's objects."""

    prepend: list[_Source] = field(default_factory=list)
    append: list[_Source] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(len(source.numbers) for source in [*self.prepend, *self.append])

    def insert(self, pdf: pikepdf.Pdf) -> None:
        tagged = "/StructTreeRoot" in pdf.Root
        ours = len(pdf.pages)
        at = 0
        for source in self.prepend:
            at = _insert(pdf, source, at, tagged)
        at += ours
        for source in self.append:
            at = _insert(pdf, source, at, tagged)


def load_added(
    prepend: list[AddedPdf], append: list[AddedPdf], resolver: Callable[[str], bytes] | None, profile: str
) -> AddedPages:
    """Each PDF resolved, opened and checked for the profile; EngineError naming the file and
    the fix when one cannot be added."""
    added = AddedPages()
    for name, entries, into in (("prepend", prepend, added.prepend), ("append", append, added.append)):
        for index, entry in enumerate(entries):
            where = f"{name}[{index}] ({entry.ref[:60]})"
            into.append(_opened(entry, where, resolver, profile))
    return added


@dataclass(frozen=True)
class _Cleaned:
    """An added PDF opened, cleaned for one profile and its pages, and checked: saved as bytes,
    which each render opens anew (its copy is its own: grafting a structure tree changes it)."""

    data: bytes
    numbers: tuple[int, ...]
    whole: bool


CLEANED_CAPACITY_BYTES = 64 * 1024 * 1024
# The cleaned added PDFs, LRU by bytes, per (content digest, pages, profile), shared by the renders
# of a process: cleaning a 200-page PDF of 8,000 links takes about 0.5 s, which a batch would
# otherwise spend on every row.
CLEANED: SizedLRU[tuple[str, str | None, str], _Cleaned] = SizedLRU(CLEANED_CAPACITY_BYTES, lambda kept: len(kept.data))


def _opened(entry: AddedPdf, where: str, resolver: Callable[[str], bytes] | None, profile: str) -> _Source:
    if resolver is None:
        raise EngineError(f"{where}: no resolver to read the PDF with")
    try:
        data = resolver(entry.ref)
    except (KeyError, FileNotFoundError):
        raise EngineError(f"{where}: no such PDF in this workspace: upload it first") from None
    pages = None if entry.pages is None else re.sub(r"\s+", "", entry.pages)
    key = (hashlib.sha256(data).hexdigest(), pages, profile)
    cleaned = CLEANED.get(key)
    if cleaned is None:
        cleaned = _cleaned(data, entry, where, profile)
        CLEANED.put(key, cleaned)
    return _Source(where, pikepdf.open(io.BytesIO(cleaned.data)), list(cleaned.numbers), cleaned.whole)


def _cleaned(data: bytes, entry: AddedPdf, where: str, profile: str) -> _Cleaned:
    """The PDF opened, checked for the profile and cleaned (engine.media.foreign_pages), saved;
    EngineError naming the file and the fix when it cannot be added."""
    try:
        pdf = open_pdf(data)
    except PdfPageError as exc:
        raise EngineError(f"{where}: {exc}") from None
    with pdf:
        count = len(pdf.pages)
        numbers = page_numbers(entry.pages, count, f"{where} pages")
        whole = numbers == list(range(1, count + 1))
        if profile == "accessible":
            marked = pdf.Root.get("/MarkInfo")
            if not (isinstance(marked, Dictionary) and marked.get("/Marked") is True and "/StructTreeRoot" in pdf.Root):
                raise EngineError(
                    f"{where}: the PDF is not tagged, and added pages keep their own content without tags, which "
                    'pdfProfile "accessible" (PDF/UA) forbids: upload a tagged PDF (exported as PDF/UA or "tagged"), '
                    'or generate with pdfProfile "standard"'
                )
            if not whole:
                raise EngineError(
                    f'{where}: under pdfProfile "accessible" a tagged PDF is added whole, its structure covering all '
                    "its pages: leave out pages, or upload a PDF of only the pages you want"
                )
        # What of its pages we keep (engine.media.foreign_pages): cleaned in the source, before a page
        # or its structure is copied, so that nothing dropped is copied at all.
        ForeignPages(pdf, numbers, pdf_a=profile == "pdf-a", tagged=profile == "accessible").clean(structure=whole)
        if profile in ("accessible", "pdf-a"):
            _require_conformance(pdf, numbers, where, profile)
        out = io.BytesIO()
        # Streams as they are (nothing decoded or compressed again): only the objects changed.
        pdf.save(out, stream_decode_level=pikepdf.StreamDecodeLevel.none, compress_streams=False)
    return _Cleaned(out.getvalue(), tuple(numbers), whole)


def _require_conformance(pdf: pikepdf.Pdf, numbers: list[int], where: str, profile: str) -> None:
    """The checks a placed page gets (engine.media.images), on each added page, and those of its
    annotations that were kept (engine.media.foreign_pages)."""
    standard = "the pdf-a profile (PDF/A-3)" if profile == "pdf-a" else "the accessible profile (PDF/UA-1)"
    for number in dict.fromkeys(numbers):
        fonts, problems, ua_problems = conformance(pdf.pages[number - 1])
        if fonts:
            raise EngineError(
                f"{where}: page {number} uses the font(s) {', '.join(fonts[:5])} without embedding them, which "
                f"{standard} forbids: export that PDF with its fonts embedded (e.g. as PDF/A), or generate with "
                'pdfProfile "standard"'
            )
        if profile == "pdf-a" and problems:
            raise EngineError(
                f"{where}: page {number} carries {problems[0]}, which the pdf-a profile (PDF/A-3) forbids: "
                'export that PDF as PDF/A (flattened), or generate with pdfProfile "standard"'
            )
        if profile == "accessible" and ua_problems:
            raise EngineError(
                f"{where}: page {number} carries {ua_problems[0]}, which the accessible profile (PDF/UA-1) "
                "forbids: export that PDF as PDF/UA (tagged, its annotations too) or flatten its annotations, or "
                'generate with pdfProfile "standard"'
            )


def _insert(pdf: pikepdf.Pdf, source: _Source, at: int, tagged: bool) -> int:
    """Copy the source's pages in at index `at`; the index after them."""
    copied: list[pikepdf.Page] = []
    for number in source.numbers:
        pdf.pages.insert(at, source.pdf.pages[number - 1])
        copied.append(pdf.pages[at])
        at += 1
    if tagged and source.whole and "/StructTreeRoot" in source.pdf.Root:
        _graft_structure(pdf, source.pdf, copied)
    else:
        for page in copied:
            # Its keys point into the source's ParentTree, which is not ours.
            if "/StructParents" in page.obj:
                del page.obj["/StructParents"]
    return at


def _graft_structure(pdf: pikepdf.Pdf, source: pikepdf.Pdf, pages: list[pikepdf.Page]) -> None:
    """The source's structure elements under our document element, after ours, and its
    ParentTree entries after ours, their keys shifted (and the pages' /StructParents with them)."""
    root = pdf.Root.StructTreeRoot
    theirs = source.Root.StructTreeRoot
    offset = int(root.get("/ParentTreeNextKey", 0))
    nums = root.ParentTree.Nums
    highest = -1
    if "/ParentTree" in theirs:
        for key, value in pikepdf.NumberTree(theirs.ParentTree).items():
            nums.extend([int(key) + offset, _copied(pdf, source, value)])
            highest = max(highest, int(key))
    for page in pages:
        if "/StructParents" in page.obj:
            page.obj.StructParents = int(page.obj.StructParents) + offset
        for annotation in page.obj.get("/Annots", Array()):
            if isinstance(annotation, Dictionary) and "/StructParent" in annotation:
                annotation.StructParent = int(annotation.StructParent) + offset
    root.ParentTreeNextKey = offset + max(highest + 1, int(theirs.get("/ParentTreeNextKey", 0)))
    document = root.K
    kids = document.get("/K")
    kids = Array([]) if kids is None else kids if isinstance(kids, Array) else Array([kids])
    their_kids = theirs.get("/K")
    their_kids = Array([]) if their_kids is None else their_kids if isinstance(their_kids, Array) else [their_kids]
    for kid in their_kids:
        copied = _copied(pdf, source, kid)
        if isinstance(copied, Dictionary):
            copied.P = document
        kids.append(copied)
    document.K = kids
    their_roles = theirs.get("/RoleMap")
    if isinstance(their_roles, Dictionary):
        if "/RoleMap" not in root:
            root.RoleMap = Dictionary()
        for name, value in their_roles.items():
            if name not in root.RoleMap and isinstance(value, Name):
                try:
                    root.RoleMap[name] = value  # the name object itself: its bytes need not be UTF-8
                except (TypeError, ValueError):
                    continue  # a role named by bytes pikepdf cannot take as a key: left unmapped


def _copied(pdf: pikepdf.Pdf, source: pikepdf.Pdf, value: pikepdf.Object) -> pikepdf.Object:
    """`value` of `source` copied into `pdf` (qpdf copies only indirect objects; the pages
    already copied are reused, not copied again)."""
    if isinstance(value, pikepdf.Object) and not value.is_indirect:
        value = source.make_indirect(value)
    return pdf.copy_foreign(value)


def added_count_message(total: int, added: int, max_sheets: int) -> str:
    return (
        f"the document would have {total} pages ({added} of them from append and prepend); at most {max_sheets} "
        "are rendered per document: add fewer pages (pages: ranges), or split the data over several documents"
    )


__all__ = ["CLEANED", "AddedPages", "AddedPdf", "added_count_message", "load_added", "page_numbers"]
