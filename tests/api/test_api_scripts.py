"""The keys of every script (extensions.md 6) over REST and MCP against a real server:
styles.direction, align start/end and data.lang accepted, echoed and drawn, their refusals
in the error envelope naming the fix, and their place in GET /actions, OpenAPI and the MCP
tool schemas; a preview PNG of Arabic, Hebrew, Devanagari and Chinese equal to a raster of
the generated PDF."""

from __future__ import annotations

import io
import json

import httpx
import numpy as np
import pikepdf
import pytest
from PIL import Image

from tests.mcp_calls import ok, run
from tests.pdf_probes import char_left, ink_columns, page_image, pdf_text
from tests.text_samples import HEADER, WIDTHS

from ..conftest import add


def create(client, name: str = "Every script") -> str:
    return client.data(client.post("/designs", json={"name": name, "size": "A4"}), 201)["designId"]


def patch(client, design_id: str, actions: list[dict]) -> list[dict]:
    return client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)["results"]


def generated(client, design_id: str, **body) -> bytes:
    result = client.data(client.post(f"/designs/{design_id}/generate", json=body), 201)
    return httpx.get(result["downloadUrl"]).content


def test_the_keys_are_stored_and_drawn(alpha):
    design_id = create(alpha)
    hebrew = add(
        "text",
        "greeting",
        {"x": 40, "y": 40, "maxWidth": 300},
        {"content": "Shalom", "lang": "he"},
        {"direction": "rtl", "align": "start"},
    )
    rtl_table = add(
        "table", "prices", {"x": 40, "y": 120}, {"cells": [HEADER, ["a", "b", "c"]], "columnWidths": WIDTHS}
    )
    (text, grid) = patch(alpha, design_id, [hebrew, rtl_table])
    patch(
        alpha,
        design_id,
        [{"type": "update_element", "args": {"id": grid["data"]["id"], "styles": {"direction": "rtl"}}}],
    )
    tree = alpha.get(f"/designs/{design_id}/tree").json()
    stored = tree["nodes"][text["data"]["id"]]
    assert stored["data"]["lang"] == "he" and stored["styles"]["direction"] == "rtl"
    assert stored["styles"]["align"] == "start"
    assert tree["nodes"][grid["data"]["id"]]["styles"]["direction"] == "rtl"

    pdf = generated(alpha, design_id, pdfProfile="accessible")
    assert "Shalom" in pdf_text(pdf)[0]
    # start in a right-to-left paragraph: the right of the 300-point box (ink, as shaped text's
    # char boxes are PDFium's guess for its ActualText).
    left, right = ink_columns(pdf, (40, 40, 300, 16))
    assert right == pytest.approx(340, abs=1.5) and left > 250
    lefts = {word: char_left(pdf, word)[0] for word in HEADER}
    assert lefts["Alpha"] > lefts["Bravo"] > lefts["Charlie"]
    with pikepdf.open(io.BytesIO(pdf)) as document:
        paragraph = document.Root.StructTreeRoot.K.K[0]
        assert str(paragraph.S) == "/P" and str(paragraph.Lang) == "he"


@pytest.mark.parametrize(
    ("data", "styles", "fragment"),
    [
        ({"lang": "he_IL"}, {}, "data.lang 'he_IL' is not a BCP 47 language tag: use a tag like 'ar'"),
        ({"lang": "arabic-"}, {}, "(hyphens, not underscores), or leave data.lang out"),
        ({}, {"direction": "right"}, "styles.direction: Input should be 'auto', 'ltr' or 'rtl'"),
        ({}, {"align": "middle"}, "'start' or 'end'"),
    ],
)
def test_a_bad_value_is_refused_naming_the_fix(alpha, data, styles, fragment):
    design_id = create(alpha)
    text = add("text", "t", {"x": 40, "y": 40}, {"content": "x", **data}, styles)
    message = alpha.error(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [text]}), 400, "VALIDATION_ERROR")
    assert message.startswith("actions[0] (add_element) failed") and fragment in message


def test_a_tables_bad_direction_is_refused(alpha):
    design_id = create(alpha)
    grid = add("table", "t", {"x": 40, "y": 40}, {"cells": [["a"]]}, {"direction": "backwards"})
    message = alpha.error(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [grid]}), 400, "VALIDATION_ERROR")
    assert "styles.direction" in message and "'rtl'" in message


def _schemas(document: dict) -> str:
    return json.dumps(document)


