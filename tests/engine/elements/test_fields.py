"""Fillable form fields (extensions.md 13) as the tools a recipient's viewer is built on read
them: pikepdf (the AcroForm's fields, flags, options, values and appearance streams), PDFium's
form filler (fields typed into, chosen, clicked, and saved), the preview and poppler (what is
drawn), and the validators of the tagged profiles (outloud, our checker, the PDF/A rules)."""

from __future__ import annotations

import io
from typing import Any

import pytest

from engine import Encryption, Finishing, apply, render_pdf
from engine.errors import ActionError, EngineError
from engine.render.document import render_png
from tests.pdf_checker import problems
from tests.pdf_probes import (
    acro_form,
    crop_points,
    fill_form,
    form_fields,
    form_font_program,
    form_structure,
    ink_ratio,
    page_count,
    page_image,
    page_tabs,
    pdf_a_violations,
    pdf_text,
    poppler_text,
    reader_permissions,
    structure,
    widget_annotations,
)
from tests.validators import (
    assert_passes_outloud,
    assert_valid_pdf_a,
    assert_valid_signed_pdf_a,
    outloud_findings,
    signed_pdf_a_problems,
)

from ...conftest import action, add, build

# Field flags as ISO 32000-1 numbers them (tables 221, 226, 228, 230), written out here so
# that the test does not read them from the code it tests.
READ_ONLY, REQUIRED, MULTILINE, NO_TOGGLE_TO_OFF, RADIO, COMBO = 1, 2, 1 << 12, 1 << 14, 1 << 15, 1 << 17
RADIOS_IN_UNISON = 1 << 25

# name -> (position {x, y, w, h} from the page's top-left, data): every field type once, and a
# read-only text. The values are what the tests look for in each reader's output.
FIELDS: dict[str, tuple[dict, dict]] = {
    "fullName": (
        {"x": 50, "y": 50, "w": 220, "h": 24},
        {"fieldType": "text", "value": "Ada Lovelace", "required": True, "maxLength": 40, "tooltip": "Full name"},
    ),
    "notes": (
        {"x": 50, "y": 90, "w": 220, "h": 60},
        {
            "fieldType": "multiline",
            "value": "A long note that wraps over more than one line in the field box here.",
            "tooltip": "Notes",
        },
    ),
    "agree": ({"x": 50, "y": 160, "w": 18, "h": 18}, {"fieldType": "checkbox", "value": True, "tooltip": "I agree"}),
    "size": (
        {"x": 50, "y": 190, "w": 150, "h": 60},
        {
            "fieldType": "radio",
            "options": [{"value": "S", "label": "Small"}, {"value": "M", "label": "Medium"}, {"value": "L"}],
            "value": "M",
            "tooltip": "Size",
        },
    ),
    "country": (
        {"x": 50, "y": 260, "w": 150, "h": 24},
        {
            "fieldType": "select",
            "options": [{"value": "fr", "label": "France"}, {"value": "de", "label": "Germany"}],
            "value": "de",
            "tooltip": "Country",
        },
    ),
    "when": ({"x": 50, "y": 300, "w": 150, "h": 24}, {"fieldType": "date", "value": "2026-11-27", "tooltip": "Date"}),
    "sign": ({"x": 50, "y": 340, "w": 200, "h": 50}, {"fieldType": "signature", "tooltip": "Signature"}),
    "reference": (
        {"x": 300, "y": 50, "w": 150, "h": 24},
        {"fieldType": "text", "value": "REF-7", "readOnly": True, "tooltip": "Reference"},
    ),
}
TEXT_SHOWN = {"fullName": "Ada Lovelace", "country": "Germany", "when": "2026-11-27", "reference": "REF-7"}


def form_design(values: dict[str, Any] | None = None):
    """The form of FIELDS, each field's value replaced by `values`' (None drops it)."""
    actions = []
    for name, (position, data) in FIELDS.items():
        data = dict(data)
        if values and name in values:
            data["value"] = values[name]
            if data["value"] is None:
                del data["value"]
        actions.append(add("field", name, position, data))
    return build(actions, title="Application form")


def fields_by_name(pdf: bytes) -> dict[str, dict]:
    return {field["name"]: field for field in form_fields(pdf)}


