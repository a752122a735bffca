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
    "certificate-accessible": "d4cd769c6fe14a540d3da3487f6bdd95ee4e24b2f45715e25ed3e1bf0bcb12b2",
    "certificate-accessible-reference": "8435316c4900ac89046aea9c0d4078ec723e7e3a6b4f094f41e3184d5f3a2a31",
    "certificate-design-preview": "7e188f716b97849e1da216962f8507c75259c3b7ebd83d7ebb1f4ca49e74bdd0",
    "certificate-pdf-a": "25e4bb35c77dbb2100806a53d86fafc55a09b94b738305b3ac785b08b3b797a2",
    "certificate-pdf-a-reference": "1d48e35c86ef6ccb706f094e8f78f77d5b708320c8dc0a852f523a5d67b67650",
    "certificate-standard": "a392f02ca3718aa2ad67ff358a3174dcb2349cda43e2c06ddd98b28fd5687b9e",
    "certificate-standard-reference": "ab161393a604d7c31d7836d89f326f1c652e2b9fef607abc0b89250a49dd3014",
    "invoice-3-pages-accessible": "6c65aaf5e4b81be0394697750c3839b4e59c9945243e9e35fcc04b82884f174b",
    "invoice-3-pages-accessible-reference": "72c15da1127d5417bdbaf42aac2a3efc8bb67f2b6fce5799d198fd0caeab7a03",
    "invoice-3-pages-pdf-a": "9fc92108aeb85bb915e91ecc96e0f0164bdea7bd934c7ea9881720dd0c58840b",
    "invoice-3-pages-pdf-a-reference": "51d47a9be553583d77dadbe332325bfbf55f59978dd594c0cca3cb02205c9947",
    "invoice-3-pages-standard": "b9c1dd5f85bb9d02c83fdf0a97a09ea3d9881cfdcea172c3f19f7d1d32655694",
    "invoice-3-pages-standard-reference": "595394dd95e2cf3b668bac18d64c82d29fef18a26f765cf765bd812bf96ab760",
    "invoice-accessible": "30f315c103f923eb4deb727a40082fd5b01432ff75c04c7655f689ab9a3cc587",
    "invoice-accessible-reference": "c68070d41a0c5e69c9286260a58b81e56b9cfbe51c6788304437af219de4afda",
    "invoice-pdf-a": "fc08a4b98ac82cb1ed754026e781110e9459f77fef11f4dd0f016fc2c231ca2c",
    "invoice-pdf-a-reference": "c1ed85e08eaca11bcbc8d9c626445c9d149a27193704f7bb9260104b59cc46c6",
    "invoice-standard": "407b4ef4cfb5e6c0d3920c8c195e207d69af4a84e3bbfb391db68f5284dfbc5f",
    "invoice-standard-reference": "74c6fd8567e1809e15fd7a59cc52d1332ad19523c5a9c8139342d63b573b528a",
    "udhr-accessible": "ca079bdc3dde3930e7d8bb93017511c74b295dcb8d958dd7324b0fa58d89d906",
    "udhr-pdf-a": "7c9ee5aaea6591c7c3e5cfbc1c903cd2c169e4853f06e8a3d3dbb49d3d984d91",
    "udhr-standard": "3cc36d0d9ece135e522040c61e469d653c2d1d983d3023ad3a77995a69260155",
}


def render(tree: DesignTree, values: Mapping[str, Any] | None, resolver: Any, profile: str, reference: bool) -> bytes:
    options = RenderOptions.reference() if reference else RenderOptions()
    return render_pdf(tree, values, resolver, profile, options=options)
