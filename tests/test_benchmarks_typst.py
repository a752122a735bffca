"""benchmarks.typst compares docbench with real documents: the Typst certificate and invoice
of one row are one page each, hold the row's text, and their codes scan to the row's values
with both encoders the benchmark times."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import zxingcpp

pytest.importorskip("typst", reason="typst is a benchmark-only dependency (pip install -e '.[bench]')")

from benchmarks.typst import ENCODERS, TypstSide, documents, pdf_text  # noqa: E402
from tests.pdf_probes import page_image


def scanned(pdf: bytes) -> set[str]:
    """The text of every code zxing-cpp reads on the page rendered at 300 dpi."""
    image = page_image(pdf, 0, dpi=300)
    return {code.text for code in zxingcpp.read_barcodes(image)}


@pytest.mark.parametrize("encoder", sorted(ENCODERS))
def test_typst_documents_hold_the_row(tmp_path: Path, encoder: str) -> None:
    certificate, invoice = documents()

    row = certificate.row(7)
    pdf = TypstSide(certificate, tmp_path).render(row, encoder)
    pages, text = pdf_text(pdf)
    assert pages == 1
    assert "Recipient Number 7" in text
    assert re.search(r"(?<!\d)8 August 2026", text)  # 2026-08-08 formatted "d MMMM y", as docbench does
    assert "For outstanding commitment" in text
    assert scanned(pdf) == {row["verify"], row["serial"]}

    row = invoice.row(7)
    pdf = TypstSide(invoice, tmp_path).render(row, encoder)
    pages, text = pdf_text(pdf)
    assert pages == 1
    assert "No. INV-0007" in text
    assert "Service 7-20" in text
    assert row["total"] in text
    assert scanned(pdf) == {row["payment"]}
