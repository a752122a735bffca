"""add/update/remove/reorder/bind/unbind: each success and each refusal (spec 4.6)."""

import pytest

from engine import apply, new_design
from tests.actions import fails

from ...conftest import action, add, build

TEXT = add("text", "title", {"x": 10, "y": 20}, {"content": "Hello"})


# add_element

ONE_OF_EACH = [
    add("text", "t", {"x": 1, "y": 2}, {"content": "Text"}),
    add("image", "i", {"x": 1, "y": 2, "w": 30, "h": 20}, {"src": "uploads:abc"}),
    add("table", "tb", {"x": 1, "y": 2}, {"cells": [["a", "b"], ["c", "d"]], "width": 200}),
    add("shape", "s", {"x": 1, "y": 2, "w": 30, "h": 20}, {"shapeType": "circle"}),
    add("icon", "ic", {"x": 1, "y": 2, "w": 24, "h": 24}, {"iconId": "mail"}),
    add("qr", "q", {"x": 1, "y": 2, "size": 50}, {"content": "hello"}),
    add("barcode", "b", {"x": 1, "y": 2, "w": 120, "h": 40}, {"content": "12345"}),
]


@pytest.mark.parametrize("act", ONE_OF_EACH, ids=lambda a: a["args"]["type"])
def test_add_each_type_mints_a_typed_id_and_echoes_the_box(act):
    tree, results = apply(new_design(), [act])
    data = results[0]["data"]
    kind = act["args"]["type"]
    assert results[0] == {"type": "add_element", "status": "success", "data": data}
    assert data["id"].startswith(f"{kind}_") and len(data["id"]) > len(kind) + 5
    assert data["name"] == act["args"]["name"] and data["type"] == kind
    assert {"x", "y", "w", "h"} <= set(data["position"])
    assert data["id"] in tree.nodes and tree.pages[0].elements == [data["id"]]


def test_text_box_hugs_content_and_wraps_at_max_width():
    _, results = apply(
        new_design(),
        [
            add("text", "short", {"x": 0, "y": 0}, {"content": "Hi"}),
            add("text", "long", {"x": 0, "y": 0}, {"content": "Hi"}, {"fontSize": 24}),
            add("text", "wrapped", {"x": 0, "y": 0, "maxWidth": 100}, {"content": "word " * 30}),
        ],
    )
    short, long_, wrapped = (r["data"]["position"] for r in results)
    assert 0 < short["w"] < 20 and short["h"] == pytest.approx(12 * 1.2)
    assert long_["w"] == pytest.approx(short["w"] * 2, rel=0.01)
    assert wrapped["w"] == 100 and wrapped["h"] > 5 * 12 * 1.2


def test_table_box_comes_from_the_grid():
    _, results = apply(
        new_design(),
        [
            add("table", "t", {"x": 0, "y": 0}, {"cells": [["a", "b", "c"]] * 3, "columnWidths": [50, 60, 70]}),
            add("table", "u", {"x": 0, "y": 0}, {"rows": 4, "columns": 2, "width": 300}),
        ],
    )
    t, u = (r["data"]["position"] for r in results)
    assert t["w"] == 180 and t["h"] == pytest.approx(3 * (10 * 1.2 + 8))
    assert u["w"] == 300 and u["h"] == pytest.approx(4 * (10 * 1.2 + 8))


def test_qr_is_always_square():
    _, results = apply(new_design(), [add("qr", "q", {"x": 0, "y": 0, "size": 77}, {"content": "x"})])
    assert results[0]["data"]["position"]["w"] == results[0]["data"]["position"]["h"] == 77


def test_add_refuses_an_id():
    fails(
        new_design(),
        [add("text", "t", {"x": 0, "y": 0}, id="text_1")],
        "actions[0] (add_element) failed",
        "minted by the server",
    )


def test_add_refuses_width_on_text_naming_the_fix():
    fails(new_design(), [add("text", "t", {"x": 0, "y": 0, "w": 100})], "position.w", "use position.maxWidth")


def test_add_refuses_width_on_table_naming_the_fix():
    fails(
        new_design(), [add("table", "t", {"x": 0, "y": 0, "w": 100})], "position.w", "data.columnWidths or data.width"
    )