@pytest.fixture(scope="module")
def standard() -> bytes:
    return render_pdf(form_design())


@pytest.fixture(scope="module")
def accessible() -> bytes:
    return render_pdf(form_design(), profile="accessible")


# What pikepdf reads.


def test_each_field_type_is_an_acroform_field_with_its_type_flags_options_and_value(standard):
    fields = fields_by_name(standard)
    assert list(fields) == list(FIELDS)
    kinds = {name: (field["FT"], field["Ff"]) for name, field in fields.items()}
    assert kinds == {
        "fullName": ("Tx", REQUIRED),
        "notes": ("Tx", MULTILINE),
        "agree": ("Btn", 0),
        "size": ("Btn", RADIO | NO_TOGGLE_TO_OFF | RADIOS_IN_UNISON),
        "country": ("Ch", COMBO),
        "when": ("Tx", 0),
        "sign": ("Sig", 0),
        "reference": ("Tx", READ_ONLY),
    }
    values = {name: field["V"] for name, field in fields.items()}
    assert values == {
        "fullName": "Ada Lovelace",
        "notes": FIELDS["notes"][1]["value"],
        "agree": "Yes",
        "size": "M",
        "country": "de",
        "when": "2026-11-27",
        "sign": None,
        "reference": "REF-7",
    }
    assert fields["fullName"]["MaxLen"] == 40 and fields["notes"]["MaxLen"] is None
    assert fields["country"]["Opt"] == [["fr", "France"], ["de", "Germany"]]
    assert [w["AS"] for w in fields["size"]["widgets"]] == ["Off", "M", "Off"]
    assert fields["agree"]["widgets"][0]["AS"] == "Yes"
    # The standard profile has a /TU where the designer wrote a tooltip.
    assert {name: field["TU"] for name, field in fields.items()} == {
        name: data["tooltip"] for name, (_, data) in FIELDS.items()
    }
    # Acrobat's date picker: a format and a keystroke action (not under pdf-a, see below).
    assert fields["when"]["actions"] == ["/F", "/K"]


def test_each_field_is_a_parent_whose_kids_are_its_widgets_on_the_page(standard):
    for name, field in fields_by_name(standard).items():
        widgets = field["widgets"]
        assert len(widgets) == (3 if name == "size" else 1), name
        for widget in widgets:
            assert widget["subtype"] == "Widget" and widget["parent is the field"], name
            assert widget["page"] == 0 and widget["flags"] == 4, name  # printed, nothing hidden
    # The widget covers the element's box (a check box: a square at its left).
    x, y, w, h = (FIELDS["fullName"][0][k] for k in "xywh")
    page_height = 841.89
    assert fields_by_name(standard)["fullName"]["widgets"][0]["rect"] == pytest.approx(
        [x, page_height - y - h, x + w, page_height - y], abs=0.01
    )


def test_every_widget_has_its_appearance_in_the_embedded_form_font_and_no_viewer_is_asked_to_draw_it(standard):
    form = acro_form(standard)
    assert form is not None and not form["NeedAppearances"] and "/NeedAppearances" not in form["keys"]
    (resource, font), *others = form["DR fonts"].items()
    assert not others
    assert font == {
        "BaseFont": font["BaseFont"],
        "Subtype": "TrueType",
        "Encoding": "WinAnsiEncoding",
        "embedded": True,
    }
    assert font["BaseFont"].endswith("+Inter-Regular")
    fields = fields_by_name(standard)
    for name, field in fields.items():
        for widget in field["widgets"]:
            assert widget["AP keys"] == ["/N"], name
        kind = FIELDS[name][1]["fieldType"]
        if kind in ("checkbox", "radio"):
            continue
        (appearance,) = [state for widget in field["widgets"] for state in widget["AP"].values()]
        if kind == "signature":
            assert appearance["content"].strip() and not appearance["fonts"]  # a frame to sign in
            continue
        # Typed values are drawn in the /DR font at the /DA size, inside /Tx marked content.
        assert field["DA"].startswith(f"/{resource} 11 Tf"), name
        assert appearance["fonts"] == {f"/{resource}": font}, name
        assert b"/Tx BMC" in appearance["content"] and f"/{resource} 11 Tf".encode() in appearance["content"]
    for name, shown in TEXT_SHOWN.items():
        content = fields[name]["widgets"][0]["AP"][""]["content"]
        assert f"({shown}) Tj".encode() in content, name
    # A multiline value is broken into lines that fit the box, each drawn.
    notes = fields["notes"]["widgets"][0]["AP"][""]["content"]
    assert notes.count(b" Tj") >= 2 and b"(A long note that wraps over more than) Tj" in notes


