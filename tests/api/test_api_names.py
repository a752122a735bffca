"""Names over real HTTP and the CLI: no control, bidi or invisible characters (engine.design.names)."""

from __future__ import annotations

import base64
import json

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from ..conftest import add, png, run_async
from ..server import docbench

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


@pytest.mark.parametrize("name", [f"{RLO}evil", "pay\u200bment", "a\u2066b"])
def test_form_field_names_refuse_invisible_characters_on_add_and_update(alpha, name: str) -> None:
    # Issue 48: "\u202eevil" was a field name a reader lists as "live".
    design_id = alpha.data(alpha.post("/designs", json={"name": "Form"}), 201)["designId"]
    field = add("field", "applicant", {"x": 40, "y": 40, "w": 200, "h": 24}, {"fieldName": name})
    response = alpha.patch(f"/designs/{design_id}/tree", json={"actions": [field]})
    message = alpha.error(response, 400, "VALIDATION_ERROR")
    assert f"U+{ord(next(c for c in name if not c.isalnum())):04X}" in message and "remove it" in message
    plain = add("field", "applicant", {"x": 40, "y": 40, "w": 200, "h": 24}, {"fieldName": "applicant"})
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [plain]}), 200)
    rename = {"type": "update_element", "args": {"name": "applicant", "data": {"fieldName": name}}}
    response = alpha.patch(f"/designs/{design_id}/tree", json={"actions": [rename]})
    assert "remove it" in alpha.error(response, 400, "VALIDATION_ERROR")


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


# Attachment names (extensions.md 9): the name rule, and what a file name may not hold.
BAD_ATTACHMENT_NAMES = [  # the name, what the message names, the fix it gives
    (f"invoice{RLO}fdp.exe", "character 8 is U+202E RIGHT-TO-LEFT OVERRIDE", "remove it"),
    ("in\u200bvoice.pdf", "character 3 is U+200B ZERO WIDTH SPACE", "remove it"),
    ("\ufeffterms.txt", "character 1 is U+FEFF ZERO WIDTH NO-BREAK SPACE", "remove it"),
    ("terms\x7f.txt", "character 6 is U+007F DELETE", "remove it"),
    ("..", "is only dots", "give the file a name"),
    ("C:evil.exe", "character 2 is ':' (U+003A COLON)", "replace it"),
    ("..\u2215..\u2215evil.exe", "character 3 is '\u2215' (U+2215 DIVISION SLASH), drawn like a slash", "replace it"),
    ("nul.txt", "is the Windows device name NUL", "rename it"),
]


def _attachment(name: str) -> dict:
    return {"name": name, "mimeType": "text/plain", "content": base64.b64encode(b"Net 30").decode()}


@pytest.mark.parametrize(("bad", "fragment", "fix"), BAD_ATTACHMENT_NAMES)
def test_attachment_names_keep_the_file_name_rule_on_generate_and_batch(
    alpha, bad: str, fragment: str, fix: str
) -> None:
    design_id = alpha.data(alpha.post("/designs", json={"name": "attached"}), 201)["designId"]
    before = alpha.data(alpha.get("/me"), 200)["credits"]
    body = {"attachments": [_attachment("terms.txt"), _attachment(bad)]}
    message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
    assert message.startswith(f"attachments.1.name: {fragment}") and fix in message, message
    rows = {"rows": [{}, {}], "rowOptions": [{}, {"attachments": [_attachment(bad)]}]}
    message = alpha.error(alpha.post(f"/designs/{design_id}/batch", json=rows), 400, "VALIDATION_ERROR")
    assert message.startswith(f"rowOptions.1.attachments.0.name: {fragment}"), message
    assert alpha.data(alpha.get("/me"), 200)["credits"] == before


def test_a_download_name_made_from_a_design_name_is_one_file_name(alpha) -> None:
    """A design may be named "Q1 ∕ Q2" or "CON": its PDF's name must still be one harmless file name."""
    for name, filename in [("Q1 \u2215 Q2: totals", "Q1 Q2 totals.pdf"), ("CON", "_CON.pdf")]:
        design_id = alpha.data(alpha.post("/designs", json={"name": name}), 201)["designId"]
        generated = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={}), 201)
        assert generated["filename"] == filename


def test_mcp_refuses_the_same_attachment_names(api_server, alpha) -> None:
    design_id = alpha.data(alpha.post("/designs", json={"name": "attached"}), 201)["designId"]

    async def main():
        headers = {"X-API-Key": api_server.workspaces["alpha"][1]}
        async with create_mcp_http_client(headers=headers) as http:
            async with streamable_http_client(f"{api_server.url}/mcp", http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    args = {"designId": design_id, "attachments": [_attachment("C:evil.exe")]}
                    return await session.call_tool("generate_pdf", args)

    refused = run_async(main)
    assert refused.is_error is True and refused.structured_content["code"] == "VALIDATION_ERROR"
    assert "attachments.0.name: character 2 is ':' (U+003A COLON)" in refused.structured_content["message"]
