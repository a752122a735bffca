"""One PDF from several (extensions.md 12, a batch's `merge: true`): every document's pages in
the order given, with one outline (bookmark) entry per document pointing at its first page.

Done with pikepdf (qpdf): pages are copied with their resources, nothing is redrawn. The
result is a plain PDF for printing a mail merge in one go: what belongs to each document as a
whole (its tags, XMP, embedded files) is not carried over, but its form (extensions.md 13) is:
each document's fields stay fillable under a parent field named after the document
("row-0001.applicant"), since every row's fields have the same names.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterable

import pikepdf

from ..errors import LimitExceeded


def merged_pdf(documents: Iterable[tuple[str, bytes]], max_bytes: int | None = None) -> bytes:
    """The pages of each (title, pdf) in order, an outline entry named `title` at each one's first page.
    LimitExceeded when the result would be more than `max_bytes`."""
    merged = pikepdf.new()
    entries: list[tuple[str, int]] = []
    sources = []  # kept open until saved: copied pages refer to their source's objects
    form = _MergedForm(merged)
    for title, pdf in documents:
        source = pikepdf.open(io.BytesIO(pdf))
        sources.append(source)
        entries.append((title, len(merged.pages)))
        with warnings.catch_warnings():
            # pikepdf warns that extend() leaves the form behind: _MergedForm carries it, named per document.
            warnings.simplefilter("ignore", pikepdf.PageCopyWarning)
            merged.pages.extend(source.pages)
        form.add(title, source)
    form.finish()
    with merged.open_outline() as outline:
        for title, first_page in entries:
            outline.root.append(pikepdf.OutlineItem(title, first_page))
    merged.Root.PageMode = pikepdf.Name.UseOutlines  # the bookmarks show when it is opened
    out = io.BytesIO()
    merged.save(out, compress_streams=True, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    for source in sources:
        source.close()
    data = out.getvalue()
    if max_bytes is not None and len(data) > max_bytes:
        raise LimitExceeded(
            f"the merged PDF would be {len(data) / 1e6:.1f} MB; documents are limited to {max_bytes / 1e6:g} MB"
        )
    return data


class _MergedForm:
    """The merged document's AcroForm: each document's fields under a parent field of its own."""

    def __init__(self, merged: pikepdf.Pdf) -> None:
        self.merged = merged
        self.parents: list[pikepdf.Object] = []
        self.fonts = pikepdf.Dictionary()
        self.appearance: pikepdf.Object | None = None

    def add(self, title: str, source: pikepdf.Pdf) -> None:
        form = source.Root.get("/AcroForm")
        if form is None or not len(form.get("/Fields", ())):
            return
        # Copied after the pages: qpdf maps the widgets the pages brought to the same copies.
        fields = pikepdf.Array([self.merged.copy_foreign(field) for field in form.Fields])
        name = title.removesuffix(".pdf").replace(".", "_") or f"document{len(self.parents) + 1}"
        parent = self.merged.make_indirect(pikepdf.Dictionary(T=pikepdf.String(name), Kids=fields))
        for field in fields:
            field.Parent = parent
        self.parents.append(parent)
        resources = form.get("/DR")
        if resources is not None and "/Font" in resources:
            for key, font in resources.Font.items():
                if key not in self.fonts:  # a form font's name is its face's: the same font
                    self.fonts[key] = self.merged.copy_foreign(font) if font.is_indirect else font
        if self.appearance is None and "/DA" in form:
            self.appearance = form.DA

    def finish(self) -> None:
        if not self.parents:
            return
        form = pikepdf.Dictionary(Fields=pikepdf.Array(self.parents))
        if len(self.fonts):
            form.DR = pikepdf.Dictionary(Font=self.fonts)
        if self.appearance is not None:
            form.DA = self.appearance
        self.merged.Root.AcroForm = self.merged.make_indirect(form)


__all__ = ["merged_pdf"]