def test_add_refuses_w_on_qr_naming_size():
    fails(new_design(), [add("qr", "q", {"x": 0, "y": 0, "w": 10}, {"content": "x"})], "use position.size")


def test_unknown_style_key_lists_the_allowed_ones():
    fails(
        new_design(),
        [add("text", "t", {"x": 0, "y": 0}, styles={"colour": "#000"})],
        "styles.colour: unknown key",
        "allowed keys",
        "color",
    )


def test_add_refuses_a_duplicate_name():
    fails(new_design(), [TEXT, TEXT], "actions[1] (add_element)", "already exists")


def test_add_refuses_a_missing_page():
    fails(new_design(), [add("text", "t", {"x": 0, "y": 0}, page=3)], "page 3 does not exist")


def test_add_refuses_an_unknown_type():
    fails(new_design(), [add("video", "v", {"x": 0, "y": 0})], "args.type must be one of")


@pytest.mark.parametrize(
    "act,fragment",
    [
        (add("image", "i", {"x": 0, "y": 0, "w": 1, "h": 1}, {"src": "/etc/passwd"}), "not an image ref"),
        (add("icon", "i", {"x": 0, "y": 0, "w": 1, "h": 1}, {"iconId": "stra"}), "star"),
        (
            add("barcode", "b", {"x": 0, "y": 0, "w": 1, "h": 1}, {"content": "5901234123458", "format": "EAN13"}),
            "should be 7",
        ),
        (add("barcode", "b", {"x": 0, "y": 0, "w": 1, "h": 1}, {"content": "abc", "format": "CODE39"}), "upper-case"),
        (add("qr", "q", {"x": 0, "y": 0, "size": 10}, {"content": "x" * 5000}), "too long"),
        (add("qr", "q", {"x": 0, "y": 0, "size": 10}), "data: required"),
        (add("text", "t", {"x": 0, "y": 0}, {"content": "abc", "dataType": "number"}), "expected a number"),
        (add("text", "t", {"x": 0, "y": 0}, {"content": ["a"]}), "listFormat"),
        (add("text", "t", {"x": 0, "y": 0}, styles={"fontFamily": "Comic Sans"}), "unknown fontFamily"),
        (add("text", "t", {"x": 0, "y": 0}, styles={"color": "red"}), "hex colour"),
        (add("table", "t", {"x": 0, "y": 0}, {"rows": 501, "columns": 2}), "less than or equal to 500"),
        (add("table", "t", {"x": 0, "y": 0}, {"cells": [["a"]], "columnWidths": [10], "width": 10}), "not both"),
        (add("shape", "s", {"x": 0, "y": 0, "w": -1, "h": 1}), "greater than or equal to 0"),
    ],
)
def test_add_validates_each_type(act, fragment):
    fails(new_design(), [act], fragment)


# update_element


def test_update_merges_data_and_styles_key_by_key():
    tree = build([add("text", "t", {"x": 0, "y": 0}, {"content": "a"}, {"fontSize": 20, "color": "#ff0000"})])
    tree, results = apply(tree, [action("update_element", name="t", styles={"fontSize": 30}, position={"x": 50})])
    node = tree.node_by_name("t")
    assert node.styles.fontSize == 30 and node.styles.color == "#ff0000"
    assert node.position.x == 50 and node.position.y == 0
    assert results[0]["data"]["position"]["h"] == pytest.approx(36)


def test_update_with_null_resets_a_key_to_its_default():
    tree = build([add("text", "t", {"x": 0, "y": 0, "maxWidth": 50}, {"content": "a"}, {"fontSize": 20})])
    tree, _ = apply(tree, [action("update_element", name="t", styles={"fontSize": None}, position={"maxWidth": None})])
    node = tree.node_by_name("t")
    assert node.styles.fontSize == 12 and node.position.maxWidth is None


