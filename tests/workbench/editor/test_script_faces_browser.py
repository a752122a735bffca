"""Every script in the editor, in a real headless Chromium: Hebrew typed into a text's
content shows right to left and reaches the design, the PDF and the preview; the direction
is a property; the toolbar offers start and end; the canvas overlay types in the element's
direction and aligns start/end by it."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.pdf_probes import pdf_text

from ...browser import box, new_design, node, open_design, painted, select, sign_in, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

HEBREW = "שלום עולם"


def test_hebrew_typed_in_the_properties_reaches_the_design_and_the_pdf(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: every script",
        [add("text", "greeting", {"x": 60, "y": 60, "maxWidth": 300}, {"content": "Hello"}, {"fontSize": 20})],
    )

    def saved() -> dict:
        return node(alpha_api, design_id, "greeting")

    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "greeting")
    content = page.locator(".dbk-properties textarea").first
    # The content area sets each paragraph in its own direction, as dir="auto" does.
    assert content.evaluate("el => getComputedStyle(el).unicodeBidi") == "plaintext"
    before = painted(page)
    content.fill(HEBREW)
    content.press("Tab")
    wait_for(lambda: saved()["data"]["content"] == HEBREW, "the Hebrew content")
    wait_for(lambda: painted(page) > before, "the preview painted with the Hebrew")
    url = alpha_api.data(alpha_api.post(f"/designs/{design_id}/generate", json={}), 201)["downloadUrl"]
    extracted = " ".join(pdf_text(httpx.get(url).content))
    assert all(letter in extracted for letter in HEBREW.replace(" ", ""))

    # The direction is a property; start/end are the toolbar's, labelled so.
    styles = page.locator(".dbk-section-styles")
    styles.get_by_role("combobox", name="Direction").select_option("rtl")
    wait_for(lambda: saved()["styles"].get("direction") == "rtl", "the direction")
    align = page.locator(".dbk-tt-align")
    expect(align.locator("button", has_text="Start")).to_be_visible()
    align.locator("button", has_text="End").click()
    wait_for(lambda: saved()["styles"].get("align") == "end", "align end")
    before = painted(page)
    align.locator("button", has_text="Start").click()
    wait_for(lambda: saved()["styles"].get("align") == "start", "align start")
    # The canvas holds the element's new look once the preview it comes with is painted: an
    # overlay opened before that would take the look of End.
    wait_for(lambda: painted(page) > before, "the preview painted with align start")

    # Typed on the canvas: right to left, starting at the right as the PDF sets it.
    select(page, "greeting")
    box(page, "greeting").dblclick()
    overlay = page.locator(".dbk-text-edit")
    expect(overlay).to_be_focused()
    assert overlay.evaluate("el => el.dir") == "rtl"
    assert overlay.evaluate("el => getComputedStyle(el).direction") == "rtl"
    assert overlay.evaluate("el => getComputedStyle(el).textAlign") == "start"
    expect(overlay).to_have_value(HEBREW)
    page.keyboard.press("Escape")
    expect(overlay).to_have_count(0)