def test_check_boxes_and_radio_buttons_have_an_on_and_an_off_appearance(standard):
    fields = fields_by_name(standard)
    (box,) = fields["agree"]["widgets"]
    assert set(box["AP"]) == {"Yes", "Off"}
    assert box["AP"]["Yes"]["content"].startswith(box["AP"]["Off"]["content"])  # the box, then the tick
    assert len(box["AP"]["Yes"]["content"]) > len(box["AP"]["Off"]["content"])
    for option, widget in zip("SML", fields["size"]["widgets"], strict=True):
        assert set(widget["AP"]) == {option, "Off"}
        assert widget["AP"][option]["content"].startswith(widget["AP"]["Off"]["content"])  # the ring, then the dot
        assert len(widget["AP"][option]["content"]) > len(widget["AP"]["Off"]["content"])


def test_radio_options_may_be_any_text_and_a_click_chooses_each():
    """The option values are the buttons' state names: a '/' or a letter past ASCII must be
    escaped in the name, or the state is two names (or one no reader decodes)."""
    # The longest values PDFium reads whole: 127 ASCII bytes, or 42 Cyrillic letters (84 bytes,
    # 253 characters as written).
    values = ["Option A", "a/b", "(x) #1", "Übung", "Ж", "я" * 42, "x" * 127]
    tree = build(
        [
            add(
                "field",
                "pick",
                {"x": 50, "y": 50, "w": 150, "h": 100},
                {"fieldType": "radio", "options": [{"value": v} for v in values], "value": "a/b"},
            )
        ]
    )
    pdf = render_pdf(tree)
    (field,) = form_fields(pdf)
    assert field["V"] == "a/b"
    assert [sorted(w["AP"]) for w in field["widgets"]] == [sorted([v, "Off"]) for v in values]
    for index, value in enumerate(values):
        (filled,) = form_fields(fill_form(pdf, clicks={"pick": index}))
        assert filled["V"] == value
        assert [w["AS"] for w in filled["widgets"]] == [v if v == value else "Off" for v in values]


# What PDFium's form filler does with it: a recipient fills the form and saves it.


def test_pdfium_fills_every_field_and_the_saved_copy_keeps_the_values_with_new_appearances():
    pdf = render_pdf(form_design({"agree": False, "size": "S", "country": None}))
    saved = fill_form(
        pdf,
        texts={"fullName": "Grace Hopper", "notes": "Typed into the box", "when": "2027-01-02"},
        choices={"country": 1},
        clicks={"agree": 0, "size": 2},
    )
    fields = fields_by_name(saved)
    assert fields["fullName"]["V"] == "Grace Hopper"
    assert fields["notes"]["V"] == "Typed into the box"
    assert fields["when"]["V"] == "2027-01-02"
    assert fields["country"]["V"] == "de"
    assert fields["agree"]["V"] == "Yes" and fields["agree"]["widgets"][0]["AS"] == "Yes"
    assert fields["size"]["V"] == "L" and [w["AS"] for w in fields["size"]["widgets"]] == ["Off", "Off", "L"]
    # Each edited widget's appearance was drawn again with what was typed or chosen,
    # in the form's font (PDFium drew it from /DA and /DR).
    resource = next(iter(acro_form(saved)["DR fonts"]))
    for name, shown in {"fullName": "Grace Hopper", "when": "2027-01-02", "country": "Germany"}.items():
        content = fields[name]["widgets"][0]["AP"][""]["content"]
        assert f"({shown}) Tj".encode() in content and f"/{resource} 11 Tf".encode() in content, name
    assert b"(Ada Lovelace)" not in fields["fullName"]["widgets"][0]["AP"][""]["content"]
    assert b"(Typed into the box) Tj" in fields["notes"]["widgets"][0]["AP"][""]["content"]
    # What was not touched is as it was.
    assert fields["reference"]["V"] == "REF-7" and fields["sign"]["V"] is None
    # And the saved copy shows the new values: poppler reads them from the appearances.
    text = poppler_text(saved)[0]
    assert "Grace Hopper" in text and "Germany" in text and "Ada Lovelace" not in text


