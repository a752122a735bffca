"""Issue 39 in a real headless Chromium: a chart placed from the toolbar shows on the canvas; its
panel sets the kind, renames the x key, adds a coloured series and edits sample values, and the
generated PDF draws what was set (the bars' heights, the colour, the labels as text). Bound, the
chart is a variable, and "Try values" with rows typed as CSV draws those rows."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import expect

from tests.pdf_probes import drawn_paths, pdf_text

from ...browser import ARTIFACTS, new_design, open_design, sign_in, tree, wait_for

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

BLUE = (0, 114, 178)  # the default palette's first colour, #0072B2
RED = (214, 39, 40)  # #d62728, the colour given to the second series


def chart(api, design_id: str) -> dict | None:
    return next((n for n in tree(api, design_id)["nodes"].values() if n["type"] == "chart"), None)


def data(api, design_id: str) -> dict:
    found = chart(api, design_id)
    assert found is not None
    return found["data"]


def bar_heights(pdf: bytes, colour: tuple[int, int, int]) -> list[float]:
    """The heights of the bars filled with the colour, left to right (not the legend's swatch)."""
    filled = [p["bounds"] for p in drawn_paths(pdf) if p["fill"] == colour]
    bars = sorted((b for b in filled if b[2] - b[0] > 20), key=lambda b: b[0])
    return [top - bottom for _, bottom, _, top in bars]


def coloured_pixels(png: bytes, colour: tuple[int, int, int]) -> int:
    raw = Image.open(io.BytesIO(png)).convert("RGB").tobytes()
    pixels = zip(raw[0::3], raw[1::3], raw[2::3], strict=True)
    return sum(1 for pixel in pixels if all(abs(a - b) <= 12 for a, b in zip(pixel, colour, strict=True)))


def downloaded(page, button: str) -> bytes:
    with page.expect_download() as download:
        page.locator(f"{button} button").click()
    return Path(download.value.path()).read_bytes()


def cell(page, row: int, column: int):
    return page.locator(f'.dbk-rows-grid input[data-row="{row}"][data-col="{column}"]')


def type_cell(page, row: int, column: int, text: str) -> None:
    box = cell(page, row, column)
    box.fill(text)
    box.press("Tab")  # the grid writes a cell when it loses focus


def test_a_chart_is_placed_and_set_up_in_its_panel(api_server, page, key, alpha_api):
    page.set_viewport_size({"width": 1440, "height": 900})
    design_id = new_design(alpha_api, "Browser: chart panel")
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    canvas = page.locator(".dbk-canvas")
    before = coloured_pixels(canvas.screenshot(), BLUE)
    page.locator(".dbk-add-chart button").click()
    wait_for(lambda: chart(alpha_api, design_id) is not None, "a chart placed")
    expect(page.locator(".dbk-rows-grid")).to_be_visible()
    # The canvas shows the chart's preview: its bars in the palette's first colour.
    wait_for(lambda: coloured_pixels(canvas.screenshot(), BLUE) > before + 500, "the chart's bars on the canvas")

    page.locator(".dbk-field-data-kind select").select_option("stackedBar")
    wait_for(lambda: data(alpha_api, design_id)["kind"] == "stackedBar", "kind: stackedBar")
    page.locator(".dbk-field-data-title input").fill("Revenue and costs")
    page.locator(".dbk-field-data-title input").press("Enter")
    page.locator(".dbk-field-data-legend select").select_option("bottom")
    wait_for(lambda: data(alpha_api, design_id)["legend"] == "bottom", "legend: bottom")

    # x is the first column: its key typed over is renamed in the rows and in x.
    type_cell(page, 0, 0, "quarter")
    wait_for(lambda: data(alpha_api, design_id)["x"] == "quarter", "x renamed")
    expect(page.locator(".dbk-rows-label select")).to_have_value("quarter")
    assert data(alpha_api, design_id)["rows"][0]["quarter"] == "Jan"

    page.locator(".dbk-add-series button").click()
    wait_for(lambda: len(data(alpha_api, design_id)["series"]) == 2, "a second series")
    series = page.locator(".dbk-series-1")
    series.locator(".dbk-series-label input").fill("Costs")
    series.locator(".dbk-series-label input").press("Enter")
    hex_entry = series.locator(".dbk-colour-hex")
    hex_entry.fill("#d62728")
    hex_entry.press("Enter")
    wait_for(lambda: data(alpha_api, design_id)["series"][1].get("color") == "#d62728", "the series' colour")
    for row, value in enumerate(("5", "10", "20", "40"), start=1):
        type_cell(page, row, 2, value)
    wait_for(lambda: data(alpha_api, design_id)["rows"][3].get("series2") == 40, "the costs typed")
    type_cell(page, 2, 1, "95")  # Feb's revenue, 15 before
    wait_for(lambda: data(alpha_api, design_id)["rows"][1]["revenue"] == 95, "Feb's revenue")
    saved = data(alpha_api, design_id)
    assert {k: saved["series"][1][k] for k in ("key", "label", "color")} == {
        "key": "series2",
        "label": "Costs",
        "color": "#d62728",
    }
    assert [row["series2"] for row in saved["rows"]] == [5, 10, 20, 40]  # numbers, not texts

    ARTIFACTS.mkdir(exist_ok=True)
    wait_for(lambda: coloured_pixels(canvas.screenshot(), RED) > 500, "the costs' bars on the canvas")
    page.locator(".dbk-zoom-in button").click()  # the chart larger, for the manual's picture
    page.locator(".dbk-zoom-in button").click()
    page.locator(".dbk-series-1").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "editor-chart.png"))
    pdf = downloaded(page, ".dbk-generate")
    text = " ".join(pdf_text(pdf))
    assert "Revenue and costs" in text and "Costs" in text and "Revenue" in text
    assert "Jan" in text and "Apr" in text
    assert "120" in text  # the y axis reaches Feb's 95 + 10 (ticks of 20), past the 18 + 0 before
    costs = bar_heights(pdf, RED)
    assert len(costs) == 4
    assert [h / costs[0] for h in costs] == pytest.approx([1, 2, 4, 8], abs=0.02)
    revenue = bar_heights(pdf, BLUE)
    assert revenue[1] / revenue[0] == pytest.approx(95 / 12, abs=0.05)

    # Bound, the chart is a variable taking rows; "Try values" takes them as CSV under its keys.
    form = page.locator(".dbk-properties")
    form.locator(".dbk-variable-toggle input").check()
    name = form.locator("input[type=text]").first
    name.fill("sales")
    name.press("Enter")
    wait_for(lambda: tree(alpha_api, design_id)["variables"].get("sales", {}).get("kind") == "table", "bound")
    page.locator(".bk-tab", has_text="Variables").click()
    expect(page.locator(".dbk-variable-label", has_text="sales")).to_be_visible()
    page.locator(".bk-tab", has_text="Try values").click()
    page.locator(".dbk-try-sales textarea").fill("quarter,revenue,series2\nQ1,30,3\nQ2,60,6\nQ3,90,9")
    page.locator(".dbk-try-sales textarea").press("Tab")
    page.locator(".dbk-try-show button").click()
    expect(page.locator(".dbk-generate-tried button")).to_be_visible()
    tried = downloaded(page, ".dbk-generate-tried")
    text = " ".join(pdf_text(tried))
    assert "Q1" in text and "Q3" in text and "Jan" not in text
    costs = bar_heights(tried, RED)
    assert [h / costs[0] for h in costs] == pytest.approx([1, 2, 3], abs=0.02)
