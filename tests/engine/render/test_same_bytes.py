"""The reference documents give the same bytes as before issue 32's restructuring.

The certificate and the invoice (workbench.samples, as benchmarks.render draws them) and
tests/engine/text/test_udhr.py's UDHR page, in every profile, on the fast path and on the reference
path (RenderOptions.reference(): everything drawn through ReportLab's own objects, tagged
profiles through pikepdf). The digests were computed at main before the change (commit
2098c74) by `DOCUMENTS` below, each in a fresh process, with the module switches the options
replaced set as `reference` says. Recomputed deliberately (each in a fresh process) for
issue 33: every subset's tag is a function of what it holds (reportlab_internals.subset_tag),
no longer AAAAAA for each font's first; shaped lines (the UDHR page) are drawn without
ActualText spans, each glyph's code saying the text it stands for (engine.text.shaping).

The UDHR page is the same too although its private glyph codes are now a function of the
glyph and their meaning is kept per document (engine.pdf.reportlab_internals): what those codes
stand for was decided, before, by the first document of the process that drew each glyph,
which in a fresh process is this one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from engine import DesignTree
from tests.reference_documents import DIGESTS, render, udhr_page
from workbench import samples

# (tree, values, resolver, profile, reference) -> the PDF's bytes
Render = Callable[[DesignTree, Mapping[str, Any] | None, Any, str, bool], bytes]


def _documents() -> dict[str, Callable[[Render], bytes]]:
    documents: dict[str, Callable[[Render], bytes]] = {}
    references = {
        "certificate": (samples.certificate, lambda: samples.certificate_row(3)),
        "invoice": (samples.invoice, lambda: samples.invoice_row(3)),
        "invoice-3-pages": (samples.invoice, lambda: samples.invoice_row(8, lines=70)),
    }
    for name, (design, row) in references.items():
        for profile in ("standard", "accessible", "pdf-a"):
            for reference in (False, True):
                key = f"{name}-{profile}{'-reference' if reference else ''}"
                documents[key] = lambda render, d=design, r=row, p=profile, ref=reference: render(
                    d(), r(), samples.resolver, p, ref
                )
    documents["certificate-design-preview"] = lambda render: render(
        samples.certificate(), None, samples.resolver, "standard", False
    )
    for profile in ("standard", "accessible", "pdf-a"):
        documents[f"udhr-{profile}"] = lambda render, p=profile: render(udhr_page(), None, None, p, False)
    return documents


DOCUMENTS = _documents()


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_reference_documents_keep_their_bytes(name):
    assert hashlib.sha256(DOCUMENTS[name](render)).hexdigest() == DIGESTS[name]