def test_text_a_reader_types_beyond_ascii_is_drawn_in_the_form_font():
    """The /DR font is the face cut to Windows-1252, so a viewer draws typed accents and the
    euro sign with it (PDFium encodes them in WinAnsi), not with a font of its own."""
    saved = fill_form(render_pdf(form_design()), texts={"fullName": "Zoë Ångström €5"})
    field = fields_by_name(saved)["fullName"]
    assert field["V"] == "Zoë Ångström €5"
    assert b"(Zo\xeb \xc5ngstr\xf6m \x805) Tj" in field["widgets"][0]["AP"][""]["content"]
    assert "Zoë Ångström €5" in poppler_text(saved)[0]


def test_a_fields_name_and_tooltip_may_be_in_any_script():
    """/T and /TU are text strings (UTF-16 where needed), unlike the values a widget shows."""
    data = {"fieldType": "text", "fieldName": "Prénom 名前", "tooltip": "Ваше имя"}
    pdf = render_pdf(build([_add_field(data)]), profile="accessible")
    (field,) = form_fields(pdf)
    assert (field["name"], field["TU"]) == ("Prénom 名前", "Ваше имя")
    (filled,) = form_fields(fill_form(pdf, texts={"Prénom 名前": "Zoé"}))
    assert filled["V"] == "Zoé"


def test_a_read_only_field_takes_no_keys_and_a_field_with_a_max_length_no_more():
    saved = fill_form(render_pdf(form_design()), keystrokes={"reference": "CHANGED", "fullName": "Zoë " + "x" * 50})
    fields = fields_by_name(saved)
    assert fields["reference"]["V"] == "REF-7"
    assert fields["fullName"]["V"] == ("Zoë " + "x" * 50)[:40]


# What is drawn: the preview, and a flattened document.


def _box(name: str) -> tuple[float, float, float, float]:
    position = FIELDS[name][0]
    return position["x"], position["y"], position["w"], position["h"]


def _preview(values: dict[str, Any] | None = None):
    from io import BytesIO

    from PIL import Image

    return Image.open(BytesIO(render_png(form_design(values), dpi=144))).convert("RGB")


def test_the_preview_draws_every_widget_and_the_values_in_it():
    shown, empty = _preview(), _preview({"fullName": None, "notes": None, "agree": False, "size": None, "when": None})
    for name in FIELDS:
        # Every field's border is drawn inside its box.
        assert ink_ratio(crop_points(shown, _box(name)), threshold=200) > 0.02, name
    for name in ("fullName", "notes", "agree", "when"):
        with_value, without = (ink_ratio(crop_points(image, _box(name))) for image in (shown, empty))
        assert with_value > without + 0.02, name
    # The chosen radio button has its dot: the middle row's button is darker than the others'.
    x, y, w, h = _box("size")
    rows = [ink_ratio(crop_points(shown, (x, y + row * h / 3, 16, h / 3))) for row in range(3)]
    assert rows[1] > rows[0] + 0.05 and rows[1] > rows[2] + 0.05


def test_flatten_draws_the_values_as_content_and_leaves_no_form():
    flat = render_pdf(form_design(), finishing=Finishing(flatten=True))
    assert acro_form(flat) is None and widget_annotations(flat) == []
    for text in (poppler_text(flat)[0], pdf_text(flat)[0]):
        for shown in (*TEXT_SHOWN.values(), "A long note that wraps", "Small", "Medium"):
            assert shown in text
    unticked = render_pdf(form_design({"agree": False}), finishing=Finishing(flatten=True))
    ticked, blank = (ink_ratio(crop_points(page_image(pdf), _box("agree"))) for pdf in (flat, unticked))
    assert ticked > blank + 0.05  # the tick is drawn


