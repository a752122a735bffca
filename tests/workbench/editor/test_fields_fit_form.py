"""Issue 15, point 6 without a browser: the properties form edits fields, fitting, markup,
links, repeat and showIf through widgets generated from the models; "Insert field" is one
batch; the Variables panel lists field variables with their samples."""

from __future__ import annotations

import panel as pn
import pytest

from engine import apply, new_design
from engine.elements import ELEMENT_TYPES
from engine.errors import EngineError
from engine.text.placeholders import fill
from tests.panel_widgets import by_label
from workbench.editor import geometry
from workbench.editor.colour_picker import ColourPicker
from workbench.editor.properties import BY_EXPRESSION, NO_CONDITION, element_form
from workbench.editor.session import changes_nothing

from ...conftest import add


@pytest.fixture
def letter():
    tree, _ = apply(
        new_design(),
        [
            add("text", "greeting", {"x": 20, "y": 20, "maxWidth": 200}, {"content": "Dear reader"}),
            add("text", "recipient", {"x": 20, "y": 80}, {"content": "Grace"}),
            add("table", "items", {"x": 20, "y": 140}, {"cells": [["a", "b"], ["1", "2"]]}),
            {"type": "bind_variable", "args": {"name": "recipient"}},
        ],
    )
    return tree


def show(form, tree, node_id):
    form.show_node(tree.nodes[node_id], (), list(tree.variables))


def test_every_new_text_key_gets_a_widget_fitting_its_type(letter):
    node = letter.node_by_name("greeting")
    widgets = by_label(element_form(node, lambda batch: None, variables=list(letter.variables)))
    assert widgets["Fit"].options == ["none", "shrink"]
    assert isinstance(widgets["Min font size"], pn.widgets.FloatInput)
    assert isinstance(widgets["Max lines"], pn.widgets.IntInput)
    assert widgets["Overflow"].options == ["visible", "ellipsis", "clip", "flow"]
    assert widgets["Markup"].options == ["none", "markdown"]
    assert isinstance(widgets["Fields"], pn.widgets.Checkbox)
    assert isinstance(widgets["Link"], pn.widgets.TextInput)
    assert isinstance(widgets["Max height"], pn.widgets.FloatInput)
    assert widgets["Text transform"].options == ["none", "uppercase", "lowercase", "capitalize"]
    assert widgets["Vertical align"].options == ["top", "middle", "bottom"]
    assert isinstance(widgets["Background color"], ColourPicker) and widgets["Background color"].optional
    assert isinstance(widgets["Link color"], ColourPicker) and not widgets["Link color"].optional
    for label in ("Strikethrough",):
        assert isinstance(widgets[label], pn.widgets.Checkbox)
    for label in ("Letter spacing", "Padding", "Border radius"):
        assert isinstance(widgets[label], pn.widgets.FloatInput)


@pytest.mark.parametrize("element_type", sorted(ELEMENT_TYPES))
def test_every_element_type_has_show_if_and_repeat_unless_it_always_splits(element_type):
    tree = new_design()
    tree, _ = apply(tree, [geometry.new_element(tree, element_type, 0, (40, 40))])
    node = next(iter(tree.nodes.values()))
    widgets = by_label(element_form(node, lambda batch: None))
    assert widgets["Show if (a variable's value is not empty, or an expression is true)"].value == NO_CONDITION
    assert "Equals (optional)" in widgets and "Not equals (optional)" in widgets
    repeats = ELEMENT_TYPES[element_type].splits is False
    assert ("Repeat on sheets" in widgets) == repeats
    if repeats:
        assert widgets["Repeat on sheets"].options == ["none", "sheets", "pages"]


def test_insert_field_is_one_batch_turning_fields_on_and_its_sample_is_edited_per_placeholder(letter):
    sent: list[list[dict]] = []
    node = letter.node_by_name("greeting")
    form = element_form(node, sent.append, variables=list(letter.variables))
    widgets = by_label(form)
    assert widgets["Field name"].options == ["recipient"]  # the design's variables are offered
    widgets["Field name"].value = "name"
    widgets["Insert field"].clicks += 1
    assert len(sent) == 1 and len(sent[0]) == 1  # one action: one undo step
    assert sent[0][0]["args"]["data"] == {"content": "Dear reader {name}", "fields": True}
    tree, _ = apply(letter, sent[0])
    assert tree.variables["name"].kind == "field"
    show(form, tree, node.id)
    assert all(changes_nothing(tree, batch) for batch in sent[1:])  # the echoes save nothing
    sample = by_label(form)["{name}"]
    sample.value = "Ada Lovelace-Byron"
    assert sent[-1][0]["args"]["data"] == {"samples": {"name": "Ada Lovelace-Byron"}}
    tree, _ = apply(tree, sent[-1])
    saved = tree.nodes[node.id]
    assert fill(saved.data.content, saved.data.samples) == "Dear reader Ada Lovelace-Byron"
    show(form, tree, node.id)
    assert by_label(form)["{name}"] is sample and sample.value == "Ada Lovelace-Byron"  # shown in place
    assert by_label(form)["Field name"].options == ["recipient", "name"]


