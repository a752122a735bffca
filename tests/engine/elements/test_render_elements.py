"""Every element type drawn into a real PDF and found there again (spec 2.4, 4.5)."""

import io

import pytest
from PIL import Image

from engine import RenderError, render_pdf, render_png
from tests.codes import decode
from tests.images import resolver
from tests.pdf_probes import crop_points, font_report, ink_ratio, page_image, pdf_text

from ...conftest import action, add, build


def test_text_is_extractable_with_lists_and_formats():
    tree = build(
        [
            add("text", "plain", {"x": 40, "y": 40}, {"content": "Plain words here"}),
            add("text", "bullets", {"x": 40, "y": 80}, {"content": ["first", "second"], "listFormat": "unordered"}),
            add(
                "text",
                "numbers",
                {"x": 40, "y": 140},
                {"content": ["alpha", "beta"], "listFormat": "ordered", "listStart": 3},
            ),
            add(
                "text",
                "money",
                {"x": 40, "y": 200},
                {"content": "1234.5", "dataType": "currency", "currency": "EUR", "locale": "de_DE"},
            ),
            add(
                "text", "when", {"x": 40, "y": 230}, {"content": "2026-11-21", "dataType": "date", "format": "d MMMM y"}
            ),
            add(
                "text",
                "count",
                {"x": 40, "y": 260},
                {"content": "1234567.891", "dataType": "number", "format": "#,##0.00"},
            ),
        ]
    )
    text = pdf_text(render_pdf(tree))[0]
    for expected in (
        "Plain words here",
        "\u2022",
        "first",
        "second",
        "3.",
        "alpha",
        "4.",
        "beta",
        "1.234,50",
        "€",
        "21 November 2026",
        "1,234,567.89",
    ):
        assert expected in text, (expected, text)


def test_wrapped_text_stays_inside_max_width():
    tree = build(
        [
            add(
                "text",
                "p",
                {"x": 100, "y": 100, "maxWidth": 150},
                {"content": "lorem ipsum dolor sit amet " * 8},
                {"fontSize": 14},
            )
        ]
    )
    page = page_image(render_pdf(tree))
    assert ink_ratio(crop_points(page, (100, 100, 150, 120))) > 0.03
    assert ink_ratio(crop_points(page, (252, 90, 200, 200)), threshold=250) == 0


@pytest.mark.parametrize("align", ["left", "center", "right"])
def test_alignment_moves_the_ink(align):
    tree = build(
        [add("text", "t", {"x": 100, "y": 100, "maxWidth": 300}, {"content": "IIII"}, {"fontSize": 20, "align": align})]
    )
    page = page_image(render_pdf(tree))
    thirds = [ink_ratio(crop_points(page, (100 + i * 100, 100, 100, 24))) for i in range(3)]
    assert thirds.index(max(thirds)) == {"left": 0, "center": 1, "right": 2}[align]


def test_colour_italic_and_underline_are_drawn():
    tree = build(
        [
            add(
                "text",
                "t",
                {"x": 50, "y": 50},
                {"content": "Styled"},
                {"color": "#00aa00", "italic": True, "underline": True, "fontSize": 30},
            )
        ]
    )
    pdf = render_pdf(tree)
    assert "Inter-400i" in str(font_report(pdf)) or any("Italic" in f["name"] for f in font_report(pdf))
    region = crop_points(page_image(pdf), (50, 50, 120, 40)).convert("RGB")
    assert any(g > 120 and r < 80 and b < 80 for r, g, b in region.get_flattened_data())


def test_image_is_drawn_with_its_pixels_and_fit():
    tree = build(
        [
            add("image", "contain", {"x": 50, "y": 50, "w": 100, "h": 100}, {"src": "uploads:red", "fit": "contain"}),
            add("image", "fill", {"x": 200, "y": 50, "w": 100, "h": 100}, {"src": "uploads:red", "fit": "fill"}),
            add("image", "faded", {"x": 350, "y": 50, "w": 100, "h": 100}, {"src": "assets:blue"}, {"opacity": 0.3}),
        ]
    )
    page = page_image(render_pdf(tree, resolver=resolver))
    red = lambda px: px[0] > 150 and px[1] < 80
    # contain: a 2:1 image in a square box leaves bands above and below
    assert red(crop_points(page, (60, 95, 10, 10)).getpixel((5, 5)))
    assert crop_points(page, (60, 52, 10, 10)).getpixel((5, 5)) == (255, 255, 255)
    assert red(crop_points(page, (210, 52, 10, 10)).getpixel((5, 5)))
    faded = crop_points(page, (390, 90, 10, 10)).getpixel((5, 5))
    assert faded[2] > 200 and faded[0] > 150  # blue at 30 % over white is pale


