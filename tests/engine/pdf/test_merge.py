"""One PDF from several (engine.pdf.merge, a batch's merge: true): pages in order, an outline
entry per document at its first page, bounded in size."""

from __future__ import annotations

import pytest

from engine import LimitExceeded, render_pdf
from engine.pdf.merge import merged_pdf
from tests.conftest import action, build
from tests.pdf_probes import outline, page_count, pdf_text


def document(text: str, pages: int = 1) -> bytes:
    actions = [action("add_element", type="text", name="t", position={"x": 40, "y": 40}, data={"content": text})]
    actions += [action("add_page") for _ in range(pages - 1)]
    return render_pdf(build(actions))


def test_pages_follow_in_order_with_an_outline_entry_at_each_documents_first_page():
    merged = merged_pdf([("first.pdf", document("One", pages=2)), ("second.pdf", document("Two"))])
    assert page_count(merged) == 3
    assert outline(merged) == [("first.pdf", 0), ("second.pdf", 2)]
    texts = pdf_text(merged)
    assert "One" in texts[0] and "Two" in texts[2]


def test_a_merged_pdf_past_the_size_limit_is_refused():
    pdf = document("Big enough")
    with pytest.raises(LimitExceeded, match="merged PDF would be"):
        merged_pdf([("a.pdf", pdf), ("b.pdf", pdf)], max_bytes=len(pdf))
