"""The properties form offers the language a text's script tells (issue 35, point 8), in a real
headless Chromium: kana → Japanese, Hangul → Korean; one click saves data.lang."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ...browser import new_design, node, open_design, select, sign_in, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them


def offer(page):
    return page.locator(".dbk-set-lang button")


def test_a_text_with_kana_is_offered_japanese_and_one_click_sets_it(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: kana",
        [
            add("text", "Greeting", {"x": 60, "y": 80}, {"content": "東京へようこそ"}, {"fontSize": 28}),
            add("text", "Korean", {"x": 60, "y": 200}, {"content": "서울 大學校"}, {"fontSize": 28}),
            add("text", "Latin", {"x": 60, "y": 320}, {"content": "Welcome"}),
        ],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "Latin")
    expect(offer(page)).to_be_hidden()  # nothing in its text tells a language
    select(page, "Korean")
    expect(offer(page)).to_have_text("Set language: Korean (ko)")
    select(page, "Greeting")
    expect(offer(page)).to_have_text("Set language: Japanese (ja)")
    offer(page).click()
    wait_for(lambda: node(alpha_api, design_id, "Greeting")["data"].get("lang") == "ja", "data.lang saved")
    expect(offer(page)).to_be_hidden()  # the text has its language now
    assert "lang" not in node(alpha_api, design_id, "Korean")["data"]
