"""Issue 37 in a real headless Chromium: each form field type (extensions.md 13) is placed from
the toolbar, given its type, name, options and value in the properties form, and the PDF the
editor generates through the service holds the seven fields with those types and values."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import expect

from tests.pdf_probes import editor_form_fields

from ...browser import ARTIFACTS, box, new_design, node, open_design, select, sign_in, tree, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

DOCS_IMAGES = Path(__file__).resolve().parents[3] / "docs" / "images"
RADIO_OPTIONS = "yes | Yes please\nno | No thanks\nmaybe"
SELECT_OPTIONS = "fr | France\nde | Germany\nit | Italy"
# Where each field goes, down the page: text, multiline, checkbox, radio, select, date, signature.
TOPS = (60, 100, 190, 225, 305, 345, 385)


def fields(api, design_id: str) -> dict[str, dict]:
    return {n["name"]: n for n in tree(api, design_id)["nodes"].values() if n["type"] == "field"}


def commit(locator, text: str) -> None:
    """Type into an input and commit it as a person does (Enter; a text area commits on leaving it)."""
    locator.fill(text)
    if locator.evaluate("element => element.tagName") == "TEXTAREA":
        locator.blur()
    else:
        locator.press("Enter")


def place(page, api, design_id: str, number: int) -> tuple[str, object]:
    """A new field from the toolbar, selected, its form shown: (its name, the form's data card)."""
    before = set(fields(api, design_id))
    page.locator(".dbk-add-field button").click()
    wait_for(lambda: len(fields(api, design_id)) == len(before) + 1, "a new form field")
    (name,) = set(fields(api, design_id)) - before
    form = page.locator(".dbk-properties")
    expect(form.locator("input[type=text]").first).to_have_value(name)
    # Stacked down the page (each new field lands in the middle of the view).
    position = form.locator(".dbk-section-position")
    for axis, value in (("X", 60), ("Y", TOPS[number])):
        commit(position.get_by_role("textbox", name=axis, exact=True), str(value))
        wait_for(lambda axis=axis, value=value: fields(api, design_id)[name]["position"][axis.lower()] == value, axis)
    return name, form.locator(".dbk-section-data")


def tick(data, key: str) -> None:
    """Tick the form's check box of a data key (Bokeh's check box has no accessible name)."""
    data.locator(f".dbk-field-data-{key} input[type=checkbox]").check()


# What the form shows for a field's value once it is rebuilt for the new type (a widget per type).
VALUE_WIDGET = {
    "multiline": ".dbk-field-data-value textarea",
    "checkbox": ".dbk-field-data-value input[type=checkbox]",
    "radio": ".dbk-field-data-options textarea",
    "select": ".dbk-field-data-options textarea",
    "date": ".dbk-field-data-value input.flatpickr-input",
}


def choose_type(page, api, design_id: str, name: str, kind: str) -> None:
    data = page.locator(".dbk-properties .dbk-section-data")
    data.get_by_role("combobox", name="Field type").select_option(kind)
    wait_for(lambda: fields(api, design_id)[name]["data"]["fieldType"] == kind, f"{name}: {kind}")
    if kind == "signature":
        expect(data.locator(".dbk-field-data-value")).to_have_count(0)
    else:
        expect(data.locator(VALUE_WIDGET[kind]).first).to_be_attached()


def variables(api, design_id: str) -> dict[str, dict]:
    listed = api.data(api.get(f"/designs/{design_id}/variables"), 200)["variables"]
    return {variable["name"]: variable for variable in listed}


def saved(api, design_id: str, name: str) -> dict:
    return fields(api, design_id)[name]["data"]


def test_each_field_type_is_placed_and_filled_in_the_editor_and_generated(api_server, page, key, alpha_api):
    page.set_viewport_size({"width": 1440, "height": 900})
    design_id = new_design(alpha_api, "Browser: form fields")
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    expect(page.locator(".dbk-add-field button")).to_have_text("+ Form field")

    # Text: the default type; its name, value, required, maxLength and tooltip.
    name, data = place(page, alpha_api, design_id, 0)
    commit(data.get_by_role("textbox", name="Field name"), "fullName")
    wait_for(lambda: saved(alpha_api, design_id, name).get("fieldName") == "fullName", "field name")
    commit(data.get_by_role("textbox", name="Value", exact=True), "Ada Lovelace")
    wait_for(lambda: saved(alpha_api, design_id, name).get("value") == "Ada Lovelace", "text value")
    tick(data, "required")
    commit(data.get_by_role("textbox", name="Max length"), "40")
    commit(data.get_by_role("textbox", name="Tooltip"), "Your full name")
    wait_for(
        lambda: (
            saved(alpha_api, design_id, name).get("tooltip") == "Your full name"
            and saved(alpha_api, design_id, name).get("maxLength") == 40
            and saved(alpha_api, design_id, name).get("required") is True
        ),
        "required, max length, tooltip",
    )

    # Multiline: its value over two lines in a text area; read-only.
    name, data = place(page, alpha_api, design_id, 1)
    choose_type(page, alpha_api, design_id, name, "multiline")
    commit(data.get_by_role("textbox", name="Field name"), "notes")
    commit(data.get_by_role("textbox", name="Value", exact=True), "First line\nSecond line")
    wait_for(lambda: saved(alpha_api, design_id, name).get("value") == "First line\nSecond line", "multiline value")
    tick(data, "readOnly")
    wait_for(lambda: saved(alpha_api, design_id, name).get("readOnly") is True, "read only")

    # Checkbox: the box becomes a square, and its value is a check box (no max length offered).
    name, data = place(page, alpha_api, design_id, 2)
    choose_type(page, alpha_api, design_id, name, "checkbox")
    position = fields(alpha_api, design_id)[name]["position"]
    assert position["w"] == position["h"] < 24  # a fitting square, not the text field's 200 × 24
    commit(data.get_by_role("textbox", name="Field name"), "agree")
    expect(data.get_by_role("textbox", name="Max length")).to_have_count(0)
    tick(data, "value")
    wait_for(lambda: saved(alpha_api, design_id, name).get("value") is True, "checkbox ticked")

    # Radio: options typed one per line, the value chosen among them by label; a row per option.
    name, data = place(page, alpha_api, design_id, 3)
    answer = name
    choose_type(page, alpha_api, design_id, name, "radio")
    commit(data.get_by_role("textbox", name="Field name"), "answer")
    commit(data.get_by_role("textbox", name="Options"), RADIO_OPTIONS)
    wait_for(lambda: len(saved(alpha_api, design_id, name).get("options", [])) == 3, "radio options")
    # The group's rows keep their height: its box grew by a row with the third option.
    assert fields(alpha_api, design_id)[name]["position"]["h"] == pytest.approx(63)
    assert saved(alpha_api, design_id, name)["options"] == [
        {"value": "yes", "label": "Yes please"},
        {"value": "no", "label": "No thanks"},
        {"value": "maybe", "label": None},
    ]
    data.get_by_role("combobox", name="Value", exact=True).select_option(label="No thanks")
    wait_for(lambda: saved(alpha_api, design_id, name).get("value") == "no", "radio value")

    # Select.
    name, data = place(page, alpha_api, design_id, 4)
    choose_type(page, alpha_api, design_id, name, "select")
    commit(data.get_by_role("textbox", name="Field name"), "country")
    commit(data.get_by_role("textbox", name="Options"), SELECT_OPTIONS)
    wait_for(lambda: len(saved(alpha_api, design_id, name).get("options", [])) == 3, "select options")
    data.get_by_role("combobox", name="Value", exact=True).select_option(label="Italy")
    wait_for(lambda: saved(alpha_api, design_id, name).get("value") == "it", "select value")

    # Date: picked in the date picker's calendar, saved as YYYY-MM-DD.
    name, data = place(page, alpha_api, design_id, 5)
    choose_type(page, alpha_api, design_id, name, "date")
    commit(data.get_by_role("textbox", name="Field name"), "signedOn")
    data.locator(".dbk-field-data-value input:visible").click()
    day = page.locator(".flatpickr-calendar.open .flatpickr-day:not(.prevMonthDay):not(.nextMonthDay)", has_text="15")
    picked = dt.datetime.strptime(day.first.get_attribute("aria-label"), "%B %d, %Y").date().isoformat()
    day.first.click()
    wait_for(lambda: saved(alpha_api, design_id, name).get("value") == picked, "date value")

    # Signature: no value to give.
    name, data = place(page, alpha_api, design_id, 6)
    choose_type(page, alpha_api, design_id, name, "signature")
    commit(data.get_by_role("textbox", name="Field name"), "signature")
    wait_for(lambda: saved(alpha_api, design_id, name).get("fieldName") == "signature", "signature name")
    expect(data.get_by_text("Value", exact=True)).to_have_count(0)

    for placed in fields(alpha_api, design_id):
        expect(box(page, placed)).to_have_count(1)  # on the canvas, where a click selects it
    select(page, answer)  # the radio group: its options and value in the form
    # The page's preview shows each widget as the PDF does: the text field's border and value.
    area = box(page, "field_1").bounding_box()

    def dark_pixels() -> int:
        shot = Image.open(io.BytesIO(page.screenshot(clip=area))).convert("L")
        return sum(1 for value in shot.tobytes() if value < 128)

    wait_for(lambda: dark_pixels() > 100, "the text field drawn in the preview")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "editor-form-fields.png"))
    page.screenshot(path=str(DOCS_IMAGES / "editor-form-fields.png"))

    with page.expect_download() as download:
        page.locator(".dbk-generate button").click()
    made = editor_form_fields(Path(download.value.path()).read_bytes())
    assert {name: (field["fieldType"], field["value"]) for name, field in made.items()} == {
        "fullName": ("text", "Ada Lovelace"),
        "notes": ("multiline", "First line\nSecond line"),
        "agree": ("checkbox", True),
        "answer": ("radio", "no"),
        "country": ("select", "it"),
        "signedOn": ("date", picked),
        "signature": ("signature", None),
    }
    assert made["country"]["options"] == [["fr", "France"], ["de", "Germany"], ["it", "Italy"]]
    assert made["answer"]["widgets"] == made["answer"]["appearances"] == 3
    assert (made["fullName"]["required"], made["fullName"]["maxLength"], made["fullName"]["tooltip"]) == (
        True,
        40,
        "Your full name",
    )
    assert made["notes"]["readOnly"] is True
    assert all(field["appearances"] == field["widgets"] for field in made.values())
    assert node(alpha_api, design_id, "field_1")["type"] == "field"


