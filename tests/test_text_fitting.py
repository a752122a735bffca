"""Fitting and overflow of text (extensions.md 2): maxHeight, maxLines, fit "shrink" with
minFontSize, and overflow visible | ellipsis | clip | flow."""

from __future__ import annotations

import pytest

from engine import ActionError
from engine.actions import catalog
from engine.elements import ELEMENT_TYPES

from .conftest import action, add, build

TEXT = ELEMENT_TYPES["text"]


def refused(actions: list[dict], tree=None) -> str:
    with pytest.raises(ActionError) as caught:
        build(actions, tree)
    return str(caught.value)


# Models and refusals.


def test_the_fitting_keys_are_accepted_and_echo_a_box():
    tree = build(
        [
            add(
                "text",
                "Name",
                {"x": 40, "y": 40, "maxWidth": 200, "maxHeight": 30},
                {"content": "Ada Lovelace", "maxLines": 1, "overflow": "ellipsis"},
                {"fontSize": 24, "fit": "shrink", "minFontSize": 10},
            )
        ]
    )
    node = tree.node_by_name("Name")
    assert node.position.maxHeight == 30 and node.data.maxLines == 1 and node.data.overflow == "ellipsis"
    assert node.styles.fit == "shrink" and node.styles.minFontSize == 10


def test_the_defaults_change_nothing():
    node = build([add("text", "T", {"x": 0, "y": 0}, {"content": "Hi"})]).node_by_name("T")
    assert node.position.maxHeight is None and node.data.maxLines is None
    assert node.data.overflow == "visible" and node.styles.fit == "none" and node.styles.minFontSize == 6


def test_a_small_text_that_never_shrinks_keeps_the_default_minimum():
    node = build([add("text", "T", {"x": 0, "y": 0}, {"content": "Hi"}, {"fontSize": 4})]).node_by_name("T")
    assert node.styles.fontSize == 4


def test_shrink_without_max_width_is_refused_naming_the_fix():
    message = refused([add("text", "T", {"x": 0, "y": 0}, {"content": "Hi"}, {"fit": "shrink"})])
    assert 'fit "shrink"' in message and "position.maxWidth" in message


@pytest.mark.parametrize(
    ("position", "data", "styles", "named"),
    [
        ({}, {"maxLines": 2}, {}, "data.maxLines"),
        ({"maxHeight": 40}, {}, {}, "position.maxHeight"),
        ({}, {}, {"fit": "shrink"}, 'styles.fit "shrink"'),
    ],
)
def test_flow_with_a_limit_is_refused(position, data, styles, named):
    message = refused(
        [
            add(
                "text",
                "T",
                {"x": 0, "y": 0, "maxWidth": 100, **position},
                {"content": "Hi", "overflow": "flow", **data},
                styles,
            )
        ]
    )
    assert "flow" in message and named in message and "remove" in message


def test_flow_with_a_limit_is_refused_on_update_too():
    tree = build([add("text", "T", {"x": 0, "y": 0, "maxWidth": 100}, {"content": "Hi", "maxLines": 2})])
    message = refused([action("update_element", name="T", data={"overflow": "flow"})], tree)
    assert "data.maxLines" in message and "flow" in message


def test_a_minimum_above_the_size_is_refused():
    message = refused([add("text", "T", {"x": 0, "y": 0}, {"content": "Hi"}, {"fontSize": 12, "minFontSize": 14})])
    assert "minFontSize 14" in message and "at most 12" in message


def test_lowering_the_size_below_the_minimum_is_refused():
    tree = build([add("text", "T", {"x": 0, "y": 0}, {"content": "Hi"}, {"fontSize": 20, "minFontSize": 10})])
    message = refused([action("update_element", name="T", styles={"fontSize": 8})], tree)
    assert "minFontSize 10" in message and "fontSize 8" in message


@pytest.mark.parametrize(
    ("position", "data", "styles"),
    [
        ({"maxHeight": 0}, {}, {}),
        ({}, {"maxLines": 0}, {}),
        ({}, {"maxLines": 1.5}, {}),
        ({}, {"overflow": "scroll"}, {}),
        ({}, {}, {"fit": "grow"}),
        ({}, {}, {"minFontSize": 0}),
    ],
)
def test_bad_values_are_refused(position, data, styles):
    with pytest.raises(ActionError):
        build([add("text", "T", {"x": 0, "y": 0, "maxWidth": 100, **position}, {"content": "Hi", **data}, styles)])


def test_the_keys_are_in_the_action_catalog():
    entries = {entry["name"]: entry for entry in catalog()}
    schema = str(entries["add_element"]["args"])
    for key in ("maxHeight", "maxLines", "overflow", "minFontSize", "shrink", "ellipsis", "flow"):
        assert key in schema
