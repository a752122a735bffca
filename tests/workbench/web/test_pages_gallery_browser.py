"""Issue 14 in a real headless Chromium: safe pages (the new page shown, removal confirmed,
undo with the paint order), the paper's name, the gallery's duplicate, delete and templates,
trying values before spending a credit, and a server that stops cleanly with an editor open.

Every test also checks (in the `page` fixture) that the page logged no console error
and made no request that left the loopback server.
"""

from __future__ import annotations

import base64
import io
import signal
import uuid
from pathlib import Path

import httpx
import pytest
from PIL import Image, ImageChops
from playwright.sync_api import expect

from tests.pdf_probes import pdf_text

from ...browser import box, new_design, open_design, paint_order, sign_in, tree, wait_for
from ...conftest import add
from ...server import Server

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them


def page_count(api, design_id: str) -> int:
    return len(tree(api, design_id)["pages"])


def pages_tab(page) -> None:
    page.locator(".bk-tab", has_text="Pages").click()
    page.locator(".dbk-add-page button").wait_for()


def test_an_added_page_is_shown_and_removing_one_with_elements_asks_first(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: pages",
        [add("text", "finished", {"x": 60, "y": 60}, {"content": "The finished page"})],
        size="A4",
        orientation="landscape",
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    pages_tab(page)
    # The paper by its name, lengths to a tenth of a point, and the select on it.
    expect(page.locator(".dbk-paper")).to_contain_text("Paper: A4 landscape · 841.9 × 595.3 pt")
    expect(page.locator(".dbk-paper-size select")).to_have_value("A4")

    page.locator(".dbk-add-page button").click()
    wait_for(lambda: page_count(alpha_api, design_id) == 2, "the page added")
    expect(page.locator(".dbk-paper")).to_contain_text("Page 2")  # the new page is the one shown
    expect(box(page, "finished")).to_have_count(0)

    # The new page is empty: it goes at once.
    page.locator(".dbk-remove-page button").click()
    wait_for(lambda: page_count(alpha_api, design_id) == 1, "the empty page removed")
    expect(page.locator(".dbk-paper")).to_contain_text("Page 1")
    expect(box(page, "finished")).to_have_count(1)

    # The finished page has an element: the button asks first; Cancel keeps the page.
    page.locator(".dbk-add-page button").click()
    wait_for(lambda: page_count(alpha_api, design_id) == 2, "a page added again")
    expect(page.locator(".dbk-paper")).to_contain_text("Page 2")
    page.locator(".dbk-page-0 button").click()
    expect(page.locator(".dbk-paper")).to_contain_text("Page 1")
    page.locator(".dbk-remove-page button").click()
    expect(page.locator(".dbk-remove-ask")).to_contain_text("Remove page 1 and its 1 element?")
    page.locator(".dbk-remove-cancel button").click()
    expect(page.locator(".dbk-remove-page button")).to_be_visible()
    assert page_count(alpha_api, design_id) == 2 and paint_order(alpha_api, design_id, 0) == ["finished"]

    page.locator(".dbk-remove-page button").click()
    page.locator(".dbk-remove-confirm button").click()
    wait_for(lambda: page_count(alpha_api, design_id) == 1, "the page removed once confirmed")
    assert paint_order(alpha_api, design_id, 0) == []


def test_undoing_a_page_removal_restores_its_paint_order(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: undo a page",
        [
            add("text", "cover", {"x": 40, "y": 40}, {"content": "Cover"}),
            {"type": "add_page", "args": {}},
            add("shape", "a", {"x": 40, "y": 40, "w": 200, "h": 100}, page=1),
            add("shape", "b", {"x": 60, "y": 60, "w": 200, "h": 100}, page=1),
            add("text", "c", {"x": 80, "y": 80}, {"content": "C on top"}, page=1),
            {"type": "reorder_element", "args": {"name": "c", "to": "back"}},
        ],
    )
    assert paint_order(alpha_api, design_id, 1) == ["c", "a", "b"]
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    pages_tab(page)
    page.locator(".dbk-page-1 button").click()
    expect(page.locator(".dbk-paper")).to_contain_text("Page 2")
    page.locator(".dbk-remove-page button").click()
    expect(page.locator(".dbk-remove-ask")).to_contain_text("Remove page 2 and its 3 elements?")
    page.locator(".dbk-remove-confirm button").click()
    wait_for(lambda: page_count(alpha_api, design_id) == 1, "the page removed")

    page.locator(".dbk-undo button").click()
    wait_for(lambda: page_count(alpha_api, design_id) == 2, "the page back")
    assert paint_order(alpha_api, design_id, 1) == ["c", "a", "b"]
    assert paint_order(alpha_api, design_id, 0) == ["cover"]


def first_card(page):
    return page.locator(".dbk-card").first


def test_duplicate_and_delete_from_the_gallery(api_server, page, key, alpha_api):
    name = f"Gallery {uuid.uuid4().hex[:8]}"
    design_id = new_design(alpha_api, name, [add("text", "t", {"x": 40, "y": 40}, {"content": "Kept"})])
    sign_in(page, api_server, key)
    expect(first_card(page).locator(".dbk-card-name input")).to_have_value(name)  # newest first

    first_card(page).locator(".dbk-duplicate button").click()
    expect(first_card(page).locator(".dbk-card-name input")).to_have_value(f"{name} (copy)")
    names = {d["name"]: d["designId"] for d in alpha_api.data(alpha_api.get("/designs?limit=200"), 200)["items"]}
    copy_id = names[f"{name} (copy)"]
    assert copy_id != design_id and tree(alpha_api, copy_id)["nodes"]

    # Delete asks in the card; Cancel keeps the design.
    first_card(page).locator(".dbk-delete button").click()
    expect(first_card(page).locator(".dbk-delete-ask")).to_contain_text(f"Delete {name} (copy)?")
    first_card(page).locator(".dbk-delete-cancel button").click()
    expect(first_card(page).locator(".dbk-delete button")).to_be_visible()
    assert alpha_api.get(f"/designs/{copy_id}").status_code == 200

    first_card(page).locator(".dbk-delete button").click()
    first_card(page).locator(".dbk-delete-confirm button").click()
    expect(first_card(page).locator(".dbk-card-name input")).to_have_value(name)
    alpha_api.error(alpha_api.get(f"/designs/{copy_id}"), 404, "DESIGN_NOT_FOUND")
    assert alpha_api.get(f"/designs/{design_id}").status_code == 200  # the original stays


def test_start_from_a_template_and_generate_it(api_server, page, key, alpha_api):
    credits = alpha_api.data(alpha_api.get("/me"), 200)["credits"]
    sign_in(page, api_server, key)
    page.locator(".dbk-template select").select_option(label="Badge")
    page.locator(".dbk-template-create button").click()
    page.locator(".dbk-canvas .dbk-preview[src^='data:image/png']").wait_for()
    expect(box(page, "attendee")).to_have_count(1)
    expect(page.locator(".dbk-design-name input")).to_have_value("Badge")
    with page.expect_download() as download:
        page.locator(".dbk-generate button").click()
    text = " ".join(pdf_text(Path(download.value.path()).read_bytes()))
    assert "DocConf 2026" in text and "Grace Hopper" in text
    assert alpha_api.data(alpha_api.get("/me"), 200)["credits"] == credits - 1


def shown_png(page) -> Image.Image:
    src = page.locator(".dbk-canvas .dbk-preview").get_attribute("src")
    return Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGB")


def test_try_values_shows_them_watermarked_on_the_canvas_for_free(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: try values",
        [
            add("text", "recipient", {"x": 60, "y": 60}, {"content": "Sample Name"}, {"fontSize": 28}),
            add("text", "serial", {"x": 60, "y": 120}, {"content": "ROW-0"}),
            {"type": "bind_variable", "args": {"name": "recipient"}},
            {"type": "bind_variable", "args": {"name": "serial"}},
        ],
    )
    credits = alpha_api.data(alpha_api.get("/me"), 200)["credits"]
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    design_src = page.locator(".dbk-canvas .dbk-preview").get_attribute("src")
    page.locator(".bk-tab", has_text="Try values").click()
    page.locator(".dbk-try-paste textarea").fill("serial,recipient\nROW-42,Grace Hopper")
    page.locator(".dbk-try-fill button").click()
    expect(page.locator(".dbk-try-recipient input")).to_have_value("Grace Hopper")
    expect(page.locator(".dbk-try-serial input")).to_have_value("ROW-42")

    page.locator(".dbk-try-show button").click()
    wait_for(
        lambda: page.locator(".dbk-canvas .dbk-preview").get_attribute("src") != design_src, "the tried preview shown"
    )
    expect(page.locator(".alert", has_text="PREVIEW")).to_be_visible()  # marked as a try
    tried = shown_png(page)
    # What the canvas shows is the service's preview with these values: watermarked, free.
    expected = alpha_api.data(
        alpha_api.post(
            f"/designs/{design_id}/preview", json={"data": {"recipient": "Grace Hopper", "serial": "ROW-42"}}
        ),
        200,
    )
    served = Image.open(io.BytesIO(httpx.get(expected["previewUrl"]).content)).convert("RGB")
    assert ImageChops.difference(tried, served).getbbox() is None
    middle = (200, 450, 600, 700)  # empty on the design: the watermark's ink
    assert min(low for low, _ in tried.crop(middle).getextrema()) < 235
    assert alpha_api.data(alpha_api.get("/me"), 200)["credits"] == credits
    assert tree(alpha_api, design_id)["nodes"]  # nothing saved: the design keeps its samples
    saved = {n["name"]: n["data"]["content"] for n in tree(alpha_api, design_id)["nodes"].values()}
    assert saved == {"recipient": "Sample Name", "serial": "ROW-0"}

    page.locator(".dbk-try-back button").click()
    wait_for(lambda: page.locator(".dbk-canvas .dbk-preview").get_attribute("src") == design_src, "the design again")
    expect(page.locator(".alert", has_text="PREVIEW")).to_be_hidden()


def test_stopping_the_server_with_an_editor_open_prints_no_traceback(browser, tmp_path):
    server = Server(tmp_path)
    try:
        server.start()
        key = server.read_key()
        with server.client(key) as api:
            design_id = new_design(api, "Open while stopping", [add("text", "t", {"x": 40, "y": 40}, {"content": "x"})])
        # A context of its own: the page logs its lost connection, which the `page` fixture would fail on.
        context = browser.new_context(viewport={"width": 1500, "height": 950})
        try:
            page = context.new_page()
            sign_in(page, server, key)
            open_design(page, server, design_id)
            server.process.send_signal(signal.SIGINT)
            server.process.wait(timeout=30)
        finally:
            context.close()
    finally:
        server.stop()
    output = server.output()
    assert server.process.returncode == 0, output
    assert "docbench is stopping" in output
    assert "Traceback" not in output and "AssertionError" not in output, output
