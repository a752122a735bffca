"""Revisions and publishing (extensions.md 16) over REST and MCP, on both stores: every saved
change is a numbered revision, read, restored and published; generate and batch render the
published revision unless the body picks one; another workspace sees none of it."""

from __future__ import annotations

import httpx
import pytest

from tests.pdf_probes import all_text

from .. import mcp_calls
from ..conftest import add

KEEP = 100  # extensions.md 16: at least the last 100 revisions, and the published one
PRUNE_EVERY = 10  # older revisions are dropped at every 10th (api/service/revisions.py)


def text(name: str, content: str) -> dict:
    return add("text", name, {"x": 40, "y": 40}, data={"content": content})


def update(name: str, content: str) -> dict:
    return {"type": "update_element", "args": {"name": name, "data": {"content": content}}}


def new_design(client, name: str = "Revisions") -> str:
    return client.data(client.post("/designs", json={"name": name}), 201)["designId"]


def patch(client, design_id: str, *actions: dict) -> dict:
    return client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": list(actions)}), 200)


def revisions(client, design_id: str, **query) -> dict:
    return client.data(client.get(f"/designs/{design_id}/revisions", params=query), 200)


def generated_text(client, design_id: str, **body) -> tuple[str, dict]:
    result = client.data(client.post(f"/designs/{design_id}/generate", json=body), 201)
    pdf = httpx.get(result["downloadUrl"], timeout=60)
    assert pdf.status_code == 200
    return all_text(pdf.content), result


def test_every_saved_change_is_a_revision_newest_first_with_its_source_and_summary(alpha):
    design_id = new_design(alpha)
    saved = patch(alpha, design_id, text("title", "Hello"), text("logo", "L"))
    assert saved["revision"] == 2
    assert patch(alpha, design_id, update("title", "Bye"))["revision"] == 3
    page = revisions(alpha, design_id)
    assert page["nextCursor"] is None
    assert [(r["revision"], r["source"], r["published"]) for r in page["items"]] == [
        (3, "api", False),
        (2, "api", False),
        (1, "api", False),
    ]
    assert page["items"][0]["summary"] == "update_element 'title'"
    assert page["items"][1]["summary"] == "add_element text 'title'; add_element text 'logo'"
    assert page["items"][2]["summary"] == "create_design"
    assert page["items"][0]["createdAt"] >= page["items"][2]["createdAt"]


def test_a_long_batch_of_actions_is_summarised_in_a_line(alpha):
    design_id = new_design(alpha)
    patch(alpha, design_id, *[text(f"element-{i}", "x") for i in range(40)])
    summary = revisions(alpha, design_id)["items"][0]["summary"]
    assert summary.startswith("add_element text 'element-0'; add_element text 'element-1'")
    assert len(summary) <= 240 and summary.endswith("more)")


def test_revisions_page_with_a_cursor_without_gaps_or_repeats(alpha):
    design_id = new_design(alpha)
    for i in range(4):
        patch(alpha, design_id, text(f"t{i}", "x"))
    first = revisions(alpha, design_id, limit=2)
    patch(alpha, design_id, text("meanwhile", "x"))  # a save while paging shifts no page
    second = revisions(alpha, design_id, limit=2, cursor=first["nextCursor"])
    third = revisions(alpha, design_id, limit=2, cursor=second["nextCursor"])
    numbers = [r["revision"] for p in (first, second, third) for r in p["items"]]
    assert numbers == [5, 4, 3, 2, 1]
    assert third["nextCursor"] is None
    alpha.error(alpha.get(f"/designs/{design_id}/revisions", params={"cursor": "nonsense"}), 400, "VALIDATION_ERROR")


def test_a_revision_tree_is_the_tree_as_that_save_left_it(alpha):
    design_id = new_design(alpha)
    patch(alpha, design_id, text("title", "First"))
    patch(alpha, design_id, update("title", "Second"), text("more", "x"))
    old = alpha.get(f"/designs/{design_id}/revisions/2/tree")
    assert old.status_code == 200
    assert {n["name"]: n["data"]["content"] for n in old.json()["nodes"].values()} == {"title": "First"}
    latest = alpha.get(f"/designs/{design_id}/revisions/3/tree").json()
    assert latest == alpha.get(f"/designs/{design_id}/tree").json()