def test_inserting_the_first_field_keeps_braces_already_typed_literal():
    tree, _ = apply(new_design(), [add("text", "t", {"x": 0, "y": 0}, {"content": "set {a}"})])
    node = tree.node_by_name("t")
    changes = ELEMENT_TYPES["text"].fields.insert(node, "b")
    assert changes == {"data": {"content": "set {{a}} {b}", "fields": True}}
    after, _ = apply(tree, [{"type": "update_element", "args": {"id": node.id, **changes}}])
    assert list(after.variables) == ["b"]
    items, _ = apply(
        new_design(), [add("text", "l", {"x": 0, "y": 0}, {"content": ["one", "two"], "listFormat": "ordered"})]
    )
    listed = items.node_by_name("l")
    assert ELEMENT_TYPES["text"].fields.insert(listed, "n")["data"]["content"] == ["one", "two {n}"]


def test_show_if_names_a_variable_compares_optionally_and_its_echoes_change_nothing(letter):
    tree = letter
    sent: list[list[dict]] = []
    node = tree.node_by_name("greeting")
    form = element_form(node, sent.append, variables=list(tree.variables))
    widgets = by_label(form)
    variable = widgets["Show if (a variable's value is not empty, or an expression is true)"]
    assert variable.options == [NO_CONDITION, BY_EXPRESSION, "recipient"]
    variable.value = "recipient"
    assert sent[-1][0]["args"] == {"id": node.id, "showIf": {"variable": "recipient"}}
    tree, _ = apply(tree, sent[-1])
    show(form, tree, node.id)
    widgets["Not equals (optional)"].value = "Grace"
    assert sent[-1][0]["args"]["showIf"] == {"variable": "recipient", "notEquals": "Grace"}
    tree, _ = apply(tree, sent[-1])
    count = len(sent)
    show(form, tree, node.id)
    assert all(changes_nothing(tree, batch) for batch in sent[count:])
    widgets["Repeat on sheets"].value = "pages"
    tree, _ = apply(tree, sent[-1])
    assert tree.nodes[node.id].repeat == "pages"
    variable.value = NO_CONDITION
    tree, _ = apply(tree, sent[-1])
    assert tree.nodes[node.id].showIf is None


def test_a_link_with_a_refused_scheme_is_refused_by_the_engine_naming_the_fix(letter):
    sent: list[list[dict]] = []
    node = letter.node_by_name("greeting")
    by_label(element_form(node, sent.append))["Link"].value = "javascript:alert(1)"
    assert sent[-1][0]["args"]["data"] == {"link": "javascript:alert(1)"}
    # The service gives the same refusal; the editor shows it as its message (Editor.run).
    with pytest.raises(EngineError, match="a link starts with https:, http: or mailto:"):
        apply(letter, sent[-1])


def test_the_variables_panel_lists_field_variables_with_their_samples_and_edits_them_everywhere():
    from workbench.editor.panels import field_rows

    fielded = {"content": "Dear {name}", "fields": True, "samples": {"name": "Ada"}}
    tree, _ = apply(
        new_design(),
        [
            add("text", "opening", {"x": 0, "y": 0}, fielded),
            add("text", "closing", {"x": 0, "y": 50}, {"content": "Bye {name}", "fields": True}),
        ],
    )
    sent: list[list[dict]] = []
    rows = field_rows(tree, sent.append)
    (sample,) = [row for row in rows if isinstance(row, pn.widgets.TextInput)]
    assert sample.name == "{name} (field, in opening, closing)" and sample.value == "Ada"
    sample.value = "Grace"
    after, _ = apply(tree, sent[-1])  # one batch: every holder's sample
    assert [after.node_by_name(n).data.samples for n in ("opening", "closing")] == [{"name": "Grace"}] * 2
    assert field_rows(new_design(), sent.append) == []


def test_a_stored_number_to_compare_shows_as_the_engine_compares_it(letter):
    # An agent may store a JSON number; the box shows it as showIf compares it, so touching
    # the form never saves another value (1234567.5, not 1.23457e+06; 3.0 as "3").
    for stored, shown in ((1234567.5, "1234567.5"), (3.0, "3")):
        condition = {"variable": "recipient", "equals": stored}
        tree, _ = apply(letter, [{"type": "update_element", "args": {"name": "greeting", "showIf": condition}}])
        sent: list[list[dict]] = []
        widgets = by_label(element_form(tree.node_by_name("greeting"), sent.append, variables=list(tree.variables)))
        assert widgets["Equals (optional)"].value == shown
        assert sent == []
