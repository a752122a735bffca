"""Issue 34 in a real headless Chromium: a plain table becomes a typed one from the column
editor, a computed column shows its result on the first sample row as it is typed, and a
refused expression shows the engine's message (and is not saved)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ...browser import ARTIFACTS, new_design, node, open_design, select, sign_in, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

CELLS = [["Item", "Qty", "Price"], ["Pen", "2", "1.50"], ["Ink", "1", "3"]]


def defs(api, design_id):
    return node(api, design_id, "items")["data"].get("columnDefs")


def test_a_computed_column_is_made_in_the_column_editor(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api, "Browser: column editor", [add("table", "items", {"x": 40, "y": 40}, {"cells": CELLS})]
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "items")
    page.locator(".dbk-typed-columns button").click()
    wait_for(lambda: defs(alpha_api, design_id) is not None, "typed columns")
    assert [c["key"] for c in defs(alpha_api, design_id)] == ["item", "qty", "price"]
    expect(page.locator(".dbk-column-2 .dbk-column-key input")).to_have_value("price")
    page.locator(".dbk-column-1 .dbk-column-type select").select_option("number")
    wait_for(lambda: defs(alpha_api, design_id)[1].get("dataType") == "number", "qty: number")
    page.locator(".dbk-column-2 .dbk-column-type select").select_option("currency")
    wait_for(lambda: defs(alpha_api, design_id)[2].get("dataType") == "currency", "price: currency")
    page.locator(".dbk-add-column button").click()
    wait_for(lambda: len(defs(alpha_api, design_id)) == 4, "a fourth column")
    expect(page.locator(".dbk-column-3 .dbk-column-key input")).to_have_value("column4")
    assert node(alpha_api, design_id, "items")["data"]["columns"] == 4
    page.locator(".dbk-column-3 .dbk-column-type select").select_option("currency")
    wait_for(lambda: defs(alpha_api, design_id)[3].get("dataType") == "currency", "column4: currency")
    value = page.locator(".dbk-column-3 .dbk-column-value input")
    result = page.locator(".dbk-column-3 .dbk-column-value-result")
    value.fill("qty * prise")
    expect(result).to_contain_text("unknown name 'prise' at character 6")
    ARTIFACTS.mkdir(exist_ok=True)
    result.screenshot(path=str(ARTIFACTS / "column-editor-refused.png"))
    value.press("Enter")
    value.fill("qty * price")
    expect(result).to_contain_text("= $3.00")  # 2 × 1.50 on the first sample row, as the column formats it
    value.press("Enter")
    wait_for(lambda: defs(alpha_api, design_id)[3].get("value") == "qty * price", "the computed value saved")
    expect(result).to_contain_text("= $3.00")
    page.locator(".dbk-column-3").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "column-editor.png"))
    page.locator(".dbk-right").screenshot(path=str(ARTIFACTS / "column-editor-panel.png"))
