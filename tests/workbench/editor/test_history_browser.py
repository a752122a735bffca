"""Revisions and publishing in the editor (extensions.md 16), in a real headless Chromium at
1440x900: the History tab lists each save with a thumbnail of its page 1 and who made it;
Restore brings an older revision back onto the canvas as a new revision; "Publish" lists what
the draft changes against the published revision, and once confirmed generate renders it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ...browser import ARTIFACTS, box, new_design, node, open_design, select, sign_in, tree, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

FILLED = {"fill": "#1f5fbf"}


def revisions(api, design_id: str) -> list[dict]:
    return api.data(api.get(f"/designs/{design_id}/revisions"), 200)["items"]


def left(page, name: str) -> float:
    return box(page, name).bounding_box()["x"]


def nudged(page, api, design_id: str, x: float) -> None:
    """Shift+→ on the selected "card": 10 pt right, saved by the editor."""
    page.keyboard.press("Shift+ArrowRight")
    wait_for(lambda: node(api, design_id, "card")["position"]["x"] == x, f"card at x {x}")


def test_history_restore_and_publish(api_server, page, key, alpha_api):
    page.set_viewport_size({"width": 1440, "height": 900})
    design_id = new_design(
        alpha_api,
        "Browser: history",
        [add("shape", "card", {"x": 100, "y": 100, "w": 220, "h": 140}, styles=FILLED)],
    )  # revision 1: the blank page; revision 2: the card (source "api")
    alpha_api.data(alpha_api.post(f"/designs/{design_id}/publish", json={"revision": 2}), 200)
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    state = page.locator(".dbk-publish-state")
    expect(state).to_have_text("Published: revision 2")

    # An edit in the editor is revision 3, marked as the editor's, and the draft now differs.
    x_before = left(page, "card")
    select(page, "card")
    nudged(page, alpha_api, design_id, 110)
    assert [(r["revision"], r["source"]) for r in revisions(alpha_api, design_id)][:2] == [(3, "editor"), (2, "api")]
    expect(state).to_have_text("Draft differs from published")

    page.locator(".bk-tab", has_text="History").click()
    third = page.locator(".dbk-revision-3")
    expect(third).to_contain_text("Revision 3")
    expect(third).to_contain_text("editor")
    expect(third).to_contain_text("update_element 'card'")  # named, though the editor sent its id
    expect(page.locator(".dbk-revision-2 .dbk-published-badge")).to_have_text("Published")
    # Each revision's own page 1: the blank first revision's thumbnail is not the card's.
    thumbnails = {n: page.locator(f".dbk-revision-{n} img").get_attribute("src") for n in (1, 2)}
    assert all(src.startswith("data:image/png") for src in thumbnails.values())
    assert thumbnails[1] != thumbnails[2]

    # Restore revision 2: the canvas, the saved tree and the history follow at once.
    page.locator(".dbk-revision-2 .dbk-restore button").click()
    expect(page.locator(".dbk-revision-4")).to_contain_text("restore revision 2")
    wait_for(lambda: abs(left(page, "card") - x_before) < 1, "the card back where revision 2 had it")
    saved = alpha_api.get(f"/designs/{design_id}/revisions/2/tree").json()
    assert tree(alpha_api, design_id) == saved
    assert revisions(alpha_api, design_id)[0]["source"] == "restore"
    expect(state).to_have_text("Published: revision 2")  # the draft equals it again

    # Publish: the dialog names what the draft changes, and confirming publishes that draft.
    nudged(page, alpha_api, design_id, 110)  # revision 5
    page.locator(".dbk-publish button").click()
    dialog = page.locator(".dbk-publish-dialog")
    expect(dialog.locator(".dbk-diff-changed")).to_have_text("Changed: shape “card” (page 1): position or size")
    expect(dialog.locator(".dbk-diff-added")).to_have_count(0)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "editor-history.png"))
    dialog.locator(".dbk-publish-confirm button").click()
    expect(state).to_have_text("Published: revision 5")
    published = alpha_api.data(alpha_api.get(f"/designs/{design_id}/publish"), 200)
    assert published["publishedRevision"] == 5
    generated = alpha_api.data(alpha_api.post(f"/designs/{design_id}/generate", json={}), 201)
    assert generated["revision"] == 5

    # A later edit stays a draft: generate still renders revision 5 until Unpublish.
    nudged(page, alpha_api, design_id, 120)  # revision 6
    expect(state).to_have_text("Draft differs from published")
    assert alpha_api.data(alpha_api.post(f"/designs/{design_id}/generate", json={}), 201)["revision"] == 5
    page.locator(".dbk-publish button").click()
    dialog.locator(".dbk-unpublish button").click()
    expect(state).to_have_text("Not published")
    assert alpha_api.data(alpha_api.post(f"/designs/{design_id}/generate", json={}), 201)["revision"] == 6
