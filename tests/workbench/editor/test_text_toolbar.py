"""Issue 14 without a browser: the text toolbar's declaration and batches, the design's colours,
the properties form shown in place, and names that work as variable names."""

from __future__ import annotations

import pytest

from engine import apply, new_design
from engine.elements import ELEMENT_TYPES, EditorHints, ElementType
from engine.elements.text import ELEMENT as TEXT
from workbench.editor import geometry
from workbench.editor.colour_picker import design_colours, normal_hex
from workbench.editor.properties import element_form
from workbench.editor.session import changes_nothing
from workbench.editor.text_toolbar import BOLD, REGULAR, TextToolbar, offered_fields, shown_values, style_batch

from ...conftest import action, add


@pytest.fixture
def styled():
    tree, _ = apply(
        new_design(),
        [
            add("text", "title", {"x": 10, "y": 10}, {"content": "Hi"}, styles={"fontSize": 12, "color": "#C0392B"}),
            add("text", "subtitle", {"x": 10, "y": 60}, {"content": "there"}, styles={"fontSize": 20}),
            add("table", "items", {"x": 10, "y": 120}, {"cells": [["a", "b"], ["1", "2"]]}),
            add("shape", "band", {"x": 10, "y": 300, "w": 50, "h": 10}, styles={"fill": "#c0392b"}),
        ],
    )
    return tree


def test_the_toolbar_offers_what_the_types_declare_and_every_declared_field_exists():
    assert TEXT.editor.text_toolbar[:2] == ("fontFamily", "fontSize")
    assert "underline" not in ELEMENT_TYPES["table"].editor.text_toolbar  # a table cannot underline
    assert not ELEMENT_TYPES["shape"].editor.text_toolbar
    assert list(offered_fields()) == list(TEXT.editor.text_toolbar)  # the table's fields are the text's, in its order
    fields = {name: getattr(TEXT, name) for name in ("summary", "Position", "Data", "Styles", "measure", "draw")}
    with pytest.raises(KeyError, match="styles has no field 'shadow'"):
        ElementType(name="broken", variable=None, **fields, editor=EditorHints(text_toolbar=("shadow",)))


def test_the_alignment_offers_start_and_end_and_says_what_they_mean(styled):
    sent: list[list[dict]] = []
    bar = TextToolbar(apply=sent.append)
    align = bar._controls["align"].view
    assert align.options == {
        "Left": "left",
        "Center": "center",
        "Right": "right",
        "Justify": "justify",
        "Start": "start",
        "End": "end",
    }
    assert "start and end are logical" in align.description and "start is left" in align.description
    bar.show([styled.node_by_name("title")], styled)
    align.value = "end"
    (batch,) = sent
    assert batch == [
        {"type": "update_element", "args": {"id": styled.node_by_name("title").id, "styles": {"align": "end"}}}
    ]


def test_a_style_batch_changes_every_selected_element_offering_the_field_in_one_batch(styled):
    selected = [styled.node_by_name(n) for n in ("title", "subtitle", "items", "band")]
    batch = style_batch(selected, "fontSize", 30)
    assert [a["args"]["id"] for a in batch] == [n.id for n in selected[:3]]  # the shape has no font size
    after, _ = apply(styled, batch)
    assert [after.node_by_name(n).styles.fontSize for n in ("title", "subtitle", "items")] == [30, 30, 30]
    assert style_batch(selected, "underline", True) == style_batch(selected[:2], "underline", True)


def test_the_toolbar_shows_the_first_selected_value_and_its_own_settings_send_nothing(styled):
    sent: list[list[dict]] = []
    bar = TextToolbar(apply=sent.append)
    title, subtitle, band = (styled.node_by_name(n) for n in ("title", "subtitle", "band"))
    assert shown_values([band]) == {}
    bar.show([title, subtitle], styled)
    size = bar._controls["fontSize"].view
    assert size.value == 12 and size.visible
    bar.show([subtitle, title], styled)  # 20 shown now: the setting is not an edit of both
    assert size.value == 20 and sent == []
    size.value = 16  # a person's edit: both texts, one batch
    assert len(sent) == 1 and [a["args"]["styles"] for a in sent[0]] == [{"fontSize": 16}] * 2
    weight = bar._controls["fontWeight"]
    weight.view.value = True
    assert sent[-1][0]["args"]["styles"] == {"fontWeight": BOLD} and weight.stored(False) == REGULAR
    bar.show([band], styled)
    assert not size.visible and bar._hint.visible


def test_design_colours_are_the_distinct_colours_used_most_used_first(styled):
    tree, _ = apply(
        styled,
        [
            action("set_page_background", page=0, backgroundColor="linear-gradient(90deg, #ffffff, #0000ff)"),
            action("set_document_background", backgroundColor="#FFF"),
        ],
    )
    colours = design_colours(tree)
    assert colours[0] == "#000000"  # text, table, border and stroke defaults: the most used
    assert set(colours) >= {"#c0392b", "#000000", "#ffffff", "#0000ff", "#f2f2f2"}  # header default included
    assert len(colours) == len(set(colours))  # "#C0392B" and "#c0392b" are one swatch
    assert normal_hex("#ABC") == "#aabbcc"
    assert colours.index("#ffffff") < colours.index("#0000ff")  # used twice (page stop, document)


def test_the_properties_form_shows_new_values_in_place_and_its_echoes_change_nothing(styled):
    sent: list[list[dict]] = []
    title = styled.node_by_name("title")
    form = element_form(title, sent.append, ["#c0392b"])
    assert [type(card).__name__ for card in form.sections.values()] == ["Card"] * 3
    assert list(form.sections) == ["styles", "data", "position"]  # Styles first
    form.sections["data"].collapsed = True
    edit = action("update_element", id=title.id, styles={"fontSize": 40}, data={"content": "Hello"}, newName="head")
    after, _ = apply(styled, [edit])
    form.show_node(after.node_by_name("head"), ["#c0392b", "#000000"])
    assert all(changes_nothing(after, batch) for batch in sent)  # each setting echoed, none saves
    assert form.sections["data"].collapsed is True  # the same card, as the person left it
    widgets = {getattr(w, "label", "") or w.name: w for w in form.select(lambda o: hasattr(o, "value"))}
    assert widgets["Font size"].value == 40 and widgets["Content"].value == "Hello"


def test_new_elements_are_named_as_variables_and_copies_of_made_names_take_the_next_number(styled):
    assert geometry.name_stem("QR code") == "qr_code" and geometry.name_stem("text_12") == "text"
    tree = new_design()
    for expected in ("text_1", "text_2"):
        (added,) = [geometry.new_element(tree, "text", 0, (10, 10))]
        assert added["args"]["name"] == expected
        tree, _ = apply(tree, [added])
    copies = geometry.pasted(tree, [tree.node_by_name("text_1").model_dump(exclude_none=True)], 0)
    assert copies[0]["args"]["name"] == "text_3"
    assert geometry.copy_name({"Logo"}, "Logo") == "Logo copy"  # a chosen name stays recognisable
    assert all(name.isidentifier() for name in ("text_1", geometry.unique_name(tree, "QR code")))
