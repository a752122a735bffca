"""Repeating and conditional elements (extensions.md 4): the node keys `repeat` and
`showIf`, their refusals, conditions going away with their variable, and the PDFs."""

from __future__ import annotations

import io

import pikepdf
import pikepdf.pdfa
import pytest
from PIL import Image

from engine import apply, render_pdf, render_png
from engine.actions import catalog
from engine.design.diff import changes
from engine.design.variables import apply_values
from engine.elements import ELEMENT_TYPES
from engine.errors import ActionError
from engine.render.layout import layout, page_digest
from tests.images import TAGGED_IMAGES
from tests.pdf_probes import crop_points, ink_ratio, pdf_text, structure, text_in_bands

from ...conftest import action, add, build
from ...pdf_checker import problems
from ...validators import assert_passes_outloud, assert_valid_pdf_a

PAID = {"variable": "status", "equals": "paid"}


@pytest.fixture
def invoice():
    return build(
        [
            add("text", "status", {"x": 40, "y": 40}, {"content": "paid"}),
            add("table", "lines", {"x": 40, "y": 100}, {"cells": [["Item", "Amount"], ["a", "1"]]}),
            add("text", "note", {"x": 40, "y": 300}, {"content": "Thanks"}),
            action("bind_variable", name="status"),
            action("bind_variable", name="lines"),
        ]
    )


def refusal(tree, actions) -> str:
    with pytest.raises(ActionError) as caught:
        apply(tree, actions)
    return caught.value.reason


# The keys on every element


@pytest.mark.parametrize("kind", sorted(ELEMENT_TYPES))
def test_every_element_type_takes_repeat_and_show_if_in_its_add_and_update_args(kind):
    actions = {entry["name"]: entry["args"] for entry in catalog()}
    add_args = actions["add_element"]["$defs"][f"Add{kind.capitalize()}Args"]
    assert {"repeat", "showIf"} <= set(add_args["properties"])
    assert {"repeat", "showIf"} <= set(actions["update_element"]["properties"])
    assert {"repeat", "showIf"} <= set(ELEMENT_TYPES[kind].Node.model_fields)


def test_new_elements_do_not_repeat_and_have_no_condition(invoice):
    note = invoice.node_by_name("note")
    assert (note.repeat, note.showIf) == ("none", None)


def test_add_and_update_set_repeat_and_show_if_on_the_node(invoice):
    tree, _ = apply(
        invoice,
        [
            add("text", "header", {"x": 40, "y": 10}, {"content": "ACME"}, repeat="sheets"),
            add("text", "stamp", {"x": 300, "y": 40}, {"content": "PAID"}, showIf=PAID),
            action("update_element", name="note", repeat="pages", showIf={"variable": "lines"}),
        ],
    )
    assert tree.node_by_name("header").repeat == "sheets"
    assert tree.node_by_name("stamp").showIf.model_dump() == {"variable": "status", "equals": "paid", "notEquals": None}
    note = tree.node_by_name("note")
    assert (note.repeat, note.showIf.variable) == ("pages", "lines")
    cleared, _ = apply(tree, [action("update_element", name="note", repeat=None, showIf=None)])
    note = cleared.node_by_name("note")
    assert (note.repeat, note.showIf) == ("none", None)


def test_update_without_the_keys_keeps_them(invoice):
    tree, _ = apply(invoice, [action("update_element", name="note", repeat="pages", showIf={"variable": "status"})])
    tree, _ = apply(tree, [action("update_element", name="note", position={"x": 60})])
    note = tree.node_by_name("note")
    assert (note.repeat, note.showIf.variable) == ("pages", "status")


# Refusals


def test_a_table_cannot_repeat(invoice):
    reason = refusal(invoice, [add("table", "t2", {"x": 40, "y": 500}, repeat="sheets")])
    assert "a table cannot repeat" in reason and "set repeat to 'none'" in reason
    reason = refusal(invoice, [action("update_element", name="lines", repeat="pages")])
    assert "a table cannot repeat" in reason


def test_a_flowing_text_cannot_repeat(invoice):
    flowing = {"content": "long text", "overflow": "flow"}
    reason = refusal(invoice, [add("text", "body", {"x": 40, "y": 400, "maxWidth": 200}, flowing, repeat="pages")])
    assert "overflow 'flow' cannot repeat" in reason
    tree, _ = apply(invoice, [action("update_element", name="note", repeat="sheets")])
    reason = refusal(tree, [action("update_element", name="note", data={"overflow": "flow"})])
    assert "overflow 'flow' cannot repeat" in reason


