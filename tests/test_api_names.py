"""Names over real HTTP and the CLI: no control, bidi or invisible characters (engine.names)."""

from __future__ import annotations

import base64
import json

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from .conftest import add, png, run_async
from .server import docbench

RLO = "\u202e"
ZWJ = "\u200d"
BAD_NAMES = [
    (f"invoice{RLO}fdp.exe", "character 8 is U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("report\x00.pdf", "character 7 is U+0000 NULL"),
    ("\u200bsecret", "character 1 is U+200B ZERO WIDTH SPACE"),
    ("a\u2066b\u2069", "character 2 is U+2066 LEFT-TO-RIGHT ISOLATE"),
]
GOOD_NAME = f"Rechnung Nr. 7 – Müller 👩{ZWJ}💻 שלום"


def _blob_count(api_server) -> int:
    return sum(1 for _ in (api_server.data_dir / "blobs").rglob("*.*"))


@pytest.mark.parametrize(("bad", "fragment"), BAD_NAMES)
def test_design_names_refuse_invisible_characters_on_create_and_rename(alpha, bad: str, fragment: str) -> None:
    message = alpha.error(alpha.post("/designs", json={"name": bad}), 400, "VALIDATION_ERROR")
    assert message.startswith(f"name: {fragment}") and "remove it" in message, message
    design = alpha.data(alpha.post("/designs", json={"name": GOOD_NAME}), 201)
    assert design["name"] == GOOD_NAME
    message = alpha.error(alpha.patch(f"/designs/{design['designId']}", json={"name": bad}), 400, "VALIDATION_ERROR")
    assert fragment in message
    assert alpha.data(alpha.get(f"/designs/{design['designId']}"), 200)["name"] == GOOD_NAME


@pytest.mark.parametrize("field", ["name", "label"])
def test_placeholder_names_and_labels_refuse_invisible_characters(alpha, field: str) -> None:
    body = {"name": "Hero", field: f"He{RLO}ro"}
    message = alpha.error(alpha.post("/assets/placeholder", json=body), 400, "VALIDATION_ERROR")
    assert message.startswith(f"{field}: character 3 is U+202E"), message


@pytest.mark.parametrize("path", ["/uploads", "/assets"])
@pytest.mark.parametrize(("bad", "fragment"), BAD_NAMES[::2])
def test_a_given_upload_or_asset_name_is_refused_and_nothing_is_stored(
    alpha, api_server, path: str, bad: str, fragment: str
) -> None:
    before = _blob_count(api_server)
    response = alpha.post(path, files={"file": ("logo.png", png(size=(7, 5)), "image/png")}, data={"name": bad})
    message = alpha.error(response, 400, "VALIDATION_ERROR")
    assert message.startswith(f"name: {fragment}") and "remove it" in message, message
    assert _blob_count(api_server) == before


@pytest.mark.parametrize("path", ["/uploads", "/assets"])
def test_a_name_taken_from_the_file_name_loses_its_invisible_characters(alpha, path: str) -> None:
    filename = f"in{RLO}voice\u200b 👩{ZWJ}💻.png"
    response = alpha.post(path, files={"file": (filename, png(size=(6, 5)), "image/png")})
    assert alpha.data(response, 201)["name"] == f"invoice 👩{ZWJ}💻.png"


def test_element_and_page_names_in_a_patch_refuse_invisible_characters(alpha) -> None:
    design_id = alpha.data(alpha.post("/designs", json={"name": "names"}), 201)["designId"]
    before = alpha.get(f"/designs/{design_id}/tree").text
    text = add("text", f"total{RLO}", {"x": 10, "y": 10}, {"content": "x"})
    message = alpha.error(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [text]}), 400, "VALIDATION_ERROR")
    assert message.startswith("actions[0] (add_element) failed: name: character 6 is U+202E"), message
    page = {"type": "add_page", "args": {"name": "Back\x00"}}
    message = alpha.error(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [page]}), 400, "VALIDATION_ERROR")
    assert message.startswith("actions[0] (add_page) failed: name: character 5 is U+0000 NULL"), message
    assert alpha.get(f"/designs/{design_id}/tree").text == before


def test_workspace_names_refuse_invisible_characters_in_the_cli(tmp_path) -> None:
    refused = docbench("workspace", "create", f"acme{RLO}", data_dir=tmp_path, check=False)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "workspace name: character 5 is U+202E RIGHT-TO-LEFT OVERRIDE" in refused.stderr, refused.stderr
    created = json.loads(docbench("workspace", "create", f"Ärzte 👩{ZWJ}⚕️", data_dir=tmp_path).stdout)
    listed = json.loads(docbench("workspace", "list", data_dir=tmp_path).stdout)
    assert [(w["workspaceId"], w["name"]) for w in listed] == [(created["workspaceId"], f"Ärzte 👩{ZWJ}⚕️")]


def test_mcp_tools_refuse_the_same_names(api_server) -> None:
    """The rule lives in the service: the MCP face refuses what REST refuses."""
    image = base64.b64encode(png(size=(5, 4))).decode()

    async def main() -> list:
        headers = {"X-API-Key": api_server.workspaces["alpha"][1]}
        async with create_mcp_http_client(headers=headers) as http:
            async with streamable_http_client(f"{api_server.url}/mcp", http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    return [
                        await session.call_tool("create_design", {"name": f"x{RLO}y"}),
                        await session.call_tool("upload_image", {"file": image, "name": f"x{RLO}y"}),
                        await session.call_tool("create_asset", {"file": image, "filename": f"a{RLO}b.png"}),
                    ]

    design, upload, asset = run_async(main)
    for refused in (design, upload):
        assert refused.is_error is True and refused.structured_content["code"] == "VALIDATION_ERROR"
        assert "name: character 2 is U+202E RIGHT-TO-LEFT OVERRIDE" in refused.structured_content["message"]
    assert asset.is_error is False and asset.structured_content["name"] == "ab.png"
