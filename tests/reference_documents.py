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
    "certificate-accessible": "f9c37e6e3148e31ca6f54ca4fc8e32967b4a44664d6530dd1065396276921244",
    "certificate-accessible-reference": "090a915af0046be8e74b6209da46437f3f75c24d547bfd9821edb91d0fc8e94b",
    "certificate-design-preview": "e278fae05c9a6a38d79800aae60d3c658f55fa738b30a9a1f5a586c311c3ceed",
    "certificate-pdf-a": "61027e225bf5ed9bc00668a65a74db924273532a2d1d841fed38804f35216d95",
    "certificate-pdf-a-reference": "094d8cf31e9bd5d9658ee173ad1eeb6222988e175b816b3032b2a7a814cd092e",
    "certificate-standard": "06fd4514bc0f2f0d2371d91c4d9f506bfcda5c865c85a6b212a55e82695f4fe6",
    "certificate-standard-reference": "57081b0315f6add8ad48cd20530d5075eb05f8c16a7bd919a97a3984a8ef9388",
    "invoice-3-pages-accessible": "e1a7cf1775ffe496907a9c07d11b028c5e0bf050ad713b806ea5769d43ca757b",
    "invoice-3-pages-accessible-reference": "ed872fbac5158d91f45a1b7be642563bec9de71b28040be21b772be3f5d9f6ec",
    "invoice-3-pages-pdf-a": "81b3d821622f0c343e90ee5c567d18e7f2510f57e1b1d2bbd8f668ff3690df66",
    "invoice-3-pages-pdf-a-reference": "cfec10970ceddacd7b54e88c863e6ca4d29c54e4fd8d20ddfff780db775d6747",
    "invoice-3-pages-standard": "0748f56043c65d6fa7e40bf4938d08ed7611ad18ba5c0cf358422d30a8d207c8",
    "invoice-3-pages-standard-reference": "6efd8994871c38b00d05b74ae9bd75c7f471b69a140863325b4123511d0ea89c",
    "invoice-accessible": "8d442673c082909cfe62af6d6f11f4c2995dfa6cd4369fce06347851fa10b26c",
    "invoice-accessible-reference": "b89d7413032b96ca56419bca72c03ee8f59042c99aa1d255a3323a431875920a",
    "invoice-pdf-a": "3354f19becd512dcfa4c20e5ce4fe64337193eff46aa156745e8bab6ef1932e6",
    "invoice-pdf-a-reference": "8721c6fd849fd70046b5927c2b6ac769acd57806f4367c9379d2eb98253f2c70",
    "invoice-standard": "b1a48781acc831d9d62c56655515fdf4ab6d7886adce7d3fa8b9b9a8bb8859e4",
    "invoice-standard-reference": "d729e96ae15a45081d6d1dae166c8e025ae830fe720754a38cc0375f7103134f",
    "udhr-accessible": "18c87949551f8eebd4c0efb98faaa83497cf4f10947ad652233856bf3b59c565",
    "udhr-pdf-a": "72ccdbd5fd13dccffa97a5d2d2e2c050a90afbb6d1fa7806679b9df692582507",
    "udhr-standard": "2fa85f5d84b136de5d609099e8fe403c81adaccd618691d8abb2128317fc9e29",
}


def render(tree: DesignTree, values: Mapping[str, Any] | None, resolver: Any, profile: str, reference: bool) -> bytes:
    options = RenderOptions.reference() if reference else RenderOptions()
    return render_pdf(tree, values, resolver, profile, options=options)
