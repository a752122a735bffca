"""The barcode's properties form: the formats of extensions.md 14 in its format choice, and a
box reshaped to the format's shape when a code changes between linear and 2-D."""

from __future__ import annotations

import pytest

from engine import apply, new_design
from engine.elements import ELEMENT_TYPES
from tests.panel_widgets import by_label
from workbench.editor import geometry
from workbench.editor.properties import element_form

NEW_FORMATS = ["datamatrix", "gs1-datamatrix", "pdf417", "aztec", "upce", "gs1-128", "itf14"]


def new_barcode():
    tree = new_design()
    tree, _ = apply(tree, [geometry.new_element(tree, "barcode", 0, (40, 40))])
    return next(iter(tree.nodes.values()))


def test_format_choice_offers_every_format():
    widgets = by_label(element_form(new_barcode(), lambda batch: None))
    assert widgets["Format"].options[:7] == ["CODE128", "EAN13", "EAN8", "UPCA", "CODE39", "ITF", "ISBN13"]
    assert widgets["Format"].options[7:] == NEW_FORMATS


@pytest.mark.parametrize(
    "fmt,box",
    [
        ("datamatrix", {"w": 70, "h": 70}),
        ("aztec", {"w": 70, "h": 70}),
        ("pdf417", {"h": 66.67}),
        ("gs1-datamatrix", {"h": 100}),
    ],
)
def test_choosing_a_2d_format_reshapes_the_new_barcodes_box(fmt, box):
    sent: list = []
    widgets = by_label(element_form(new_barcode(), sent.extend))
    widgets["Format"].value = fmt
    (update,) = sent
    assert update["args"]["data"] == {"format": fmt} and update["args"]["position"] == box


def test_choosing_another_linear_format_keeps_the_box():
    sent: list = []
    widgets = by_label(element_form(new_barcode(), sent.extend))
    widgets["Format"].value = "gs1-128"
    (update,) = sent
    assert "position" not in update["args"]


def test_a_2d_code_switched_back_to_linear_gets_a_barcodes_proportions():
    node = new_barcode()
    square = node.model_copy(update={"position": node.position.model_copy(update={"w": 70, "h": 70})})
    square = square.model_copy(update={"data": square.data.model_copy(update={"format": "datamatrix"})})
    changes = ELEMENT_TYPES["barcode"].editor.edited(square, {"data": {"format": "CODE128"}})
    assert changes["position"] == {"w": 200, "h": 70}
