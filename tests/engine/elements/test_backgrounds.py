"""Page and document backgrounds: colours, gradients, images, and their cascade."""

import pytest

from engine import render_pdf
from tests.images import resolver
from tests.pdf_probes import crop_points, page_image

from ...conftest import action, build


def pixel(pdf, x, y, page=0):
    return crop_points(page_image(pdf, page), (x, y, 2, 2)).getpixel((1, 1))


def test_page_colour_fills_the_page():
    pdf = render_pdf(build([action("set_page_background", page=0, backgroundColor="#336699")]))
    assert pixel(pdf, 10, 10) == pytest.approx((0x33, 0x66, 0x99), abs=2)
    assert pixel(pdf, 580, 830) == pytest.approx((0x33, 0x66, 0x99), abs=2)


def test_linear_gradient_runs_between_its_colours():
    pdf = render_pdf(
        build([action("set_page_background", page=0, backgroundColor="linear-gradient(90deg, #000000, #ffffff)")])
    )
    left, middle, right = pixel(pdf, 2, 400), pixel(pdf, 297, 400), pixel(pdf, 590, 400)
    assert left[0] < 20 and right[0] > 235 and 100 < middle[0] < 160


def test_document_background_cascades_and_a_page_overrides_it_field_by_field():
    tree = build(
        [
            action("add_page"),
            action(
                "set_document_background",
                backgroundColor="#ff0000",
                backgroundImage="uploads:red",
                backgroundSize="contain",
            ),
            action("set_page_background", page=1, backgroundColor="#00ff00"),
        ]
    )
    pdf = render_pdf(tree, resolver=resolver)
    # Page 0: red colour plus the 2:1 red image; page 1: green colour, same contained image.
    assert pixel(pdf, 10, 10, 0)[0] > 200
    assert pixel(pdf, 10, 10, 1) == pytest.approx((0, 255, 0), abs=2)
    assert pixel(pdf, 297, 420, 1)[0] > 150 and pixel(pdf, 297, 420, 1)[1] < 80  # image over the middle


@pytest.mark.parametrize("size,corner_is_image", [("cover", True), ("contain", False), ("stretch", True)])
def test_background_image_sizes(size, corner_is_image):
    tree = build(
        [
            action(
                "set_page_background",
                page=0,
                backgroundImage="assets:blue",
                backgroundSize=size,
                backgroundColor="#ffffff",
            )
        ]
    )
    corner = pixel(render_pdf(tree, resolver=resolver), 5, 5)
    assert (corner[2] > 200 and corner[0] < 60) is corner_is_image
