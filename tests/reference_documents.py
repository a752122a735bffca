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


# SHA-256 of each document's bytes, each rendered in a fresh process: taken at main (2098c74),
# then again, deliberately, for issue 33, whose typesetting changes every document: Latin text
# shaped by HarfBuzz (kerned TJ arrays, ligatures and contextual forms with private codes),
# paragraphs broken by total fit, subset tags derived from what each subset holds, shaped lines
# drawn for extraction without ActualText spans, QR codes with 4 modules of quiet zone and the
# certificate's CODE128 with 10 modules inside each end of its box.
DIGESTS: dict[str, str] = {
    "certificate-accessible": "879f659019550a8eec00d43304cf8d5369e418410b25591e6de26369221e9f41",
    "certificate-accessible-reference": "d6fde3efa2979e3c7eba60da7deb861259d43a79f09a420127898f69409ffc91",
    "certificate-design-preview": "67d2c04b0578b60492de55f8a85069605a20d739be6e4cbad7b2c5dd16d3714b",
    "certificate-pdf-a": "adc00bab6c424c43a365ef30af7f29fada66742c6b260da0b1fe7cbe8f855f7d",
    "certificate-pdf-a-reference": "865076594e2540b963f140508ed74fb47a84ee67583c9f67ce95ff35f5711d25",
    "certificate-standard": "043155d9b908d04aca72b81b6bdf1e4693bfae1c0f49fbe7476bbf55f05ef239",
    "certificate-standard-reference": "77a069608eb71a04a9073358ae8d0eb79b62b52f2c490c562dd1d9723a231742",
    "invoice-3-pages-accessible": "6ef33288bf8c96d16c9145536ef6ba799e772314055edbc966710308a8a7088b",
    "invoice-3-pages-accessible-reference": "b0e4fc1d6d2b73ed658f564436511a1167f68afb2dc65d402fa6e4a7e8a80a04",
    "invoice-3-pages-pdf-a": "c0ba437cc84547e689e10e50e9a145c0e7ca463a8568620c2b68e8e55eff758a",
    "invoice-3-pages-pdf-a-reference": "b6d358277bbeebfee72a80b0ab43084bb7687c7ab04fdf47a4802c815db74e2a",
    "invoice-3-pages-standard": "97317b338b90dc78795da5955dd89104ee2423c218cbcf73a41356c377b7e37b",
    "invoice-3-pages-standard-reference": "f9a78a786a15e70232492133a4c401f5ce58d1b3749b6cb2fd390396aa1a2e74",
    "invoice-accessible": "26d9d8668f2c151be4fbe1d6d8b9214cc557c58f2027136318f8a43aef1555a5",
    "invoice-accessible-reference": "b7b43fca53a11f926a4e87f8ad9397f221fde19dd31f2b73771acf3a798d178a",
    "invoice-pdf-a": "f60fe8598dbd86fb18132584d2fd5823f7058f5349f9bcd1c80a860adf293cc1",
    "invoice-pdf-a-reference": "33f9a3d2188735d0e90befb3dd4d83815d56e0ec6fd122b0ad1c9038c96736f8",
    "invoice-standard": "83f0dcf10e3826153cddcb73708fb748936413c8e63f43a381b6443f0d6f7d00",
    "invoice-standard-reference": "460f2b3fab12ae99f292314aff1fedb9da6d3b68bb22cdaa25f14641407656de",
    "udhr-accessible": "b3e76fc27c647dbcc2082c34bfd1ddfae65d093661f36eaeb4b9cb1f74e428a2",
    "udhr-pdf-a": "be500c357838da25a64412914ecfb8f7d7b0b58bb9a8710ed4f6f35fc1d35fc0",
    "udhr-standard": "08af5f56487f4e5ebc3b7738fde22be65b02d6783e2c305b2a9eaba1f4e29df4",
}


def render(tree: DesignTree, values: Mapping[str, Any] | None, resolver: Any, profile: str, reference: bool) -> bytes:
    options = RenderOptions.reference() if reference else RenderOptions()
    return render_pdf(tree, values, resolver, profile, options=options)
