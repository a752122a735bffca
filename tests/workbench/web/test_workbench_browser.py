"""The workbench in a real headless Chromium: sign-in, designs, the canvas, panels, generate.

Every test also checks (in the `page` fixture) that the page logged no console error
and made no request that left the loopback server.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.pdf_probes import pdf_text
from workbench.samples import certificate_actions, logo_png

from ...browser import (
    ARTIFACTS,
    FILLED,
    box,
    drag,
    new_design,
    node,
    open_design,
    painted,
    scale,
    select,
    sign_in,
    tree,
    wait_for,
)
from ...conftest import add, png

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them


def test_the_link_serve_prints_signs_in_once(api_server, page, browser):
    link = re.search(r"(http://\S+/signin\?token=\S+)", api_server.output()).group(1)
    page.goto(link)
    page.locator(".dbk-create button").wait_for()
    expect(page.locator(".dbk-bar")).to_contain_text("alpha")  # the bar may render after the form
    other = browser.new_context()
    try:
        second = other.new_page()
        second.goto(link)
        second.get_by_text("already used").wait_for()
        assert second.locator("input[name=api_key]").is_visible()
    finally:
        other.close()


def test_sign_in_with_a_key_and_a_wrong_key_is_refused(api_server, page, key):
    page.goto(api_server.url + "/")
    page.locator("input[name=api_key]").fill("dbk_live_wrong")
    page.locator(".dbk-signin button").click()
    page.get_by_text("was not accepted").wait_for()
    sign_in(page, api_server, key)
    page.locator(".dbk-gallery").wait_for()


def test_create_a_design_and_add_every_element_type(api_server, page, key, alpha_api):
    sign_in(page, api_server, key)
    page.locator(".dbk-new-name input").fill("Browser: every type")
    page.locator(".dbk-create button").click()
    page.locator(".dbk-canvas .dbk-preview[src^='data:image/png']").wait_for()
    design_id = re.search(r"design=(\w+)", page.url).group(1)
    kinds = ["text", "image", "table", "shape", "icon", "qr", "barcode"]
    for count, kind in enumerate(kinds, start=1):
        page.locator(f".dbk-add-{kind} button").click()
        wait_for(lambda count=count: page.locator(".dbk-box").count() == count, f"{kind} on the canvas")
    nodes = tree(alpha_api, design_id)["nodes"].values()
    assert sorted(n["type"] for n in nodes) == sorted(kinds)
    assert len({n["name"] for n in nodes}) == 7  # unique names
    assert alpha_api.data(alpha_api.get(f"/designs/{design_id}"), 200)["name"] == "Browser: every type"


def test_create_a_custom_size_design_with_enter_and_see_it_in_the_gallery(api_server, page, key, alpha_api):
    sign_in(page, api_server, key)
    page.locator(".dbk-new-paper select").select_option("Custom")
    assert page.locator(".dbk-new-orientation").is_hidden()
    page.locator(".dbk-new-width input").fill("300")
    page.locator(".dbk-new-height input").fill("200")
    page.locator(".dbk-new-name input").fill("Browser: label")
    page.locator(".dbk-new-name input").press("Enter")  # the whole form goes with the submit
    page.locator(".dbk-canvas .dbk-preview[src^='data:image/png']").wait_for()
    design_id = re.search(r"design=(\w+)", page.url).group(1)
    assert alpha_api.data(alpha_api.get(f"/designs/{design_id}"), 200)["name"] == "Browser: label"
    (only,) = tree(alpha_api, design_id)["pages"]
    assert (only["width"], only["height"]) == (300, 200)


def test_typing_in_the_properties_panel_changes_the_text(api_server, page, key, alpha_api):
    design_id = new_design(alpha_api, "Browser: type", [add("text", "Greeting", {"x": 60, "y": 60}, {"content": "Hi"})])
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "Greeting")
    content = page.locator(".dbk-properties textarea").first
    content.fill("Hello from the browser")
    content.press("Tab")
    wait_for(lambda: node(alpha_api, design_id, "Greeting")["data"]["content"] == "Hello from the browser", "content")


def test_drag_and_resize_reach_the_tree(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: drag",
        [
            add("shape", "Box", {"x": 100, "y": 100, "w": 120, "h": 80}, styles=FILLED),
            add("text", "Line", {"x": 100, "y": 400, "maxWidth": 150}, {"content": "Some words to wrap"}),
        ],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    s = scale(page, 595.28)
    select(page, "Box")
    drag(page, box(page, "Box"), 100, 50)
    wait_for(lambda: node(alpha_api, design_id, "Box")["position"]["x"] != 100, "the moved shape")
    moved = node(alpha_api, design_id, "Box")["position"]
    assert moved["x"] == pytest.approx(100 + 100 / s, abs=8) and moved["y"] == pytest.approx(100 + 50 / s, abs=8)
    handle = box(page, "Box").locator(".dbk-se")
    drag(page, handle, 60, 40)
    wait_for(lambda: node(alpha_api, design_id, "Box")["position"]["w"] != 120, "the resized shape")
    resized = node(alpha_api, design_id, "Box")["position"]
    assert resized["w"] > 150 and resized["h"] > 100
    select(page, "Line")
    drag(page, box(page, "Line").locator(".dbk-e"), 80, 30)
    wait_for(lambda: node(alpha_api, design_id, "Line")["position"].get("maxWidth") != 150, "the text width")
    line = node(alpha_api, design_id, "Line")["position"]
    assert line["maxWidth"] > 180 and set(line) <= {"x", "y", "maxWidth"}  # text takes a width only


def test_the_preview_changes_after_an_edit(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api, "Browser: preview", [add("shape", "Box", {"x": 50, "y": 50, "w": 100, "h": 60}, styles=FILLED)]
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    before = page.locator(".dbk-preview").get_attribute("src")
    select(page, "Box")
    page.keyboard.press("Shift+ArrowRight")
    wait_for(lambda: page.locator(".dbk-preview").get_attribute("src") != before, "a new preview")
    assert node(alpha_api, design_id, "Box")["position"]["x"] == 60


def test_upload_an_image_and_place_it(api_server, page, key, alpha_api, tmp_path):
    design_id = new_design(alpha_api, "Browser: image")
    image = tmp_path / "stamp.png"
    image.write_bytes(png((20, 120, 60, 255), (60, 60)))
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    page.locator(".bk-tab", has_text="Images").click()
    page.locator(".dbk-upload input[type=file]").set_input_files(str(image))
    row = page.locator(".dbk-asset", has_text="stamp.png")
    row.wait_for()
    row.locator(".dbk-place button").click()
    wait_for(lambda: tree(alpha_api, design_id)["nodes"], "the placed image")
    placed = next(iter(tree(alpha_api, design_id)["nodes"].values()))
    assert placed["type"] == "image" and placed["data"]["src"].startswith("assets:")


def test_bind_a_variable_and_generate_a_pdf(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api, "Browser: generate", [add("text", "recipient", {"x": 60, "y": 60}, {"content": "Grace Hopper"})]
    )
    credits = alpha_api.data(alpha_api.get("/me"), 200)["credits"]
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    page.locator(".bk-tab", has_text="Variables").click()
    page.locator(".dbk-bind input").first.check()
    wait_for(lambda: "recipient" in tree(alpha_api, design_id)["variables"], "the bound variable")
    with page.expect_download() as download:
        page.locator(".dbk-generate button").click()
    assert "/files/" in download.value.url  # the signed URL of the same server, not bytes over the websocket
    pdf = Path(download.value.path()).read_bytes()
    assert "Grace Hopper" in " ".join(pdf_text(pdf))
    assert alpha_api.data(alpha_api.get("/me"), 200)["credits"] == credits - 1
    page.locator(".dbk-credits", has_text=str(credits - 1)).wait_for()


def test_the_generate_options_add_a_watermark_and_a_password(api_server, page, key, alpha_api):
    import io

    import pikepdf

    memo = add("text", "title", {"x": 60, "y": 60}, {"content": "Memo"})
    design_id = new_design(alpha_api, "Browser: options", [memo])
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    page.locator(".dbk-pdf-options-toggle button").click()
    page.locator(".dbk-pdf-watermark input").fill("DRAFT")
    page.locator(".dbk-pdf-watermark input").press("Enter")
    page.locator(".dbk-pdf-password input").fill("open-sesame")
    page.locator(".dbk-pdf-password input").press("Enter")
    with page.expect_download() as download:
        page.locator(".dbk-generate button").click()
    pdf = Path(download.value.path()).read_bytes()
    with pikepdf.open(io.BytesIO(pdf), password="open-sesame") as document:
        assert document.is_encrypted and document.encryption.R == 6
        plain = io.BytesIO()
        document.save(plain)
    assert "DRAFT" in pdf_text(plain.getvalue())[0] and "Memo" in pdf_text(plain.getvalue())[0]
    page.locator(".alert-success", has_text="watermark “DRAFT”, password; 1 credit").wait_for()


def test_a_burst_of_nudges_is_saved_in_order_and_the_canvas_ends_where_the_server_has_it(
    api_server, page, key, alpha_api
):
    design_id = new_design(
        alpha_api, "Browser: burst", [add("shape", "Box", {"x": 50, "y": 50, "w": 100, "h": 60}, styles=FILLED)]
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "Box")

    def shown_x() -> float:  # in points, from the page's left edge
        return (box(page, "Box").bounding_box()["x"] - page.locator(".dbk-sheet").bounding_box()["x"]) / scale(
            page, 595.28
        )

    for _ in range(6):  # as fast as the keyboard goes: each one a message, none waits for the last
        page.keyboard.press("Shift+ArrowRight")
    wait_for(lambda: node(alpha_api, design_id, "Box")["position"]["x"] == 110, "six nudges of 10 pt saved")
    wait_for(lambda: abs(shown_x() - 110) < 1, "the box where it was saved")
    page.locator(".dbk-undo button").click()
    wait_for(lambda: node(alpha_api, design_id, "Box")["position"]["x"] == 100, "one undo: one nudge back")


def test_undo_and_redo_in_the_editor(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api, "Browser: undo", [add("shape", "Box", {"x": 50, "y": 50, "w": 100, "h": 60}, styles=FILLED)]
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "Box")
    for expected in (60, 70, 80):
        page.keyboard.press("Shift+ArrowRight")
        wait_for(lambda expected=expected: node(alpha_api, design_id, "Box")["position"]["x"] == expected, "a nudge")
    for expected in (70, 60, 50):
        page.locator(".dbk-undo button").click()
        wait_for(lambda expected=expected: node(alpha_api, design_id, "Box")["position"]["x"] == expected, "undo")
    page.locator(".dbk-redo button").click()
    wait_for(lambda: node(alpha_api, design_id, "Box")["position"]["x"] == 60, "redo")
    select(page, "Box")
    page.keyboard.press("Delete")
    wait_for(lambda: not tree(alpha_api, design_id)["nodes"], "the deletion")
    page.keyboard.press("Control+z")
    wait_for(lambda: tree(alpha_api, design_id)["nodes"], "the element back")
    assert node(alpha_api, design_id, "Box")["position"]["x"] == 60


def test_a_change_over_the_api_shows_within_two_seconds(api_server, page, key, alpha_api):
    import time

    design_id = new_design(alpha_api, "Browser: live", [add("shape", "Box", {"x": 50, "y": 50, "w": 100, "h": 60})])
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    left = box(page, "Box").bounding_box()["x"]
    update = {"type": "update_element", "args": {"name": "Box", "position": {"x": 300}}}
    alpha_api.data(alpha_api.patch(f"/designs/{design_id}/tree", json={"actions": [update]}), 200)
    saved = time.monotonic()
    wait_for(lambda: box(page, "Box").bounding_box()["x"] > left + 100, "the API's change", timeout=2.0)
    assert time.monotonic() - saved < 2.0


def test_locked_elements_do_not_move_and_hidden_ones_show_faintly(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: flags",
        [
            add("shape", "Fixed", {"x": 50, "y": 50, "w": 100, "h": 60}, styles=FILLED, isLocked=True),
            add("shape", "Ghost", {"x": 50, "y": 200, "w": 100, "h": 60}, isHidden=True),
        ],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    assert "hidden-element" in box(page, "Ghost").get_attribute("class")
    drag(page, box(page, "Fixed"), 120, 0)
    page.keyboard.press("Shift+ArrowRight")
    assert node(alpha_api, design_id, "Fixed")["position"]["x"] == 50


def test_the_layer_list_locks_hides_and_reorders(api_server, page, key, alpha_api):
    """The layer list's buttons and drag each reach the tree as one message (docs/editor-state.md)."""
    design_id = new_design(
        alpha_api,
        "Browser: layers",
        [
            add("shape", "Back", {"x": 50, "y": 50, "w": 100, "h": 60}),
            add("shape", "Front", {"x": 80, "y": 80, "w": 100, "h": 60}),
        ],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)

    def row(name: str):
        return page.locator(f".dbk-layer[data-name='{name}']")

    def paint_order() -> list[str]:
        saved = tree(alpha_api, design_id)
        return [saved["nodes"][i]["name"] for i in saved["pages"][0]["elements"]]

    expect(page.locator(".dbk-layer")).to_have_count(2)
    assert [r.get_attribute("data-name") for r in page.locator(".dbk-layer").all()] == ["Front", "Back"]
    row("Back").locator(".dbk-lock").click()
    wait_for(lambda: node(alpha_api, design_id, "Back").get("isLocked") is True, "the lock saved")
    expect(row("Back").locator(".dbk-lock")).to_have_attribute("title", "Unlock")
    row("Front").locator(".dbk-eye").click()
    wait_for(lambda: node(alpha_api, design_id, "Front").get("isHidden") is True, "the hiding saved")
    wait_for(lambda: "hidden-element" in (box(page, "Front").get_attribute("class") or ""), "the box shown faintly")
    row("Back").drag_to(row("Front"))
    wait_for(lambda: paint_order() == ["Front", "Back"], "Back moved to the front")
    expect(page.locator(".dbk-layer").first).to_have_attribute("data-name", "Back")