def test_update_by_id_and_rename_moves_the_variable():
    tree = build([TEXT, action("bind_variable", name="title")])
    node_id = tree.node_by_name("title").id
    tree, _ = apply(tree, [action("update_element", id=node_id, newName="heading", isHidden=True, isLocked=True)])
    node = tree.nodes[node_id]
    assert node.name == "heading" and node.isHidden and node.isLocked
    assert "heading" in tree.variables and "title" not in tree.variables


def test_update_table_cells_rederive_rows_and_rows_resize_the_grid():
    tree = build([add("table", "t", {"x": 0, "y": 0}, {"cells": [["a", "b"]] * 2})])
    tree, _ = apply(tree, [action("update_element", name="t", data={"cells": [["x", "y"]] * 3})])
    assert tree.node_by_name("t").data.rows == 3
    tree, _ = apply(tree, [action("update_element", name="t", data={"rows": 5, "columns": 3})])
    data = tree.node_by_name("t").data
    assert (data.rows, data.columns) == (5, 3) and data.cells[0] == ["x", "y", ""] and data.cells[4] == ["", "", ""]


@pytest.mark.parametrize(
    "args,fragment",
    [
        ({"name": "nope", "styles": {"fontSize": 3}}, "no element named 'nope'"),
        ({"id": "text_zzz"}, "no element with id"),
        ({"name": "title", "id": "x"}, "exactly one of 'name' or 'id'"),
        ({}, "exactly one of 'name' or 'id'"),
        ({"name": "title", "position": {"w": 100}}, "use position.maxWidth"),
        ({"name": "title", "newName": "other"}, "already exists"),
        ({"name": "title", "styles": {"fontSize": -1}}, "styles.fontSize"),
        ({"name": "title", "color": "#fff"}, "unknown key"),
    ],
)
def test_update_refusals(args, fragment):
    tree = build([TEXT, add("text", "other", {"x": 0, "y": 0})])
    fails(tree, [action("update_element", **args)], "actions[0] (update_element) failed", fragment)


# remove_element


def test_remove_deletes_the_element_and_its_variable():
    tree = build([TEXT, action("bind_variable", name="title")])
    tree, results = apply(tree, [action("remove_element", name="title")])
    assert tree.nodes == {} and tree.variables == {} and tree.pages[0].elements == []
    assert results[0]["data"]["removedVariable"] == "title"


def test_remove_unknown_element_is_refused():
    fails(new_design(), [action("remove_element", name="ghost")], "no element named 'ghost'")


# reorder_element


@pytest.mark.parametrize(
    "to,order",
    [("front", "acdb"), ("back", "bacd"), ("forward", "acbd"), ("backward", "bacd"), (3, "acdb"), (0, "bacd")],
)
def test_reorder(to, order):
    tree = build([add("shape", n, {"x": 0, "y": 0, "w": 1, "h": 1}) for n in "abcd"])
    tree, _ = apply(tree, [action("reorder_element", name="b", to=to)])
    assert "".join(tree.nodes[i].name for i in tree.pages[0].elements) == order


def test_reorder_past_the_end_is_refused():
    tree = build([add("shape", n, {"x": 0, "y": 0, "w": 1, "h": 1}) for n in "ab"])
    fails(tree, [action("reorder_element", name="a", to=5)], "past the page's last")
    fails(tree, [action("reorder_element", name="a", to="top")], "to: Input should be")


# bind_variable / unbind_variable


def test_bind_makes_a_variable_named_after_the_element():
    tree = build([TEXT])
    tree, results = apply(tree, [action("bind_variable", name="title")])
    variable = tree.variables["title"]
    assert variable.nodeId == tree.node_by_name("title").id and variable.kind == "text"
    assert results[0]["data"]["variable"] == "title"


def test_bind_accepts_only_name_or_id():
    fails(build([TEXT]), [action("bind_variable", name="title", field="content")], "unknown key")


def test_unbind_removes_the_variable_and_keeps_the_element():
    tree = build([TEXT, action("bind_variable", name="title")])
    tree, _ = apply(tree, [action("unbind_variable", name="title")])
    assert tree.variables == {} and tree.node_by_name("title") is not None


def test_unbind_of_an_unbound_element_is_refused():
    fails(build([TEXT]), [action("unbind_variable", name="title")], "not bound")
