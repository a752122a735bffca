"""Arranging on the canvas in a real headless Chromium (issue 14, point 4): align and
distribute a selection, Ctrl+D, the context menu, Ctrl+wheel zoom around the pointer, rulers.

Every test also checks (in the `page` fixture) that the page logged no console error
and made no request that left the loopback server.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ...browser import FILLED, box, new_design, node, open_design, paint_order, scale, select, sign_in, tree, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

A4_WIDTH = 595.28
ROUND_TRIP_MS = 15_000  # what the page shows after Python's answer, on a loaded machine too
SPREAD = [
    add("shape", "A", {"x": 40, "y": 100, "w": 60, "h": 40}, styles=FILLED),
    add("shape", "B", {"x": 150, "y": 200, "w": 100, "h": 20}, styles=FILLED),
    add("shape", "C", {"x": 400, "y": 130, "w": 30, "h": 80}, styles=FILLED),
]


def open_with(page, api_server, key, api, name: str, actions: list[dict]) -> str:
    design_id = new_design(api, name, actions)
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    return design_id


def select_all_three(page) -> None:
    """A, then Shift-click B and C; waits until Python has the three (the properties say so)."""
    select(page, "A")
    box(page, "B").click(modifiers=["Shift"])
    box(page, "C").click(modifiers=["Shift"])
    expect(page.locator(".dbk-hint")).to_have_text("3 elements selected.", timeout=ROUND_TRIP_MS)


def xs(api, design_id: str) -> dict[str, float]:
    return {name: node(api, design_id, name)["position"]["x"] for name in ("A", "B", "C")}


def zoom_readout(page) -> int:
    """The header's zoom in %, once it shows one."""
    value = page.locator(".dbk-zoom-value")
    expect(value).to_have_text(re.compile(r"^\d+%$"), timeout=ROUND_TRIP_MS)
    return int(value.inner_text()[:-1])


def test_align_three_elements_left_and_one_undo_puts_them_back(api_server, page, key, alpha_api):
    design_id = open_with(page, api_server, key, alpha_api, "Browser: align", SPREAD)
    expect(page.locator(".dbk-align-left button")).to_be_hidden(timeout=ROUND_TRIP_MS)  # one or none selected: no bar
    select_all_three(page)
    page.locator(".dbk-align-left button").click()
    wait_for(lambda: xs(alpha_api, design_id) == {"A": 40, "B": 40, "C": 40}, "the three aligned left")
    assert node(alpha_api, design_id, "B")["position"]["y"] == 200  # only x moved
    page.locator(".dbk-undo button").click()
    wait_for(lambda: xs(alpha_api, design_id) == {"A": 40, "B": 150, "C": 400}, "one undo: all three back")


def test_distribute_horizontally_leaves_equal_gaps(api_server, page, key, alpha_api):
    design_id = open_with(page, api_server, key, alpha_api, "Browser: distribute", SPREAD)
    select_all_three(page)
    page.locator(".dbk-distribute-horizontal button").click()
    wait_for(lambda: xs(alpha_api, design_id)["B"] != 150, "B distributed")
    a, b, c = (node(alpha_api, design_id, name)["position"] for name in ("A", "B", "C"))
    assert a["x"] == 40 and c["x"] == 400
    assert b["x"] - (a["x"] + a["w"]) == pytest.approx(c["x"] - (b["x"] + b["w"]), abs=0.02)


def test_alt_key_aligns_one_element_to_the_page(api_server, page, key, alpha_api):
    design_id = open_with(page, api_server, key, alpha_api, "Browser: align to page", SPREAD[:1])
    select(page, "A")
    page.keyboard.press("Alt+KeyD")
    wait_for(lambda: node(alpha_api, design_id, "A")["position"]["x"] == round(A4_WIDTH - 60, 2), "A on the right edge")


def test_ctrl_d_duplicates_and_selects_the_copy(api_server, page, key, alpha_api):
    design_id = open_with(page, api_server, key, alpha_api, "Browser: duplicate", SPREAD[:1])
    select(page, "A")
    page.keyboard.press("Control+d")
    wait_for(lambda: len(tree(alpha_api, design_id)["nodes"]) == 2, "the copy saved")
    copy = node(alpha_api, design_id, "A copy")["position"]
    assert (copy["x"], copy["y"]) == (52, 52 + 60)
    expect(box(page, "A copy")).to_have_class(re.compile(r"\bselected\b"), timeout=ROUND_TRIP_MS)
    expect(box(page, "A")).not_to_have_class(re.compile(r"\bselected\b"), timeout=ROUND_TRIP_MS)