def test_screenshot_of_the_editor_with_a_certificate(api_server, page, key, alpha_api):
    files = {"file": ("logo.png", logo_png(), "image/png")}
    logo = alpha_api.data(alpha_api.post("/assets", files=files, data={"name": "Logo"}), 201)["ref"]
    design_id = new_design(
        alpha_api, "Certificate of excellence", certificate_actions(logo), size="A4", orientation="landscape"
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "recipient")
    before = painted(page)
    assert before >= 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "editor-certificate.png"))
    assert (ARTIFACTS / "editor-certificate.png").stat().st_size > 20_000


def test_rubber_band_copy_paste_and_zoom(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: band",
        [
            add("shape", "A", {"x": 50, "y": 50, "w": 60, "h": 40}),
            add("shape", "B", {"x": 150, "y": 60, "w": 60, "h": 40}),
            add("shape", "Far", {"x": 400, "y": 700, "w": 60, "h": 40}),
        ],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    sheet = page.locator(".dbk-sheet").bounding_box()
    s = scale(page, 595.28)
    page.mouse.move(sheet["x"] + 30 * s, sheet["y"] + 30 * s)
    page.mouse.down()
    page.mouse.move(sheet["x"] + 260 * s, sheet["y"] + 140 * s, steps=6)
    page.mouse.up()
    wait_for(lambda: page.locator(".dbk-box.selected").count() == 2, "two boxes in the band")
    assert "selected" not in box(page, "Far").get_attribute("class")
    page.keyboard.press("Control+c")
    page.keyboard.press("Control+v")
    wait_for(lambda: len(tree(alpha_api, design_id)["nodes"]) == 5, "the pasted copies")
    copy = node(alpha_api, design_id, "A copy")
    assert copy["position"]["x"] == 62 and copy["position"]["y"] == 62
    width = page.locator(".dbk-sheet").bounding_box()["width"]
    page.locator(".dbk-zoom-in button").click()
    wait_for(lambda: page.locator(".dbk-sheet").bounding_box()["width"] > width * 1.2, "zoom in")
    page.locator(".dbk-zoom-100 button").click()
    wait_for(lambda: abs(page.locator(".dbk-sheet").bounding_box()["width"] - 595.28 * 96 / 72) < 2, "100 %")