def test_a_flattened_form_looks_like_the_form():
    """Flattening places the widgets' own appearances: the page looks the same."""
    form, flat = render_pdf(form_design()), render_pdf(form_design(), finishing=Finishing(flatten=True))
    for name in FIELDS:
        crops = [crop_points(page_image(pdf), _box(name)) for pdf in (form, flat)]
        assert abs(ink_ratio(crops[0]) - ink_ratio(crops[1])) < 0.01, name


def test_a_flattened_form_in_the_tagged_profiles_reads_as_text_and_pictures(tmp_path):
    flat = render_pdf(form_design(), profile="accessible", finishing=Finishing(flatten=True))
    assert acro_form(flat) is None and problems(flat) == []
    figures = [attributes["/Alt"] for role, attributes in structure(flat) if role == "Figure"]
    assert figures == ["I agree: checked", "Small: not chosen", "Medium: chosen", "L: not chosen"]
    path = tmp_path / "flat-pdf-a.pdf"
    path.write_bytes(render_pdf(form_design(), profile="pdf-a", finishing=Finishing(flatten=True)))
    assert_valid_pdf_a(path)


@pytest.mark.slow
def test_a_flattened_accessible_form_passes_outloud(tmp_path):
    path = tmp_path / "flat.pdf"
    path.write_bytes(render_pdf(form_design(), profile="accessible", finishing=Finishing(flatten=True)))
    assert_passes_outloud(path)  # no widgets: every word is in a structure element


# The tagged profiles.


def test_accessible_each_widget_is_a_form_element_with_its_tooltip(accessible):
    fields = fields_by_name(accessible)
    widgets = {widget["objgen"]: widget for field in fields.values() for widget in field["widgets"]}
    elements = form_structure(accessible)
    assert sorted(element["widget"] for element in elements) == sorted(widgets)
    for element in elements:
        assert element["subtype"] == "/Widget" and element["page"] is True
        assert element["back to the element"] and element["StructParent"] == widgets[element["widget"]]["StructParent"]
    assert {name: field["TU"] for name, field in fields.items()} == {
        name: data["tooltip"] for name, (_, data) in FIELDS.items()
    }
    assert page_tabs(accessible) == ["/S"]  # tab order is structure order (PDF/UA-1 7.18.3)
    assert problems(accessible) == []


@pytest.mark.slow
def test_accessible_passes_outloud(accessible, tmp_path):
    path = tmp_path / "form.pdf"
    path.write_bytes(accessible)
    # outloud reads the page's words with MuPDF, which takes the text drawn by the widgets'
    # appearances as page words; no structure element holds them (a widget's content is its
    # annotation's, announced through its Form element and /TU), so TAG-003 reports them.
    # Skipped, after checking that every word it reports lies inside a widget.
    rects = [w["rect"] for field in form_fields(accessible) for w in field["widgets"]]
    (finding,) = outloud_findings(path, "TAG-003")
    assert finding["count"] == len(finding["boxes"]) > 0
    for box in finding["boxes"]:
        assert any(
            r[0] - 1 <= box["x0"] and box["x1"] <= r[2] + 1 and r[1] - 1 <= box["y0"] and box["y1"] <= r[3] + 1
            for r in rects
        ), box
    assert_passes_outloud(path, skip=("TAG-003",))


def test_accessible_refuses_a_field_without_a_tooltip():
    tree = build([add("field", "nameless", {"x": 50, "y": 50, "w": 100, "h": 20}, {"fieldType": "text"})])
    render_pdf(tree)  # the standard profile does without
    with pytest.raises(EngineError, match="'nameless' has no data.tooltip.*add a tooltip"):
        render_pdf(tree, profile="accessible")


def test_pdf_a_keeps_the_form_with_its_appearances_and_no_actions(tmp_path):
    pdf = render_pdf(form_design(), profile="pdf-a")
    fields = fields_by_name(pdf)
    assert all(
        field["actions"] == [] and all(w["actions"] == [] for w in field["widgets"]) for field in fields.values()
    )
    assert all(field["TU"] for field in fields.values())
    assert signed_pdf_a_problems(pdf) == []
    assert pdf_a_violations(pdf) == []
    path = tmp_path / "form.pdf"
    path.write_bytes(pdf)
    assert_valid_signed_pdf_a(path)  # the form by ISO 19005-3 6.3/6.4, the rest by pikepdf
    # The same rules catch a form that breaks them: the standard profile's date actions.
    assert signed_pdf_a_problems(render_pdf(form_design())) == ["6.4.1-1/2: field when has /AA"]


