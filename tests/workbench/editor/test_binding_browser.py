"""Issue 35, point 6 in a real headless Chromium: a "Variable" checkbox in every bindable element's
properties binds and unbinds it (its name is the variable's), and a variable's name in the
Variables tab selects its element on the canvas."""

from __future__ import annotations

import base64
import re

import pytest
from playwright.sync_api import expect

from ...browser import box, new_design, open_design, select, sign_in, tree, wait_for
from ...conftest import add, png

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

SELECTED = re.compile(r"\bselected\b")


def variables(alpha_api, design_id: str) -> dict:
    return tree(alpha_api, design_id)["variables"]


def design_with_a_logo_and_texts(alpha_api) -> str:
    logo = "data:image/png;base64," + base64.b64encode(png()).decode()
    return new_design(
        alpha_api,
        "Browser: binding",
        [
            add("image", "logo", {"x": 60, "y": 60, "w": 80, "h": 40}, {"src": logo}),
            add("text", "recipient", {"x": 60, "y": 160}, {"content": "Ada Lovelace"}),
            add(
                "text",
                "sentence",
                {"x": 60, "y": 260, "maxWidth": 400},
                {"content": "completed {course}", "fields": True, "samples": {"course": "Typesetting"}},
            ),
        ],
    )


def test_the_variable_checkbox_binds_renames_and_unbinds_an_image_and_a_text(api_server, page, key, alpha_api):
    design_id = design_with_a_logo_and_texts(alpha_api)
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    form = page.locator(".dbk-properties")
    toggle = form.locator(".dbk-variable-toggle input")

    select(page, "logo")
    expect(toggle).not_to_be_checked()
    toggle.check()
    wait_for(lambda: "logo" in variables(alpha_api, design_id), "the image bound")
    assert variables(alpha_api, design_id)["logo"]["kind"] == "image"
    # The name field says it is the variable's name; renaming it renames the variable.
    expect(form.get_by_text("Variable name", exact=True)).to_be_visible()
    name = form.locator("input[type=text]").first
    name.fill("company_logo")
    name.press("Enter")
    wait_for(lambda: "company_logo" in variables(alpha_api, design_id), "the variable renamed")
    assert "logo" not in variables(alpha_api, design_id)
    expect(toggle).to_be_checked()
    toggle.uncheck()
    wait_for(lambda: "company_logo" not in variables(alpha_api, design_id), "the image unbound")

    select(page, "recipient")
    expect(toggle).not_to_be_checked()
    toggle.check()
    wait_for(lambda: "recipient" in variables(alpha_api, design_id), "the text bound")
    assert variables(alpha_api, design_id)["recipient"]["kind"] == "text"


def test_a_name_in_the_variables_tab_selects_its_element_on_the_canvas(api_server, page, key, alpha_api):
    design_id = design_with_a_logo_and_texts(alpha_api)
    alpha_api.data(
        alpha_api.patch(
            f"/designs/{design_id}/tree", json={"actions": [{"type": "bind_variable", "args": {"name": "recipient"}}]}
        ),
        200,
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "logo")
    page.locator(".bk-tab", has_text="Variables").click()
    page.locator(".dbk-variable-label button", has_text="recipient").click()
    expect(box(page, "recipient")).to_have_class(SELECTED)
    expect(box(page, "logo")).not_to_have_class(SELECTED)
    expect(page.locator(".dbk-properties input[type=text]").first).to_have_value("recipient")
    # A field's name selects the texts holding it.
    page.locator(".dbk-variable-label button", has_text="{course}").click()
    expect(box(page, "sentence")).to_have_class(SELECTED)
    expect(page.locator(".dbk-properties input[type=text]").first).to_have_value("sentence")
