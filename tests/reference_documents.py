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


# SHA-256 of each document's bytes at main (2098c74), each rendered in a fresh process. The
# certificate's and the invoice's were taken again for issue 33 (0a89c06 plus the change), the
# only pixels that changed being their codes': QR codes drawn with 4 modules of quiet zone
# instead of 2, the certificate's CODE128 with 10 modules inside each end of its box.
DIGESTS: dict[str, str] = {
    "certificate-accessible": "55c73b38996ea6e458f12fd719edb43c7e732340252e4913e3586be9714537e4",
    "certificate-accessible-reference": "b9cd9faf5f64e23f74180ee2603520b9bfac729f5a1b52b9899eacafe3e1d862",
    "certificate-design-preview": "7fcc544e4c3cae1de44a3111b10e46c767c26cf1152201216c878a3f32497575",
    "certificate-pdf-a": "b0314df224270104a11c34ee3d20c47366e4682f78dd6d430b880898e96da8c0",
    "certificate-pdf-a-reference": "e23cc46805144fc7c109fe1dbbb7e6281dc89852b16d9a097fcdf9ab1f7571af",
    "certificate-standard": "eaea5517e175fe20233105c4926e2451741c2fb83420405a984fae3432babb47",
    "certificate-standard-reference": "90301b373ef3563fb37ec263808d1745e2107ea34c90180c2c3018eaf5788d13",
    "invoice-3-pages-accessible": "9ba21372dabfe1211944233bc001be5cd021a56d63885afc0212cff0ac30bb8a",
    "invoice-3-pages-accessible-reference": "95cc45378e1ab0de8bc7b158d7d9b08fdbe09cec0673770d36d8a18adce6573a",
    "invoice-3-pages-pdf-a": "ad3bc155a9f41e3dcaaac0345a6e4d26f551545f56bc4135fcd5f366b92abe99",
    "invoice-3-pages-pdf-a-reference": "4f18c98624d52d925db738aa1cf9775e153bfc3dea528dfdcc9f22c11cf1cccb",
    "invoice-3-pages-standard": "342f7b9ec6e4d467cb484650fc865dbaa1538f39616fa93cd8c28e9d5e0e3a82",
    "invoice-3-pages-standard-reference": "1b300631557418b2bf9d4b2d21e65e0df79a9b370d83e56dba9c7569601dcec6",
    "invoice-accessible": "d0963cdeff0d6ad4d00d4fd1ba14be058aa5e413250de910b7c79886f60cc472",
    "invoice-accessible-reference": "9a027b83f46d208af1572ec0793d9ebca3a79b6afa69211648e1bcd4cdc29c57",
    "invoice-pdf-a": "3df9af57d0158cf2ceb49694e5418a87184fcfb288a9c799b647cca5b964f242",
    "invoice-pdf-a-reference": "5de3c7a1f1060b292b97f26eb82647093e8e10e9492f0716d12405013172f66a",
    "invoice-standard": "301cb5767045dec8b0d6a5940025fba857b3bfd9eaeaaca8c14a999dd08f788c",
    "invoice-standard-reference": "69c4bc6b1b1919dab622b9c0579a9f6e8f649f060ed89a638b4b4d813df795c6",
    "udhr-accessible": "36ae64c415db7115c0e2cbc9be0ff17cee9c47226ce4b6bdf4c16215d102371d",
    "udhr-pdf-a": "4ac1956281dfb9d73c2451a0094c4ee8687ded4dc45b63250168af0e286061e7",
    "udhr-standard": "a2305fbe456276c1f1f3d09e5300e876438f4c1c1bf25856cf2e0821ceb01258",
}


def render(tree: DesignTree, values: Mapping[str, Any] | None, resolver: Any, profile: str, reference: bool) -> bytes:
    options = RenderOptions.reference() if reference else RenderOptions()
    return render_pdf(tree, values, resolver, profile, options=options)
