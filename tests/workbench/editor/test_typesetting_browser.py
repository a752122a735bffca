"""Issue 33 in a real headless Chromium: a text's hyphenation and numeral style are set from
the Styles card, and the preview breaks the justified text with hyphens by default."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ...browser import new_design, node, open_design, select, sign_in, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

TEXT = "Typesetting requires one or more fonts, which are widely but erroneously confused with typefaces."


def test_hyphens_and_figures_are_chosen_in_the_styles_card(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: typesetting",
        [
            add(
                "text",
                "body",
                {"x": 60, "y": 60, "maxWidth": 120},
                {"content": TEXT},
                {"fontFamily": "EB Garamond", "align": "justify"},
            )
        ],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "body")
    styles = page.locator(".dbk-section-styles")
    hyphens = styles.locator("select").filter(has=page.locator("option[value='manual']"))
    expect(hyphens).to_have_value("default")  # unset: auto, as the text is justified
    hyphens.select_option("none")
    wait_for(lambda: node(alpha_api, design_id, "body")["styles"].get("hyphens") == "none", "hyphens: none")
    numerals = styles.locator("select").filter(has=page.locator("option[value='tabular-nums']"))
    numerals.select_option("tabular-nums")
    wait_for(
        lambda: node(alpha_api, design_id, "body")["styles"].get("fontVariantNumeric") == "tabular-nums",
        "tabular figures",
    )
    hyphens.select_option("default")
    wait_for(lambda: node(alpha_api, design_id, "body")["styles"].get("hyphens") is None, "hyphens unset again")
