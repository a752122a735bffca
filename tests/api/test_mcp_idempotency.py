"""The MCP tools' idempotencyKey argument: REST's Idempotency-Key rules (extensions.md 8) for agents."""

from __future__ import annotations

import uuid

from tests.mcp_calls import failed, ok, run

# Keys live in the store (api/service/idempotency.py): these tests run on DuckDB and PostgreSQL.
RUN_ON_BOTH_STORES = True
REPLAYED = "docbench/idempotentReplayed"

TEXT = {
    "type": "add_element",
    "args": {"type": "text", "name": "title", "position": {"x": 60, "y": 60}, "data": {"content": "Hello"}},
}


def test_tools_that_write_take_an_idempotency_key_and_say_so(api_server):
    async def script(session):
        return {tool.name: tool for tool in (await session.list_tools()).tools}

    tools = run(api_server, api_server.workspaces["alpha"][1], script)
    for name in ("generate_pdf", "submit_batch", "create_design", "duplicate_design", "patch_design_tree"):
        assert tools[name].input_schema["properties"]["idempotencyKey"]["maxLength"] == 255
        assert "idempotencyKey" in tools[name].description
    for name in ("get_design", "list_designs", "me", "delete_design"):
        assert "idempotencyKey" not in tools[name].input_schema["properties"]


def test_generate_pdf_with_the_same_key_runs_once_and_replays(api_server):
    key = str(uuid.uuid4())

    async def script(session):
        design = ok(await session.call_tool("create_design", {"name": "Agent receipt"}))
        design_id = design["designId"]
        ok(
            await session.call_tool(
                "patch_design_tree",
                {"designId": design_id, "actions": [TEXT, {"type": "bind_variable", "args": {"name": "title"}}]},
            )
        )
        before = ok(await session.call_tool("me", {}))["credits"]
        arguments = {"designId": design_id, "data": {"title": "Once"}, "idempotencyKey": key}
        first = await session.call_tool("generate_pdf", arguments)
        second = await session.call_tool("generate_pdf", dict(reversed(list(arguments.items()))))
        other = await session.call_tool("generate_pdf", {**arguments, "data": {"title": "Twice"}})
        after = ok(await session.call_tool("me", {}))["credits"]
        bad = await session.call_tool("create_design", {"name": "Never", "idempotencyKey": "has space"})
        return first, second, other, before, after, bad

    first, second, other, before, after, bad = run(api_server, api_server.workspaces["alpha"][1], script)
    assert ok(second) == ok(first)  # the same generationId and URL
    assert second.meta == {REPLAYED: True} and not (first.meta or {}).get(REPLAYED)
    assert "new key" in failed(other, "IDEMPOTENCY_KEY_REUSED")
    assert after == before - 1
    assert "255 visible ASCII" in failed(bad, "VALIDATION_ERROR")


def test_an_error_result_is_replayed_and_keys_are_per_workspace(api_server):
    key = str(uuid.uuid4())

    async def broke(session):
        design_id = ok(await session.call_tool("create_design", {"name": "Broke"}))["designId"]
        arguments = {"designId": design_id, "idempotencyKey": key}
        return await session.call_tool("generate_pdf", arguments), await session.call_tool("generate_pdf", arguments)

    async def alpha(session):
        return await session.call_tool("create_design", {"name": "Broke", "idempotencyKey": key})

    first, second = run(api_server, api_server.workspaces["broke"][1], broke)
    failed(first, "INSUFFICIENT_CREDITS")
    failed(second, "INSUFFICIENT_CREDITS")
    assert second.meta == {REPLAYED: True}
    created = run(api_server, api_server.workspaces["alpha"][1], alpha)
    assert ok(created)["designId"] and not (created.meta or {}).get(REPLAYED)


def test_a_key_on_a_tool_that_only_reads_is_an_unknown_argument(api_server):
    async def script(session):
        return await session.call_tool("me", {"idempotencyKey": "abc"})

    assert "idempotencyKey" in failed(run(api_server, api_server.workspaces["alpha"][1], script), "VALIDATION_ERROR")
