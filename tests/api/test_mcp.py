"""The MCP endpoint, driven by the official MCP Python SDK over streamable HTTP
against a real server (decisions.md "MCP")."""

from __future__ import annotations

import base64
import json

import anyio
import httpx
import pytest

from tests.mcp_calls import failed, ok, run
from tests.pdf_probes import pdf_text

from ..conftest import png

# MCP sessions live in the store (api/mcp/sessions.py): these tests run on DuckDB and PostgreSQL.
RUN_ON_BOTH_STORES = True

TOOLS = {
    "create_design",
    "list_designs",
    "get_design",
    "get_design_tree",
    "list_variables",
    "update_design",
    "delete_design",
    "duplicate_design",
    "patch_design_tree",
    "list_actions",
    "list_fonts",
    "list_sheets",
    "preview_sheet",
    "upload_image",
    "create_asset",
    "create_placeholder_asset",
    "replace_asset_content",
    "list_assets",
    "get_asset",
    "generate_pdf",
    "preview_page",
    "preview_with_values",
    "submit_batch",
    "get_batch",
    "get_batch_rows",
    "get_batch_download",
    "upload_signing_certificate",
    "get_signing_certificate",
    "delete_signing_certificate",
    "me",
    "rotate_webhook_secret",
    "list_revisions",
    "get_revision_tree",
    "restore_revision",
    "publish_design",
    "get_publish_state",
    "unpublish_design",
}


@pytest.fixture
def alpha_key(api_server):
    return api_server.workspaces["alpha"][1]


def test_initialize_and_every_tool_with_schemas(api_server, alpha_key):
    async def script(session):
        return (await session.list_tools()).tools

    tools = run(api_server, alpha_key, script)
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert tool.description and tool.input_schema["type"] == "object" and tool.output_schema
    patch = next(t for t in tools if t.name == "patch_design_tree")
    kinds = {
        item["properties"]["type"]["const"] for item in patch.input_schema["properties"]["actions"]["items"]["oneOf"]
    }
    assert "add_element" in kinds and len(kinds) == 12
    assert "never takes an id" in patch.description


def test_author_a_design_generate_and_preview(api_server, alpha_key):
    image = base64.b64encode(png(size=(50, 30))).decode()

    async def script(session):
        design = ok(await session.call_tool("create_design", {"name": "Agent certificate", "size": "A5"}))
        upload = ok(await session.call_tool("upload_image", {"file": image, "filename": "logo.png"}))
        patched = ok(
            await session.call_tool(
                "patch_design_tree",
                {
                    "designId": design["designId"],
                    "actions": [
                        {
                            "type": "add_element",
                            "args": {
                                "type": "text",
                                "name": "who",
                                "position": {"x": 30, "y": 30},
                                "data": {"content": "Someone"},
                            },
                        },
                        {
                            "type": "add_element",
                            "args": {
                                "type": "image",
                                "name": "logo",
                                "position": {"x": 200, "y": 30, "w": 50, "h": 30},
                                "data": {"src": upload["ref"]},
                            },
                        },
                        {"type": "bind_variable", "args": {"name": "who"}},
                    ],
                },
            )
        )
        tree = ok(await session.call_tool("get_design_tree", {"designId": design["designId"]}))
        pdf = ok(
            await session.call_tool("generate_pdf", {"designId": design["designId"], "data": {"who": "Grace Hopper"}})
        )
        preview = ok(await session.call_tool("preview_page", {"designId": design["designId"]}))
        return upload, patched, tree, pdf, preview

    upload, patched, tree, pdf, preview = run(api_server, alpha_key, script)
    assert upload["ref"].startswith("uploads:") and upload["mimeType"] == "image/png"
    assert [r["type"] for r in patched["results"]] == ["add_element", "add_element", "bind_variable"]
    assert set(tree["variables"]) == {"who"} and len(tree["nodes"]) == 2
    assert "Grace Hopper" in pdf_text(httpx.get(pdf["downloadUrl"]).content)[0]
    assert httpx.get(preview["previewUrl"]).headers["Content-Type"] == "image/png"


