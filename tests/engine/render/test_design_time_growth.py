"""Design-time content grows as values do (issue 35): a table holding many rows in the design,
or a flowing text with a long design-time content, lays out as the same design with short
content and those rows or that text sent as values: the same sheets, the elements below after
its end, never over it."""

import pytest

from engine import render_pdf
from engine.design import computed
from engine.design.variables import apply_values
from engine.render.layout import layout
from tests.pdf_probes import page_count
from workbench.samples import computed_invoice_actions, new_design, resolver

from ...conftest import action, add, build


def computed_invoice():
    """The gallery's invoice (its 5 design-time lines end above its terms and QR)."""
    return build(computed_invoice_actions(), new_design(size="A4", title="Invoice"))


INVOICE_HEADER = ["Description", "Quantity", "Unit price", "Amount"]
FOLLOWERS = ("terms", "payment")


def invoice_lines(count: int) -> list[list[str]]:
    return [[f"Line item {r}", str(r), "10.00", ""] for r in range(1, count + 1)]


def sheets_of(tree, values=None) -> list[dict]:
    """Each sheet's placements by element name: (y, height) of each part."""
    filled = computed.resolve(apply_values(tree, values), None)
    return [
        {p.node.name: (round(p.box.y, 2), round(p.box.h, 2)) for p in sheet.placements}
        for sheet in layout(tree, filled)
    ]


def with_design_time_rows(tree, count: int):
    table = next(n for n in tree.nodes.values() if n.name == "lines")
    cells = [INVOICE_HEADER, *invoice_lines(count)]
    return build([action("update_element", id=table.id, data={"cells": cells})], tree)


def test_a_table_with_60_design_time_rows_lays_out_as_60_rows_sent_as_values():
    design = computed_invoice()
    values = {"lines": [{"description": d, "quantity": q, "unit_price": 10} for d, q, _, _ in invoice_lines(60)]}
    from_values = sheets_of(design, values)
    from_design = sheets_of(with_design_time_rows(design, 60))
    assert len(from_design) == len(from_values) == 3
    assert from_design == from_values
    # The terms and the QR come after the table's last part, on its last sheet, not over its rows.
    last = from_design[-1]
    table_end = last["lines"][0] + last["lines"][1]
    assert all(last[name][0] >= table_end for name in FOLLOWERS)
    assert not any(name in sheet for sheet in from_design[:-1] for name in FOLLOWERS)


def test_the_pdf_of_a_design_with_many_design_time_rows_has_the_sheets_the_values_give():
    design = computed_invoice()
    values = {"lines": [{"description": d, "quantity": q, "unit_price": 10} for d, q, _, _ in invoice_lines(60)]}
    from_design = render_pdf(with_design_time_rows(design, 60), resolver=resolver)
    assert page_count(from_design) == page_count(render_pdf(design, values, resolver=resolver)) == 3


SHORT = "A short note."
LONG = " ".join(f"Sentence {i} of a long note that flows over several lines." for i in range(1, 60))


def note(content: str):
    return build(
        [
            add("text", "note", {"x": 40, "y": 60, "maxWidth": 300}, {"content": content, "overflow": "flow"}),
            # 10 pt under the short note's one line (14.4 pt): on the long one's second line.
            add("text", "below", {"x": 40, "y": 84.4}, {"content": "Signed"}),
            add("text", "aside", {"x": 400, "y": 200}, {"content": "Beside"}),
            action("bind_variable", name="note"),
        ]
    )


@pytest.mark.parametrize("length", [12, 60])
def test_a_flowing_text_with_long_design_time_content_pushes_the_element_below(length):
    content = " ".join(LONG.split(". ")[:length])
    from_values = sheets_of(note(SHORT), {"note": content})
    from_design = sheets_of(note(content))
    assert from_design == from_values
    last = next(sheet for sheet in reversed(from_design) if "note" in sheet)
    assert "below" in last and last["below"][0] >= last["note"][0] + last["note"][1]


def test_an_element_beside_the_content_and_none_on_it_keeps_its_place():
    # Nothing lies on the text's design-time content: its designed extent is all of it, as before.
    tree = build(
        [
            add("text", "note", {"x": 40, "y": 60, "maxWidth": 300}, {"content": LONG[:900], "overflow": "flow"}),
            add("text", "aside", {"x": 400, "y": 100}, {"content": "Beside"}),
        ]
    )
    (sheet,) = sheets_of(tree)
    assert sheet["aside"][0] == 100
