"""Text typed on the canvas and where new elements land, in a real headless Chromium.

The `page` fixture also checks that the page logged no console error and made no request
that left the loopback server.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.pdf_probes import pdf_text

from ...browser import box, new_design, node, open_design, scale, select, sign_in, tree, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

A4_WIDTH = 595.28


def editing(page):
    return page.locator(".dbk-text-edit")


def start_editing(page, name: str) -> None:
    select(page, name)
    box(page, name).dblclick()
    expect(editing(page)).to_be_focused()


def test_type_on_the_canvas_press_enter_and_find_the_text_in_the_pdf(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: type on the canvas",
        [
            add(
                "text",
                "Title",
                {"x": 60, "y": 80},
                {"content": "Certificate"},
                {"fontSize": 20, "fontFamily": "Lora", "color": "#1a56db", "align": "left"},
            )
        ],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    start_editing(page, "Title")
    overlay = editing(page)
    # The overlay shows the text as the element sets it, at this zoom.
    expect(overlay).to_have_value("Certificate")
    font_px = float(overlay.evaluate("el => parseFloat(getComputedStyle(el).fontSize)"))
    assert abs(font_px - 20 * scale(page, A4_WIDTH)) < 0.5
    assert "Lora" in overlay.evaluate("el => getComputedStyle(el).fontFamily")
    # The face itself comes from the server (the catalog's TTF), not the generic family.
    page.wait_for_function("[...document.fonts].some((f) => f.family.includes('Lora') && f.status === 'loaded')")
    assert overlay.evaluate("el => getComputedStyle(el).color") == "rgb(26, 86, 219)"
    page.keyboard.type("Typed on the canvas")  # the whole text was selected: it is replaced
    page.keyboard.press("Enter")
    expect(overlay).to_have_count(0)
    wait_for(lambda: node(alpha_api, design_id, "Title")["data"]["content"] == "Typed on the canvas", "the typed text")
    with page.expect_download() as download:
        page.locator(".dbk-generate button").click()
    pdf = Path(download.value.path()).read_bytes()
    assert "Typed on the canvas" in " ".join(pdf_text(pdf))


def test_escape_cancels_and_keys_typed_meanwhile_are_not_shortcuts(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api, "Browser: escape", [add("text", "Note", {"x": 100, "y": 100}, {"content": "Keep me"})]
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    before = node(alpha_api, design_id, "Note")
    start_editing(page, "Note")
    # Each of these would be a gesture on the canvas: delete, nudge, undo, select all.
    for press in ("Delete", "Backspace", "ArrowRight", "Shift+ArrowDown", "Control+z", "Control+a"):
        page.keyboard.press(press)
    page.keyboard.type("Thrown away")
    page.keyboard.press("Escape")
    expect(editing(page)).to_have_count(0)
    # A nudge after it is saved in order after anything the editing could have sent.
    page.keyboard.press("ArrowRight")
    wait_for(lambda: node(alpha_api, design_id, "Note")["position"]["x"] == 101, "the nudge after Escape")
    after = node(alpha_api, design_id, "Note")
    assert after["data"] == before["data"]
    assert after["position"]["y"] == before["position"]["y"]
    assert "selected" in box(page, "Note").get_attribute("class")  # Escape left the selection alone


def test_shift_enter_is_a_new_line_and_one_undo_reverts_the_whole_edit(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api, "Browser: two lines", [add("text", "Address", {"x": 80, "y": 120}, {"content": "One line"})]
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    height = box(page, "Address").bounding_box()["height"]
    start_editing(page, "Address")
    page.keyboard.type("First street")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("Second town")
    expect(editing(page)).to_have_value("First street\nSecond town")  # still editing after Shift+Enter
    page.keyboard.press("Enter")
    wait_for(
        lambda: node(alpha_api, design_id, "Address")["data"]["content"] == "First street\nSecond town", "two lines"
    )
    wait_for(lambda: box(page, "Address").bounding_box()["height"] > height * 1.8, "the box two lines high")
    page.keyboard.press("Control+z")  # the canvas has the keys again
    wait_for(lambda: node(alpha_api, design_id, "Address")["data"]["content"] == "One line", "one undo")
    page.locator(".dbk-undo button").click()
    page.get_by_text("Nothing to undo.").wait_for()  # the edit was one step, not one per key


def test_a_locked_text_is_not_edited_on_the_canvas(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: locked text",
        [add("text", "Fixed", {"x": 100, "y": 100}, {"content": "Locked"}, isLocked=True)],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "Fixed")
    box(page, "Fixed").dblclick()
    page.keyboard.type("x")
    expect(editing(page)).to_have_count(0)
    assert node(alpha_api, design_id, "Fixed")["data"]["content"] == "Locked"


def visible_area(page) -> dict:
    """The part of the canvas the person sees, in screen pixels."""
    return page.locator(".dbk-canvas").evaluate(
        "el => { const r = el.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; }"
    )


def inside(inner: dict, outer: dict) -> bool:
    return (
        inner["x"] >= outer["x"]
        and inner["y"] >= outer["y"]
        and inner["x"] + inner["width"] <= outer["x"] + outer["w"]
        and inner["y"] + inner["height"] <= outer["y"] + outer["h"]
    )


def test_new_elements_land_in_the_visible_part_and_not_on_each_other(api_server, page, key, alpha_api):
    design_id = new_design(alpha_api, "Browser: landing")
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    for _ in range(5):  # zoomed in: only part of the page shows
        width = page.locator(".dbk-sheet").bounding_box()["width"]
        page.locator(".dbk-zoom-in button").click()
        wait_for(lambda width=width: page.locator(".dbk-sheet").bounding_box()["width"] > width * 1.2, "zoom in")
    canvas = page.locator(".dbk-canvas")
    centre = canvas.get_attribute("data-view-centre")
    canvas.evaluate("el => el.scrollTo(el.scrollWidth, el.scrollHeight * 0.6)")  # to the right, further down
    wait_for(lambda: canvas.get_attribute("data-view-centre") != centre, "the new view centre told to Python")
    s = scale(page, A4_WIDTH)
    view = visible_area(page)
    assert view["w"] / s < A4_WIDTH * 0.8  # the view shows only part of the page
    boxes = page.locator(".dbk-box")
    for count in (1, 2):
        page.locator(".dbk-add-shape button").click()
        wait_for(lambda count=count: boxes.count() == count, f"new shape {count} on the canvas")
    for i in range(2):
        assert inside(boxes.nth(i).bounding_box(), view), f"new shape {i + 1} lands in the visible part"
    first, second = (node(alpha_api, design_id, boxes.nth(i).get_attribute("data-name"))["position"] for i in (0, 1))
    assert (first["x"], first["y"]) != (second["x"], second["y"])
    assert first["x"] > A4_WIDTH / 2  # the right of the page, where the view was scrolled
    page_width = tree(alpha_api, design_id)["pages"][0]["width"]
    assert 0 <= first["x"] <= page_width - first["w"] and 0 <= second["x"] <= page_width - second["w"]
