"""The Try values panel's reading of what a person types or pastes (workbench/editor/try_values.py)."""

from __future__ import annotations

import pytest

from workbench.editor.try_values import pasted_row, typed_values

NAMES = ["recipient", "serial", "lines"]
VARIABLES = [
    {"name": "recipient", "kind": "text"},
    {"name": "serial", "kind": "code"},
    {"name": "lines", "kind": "table"},
]


def test_a_row_with_its_header_fills_the_named_variables():
    assert pasted_row('serial,recipient\nROW-7,"Hopper, Grace"\n', NAMES) == {
        "serial": "ROW-7",
        "recipient": "Hopper, Grace",
    }


def test_a_row_alone_fills_the_variables_in_order():
    assert pasted_row("Ada Lovelace,ROW-1", NAMES) == {"recipient": "Ada Lovelace", "serial": "ROW-1"}


@pytest.mark.parametrize(
    "pasted,fragment",
    [
        ("", "Paste a CSV row"),
        ("a,b,c,d", "has 4 values"),
        ("nobody,serial\nx,y", "Not variables of this design: nobody"),
        ("recipient\na\nb", "one row only"),
    ],
)
def test_a_paste_that_does_not_fit_says_why(pasted, fragment):
    with pytest.raises(ValueError, match=fragment):
        pasted_row(pasted, NAMES)


def test_empty_values_leave_the_sample_and_tables_are_csv_lines():
    typed = {"recipient": "  ", "serial": "ROW-2", "lines": "Item,Qty\ncompiler,1\n", "gone": "x"}
    assert typed_values(VARIABLES, typed) == {"serial": "ROW-2", "lines": [["Item", "Qty"], ["compiler", "1"]]}
