"""Edge cases found in review: each once raised an uncaught error or drew the wrong thing."""

import io
import json

import pytest
from PIL import Image

from engine import ActionError, EngineError, PageNotFound, RenderError, apply, new_design, render_pdf, render_png
from engine.design.variables import apply_values
from engine.render.layout import layout
from tests.pdf_probes import crop_points, page_image, pdf_text

from ...conftest import action, add, build


def rgba_png(colour) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", (20, 20), colour).save(out, format="PNG")
    return out.getvalue()


def test_two_images_with_the_same_alpha_share_their_mask():
    images = {"uploads:red": rgba_png((255, 0, 0, 255)), "uploads:blue": rgba_png((0, 0, 255, 255))}
    tree = build(
        [
            add("image", "a", {"x": 50, "y": 50, "w": 40, "h": 40}, {"src": "uploads:red"}),
            add("image", "b", {"x": 150, "y": 50, "w": 40, "h": 40}, {"src": "uploads:blue"}),
        ]
    )
    page = page_image(render_pdf(tree, resolver=images.__getitem__))
    assert crop_points(page, (60, 60, 2, 2)).getpixel((1, 1))[0] > 200
    assert crop_points(page, (160, 60, 2, 2)).getpixel((1, 1))[2] > 200


def test_svg_images_render():
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="#00f"/>'
    svg += b"</svg>"
    tree = build([add("image", "a", {"x": 50, "y": 50, "w": 40, "h": 40}, {"src": "uploads:svg"})])
    page = page_image(render_pdf(tree, resolver={"uploads:svg": svg}.__getitem__))
    assert crop_points(page, (70, 70, 2, 2)).getpixel((1, 1))[2] > 200


def test_exif_rotated_jpeg_is_drawn_upright():
    source = Image.new("RGB", (60, 20), (0, 0, 255))
    source.paste((255, 0, 0), (0, 0, 20, 20))  # red at the left, which is the top once rotated
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise for display
    out = io.BytesIO()
    source.save(out, format="JPEG", exif=exif, quality=95)
    tree = build([add("image", "p", {"x": 100, "y": 100, "w": 100, "h": 100}, {"src": "uploads:p", "fit": "contain"})])
    page = page_image(render_pdf(tree, resolver={"uploads:p": out.getvalue()}.__getitem__))
    top, bottom = (
        crop_points(page, (148, 103, 2, 2)).getpixel((1, 1)),
        crop_points(page, (148, 195, 2, 2)).getpixel((1, 1)),
    )
    assert top[0] > 200 and top[2] < 80 and bottom[2] > 200


@pytest.mark.parametrize(
    "pattern,value,expected",
    [
        ("d MMM y HH:mm", "2026-03-04", "4 Mar 2026 00:00"),
        ("EEEE", "2026-11-21", "Saturday"),
    ],
)
def test_date_patterns_with_time_fields_work_on_dates(pattern, value, expected):
    tree = build(
        [
            add("text", "d", {"x": 10, "y": 10}, {"content": value, "dataType": "date", "format": pattern}),
            action("bind_variable", name="d"),
        ]
    )
    assert expected in pdf_text(render_pdf(tree, {"d": value}))[0]


def test_an_unusable_format_is_refused_when_set():
    with pytest.raises(ActionError, match="format 'MMMMMM'"):
        apply(
            new_design(),
            [add("text", "d", {"x": 1, "y": 1}, {"content": "2026-01-01", "dataType": "date", "format": "MMMMMM"})],
        )


@pytest.mark.parametrize("value", [1e30, "1e25"])
def test_large_numbers_format(value):
    tree = build(
        [add("text", "n", {"x": 1, "y": 1}, {"content": "1", "dataType": "number"}), action("bind_variable", name="n")]
    )
    assert "000,000" in pdf_text(render_pdf(tree, {"n": value}))[0]


@pytest.mark.parametrize(
    "value,fragment",
    [("NaN", "expected a number"), ("1,5", "expected a number"), ("1e999", "out of range"), (["1", "2"], "not a list")],
)
def test_number_values_that_cannot_be_shown_are_refused(value, fragment):
    from engine import ValueBindingError

    tree = build(
        [add("text", "n", {"x": 1, "y": 1}, {"content": "1", "dataType": "number"}), action("bind_variable", name="n")]
    )
    with pytest.raises(ValueBindingError, match=fragment):
        render_pdf(tree, {"n": value})


@pytest.mark.parametrize(
    "position",
    [
        '{"x": 1e309, "y": 1, "w": 1, "h": 1}',
        '{"x": 1e300, "y": 1, "w": 1, "h": 1}',
        '{"x": 1, "y": 1, "w": 1e9, "h": 1}',
    ],
)
def test_non_finite_or_huge_coordinates_are_refused(position):
    with pytest.raises(ActionError, match="position"):
        apply(new_design(), [add("shape", "s", json.loads(position))])