def test_a_failing_batch_is_atomic_and_names_the_action(api_server, alpha_key):
    async def script(session):
        design = ok(await session.call_tool("create_design", {"name": "atomic"}))
        message = failed(
            await session.call_tool(
                "patch_design_tree",
                {
                    "designId": design["designId"],
                    "actions": [
                        {"type": "add_element", "args": {"type": "text", "name": "fine", "position": {"x": 1, "y": 1}}},
                        {
                            "type": "add_element",
                            "args": {"type": "text", "name": "bad", "position": {"x": 1, "y": 1, "w": 9}},
                        },
                    ],
                },
            ),
            "VALIDATION_ERROR",
        )
        tree = ok(await session.call_tool("get_design_tree", {"designId": design["designId"]}))
        return message, tree

    message, tree = run(api_server, alpha_key, script)
    assert message.startswith("actions[1] (add_element) failed:") and "maxWidth" in message
    assert tree["nodes"] == {}


def test_a_batch_runs_to_completion(api_server, alpha_key):
    async def script(session):
        design = ok(await session.call_tool("create_design", {"name": "batch"}))
        ok(
            await session.call_tool(
                "patch_design_tree",
                {
                    "designId": design["designId"],
                    "actions": [
                        {"type": "add_element", "args": {"type": "text", "name": "who", "position": {"x": 1, "y": 1}}},
                        {"type": "bind_variable", "args": {"name": "who"}},
                    ],
                },
            )
        )
        job = ok(
            await session.call_tool(
                "submit_batch", {"designId": design["designId"], "rows": [{"who": f"P{i}"} for i in range(4)]}
            )
        )
        for _ in range(600):
            state = ok(await session.call_tool("get_batch", {"jobId": job["jobId"]}))
            if state["status"] in ("completed", "failed"):
                break
            await anyio.sleep(0.05)  # polling the job, as an agent would
        download = ok(await session.call_tool("get_batch_download", {"jobId": job["jobId"]}))
        return state, download

    state, download = run(api_server, alpha_key, script)
    assert (state["status"], state["completed"]) == ("completed", 4)
    assert httpx.get(download["downloadUrl"]).headers["Content-Type"] == "application/zip"


def test_pictures_and_a_merged_batch_through_the_tools(api_server, alpha_key):
    async def script(session):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        design = ok(await session.call_tool("create_design", {"name": "card"}))
        ok(
            await session.call_tool(
                "patch_design_tree",
                {
                    "designId": design["designId"],
                    "actions": [
                        {"type": "add_element", "args": {"type": "text", "name": "who", "position": {"x": 1, "y": 1}}},
                        {"type": "bind_variable", "args": {"name": "who"}},
                    ],
                },
            )
        )
        picture = ok(
            await session.call_tool(
                "generate_pdf", {"designId": design["designId"], "output": {"format": "png", "dpi": 72}}
            )
        )
        refused = failed(
            await session.call_tool(
                "submit_batch",
                {"designId": design["designId"], "rows": [{"who": "A"}], "merge": True, "output": {"format": "jpeg"}},
            ),
            "VALIDATION_ERROR",
        )
        job = ok(
            await session.call_tool(
                "submit_batch",
                {"designId": design["designId"], "rows": [{"who": f"P{i}"} for i in range(3)], "merge": True},
            )
        )
        for _ in range(600):
            state = ok(await session.call_tool("get_batch", {"jobId": job["jobId"]}))
            if state["status"] in ("completed", "failed"):
                break
            await anyio.sleep(0.05)  # polling the job, as an agent would
        merged = ok(await session.call_tool("get_batch_download", {"jobId": job["jobId"], "merged": True}))
        return tools, picture, refused, merged

    tools, picture, refused, merged = run(api_server, alpha_key, script)
    assert "output" in tools["generate_pdf"].input_schema["properties"]
    assert {"output", "merge"} <= set(tools["submit_batch"].input_schema["properties"])
    assert picture["filename"] == "card.png"
    assert httpx.get(picture["downloadUrl"]).headers["Content-Type"] == "image/png"
    assert refused.startswith("merge: ")
    response = httpx.get(merged["downloadUrl"])
    assert response.headers["Content-Type"] == "application/pdf"
    assert [text.strip() for text in pdf_text(response.content)] == ["P0", "P1", "P2"]


