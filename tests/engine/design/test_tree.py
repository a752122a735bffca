"""A new design and its paper formats (spec 2.2, 2.3, 4.2)."""

import pytest
from reportlab.lib.pagesizes import A3, A4, A5, LEGAL, LETTER

from engine import SCHEMA_VERSION, new_design


def test_new_design_has_one_a4_portrait_page_by_default():
    tree = new_design()
    assert tree.metadata.schemaVersion == SCHEMA_VERSION == "v1"
    assert len(tree.pages) == 1
    assert (tree.pages[0].width, tree.pages[0].height) == pytest.approx(A4)
    assert tree.nodes == {} and tree.variables == {}


@pytest.mark.parametrize("size,dims", [("A3", A3), ("A5", A5), ("Letter", LETTER), ("Legal", LEGAL)])
def test_named_sizes(size, dims):
    page = new_design(size=size).pages[0]
    assert (page.width, page.height) == pytest.approx(dims)


def test_landscape_puts_the_long_side_across():
    page = new_design(size="A4", orientation="landscape").pages[0]
    assert (page.width, page.height) == pytest.approx((A4[1], A4[0]))


def test_custom_size_is_taken_literally_and_ignores_orientation():
    page = new_design(width=400, height=250, orientation="portrait").pages[0]
    assert (page.width, page.height) == (400, 250)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"size": "A4", "width": 300, "height": 300}, "not both"),
        ({"width": 300}, "go together"),
        ({"width": 5, "height": 300}, "between"),
    ],
)
def test_invalid_formats_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        new_design(**kwargs)


def test_tree_json_has_the_spec_keys():
    data = new_design().model_dump(mode="json")
    assert {"metadata", "pages", "nodes", "variables"} <= set(data)
    assert data["metadata"]["schemaVersion"] == "v1"
