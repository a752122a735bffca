"""Pages of existing PDFs placed as vector content (extensions.md 12), with PDFs of other
producers: ReportLab, headless Chromium, Typst."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import pytest
from PIL import Image

from engine import render_pdf
from engine.errors import RenderError
from engine.media.images import ImageLibrary
from engine.render.document import render_png
from engine.render.form_cache import FORMS
from engine.render.options import RenderOptions
from tests import pdf_sources
from tests.pdf_checker import problems
from tests.pdf_probes import (
    orphan_form_mcids,
    page_image,
    page_sizes,
    pdf_a_violations,
    pdf_text,
    poppler_text,
    raster_images,
    structure,
    word_box,
)
from tests.validators import assert_passes_outloud, assert_valid_pdf_a

from ...conftest import action, build

PRODUCERS = {
    "reportlab": (pdf_sources.reportlab_letterhead, "Northwind Letterhead"),
    "chromium": (pdf_sources.chromium_letterhead, "Chromium Letterhead GmbH"),
    "typst": (pdf_sources.typst_letterhead, "Typst Letterhead"),
}


def source(producer: str) -> bytes:
    if producer == "typst":
        pytest.importorskip("typst")
    return PRODUCERS[producer][0]()


def resolver_of(**refs: bytes):
    table = {f"uploads:{name}": data for name, data in refs.items()}
    return table.__getitem__


def letterhead_design(ref: str = "uploads:letterhead", **background) -> object:
    return build(
        [
            action("set_page_background", page=0, backgroundImage=ref, **background),
            action(
                "add_element", type="text", name="greeting", position={"x": 60, "y": 300}, data={"content": "Dear Ada"}
            ),
            action("bind_variable", name="greeting"),
            action("set_metadata", title="A letter on the letterhead"),
        ]
    )


@pytest.mark.parametrize("producer", PRODUCERS)
def test_a_placed_background_page_keeps_its_text_and_draws_no_picture_of_it(producer):
    data = source(producer)
    pdf = render_pdf(letterhead_design(), resolver=resolver_of(letterhead=data))
    heading = PRODUCERS[producer][1]
    assert heading in poppler_text(pdf)[0] and heading in pdf_text(pdf)[0]
    assert "Dear" in poppler_text(pdf)[0]
    assert raster_images(pdf) == 0  # vector content: no picture of the page
    assert raster_images(data) == 0  # (the source draws none either)


@pytest.mark.parametrize("producer", PRODUCERS)
def test_a_background_page_of_the_same_size_lies_where_it_lay(producer):
    data = source(producer)
    pdf = render_pdf(letterhead_design(), resolver=resolver_of(letterhead=data))
    word = PRODUCERS[producer][1].split()[0]
    ours, theirs = word_box(pdf, word), word_box(data, word)
    # The pages differ by well under a point (A4 as 595 × 842 or 595.28 × 841.89): cover scales by < 0.1%.
    assert ours == pytest.approx(theirs, abs=1.0)


def test_the_preview_shows_the_placed_page():
    data = pdf_sources.reportlab_letterhead()
    png = render_png(letterhead_design(), 0, resolver=resolver_of(letterhead=data), dpi=72)
    picture = Image.open(io.BytesIO(png)).convert("RGB")
    assert picture.size == (596, 842)  # A4 at 72 dpi, rounded up
    picture.save(Path(tempfile.gettempdir()) / "docbench-placed-preview.png")  # to look at
    # The letterhead's blue band, 30-46 pt from the bottom edge, is in the preview.
    assert picture.getpixel((300, 842 - 38)) == pytest.approx((26, 77, 179), abs=8)
    assert picture.getpixel((300, 842 - 100)) == (255, 255, 255)


def test_page_number_chooses_the_page_and_an_image_obeys_its_fit():
    data = pdf_sources.reportlab_letterhead()
    box = {"x": 100, "y": 100, "w": 300, "h": 200}
    tree = build(
        [
            action(
                "add_element",
                type="image",
                name="terms",
                position=box,
                data={"src": "uploads:letterhead", "pageNumber": 2, "fit": "contain", "alt": "Terms"},
            )
        ]
    )
    pdf = render_pdf(tree, resolver=resolver_of(letterhead=data))
    assert "Terms and conditions" in poppler_text(pdf)[0] and "Northwind" not in poppler_text(pdf)[0]
    # contain: the A4 page scaled by 200/842 into the box's height, centred across its width.
    scale = 200 / 842
    left, bottom, right, top = word_box(pdf, "Terms")
    expected_left = 100 + (300 - 595 * scale) / 2 + 60 * scale
    assert left == pytest.approx(expected_left, abs=1.0)
    page_top = 842 - 100  # the box's top edge in PDF space
    assert page_top - 200 < bottom < top < page_top
    assert raster_images(pdf) == 0


def test_cover_fills_the_box_and_clips_what_overflows():
    data = pdf_sources.reportlab_letterhead()
    tree = build(
        [
            action(
                "add_element",
                type="image",
                name="head",
                position={"x": 0, "y": 0, "w": 595, "h": 120},
                data={"src": "uploads:letterhead", "fit": "cover"},
            )
        ]
    )
    pdf = render_pdf(tree, resolver=resolver_of(letterhead=data))
    picture = page_image(pdf, dpi=72).convert("RGB")
    # cover: the page at full width, centred vertically, so the band (near its bottom) is cut away.
    assert all(picture.getpixel((300, y)) == (255, 255, 255) for y in range(130, 842, 20))
    assert "Northwind" not in poppler_text(pdf)[0]  # the top of the page lies above the box, clipped


def test_a_crop_shows_that_part_of_the_page():
    data = pdf_sources.reportlab_letterhead()
    tree = build(
        [
            action(
                "add_element",
                type="image",
                name="top",
                position={"x": 0, "y": 0, "w": 595, "h": 210.5},
                data={"src": "uploads:letterhead", "crop": {"x": 0, "y": 0, "w": 1, "h": 0.25}, "fit": "fill"},
            )
        ]
    )
    pdf = render_pdf(tree, resolver=resolver_of(letterhead=data))
    assert "Northwind Letterhead" in poppler_text(pdf)[0]
    # The top quarter at its own scale: the heading where it was, the band (at the bottom) cut away.
    assert word_box(pdf, "Northwind") == pytest.approx(word_box(data, "Northwind"), abs=1.0)
    picture = page_image(pdf, dpi=72).convert("RGB")
    assert picture.getpixel((300, 842 - 38)) == (255, 255, 255)


def test_a_rotated_page_is_placed_upright():
    data = pdf_sources.rotated(pdf_sources.reportlab_letterhead(), 90)
    tree = build([action("set_page_background", page=0, backgroundImage="uploads:rotated", backgroundSize="contain")])
    pdf = render_pdf(tree, resolver=resolver_of(rotated=data))
    # The rotated page is 842 wide and 595 high: contained in the A4 page, it takes its width.
    left, bottom, right, top = word_box(pdf, "Northwind")
    assert right - left < top - bottom  # the text runs down the page, as a reader shows the source
    assert 0 <= left and right <= 595


def test_a_page_that_does_not_exist_is_refused_naming_the_count():
    tree = build([action("set_page_background", page=0, backgroundImage="uploads:letterhead", backgroundPageNumber=3)])
    with pytest.raises(RenderError, match="has 2 page"):
        render_pdf(tree, resolver=resolver_of(letterhead=pdf_sources.reportlab_letterhead()))


def test_the_form_is_made_once_per_content_and_page_for_every_document():
    data = pdf_sources.reportlab_letterhead()
    first = ImageLibrary(resolver_of(letterhead=data)).placed_page("uploads:letterhead", 1, "test")
    second = ImageLibrary(resolver_of(other=data)).placed_page("uploads:other", None, "test")
    assert second is first  # the same bytes under another ref: the same form


def test_compiled_forms_carry_the_placed_page():
    data = pdf_sources.reportlab_letterhead()
    closing = "Yours sincerely, the Northwind team. " * 4
    tree = build(
        [
            action("set_page_background", page=0, backgroundImage="uploads:letterhead"),
            # Static, drawn right after the background: one run with it, compiled into one form.
            action(
                "add_element",
                type="text",
                name="closing",
                position={"x": 60, "y": 600, "maxWidth": 400},
                data={"content": closing},
            ),
            action("add_element", type="text", name="greeting", position={"x": 60, "y": 300}, data={"content": "Dear"}),
            action("bind_variable", name="greeting"),
        ]
    )
    resolver = resolver_of(letterhead=data)
    FORMS.clear()
    documents = [render_pdf(tree, {"greeting": f"Dear reader {n}"}, resolver=resolver) for n in range(3)]
    # The run is compiled once (with the page in it) and placed in the next documents.
    assert (FORMS.stats()["misses"], FORMS.stats()["hits"], FORMS.stats()["forms"]) == (1, 2, 1)
    reference = render_pdf(tree, {"greeting": "Dear reader 2"}, resolver=resolver, options=RenderOptions.reference())
    assert poppler_text(documents[2]) == poppler_text(reference)
    assert "Northwind Letterhead" in poppler_text(documents[2])[0]
    assert page_image(documents[2]).tobytes() == page_image(reference).tobytes()


# --- The tagged profiles ----------------------------------------------------------------------


@pytest.mark.parametrize("producer", PRODUCERS)
def test_the_accessible_profile_marks_a_background_page_as_an_artifact(producer, tmp_path):
    data = source(producer)
    pdf = render_pdf(letterhead_design(), resolver=resolver_of(letterhead=data), profile="accessible")
    assert problems(pdf) == []
    # The source's own marked content (Chromium and Typst tag theirs) points into a structure
    # tree that is not copied: it is left out, the page being one artifact.
    assert orphan_form_mcids(pdf) == 0
    assert [role for role, _ in structure(pdf) if role != "Document"] == ["P"]  # only our own text is read
    path = tmp_path / "letter.pdf"
    path.write_bytes(pdf)
    assert_passes_outloud(path)


@pytest.mark.parametrize("producer", ["reportlab", "chromium"])
def test_the_pdf_a_profile_accepts_a_page_whose_fonts_are_embedded(producer, tmp_path):
    data = source(producer)
    pdf = render_pdf(letterhead_design(), resolver=resolver_of(letterhead=data), profile="pdf-a")
    path = tmp_path / "letter.pdf"
    path.write_bytes(pdf)
    assert_valid_pdf_a(path)
    assert PRODUCERS[producer][1] in poppler_text(pdf)[0]


def test_the_pdf_a_profile_accepts_a_typst_page():
    """pikepdf's validator cannot check the CFF fonts Typst embeds: every rule it can check holds."""
    pdf = render_pdf(letterhead_design(), resolver=resolver_of(letterhead=source("typst")), profile="pdf-a")
    assert pdf_a_violations(pdf) == []


