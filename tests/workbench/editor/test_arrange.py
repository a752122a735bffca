"""Align and distribute (workbench/editor/arrange.py): pure placement, applied with the engine."""

from __future__ import annotations

import pytest

from engine import apply
from workbench.editor import arrange
from workbench.editor.geometry import box_of

from ...conftest import add, build

PAGE = (595.28, 841.89)


def three_shapes(**extra: dict) -> list[dict]:
    return [
        add("shape", "A", {"x": 40, "y": 100, "w": 60, "h": 40}, **extra.get("A", {})),
        add("shape", "B", {"x": 150, "y": 200, "w": 100, "h": 20}, **extra.get("B", {})),
        add("shape", "C", {"x": 400, "y": 130, "w": 30, "h": 80}, **extra.get("C", {})),
    ]


def arranged(tree, actions: list[dict]) -> dict[str, dict]:
    """Each element's box after the actions, by name."""
    after, _ = apply(tree, actions)
    return {node.name: box_of(node) for node in after.nodes.values()}


def nodes(tree) -> list:
    return list(tree.nodes.values())


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("left", {"A": 40, "B": 40, "C": 40}),
        ("right", {"A": 370, "B": 330, "C": 400}),
        ("centre", {"A": 205, "B": 185, "C": 220}),
    ],
)
def test_horizontal_alignment_lines_up_on_the_selections_bounds(how, expected):
    tree = build(three_shapes())
    boxes = arranged(tree, arrange.align(nodes(tree), how, PAGE))
    assert {name: box["x"] for name, box in boxes.items()} == expected
    assert {name: box["y"] for name, box in boxes.items()} == {"A": 100, "B": 200, "C": 130}  # y untouched


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("top", {"A": 100, "B": 100, "C": 100}),
        ("bottom", {"A": 180, "B": 200, "C": 140}),
        ("middle", {"A": 140, "B": 150, "C": 120}),
    ],
)
def test_vertical_alignment_lines_up_on_the_selections_bounds(how, expected):
    tree = build(three_shapes())
    boxes = arranged(tree, arrange.align(nodes(tree), how, PAGE))
    assert {name: box["y"] for name, box in boxes.items()} == expected


def test_one_element_aligns_with_the_page():
    tree = build([add("shape", "A", {"x": 40, "y": 100, "w": 60, "h": 40})])
    assert arranged(tree, arrange.align(nodes(tree), "right", PAGE))["A"]["x"] == round(PAGE[0] - 60, 2)
    assert arranged(tree, arrange.align(nodes(tree), "middle", PAGE))["A"]["y"] == round((PAGE[1] - 40) / 2, 2)


def test_a_text_aligns_by_its_measured_box():
    """A text's width is derived from its content: the element type measures it."""
    tree = build(
        [
            add("shape", "Bar", {"x": 100, "y": 50, "w": 300, "h": 10}),
            add("text", "Title", {"x": 20, "y": 100}, {"content": "Certificate"}),
        ]
    )
    title_width = box_of(tree.nodes[next(i for i, n in tree.nodes.items() if n.name == "Title")])["w"]
    assert 0 < title_width < 300
    boxes = arranged(tree, arrange.align(nodes(tree), "right", PAGE))
    assert boxes["Title"]["x"] + boxes["Title"]["w"] == pytest.approx(400, abs=0.02)


def test_a_locked_element_stays_put_but_anchors_the_others():
    tree = build(three_shapes(A={"isLocked": True}))
    actions = arrange.align(nodes(tree), "right", PAGE)
    moved = {tree.nodes[a["args"]["id"]].name for a in actions}
    assert moved == {"B"}  # C is already on the right edge
    boxes = arranged(tree, actions)
    assert boxes["A"]["x"] == 40 and boxes["B"]["x"] == 330


def test_aligned_elements_send_no_action():
    tree = build(three_shapes())
    after, _ = apply(tree, arrange.align(nodes(tree), "left", PAGE))
    assert arrange.align(nodes(after), "left", PAGE) == []


def test_distribute_leaves_equal_gaps_between_first_and_last():
    tree = build(three_shapes())
    boxes = arranged(tree, arrange.distribute(nodes(tree), "horizontal"))
    a, b, c = boxes["A"], boxes["B"], boxes["C"]
    assert a["x"] == 40 and c["x"] == 400  # the outermost stay put
    assert b["x"] - (a["x"] + a["w"]) == pytest.approx(c["x"] - (b["x"] + b["w"]), abs=0.02)
    assert [box["y"] for box in (a, b, c)] == [100, 200, 130]


def test_distribute_vertically_orders_by_position_not_selection():
    tree = build(
        [
            add("shape", "Low", {"x": 10, "y": 500, "w": 50, "h": 50}),
            add("shape", "High", {"x": 10, "y": 100, "w": 50, "h": 20}),
            add("shape", "Near", {"x": 10, "y": 140, "w": 50, "h": 60}),
        ]
    )
    boxes = arranged(tree, arrange.distribute(list(reversed(nodes(tree))), "vertical"))
    top, middle, bottom = (boxes[name] for name in ("High", "Near", "Low"))
    assert top["y"] == 100 and bottom["y"] == 500
    assert middle["y"] - (top["y"] + top["h"]) == pytest.approx(bottom["y"] - (middle["y"] + middle["h"]), abs=0.02)


def test_distribute_needs_three_elements():
    tree = build(three_shapes()[:2])
    with pytest.raises(ValueError, match="three or more"):
        arrange.distribute(nodes(tree), "horizontal")


def test_unknown_alignment_is_refused():
    tree = build(three_shapes())
    with pytest.raises(ValueError, match="unknown alignment"):
        arrange.align(nodes(tree), "diagonal", PAGE)
