"""Issue 35, point 2, in a real headless Chromium: every sheet a page lays out as can be seen,
for its design-time content and for tried values, and rows pasted into a table's "Paste CSV"
push the elements below it as the same rows sent as values do."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import httpx
import pytest
from PIL import Image, ImageChops
from playwright.sync_api import expect

from tests.pdf_probes import pdf_text

from ...browser import ARTIFACTS, box, new_design, open_design, select, sign_in, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

HEADER = ["Item", "Qty"]
ROWS = 90  # three A4 sheets
TRIED = 160  # five


def lines_csv(count: int) -> str:
    return "\n".join([",".join(HEADER)] + [f"Line item {i},{i}" for i in range(1, count + 1)])


def shown(page) -> Image.Image:
    src = page.locator(".dbk-canvas .dbk-preview").get_attribute("src")
    return Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGB")


def served(api, design_id: str, sheet: int) -> Image.Image:
    preview = api.data(api.get(f"/designs/{design_id}/preview", params={"sheet": sheet}), 200)
    return Image.open(io.BytesIO(httpx.get(preview["previewUrl"]).content)).convert("RGB")


def test_pasted_rows_grow_over_sheets_that_can_all_be_seen(api_server, page, key, alpha_api):
    page.set_viewport_size({"width": 1440, "height": 900})
    design_id = new_design(
        alpha_api,
        "Browser: every sheet",
        [
            add("text", "title", {"x": 40, "y": 40}, {"content": "Order"}, {"fontSize": 20}),
            add("table", "lines", {"x": 40, "y": 80}, {"cells": [HEADER, ["Pen", "2"]], "columnWidths": [300, 100]}),
            # 15 pt under the two design-time rows: it follows the table's last row.
            add("text", "total", {"x": 40, "y": 135}, {"content": "Total due"}),
            {"type": "bind_variable", "args": {"name": "lines"}},
        ],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    pager = page.locator(".dbk-sheets")
    expect(pager).to_be_hidden()  # one sheet: nothing to page through

    select(page, "lines")
    paste = page.locator(".dbk-properties .bk-input-group", has_text="Paste CSV to replace the cells").locator(
        "textarea"
    )
    paste.fill(lines_csv(ROWS))
    paste.evaluate("area => area.blur()")  # the paste is sent when the field is left
    label = page.locator(".dbk-sheet-label")
    expect(label).to_have_text("Sheet 1 of 3")
    expect(box(page, "lines")).to_have_count(1)  # the first sheet is the one edited
    first = shown(page)
    page.locator(".dbk-sheet-next button").click()
    expect(label).to_have_text("Sheet 2 of 3")
    page.locator(".dbk-sheet-next button").click()
    expect(label).to_have_text("Sheet 3 of 3")
    wait_for(lambda: ImageChops.difference(shown(page), served(alpha_api, design_id, 2)).getbbox() is None, "sheet 3")
    assert ImageChops.difference(first, shown(page)).getbbox() is not None
    expect(box(page, "lines")).to_have_count(0)  # a continuation sheet is looked at, not edited
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "editor-sheets.png"))
    page.locator(".bk-tab", has_text="Pages").click()
    expect(page.locator(".dbk-page-sheets-0")).to_contain_text("3 sheets")

    # The PDF lays the pasted rows out as the same rows sent as values: the total after the last row.
    with page.expect_download() as download:
        page.locator(".dbk-generate button").click()
    sheets = pdf_text(Path(download.value.path()).read_bytes())
    assert len(sheets) == 3
    assert "Total due" not in sheets[0] + sheets[1]
    last = sheets[2]
    assert last.index(f"Line item {ROWS}") < last.index("Total due")

    # Tried values page through their own sheets.
    page.locator(".dbk-sheet-previous button").click()
    page.locator(".dbk-sheet-previous button").click()
    expect(label).to_have_text("Sheet 1 of 3")
    page.locator(".bk-tab", has_text="Try values").click()
    page.locator(".dbk-try-lines textarea").fill(lines_csv(TRIED))
    page.locator(".dbk-try-lines textarea").evaluate("area => area.blur()")
    page.locator(".dbk-try-show button").click()
    expect(page.locator(".alert", has_text="values you tried")).to_be_visible()
    expect(label).to_have_text("Sheet 1 of 5")
    page.locator(".dbk-sheet-next button").click()
    expect(label).to_have_text("Sheet 2 of 5")
    tried = alpha_api.data(
        alpha_api.post(
            f"/designs/{design_id}/preview",
            json={"sheet": 1, "data": {"lines": [row.split(",") for row in lines_csv(TRIED).split("\n")]}},
        ),
        200,
    )
    assert tried["sheets"] == 5
    expected = Image.open(io.BytesIO(httpx.get(tried["previewUrl"]).content)).convert("RGB")
    wait_for(lambda: ImageChops.difference(shown(page), expected).getbbox() is None, "the tried sheet 2")
    page.locator(".dbk-try-back button").click()
    expect(label).to_have_text("Sheet 2 of 3")  # the design's sheets again, where the pager was