def test_repeat_takes_only_its_three_values(invoice):
    reason = refusal(invoice, [action("update_element", name="note", repeat="always")])
    assert "repeat" in reason and "'none', 'sheets' or 'pages'" in reason


def test_show_if_on_an_unknown_variable_is_refused_naming_the_variables(invoice):
    reason = refusal(invoice, [add("text", "x", {"x": 1, "y": 1}, {"content": "x"}, showIf={"variable": "paid"})])
    assert "no variable 'paid'" in reason and "'lines', 'status'" in reason and "bind_variable" in reason
    reason = refusal(invoice, [action("update_element", name="note", showIf={"variable": "note"})])
    assert "no variable 'note'" in reason


def test_show_if_takes_equals_or_not_equals_but_not_both(invoice):
    condition = {"variable": "status", "equals": "paid", "notEquals": "due"}
    reason = refusal(invoice, [action("update_element", name="note", showIf=condition)])
    assert "equals or notEquals, not both" in reason


def test_show_if_refuses_unknown_keys(invoice):
    reason = refusal(invoice, [action("update_element", name="note", showIf={"variable": "status", "is": "paid"})])
    assert "showIf.is" in reason and "unknown key" in reason


def test_a_table_variable_is_tested_for_emptiness_not_compared(invoice):
    reason = refusal(invoice, [action("update_element", name="note", showIf={"variable": "lines", "equals": "a"})])
    assert "cannot be compared" in reason and "leave both out" in reason


# A condition goes away with its variable


@pytest.fixture
def conditional(invoice):
    tree, _ = apply(
        invoice,
        [
            add("text", "stamp", {"x": 300, "y": 40}, {"content": "PAID"}, showIf=PAID),
            action("update_element", name="note", showIf={"variable": "lines"}),
        ],
    )
    return tree


@pytest.mark.parametrize(
    "removal",
    [action("unbind_variable", name="status"), action("remove_element", name="status")],
    ids=["unbind", "remove element"],
)
def test_conditions_go_away_with_their_variable(conditional, removal):
    tree, _ = apply(conditional, [removal])
    assert tree.node_by_name("stamp").showIf is None
    assert tree.node_by_name("note").showIf.variable == "lines"  # another variable's condition stays


def test_conditions_go_away_with_the_page_of_their_variable(conditional):
    tree, _ = apply(
        conditional,
        [
            action("add_page"),
            add("text", "due", {"x": 9, "y": 9}, {"content": "1 May"}, page=1),
            action("bind_variable", name="due"),
            action("update_element", name="stamp", showIf={"variable": "due"}),
            action("remove_page", page=1),
        ],
    )
    assert "due" not in tree.variables
    assert tree.node_by_name("stamp").showIf is None
    assert tree.node_by_name("note").showIf.variable == "lines"


def test_conditions_follow_their_variable_when_its_element_is_renamed(conditional):
    tree, _ = apply(conditional, [action("update_element", name="status", newName="state")])
    assert tree.node_by_name("stamp").showIf.variable == "state"


def test_a_condition_on_its_own_element_follows_the_rename(invoice):
    tree, _ = apply(
        invoice,
        [
            action("update_element", name="status", showIf={"variable": "status"}),
            action("update_element", name="status", newName="state"),
        ],
    )
    assert tree.node_by_name("state").showIf.variable == "state"


# showIf in real PDFs


@pytest.fixture(scope="module")
def receipt():
    return build(
        [
            add("text", "status", {"x": 40, "y": 40}, {"content": "due"}),
            add("text", "comment", {"x": 40, "y": 60}, {"content": ""}),
            add("text", "count", {"x": 40, "y": 80}, {"content": "1", "dataType": "number"}),
            add("text", "tags", {"x": 300, "y": 80}, {"content": [], "listFormat": "unordered"}),
            add("table", "lines", {"x": 40, "y": 120}, {"cells": [["Item", "Amount"], ["design row", "1"]]}),
            add("text", "total", {"x": 40, "y": 200}, {"content": "Total line"}),
            *(action("bind_variable", name=n) for n in ("status", "comment", "count", "tags", "lines")),
            add("text", "stamp", {"x": 300, "y": 40}, {"content": "STAMPPAID"}, showIf=PAID),
            add(
                "text",
                "reminder",
                {"x": 300, "y": 60},
                {"content": "PLEASEPAY"},
                showIf=PAID | {"equals": None, "notEquals": "paid"},
            ),
            add("text", "remark", {"x": 300, "y": 300}, {"content": "SEEREMARK"}, showIf={"variable": "comment"}),
            add(
                "text",
                "three",
                {"x": 300, "y": 320},
                {"content": "EXACTLYTHREE"},
                showIf={"variable": "count", "equals": 3},
            ),
            add("text", "tagged", {"x": 300, "y": 340}, {"content": "HASTAGS"}, showIf={"variable": "tags"}),
            action("update_element", name="total", showIf={"variable": "lines"}),
        ]
    )


