"""Issue 14 in a real headless Chromium: the text toolbar, the properties panel that keeps its
place, the colour pickers, the left tabs at 1440 px, and names that work as variable names."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ...browser import box, new_design, node, open_design, select, sign_in, tree, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

# The properties column scrolls itself (Panel's scroll=True puts the overflow on its host).
SCROLL_TOP = "el => el.scrollTop"


def toolbar(page, field: str):
    return page.locator(f".dbk-text-toolbar .dbk-tt-{field}")


def test_style_a_title_from_the_text_toolbar_without_the_panel_collapsing_scrolling_or_rebuilding(
    api_server, page, key, alpha_api
):
    design_id = new_design(
        alpha_api,
        "Browser: toolbar",
        [
            add("text", "title", {"x": 60, "y": 60, "maxWidth": 400}, {"content": "Certificate of merit"}),
            add("shape", "band", {"x": 40, "y": 300, "w": 300, "h": 40}, styles={"fill": "#c0392b"}),
        ],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "title")
    panel = page.locator(".dbk-right")
    form = page.locator(".dbk-properties")
    styles = page.locator(".dbk-section-styles")
    expect(styles.get_by_text("Font size", exact=True)).to_be_visible()  # Styles first, and open
    panel.evaluate("el => { el.scrollTop = 240; }")
    wait_for(lambda: panel.evaluate(SCROLL_TOP) > 100, "the properties panel scrolled")
    scrolled = panel.evaluate(SCROLL_TOP)
    form.evaluate("el => { el.dataset.probe = 'the form first built'; }")  # gone if the form is rebuilt

    def saved() -> dict:
        return node(alpha_api, design_id, "title")["styles"]

    toolbar(page, "fontFamily").locator("button").click()
    page.locator(".dbk-tt-fonts .dbk-option[data-value='Roboto']").click()
    wait_for(lambda: saved().get("fontFamily") == "Roboto", "the family")
    expect(page.locator(".dbk-tt-fonts")).to_be_hidden()  # a pick closes the list
    size = toolbar(page, "fontSize").locator("input")
    size.fill("28")
    size.press("Enter")
    wait_for(lambda: saved().get("fontSize") == 28, "the size")
    toolbar(page, "fontWeight").locator("button").click()
    wait_for(lambda: saved().get("fontWeight") == 700, "bold")
    toolbar(page, "color").locator(".dbk-swatch[data-colour='#c0392b']").click()  # the design's colour
    wait_for(lambda: saved().get("color") == "#c0392b", "the colour from a swatch")
    toolbar(page, "align").locator("button", has_text="Center").click()
    wait_for(lambda: saved().get("align") == "center", "the alignment")

    # The form showed each new value in place: the same form, Styles open, the scroll where it was.
    expect(styles.get_by_role("textbox", name="Font size", exact=True)).to_have_value("28")
    expect(form).to_have_attribute("data-probe", "the form first built")
    expect(styles.get_by_text("Font size", exact=True)).to_be_visible()
    assert abs(panel.evaluate(SCROLL_TOP) - scrolled) <= 1
    # The echoes of those in-place settings saved nothing: one history step per toolbar change.
    page.locator(".dbk-undo button").click()
    wait_for(lambda: saved().get("align", "left") == "left", "undo: the alignment only")
    assert saved()["color"] == "#c0392b" and saved()["fontSize"] == 28


def test_a_multi_selection_of_two_texts_gets_one_size_in_one_undo_step(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: shared size",
        [
            add("text", "first", {"x": 60, "y": 60}, {"content": "One"}, styles={"fontSize": 12}),
            add("text", "second", {"x": 60, "y": 200}, {"content": "Two"}, styles={"fontSize": 20}),
            add("shape", "frame", {"x": 300, "y": 60, "w": 80, "h": 80}, styles={"fill": "#eeeeee"}),
        ],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "first")
    box(page, "second").click(modifiers=["Shift"])
    box(page, "frame").click(modifiers=["Shift"])  # a shape has no text styles: left as it is
    expect(page.locator(".dbk-properties-host .dbk-hint")).to_have_text("3 elements selected.")
    size = toolbar(page, "fontSize").locator("input")
    size.fill("30")
    size.press("Enter")

    def sizes() -> list[float]:
        return [node(alpha_api, design_id, name)["styles"].get("fontSize") for name in ("first", "second")]

    wait_for(lambda: sizes() == [30, 30], "both texts at 30 pt")
    assert "fontSize" not in node(alpha_api, design_id, "frame").get("styles", {})
    page.locator(".dbk-undo button").click()
    wait_for(lambda: sizes() == [12, 20], "one undo: both sizes back")


def test_pick_colours_with_a_swatch_a_hex_entry_none_and_a_gradient(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api,
        "Browser: colours",
        [
            add("shape", "plate", {"x": 60, "y": 60, "w": 200, "h": 100}, styles={"fill": "#eeeeee"}),
            add("text", "label", {"x": 60, "y": 300}, {"content": "Label"}, styles={"color": "#2e86de"}),
        ],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "plate")
    fill = page.locator(".dbk-properties .dbk-colour", has=page.locator(".dbk-colour-caption", has_text="Fill"))
    fill.locator(".dbk-swatch[data-colour='#2e86de']").click()  # the text's colour, offered to the shape
    wait_for(lambda: node(alpha_api, design_id, "plate")["styles"].get("fill") == "#2e86de", "the swatch")
    entry = fill.locator(".dbk-colour-hex")
    entry.fill("#12345")  # not a colour: marked, nothing saved
    entry.press("Enter")
    expect(entry).to_have_class("dbk-colour-hex invalid")
    entry.fill("#123456")
    entry.press("Enter")
    wait_for(lambda: node(alpha_api, design_id, "plate")["styles"].get("fill") == "#123456", "the hex entry")
    expect(fill).to_have_attribute("data-value", "#123456")
    fill.locator(".dbk-colour-none").click()
    wait_for(lambda: node(alpha_api, design_id, "plate")["styles"].get("fill") is None, "no fill")
    # A background still takes a gradient, typed.
    page.locator(".bk-tab", has_text="Document").click()
    gradient = "linear-gradient(90deg, #ff0000, #0000ff)"
    document = page.locator(".dbk-colour", has=page.locator(".dbk-colour-caption", has_text="Document background"))
    background = document.locator(".dbk-colour-hex")
    background.fill(gradient)
    background.press("Enter")
    wait_for(lambda: tree(alpha_api, design_id)["background"].get("backgroundColor") == gradient, "the gradient")


def test_the_left_tabs_fit_at_1440_px_without_scrolling(api_server, page, key, alpha_api):
    design_id = new_design(alpha_api, "Browser: tabs")
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    header = page.locator(".dbk-side-tabs .bk-header")
    tabs = page.locator(".dbk-side-tabs .bk-tab")
    expect(tabs.first).to_be_visible()
    assert tabs.count() >= 5
    room = header.bounding_box()
    for tab in tabs.all():
        area = tab.bounding_box()
        assert room["x"] <= area["x"] and area["x"] + area["width"] <= room["x"] + room["width"] + 0.5, tab.inner_text()
        assert tab.evaluate("el => el.scrollWidth <= el.clientWidth"), tab.inner_text()  # its title is not cut
    assert header.evaluate("el => el.scrollWidth <= el.clientWidth")


def test_new_elements_and_their_copies_are_named_as_variables(api_server, page, key, alpha_api):
    design_id = new_design(alpha_api, "Browser: names")
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    page.locator(".dbk-add-text button").click()
    wait_for(lambda: [n["name"] for n in tree(alpha_api, design_id)["nodes"].values()] == ["text_1"], "text_1")
    select(page, "text_1")
    page.keyboard.press("Control+c")
    page.keyboard.press("Control+v")
    wait_for(lambda: len(tree(alpha_api, design_id)["nodes"]) == 2, "the pasted copy")
    assert sorted(n["name"] for n in tree(alpha_api, design_id)["nodes"].values()) == ["text_1", "text_2"]
