"""apply(): ordered, atomic, bounded; and the catalog generated from the models."""

import pytest

from engine import ActionError, EngineError, apply, catalog, new_design

from ...conftest import action, add, build


def test_a_failing_batch_leaves_the_tree_byte_for_byte_unchanged():
    tree = build([add("text", "keep", {"x": 0, "y": 0}, {"content": "original"})])
    before = tree.model_dump_json()
    batch = [
        action("update_element", name="keep", data={"content": "changed"}),
        add("text", "new", {"x": 0, "y": 0}),
        action("remove_element", name="missing"),
    ]
    with pytest.raises(ActionError) as info:
        apply(tree, batch)
    assert info.value.index == 2 and info.value.action_type == "remove_element"
    assert str(info.value).startswith("actions[2] (remove_element) failed: ")
    assert tree.model_dump_json() == before


def test_actions_apply_in_order_and_later_ones_see_earlier_ones():
    tree, results = apply(
        new_design(),
        [
            add("text", "a", {"x": 0, "y": 0}),
            action("update_element", name="a", newName="b"),
            action("bind_variable", name="b"),
        ],
    )
    assert [r["type"] for r in results] == ["add_element", "update_element", "bind_variable"]
    assert list(tree.variables) == ["b"]


def test_the_same_actions_with_the_same_ids_give_the_same_tree():
    batch = [
        add("text", "a", {"x": 0, "y": 0}, {"content": "x"}),
        add("qr", "q", {"x": 0, "y": 0, "size": 9}, {"content": "y"}),
    ]
    assert build(batch).model_dump_json() == build(batch).model_dump_json()


@pytest.mark.parametrize("count", [0, 501])
def test_batch_size_is_bounded(count):
    with pytest.raises(EngineError, match="between 1 and 500"):
        apply(new_design(), [add("text", f"t{i}", {"x": 0, "y": 0}) for i in range(count)])


def test_500_actions_are_accepted():
    tree, results = apply(new_design(), [add("text", f"t{i}", {"x": 0, "y": i}) for i in range(500)])
    assert len(results) == 500 and len(tree.nodes) == 500


@pytest.mark.parametrize(
    "raw,fragment",
    [
        ({"type": "explode", "args": {}}, "unknown action type"),
        ({"type": "add_page", "args": {}, "extra": 1}, "extra: unknown key"),
        ({"args": {}}, "type: required"),
    ],
)
def test_malformed_actions_are_refused(raw, fragment):
    with pytest.raises(ActionError, match=fragment):
        apply(new_design(), [raw])


def test_catalog_lists_all_twelve_actions_with_schemas():
    entries = {entry["name"]: entry for entry in catalog()}
    assert set(entries) == {
        "add_element",
        "update_element",
        "remove_element",
        "reorder_element",
        "bind_variable",
        "unbind_variable",
        "add_page",
        "update_page",
        "remove_page",
        "set_page_background",
        "set_document_background",
        "set_metadata",
    }
    for entry in entries.values():
        assert entry["description"] and isinstance(entry["args"], dict)


def test_catalog_add_element_schema_covers_every_type_and_refuses_extras():
    schema = catalog()[0]["args"]
    variants = schema["oneOf"]
    kinds = {schema["$defs"][v["$ref"].split("/")[-1]]["properties"]["type"]["const"] for v in variants}
    assert kinds == {"text", "image", "table", "shape", "icon", "qr", "barcode", "chart", "field"}
    text = schema["$defs"]["AddTextArgs"]
    assert text["additionalProperties"] is False and "id" not in text["properties"]
    assert "maxWidth" in schema["$defs"]["TextPosition"]["properties"] or any(
        "maxWidth" in d.get("properties", {}) for d in schema["$defs"].values()
    )


def test_catalog_schema_for_element_address_has_name_and_id():
    entries = {entry["name"]: entry for entry in catalog()}
    props = entries["remove_element"]["args"]["properties"]
    assert set(props) == {"name", "id"}