def test_an_image_of_a_page_is_a_figure_with_its_alt(tmp_path):
    tree = build(
        [
            action(
                "add_element",
                type="image",
                name="terms",
                position={"x": 100, "y": 100, "w": 300, "h": 400},
                data={"src": "uploads:letterhead", "pageNumber": 2, "alt": "Our terms and conditions"},
            ),
            action("set_metadata", title="Terms"),
        ]
    )
    resolver = resolver_of(letterhead=pdf_sources.reportlab_letterhead())
    for profile in ("accessible", "pdf-a"):
        pdf = render_pdf(tree, resolver=resolver, profile=profile)
        assert ("Figure", {"/Alt": "Our terms and conditions"}) in structure(pdf)
        path = Path(tmp_path / f"{profile}.pdf")
        path.write_bytes(pdf)
        if profile == "pdf-a":
            assert_valid_pdf_a(path)
        else:
            assert problems(pdf) == []
            assert_passes_outloud(path)


@pytest.mark.parametrize("profile", ["pdf-a", "accessible"])
def test_a_page_whose_fonts_are_not_embedded_is_refused_naming_the_page_and_the_font(profile):
    data = pdf_sources.reportlab_letterhead(embedded=False)
    with pytest.raises(RenderError) as refused:
        render_pdf(letterhead_design(), resolver=resolver_of(letterhead=data), profile=profile)
    message = refused.value.message
    assert "the background of page 1" in message and "page 1 of uploads:letterhead" in message
    assert "Helvetica" in message and "embedded" in message
    # The standard profile places it as it is.
    assert "Northwind" in poppler_text(render_pdf(letterhead_design(), resolver=resolver_of(letterhead=data)))[0]


def test_pdf_a_refuses_a_blend_mode_iso_32000_does_not_define():
    data = pdf_sources.with_blend_mode(pdf_sources.reportlab_letterhead(), "Glow")
    with pytest.raises(RenderError, match="blend mode /Glow"):
        render_pdf(letterhead_design(), resolver=resolver_of(letterhead=data), profile="pdf-a")
    allowed = pdf_sources.with_blend_mode(pdf_sources.reportlab_letterhead(), "Multiply")
    pdf = render_pdf(letterhead_design(), resolver=resolver_of(letterhead=allowed), profile="pdf-a")
    assert pdf_a_violations(pdf) == []


def test_page_sizes_of_the_design_are_kept():
    pdf = render_pdf(letterhead_design(), resolver=resolver_of(letterhead=pdf_sources.reportlab_letterhead()))
    assert page_sizes(pdf) == [pytest.approx((595.28, 841.89), abs=0.01)]