def stamp_ink(tree, values=None) -> float:
    """Ink where the stamp is, in a preview (render_png)."""
    image = Image.open(io.BytesIO(render_png(tree, 0, dpi=144, values=values)))
    return ink_ratio(crop_points(image, (298, 38, 90, 18)))


def drawn(tree, values=None) -> str:
    (text,) = pdf_text(render_pdf(tree, values))
    return text


def test_equals_and_not_equals_decide_with_the_generations_values(receipt):
    paid = drawn(receipt, {"status": "paid"})
    assert "STAMPPAID" in paid and "PLEASEPAY" not in paid
    due = drawn(receipt, {"status": "overdue"})
    assert "STAMPPAID" not in due and "PLEASEPAY" in due


def test_previews_decide_with_the_design_time_content(receipt):
    design = drawn(receipt)  # status "due", comment "", count 1, no tags, a body row
    assert "PLEASEPAY" in design and "Total line" in design
    assert not {"STAMPPAID", "SEEREMARK", "EXACTLYTHREE", "HASTAGS"} & set(design.split())
    assert stamp_ink(receipt) == 0
    assert stamp_ink(receipt, {"status": "paid"}) > 0.02


def test_without_equals_an_element_is_drawn_when_its_variable_is_not_empty(receipt):
    assert "SEEREMARK" not in drawn(receipt, {"comment": ""})
    assert "SEEREMARK" in drawn(receipt, {"comment": "fragile"})
    assert "HASTAGS" not in drawn(receipt, {"tags": []})
    assert "HASTAGS" in drawn(receipt, {"tags": ["red"]})


def test_a_table_with_only_its_header_is_empty(receipt):
    assert "Total line" not in drawn(receipt, {"lines": [["Item", "Amount"]]})
    assert "Total line" not in drawn(receipt, {"lines": [["Item", "Amount"], ["", ""]]})
    assert "Total line" in drawn(receipt, {"lines": [["Item", "Amount"], ["bolts", "4"]]})


def test_numbers_are_compared_as_the_text_they_show(receipt):
    assert "EXACTLYTHREE" in drawn(receipt, {"count": 3})
    assert "EXACTLYTHREE" in drawn(receipt, {"count": "3"})
    assert "EXACTLYTHREE" not in drawn(receipt, {"count": 30})


def test_an_element_left_out_by_its_condition_pushes_nothing():
    tree = build(
        [
            add("text", "flag", {"x": 40, "y": 20}, {"content": ""}),
            action("bind_variable", name="flag"),
            add("table", "extra", {"x": 40, "y": 100}, {"cells": [["Extra"], ["x"]]}, showIf={"variable": "flag"}),
            action("bind_variable", name="extra"),
            add("text", "after", {"x": 40, "y": 160}, {"content": "After"}),
        ]
    )
    grown = {"extra": [["Extra"]] + [[f"row {i}"] for i in range(60)]}
    (sheet,) = layout(tree, apply_values(tree, grown))
    assert [p.node.name for p in sheet.placements] == ["flag", "after"]
    assert next(p for p in sheet.placements if p.node.name == "after").box.y == 160
    shown = layout(tree, apply_values(tree, {**grown, "flag": "yes"}))
    assert len(shown) == 2  # shown, the same table grows to a second sheet and pushes "after"


# repeat: page furniture on the sheets


def invoice_rows(count: int) -> list[list[str]]:
    return [["Item", "Amount"]] + [[f"item{i:03d}", str(i)] for i in range(count)]