def test_restore_makes_a_new_revision_equal_to_n(alpha):
    design_id = new_design(alpha)
    patch(alpha, design_id, text("title", "First"))
    patch(alpha, design_id, update("title", "Second"))
    restored = alpha.data(alpha.post(f"/designs/{design_id}/revisions/2/restore"), 200)
    assert restored["revision"] == 4 and restored["restoredFrom"] == 2
    tree = alpha.get(f"/designs/{design_id}/tree").json()
    assert tree == alpha.get(f"/designs/{design_id}/revisions/2/tree").json()
    assert tree == alpha.get(f"/designs/{design_id}/revisions/4/tree").json()
    newest = revisions(alpha, design_id)["items"][0]
    assert (newest["revision"], newest["source"], newest["summary"]) == (4, "restore", "restore revision 2")
    # the history is kept: revision 3 is still there
    assert alpha.get(f"/designs/{design_id}/revisions/3/tree").status_code == 200


def test_once_published_generate_renders_the_published_revision_and_latest_the_draft(alpha):
    design_id = new_design(alpha)
    patch(alpha, design_id, text("title", "Approved wording"))
    published = alpha.data(alpha.post(f"/designs/{design_id}/publish", json={}), 200)
    assert published == {"designId": design_id, "publishedRevision": 2}
    patch(alpha, design_id, update("title", "Half-finished edit"))
    shown, result = generated_text(alpha, design_id)
    assert "Approved wording" in shown and "Half-finished" not in shown
    assert result["revision"] == 2
    shown, result = generated_text(alpha, design_id, revision="latest")
    assert "Half-finished edit" in shown and result["revision"] == 3
    shown, result = generated_text(alpha, design_id, revision=1)
    assert "Approved" not in shown and result["revision"] == 1
    listed = revisions(alpha, design_id)["items"]
    assert [r["revision"] for r in listed if r["published"]] == [2]


def test_before_publishing_generate_renders_the_latest_tree(alpha):
    design_id = new_design(alpha)
    patch(alpha, design_id, text("title", "Draft one"))
    patch(alpha, design_id, update("title", "Draft two"))
    shown, result = generated_text(alpha, design_id)
    assert "Draft two" in shown and result["revision"] == 3


def test_unpublish_returns_generation_to_the_latest_tree(alpha):
    design_id = new_design(alpha)
    patch(alpha, design_id, text("title", "Old"))
    alpha.data(alpha.post(f"/designs/{design_id}/publish", json={"revision": 1}), 200)
    patch(alpha, design_id, update("title", "New"))
    assert generated_text(alpha, design_id)[1]["revision"] == 1
    unpublished = alpha.data(alpha.delete(f"/designs/{design_id}/publish"), 200)
    assert unpublished == {"designId": design_id, "publishedRevision": None}
    shown, result = generated_text(alpha, design_id)
    assert "New" in shown and result["revision"] == 3
    assert not any(r["published"] for r in revisions(alpha, design_id)["items"])


def test_a_batch_renders_the_published_revision_and_reports_it(alpha):
    design_id = new_design(alpha)
    patch(alpha, design_id, text("title", "Published"))
    alpha.data(alpha.post(f"/designs/{design_id}/publish", json={}), 200)
    patch(alpha, design_id, update("title", "Draft"))
    submitted = alpha.data(alpha.post(f"/designs/{design_id}/batch", json={"rows": [{}]}), 202)
    assert submitted["revision"] == 2
    assert alpha.ended_batch(submitted["jobId"])["revision"] == 2
    latest = alpha.data(alpha.post(f"/designs/{design_id}/batch", json={"rows": [{}], "revision": "latest"}), 202)
    assert latest["revision"] == 3
    assert alpha.ended_batch(latest["jobId"])["revision"] == 3
    unknown = alpha.post(f"/designs/{design_id}/batch", json={"rows": [{}], "revision": 42})
    assert "revision '42'" in alpha.error(unknown, 404, "REVISION_NOT_FOUND")


def test_an_unknown_revision_is_404_revision_not_found_everywhere(alpha):
    design_id = new_design(alpha)
    for bad in ("7", "0", "abc", "1.5", "9" * 4400):  # past int()'s digit limit: still a 404
        message = alpha.error(alpha.get(f"/designs/{design_id}/revisions/{bad}/tree"), 404, "REVISION_NOT_FOUND")
        assert "revisions lists those kept" in message
        alpha.error(alpha.post(f"/designs/{design_id}/revisions/{bad}/restore"), 404, "REVISION_NOT_FOUND")
    alpha.error(alpha.post(f"/designs/{design_id}/publish", json={"revision": 7}), 404, "REVISION_NOT_FOUND")
    alpha.error(alpha.post(f"/designs/{design_id}/generate", json={"revision": 7}), 404, "REVISION_NOT_FOUND")
    # nothing changed on the way
    assert [r["revision"] for r in revisions(alpha, design_id)["items"]] == [1]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("publish", {"revision": "2"}),
        ("publish", {"revision": 0}),
        ("publish", {"revision": True}),
        ("generate", {"revision": "newest"}),
        ("generate", {"revision": 0}),
    ],
)
def test_a_revision_that_is_not_a_number_or_latest_is_refused(alpha, path, body):
    design_id = new_design(alpha)
    message = alpha.error(alpha.post(f"/designs/{design_id}/{path}", json=body), 400, "VALIDATION_ERROR")
    assert "revision" in message


