"""Tables that grow: followers move, pages break, headers repeat (the manual, "Tables that grow")."""

import pytest

from engine import render_pdf
from engine.design.variables import apply_values
from engine.render.layout import FLOW_MARGIN, layout
from tests.pdf_probes import page_count, pdf_text

from ...conftest import action, add, build

HEADER = ["Item", "Amount"]


@pytest.fixture(scope="module")
def invoice():
    return build(
        [
            add("text", "title", {"x": 40, "y": 40}, {"content": "Invoice"}),
            add("table", "lines", {"x": 40, "y": 100}, {"cells": [HEADER, ["first", "1"]], "columnWidths": [300, 100]}),
            add("text", "aside", {"x": 460, "y": 110}, {"content": "Beside the table"}),
            add("text", "total", {"x": 40, "y": 160}, {"content": "Total: 1"}),
            add("text", "footer", {"x": 40, "y": 190}, {"content": "Thank you"}),
            action("bind_variable", name="lines"),
        ]
    )


def rows(count: int) -> list[list[str]]:
    return [HEADER] + [[f"item {i:03d}", str(i)] for i in range(count)]


def placements(tree, values):
    sheets = layout(tree, apply_values(tree, values))
    return [{p.node.name: p for p in sheet.placements} for sheet in sheets], sheets


def test_elements_below_move_with_a_growing_table(invoice):
    (sheet,), _ = placements(invoice, {"lines": rows(5)})
    growth = sheet["lines"].box.h - 2 * 20.0  # designed: header + one row of 20 pt
    assert growth == pytest.approx(4 * 20.0)
    assert sheet["total"].box.y == pytest.approx(160 + growth)
    assert sheet["footer"].box.y == pytest.approx(190 + growth)
    assert sheet["title"].box.y == 40 and sheet["aside"].box.y == 110


def test_elements_below_move_up_when_the_table_shrinks(invoice):
    (sheet,), _ = placements(invoice, {"lines": [HEADER]})
    assert sheet["total"].box.y == pytest.approx(160 - 20)


def test_a_long_table_continues_on_new_pages_with_its_header_repeated(invoice):
    values = {"lines": rows(80)}
    by_sheet, sheets = placements(invoice, values)
    assert len(sheets) >= 3
    page_height = invoice.pages[0].height
    for sheet in sheets[1:]:
        assert (sheet.page.width, sheet.page.height) == (invoice.pages[0].width, page_height)
    for i, sheet in enumerate(by_sheet):
        table = sheet["lines"]
        assert table.box.bottom <= page_height - FLOW_MARGIN + 0.01
        if i > 0:
            assert table.part.repeat_header and table.box.y == FLOW_MARGIN
    assert "title" not in by_sheet[1] and "aside" not in by_sheet[1]
    last = by_sheet[-1]
    assert last["total"].box.y == pytest.approx(last["lines"].box.bottom + (160 - 140))
    assert "total" not in by_sheet[0]

    pdf = render_pdf(invoice, values)
    texts = pdf_text(pdf)
    assert page_count(pdf) == len(sheets)
    assert all(text.count("Item") == 1 and "Amount" in text for text in texts)
    assert "item 079" in texts[-1] and "Total: 1" in texts[-1] and "Total: 1" not in texts[0]
    every_row = "".join(texts)
    assert all(f"item {i:03d}" in every_row for i in range(80))


def test_followers_that_do_not_fit_move_to_the_next_page_together():
    tree = build(
        [
            add("table", "t", {"x": 40, "y": 40}, {"cells": [HEADER, ["a", "1"]], "width": 300}),
            add("text", "note", {"x": 40, "y": 90}, {"content": "note"}),
            add("shape", "sign", {"x": 40, "y": 300, "w": 200, "h": 100}),
            action("bind_variable", name="t"),
        ]
    )
    page_height = tree.pages[0].height
    # grow until the table ends ~150 pt above the margin: the note fits, the signature box does not
    fitting = int((page_height - FLOW_MARGIN - 150 - 40) // 20) - 1
    by_sheet, _ = placements(tree, {"t": rows(fitting)})
    assert "note" in by_sheet[0] and "sign" in by_sheet[1]
    assert by_sheet[1]["sign"].box.y == FLOW_MARGIN


def test_a_table_that_does_not_fit_where_it_starts_moves_whole_to_the_next_page():
    tree = build(
        [
            add("text", "spacer", {"x": 40, "y": 40}, {"content": "top"}),
            add("table", "first", {"x": 40, "y": 60}, {"cells": [HEADER, ["a", "1"]], "width": 300}),
            add("table", "second", {"x": 40, "y": 110}, {"cells": [HEADER, ["b", "2"]], "width": 300}),
            action("bind_variable", name="first"),
        ]
    )
    page_height = tree.pages[0].height
    count = int((page_height - FLOW_MARGIN - 60) // 20) - 2
    by_sheet, _ = placements(tree, {"first": rows(count)})
    second = by_sheet[1]["second"]
    assert second.box.y == FLOW_MARGIN and not second.part.repeat_header and second.part.start == 0


def test_design_time_pages_stay_in_order_after_continuations():
    tree = build(
        [
            add("table", "t", {"x": 40, "y": 40}, {"cells": [HEADER, ["a", "1"]], "width": 300}),
            action("add_page"),
            add("text", "second page", {"x": 40, "y": 40}, {"content": "Page two"}, page=1),
            action("bind_variable", name="t"),
        ]
    )
    texts = pdf_text(render_pdf(tree, {"t": rows(60)}))
    assert len(texts) == 3 and "Page two" in texts[2] and "item 059" in texts[1]
