"""What the editor's history and Publish dialog read over the API (extensions.md 16): a kept
revision's page picture (GET /designs/:id/preview?revision=n) and what the draft changes against
the published revision (GET /designs/:id/publish), on both stores, over real HTTP and MCP."""

from __future__ import annotations

import io

import httpx
from PIL import Image

from tests.mcp_calls import ok, run
from tests.pdf_probes import ink_ratio

from ..conftest import action, add

BOX = {"x": 40, "y": 40}


def design_with_title(client) -> str:
    design_id = client.data(client.post("/designs", json={"name": "Letter"}), 201)["designId"]
    title = add("text", "title", BOX, {"content": "Hello"}, {"fontSize": 28})
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": [title]}), 200)
    return design_id


def patch(client, design_id: str, *actions: dict) -> int:
    return client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": list(actions)}), 200)["revision"]


def ink(client, design_id: str, **query) -> float:
    answer = client.data(client.get(f"/designs/{design_id}/preview", params=query), 200)
    return ink_ratio(Image.open(io.BytesIO(httpx.get(answer["previewUrl"]).content)))


def test_a_kept_revision_previews_as_it_was_saved(alpha):
    design_id = design_with_title(alpha)
    blank = 1  # the design as created: an empty page
    patch(alpha, design_id, action("remove_element", name="title"))
    assert ink(alpha, design_id) == 0  # the saved tree: empty again
    assert ink(alpha, design_id, revision=2) > 0  # revision 2 still has the title
    assert ink(alpha, design_id, revision=blank) == 0
    missing = alpha.get(f"/designs/{design_id}/preview", params={"revision": 99})
    alpha.error(missing, 404, "REVISION_NOT_FOUND")
    bad = alpha.get(f"/designs/{design_id}/preview", params={"revision": 0})
    alpha.error(bad, 400, "VALIDATION_ERROR")


def test_publish_state_lists_what_the_draft_adds_removes_and_changes(alpha):
    design_id = design_with_title(alpha)
    patch(alpha, design_id, add("text", "footer", {**BOX, "y": 700}, {"content": "Bye"}))
    state = alpha.data(alpha.get(f"/designs/{design_id}/publish"), 200)
    assert state == {
        "designId": design_id,
        "publishedRevision": None,
        "latestRevision": 3,
        "differs": False,
        "changes": None,
    }
    alpha.data(alpha.post(f"/designs/{design_id}/publish", json={}), 200)
    state = alpha.data(alpha.get(f"/designs/{design_id}/publish"), 200)
    assert (state["publishedRevision"], state["differs"]) == (3, False)
    assert state["changes"] == {"added": [], "removed": [], "changed": [], "other": []}
    patch(
        alpha,
        design_id,
        action("update_element", name="title", data={"content": "Hello again"}),
        action("remove_element", name="footer"),
        add("text", "note", {**BOX, "y": 300}, {"content": "New"}),
        action("add_page"),
    )
    state = alpha.data(alpha.get(f"/designs/{design_id}/publish"), 200)
    changes = state["changes"]
    assert (state["publishedRevision"], state["latestRevision"], state["differs"]) == (3, 4, True)
    assert [(e["name"], e["type"]) for e in changes["added"]] == [("note", "text")]
    assert [e["name"] for e in changes["removed"]] == ["footer"]
    assert [(e["name"], e["parts"]) for e in changes["changed"]] == [("title", ["data"])]
    assert changes["other"] == ["page 2 added"]


def test_publish_state_and_revision_previews_stay_in_their_workspace(alpha, beta):
    design_id = design_with_title(alpha)
    beta.error(beta.get(f"/designs/{design_id}/publish"), 404, "DESIGN_NOT_FOUND")
    theirs = beta.get(f"/designs/{design_id}/preview", params={"revision": 1})
    beta.error(theirs, 404, "DESIGN_NOT_FOUND")


def test_publish_state_over_mcp(api_server, alpha):
    design_id = design_with_title(alpha)
    alpha.data(alpha.post(f"/designs/{design_id}/publish", json={}), 200)
    patch(alpha, design_id, action("update_element", name="title", position={"x": 80}))

    async def script(session):
        return ok(await session.call_tool("get_publish_state", {"designId": design_id}))

    state = run(api_server, api_server.workspaces["alpha"][1], script)
    assert state["differs"] is True
    assert [(e["name"], e["parts"]) for e in state["changes"]["changed"]] == [("title", ["position"])]
