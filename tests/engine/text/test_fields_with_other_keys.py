"""Fields (extensions.md 1) together with markup (3), fitting (2), repeat and showIf (4):
the glue between the sections, checked in real PDFs."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from engine import render_pdf
from engine.design.variables import apply_values
from engine.elements.text import text_style
from engine.render.layout import layout
from engine.text import typeset
from tests.pdf_probes import drawn_sizes, font_names, link_uris, pdf_text
from tests.text_samples import LONG_NAME

from ...conftest import action, add, build
from ...validators import assert_passes_its_profiles_validator, outloud


def flat(extracted: str) -> str:
    return " ".join(extracted.split())


def markdown_sentence(content: str, samples: dict[str, str]) -> dict:
    return add(
        "text",
        "sentence",
        {"x": 40, "y": 40, "maxWidth": 500},
        {"content": content, "fields": True, "markup": "markdown", "samples": samples},
    )


# Markup (extensions.md 3): values are escaped, the markup around a placeholder applies


def test_markup_inside_a_markdown_value_stays_literal_text():
    tree = build([markdown_sentence("Dear {name}, welcome.", {"name": "Ada"})])
    pdf = render_pdf(tree, {"name": "**x** [a](javascript:x) ~~s~~ {page}"})
    assert "Dear **x** [a](javascript:x) ~~s~~ {page}, welcome." in flat(pdf_text(pdf)[0])
    assert link_uris(pdf) == []  # the value's link syntax is text, never an annotation
    assert font_names(pdf) == {"Inter-Regular"}  # nothing turned bold


def test_a_placeholder_inside_markup_is_drawn_with_that_markup():
    tree = build([markdown_sentence("Issued to **{name}** by [ACME](https://acme.example)", {"name": "Ada"})])
    pdf = render_pdf(tree, {"name": "Grace *Hopper*"})
    assert "Issued to Grace *Hopper* by ACME" in flat(pdf_text(pdf)[0])
    assert {"Inter-Regular", "Inter-Bold"} <= font_names(pdf)  # the value in bold, its asterisks literal
    assert "Inter-Italic" not in font_names(pdf) and "Inter-BoldItalic" not in font_names(pdf)
    assert link_uris(pdf) == ["https://acme.example"]
    # design time: the sample, in bold
    preview = render_pdf(tree)
    assert "Issued to Ada by ACME" in flat(pdf_text(preview)[0]) and "Inter-Bold" in font_names(preview)


# {page}/{pages} (extensions.md 1) on repeated elements (4): each copy shows its own sheet


def invoice_rows(count: int) -> list[list[str]]:
    return [["Item", "Amount"]] + [[f"item{i:03d}", str(i)] for i in range(count)]


def numbered_invoice(footer_repeat: str, second_page: bool = False):
    actions = [
        add("table", "lines", {"x": 40, "y": 120}, {"cells": invoice_rows(1), "columnWidths": [300, 100]}),
        add(
            "text",
            "footer",
            {"x": 40, "y": 780},
            {"content": "Page {page} of {pages}", "fields": True},
            repeat=footer_repeat,
        ),
        action("bind_variable", name="lines"),
    ]
    if second_page:
        actions += [action("add_page"), add("text", "second", {"x": 40, "y": 300}, {"content": "TERMS"}, page=1)]
    return build(actions)


def test_page_n_of_n_on_every_sheet_of_a_grown_table():
    texts = pdf_text(render_pdf(numbered_invoice("sheets"), {"lines": invoice_rows(80)}))
    assert len(texts) == 3
    for number, text in enumerate(texts, start=1):
        shown = [f"Page {n} of 3" in text for n in (1, 2, 3)]
        assert shown == [n == number for n in (1, 2, 3)], (number, text[-80:])


def test_a_footer_repeated_on_pages_numbers_every_sheet_of_every_design_page():
    tree = numbered_invoice("pages", second_page=True)
    texts = pdf_text(render_pdf(tree, {"lines": invoice_rows(80)}))
    assert len(texts) == 4 and "TERMS" in texts[3]
    for number, text in enumerate(texts, start=1):
        assert f"Page {number} of 4" in text
        assert sum(f"Page {n} of 4" in text for n in range(1, 5)) == 1
    # A preview of the second page alone numbers it as in the document.
    assert "Page 4 of 4" in pdf_text(render_pdf(tree, {"lines": invoice_rows(80)}, pages=[1]))[0]


# Fitting (extensions.md 2): a shrinking text with fields fits the generation's value


def test_a_shrinking_text_with_fields_fits_the_value_not_the_sample():
    tree = build(
        [
            add(
                "text",
                "name",
                {"x": 40, "y": 40, "maxWidth": 200},
                {"content": "{recipient}", "fields": True, "samples": {"recipient": "Ada"}, "maxLines": 1},
                {"fontSize": 36, "fit": "shrink"},
            )
        ]
    )
    assert drawn_sizes(render_pdf(tree)) == [36]  # the short sample fits at full size
    values = {"recipient": LONG_NAME}
    pdf = render_pdf(tree, values)
    (size,) = drawn_sizes(pdf)
    assert 6 <= size < 36
    assert typeset.width_of(LONG_NAME, replace(text_style(tree.node_by_name("name").styles), size=size)) <= 200
    assert pdf_text(pdf)[0].strip() == LONG_NAME  # one line, the whole value
    # The laid-out box is the fitted value's line, so followers are placed after it.
    (sheet,) = layout(tree, apply_values(tree, values))
    assert sheet.placements[0].box.h == pytest.approx(size * 1.2, abs=0.001)


# showIf (extensions.md 4) on a field variable (1)


def paid_invoice(**samples: str):
    return build(
        [
            add(
                "text",
                "terms",
                {"x": 40, "y": 40, "maxWidth": 400},
                {"content": "Paid on {paid_on}. Thank you.", "fields": True, "samples": samples},
            ),
            add("text", "stamp", {"x": 40, "y": 200}, {"content": "PAIDSTAMP"}, showIf={"variable": "paid_on"}),
            add(
                "text",
                "early",
                {"x": 40, "y": 260},
                {"content": "EARLYBIRD"},
                showIf={"variable": "paid_on", "equals": "1 May"},
            ),
        ]
    )


def test_show_if_on_a_field_reads_the_generation_value_or_the_sample():
    tree = paid_invoice()
    assert tree.variables["paid_on"].nodeId is None and tree.variables["paid_on"].kind == "field"
    text = pdf_text(render_pdf(tree))[0]  # no sample, no value: empty
    assert "PAIDSTAMP" not in text and "EARLYBIRD" not in text
    text = pdf_text(render_pdf(tree, {"paid_on": "3 June"}))[0]
    assert "Paid on 3 June." in text and "PAIDSTAMP" in text and "EARLYBIRD" not in text
    text = pdf_text(render_pdf(tree, {"paid_on": "1 May"}))[0]
    assert "PAIDSTAMP" in text and "EARLYBIRD" in text
    text = pdf_text(render_pdf(tree, {"paid_on": ""}))[0]
    assert "PAIDSTAMP" not in text
    # Design time and a generation without the value: the sample decides.
    sampled = paid_invoice(paid_on="1 May")
    for values in (None, {}):
        text = pdf_text(render_pdf(sampled, values))[0]
        assert "Paid on 1 May." in text and "PAIDSTAMP" in text and "EARLYBIRD" in text


def test_a_condition_on_a_field_goes_when_its_last_placeholder_goes():
    tree = paid_invoice()
    edited = build([action("update_element", name="terms", data={"content": "Thank you."})], tree)
    assert "paid_on" not in edited.variables
    assert edited.node_by_name("stamp").showIf is None and edited.node_by_name("early").showIf is None
    assert "PAIDSTAMP" in pdf_text(render_pdf(edited))[0]  # no condition: always drawn
    # The field and a condition on it may come in one batch of actions.
    batch = build(
        [
            add("text", "terms", {"x": 40, "y": 40}, {"content": "Due {due}", "fields": True}),
            add("text", "late", {"x": 40, "y": 100}, {"content": "LATE"}, showIf={"variable": "due"}),
        ]
    )
    assert batch.node_by_name("late").showIf.variable == "due"


def test_a_preview_with_a_condition_on_a_field_follows_the_sample():
    from engine.render.layout import page_digest

    tree = paid_invoice(paid_on="1 May")
    before = page_digest(tree.model_dump(mode="json"), 0)
    edited = build([action("update_element", name="terms", data={"samples": {"paid_on": "2 May"}})], tree)
    assert page_digest(edited.model_dump(mode="json"), 0) != before


# A real 3-sheet invoice in the tagged profiles: a repeated header, "Page n of N" repeated


SERVICES = ["Consulting", "Design review", "Travel", "Licences", "Support plan", "Hosting", "Training", "Audit"]
MONTHS = ["March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]


def service_rows(count: int) -> list[list[str]]:
    rows = [
        [f"{SERVICES[i % len(SERVICES)]}, {MONTHS[i // len(SERVICES)]}", f"{(i * 37) % 500}.00"] for i in range(count)
    ]
    return [["Item", "Amount"], *rows]


def tagged_invoice(rows: list[list[str]], tmp_path) -> Path:
    tree = build(
        [
            action("set_metadata", title="Invoice 2026-001", language="en-GB"),
            add("text", "header", {"x": 40, "y": 40}, {"content": "ACME Ltd · Invoice 2026-001"}, repeat="sheets"),
            add("table", "lines", {"x": 40, "y": 120}, {"cells": rows[:2], "columnWidths": [300, 100]}),
            add(
                "text",
                "footer",
                {"x": 40, "y": 780},
                {"content": "Page {page} of {pages}", "fields": True},
                repeat="sheets",
            ),
            add("text", "terms", {"x": 40, "y": 80}, {"content": "Paid on {paid_on}", "fields": True}),
            add("text", "stamp", {"x": 460, "y": 80}, {"content": "PAID"}, showIf={"variable": "paid_on"}),
            action("bind_variable", name="lines"),
        ]
    )
    paths = {}
    for profile in ("accessible", "pdf-a"):
        paths[profile] = tmp_path / f"{profile}.pdf"
        paths[profile].write_bytes(render_pdf(tree, {"lines": rows, "paid_on": "1 May"}, profile=profile))
    return paths


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_a_three_sheet_invoice_with_page_numbers_passes_the_tagged_profile_checks(tmp_path, profile):
    from ...pdf_checker import problems

    paths = tagged_invoice(service_rows(80), tmp_path)
    pdf = paths[profile].read_bytes()
    texts = pdf_text(pdf)
    assert len(texts) == 3
    assert all(f"Page {n} of 3" in text and "ACME Ltd" in text for n, text in enumerate(texts, start=1))
    assert "PAID" in texts[0]
    assert problems(pdf) == []
    assert_passes_its_profiles_validator(paths[profile], profile)


def test_outlouds_running_footer_warning_on_numbered_rows_is_about_the_rows_not_the_furniture(tmp_path):
    # outloud's PAG-001 strips digits from the lines in a page's top and bottom 12 % and warns
    # when one comes back on every sheet. Rows "item030 30", "item031 31", ... all read "item",
    # and a table growing between a header and a footer has rows in both bands: a warning
    # about the rows. The repeated header and footer are content once (sheet 1, where they are
    # first drawn, extensions.md 4) and pagination artifacts after: never reported.
    rows = [["Item", "Amount"]] + [[f"item{i:03d}", str(i)] for i in range(80)]
    result = outloud(tagged_invoice(rows, tmp_path)["accessible"], "--only", "PAG-001", "--json", "-")
    findings = json.loads(result.stdout)["results"][0]["findings"]
    # Continuation sheets keep the first sheet's gap under the header (extensions.md 11), so the
    # rows may no longer reach the top band; whatever is reported is about the rows.
    assert all(f["evidence"].startswith("item") for f in findings), findings
