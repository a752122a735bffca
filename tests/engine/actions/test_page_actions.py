"""add/update/remove page, backgrounds and metadata: successes and refusals (spec 4.6)."""

import pytest
from reportlab.lib.pagesizes import A4, A5, LETTER

from engine import apply, new_design
from tests.actions import fails

from ...conftest import action, add, build


def test_add_page_without_format_copies_the_last_page():
    tree = build([], width=300, height=200)
    tree, results = apply(tree, [action("add_page", name="Back")])
    assert len(tree.pages) == 2 and (tree.pages[1].width, tree.pages[1].height) == (300, 200)
    assert results[0]["data"] == {"page": 1, "id": tree.pages[1].id, "name": "Back", "width": 300, "height": 200}


def test_add_page_with_orientation_turns_the_last_format():
    tree, _ = apply(new_design(), [action("add_page", orientation="landscape")])
    assert (tree.pages[1].width, tree.pages[1].height) == pytest.approx((A4[1], A4[0]))


def test_add_page_with_size_custom_and_background():
    tree, _ = apply(
        new_design(),
        [
            action("add_page", size="Letter"),
            action("add_page", width=500, height=500, backgroundColor="#eeeeee"),
        ],
    )
    assert (tree.pages[1].width, tree.pages[1].height) == pytest.approx(LETTER)
    assert (tree.pages[2].width, tree.pages[2].height, tree.pages[2].backgroundColor) == (500, 500, "#eeeeee")


@pytest.mark.parametrize(
    "args,size",
    [
        ({"width": 595.28, "height": 841.89, "orientation": "landscape"}, (841.89, 595.28)),
        ({"width": 841.89, "height": 595.28, "orientation": "portrait"}, (595.28, 841.89)),
        ({"width": 841.89, "height": 595.28, "orientation": "landscape"}, (841.89, 595.28)),
        ({"size": "A4", "orientation": "landscape"}, (A4[1], A4[0])),
        ({"width": 595.28, "height": 841.89}, (595.28, 841.89)),
        ({"width": 841.89, "height": 595.28}, (841.89, 595.28)),
    ],
)
def test_add_page_dimensions_follow_orientation_even_for_a_custom_sheet(args, size):
    # spec 4.6: "passing orientation makes dimensions follow"; without it the sheet is taken as given.
    tree, results = apply(new_design(), [action("add_page", **args)])
    assert (tree.pages[1].width, tree.pages[1].height) == pytest.approx(size)
    assert (results[0]["data"]["width"], results[0]["data"]["height"]) == pytest.approx(size)


@pytest.mark.parametrize(
    "args,size",
    [
        ({"width": 595.28, "height": 841.89, "orientation": "landscape"}, (841.89, 595.28)),
        ({"width": 500, "height": 300, "orientation": "portrait"}, (300, 500)),
        ({"width": 500, "height": 300}, (500, 300)),
        ({"size": "Letter", "orientation": "landscape"}, (LETTER[1], LETTER[0])),
    ],
)
def test_update_page_dimensions_follow_orientation_like_add_page(args, size):
    tree, _ = apply(new_design(), [action("update_page", page=0, **args)])
    assert (tree.pages[0].width, tree.pages[0].height) == pytest.approx(size)


def test_creating_a_design_still_takes_a_custom_sheet_literally():
    # spec 4.2 rule 2: orientation is ignored for a custom sheet at creation.
    page = new_design(orientation="landscape", width=300, height=500).pages[0]
    assert (page.width, page.height) == (300, 500)


@pytest.mark.parametrize(
    "args,fragment",
    [
        ({"size": "A4", "width": 10, "height": 10}, "not both"),
        ({"width": 300}, "go together"),
        ({"size": "B5"}, "size:"),
        ({"backgroundColor": "blue"}, "linear-gradient"),
        ({"margin": 10}, "unknown key"),
    ],
)
def test_add_page_refusals(args, fragment):
    fails(new_design(), [action("add_page", **args)], "actions[0] (add_page) failed", fragment)