def test_pdf_a_without_a_tooltip_announces_the_field_name():
    tree = build([add("field", "postcode", {"x": 50, "y": 50, "w": 100, "h": 20}, {"fieldType": "text"})])
    (field,) = form_fields(render_pdf(tree, profile="pdf-a"))
    assert field["TU"] == "postcode"
    (field,) = form_fields(render_pdf(tree))
    assert field["TU"] is None


# Encryption's fill-forms permission.


@pytest.mark.parametrize("allow", [["fill-forms"], []])
def test_the_fill_forms_permission_lets_a_reader_fill_but_not_annotate(allow):
    pdf = render_pdf(form_design(), finishing=Finishing(encryption=Encryption(ownerPassword="owner-pw", allow=allow)))
    permissions = reader_permissions(pdf)
    assert permissions["modify_form"] is bool(allow)
    assert permissions["modify_annotation"] is False and permissions["modify_other"] is False
    # Without a user password anyone opens it, and the form is there to fill.
    assert [field["name"] for field in form_fields(pdf)] == list(FIELDS)


# Refusals: a clear message naming the fix, and nothing half-made.


def _add_field(data: dict, name: str = "f") -> dict:
    return add("field", name, {"x": 50, "y": 50, "w": 100, "h": 20}, data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"fieldType": "text", "value": "Жанна"},
            r"the value holds 'Жан', which a form field cannot show.*Windows-1252.*put other scripts in a text element",
        ),
        ({"fieldType": "radio"}, r"a radio field needs options"),
        ({"fieldType": "select", "options": []}, r"a select field needs options"),
        (
            {"fieldType": "select", "options": [{"value": "a"}, {"value": "b"}], "value": "c"},
            r"must be one of its options' values \('a', 'b'\); got 'c'",
        ),
        ({"fieldType": "radio", "options": [{"value": "a"}, {"value": "a"}]}, r"distinct values"),
        ({"fieldType": "radio", "options": [{"value": "Off"}]}, r"'Off' is the value of no choice"),
        (
            {"fieldType": "radio", "options": [{"value": "x" * 128}]},
            r"is too long for a PDF name \(at most 127 bytes in UTF-8.*give it a shorter value",
        ),
        ({"fieldType": "radio", "options": [{"value": "я" * 43}]}, r"is too long for a PDF name"),
        ({"fieldType": "checkbox", "value": "yes"}, r"a checkbox field's value is true or false"),
        ({"fieldType": "date", "value": "27/11/2026"}, r"a date as YYYY-MM-DD"),
        ({"fieldType": "date", "value": "2026-02-30"}, r"a date as YYYY-MM-DD"),
        ({"fieldType": "checkbox", "maxLength": 3}, r"maxLength is for text and multiline fields, not checkbox"),
        ({"fieldType": "signature", "value": "Ada"}, r"a signature field has no value"),
        ({"fieldType": "text", "options": [{"value": "a"}]}, r"options are for radio and select fields, not text"),
        ({"fieldType": "text", "value": "abcdef", "maxLength": 3}, r"6 characters, over the field's maxLength 3"),
        ({"fieldType": "text", "fieldName": "a.b"}, r"may not hold '\.'"),
        (
            {"fieldType": "select", "options": [{"value": "ru", "label": "Россия"}], "value": "ru"},
            r"the chosen option's label holds 'Росия'",
        ),
    ],
)
def test_a_field_that_cannot_be_made_is_refused_naming_the_fix(data, message):
    with pytest.raises(ActionError, match=message):
        build([_add_field(data)])