def downloaded_fields(page, button: str) -> dict[str, dict]:
    with page.expect_download() as download:
        page.locator(f"{button} button").click()
    return editor_form_fields(Path(download.value.path()).read_bytes())


def test_a_bound_checkbox_is_a_field_value_variable_tried_and_generated_as_a_boolean(api_server, page, key, alpha_api):
    page.set_viewport_size({"width": 1440, "height": 900})
    design_id = new_design(
        alpha_api,
        "Browser: a bound checkbox",
        [add("field", "agree", {"x": 60, "y": 60, "w": 16, "h": 16}, {"fieldType": "checkbox", "value": True})],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)

    page.locator(".bk-tab", has_text="Variables").click()
    page.locator(".dbk-bind input").check()
    wait_for(lambda: "agree" in variables(alpha_api, design_id), "the field bound")
    assert variables(alpha_api, design_id)["agree"]["kind"] == "field-value"
    # Its sample is the field's value, edited as the check box it is.
    sample = page.locator(".dbk-sample input[type=checkbox]")
    expect(sample).to_be_checked()
    sample.uncheck()
    wait_for(lambda: node(alpha_api, design_id, "agree")["data"].get("value") is False, "the sample unticked")

    page.locator(".bk-tab", has_text="Try values").click()
    expect(page.locator(".dbk-try-agree label")).to_contain_text("field-value")
    page.locator(".dbk-try-agree input").fill("yes")
    page.locator(".dbk-try-agree input").press("Enter")
    page.locator(".dbk-try-show button").click()
    expect(page.locator(".dbk-generate-tried button")).to_be_visible()
    assert downloaded_fields(page, ".dbk-generate-tried")["agree"]["value"] is True
    assert downloaded_fields(page, ".dbk-generate")["agree"]["value"] is False  # the sample
