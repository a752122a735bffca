"""Drags and clicks on the canvas in a real headless Chromium (issue 14, points 3 and 5): the
dragged element's own pixels move with the pointer over the page without it, its x/y show
live, corners keep the aspect ratio (images by default, others with Shift), and clicks hit
what the designer sees: an unfilled border only near its stroke, Alt-click the next below.
"""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image
from playwright.sync_api import expect

from workbench.samples import certificate_actions, logo_png

from ...browser import TIMEOUT_MS, box, node, open_design, scale, select, sign_in, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

A4_LANDSCAPE = 841.89
LOGO_BLUE = (31, 78, 140)  # the sample logo's outer ring (workbench.samples.logo_png)


def certificate(api, name: str, *more: dict) -> str:
    """The sample certificate (A4 landscape), with `more` actions after it."""
    files = {"file": ("logo.png", logo_png(), "image/png")}
    logo = api.data(api.post("/assets", files=files, data={"name": "Logo"}), 201)["ref"]
    body = {"name": name, "size": "A4", "orientation": "landscape"}
    design_id = api.data(api.post("/designs", json=body), 201)["designId"]
    actions = [*certificate_actions(logo), *more]
    api.data(api.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    return design_id


def on_screen(page, x_pt: float, y_pt: float) -> tuple[float, float]:
    sheet = page.locator(".dbk-sheet").bounding_box()
    s = scale(page, A4_LANDSCAPE)
    return sheet["x"] + x_pt * s, sheet["y"] + y_pt * s


def pixel(page, x_pt: float, y_pt: float) -> tuple[int, int, int]:
    """The colour the page shows at a point of the design (what a designer sees, overlays included)."""
    x, y = on_screen(page, x_pt, y_pt)
    shot = page.screenshot(clip={"x": x - 1, "y": y - 1, "width": 3, "height": 3})
    return Image.open(io.BytesIO(shot)).convert("RGB").getpixel((1, 1))


def near(colour: tuple[int, int, int], target: tuple[int, int, int], within: int = 40) -> bool:
    return all(abs(a - b) <= within for a, b in zip(colour, target, strict=True))


def readout(page) -> dict[str, float]:
    text = page.locator(".dbk-readout").inner_text()
    return {name: float(value) for name, value in re.findall(r"([xywh]) (-?[\d.]+)", text)}


def is_selected(page, name: str) -> None:
    """Selected on the canvas, and the editor shows its properties (a round trip through Python)."""
    expect(box(page, name)).to_have_class(re.compile(r"\bselected\b"), timeout=TIMEOUT_MS)
    expect(page.locator(".dbk-properties input[type=text]").first).to_have_value(name, timeout=TIMEOUT_MS)


def test_a_drag_moves_the_elements_own_pixels_over_the_page_without_it(api_server, page, key, alpha_api):
    design_id = certificate(alpha_api, "Drag: live")
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "logo")
    preview = page.locator(".dbk-preview").get_attribute("src")
    s = scale(page, A4_LANDSCAPE)
    ring = (75, 15)  # from the logo's top-left corner, in points: on its blue outer ring
    old = (640, 50)  # where the certificate puts the logo
    new = (410, 310)  # an empty stretch of the page
    assert near(pixel(page, old[0] + ring[0], old[1] + ring[1]), LOGO_BLUE)
    assert near(pixel(page, new[0] + ring[0], new[1] + ring[1]), (255, 255, 255))

    x, y = on_screen(page, old[0] + 75, old[1] + 75)
    page.keyboard.down("Alt")  # no snapping: the logo lands exactly where the pointer takes it
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + (new[0] - old[0]) * s, y + (new[1] - old[1]) * s, steps=10)
    # Before release: the logo's own pixels are at the new spot, its x/y beside it ...
    expect(page.locator(".dbk-sprite")).to_have_count(1, timeout=TIMEOUT_MS)
    wait_for(lambda: near(pixel(page, new[0] + ring[0], new[1] + ring[1]), LOGO_BLUE), "the logo at the new spot")
    expect(page.locator(".dbk-readout")).to_be_visible(timeout=TIMEOUT_MS)
    shown = readout(page)
    assert shown["x"] == pytest.approx(new[0], abs=1) and shown["y"] == pytest.approx(new[1], abs=1)
    # ... and, once the editor sends the page without it, its old spot is empty.
    under = page.locator(".dbk-under")
    expect(under).to_be_visible(timeout=TIMEOUT_MS)
    expect(under).to_have_attribute("src", re.compile("^data:image/png"), timeout=TIMEOUT_MS)
    assert under.get_attribute("src") != preview
    wait_for(lambda: near(pixel(page, old[0] + ring[0], old[1] + ring[1]), (255, 255, 255)), "the old spot empty")
    assert node(alpha_api, design_id, "logo")["position"]["x"] == 640  # nothing saved yet

    page.mouse.up()
    page.keyboard.up("Alt")
    wait_for(lambda: node(alpha_api, design_id, "logo")["position"]["x"] != 640, "the drop saved")
    saved = node(alpha_api, design_id, "logo")["position"]
    assert saved["x"] == pytest.approx(new[0], abs=1) and saved["y"] == pytest.approx(new[1], abs=1)
    # The saved tree's preview takes over: no sprite, no picture under, the readout gone.
    expect(page.locator(".dbk-sprite")).to_have_count(0, timeout=TIMEOUT_MS)
    expect(under).to_be_hidden(timeout=TIMEOUT_MS)
    expect(page.locator(".dbk-readout")).to_be_hidden(timeout=TIMEOUT_MS)
    assert page.locator(".dbk-preview").get_attribute("src") != preview
    wait_for(lambda: near(pixel(page, new[0] + ring[0], new[1] + ring[1]), LOGO_BLUE), "the logo in the new preview")
    assert near(pixel(page, old[0] + ring[0], old[1] + ring[1]), (255, 255, 255))