def test_two_fields_sharing_a_name_are_refused_naming_both():
    with pytest.raises(ActionError, match=r"'email' and 'second' share the data.fieldName 'email'.*set a different"):
        build(
            [
                _add_field({"fieldType": "text"}, "email"),
                add(
                    "field",
                    "second",
                    {"x": 50, "y": 100, "w": 100, "h": 20},
                    {"fieldType": "text", "fieldName": "email"},
                ),
            ]
        )
    # A later batch that would make a second 'email' is refused as a whole, the design untouched.
    tree = build([_add_field({"fieldType": "text", "fieldName": "email"}, "first")])
    with pytest.raises(ActionError, match=r"'first' and 'email' share the data.fieldName 'email'"):
        apply(tree, [_add_field({"fieldType": "checkbox"}, "other"), _add_field({"fieldType": "checkbox"}, "email")])
    assert [node.name for node in tree.nodes.values()] == ["first"]


# Values bound at generation (extensions.md 13: kind "field-value").


@pytest.mark.parametrize(
    ("given", "state"), [("yes", "Yes"), ("No", "Off"), (1, "Yes"), (0, "Off"), (True, "Yes"), ("", "Off")]
)
def test_a_bound_checkbox_takes_the_words_a_spreadsheet_holds(given, state):
    tree = build(
        [_add_field({"fieldType": "checkbox", "tooltip": "Agree"}, "agree"), action("bind_variable", name="agree")]
    )
    assert tree.variables["agree"].kind == "field-value"
    (field,) = form_fields(render_pdf(tree, {"agree": given}))
    assert field["V"] == state and field["widgets"][0]["AS"] == state


@pytest.mark.parametrize(
    ("data", "given", "message"),
    [
        ({"fieldType": "checkbox"}, "maybe", r"true or false"),
        ({"fieldType": "checkbox"}, 2, r"true or false"),
        ({"fieldType": "select", "options": [{"value": "a"}]}, "b", r"one of its options' values"),
        ({"fieldType": "date"}, "tomorrow", r"YYYY-MM-DD"),
        ({"fieldType": "text"}, "Жанна", r"Windows-1252"),
    ],
)
def test_a_bound_value_the_field_cannot_take_is_refused(data, given, message):
    tree = build([_add_field(data, "f"), action("bind_variable", name="f")])
    with pytest.raises(EngineError, match=message):
        render_pdf(tree, {"f": given})


def test_a_bound_value_fills_the_field_and_its_appearance():
    tree = build([_add_field({"fieldType": "text"}, "city"), action("bind_variable", name="city")])
    (field,) = form_fields(render_pdf(tree, {"city": "Zürich"}))
    assert field["V"] == "Zürich"
    assert "Zürich".encode("cp1252") in field["widgets"][0]["AP"][""]["content"]


# Repeated elements (extensions.md 4): one field, a widget on every sheet.


def _repeated(profile: str = "standard") -> bytes:
    rows = [["Item", "Amount"]] + [[f"item{i:03d}", str(i)] for i in range(80)]
    tree = build(
        [
            add(
                "field",
                "initials",
                {"x": 400, "y": 780, "w": 100, "h": 20},
                {"fieldType": "text", "value": "AL", "tooltip": "Initials"},
                repeat="pages",
            ),
            add(
                "field",
                "size",
                {"x": 200, "y": 770, "w": 100, "h": 30},
                {"fieldType": "radio", "options": [{"value": "a"}, {"value": "b"}], "value": "b", "tooltip": "Size"},
                repeat="pages",
            ),
            add(
                "field",
                "ok",
                {"x": 40, "y": 780, "w": 14, "h": 14},
                {"fieldType": "checkbox", "tooltip": "Checked"},
                repeat="pages",
            ),
            add("table", "lines", {"x": 40, "y": 40}, {"cells": rows[:2], "columnWidths": [300, 100]}),
            action("bind_variable", name="lines"),
            # A second design page, which "pages" furniture reaches too. (With the table's three
            # sheets only, outloud's running-footer heuristic takes its rows for a footer: PAG-001.)
            action("add_page"),
            add("text", "second", {"x": 40, "y": 300}, {"content": "Second page"}, page=1),
        ],
        title="Repeated fields",
    )
    return render_pdf(tree, {"lines": rows}, profile=profile)