@pytest.mark.parametrize(
    "data,fragment",
    [({"rows": "abc"}, "rows"), ({"columns": 2.5}, "columns"), ({"rows": 10**9}, "less than or equal to 500")],
)
def test_table_resizes_are_validated_before_any_allocation(data, fragment):
    tree = build([add("table", "t", {"x": 10, "y": 10})])
    with pytest.raises(ActionError, match=fragment):
        apply(tree, [action("update_element", name="t", data=data)])


def test_updates_keep_styles_that_were_set_to_none():
    tree = build(
        [
            add("shape", "s", {"x": 1, "y": 1, "w": 9, "h": 9}, styles={"stroke": None, "fill": "#ff0000"}),
            add("table", "t", {"x": 10, "y": 100}, styles={"borderColor": None}),
        ]
    )
    tree, _ = apply(
        tree, [action("update_element", name="s", position={"x": 5}), action("update_element", name="t", newName="t2")]
    )
    assert tree.node_by_name("s").styles.stroke is None and tree.node_by_name("t2").styles.borderColor is None


def test_updating_cells_to_more_columns_extends_column_widths():
    tree = build([add("table", "t", {"x": 10, "y": 10}, {"cells": [["a", "b"]], "columnWidths": [50, 70]})])
    tree, _ = apply(tree, [action("update_element", name="t", data={"cells": [["a", "b", "c"]]})])
    assert tree.node_by_name("t").data.columnWidths == [50, 70, 70]


@pytest.mark.parametrize("dash", [[0, 0], [0], [-1, 2]])
def test_dash_patterns_that_draw_nothing_are_refused(dash):
    with pytest.raises(ActionError, match="dash"):
        apply(new_design(), [add("shape", "s", {"x": 1, "y": 1, "w": 9, "h": 9}, styles={"dash": dash})])


def test_gradient_to_top():
    tree = build([action("set_document_background", backgroundColor="linear-gradient(to top, #000000, #ffffff)")])
    page = page_image(render_pdf(tree))
    assert crop_points(page, (100, 5, 2, 2)).getpixel((1, 1))[0] > 230
    assert crop_points(page, (100, 835, 2, 2)).getpixel((1, 1))[0] < 25


def test_malformed_data_uri_is_a_render_error():
    tree = build([add("image", "i", {"x": 1, "y": 1, "w": 9, "h": 9}, {"src": "data:image/png;base64,!!!"})])
    with pytest.raises(RenderError, match="base64"):
        render_pdf(tree)


def sheets_of(tree, values):
    return [{p.node.name: p for p in sheet.placements} for sheet in layout(tree, apply_values(tree, values))]


def rows(n):
    return [["H", "V"]] + [[f"r{i}", str(i)] for i in range(n)]


def test_a_follower_below_side_by_side_tables_follows_the_one_that_ends_lowest():
    tree = build(
        [
            add("table", "A", {"x": 40, "y": 100}, {"cells": rows(1), "width": 200}),
            add("table", "B", {"x": 300, "y": 100}, {"cells": rows(3), "width": 200}),
            add("text", "F", {"x": 40, "y": 200}, {"content": "after"}),
            action("bind_variable", name="A"),
        ]
    )
    (sheet,) = sheets_of(tree, {"A": rows(12)})
    assert sheet["F"].box.y >= sheet["A"].box.bottom


def test_rows_never_fall_off_the_sheet_when_a_table_was_designed_past_its_edge():
    tree = build(
        [add("table", "A", {"x": 40, "y": 100}, {"cells": rows(44), "width": 200}), action("bind_variable", name="A")]
    )
    height = tree.pages[0].height
    placed = [s["A"] for s in sheets_of(tree, {"A": rows(60)})]
    assert all(p.box.bottom <= height for p in placed)
    assert sum(p.part.end - p.part.start for p in placed) == 61


def test_a_very_thin_table_does_not_break_layout():
    tree = build(
        [
            add(
                "table",
                "t",
                {"x": 40, "y": 100},
                {"cells": [["a"]], "width": 50},
                {"fontSize": 0.001, "lineHeight": 0.01, "cellPadding": 0},
            ),
            add("text", "x", {"x": 40, "y": 99.995}, {"content": "x"}),
        ]
    )
    assert render_pdf(tree).startswith(b"%PDF")


def test_carriage_returns_and_tabs_are_normalised():
    _, results = apply(new_design(), [add("text", "t", {"x": 0, "y": 0}, {"content": "a\r\nb\tc"})])
    assert results[0]["data"]["position"]["h"] == pytest.approx(2 * 12 * 1.2)  # two lines, not one
    text = pdf_text(render_pdf(build([add("text", "t", {"x": 10, "y": 10}, {"content": "a\r\nb\tc"})])))[0]
    assert text.split() == ["a", "b", "c"]


def test_bad_render_arguments_are_engine_errors():
    with pytest.raises(EngineError, match="dpi"):
        render_png(new_design(), 0, dpi=0)
    with pytest.raises(PageNotFound):
        render_pdf(new_design(), pages=[3])