def test_update_page_changes_size_and_orientation_in_place():
    tree = build([add("text", "t", {"x": 5, "y": 5}, {"content": "x"})])
    tree, _ = apply(tree, [action("update_page", page=0, size="A5", name="Front")])
    assert (tree.pages[0].width, tree.pages[0].height) == pytest.approx(A5) and tree.pages[0].name == "Front"
    tree, _ = apply(tree, [action("update_page", page=0, orientation="landscape")])
    assert (tree.pages[0].width, tree.pages[0].height) == pytest.approx((A5[1], A5[0]))
    assert tree.node_by_name("t").position.x == 5


def test_update_page_refuses_a_missing_page():
    fails(new_design(), [action("update_page", page=1, size="A4")], "page 1 does not exist")


def test_remove_page_drops_its_elements_and_renumbers_the_rest():
    tree = build(
        [
            action("add_page"),
            action("add_page"),
            add("text", "on1", {"x": 0, "y": 0}, page=1),
            add("text", "on2", {"x": 0, "y": 0}, page=2),
            action("bind_variable", name="on1"),
        ]
    )
    tree, results = apply(tree, [action("remove_page", page=1)])
    assert len(tree.pages) == 2 and tree.node_by_name("on1") is None and "on1" not in tree.variables
    assert tree.node_by_name("on2").page == 1 and tree.pages[1].elements == [tree.node_by_name("on2").id]
    assert results[0]["data"]["removedElements"] == 1


def test_removing_the_last_page_is_refused():
    fails(new_design(), [action("remove_page", page=0)], "at least one page")


def test_set_page_background_merges_fields_and_null_clears():
    tree, _ = apply(
        new_design(),
        [
            action("set_page_background", page=0, backgroundColor="#ff0000", backgroundImage="assets:bg"),
            action("set_page_background", page=0, backgroundSize="contain"),
            action("set_page_background", page=0, backgroundImage=None),
        ],
    )
    page = tree.pages[0]
    assert (page.backgroundColor, page.backgroundImage, page.backgroundSize) == ("#ff0000", None, "contain")


@pytest.mark.parametrize(
    "args,fragment",
    [
        ({"page": 0}, "send at least one of"),
        ({"page": 0, "backgroundColor": "linear-gradient(90deg, #fff)"}, "at least two colours"),
        ({"page": 0, "backgroundImage": "http://x/y.png"}, "not an image ref"),
        ({"page": 0, "backgroundSize": "tile"}, "backgroundSize"),
        ({"page": 4, "backgroundColor": "#fff"}, "page 4 does not exist"),
    ],
)
def test_set_page_background_refusals(args, fragment):
    fails(new_design(), [action("set_page_background", **args)], fragment)


def test_set_document_background_and_gradient():
    tree, results = apply(
        new_design(),
        [action("set_document_background", backgroundColor="linear-gradient(to right, #000000, #ffffff 80%)")],
    )
    assert tree.background.backgroundColor.startswith("linear-gradient")
    assert results[0]["data"]["backgroundColor"] == tree.background.backgroundColor


def test_set_metadata_sets_and_clears_fields():
    tree, _ = apply(
        new_design(),
        [
            action(
                "set_metadata", title="T", author="A", subject="S", keywords="k1, k2", creator="C", language="en-GB"
            ),
            action("set_metadata", creator=None),
        ],
    )
    meta = tree.metadata
    assert (meta.title, meta.author, meta.subject, meta.keywords, meta.creator, meta.language) == (
        "T",
        "A",
        "S",
        "k1, k2",
        None,
        "en-GB",
    )


def test_set_metadata_refusals():
    fails(new_design(), [action("set_metadata")], "send at least one of")
    fails(new_design(), [action("set_metadata", producer="x")], "unknown key")
