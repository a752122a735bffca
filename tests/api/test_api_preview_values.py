"""POST /designs/:id/preview: one page with values, watermarked "PREVIEW", free (the editor's
"Try values"); the values are checked as generate's `data` is."""

from __future__ import annotations

import io

import httpx
import pytest
from PIL import Image, ImageChops

import engine
from api.service.generation import PREVIEW_WATERMARK
from tests.mcp_calls import ok, run

from ..conftest import add, png

LETTER = [
    add("text", "recipient", {"x": 40, "y": 40}, {"content": "Sample Name"}, {"fontSize": 28}),
    add("table", "rows", {"x": 40, "y": 100}, {"cells": [["Item", "Qty"], ["a", "1"]], "width": 300}),
    add("image", "photo", {"x": 400, "y": 40, "w": 60, "h": 60}),
    *[{"type": "bind_variable", "args": {"name": n}} for n in ("recipient", "rows", "photo")],
]
VALUES = {"recipient": "Grace Hopper", "rows": [["Item", "Qty"], ["compiler", "1"]]}


def letter(client, name: str = "Try values") -> str:
    design_id = client.data(client.post("/designs", json={"name": name}), 201)["designId"]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": LETTER}), 200)
    return design_id


def credits(client) -> int:
    return client.data(client.get("/me"), 200)["credits"]


def image(url: str) -> Image.Image:
    response = httpx.get(url)
    assert response.status_code == 200 and response.headers["Content-Type"] == "image/png"
    return Image.open(io.BytesIO(response.content)).convert("RGB")


def tried(client, design_id: str, body: dict) -> dict:
    return client.data(client.post(f"/designs/{design_id}/preview", json=body), 200)


def test_a_preview_with_values_shows_them_watermarked_and_is_free(alpha):
    design_id = letter(alpha)
    before = credits(alpha)
    preview = tried(alpha, design_id, {"data": VALUES})
    assert set(preview) == {"previewUrl", "expiresIn", "page", "sheet", "sheets"} and preview["page"] == 0
    assert preview["expiresIn"] == 3600 and (preview["sheet"], preview["sheets"]) == (0, 1)
    assert credits(alpha) == before  # free, like every preview

    shown = image(preview["previewUrl"])
    plain = image(alpha.data(alpha.get(f"/designs/{design_id}/preview"), 200)["previewUrl"])
    assert shown.size == plain.size == (794, 1123)
    # Exactly what the engine draws with these values and the PREVIEW watermark: the values and
    # the mark, nothing else.
    tree = engine.DesignTree.model_validate(alpha.get(f"/designs/{design_id}/tree").json())
    expected = engine.render_png(tree, 0, values=VALUES, watermark=PREVIEW_WATERMARK)
    assert ImageChops.difference(shown, Image.open(io.BytesIO(expected)).convert("RGB")).getbbox() is None
    without_mark = Image.open(io.BytesIO(engine.render_png(tree, 0, values=VALUES))).convert("RGB")
    assert ImageChops.difference(without_mark, plain).getbbox() is not None  # the values changed the page
    # The watermark: ink across the empty middle of the page, where the plain preview is white.
    middle = (200, 450, 600, 700)
    assert plain.crop(middle).getextrema() == ((255, 255),) * 3
    assert min(low for low, _ in shown.crop(middle).getextrema()) < 235


def test_the_values_of_one_try_do_not_stay(alpha):
    design_id = letter(alpha)
    first = image(tried(alpha, design_id, {"data": VALUES})["previewUrl"])
    other = image(tried(alpha, design_id, {"data": {"recipient": "Ada Lovelace"}})["previewUrl"])
    assert ImageChops.difference(first, other).getbbox() is not None
    # The design's own preview still shows its design-time content, unmarked.
    tree = engine.DesignTree.model_validate(alpha.get(f"/designs/{design_id}/tree").json())
    plain = image(alpha.data(alpha.get(f"/designs/{design_id}/preview"), 200)["previewUrl"])
    expected = Image.open(io.BytesIO(engine.render_png(tree, 0))).convert("RGB")
    assert ImageChops.difference(plain, expected).getbbox() is None


def test_an_uploaded_image_value_is_drawn(alpha):
    design_id = letter(alpha)
    photo = alpha.data(alpha.post("/uploads", files={"file": ("p.png", png((200, 30, 30, 255)), "image/png")}), 201)
    shown = image(tried(alpha, design_id, {"data": {"photo": photo["ref"]}})["previewUrl"])
    red = shown.crop((545, 60, 605, 120)).getpixel((30, 30))  # the photo's box at 96 dpi
    assert red[0] > 150 and red[1] < 120 and red[2] < 120


@pytest.mark.parametrize(
    "data,fragment",
    [
        ({"nobody": "x"}, "variable 'nobody'"),
        ({"recipient": 5}, "variable 'recipient'"),
        ({"rows": [["a"]]}, "variable 'rows'"),
        ({"photo": "uploads:upl_nope"}, "variable 'photo'"),
        ("x", "data"),
    ],
)
def test_bad_values_get_the_same_400_as_generate(alpha, data, fragment):
    design_id = letter(alpha)
    before = credits(alpha)
    refused = alpha.error(alpha.post(f"/designs/{design_id}/preview", json={"data": data}), 400, "VALIDATION_ERROR")
    generated = alpha.error(alpha.post(f"/designs/{design_id}/generate", json={"data": data}), 400, "VALIDATION_ERROR")
    assert fragment in refused and refused == generated
    assert credits(alpha) == before


@pytest.mark.parametrize(
    "body,fragment", [({}, "data"), ({"data": {}, "values": {}}, "values"), ({"data": {}, "page": -1}, "page")]
)
def test_the_body_is_strict(alpha, body, fragment):
    design_id = letter(alpha)
    assert fragment in alpha.error(alpha.post(f"/designs/{design_id}/preview", json=body), 400, "VALIDATION_ERROR")


def test_a_missing_page_is_404(alpha):
    design_id = letter(alpha)
    alpha.error(alpha.post(f"/designs/{design_id}/preview", json={"page": 2, "data": {}}), 404, "PAGE_NOT_FOUND")


def test_another_workspace_cannot_try_values_on_a_design(alpha, beta):
    design_id = letter(alpha)
    beta.error(beta.post(f"/designs/{design_id}/preview", json={"data": VALUES}), 404, "DESIGN_NOT_FOUND")


def test_the_mcp_tool_tries_values(api_server, alpha):
    design_id = letter(alpha)
    key = api_server.workspaces["alpha"][1]

    async def script(session):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        # A POST like every write, so it takes an idempotencyKey too (extensions.md 8).
        assert set(tools["preview_with_values"].input_schema["properties"]) == {
            "designId",
            "page",
            "sheet",
            "data",
            "idempotencyKey",
        }
        done = ok(await session.call_tool("preview_with_values", {"designId": design_id, "data": VALUES}))
        refused = await session.call_tool("preview_with_values", {"designId": design_id, "data": {"nobody": 1}})
        return done, refused

    done, refused = run(api_server, key, script)
    assert done["page"] == 0 and image(done["previewUrl"]).size == (794, 1123)
    assert refused.is_error and refused.structured_content["code"] == "VALIDATION_ERROR"