def test_context_menu_brings_to_front_locks_and_closes_on_escape(api_server, page, key, alpha_api):
    design_id = open_with(
        page,
        api_server,
        key,
        alpha_api,
        "Browser: context menu",
        [
            add("shape", "Back", {"x": 50, "y": 50, "w": 100, "h": 60}, styles=FILLED),
            add("shape", "Front", {"x": 120, "y": 90, "w": 100, "h": 60}, styles=FILLED),
        ],
    )
    select(page, "Front")
    menu = page.locator(".dbk-menu")
    back = box(page, "Back")
    back.click(button="right", position={"x": 10, "y": 10})  # a corner Front does not cover
    expect(menu).to_be_visible(timeout=ROUND_TRIP_MS)
    expect(back).to_have_class(re.compile(r"\bselected\b"), timeout=ROUND_TRIP_MS)  # the right-clicked element, alone
    expect(box(page, "Front")).not_to_have_class(re.compile(r"\bselected\b"), timeout=ROUND_TRIP_MS)
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden(timeout=ROUND_TRIP_MS)
    back.click(button="right", position={"x": 10, "y": 10})
    menu.locator(".dbk-menu-front").click()
    expect(menu).to_be_hidden(timeout=ROUND_TRIP_MS)
    wait_for(lambda: paint_order(alpha_api, design_id) == ["Front", "Back"], "Back painted last")
    back.click(button="right", position={"x": 10, "y": 10})
    expect(menu.locator(".dbk-menu-lock")).to_have_text("Lock", timeout=ROUND_TRIP_MS)
    menu.locator(".dbk-menu-lock").click()
    wait_for(lambda: node(alpha_api, design_id, "Back").get("isLocked") is True, "Back locked")
    expect(back).to_have_class(re.compile(r"\blocked\b"), timeout=ROUND_TRIP_MS)  # the page has the saved tree's boxes
    back.click(button="right", position={"x": 10, "y": 10})
    expect(menu.locator(".dbk-menu-lock")).to_have_text("Unlock", timeout=ROUND_TRIP_MS)
    page.locator(".dbk-sheet").click(position={"x": 400, "y": 600})  # a click elsewhere closes it
    expect(menu).to_be_hidden(timeout=ROUND_TRIP_MS)


def readout_matches_the_sheet(page) -> bool:
    """Whether the header's % is the zoom the sheet is drawn at (100 % = 96 px per inch)."""
    return abs(zoom_readout(page) - scale(page, A4_WIDTH) / (96 / 72) * 100) <= 1


def test_ctrl_wheel_zooms_around_the_pointer_and_the_readout_follows(api_server, page, key, alpha_api):
    open_with(page, api_server, key, alpha_api, "Browser: wheel zoom", SPREAD)
    wait_for(lambda: readout_matches_the_sheet(page), "the readout at the fitted zoom")
    fitted = zoom_readout(page)
    page.locator(".dbk-zoom-in button").click()
    wait_for(lambda: zoom_readout(page) > fitted and readout_matches_the_sheet(page), "the readout after +")
    page.locator(".dbk-zoom-fit button").click()
    wait_for(lambda: zoom_readout(page) == fitted and readout_matches_the_sheet(page), "the readout after Fit")

    sheet = page.locator(".dbk-sheet").bounding_box()
    s = scale(page, A4_WIDTH)
    pointer = (sheet["x"] + 200 * s, sheet["y"] + 300 * s)  # the point (200, 300) pt of the page
    page.mouse.move(*pointer)
    page.keyboard.down("Control")
    # Far enough for the page to outgrow the view both ways: a page smaller than the view stays
    # centred in it, so it cannot keep a point under the pointer.
    page.mouse.wheel(0, -600)
    page.keyboard.up("Control")
    wait_for(
        lambda: zoom_readout(page) > fitted * 2 and readout_matches_the_sheet(page), "the readout after Ctrl+wheel"
    )
    zoomed = scale(page, A4_WIDTH)
    assert zoomed > s * 2
    sheet = page.locator(".dbk-sheet").bounding_box()
    under = ((pointer[0] - sheet["x"]) / zoomed, (pointer[1] - sheet["y"]) / zoomed)
    assert under == pytest.approx((200, 300), abs=3)  # the same point of the page under the pointer

    canvas = page.locator(".dbk-canvas")
    top = canvas.evaluate("root => root.scrollTop")
    readout = zoom_readout(page)
    page.mouse.wheel(0, 200)  # a plain wheel scrolls and leaves the zoom alone
    wait_for(lambda: canvas.evaluate("root => root.scrollTop") > top, "a plain wheel scrolled")
    assert zoom_readout(page) == readout


def test_rulers_show_points_from_the_sheets_corner(api_server, page, key, alpha_api):
    open_with(page, api_server, key, alpha_api, "Browser: rulers", SPREAD)
    labels = page.locator(".dbk-ruler-top .dbk-ruler-label")
    wait_for(lambda: labels.count() >= 4, "labels on the top ruler")
    assert page.locator(".dbk-ruler-left .dbk-ruler-label").count() >= 6
    assert "100" in page.locator(".dbk-ruler-top").inner_text()

    def hundred_is_where_the_page_has_it() -> bool:
        tick = page.locator(".dbk-ruler-top .dbk-ruler-label", has_text=re.compile(r"^100$"))
        label = tick.bounding_box()  # None while the ticks are being drawn again
        if label is None:
            return False
        at = label["x"] - 2  # the label sits 2 px right of its tick
        return abs(at - (page.locator(".dbk-sheet").bounding_box()["x"] + 100 * scale(page, A4_WIDTH))) < 2

    wait_for(hundred_is_where_the_page_has_it, "the 100 pt tick over 100 pt of the page")
    fitted = scale(page, A4_WIDTH)
    for _ in range(3):
        page.locator(".dbk-zoom-in button").click()
    wait_for(lambda: scale(page, A4_WIDTH) > fitted * 1.9, "three zooms in: the page wider than the view")
    wait_for(hundred_is_where_the_page_has_it, "the ruler following the zoom")
    assert page.locator(".dbk-canvas").evaluate("root => { root.scrollLeft = 40; return root.scrollLeft }") > 0
    wait_for(hundred_is_where_the_page_has_it, "the ruler following the scroll")
