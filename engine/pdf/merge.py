"""One PDF from several (extensions.md 12, a batch's `merge: true`): every document's pages in
the order given, with one outline (bookmark) entry per document pointing at its first page.

Done with pikepdf (qpdf): pages are copied with their resources, nothing is redrawn. The
result is a plain PDF for printing a mail merge in one go: what belongs to each document as a
whole (its tags, XMP, embedded files) is not carried over.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

import pikepdf

from ..errors import LimitExceeded


def merged_pdf(documents: Iterable[tuple[str, bytes]], max_bytes: int | None = None) -> bytes:
    """The pages of each (title, pdf) in order, an outline entry named `title` at each one's first page.
    LimitExceeded when the result would be more than `max_bytes`."""
    merged = pikepdf.new()
    entries: list[tuple[str, int]] = []
    sources = []  # kept open until saved: copied pages refer to their source's objects
    for title, pdf in documents:
        source = pikepdf.open(io.BytesIO(pdf))
        sources.append(source)
        entries.append((title, len(merged.pages)))
        merged.pages.extend(source.pages)
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


__all__ = ["merged_pdf"]
