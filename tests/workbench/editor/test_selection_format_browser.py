"""Issue 35, point 5 in a real headless Chromium: a part of a text selected while typing on the
canvas is made bold, italic or a link (Ctrl+B / Ctrl+I / Ctrl+K, the bar over it, the text
toolbar's B), as Markdown around exactly that part; the whole text's style is left alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.pdf_probes import font_names, link_uris

from ...browser import box, new_design, node, open_design, select, sign_in, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

SENTENCE = "Hello brave world"


def editing(page):
    return page.locator(".dbk-text-edit")


def open_text(page, api_server, key, alpha_api, content: str = SENTENCE, **data) -> str:
    design_id = new_design(
        alpha_api,
        "Browser: format a word",
        [add("text", "greeting", {"x": 60, "y": 120, "maxWidth": 400}, {"content": content, **data})],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "greeting")
    box(page, "greeting").dblclick()
    expect(editing(page)).to_be_focused()
    return design_id


def select_word_by_keyboard(page, before: int, length: int) -> None:
    """From the text's start, move `before` characters right, then select `length` with Shift."""
    page.keyboard.press("Home")
    for _ in range(before):
        page.keyboard.press("ArrowRight")
    for _ in range(length):
        page.keyboard.press("Shift+ArrowRight")


def selected_text(page) -> str:
    return editing(page).evaluate("el => el.value.slice(el.selectionStart, el.selectionEnd)")


def saved(alpha_api, design_id: str) -> dict:
    return node(alpha_api, design_id, "greeting")


def test_ctrl_b_bolds_exactly_the_selected_word_and_the_pdf_sets_it_bold(api_server, page, key, alpha_api):
    design_id = open_text(page, api_server, key, alpha_api)
    select_word_by_keyboard(page, 6, 5)
    assert selected_text(page) == "brave"
    page.keyboard.press("Control+b")
    expect(editing(page)).to_have_value("Hello **brave** world")
    assert selected_text(page) == "brave"  # the same word stays selected
    page.keyboard.press("Enter")
    wait_for(lambda: saved(alpha_api, design_id)["data"]["content"] == "Hello **brave** world", "the bold word")
    greeting = saved(alpha_api, design_id)
    assert greeting["data"]["markup"] == "markdown"  # the plain text now reads Markdown
    assert greeting["styles"].get("fontWeight", 400) == 400  # the whole text is not bold
    with page.expect_download() as download:
        page.locator(".dbk-generate button").click()
    pdf = Path(download.value.path()).read_bytes()
    faces = font_names(pdf)
    assert any("Bold" in face for face in faces) and any("Bold" not in face for face in faces), faces


def test_the_toolbar_b_bolds_the_selected_word_not_the_whole_text(api_server, page, key, alpha_api):
    design_id = open_text(page, api_server, key, alpha_api)
    editing(page).evaluate("el => el.setSelectionRange(0, 0)")
    page.keyboard.press("End")
    for _ in range(5):
        page.keyboard.press("Shift+ArrowLeft")
    assert selected_text(page) == "world"
    page.locator(".dbk-text-toolbar .dbk-format-bold button").click()
    expect(editing(page)).to_have_value("Hello brave **world**")
    expect(editing(page)).to_be_focused()  # still typing: the press kept the focus and the selection
    assert selected_text(page) == "world"
    editing(page).evaluate("el => el.setSelectionRange(0, 5)")  # "Hello"
    page.locator(".dbk-text-toolbar .dbk-format-italic button").click()
    expect(editing(page)).to_have_value("*Hello* brave **world**")
    page.keyboard.press("Enter")
    wait_for(lambda: saved(alpha_api, design_id)["data"]["content"] == "*Hello* brave **world**", "the two words")
    assert saved(alpha_api, design_id)["styles"].get("fontWeight", 400) == 400
    assert not saved(alpha_api, design_id)["styles"].get("italic", False)
    # Not typing, the element selected: B is the whole text's weight, as before.
    expect(editing(page)).to_have_count(0)
    page.locator(".dbk-text-toolbar .dbk-format-bold button").click()
    wait_for(lambda: saved(alpha_api, design_id)["styles"].get("fontWeight") == 700, "the whole text bold")
    assert saved(alpha_api, design_id)["data"]["content"] == "*Hello* brave **world**"


