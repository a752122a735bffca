"""The properties form of a form field (extensions.md 13): its value is edited as its fieldType
takes it, options and maxLength only where they apply, and a new fieldType brings what makes it
valid and a fitting size (engine.elements.field_editor, declared on the type's EditorHints)."""

from __future__ import annotations

import pytest

from engine import apply
from engine.elements import ELEMENT_TYPES
from workbench.editor.properties import element_form, form_shape, variable_widget

from ...conftest import add, build

FIELD = ELEMENT_TYPES["field"]
CHOICES = [{"value": "fr", "label": "France"}, {"value": "de"}]


def field(data: dict, position: dict | None = None):
    tree = build([add("field", "f", {"x": 10, "y": 10, "w": 200, "h": 24, **(position or {})}, data)])
    return next(iter(tree.nodes.values()))


def data_widgets(node) -> dict[str, object]:
    card = element_form(node, lambda actions: None).sections["data"]
    return {widget.name: widget for widget in card.objects if getattr(widget, "name", "")}


@pytest.mark.parametrize(
    ("data", "widget", "shown"),
    [
        ({"value": "Ada"}, "TextInput", "Ada"),
        ({"fieldType": "multiline", "value": "a\nb"}, "TextAreaInput", "a\nb"),
        ({"fieldType": "checkbox", "value": True}, "Checkbox", True),
        ({"fieldType": "select", "options": CHOICES, "value": "de"}, "Select", "de"),
        ({"fieldType": "date", "value": "2026-11-27"}, "DatePicker", "2026-11-27"),
    ],
)
def test_the_value_is_edited_with_the_widget_its_field_type_takes(data, widget, shown):
    value = data_widgets(field(data))["Value"]
    assert type(value).__name__ == widget
    assert (value.value.isoformat() if widget == "DatePicker" else value.value) == shown


def test_a_choices_value_offers_its_options_by_label_and_the_options_are_lines():
    widgets = data_widgets(field({"fieldType": "radio", "options": CHOICES, "value": "fr"}))
    assert widgets["Value"].options == {"(none)": "", "France": "fr", "de": "de"}
    assert widgets["Options"].value == "fr | France\nde"
    assert "Max length" not in widgets


def test_a_signature_has_no_value_and_options_only_choices_have():
    widgets = data_widgets(field({"fieldType": "signature"}))
    assert "Value" not in widgets and "Options" not in widgets and "Max length" not in widgets
    assert "Max length" in data_widgets(field({"fieldType": "text"}))


def test_options_typed_as_lines_are_saved_as_options():
    node = field({"fieldType": "select", "options": CHOICES})
    sent: list[list[dict]] = []
    widgets = {w.name: w for w in element_form(node, sent.append).sections["data"].objects if getattr(w, "name", "")}
    widgets["Options"].value = "fr | France\n\n it |Italy \nde"
    assert sent[-1][0]["args"]["data"]["options"] == [
        {"value": "fr", "label": "France"},
        {"value": "it", "label": "Italy"},
        {"value": "de"},
    ]


def test_a_new_field_type_brings_options_a_value_it_takes_and_a_fitting_size():
    text = field({"value": "Ada", "maxLength": 20})
    to_box = FIELD.editor.edited(text, {"data": {"fieldType": "checkbox"}})
    assert to_box["data"] == {"fieldType": "checkbox", "maxLength": None, "value": None}
    assert to_box["position"]["w"] == to_box["position"]["h"] < 24
    to_radio = FIELD.editor.edited(text, {"data": {"fieldType": "radio"}})
    assert len(to_radio["data"]["options"]) == 2 and to_radio["data"]["value"] is None
    tree = build([add("field", "f", {"x": 10, "y": 10, "w": 200, "h": 24}, {"value": "Ada", "maxLength": 20})])
    tree, _ = apply(tree, [{"type": "update_element", "args": {"name": "f", **to_radio}}])  # a valid change
    radio = next(iter(tree.nodes.values()))
    assert radio.data.fieldType == "radio" and radio.position.h == to_radio["position"]["h"]
    # More options: the group's rows keep their height.
    grown = FIELD.editor.edited(radio, {"data": {"options": [*to_radio["data"]["options"], {"value": "option3"}]}})
    assert grown["position"]["h"] == pytest.approx(radio.position.h * 3 / 2)


def test_a_form_field_gets_a_new_form_when_its_type_changes_the_widgets():
    assert form_shape(field({"fieldType": "checkbox"})) != form_shape(field({"fieldType": "text"}))
    assert form_shape(field({"value": "a"})) == form_shape(field({"value": "b"}))


def test_a_bound_fields_sample_is_edited_as_its_value():
    sent: list[list[dict]] = []
    sample = variable_widget(field({"fieldType": "checkbox", "value": True}), sent.append)
    assert type(sample).__name__ == "Checkbox" and sample.value is True
    sample.value = False
    assert sent[-1][0]["args"]["data"] == {"value": False}


def test_new_options_without_the_chosen_one_leave_none_chosen():
    node = field({"fieldType": "select", "options": CHOICES, "value": "de"})
    kept = FIELD.editor.edited(node, {"data": {"options": [*CHOICES, {"value": "it"}]}})
    assert "value" not in kept["data"]
    gone = FIELD.editor.edited(node, {"data": {"options": [{"value": "fr"}]}})
    assert gone["data"] == {"options": [{"value": "fr"}], "value": None}