def test_plan_features_and_validation_errors_are_tool_errors(api_server):
    async def script(session):
        refused = failed(
            await session.call_tool("submit_batch", {"designId": "dsg_x", "rows": [{}]}), "INSUFFICIENT_PERMISSIONS"
        )
        bad = failed(await session.call_tool("create_design", {"name": "x", "colour": "red"}), "VALIDATION_ERROR")
        base = failed(await session.call_tool("upload_image", {"file": "not base64!"}), "VALIDATION_ERROR")
        return refused, bad, base

    refused, bad, base = run(api_server, api_server.workspaces["starter"][1], script)
    assert "batchGenerate" in refused and "colour" in bad and "base64" in base


def test_another_workspaces_design_is_not_visible(api_server, alpha_key):
    async def create(session):
        return ok(await session.call_tool("create_design", {"name": "private"}))["designId"]

    design_id = run(api_server, alpha_key, create)

    async def peek(session):
        listed = ok(await session.call_tool("list_designs", {"limit": 200}))
        return listed, await session.call_tool("get_design", {"designId": design_id})

    listed, result = run(api_server, api_server.workspaces["beta"][1], peek)
    assert design_id not in {d["designId"] for d in listed["items"]}
    assert design_id in failed(result, "DESIGN_NOT_FOUND")


def test_duplicate_and_delete_a_design(api_server, alpha_key):
    async def script(session):
        design = ok(await session.call_tool("create_design", {"name": "Agent draft"}))
        actions = [
            {"type": "add_element", "args": {"type": "text", "name": "who", "position": {"x": 1, "y": 1}}},
            {"type": "bind_variable", "args": {"name": "who"}},
        ]
        ok(await session.call_tool("patch_design_tree", {"designId": design["designId"], "actions": actions}))
        copy = ok(await session.call_tool("duplicate_design", {"designId": design["designId"]}))
        named = ok(await session.call_tool("duplicate_design", {"designId": design["designId"], "name": "Second"}))
        unknown = failed(
            await session.call_tool("duplicate_design", {"designId": design["designId"], "colour": "red"}),
            "VALIDATION_ERROR",
        )
        tree = ok(await session.call_tool("get_design_tree", {"designId": copy["designId"]}))
        deleted = ok(await session.call_tool("delete_design", {"designId": design["designId"]}))
        gone = failed(await session.call_tool("get_design", {"designId": design["designId"]}), "DESIGN_NOT_FOUND")
        again = failed(await session.call_tool("delete_design", {"designId": design["designId"]}), "DESIGN_NOT_FOUND")
        listed = ok(await session.call_tool("list_designs", {"limit": 200}))["items"]
        return design, copy, named, unknown, tree, deleted, gone, again, listed

    design, copy, named, unknown, tree, deleted, gone, again, listed = run(api_server, alpha_key, script)
    assert copy["name"] == "Agent draft (copy)" and copy["designId"] != design["designId"]
    assert named["name"] == "Second" and "colour" in unknown
    assert list(tree["variables"]) == ["who"] and len(tree["nodes"]) == 1
    assert deleted == {"designId": design["designId"], "deleted": True}
    assert design["designId"] in gone and design["designId"] in again
    ids = {item["designId"] for item in listed}
    assert design["designId"] not in ids and {copy["designId"], named["designId"]} <= ids


def test_another_workspaces_design_cannot_be_deleted_or_duplicated(api_server, alpha_key):
    async def create(session):
        return ok(await session.call_tool("create_design", {"name": "mine"}))["designId"]

    design_id = run(api_server, alpha_key, create)

    async def attempt(session):
        deleted = await session.call_tool("delete_design", {"designId": design_id})
        duplicated = await session.call_tool("duplicate_design", {"designId": design_id})
        return failed(deleted, "DESIGN_NOT_FOUND"), failed(duplicated, "DESIGN_NOT_FOUND")

    run(api_server, api_server.workspaces["beta"][1], attempt)

    async def still_there(session):
        return ok(await session.call_tool("get_design", {"designId": design_id}))

    assert run(api_server, alpha_key, still_there)["name"] == "mine"