def corner_drag(page, name: str, dx: float, dy: float, shift: bool) -> dict[str, float]:
    """Drag the element's bottom-right handle; the readout shown just before release."""
    handle = box(page, name).locator(".dbk-se").bounding_box()
    x, y = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
    page.mouse.move(x, y)
    if shift:
        page.keyboard.down("Shift")
    page.mouse.down()
    page.mouse.move(x + dx, y + dy, steps=8)
    shown = readout(page)
    page.mouse.up()
    if shift:
        page.keyboard.up("Shift")
    return shown


def test_corners_keep_the_aspect_ratio_of_images_and_with_shift_of_other_elements(api_server, page, key, alpha_api):
    design_id = certificate(
        alpha_api,
        "Drag: aspect",
        add("shape", "card", {"x": 300, "y": 300, "w": 120, "h": 60}, {}, {"fill": "#eeeeee"}),
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)

    def ratio(name: str) -> float:
        position = node(alpha_api, design_id, name)["position"]
        return position["w"] / position["h"]

    select(page, "card")
    shown = corner_drag(page, "card", 90, 10, shift=True)
    assert set(shown) == {"x", "y", "w", "h"} and shown["w"] / shown["h"] == pytest.approx(2, abs=0.02)
    wait_for(lambda: node(alpha_api, design_id, "card")["position"]["w"] != 120, "the card resized with Shift")
    assert ratio("card") == pytest.approx(2, abs=0.02) and node(alpha_api, design_id, "card")["position"]["w"] > 150
    corner_drag(page, "card", 60, 0, shift=False)  # without Shift a shape stretches
    wait_for(lambda: ratio("card") > 2.2, "the card stretched without Shift")

    select(page, "logo")  # 150 × 150 near the page's right edge: made smaller, then wider
    corner_drag(page, "logo", -40, 10, shift=False)  # an image keeps its ratio by default
    wait_for(lambda: node(alpha_api, design_id, "logo")["position"]["w"] != 150, "the logo resized")
    assert ratio("logo") == pytest.approx(1, abs=0.01) and node(alpha_api, design_id, "logo")["position"]["w"] < 130
    width = node(alpha_api, design_id, "logo")["position"]["w"]
    corner_drag(page, "logo", 50, 0, shift=True)  # Shift frees it
    wait_for(lambda: node(alpha_api, design_id, "logo")["position"]["w"] != width, "the logo resized with Shift")
    assert ratio("logo") > 1.2


FRAME = add(  # a full-page border drawn last, with no fill: over everything
    "shape", "frame", {"x": 24, "y": 24, "w": 793.89, "h": 547.28}, {}, {"fill": None, "strokeWidth": 2}
)


def test_a_click_inside_an_unfilled_border_selects_what_is_under_it(api_server, page, key, alpha_api):
    design_id = certificate(alpha_api, "Click: inside a border", FRAME)
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    page.mouse.click(*on_screen(page, 150, 75))  # on the title, inside the frame
    is_selected(page, "title")
    page.mouse.click(*on_screen(page, 600, 380))  # inside the frame, on nothing: clears the selection
    expect(page.locator(".dbk-box.selected")).to_have_count(0, timeout=TIMEOUT_MS)
    page.mouse.click(*on_screen(page, 300, 24 + 1))  # on the frame's stroke
    is_selected(page, "frame")
    page.mouse.click(*on_screen(page, 300, 260))  # the paragraph, still reachable inside it
    is_selected(page, "paragraph")


def test_alt_click_selects_the_next_element_below_round_the_stack(api_server, page, key, alpha_api):
    card = add("shape", "card", {"x": 50, "y": 50, "w": 300, "h": 80}, {}, {"fill": "#ddeeff", "opacity": 0.5})
    design_id = certificate(alpha_api, "Click: Alt", FRAME, card)
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)

    def alt_click(at: tuple[float, float]) -> None:
        page.keyboard.down("Alt")
        page.mouse.click(*on_screen(page, *at))
        page.keyboard.up("Alt")

    stroke = (300, 24)  # the frame's stroke over the certificate's own border (away from the handles)
    page.mouse.click(*on_screen(page, *stroke))
    is_selected(page, "frame")
    alt_click(stroke)  # through the frame to the border below it
    is_selected(page, "border")
    alt_click(stroke)  # round the stack: back to the top
    is_selected(page, "frame")

    title = (150, 75)  # under the card (filled: it takes the click)
    page.mouse.click(*on_screen(page, *title))
    is_selected(page, "card")
    alt_click(title)
    is_selected(page, "title")
    # A press on the selection drags it even under the card; Alt there means no snapping, not a pick.
    x, y = on_screen(page, *title)
    page.keyboard.down("Alt")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 40, y + 30, steps=6)
    page.mouse.up()
    page.keyboard.up("Alt")
    wait_for(lambda: node(alpha_api, design_id, "title")["position"]["x"] != 60, "the title dragged")
    assert node(alpha_api, design_id, "card")["position"]["x"] == 50
    is_selected(page, "title")
