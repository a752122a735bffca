"""Generation values replace bound content (spec 2.5, 4.11; decisions "Generation values")."""

import pytest

from engine import ValueBindingError, apply_values, check_values, render_pdf
from tests.codes import decode
from tests.images import resolver
from tests.pdf_probes import crop_points, page_image, pdf_text

from ...conftest import action, add, build

DESIGN = [
    add("text", "name", {"x": 40, "y": 40}, {"content": "Sample Name"}),
    add("text", "amount", {"x": 40, "y": 80}, {"content": "10", "dataType": "currency", "format": "¤#,##0.00"}),
    add("text", "items", {"x": 40, "y": 120}, {"content": ["one"], "listFormat": "unordered"}),
    add("image", "photo", {"x": 300, "y": 40, "w": 60, "h": 60}, {"src": "uploads:red"}),
    add("table", "rows", {"x": 40, "y": 300}, {"cells": [["H1", "H2"], ["a", "b"]], "width": 200}),
    add("qr", "link", {"x": 400, "y": 300, "size": 120}, {"content": "design-time"}),
    add("barcode", "code", {"x": 300, "y": 600, "w": 220, "h": 70}, {"content": "DESIGN"}),
    add("text", "static", {"x": 40, "y": 700}, {"content": "Not a variable"}),
    *[action("bind_variable", name=n) for n in ("name", "amount", "items", "photo", "rows", "link", "code")],
]


@pytest.fixture(scope="module")
def design():
    return build(DESIGN)


def test_values_of_every_kind_replace_the_bound_content(design):
    values = {
        "name": "Grace Hopper",
        "amount": 1234.5,
        "items": ["first item", "second item"],
        "photo": "assets:blue",
        "rows": [["H1", "H2"], ["x1", "y1"], ["x2", "y2"]],
        "link": "https://example.org/filled",
        "code": "FILLED-42",
    }
    pdf = render_pdf(design, values, resolver)
    text = pdf_text(pdf)[0]
    for expected in ("Grace Hopper", "$1,234.50", "first item", "second item", "x2", "y2", "Not a variable"):
        assert expected in text
    assert "Sample Name" not in text and "design-time" not in text
    codes = decode(page_image(pdf, dpi=200))
    assert codes["QRCODE"] == "https://example.org/filled" and codes["CODE128"] == "FILLED-42"
    photo = crop_points(page_image(pdf), (320, 60, 4, 4)).getpixel((2, 2))
    assert photo[2] > 200 and photo[0] < 60  # the blue asset replaced the red upload


def test_variables_not_supplied_render_design_time_content(design):
    text = pdf_text(render_pdf(design, {"name": "Only Name"}, resolver))[0]
    assert "Only Name" in text and "$10.00" in text and "one" in text and "H1" in text


def test_applying_values_does_not_change_the_design(design):
    before = design.model_dump_json()
    apply_values(design, {"name": "Changed", "rows": [["a", "b"]]})
    assert design.model_dump_json() == before


@pytest.mark.parametrize(
    "values,variable,fragment",
    [
        ({"nope": "x"}, "nope", "no such variable"),
        ({"static": "x"}, "static", "no such variable"),
        ({"name": 12}, "name", "expected a string"),
        ({"amount": "ten"}, "amount", "expected a number"),
        ({"photo": "data:image/png;base64,AAAA"}, "photo", "uploads:<id>"),
        ({"photo": 5}, "photo", "image ref"),
        ({"rows": "a,b"}, "rows", "2-D array"),
        ({"rows": [["a", "b", "c"]]}, "rows", "row 0 has 3 cells; the table has 2 columns"),
        ({"rows": [["a", None]]}, "rows", "must be a string"),
        ({"code": "ünïcode"}, "code", "ASCII"),
        ({"items": [1, 2]}, "items", "list of strings"),
    ],
)
def test_wrong_values_name_the_variable(design, values, variable, fragment):
    with pytest.raises(ValueBindingError) as info:
        check_values(design, values)
    assert info.value.variable == variable and fragment in info.value.message
    assert info.value.message.startswith(f"variable '{variable}': ")


def test_table_values_shrink_and_new_rows_inherit_the_last_rows_styling():
    tree = build(
        [
            add(
                "table",
                "t",
                {"x": 40, "y": 40},
                {
                    "cells": [
                        ["H"],
                        [{"data": {"content": "styled"}, "styles": {"color": "#ff0000", "fontWeight": 700}}],
                    ],
                    "width": 200,
                },
            ),
            action("bind_variable", name="t"),
        ]
    )
    grown = apply_values(tree, {"t": [["H"], ["r1"], ["r2"], ["r3"]]}).node_by_name("t")
    assert grown.data.rows == 4
    assert all(
        cell[0].styles.color == "#ff0000" and cell[0].data.content == f"r{i}"
        for i, cell in enumerate(grown.data.cells[1:], 1)
    )
    shrunk = apply_values(tree, {"t": [["Only header"]]}).node_by_name("t")
    assert shrunk.data.rows == 1 and shrunk.data.cells == [["Only header"]]