@pytest.mark.parametrize("key,status,code", [(None, 401, "UNAUTHORIZED"), ("dbk_live_wrong", 401, "UNAUTHORIZED")])
def test_missing_or_wrong_key_is_refused(api_server, key, status, code):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if key:
        headers["X-API-Key"] = key
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    response = httpx.post(f"{api_server.url}/mcp", json=body, headers=headers)
    assert response.status_code == status and response.json()["error"]["code"] == code
    with pytest.raises(Exception):  # noqa: B017  (the SDK raises its own error types)
        run(api_server, key or "", lambda session: session.list_tools())


def test_free_plan_is_refused(api_server):
    response = httpx.post(
        f"{api_server.url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={"X-API-Key": api_server.workspaces["free"][1]},
    )
    assert response.status_code == 403 and response.json()["error"]["code"] == "INSUFFICIENT_PERMISSIONS"


def test_resources_and_prompts(api_server, alpha_key):
    async def script(session):
        resources = await session.list_resources()
        fonts = await session.read_resource("docbench://catalog/fonts")
        icons = await session.read_resource("docbench://catalog/icons")
        prompt = await session.get_prompt("make_certificate", {"recipient": "Ada"})
        return resources, fonts, icons, prompt

    resources, fonts, icons, prompt = run(api_server, alpha_key, script)
    assert {str(r.uri) for r in resources.resources} == {"docbench://catalog/fonts", "docbench://catalog/icons"}
    assert len(json.loads(fonts.contents[0].text)["fonts"]) >= 20
    scripts = {f["id"]: f["scripts"] for f in json.loads(fonts.contents[0].text)["fonts"]}
    assert "Arab" in scripts["Noto Sans Arabic"] and "Hans" in scripts["Noto Sans SC"]
    assert "star" in json.loads(icons.contents[0].text)["icons"]
    text = prompt.messages[0].content.text
    assert "create_design" in text and "Ada" in text
    # issue 15: a field sentence and a fitted name, in the keys the actions take
    assert '"content": "This certifies that {recipient} completed {course}", "fields": true' in text
    assert '"fit": "shrink", "minFontSize": 18' in text and '"maxWidth": 520' in text and "list_variables" in text


def test_sessions_are_required_and_checked(api_server, alpha_key):
    headers = {"X-API-Key": alpha_key}
    response = httpx.post(
        f"{api_server.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=headers
    )
    assert response.status_code == 400
    response = httpx.post(
        f"{api_server.url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={**headers, "Mcp-Session-Id": "nope"},
    )
    assert response.status_code == 404


def _stored_files(data_dir) -> list[str]:
    return sorted(str(path) for path in (data_dir / "blobs").rglob("*") if path.is_file())


def test_an_image_name_over_200_characters_is_refused_and_nothing_is_stored(api_server, alpha_key):
    """The name rule is the service's (1 to 200 characters), not only REST's form parser's."""
    image = base64.b64encode(png()).decode()

    async def script(session):
        before = _stored_files(api_server.data_dir)
        upload = failed(await session.call_tool("upload_image", {"file": image, "name": "n" * 201}), "VALIDATION_ERROR")
        asset = failed(await session.call_tool("create_asset", {"file": image, "name": "n" * 201}), "VALIDATION_ERROR")
        empty = failed(await session.call_tool("create_asset", {"file": image, "name": ""}), "VALIDATION_ERROR")
        assets = ok(await session.call_tool("list_assets", {"limit": 200}))["items"]
        return upload, asset, empty, assets, before, _stored_files(api_server.data_dir)

    upload, asset, empty, assets, before, after = run(api_server, alpha_key, script)
    assert all("1 to 200 characters" in message for message in (upload, asset, empty))
    assert not [item for item in assets if item["name"] in ("n" * 201, "")]
    assert after == before
