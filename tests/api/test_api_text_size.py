"""Text size over REST and MCP (issue 31, item 3): a text past 100,000 characters and a tree
past 5 MB are refused with what to do instead, nothing saved; and designs that cost seconds
to check keep no other workspace from being answered."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import httpx
import pytest

import engine
from api.models import CreateDesignBody
from api.service import Service, Settings
from tests.mcp_calls import failed, ok
from tests.mcp_calls import run as run_mcp
from tests.text_samples import chinese

from ..server import Server, wait_until


def _design(client, name: str) -> str:
    return client.data(client.post("/designs", json={"name": name, "size": "A4"}), 201)["designId"]


def _add_text(name: str, content: str, **data) -> dict:
    position = {"x": 20, "y": 20, "maxWidth": 400}
    return {
        "type": "add_element",
        "args": {"type": "text", "name": name, "position": position, "data": {"content": content, **data}},
    }


def test_a_text_over_100000_characters_is_refused_naming_the_limit_and_the_fix(alpha):
    design_id = _design(alpha, "Long text")
    response = alpha.patch(f"/designs/{design_id}/tree", json={"actions": [_add_text("intro", "x" * 100_001)]})
    message = alpha.error(response, 400, "VALIDATION_ERROR")
    assert message.startswith("actions[0] (add_element) failed: data.content: the text 'intro' is 100,001 characters")
    assert "at most 100,000" in message and "split it over several text elements" in message
    assert alpha.get(f"/designs/{design_id}/tree").json()["nodes"] == {}


def test_a_text_over_100000_characters_is_refused_over_mcp(api_server):
    key = api_server.workspaces["alpha"][1]

    async def script(session):
        design = ok(await session.call_tool("create_design", {"name": "Long text over MCP"}))
        text = _add_text("intro", "**x** " * 20_000)  # 120,000 characters of Markdown
        text["args"]["data"]["markup"] = "markdown"
        answer = await session.call_tool("patch_design_tree", {"designId": design["designId"], "actions": [text]})
        tree = ok(await session.call_tool("get_design_tree", {"designId": design["designId"]}))
        return failed(answer, "VALIDATION_ERROR"), tree

    message, tree = run_mcp(api_server, key, script)
    assert "the text 'intro' is 120,000 characters; a text element holds at most 100,000" in message
    assert tree["nodes"] == {}


def test_a_patch_past_the_tree_limit_is_refused_and_saves_nothing(alpha):
    design_id = _design(alpha, "Big design")
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [_add_text("title", "Report")]}), 200)
    before = alpha.data(alpha.get(f"/designs/{design_id}"), 200)
    # 51 texts of 99,000 characters: each within its limit, 5.05 MB together.
    actions = [_add_text(f"part{n}", f"{n:03d} " + "lorem ipsum " * 8_250) for n in range(51)]
    response = alpha.patch(f"/designs/{design_id}/tree", json={"actions": actions})
    message = alpha.error(response, 400, "VALIDATION_ERROR")
    assert "a design holds at most 5,000,000" in message and "nothing was saved" in message
    after = alpha.data(alpha.get(f"/designs/{design_id}"), 200)
    assert after["fileSize"] == before["fileSize"] and after["modifiedAt"] == before["modifiedAt"]
    assert [node["name"] for node in alpha.get(f"/designs/{design_id}/tree").json()["nodes"].values()] == ["title"]
    # Fifty of them fit.
    saved = alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": actions[:50]}), 200)
    assert 4_900_000 < saved["fileSize"] <= 5_000_000


# Designs that are slow to check (Markdown the parser must read: ~1 s per 100,000 characters
# here), read by one workspace while another one asks who it is.

SLOW_MARKDOWN = "[" * 20 + "\\](x) "  # unclosed brackets and an escaped one: no link, much parsing


def _stored_slow_designs(service: Service, workspace, count: int, texts: int) -> list[str]:
    """Designs of `texts` slow Markdown texts each, written as stored trees: made through the
    API their texts would already be parsed, and kept, by the server that checked them."""
    tree, _ = engine.apply(engine.new_design(), [_add_text("t0", "x", markup="markdown")])
    stored = json.loads(tree.model_dump_json())
    ((node_id, node),) = stored["nodes"].items()
    page = stored["pages"][0]
    designs = []
    for number in range(count):
        design_id = service.designs.create(workspace, CreateDesignBody(name=f"slow {number}", size="A4"))["designId"]
        stored["nodes"], page["elements"] = {}, []
        for text in range(texts):
            content = f"design {number} text {text} " + SLOW_MARKDOWN * 3_600  # ~94,000 characters, each its own
            stored["nodes"][f"n{text}"] = {
                **node,
                "id": f"n{text}",
                "name": f"t{text}",
                "data": {**node["data"], "content": content},
            }
            page["elements"].append(f"n{text}")
        tree_json = json.dumps(stored)
        engine.DesignTree.model_validate_json(tree_json)  # as the server will read it
        with service.store.transaction() as cursor:
            cursor.execute(
                "UPDATE designs SET tree = ?, file_size = ? WHERE id = ?", [tree_json, len(tree_json), design_id]
            )
        designs.append(design_id)
    return designs


@pytest.mark.slow
def test_another_workspace_is_answered_while_big_designs_are_checked_and_patched(tmp_path: Path):
    service = Service(Settings(data_dir=tmp_path))
    reader, reader_key = service.accounts.create_workspace("reader", "pro", 10)
    _, victim_key = service.accounts.create_workspace("victim", "pro", 10)
    slow = _stored_slow_designs(service, reader, count=4, texts=3)
    small = service.designs.create(reader, CreateDesignBody(name="small", size="A4"))["designId"]
    service.close()
    server = Server(tmp_path).start()
    finished: list[tuple[str, int]] = []

    def request(method: str, path: str, body: dict | None = None) -> None:
        with httpx.Client(base_url=server.api, headers={"X-API-Key": reader_key}, timeout=300) as own:
            finished.append((path, own.request(method, path, json=body).status_code))

    story = {"actions": [_add_text("story", chinese(100_000, seed=31))]}
    work = [threading.Thread(target=request, args=("GET", f"/designs/{d}/variables")) for d in slow]
    work += [threading.Thread(target=request, args=("PATCH", f"/designs/{small}/tree", story))]
    try:
        with server.client(victim_key) as victim:
            victim.data(victim.get("/me"), 200)
            for thread in work:
                thread.start()
            latencies = []
            while any(thread.is_alive() for thread in work):
                started = time.monotonic()
                victim.data(victim.get("/me"), 200)
                latencies.append(time.monotonic() - started)
            for thread in work:
                thread.join()
        wait_until(lambda: len(finished) == len(work), what="every request to answer")
        assert sorted(status for _, status in finished) == [200] * len(work), finished
        latencies.sort()
        print(
            f"GET /me while 4 slow designs are read: n={len(latencies)} "
            f"p50={latencies[len(latencies) // 2] * 1000:.0f} ms max={latencies[-1] * 1000:.0f} ms"
        )
        # Before, the designs were checked on the threads that authenticate requests: /me waited
        # for the first of them to finish, many seconds.
        assert len(latencies) > 5 and latencies[-1] < 2.0, latencies[-5:]
    finally:
        server.stop()