@pytest.fixture(scope="module")
def long_invoice():
    """Two design pages; page 1's table grows over three sheets at 80 rows."""
    return build(
        [
            add("text", "header", {"x": 40, "y": 40}, {"content": "SHEETHEADER"}, {"fontSize": 20}, repeat="sheets"),
            add("table", "lines", {"x": 40, "y": 120}, {"cells": invoice_rows(1), "columnWidths": [300, 100]}),
            add("text", "total", {"x": 40, "y": 180}, {"content": "TOTALLINE"}),
            add("text", "footer", {"x": 40, "y": 760}, {"content": "PAGEFOOTER"}, {"fontSize": 14}, repeat="pages"),
            add("text", "aside", {"x": 460, "y": 60}, {"content": "ASIDE"}),
            action("bind_variable", name="lines"),
            action("add_page"),
            add("text", "second", {"x": 40, "y": 300}, {"content": "SECONDPAGE"}, page=1),
        ]
    )


GROWN = {"lines": invoice_rows(80)}


def by_name(sheet) -> dict:
    return {p.node.name: p for p in sheet.placements}


def test_sheets_repeats_on_its_pages_sheets_and_pages_on_every_sheet(long_invoice):
    texts = pdf_text(render_pdf(long_invoice, GROWN))
    assert len(texts) == 4 and "SECONDPAGE" in texts[3]
    assert ["SHEETHEADER" in t for t in texts] == [True, True, True, False]
    assert ["PAGEFOOTER" in t for t in texts] == [True, True, True, True]
    assert ["ASIDE" in t for t in texts] == [True, False, False, False]  # not repeated: drawn once


def test_repeated_elements_keep_their_place_and_never_follow_the_table(long_invoice):
    sheets = layout(long_invoice, apply_values(long_invoice, GROWN))
    assert [s.source for s in sheets] == [0, 0, 0, 1]
    for sheet in sheets:
        placed = by_name(sheet)
        assert (placed["footer"].box.x, placed["footer"].box.y) == (40, 760)
        if sheet.source == 0:
            assert (placed["header"].box.x, placed["header"].box.y) == (40, 40)


def test_a_growing_table_runs_between_the_header_and_the_footer(long_invoice):
    sheets = layout(long_invoice, apply_values(long_invoice, GROWN))
    header_bottom = by_name(sheets[0])["header"].box.bottom
    footer_top = 760
    tables = [by_name(s)["lines"] for s in sheets[:3]]
    assert tables[0].box.y == 120
    assert all(t.box.bottom <= footer_top + 0.01 for t in tables)
    # extensions.md 11: continued below the header with the first sheet's gap (56 pt), not flush under it.
    assert header_bottom == pytest.approx(64)
    assert [t.box.y for t in tables[1:]] == [pytest.approx(120)] * 2
    # Without furniture the table would use the margins: the band is what limits it here.
    assert max(t.box.bottom for t in tables) > footer_top - 20
    rows = [(t.part.start, t.part.end) for t in tables]
    assert rows[0][0] == 0 and rows[-1][1] == 81 and all(a[1] == b[0] for a, b in zip(rows, rows[1:], strict=False))
    total = by_name(sheets[2])["total"]
    assert total.box.y >= tables[2].box.bottom and total.box.bottom <= footer_top


def test_no_row_is_drawn_over_the_header_or_the_footer(long_invoice):
    pdf = render_pdf(long_invoice, GROWN)
    texts = pdf_text(pdf)
    seen = []
    for index in range(3):
        header_band, footer_band = text_in_bands(pdf, index, [(0, 62), (760, None)])  # to y 62; from y 760
        assert "SHEETHEADER" in header_band and "item" not in header_band
        assert "PAGEFOOTER" in footer_band and "item" not in footer_band
        seen += [word for word in texts[index].split() if word.startswith("item")]
    assert seen == [f"item{i:03d}" for i in range(80)]  # every row once, in order


def test_a_pages_element_of_a_later_page_is_on_the_first_pages_sheets_too():
    tree = build(
        [
            add("text", "one", {"x": 40, "y": 100}, {"content": "ONE"}),
            action("add_page"),
            add("text", "mark", {"x": 40, "y": 40}, {"content": "MARK"}, page=1, repeat="pages"),
            add("text", "only", {"x": 40, "y": 60}, {"content": "ONLY"}, page=1, repeat="sheets"),
        ]
    )
    texts = pdf_text(render_pdf(tree))
    assert ["MARK" in t for t in texts] == [True, True]
    assert ["ONLY" in t for t in texts] == [False, True]


