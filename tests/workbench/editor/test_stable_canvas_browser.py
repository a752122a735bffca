"""Issue 35, point 4, in a real headless Chromium at 1440×900: the canvas stays put. Selecting,
a message, the font list and PDF options leave the page where it is on screen; the wheel pans
the canvas and never the window; Fit shows the whole page.

Every test also checks (in the `page` fixture) that the page logged no console error
and made no request that left the loopback server.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ...browser import FILLED, box, new_design, open_design, select, sign_in, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

ROUND_TRIP_MS = 15_000
A4_WIDTH = 595.28
DESIGN = [
    add("text", "title", {"x": 60, "y": 60, "maxWidth": 400}, {"content": "Certificate of merit"}),
    add("shape", "A", {"x": 40, "y": 300, "w": 100, "h": 40}, styles=FILLED),
    add("shape", "B", {"x": 200, "y": 400, "w": 100, "h": 40}, styles=FILLED),
]
WINDOW_SCROLL = "() => document.scrollingElement.scrollTop"
# Two frames: whatever a change makes the page lay out or the canvas refit (a ResizeObserver)
# has been drawn by then.
DRAWN = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def open_editor(page, api_server, key, api, size=(1440, 900)) -> dict:
    """The editor at `size`, the design above open; the page's box on screen once it is fitted."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    design_id = new_design(api, "Browser: stable canvas", DESIGN)
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    wait_for(lambda: readout_matches_the_sheet(page), "the zoom readout at the fitted zoom")
    return settled(page)


def readout_matches_the_sheet(page) -> bool:
    """Whether the header's % is the zoom the sheet is drawn at (100 % = 96 px per inch)."""
    shown = page.locator(".dbk-zoom-value").inner_text()
    drawn = page.locator(".dbk-sheet").bounding_box()["width"] / A4_WIDTH / (96 / 72) * 100
    return shown.endswith("%") and abs(int(shown[:-1]) - drawn) <= 1


def settled(page) -> dict:
    page.evaluate(DRAWN)
    return page.locator(".dbk-sheet").bounding_box()


def assert_in_place(page, before: dict) -> None:
    after = settled(page)
    moved = {k: round(after[k] - before[k], 1) for k in ("x", "y", "width", "height")}
    assert all(abs(d) <= 1 for d in moved.values()), f"the page moved or was resized on screen: {moved}"
    assert page.evaluate(WINDOW_SCROLL) == 0


def test_selecting_a_text_leaves_the_page_in_place(api_server, page, key, alpha_api):
    before = open_editor(page, api_server, key, alpha_api)
    select(page, "title")
    expect(page.locator(".dbk-tt-fontSize input")).to_be_visible()
    assert_in_place(page, before)


def test_selecting_two_elements_leaves_the_page_in_place(api_server, page, key, alpha_api):
    before = open_editor(page, api_server, key, alpha_api)
    box(page, "A").click()
    box(page, "title").click(modifiers=["Shift"])
    expect(page.locator(".dbk-hint")).to_have_text("2 elements selected.", timeout=ROUND_TRIP_MS)
    expect(page.locator(".dbk-align-left button")).to_be_visible()  # the Align bar
    expect(page.locator(".dbk-tt-fontSize input")).to_be_visible()  # and the text's styles
    assert_in_place(page, before)


def test_a_message_floats_over_the_canvas(api_server, page, key, alpha_api):
    before = open_editor(page, api_server, key, alpha_api)
    page.locator(".dbk-undo button").click()
    expect(page.locator(".alert", has_text="Nothing to undo.")).to_be_visible(timeout=ROUND_TRIP_MS)
    assert_in_place(page, before)


def test_pdf_options_float_under_the_header(api_server, page, key, alpha_api):
    before = open_editor(page, api_server, key, alpha_api)
    page.locator(".dbk-pdf-options-toggle button").click()
    expect(page.locator(".dbk-pdf-watermark input")).to_be_visible()
    assert_in_place(page, before)


def test_the_font_list_floats_over_the_canvas_and_keeps_the_zoom(api_server, page, key, alpha_api):
    open_editor(page, api_server, key, alpha_api)
    select(page, "title")
    zoom = page.locator(".dbk-zoom-value").inner_text()
    before = settled(page)
    page.locator(".dbk-tt-fontFamily button").click()
    expect(page.locator(".dbk-tt-fonts .dbk-option[data-value='Roboto']")).to_be_visible()
    assert_in_place(page, before)
    assert page.locator(".dbk-zoom-value").inner_text() == zoom


def test_the_wheel_pans_the_canvas_and_never_the_window(api_server, page, key, alpha_api):
    before = open_editor(page, api_server, key, alpha_api)
    for _ in range(3):
        page.locator(".dbk-zoom-in button").click()
    wait_for(lambda: page.locator(".dbk-sheet").bounding_box()["width"] > before["width"] * 1.9, "zoomed in")
    view = page.locator(".dbk-canvas").bounding_box()
    page.mouse.move(view["x"] + view["width"] / 2, view["y"] + view["height"] / 2)
    top = settled(page)["y"]
    for _ in range(8):  # past the page's bottom: the wheel stops at the canvas's edge
        page.mouse.wheel(0, 400)
    wait_for(lambda: page.locator(".dbk-sheet").bounding_box()["y"] < top - 300, "the page panned up")
    page.evaluate(DRAWN)
    assert page.evaluate(WINDOW_SCROLL) == 0
    assert page.locator(".dbk-canvas").bounding_box() == view  # the canvas itself did not move

    zoom = page.locator(".dbk-zoom-value").inner_text()
    page.keyboard.down("Control")
    page.mouse.wheel(0, -300)
    page.keyboard.up("Control")
    expect(page.locator(".dbk-zoom-value")).not_to_have_text(zoom, timeout=ROUND_TRIP_MS)
    assert page.evaluate(WINDOW_SCROLL) == 0


@pytest.mark.parametrize("size", [(1440, 900), (1280, 720), (1920, 1080)])
def test_fit_shows_the_whole_a4_page_in_the_canvas(api_server, page, key, alpha_api, size):
    open_editor(page, api_server, key, alpha_api, size)
    readout = page.locator(".dbk-zoom-value")
    fitted = readout.inner_text()
    page.locator(".dbk-zoom-in button").click()
    expect(readout).not_to_have_text(fitted, timeout=ROUND_TRIP_MS)
    page.locator(".dbk-zoom-fit button").click()
    expect(readout).to_have_text(fitted, timeout=ROUND_TRIP_MS)
    sheet = settled(page)
    view = page.locator(".dbk-canvas").bounding_box()
    seen_bottom = min(view["y"] + view["height"], size[1])  # the canvas, as far as the window shows it
    seen_right = min(view["x"] + view["width"], size[0])
    assert view["y"] <= sheet["y"] and sheet["y"] + sheet["height"] <= seen_bottom + 0.5, (sheet, view)
    assert view["x"] <= sheet["x"] and sheet["x"] + sheet["width"] <= seen_right + 0.5, (sheet, view)
    assert sheet["height"] > 0.6 * (seen_bottom - view["y"])  # fitted, not merely small
    assert page.evaluate(WINDOW_SCROLL) == 0