def test_another_workspace_gets_404_on_every_revision_route(alpha, beta):
    design_id = new_design(alpha)
    patch(alpha, design_id, text("title", "Mine"))
    base = f"/designs/{design_id}"
    for response in (
        beta.get(f"{base}/revisions"),
        beta.get(f"{base}/revisions/1/tree"),
        beta.post(f"{base}/revisions/1/restore"),
        beta.post(f"{base}/publish", json={}),
        beta.delete(f"{base}/publish"),
        beta.post(f"{base}/generate", json={"revision": 1}),
        beta.patch(f"{base}/tree", json={"actions": [update("title", "Theirs")]}),  # after alpha's patches
    ):
        beta.error(response, 404, "DESIGN_NOT_FOUND")
    # and nothing of alpha's changed
    page = revisions(alpha, design_id)
    assert [r["revision"] for r in page["items"]] == [2, 1] and not any(r["published"] for r in page["items"])


def test_pruning_keeps_the_last_100_revisions_and_the_published_one(alpha):
    design_id = new_design(alpha)
    patch(alpha, design_id, text("counter", "0"))
    alpha.data(alpha.post(f"/designs/{design_id}/publish", json={}), 200)  # revision 2
    latest = KEEP + PRUNE_EVERY + 2  # revision 110 pruned what came before 11
    for number in range(3, latest + 1):
        patch(alpha, design_id, update("counter", str(number)))
    kept = []
    query: dict = {"limit": 200}
    while True:
        page = revisions(alpha, design_id, **query)
        kept += [r["revision"] for r in page["items"]]
        if page["nextCursor"] is None:
            break
        query["cursor"] = page["nextCursor"]
    assert kept[:KEEP] == list(range(latest, latest - KEEP, -1))  # at least the last 100
    oldest = latest - latest % PRUNE_EVERY - KEEP + 1  # revision 110 dropped those before 11 ...
    assert kept == [*range(latest, oldest - 1, -1), 2]  # ... but the published one
    assert alpha.get(f"/designs/{design_id}/revisions/2/tree").status_code == 200
    alpha.error(alpha.get(f"/designs/{design_id}/revisions/3/tree"), 404, "REVISION_NOT_FOUND")
    assert "0" in generated_text(alpha, design_id)[0]  # the published one still renders


def test_duplicate_starts_its_own_history(alpha):
    design_id = new_design(alpha)
    patch(alpha, design_id, text("title", "x"))
    copy = alpha.data(alpha.post(f"/designs/{design_id}/duplicate", json={}), 201)["designId"]
    items = revisions(alpha, copy)["items"]
    assert [(r["revision"], r["summary"]) for r in items] == [(1, f"duplicate_design of {design_id} revision 2")]


def test_mcp_lists_restores_and_publishes_revisions_marked_mcp(api_server):
    key = api_server.workspaces["alpha"][1]

    async def script(session):
        call = session.call_tool
        design_id = mcp_calls.ok(await call("create_design", {"name": "Via MCP"}))["designId"]
        saved = mcp_calls.ok(
            await call("patch_design_tree", {"designId": design_id, "actions": [text("title", "Approved")]})
        )
        published = mcp_calls.ok(await call("publish_design", {"designId": design_id}))
        await call("patch_design_tree", {"designId": design_id, "actions": [update("title", "Draft")]})
        restored = mcp_calls.ok(await call("restore_revision", {"designId": design_id, "revision": "1"}))
        listed = mcp_calls.ok(await call("list_revisions", {"designId": design_id, "limit": 10}))
        missing = mcp_calls.failed(
            await call("restore_revision", {"designId": design_id, "revision": "99"}), "REVISION_NOT_FOUND"
        )
        generated = mcp_calls.ok(await call("generate_pdf", {"designId": design_id}))
        unpublished = mcp_calls.ok(await call("unpublish_design", {"designId": design_id}))
        return design_id, saved, published, restored, listed, missing, generated, unpublished

    design_id, saved, published, restored, listed, missing, generated, unpublished = mcp_calls.run(
        api_server, key, script
    )
    assert saved["revision"] == 2 and published["publishedRevision"] == 2
    assert restored == {**restored, "revision": 4, "restoredFrom": 1}
    assert [(r["revision"], r["source"], r["published"]) for r in listed["items"]] == [
        (4, "restore", False),
        (3, "mcp", False),
        (2, "mcp", True),
        (1, "mcp", False),
    ]
    assert "99" in missing
    assert generated["revision"] == 2
    assert unpublished["publishedRevision"] is None
