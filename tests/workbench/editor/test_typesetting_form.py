"""Issue 33 in the editor: the typesetting keys (extensions.md 17) are selects in a text's
and a table's Styles card; an optional one can be set and unset again."""

from __future__ import annotations

import panel as pn

from engine import apply, new_design
from tests.panel_widgets import by_label
from workbench.editor.properties import element_form

from ...conftest import add


def designed():
    tree, _ = apply(
        new_design(),
        [
            add("text", "body", {"x": 20, "y": 20, "maxWidth": 200}, {"content": "Dear reader"}),
            add("table", "amounts", {"x": 20, "y": 140}, {"cells": [["Item", "Amount"], ["Tea", "1.50"]]}),
        ],
    )
    return tree


def test_a_texts_styles_offer_hyphens_numerals_and_ligatures():
    tree = designed()
    sent: list = []
    widgets = by_label(element_form(tree.node_by_name("body"), sent.extend, variables=[]))
    hyphens, numerals, ligatures = widgets["Hyphens"], widgets["Font variant numeric"], widgets["Ligatures"]
    assert isinstance(hyphens, pn.widgets.Select)
    assert hyphens.options == {"default": "", "manual": "manual", "auto": "auto", "none": "none"}
    assert hyphens.value == ""  # unset: by the alignment
    assert numerals.options[:2] == ["normal", "tabular-nums"] and ligatures.options == ["normal", "none"]
    hyphens.value = "auto"
    hyphens.value = ""
    numerals.value = "tabular-nums"
    styles = [action["args"]["styles"] for action in sent]
    assert styles == [{"hyphens": "auto"}, {"hyphens": None}, {"fontVariantNumeric": "tabular-nums"}]
    # What the form sent is what the engine takes.
    tree, _ = apply(tree, sent)
    node = tree.node_by_name("body")
    assert node.styles.hyphens is None and node.styles.fontVariantNumeric == "tabular-nums"


def test_a_tables_styles_offer_tabular_figures():
    tree = designed()
    sent: list = []
    widgets = by_label(element_form(tree.node_by_name("amounts"), sent.extend, variables=[]))
    widgets["Font variant numeric"].value = "tabular-nums"
    tree, _ = apply(tree, sent)
    assert tree.node_by_name("amounts").styles.fontVariantNumeric == "tabular-nums"
