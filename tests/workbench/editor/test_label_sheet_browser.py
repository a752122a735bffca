"""Issue 38 in a real headless Chromium: the editor's "Print on label sheet" choice shows one
sheet filled with the design, and Generate then prints one label on that sheet."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from PIL import Image

from tests.pdf_probes import page_sizes, pdf_text, placed_forms

from ...browser import new_design, open_design, sign_in
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

MM = 72 / 25.4
LABEL = (63.5 * MM, 38.1 * MM)  # an Avery L7160's label
A4_HEIGHT = 841.89


def cell(index: int) -> tuple[float, float, float, float]:
    """L7160 cell `index` as published (7.25 mm left, 15.15 mm top, 66 × 38.1 mm pitch), in
    pixels of a 72 dpi picture: (left, top, right, bottom)."""
    row, column = divmod(index, 3)
    left, top = (7.25 + 66.0 * column) * MM, (15.15 + 38.1 * row) * MM
    return left, top, left + LABEL[0], top + LABEL[1]


def test_print_on_label_sheet_shows_one_sheet_and_generates_a_label_on_it(api_server, page, key, alpha_api):
    actions = [
        {"type": "update_page", "args": {"page": 0, "width": LABEL[0], "height": LABEL[1]}},
        add("text", "recipient", {"x": 12, "y": 12}, {"content": "Ada Lovelace"}),
    ]
    design_id = new_design(alpha_api, "Browser: labels", actions)
    credits = alpha_api.data(alpha_api.get("/me"), 200)["credits"]
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    page.locator(".dbk-pdf-options-toggle button").click()
    page.locator(".dbk-pdf-sheet select").select_option(label="Avery L7160 · 63.5 × 38.1 mm · 21 a sheet")
    picture = page.locator(".dbk-sheet-preview img.dbk-sheet-picture")
    picture.wait_for()
    src = picture.get_attribute("src")
    sheet = Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("L")
    assert abs(sheet.size[1] - A4_HEIGHT) <= 1  # one A4 sheet at 72 dpi
    inked = [sheet.crop(tuple(round(v) for v in cell(i))).getextrema()[0] < 128 for i in range(21)]
    assert inked == [True] * 21  # the design in every label of the sheet
    assert page.locator(".dbk-sheet-preview", has_text="21 labels a sheet").is_visible()
    assert alpha_api.data(alpha_api.get("/me"), 200)["credits"] == credits  # the picture is free
    with page.expect_download() as download:
        page.locator(".dbk-generate button").click()
    pdf = Path(download.value.path()).read_bytes()
    assert abs(page_sizes(pdf)[0][1] - A4_HEIGHT) < 0.5 and len(placed_forms(pdf)) == 1
    assert "Ada Lovelace" in pdf_text(pdf)[0]
    page.locator(".alert-success", has_text="on a L7160 label sheet").wait_for()
    assert alpha_api.data(alpha_api.get("/me"), 200)["credits"] == credits - 1
    # Back to one PDF: the picture goes away.
    page.locator(".dbk-pdf-sheet select").select_option(label="No: one PDF")
    picture.wait_for(state="detached")
