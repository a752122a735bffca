"""computed.preview (extensions.md 11): an expression's result on the design's samples, as an
editor shows it beside the input, or the message an update_element setting it would get."""

from __future__ import annotations

import pytest

from engine import apply, new_design
from engine.design import computed

from ...conftest import add

COLUMNS = [
    {"key": "item"},
    {"key": "qty", "dataType": "number"},
    {"key": "price", "dataType": "currency", "currency": "EUR", "locale": "de"},
    {"key": "amount", "dataType": "currency", "currency": "EUR", "locale": "de"},
]


@pytest.fixture
def tree():
    tree, _ = apply(
        new_design(),
        [
            add(
                "table",
                "items",
                {"x": 20, "y": 20},
                {"cells": [["Item", "Qty", "Price", "Amount"], ["Pen", "2", "1.50", ""]], "columnDefs": COLUMNS},
            ),
            add("text", "note", {"x": 20, "y": 200}, {"content": "Thanks"}),
        ],
    )
    return tree


def test_a_computed_column_shows_its_first_rows_cell_formatted_by_the_column(tree):
    items = tree.node_by_name("items").id
    assert computed.preview(tree, items, "data.columnDefs[3].value", "qty * price") == "3,00\xa0€"
    assert tree.node_by_name("items").data.columnDefs[3].value is None  # nothing is saved


def test_footer_cells_and_the_group_row_show_their_results(tree):
    items = tree.node_by_name("items").id
    assert computed.preview(tree, items, "data.footer[0].price", "=sum(price)") == "1,50\xa0€"
    assert computed.preview(tree, items, "data.footer[0].item", "Total") == "Total"
    grouped, _ = apply(tree, [{"type": "update_element", "args": {"id": items, "data": {"groupBy": "item"}}}])
    assert computed.preview(grouped, items, "data.groupHeader", "upper(item)") == "PEN"
    assert computed.preview(grouped, items, "data.groupFooter[0].qty", "=count(qty)") == "1"


def test_a_texts_expression_and_a_show_if_show_their_results(tree):
    note = tree.node_by_name("note").id
    assert computed.preview(tree, note, "data.expression", "0.1 + 0.2") == "0.3"
    assert computed.preview(tree, note, "showIf.expression", "len('abc') = 3") == "true"
    assert computed.preview(tree, note, "showIf.expression", "1 > 2") == "false"


@pytest.mark.parametrize(
    ("where", "text", "message"),
    [
        ("data.columnDefs[3].value", "qty * prise", "unknown name 'prise' at character 6; did you mean price?"),
        ("data.columnDefs[3].value", "qty *", "ends too early at character 5"),
        ("data.footer[0].qty", "=sum(item)", "data.footer[0].qty"),
    ],
)
def test_a_refused_expression_gives_the_engines_message(tree, where, text, message):
    with pytest.raises(ValueError, match="'items' .*") as refused:
        computed.preview(tree, tree.node_by_name("items").id, where, text)
    assert message in str(refused.value)
