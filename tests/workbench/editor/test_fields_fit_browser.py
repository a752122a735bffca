"""Issue 15 in a real headless Chromium: insert a field into a text, type its sample and see
the preview change; set fit shrink with a width from the properties and see it change again."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.pdf_probes import pdf_text

from ...browser import new_design, node, open_design, painted, select, sign_in, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

SAMPLE = "Ada Lovelace-Byron"


def test_insert_a_field_edit_its_sample_and_fit_the_text_with_the_preview_following(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: fields and fit",
        [add("text", "greeting", {"x": 60, "y": 60, "maxWidth": 450}, {"content": "Dear"}, styles={"fontSize": 24})],
    )

    def saved() -> dict:
        return node(alpha_api, design_id, "greeting")

    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "greeting")
    form = page.locator(".dbk-properties")

    # Insert field: one saved change turns placeholders on and appends {name}.
    form.locator(".dbk-field-name input").fill("name")
    form.locator(".dbk-insert-field button").click()
    wait_for(lambda: saved()["data"].get("content") == "Dear {name}", "the inserted placeholder")
    assert saved()["data"]["fields"] is True
    assert [v["name"] for v in alpha_api.data(alpha_api.get(f"/designs/{design_id}/variables"), 200)["variables"]] == [
        "name"
    ]

    # Its sample, typed in the input the form now has for {name}, shows in the preview.
    sample = form.locator(".dbk-sample-name input")
    expect(sample).to_have_value("")
    before = painted(page)
    sample.fill(SAMPLE)
    sample.press("Enter")
    wait_for(lambda: saved()["data"].get("samples") == {"name": SAMPLE}, "the sample saved")
    wait_for(lambda: painted(page) > before, "the preview painted with the sample")
    url = alpha_api.data(alpha_api.post(f"/designs/{design_id}/generate", json={}), 201)["downloadUrl"]
    assert f"Dear {SAMPLE}" in " ".join(pdf_text(httpx.get(url).content))

    # A narrower box, then fit shrink: the text is set smaller and the preview follows.
    def height() -> float:
        return page.locator(".dbk-box[data-name='greeting']").bounding_box()["height"]

    one_line = height()
    width = form.locator(".dbk-section-position").get_by_role("textbox", name="Max width")
    width.fill("150")
    width.press("Enter")
    wait_for(lambda: saved()["position"].get("maxWidth") == 150, "the width")
    wait_for(lambda: height() > one_line * 2, "the text wrapped in the narrower box")
    before = painted(page)
    tall = height()
    form.locator(".dbk-section-styles").get_by_role("combobox", name="Fit").select_option("shrink")
    wait_for(lambda: saved()["styles"].get("fit") == "shrink", "fit shrink saved")
    wait_for(lambda: painted(page) > before, "the preview painted at the fitted size")
    # The box the canvas shows is the fitted one: fewer lines, so lower.
    wait_for(lambda: height() < tall * 0.8, "the fitted box")