def test_image_crop_selects_part_of_the_source():
    halves = Image.new("RGB", (100, 50), (255, 0, 0))
    halves.paste((0, 0, 255), (50, 0, 100, 50))
    out = io.BytesIO()
    halves.save(out, format="PNG")
    tree = build(
        [
            add(
                "image",
                "i",
                {"x": 50, "y": 50, "w": 100, "h": 100},
                {"src": "uploads:h", "crop": {"x": 0.5, "y": 0, "w": 0.5, "h": 1}, "fit": "fill"},
            )
        ]
    )
    page = page_image(render_pdf(tree, resolver={"uploads:h": out.getvalue()}.__getitem__))
    pixel = crop_points(page, (100, 100, 4, 4)).getpixel((2, 2))
    assert pixel[2] > 200 and pixel[0] < 50


def test_unresolvable_image_is_a_clear_error():
    tree = build([add("image", "i", {"x": 0, "y": 0, "w": 10, "h": 10}, {"src": "uploads:missing"})])
    with pytest.raises(RenderError, match="uploads:missing"):
        render_pdf(tree, resolver=resolver)


def test_table_cells_are_drawn_in_reading_order():
    tree = build(
        [
            add(
                "table",
                "t",
                {"x": 40, "y": 40},
                {"cells": [["Name", "Qty"], ["Apples", "3"], ["Pears", "5"]], "width": 300},
            )
        ]
    )
    text = pdf_text(render_pdf(tree))[0]
    assert text.split() == ["Name", "Qty", "Apples", "3", "Pears", "5"]


@pytest.mark.parametrize("shape", ["rectangle", "circle", "line", "arrow"])
def test_shapes_put_ink_in_their_box(shape):
    tree = build(
        [
            add(
                "shape",
                "s",
                {"x": 100, "y": 100, "w": 120, "h": 60 if shape not in ("line", "arrow") else 0},
                {"shapeType": shape},
                {"stroke": "#000000", "strokeWidth": 4, "fill": "#000000"},
            )
        ]
    )
    page = page_image(render_pdf(tree))
    inside = ink_ratio(crop_points(page, (95, 95, 130, 70)))
    assert inside > (0.3 if shape in ("rectangle", "circle") else 0.01)
    assert ink_ratio(crop_points(page, (300, 300, 100, 100))) == 0


def test_rounded_rectangle_leaves_its_corners_empty():
    tree = build(
        [
            add(
                "shape",
                "s",
                {"x": 100, "y": 100, "w": 100, "h": 100},
                {},
                {"fill": "#000000", "stroke": None, "cornerRadius": 30},
            )
        ]
    )
    page = page_image(render_pdf(tree))
    assert ink_ratio(crop_points(page, (100, 100, 5, 5))) == 0
    assert ink_ratio(crop_points(page, (140, 140, 20, 20))) == 1


def test_icon_is_vector_ink_in_its_colour():
    tree = build([add("icon", "i", {"x": 100, "y": 100, "w": 80, "h": 80}, {"iconId": "star"}, {"color": "#0000ff"})])
    pdf = render_pdf(tree)
    region = crop_points(page_image(pdf), (100, 100, 80, 80))
    assert any(b > 200 and r < 60 for r, g, b in region.get_flattened_data())
    assert b"/Subtype /Image" not in pdf


def test_qr_decodes_back_to_its_content():
    tree = build(
        [
            add(
                "qr",
                "q",
                {"x": 100, "y": 100, "size": 150},
                {"content": "https://example.org/c/42", "errorCorrection": "H"},
            )
        ]
    )
    assert decode(page_image(render_pdf(tree)))["QRCODE"] == "https://example.org/c/42"