def test_ctrl_i_italicises_and_a_second_press_takes_it_off(api_server, page, key, alpha_api):
    design_id = open_text(page, api_server, key, alpha_api, "Hello **brave** world", markup="markdown")
    editing(page).evaluate("el => el.setSelectionRange(8, 13)")  # "brave", inside the bold markers
    assert selected_text(page) == "brave"
    page.keyboard.press("Control+i")
    expect(editing(page)).to_have_value("Hello ***brave*** world")  # bold and italic
    page.keyboard.press("Control+b")
    expect(editing(page)).to_have_value("Hello *brave* world")  # bold off, italic kept
    page.keyboard.press("Control+i")
    expect(editing(page)).to_have_value("Hello brave world")
    page.keyboard.press("Control+i")
    page.keyboard.press("Enter")
    wait_for(lambda: saved(alpha_api, design_id)["data"]["content"] == "Hello *brave* world", "the italic word")


def test_ctrl_k_asks_the_address_and_links_the_selected_word(api_server, page, key, alpha_api):
    design_id = open_text(page, api_server, key, alpha_api)
    select_word_by_keyboard(page, 6, 5)
    page.keyboard.press("Control+k")
    address = page.locator(".dbk-format-url")
    expect(address).to_be_focused()
    address.type("example.org/brave")
    address.press("Enter")
    expect(editing(page)).to_have_value("Hello [brave](https://example.org/brave) world")
    expect(editing(page)).to_be_focused()
    assert selected_text(page) == "brave"
    page.keyboard.press("Enter")
    wait_for(
        lambda: saved(alpha_api, design_id)["data"]["content"] == "Hello [brave](https://example.org/brave) world",
        "the link",
    )
    with page.expect_download() as download:
        page.locator(".dbk-generate button").click()
    assert "https://example.org/brave" in link_uris(Path(download.value.path()).read_bytes())


def test_the_bar_over_a_selected_part_toggles_a_link_off_and_bold_on(api_server, page, key, alpha_api):
    design_id = open_text(
        page, api_server, key, alpha_api, "Hello [brave](https://example.org) world", markup="markdown"
    )
    bar = page.locator(".dbk-format-bar")
    expect(bar).to_be_hidden()  # the whole text is selected: nothing for the bar
    editing(page).evaluate("el => el.setSelectionRange(7, 12)")
    expect(bar).to_be_visible()
    bar.locator(".dbk-bar-link").click()  # on a link: takes it off, no address asked
    expect(editing(page)).to_have_value("Hello brave world")
    assert selected_text(page) == "brave"
    bar.locator(".dbk-bar-bold").click()
    expect(editing(page)).to_have_value("Hello **brave** world")
    page.keyboard.press("Enter")
    wait_for(lambda: saved(alpha_api, design_id)["data"]["content"] == "Hello **brave** world", "bold, no link")


def test_a_plain_text_keeps_its_stars_literal_when_a_word_is_made_bold(api_server, page, key, alpha_api):
    design_id = open_text(page, api_server, key, alpha_api, "5*3 and [x] brave")
    editing(page).evaluate("el => el.setSelectionRange(12, 17)")
    page.keyboard.press("Control+b")
    expect(editing(page)).to_have_value("5\\*3 and \\[x\\] **brave**")
    page.keyboard.press("Enter")
    wait_for(lambda: saved(alpha_api, design_id)["data"].get("markup") == "markdown", "markdown on")
    assert saved(alpha_api, design_id)["data"]["content"] == "5\\*3 and \\[x\\] **brave**"
