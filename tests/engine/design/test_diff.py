"""engine.design.diff.changes: the actions that turn one tree into another (undo and redo)."""

from __future__ import annotations

import pytest

from engine import DesignTree, apply
from engine.design.diff import changes, differences
from workbench.samples import certificate, invoice

from ...conftest import action, add


def comparable(tree: DesignTree) -> dict:
    """The tree with ids replaced by names: what a person sees, not what the server minted."""
    names = {node_id: node.name for node_id, node in tree.nodes.items()}
    dumped = tree.model_dump()
    dumped["nodes"] = {names[i]: {**n, "id": None} for i, n in dumped["nodes"].items()}
    for page in dumped["pages"]:
        page["id"] = None
        page["elements"] = [names[i] for i in page["elements"]]
    dumped["variables"] = {name: {**v, "nodeId": names[v["nodeId"]]} for name, v in dumped["variables"].items()}
    return dumped


EDITS = {
    "move": [action("update_element", name="recipient", position={"x": 120, "y": 300})],
    "restyle": [action("update_element", name="title", styles={"fontSize": 40, "color": "#aa0000"})],
    "rename": [action("update_element", name="title", newName="Heading")],
    "remove": [action("remove_element", name="logo")],
    "remove bound": [action("remove_element", name="recipient")],
    "add": [add("text", "note", {"x": 40, "y": 40}, {"content": "new"})],
    "hide and lock": [action("update_element", name="serial", isHidden=True, isLocked=True)],
    "reorder": [action("reorder_element", name="border", to="front")],
    "unbind": [action("unbind_variable", name="recipient")],
    "bind": [action("bind_variable", name="title")],
    "page added": [action("add_page", size="A5"), add("text", "p2", {"x": 10, "y": 10}, {"content": "two"}, page=1)],
    "page format": [action("update_page", page=0, size="Letter", orientation="portrait")],
    "backgrounds": [
        action("set_page_background", page=0, backgroundColor="#ffeecc"),
        action("set_document_background", backgroundColor="#eeeeee"),
    ],
    "metadata": [action("set_metadata", title="Changed", language="fr-FR", author="Ada")],
    "repeat and condition": [
        action("update_element", name="serial", repeat="pages", showIf={"variable": "recipient", "notEquals": "x"})
    ],
    "condition on a variable bound in the batch": [
        action("bind_variable", name="title"),
        add("text", "stamp", {"x": 40, "y": 60}, {"content": "Paid"}, repeat="sheets", showIf={"variable": "title"}),
    ],
    "swap names": [
        action("update_element", name="title", newName="tmp"),
        action("update_element", name="serial", newName="title"),
        action("update_element", name="tmp", newName="serial"),
    ],
}


@pytest.mark.parametrize("edit", EDITS, ids=list(EDITS))
def test_changes_undo_and_redo_an_edit(edit):
    original = certificate()
    edited, _ = apply(original, EDITS[edit])
    undo = changes(edited, original)
    restored, _ = apply(edited, undo)
    assert comparable(restored) == comparable(original)
    redo = changes(restored, edited)
    again, _ = apply(restored, redo)
    assert comparable(again) == comparable(edited)


def test_removing_a_middle_page_is_undone_with_its_elements():
    tree, _ = apply(
        invoice(),
        [
            action("add_page"),
            add("text", "second", {"x": 10, "y": 10}, {"content": "2"}, page=1),
            action("add_page", size="A5"),
            add("text", "third", {"x": 20, "y": 20}, {"content": "3"}, page=2),
        ],
    )
    edited, _ = apply(tree, [action("remove_page", page=1)])
    restored, _ = apply(edited, changes(edited, tree))
    assert comparable(restored) == comparable(tree)


def test_table_cells_and_columns_are_restored():
    original = invoice()
    table = next(n for n in original.nodes.values() if n.type == "table")
    edited, _ = apply(original, [action("update_element", name=table.name, data={"columns": 6, "rows": 3})])
    restored, _ = apply(edited, changes(edited, original))
    assert comparable(restored) == comparable(original)


def test_identical_trees_need_no_actions():
    assert changes(certificate(), certificate()) == []


def paint_order(tree: DesignTree, page: int) -> list[str]:
    return [tree.nodes[node_id].name for node_id in tree.pages[page].elements]


def three_on_page_two() -> DesignTree:
    """Page 2 holds a, b, c created in that order and painted c, a, b (c sent to the back)."""
    tree, _ = apply(
        certificate(),
        [
            action("add_page"),
            add("text", "a", {"x": 10, "y": 10}, {"content": "a"}, page=1),
            add("text", "b", {"x": 20, "y": 20}, {"content": "b"}, page=1),
            add("text", "c", {"x": 30, "y": 30}, {"content": "c"}, page=1),
            action("reorder_element", name="c", to="back"),
        ],
    )
    assert paint_order(tree, 1) == ["c", "a", "b"]
    return tree


def test_undoing_a_page_removal_restores_its_paint_order():
    tree = three_on_page_two()
    edited, _ = apply(tree, [action("remove_page", page=1)])
    restored, _ = apply(edited, changes(edited, tree))
    assert paint_order(restored, 1) == ["c", "a", "b"]
    assert comparable(restored) == comparable(tree)


def test_undoing_the_removal_of_the_frontmost_elements_restores_their_paint_order():
    # The survivors already stand where they stood: only the re-added ones are out of order.
    tree, _ = apply(three_on_page_two(), [add("text", "d", {"x": 40, "y": 40}, {"content": "d"}, page=1)])
    tree, _ = apply(tree, [action("reorder_element", name="a", to="front")])
    assert paint_order(tree, 1) == ["c", "b", "d", "a"]
    edited, _ = apply(tree, [action("remove_element", name="d"), action("remove_element", name="a")])
    restored, _ = apply(edited, changes(edited, tree))
    assert paint_order(restored, 1) == ["c", "b", "d", "a"]


def test_undoing_a_removal_in_the_middle_of_a_page_puts_the_element_back_in_place():
    tree = three_on_page_two()
    edited, _ = apply(tree, [action("remove_element", name="a")])
    restored, _ = apply(edited, changes(edited, tree))
    assert paint_order(restored, 1) == ["c", "a", "b"]


def test_differences_name_what_a_reader_would_call_changed():
    """The Publish dialog's list (extensions.md 16): an element removed and added again under its
    name reads as changed, not as removed and added; reordering and metadata are named in words."""
    before = three_on_page_two()
    after, _ = apply(
        before,
        [
            action("remove_element", name="a"),
            add("text", "a", {"x": 10, "y": 10}, {"content": "a again"}, page=1),
            action("update_element", name="b", styles={"fontSize": 30}),
            action("reorder_element", name="c", to="front"),
            action("set_metadata", title="Renamed"),
        ],
    )
    found = differences(before, after)
    assert found["added"] == [] and found["removed"] == []
    assert [(e["name"], e["parts"]) for e in found["changed"]] == [("a", ["data"]), ("b", ["styles"])]
    assert found["other"] == ["paint order on page 2", "document properties"]
    assert differences(before, before) == {"added": [], "removed": [], "changed": [], "other": []}