@pytest.mark.parametrize(
    "fmt,content,zxing_name,expected",
    [
        ("CODE128", "ROW-000042", "Code128", "ROW-000042"),
        ("EAN13", "590123412345", "EAN13", "5901234123457"),
        ("EAN8", "9638507", "EAN8", "96385074"),
        # UPC-A is EAN-13 with a leading zero, and zxing reports it that way.
        ("UPCA", "03600029145", "EAN13", "0036000291452"),
        ("CODE39", "HELLO-39", "Code39", "HELLO-39"),
        ("ITF", "12345678", "ITF", "12345678"),
        ("ISBN13", "978-3-16-148410-0", "EAN13", "9783161484100"),
    ],
)
def test_barcodes_decode_back_to_their_content(fmt, content, zxing_name, expected):
    tree = build([add("barcode", "b", {"x": 100, "y": 100, "w": 260, "h": 90}, {"content": content, "format": fmt})])
    pdf = render_pdf(tree)
    assert decode(page_image(pdf, dpi=200)).get(zxing_name.upper()) == expected
    assert expected.lstrip("0") in pdf_text(pdf)[0].replace(" ", "")


def test_barcode_without_display_value_has_no_text():
    tree = build(
        [add("barcode", "b", {"x": 100, "y": 100, "w": 200, "h": 60}, {"content": "ABC", "displayValue": False})]
    )
    assert pdf_text(render_pdf(tree))[0].strip() == ""


def test_hidden_elements_are_left_out():
    tree = build(
        [
            add("text", "shown", {"x": 40, "y": 40}, {"content": "Visible"}),
            add("text", "secret", {"x": 40, "y": 80}, {"content": "Hidden"}, isHidden=True),
            add("shape", "box", {"x": 300, "y": 300, "w": 50, "h": 50}, {}, {"fill": "#000000"}),
            action("update_element", name="box", isHidden=True),
        ]
    )
    pdf = render_pdf(tree)
    assert "Visible" in pdf_text(pdf)[0] and "Hidden" not in pdf_text(pdf)[0]
    assert ink_ratio(crop_points(page_image(pdf), (300, 300, 50, 50))) == 0


def test_paint_order_follows_reorder():
    red_over_blue = build(
        [
            add("shape", "blue", {"x": 100, "y": 100, "w": 50, "h": 50}, {}, {"fill": "#0000ff"}),
            add("shape", "red", {"x": 100, "y": 100, "w": 50, "h": 50}, {}, {"fill": "#ff0000"}),
        ]
    )
    blue_over_red = build([action("reorder_element", name="blue", to="front")], tree=red_over_blue)
    centre = lambda tree: crop_points(page_image(render_pdf(tree)), (120, 120, 4, 4)).getpixel((2, 2))
    assert centre(red_over_blue)[0] > 200 and centre(blue_over_red)[2] > 200


def test_png_has_the_page_size_and_aspect():
    tree = build([], size="A4", orientation="landscape")
    for dpi in (72, 96, 150):
        image = Image.open(io.BytesIO(render_png(tree, 0, dpi=dpi)))
        assert image.format == "PNG"
        assert image.size[0] == pytest.approx(841.89 * dpi / 72, abs=1)
        assert image.size[1] == pytest.approx(595.28 * dpi / 72, abs=1)


def test_png_of_a_missing_page_is_refused():
    from engine import PageNotFound

    with pytest.raises(PageNotFound):
        render_png(build([]), 1)


def test_metadata_reaches_the_pdf():
    import pikepdf

    tree = build(
        [
            action(
                "set_metadata", title="Report Q3", author="Ada", subject="Sales", keywords="q3, sales", creator="Studio"
            )
        ]
    )
    with pikepdf.open(io.BytesIO(render_pdf(tree))) as pdf:
        info = pdf.docinfo
        assert (
            str(info["/Title"]),
            str(info["/Author"]),
            str(info["/Subject"]),
            str(info["/Keywords"]),
            str(info["/Creator"]),
        ) == ("Report Q3", "Ada", "Sales", "q3, sales", "Studio")


def test_rendering_is_deterministic():
    tree = build(
        [
            add("text", "t", {"x": 0, "y": 0}, {"content": "same"}),
            add("qr", "q", {"x": 0, "y": 50, "size": 40}, {"content": "x"}),
        ]
    )
    assert render_pdf(tree) == render_pdf(tree)
