"""A design made of an existing PDF (extensions.md 12, basePdf): its pages and its form fields."""

from __future__ import annotations

import pytest

from engine import render_pdf
from engine.design.base_pdf import MAX_FIELDS, design_from_pdf, variable_name
from engine.media.pdf_pages import PdfPageError
from tests import pdf_sources
from tests.pdf_probes import page_sizes, poppler_text, raster_images, word_box


def form_design():
    return design_from_pdf(pdf_sources.reportlab_form(), "uploads:form", "Application")


def test_each_pdf_page_is_a_design_page_of_its_size_with_that_page_as_background():
    tree = form_design()
    assert [(p.width, p.height) for p in tree.pages] == [(595, 842), (612, 792)]
    assert [(p.backgroundImage, p.backgroundPageNumber or 1) for p in tree.pages] == [
        ("uploads:form", 1),
        ("uploads:form", 2),
    ]
    assert tree.metadata.title == "Application"


def test_form_fields_become_bound_text_elements_named_by_the_field():
    tree = form_design()
    by_name = {node.name: node for node in tree.nodes.values()}
    assert set(by_name) == {"full_name", "agree", "colour", "field_2nd_city"}
    assert set(tree.variables) == set(by_name)
    assert all(tree.variables[name].nodeId == node.id for name, node in by_name.items())
    assert all(node.type == "text" for node in by_name.values())
    # Their values as the form holds them: a check box checked, the radio option chosen.
    assert by_name["agree"].data.content == "X"
    assert by_name["colour"].data.content == "blue"
    assert by_name["field_2nd_city"].data.content == "Paris"
    assert by_name["full_name"].data.content == ""


def test_fields_sit_at_their_widgets_positions():
    tree = form_design()
    by_name = {node.name: node for node in tree.nodes.values()}
    name = by_name["full_name"]
    # The widget spans x 150-450, y 745-767 in PDF space on an 842 pt page: its top is 75 pt down.
    assert name.page == 0 and name.position.x == pytest.approx(152)
    assert 75 <= name.position.y <= 80 and name.position.maxWidth == pytest.approx(296)
    assert name.styles.fontSize == 11  # from the field's /DA
    colour = by_name["colour"]
    assert colour.position.x == pytest.approx(202)  # at the chosen option (blue), not the first one
    city = by_name["field_2nd_city"]
    assert city.page == 1 and city.position.x == pytest.approx(102)
    assert 792 - 520 <= city.position.y <= 792 - 500


def test_a_filled_design_draws_the_form_page_and_the_values_at_the_fields():
    data = pdf_sources.reportlab_form()
    tree = form_design()
    pdf = render_pdf(tree, {"full_name": "Ada Lovelace"}, resolver={"uploads:form": data}.__getitem__)
    assert page_sizes(pdf) == [(595, 842), (612, 792)]
    first = poppler_text(pdf)[0]
    assert "Application form" in first and "Ada Lovelace" in first
    assert "Paris" in poppler_text(pdf)[1]
    # The value lies inside the field's widget (x 150-450, y 745-767).
    left, bottom, right, top = word_box(pdf, "Ada")
    assert 150 < left and right < 450 and 745 < bottom and top < 767
    assert raster_images(pdf) == 0


def test_field_names_become_valid_unique_names():
    taken: set[str] = set()
    assert variable_name("First name", taken) == "First_name"
    assert variable_name("first.name", taken) == "first_name_2"  # unique regardless of case
    assert variable_name("1st", taken) == "field_1st"
    assert variable_name("¿?", taken) == "field"
    assert len(variable_name("x" * 300, taken)) == 100


def test_a_form_with_too_many_fields_is_refused_naming_the_fix():
    with pytest.raises(PdfPageError, match=f"{MAX_FIELDS + 1} form fields; at most {MAX_FIELDS}"):
        design_from_pdf(pdf_sources.many_fields_form(MAX_FIELDS + 1), "uploads:big", "Big")


def test_a_pdf_without_fields_gives_pages_only():
    tree = design_from_pdf(pdf_sources.reportlab_letterhead(), "uploads:letterhead", "Letter")
    assert len(tree.pages) == 2 and tree.nodes == {} and tree.variables == {}
