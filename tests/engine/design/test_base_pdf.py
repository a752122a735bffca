"""A design made of an existing PDF (extensions.md 12, basePdf): its pages and its form fields."""

from __future__ import annotations

import pytest

from engine import render_pdf
from engine.design.base_pdf import MAX_FIELDS, design_from_pdf, import_pdf, pdf_field_name, variable_name
from engine.media.pdf_pages import PdfPageError
from tests import pdf_sources
from tests.pdf_probes import imported_form_fields, page_sizes, poppler_text, raster_images


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


def test_form_fields_become_bound_field_elements_named_by_the_field():
    tree = form_design()
    by_name = {node.name: node for node in tree.nodes.values()}
    assert set(by_name) == {"full_name", "agree", "colour", "field_2nd_city"}
    assert set(tree.variables) == set(by_name)
    assert all(tree.variables[name].nodeId == node.id for name, node in by_name.items())
    assert {variable.kind for variable in tree.variables.values()} == {"field-value"}
    assert all(node.type == "field" for node in by_name.values())
    types = {name: (node.data.fieldType, node.data.fieldName) for name, node in by_name.items()}
    assert types == {
        "full_name": ("text", "full name"),
        "agree": ("checkbox", "agree"),
        "colour": ("radio", "colour"),
        "field_2nd_city": ("text", "2nd_city"),  # a field name holds no '.'
    }
    # Their values as the form holds them: a check box checked, the radio option chosen.
    assert by_name["agree"].data.value is True
    assert [option.value for option in by_name["colour"].data.options] == ["red", "blue"]
    assert by_name["colour"].data.value == "blue"
    assert by_name["field_2nd_city"].data.value == "Paris"
    assert by_name["full_name"].data.value is None


def test_fields_take_their_widgets_boxes():
    tree = form_design()
    by_name = {node.name: node for node in tree.nodes.values()}
    name = by_name["full_name"]
    # The widget spans x 150-450, y 745-767 in PDF space on an 842 pt page: its top is 75 pt down.
    assert name.page == 0 and name.position.model_dump() == {"x": 150, "y": 75, "w": 300, "h": 22}
    assert name.styles.fontSize == 11  # from the field's /DA
    colour = by_name["colour"]  # the union of its buttons: 150-164 and 200-214, y 660-674
    assert colour.position.model_dump() == {"x": 150, "y": 842 - 674, "w": 64, "h": 14}
    city = by_name["field_2nd_city"]
    assert city.page == 1 and city.position.model_dump() == {"x": 100, "y": 792 - 520, "w": 200, "h": 20}


def test_a_filled_design_draws_the_form_page_under_fields_holding_the_values():
    data = pdf_sources.reportlab_form()
    tree = form_design()
    pdf = render_pdf(tree, {"full_name": "Ada Lovelace"}, resolver={"uploads:form": data}.__getitem__)
    assert page_sizes(pdf) == [(595, 842), (612, 792)]
    assert "Application form" in poppler_text(pdf)[0]
    fields = imported_form_fields(pdf)
    assert set(fields) == {"full name", "agree", "colour", "2nd_city"}  # the placed page's own are dropped
    assert fields["full name"]["value"] == "Ada Lovelace"
    assert fields["full name"]["widgets"] == [(0, (150, 745, 450, 767), None)]
    assert fields["2nd_city"]["value"] == "Paris" and fields["2nd_city"]["widgets"][0][0] == 1
    assert raster_images(pdf) == 0


def every_field_import():
    return import_pdf(pdf_sources.reportlab_every_field_form(), "uploads:every", "Every field")


def test_every_kind_of_field_becomes_a_field_element_with_its_settings():
    tree = every_field_import().tree
    by_name = {node.name: node for node in tree.nodes.values()}
    assert all(node.type == "field" for node in by_name.values())
    data = {name: node.data.model_dump(exclude_defaults=True) for name, node in by_name.items()}
    assert data["applicant_name"] == {
        "fieldName": "applicant_name",  # applicant.name: the parent's name joined, '.' made '_'
        "value": "Ada Lovelace",
        "required": True,
        "maxLength": 40,
        "tooltip": "Full name",
    }
    assert data["notes"] == {
        "fieldType": "multiline",
        "fieldName": "notes",
        "value": "Line one\nLine two",
        "maxLength": 100,
    }
    assert data["reference"]["readOnly"] is True and data["reference"]["value"] == "REF-42"
    assert data["agree"] == {"fieldType": "checkbox", "fieldName": "agree", "value": True}
    assert data["newsletter"] == {"fieldType": "checkbox", "fieldName": "newsletter"}
    assert data["size"]["fieldType"] == "radio" and data["size"]["value"] == "M"
    assert data["size"]["options"] == [{"value": "S"}, {"value": "M"}, {"value": "L"}]
    assert data["contact"]["options"] == [{"value": "0", "label": "By e-mail"}, {"value": "1", "label": "By phone"}]
    assert "value" not in data["contact"]  # nothing chosen
    assert data["country"] == {
        "fieldType": "select",
        "fieldName": "country",
        "options": [{"value": "fr", "label": "France"}, {"value": "de", "label": "Germany"}],
        "value": "de",
    }
    assert data["languages"]["fieldType"] == "select"  # a list box
    assert [option["value"] for option in data["languages"]["options"]] == ["English", "Français", "Ελληνικά"]
    assert data["signature"] == {"fieldType": "signature", "fieldName": "signature"}
    assert "reset" not in by_name  # a push button
    # Every field with a value is bound; a signature has none.
    assert set(tree.variables) == set(by_name) - {"signature"}
    # Its look: /DA 0 Tf (auto) sizes the text to the box, /Q 1 centres it, /DA's colour, /MK and /BS.
    name, notes = by_name["applicant_name"].styles, by_name["notes"].styles
    assert 12 <= name.fontSize <= 16 and name.align == "center" and name.color == "#0000ff"
    assert (notes.fontSize, notes.borderColor, notes.borderWidth, notes.backgroundColor) == (
        10,
        "#ff0000",
        2,
        "#ffff00",
    )
    assert by_name["signature"].styles.borderColor is None  # no /MK /BC: no border
    # A radio group's box is the union of its buttons (S at y 560-574 … L at 520-534).
    assert by_name["size"].position.model_dump() == {"x": 150, "y": 842 - 574, "w": 14, "h": 54}