def test_the_catalog_and_openapi_describe_the_keys(alpha):
    actions = alpha.data(alpha.get("/actions"), 200)["actions"]
    add_element = json.dumps(next(a for a in actions if a["name"] == "add_element"))
    spec = json.dumps(alpha.get("/openapi.json").json())
    for document in (add_element, spec):
        assert '"enum": ["auto", "ltr", "rtl"]' in document
        assert '"enum": ["left", "center", "right", "justify", "start", "end"]' in document
        assert "start and end are logical" in document and "left, center and right are physical" in document
        assert "BCP 47 tag of the content" in document


def test_mcp_tool_schemas_carry_the_keys_and_take_them(api_server):
    key = api_server.workspaces["alpha"][1]

    async def script(session):
        tools = (await session.list_tools()).tools
        design = ok(await session.call_tool("create_design", {"name": "MCP scripts"}))
        text = {
            "type": "add_element",
            "args": {
                "type": "text",
                "name": "arabic",
                "position": {"x": 30, "y": 30},
                "data": {"content": "Marhaba", "lang": "ar"},
                "styles": {"direction": "rtl", "align": "start"},
            },
        }
        patched = ok(await session.call_tool("patch_design_tree", {"designId": design["designId"], "actions": [text]}))
        refused = await session.call_tool(
            "patch_design_tree",
            {"designId": design["designId"], "actions": [{**text, "args": {**text["args"], "data": {"lang": "x_y"}}}]},
        )
        tree = ok(await session.call_tool("get_design_tree", {"designId": design["designId"]}))
        return tools, patched, refused, tree

    tools, patched, refused, tree = run(api_server, key, script)
    patch_tool = json.dumps(next(t for t in tools if t.name == "patch_design_tree").input_schema)
    assert '"enum": ["auto", "ltr", "rtl"]' in patch_tool and '"start", "end"]' in patch_tool
    assert "BCP 47 tag of the content" in patch_tool
    (result,) = patched["results"]
    node = tree["nodes"][result["data"]["id"]]
    assert node["data"]["lang"] == "ar" and node["styles"]["direction"] == "rtl" and node["styles"]["align"] == "start"
    assert refused.is_error and "is not a BCP 47 language tag" in refused.structured_content["message"]


# -- the preview is the PDF ---------------------------------------------------------------------

SCRIPTS = [
    ("arabic", "مرحبا بالعالم، هذه شهادة", "ar", "rtl"),
    ("hebrew", "שלום עולם, זוהי תעודה", "he", "rtl"),
    ("hindi", "नमस्ते दुनिया, क्षत्रिय", "hi", "auto"),
    ("chinese", "你好，世界。这是一张证书。", "zh-Hans", "auto"),
]


def test_the_preview_equals_a_raster_of_the_pdf(alpha):
    """The editor's preview (GET /designs/:id/preview, 96 dpi) is rasterized by PDFium from the
    same PDF the engine writes for generate, so it must equal PDFium's raster of the generated
    PDF at 96/72 pixels per point, pixel for pixel. A tolerance of 2 levels per channel covers
    nothing but PNG round trips; any difference in shaping, fallback fonts, bidi order or line
    breaks between the two paths moves whole glyphs, far more than that."""
    design_id = create(alpha, "Preview equals PDF")
    actions = [
        add(
            "text",
            name,
            {"x": 40, "y": 40 + 60 * index, "maxWidth": 300},
            {"content": content, "lang": lang},
            {"direction": direction, "fontSize": 18, "align": "start"},
        )
        for index, (name, content, lang, direction) in enumerate(SCRIPTS)
    ]
    actions.append(
        add(
            "table",
            "rtl",
            {"x": 40, "y": 300},
            {"cells": [["שם", "כמות"], ["عربي", "١٢"]], "width": 200},
            {"direction": "rtl", "align": "start"},
        )
    )
    patch(alpha, design_id, actions)
    preview = alpha.data(alpha.get(f"/designs/{design_id}/preview"), 200)
    shown = np.asarray(Image.open(io.BytesIO(httpx.get(preview["previewUrl"]).content)).convert("RGB"), dtype=int)

    pdf = generated(alpha, design_id)
    raster = np.asarray(page_image(pdf, dpi=96), dtype=int)
    assert shown.shape == raster.shape == (1123, 794, 3)
    assert (raster < 128).any()  # the scripts drew something
    assert np.abs(shown - raster).max() <= 2