def test_a_repeated_field_is_one_field_with_a_widget_on_every_sheet():
    pdf = _repeated()
    sheets = page_count(pdf)
    assert sheets >= 3
    fields = fields_by_name(pdf)
    assert list(fields) == ["initials", "size", "ok"]
    assert [w["page"] for w in fields["initials"]["widgets"]] == list(range(sheets))
    assert [w["page"] for w in fields["size"]["widgets"]] == [page for page in range(sheets) for _ in "ab"]
    assert all(w["parent is the field"] for field in fields.values() for w in field["widgets"])
    # One value for all: typed on the first sheet, it is the value, and what is shown, on every sheet.
    initials = fields_by_name(fill_form(pdf, texts={"initials": "GH"}))["initials"]
    assert initials["V"] == "GH"
    assert all(b"(GH) Tj" in widget["AP"][""]["content"] for widget in initials["widgets"])
    # A choice made on the first sheet shows on every sheet (RadiosInUnison: the copies'
    # buttons of one option turn on together), and so does a tick.
    clicked = fields_by_name(fill_form(pdf, clicks={"size": 0, "ok": 0}))
    assert clicked["size"]["V"] == "a" and [w["AS"] for w in clicked["size"]["widgets"]] == ["a", "Off"] * sheets
    assert clicked["ok"]["V"] == "Yes" and [w["AS"] for w in clicked["ok"]["widgets"]] == ["Yes"] * sheets


def test_a_repeated_fields_copies_are_each_in_a_form_element():
    pdf = _repeated("accessible")
    widgets = {w["objgen"] for field in form_fields(pdf) for w in field["widgets"]}
    elements = form_structure(pdf)
    assert {element["widget"] for element in elements} == widgets
    assert all(element["back to the element"] for element in elements)
    assert page_tabs(pdf) == ["/S"] * page_count(pdf)
    assert problems(pdf) == []


@pytest.mark.slow
def test_a_repeated_form_passes_outloud(tmp_path):
    path = tmp_path / "repeated.pdf"
    path.write_bytes(_repeated("accessible"))
    assert_passes_outloud(path, skip=("TAG-003",))  # the widgets' words, as in test_accessible_passes_outloud


def test_the_form_font_keeps_the_faces_date_so_the_same_form_gives_the_same_bytes():
    """fontTools writes the clock into a font it saves unless told not to: the form font's
    program, its subset tag and so the document would differ from one second to the next."""
    from fontTools.ttLib import TTFont

    from engine import fonts

    program = TTFont(io.BytesIO(form_font_program(render_pdf(form_design()))))
    face = TTFont(fonts.face_file("Inter", 400, False).path)
    assert program["head"].modified == face["head"].modified


def test_a_value_with_tabs_line_ends_and_pdf_delimiters_is_drawn_as_written():
    value = "Smith (née Jones) \\ 50%\tend\r\nnext"
    tree = build([_add_field({"fieldType": "text", "value": value}, "a")])
    pdf = render_pdf(tree)
    (field,) = form_fields(pdf)
    assert field["V"] == value
    # A tab or a line end is drawn as a space (the font has no glyph for them).
    assert poppler_text(pdf)[0] == "Smith (née Jones) \\ 50% end next"


def test_the_form_font_is_the_elements_face():
    tree = build(
        [
            add(
                "field",
                "bold",
                {"x": 50, "y": 50, "w": 150, "h": 24},
                {"fieldType": "text", "value": "Bold"},
                {"fontWeight": 700, "italic": True, "fontSize": 14, "align": "right"},
            ),
            add("field", "plain", {"x": 50, "y": 90, "w": 150, "h": 24}, {"fieldType": "text", "value": "Plain"}),
        ]
    )
    pdf = render_pdf(tree)
    fonts = acro_form(pdf)["DR fonts"]
    assert sorted(font["BaseFont"].split("+")[1] for font in fonts.values()) == ["Inter-BoldItalic", "Inter-Regular"]
    fields = fields_by_name(pdf)
    (bold_font,) = fields["bold"]["widgets"][0]["AP"][""]["fonts"].values()
    assert bold_font["BaseFont"].endswith("+Inter-BoldItalic") and " 14 Tf" in fields["bold"]["DA"]
    # The alignment is the field's /Q, which a viewer aligns typed text by.
    assert (fields["bold"]["Q"], fields["plain"]["Q"]) == (2, 0)
