"""The reference documents and their bytes as main made them (tests of the same bytes)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engine import DesignTree, RenderOptions, apply, new_design, render_pdf
from tests.conftest import add, counter_ids
from tests.paths import DATA

UDHR = DATA / "udhr_article1.json"


def udhr_page() -> DesignTree:
    """tests/engine/text/test_udhr.py's page: the 20 texts stacked in Inter 9 pt, each with its lang."""
    tree, ids, top = new_design(title="Universal Declaration of Human Rights, article 1"), counter_ids(), 24.0
    for row in json.loads(UDHR.read_text())["languages"]:
        data = {"content": row["text"], "lang": row["lang"]}
        name = "udhr_" + row["lang"].replace("-", "_")
        tree, results = apply(
            tree, [add("text", name, {"x": 20, "y": top, "maxWidth": 555}, data, {"fontSize": 9})], ids
        )
        top += results[0]["data"]["position"]["h"] + 8.0
    return tree


# SHA-256 of each document's bytes at main (2098c74), each rendered in a fresh process.
DIGESTS: dict[str, str] = {
    "certificate-accessible": "26965289ed6b8e7a0ab11870d49e4510441544fa96bb756a0364a94b1e3d9ace",
    "certificate-accessible-reference": "7a1942c69966c2c3e02d38c46998b1a98460136687a327de368eb54cc6e6e6c8",
    "certificate-design-preview": "cdbd7dfeb9fa50523b6423bf78a074e4118e2f724c8383399345a68e2caa0ba9",
    "certificate-pdf-a": "7ce82b164d9814f3611901ca218fa12e141b574d640055e74d582e520907760f",
    "certificate-pdf-a-reference": "a0e5443055b698535d02231ca498a477f0c37dd2302d9963eed1de1790741be2",
    "certificate-standard": "79fdf81b14e345aac3e01c01eecff13d48a03c600b4500f7cf926f7d3b5d2757",
    "certificate-standard-reference": "5c24d637ae0e8a346cdeadceed6a5889c839d2e35c4036a7c9eb11edbcfd913b",
    "invoice-3-pages-accessible": "47d5fc94c21983dac74bad97b75cc1bd641213ded16dc6e996ef22cd1b7cc49e",
    "invoice-3-pages-accessible-reference": "080252923fcee477e7df18f009b7ee34af3670d15aab10ad6fbaaa32cdd16f87",
    "invoice-3-pages-pdf-a": "1138aea1364ffa90e1874597d0cd68adc3ee55da868108d3b0411dd54ec15b5d",
    "invoice-3-pages-pdf-a-reference": "4758d5487b18d93c935c17fd56e140b87cc81a838242d1038f4b56a7a7c0ddb6",
    "invoice-3-pages-standard": "9540bf8cc59b5002f319b34d2eccde84dc2a625fcd9d1166eeec9a67d3576e96",
    "invoice-3-pages-standard-reference": "0b86d694e4ba989ce8f83844b04426e2ec52f5b17bbf0fb769ec52c53abdd7c4",
    "invoice-accessible": "974256858112c3546a66044fbe52b6a5265deb24e6a5fda4d0bc39f3eaf161f9",
    "invoice-accessible-reference": "cd2cb66cd4fd479ebf27fafbba0331869cb50e956876bf9e60843f742ed9a7bd",
    "invoice-pdf-a": "ce9785ef3991e45a905ee0163a43bdc64c9b6e6074a3ad0b45d17a2d501c0fec",
    "invoice-pdf-a-reference": "cd889d3cf0ffd93150ef1d79115a52472bf69122f9f84f51eec4321ac6f8a399",
    "invoice-standard": "8f02d834f018e505c8ab0c1902b2b9a0937e407ad7fe12dca14e7b84db7f7371",
    "invoice-standard-reference": "14d4fdaeb56cdd77cb4bcda33edf7a33ddd68bcb3f082789772377e2f548eaec",
    "udhr-accessible": "36ae64c415db7115c0e2cbc9be0ff17cee9c47226ce4b6bdf4c16215d102371d",
    "udhr-pdf-a": "4ac1956281dfb9d73c2451a0094c4ee8687ded4dc45b63250168af0e286061e7",
    "udhr-standard": "a2305fbe456276c1f1f3d09e5300e876438f4c1c1bf25856cf2e0821ceb01258",
}


def render(tree: DesignTree, values: Mapping[str, Any] | None, resolver: Any, profile: str, reference: bool) -> bytes:
    options = RenderOptions.reference() if reference else RenderOptions()
    return render_pdf(tree, values, resolver, profile, options=options)