def test_a_repeated_element_left_out_by_its_condition_is_on_no_sheet(long_invoice):
    tree, _ = apply(
        long_invoice,
        [
            add("text", "flag", {"x": 300, "y": 40}, {"content": ""}),
            action("bind_variable", name="flag"),
            action("update_element", name="footer", showIf={"variable": "flag"}),
        ],
    )
    assert not any("PAGEFOOTER" in t for t in pdf_text(render_pdf(tree, GROWN)))
    assert all("PAGEFOOTER" in t for t in pdf_text(render_pdf(tree, {**GROWN, "flag": "on"})))


# Tagged profiles: the copies after the first are pagination artifacts


@pytest.fixture(scope="module")
def tagged(long_invoice, tmp_path_factory):
    tree, _ = apply(
        long_invoice,
        [
            action("set_metadata", title="Invoice with a repeated header and footer", language="en-GB"),
            add("image", "logo", {"x": 480, "y": 20, "w": 60, "h": 40}, {"src": "uploads:logo", "alt": "Company logo"}),
            add("shape", "rule", {"x": 40, "y": 750, "w": 500, "h": 1}, repeat="pages"),
            action("update_element", name="logo", repeat="sheets"),
        ],
    )
    folder = tmp_path_factory.mktemp("repeat-profiles")
    paths = {}
    for profile in ("accessible", "pdf-a"):
        paths[profile] = folder / f"{profile}.pdf"
        paths[profile].write_bytes(render_pdf(tree, GROWN, TAGGED_IMAGES.__getitem__, profile))
    return paths


def test_repeated_elements_pass_the_pdf_a_validator(tagged):
    assert_valid_pdf_a(tagged["pdf-a"])


def test_repeated_elements_pass_outloud(tagged):
    assert_passes_outloud(tagged["accessible"])


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_repeated_elements_pass_our_structural_checker(tagged, profile):
    assert problems(tagged[profile].read_bytes()) == []


def test_a_repeated_element_is_read_once_and_its_copies_are_pagination_artifacts(tagged):
    elements = structure(tagged["accessible"])
    texts = [attrs.get("/ActualText") for role, attrs in elements if role == "P"]
    assert texts.count("SHEETHEADER") == 1 and texts.count("PAGEFOOTER") == 1
    assert [attrs["/Alt"] for role, attrs in elements if role == "Figure"] == ["Company logo"]
    with pikepdf.open(tagged["accessible"]) as pdf:
        for number, page in enumerate(pdf.pages):
            pagination = 0
            for operands, operator in pikepdf.parse_content_stream(page):
                if str(operator) == "BDC" and str(operands[0]) == "/Artifact":
                    pagination += operands[1].get("/Type") == "/Pagination"
            # Sheet 1 draws each element itself; sheets 2-3 copy header, logo, footer and rule;
            # the second design page copies the footer and the rule.
            assert pagination == [0, 4, 4, 2][number]


# Previews are cached by page_digest: it must see what reaches a page from elsewhere


def test_a_pages_digest_follows_furniture_and_conditions_from_other_pages():
    tree = build(
        [
            add("text", "status", {"x": 40, "y": 40}, {"content": "due"}),
            action("bind_variable", name="status"),
            add("text", "mark", {"x": 40, "y": 80}, {"content": "MARK"}, repeat="pages"),
            action("add_page"),
            add("text", "stamp", {"x": 40, "y": 40}, {"content": "PAID"}, page=1, showIf=PAID),
        ]
    )

    def digest(actions):
        edited, _ = apply(tree, actions) if actions else (tree, None)
        return page_digest(edited.model_dump(mode="json"), 1)

    before = digest([])
    assert digest([action("update_element", name="status", data={"content": "paid"})]) != before
    assert digest([action("update_element", name="mark", data={"content": "MARK 2"})]) != before
    assert digest([action("update_element", name="mark", repeat="sheets")]) != before
    # What page 1 never shows leaves its digest alone.
    assert digest([add("text", "other", {"x": 40, "y": 300}, {"content": "x"})]) == before


# Undo and redo (engine.design.diff)


def test_undoing_the_removal_of_a_variable_brings_back_the_conditions_on_it(conditional):
    edited, _ = apply(conditional, [action("remove_element", name="status")])
    assert edited.node_by_name("stamp").showIf is None
    restored, _ = apply(edited, changes(edited, conditional))
    assert restored.node_by_name("stamp").showIf == conditional.node_by_name("stamp").showIf
    assert restored.node_by_name("note").showIf.variable == "lines"
    redone, _ = apply(restored, changes(restored, edited))
    assert redone.node_by_name("stamp").showIf is None and "status" not in redone.variables