def test_what_a_field_element_refuses_is_left_out_of_that_field_and_noted():
    made = every_field_import()
    by_name = {node.name: node for node in made.tree.nodes.values()}
    assert by_name["motto"].data.value is None  # 'Ωμέγα' is not Windows-1252 text
    assert by_name["languages"].data.value is None  # the chosen option's label is not either
    notes = "\n".join(made.notes)
    assert "the push button 'reset' was left out" in notes
    assert "'motto' (page 1): its value 'Ωμέγα' was left out" in notes and "Windows-1252" in notes
    assert "'languages' (page 1): its value 'Ελληνικά' was left out" in notes
    assert "'country' (page 1): its option '' was left out" in notes
    assert "'applicant.name' (page 1) is the field 'applicant_name'" in notes
    assert len(made.notes) == 5


def test_a_choice_none_of_whose_options_a_field_takes_is_left_out_and_the_import_goes_on():
    blank = pdf_sources.with_field_entries(pdf_sources.reportlab_every_field_form(), "country", Opt=[""])
    made = import_pdf(blank, "uploads:blank", "Blank")
    names = {node.name for node in made.tree.nodes.values()}
    assert "country" not in names and {"languages", "size", "applicant_name"} <= names
    assert "the field 'country' (page 1) was left out: none of its options" in "\n".join(made.notes)


def test_a_field_whose_element_the_design_refuses_is_left_out_and_the_import_goes_on():
    far = pdf_sources.with_field_entries(
        pdf_sources.reportlab_every_field_form(), "reference", Rect=[20000, 640, 20120, 660]
    )
    made = import_pdf(far, "uploads:far", "Far")
    names = {node.name for node in made.tree.nodes.values()}
    assert "reference" not in names and len(names) == 10  # the other fields, bound as before
    assert set(made.tree.variables) == names - {"signature"}
    assert "the field 'reference' (page 1) was left out: " in "\n".join(made.notes)


def test_a_generated_pdf_has_the_source_fields_at_their_rectangles():
    source = pdf_sources.reportlab_every_field_form()
    tree = every_field_import().tree
    before = imported_form_fields(source)
    after = imported_form_fields(render_pdf(tree, resolver={"uploads:every": source}.__getitem__))
    assert set(after) == {name.replace(".", "_") for name in before} - {"reset"}
    for name, field in after.items():
        was = before[name.replace("applicant_", "applicant.")]
        assert field["type"] == was["type"], name
        keep = 1 | 2 | (1 << 12) | (1 << 15)  # read-only, required, multiline, radio
        assert field["flags"] & keep == was["flags"] & keep, name
        assert (field["tooltip"], field["max_length"]) == (was["tooltip"], was["max_length"]), name
        if was["type"] == "Btn" and was["flags"] & (1 << 15):  # radio: its buttons stacked in their union
            assert [state for _, _, state in field["widgets"]] == [state for _, _, state in was["widgets"]]
            x0 = min(rect[0] for _, rect, _ in was["widgets"])
            y0 = min(rect[1] for _, rect, _ in was["widgets"])
            x1 = max(rect[2] for _, rect, _ in was["widgets"])
            y1 = max(rect[3] for _, rect, _ in was["widgets"])
            for _, (a, b, c, d), _ in field["widgets"]:
                assert x0 - 0.5 <= a and b >= y0 - 0.5 and c <= x1 + 0.5 and d <= y1 + 0.5, name
            continue
        (page, rect, _), (was_page, was_rect, _) = field["widgets"][0], was["widgets"][0]
        assert page == was_page and rect == pytest.approx(was_rect, abs=0.5), name
        if was["type"] == "Ch":
            assert field["options"] == [option for option in was["options"] if option[0]], name  # less the blank one
    assert after["size"]["value"] == "M" and after["agree"]["value"] == "Yes" and after["country"]["value"] == "de"
    assert after["applicant_name"]["value"] == "Ada Lovelace" and after["notes"]["value"] == "Line one\nLine two"


def test_imported_field_names_lose_their_dots_and_stay_unique():
    taken: set[str] = set()
    assert pdf_field_name("applicant.name", taken) == "applicant_name"
    assert pdf_field_name("applicant_name", taken) == "applicant_name_2"
    assert pdf_field_name("Applicant_name", taken) == "Applicant_name"  # PDF names are case-sensitive
    assert pdf_field_name(" tab\there ", taken) == "tab here"
    assert pdf_field_name("...", taken) == "___"
    assert len(pdf_field_name("x" * 300, taken)) == 100
    # A field element refuses bidi controls and invisible characters in its name: dropped here.
    assert pdf_field_name("\u202eevil\u200b", taken) == "evil"


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
