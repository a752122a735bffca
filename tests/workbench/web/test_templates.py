"""The gallery's templates (workbench.templates): each makes a design through the client that
generates, and the sample logo is added to the library once."""

from __future__ import annotations

import pytest

from api.service import Service, Settings
from engine import render_pdf
from tests.pdf_probes import drawn_line, pdf_text
from workbench import samples
from workbench.client.api import LocalClient
from workbench.samples import TEMPLATES
from workbench.templates import LOGO_NAME, create_from_template

from ...pdf_checker import problems
from ...validators import assert_valid_pdf_a

WORDS = {
    "certificate": "Certificate of Excellence",
    "invoice": "INVOICE",
    "badge": "DocConf 2026",
    "letter": "Your order",
}


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    service = Service(Settings(data_dir=tmp_path_factory.mktemp("templates")))
    yield service
    service.close()


@pytest.fixture
def client(service):
    workspace, _ = service.accounts.create_workspace("templates", "pro", 20)
    return LocalClient(service, workspace.id)


@pytest.mark.parametrize("key", TEMPLATES)
def test_a_template_makes_a_design_that_generates(client, key):
    design_id = create_from_template(client, key)
    design = client.call("get_design", {"designId": design_id})
    assert design["name"] == TEMPLATES[key].title
    generated = client.call("generate_pdf", {"designId": design_id}, {"data": {}})
    assert WORDS[key] in " ".join(pdf_text(client.fetch(generated["downloadUrl"])))


def generate(client, key: str, data: dict) -> list[str]:
    """Each sheet's text of a PDF generated from a new design made from the template `key`."""
    design_id = create_from_template(client, key)
    generated = client.call("generate_pdf", {"designId": design_id}, {"data": data})
    return [" ".join(sheet.split()) for sheet in pdf_text(client.fetch(generated["downloadUrl"]))]


def test_the_certificate_fills_its_field_sentence_and_fits_a_long_name_on_one_line(client):
    name = "Augusta Ada King, Countess of Lovelace and Baroness Wentworth"
    (sheet,) = generate(client, "certificate", {"recipient": name, "course": "Typesetting {advanced}"})
    assert f"This certifies that {name} completed Typesetting {{advanced}}" in sheet  # braces in values stay literal
    assert sheet.count(name) == 2  # the fitted name and the sentence's {recipient}: one variable
    design_id = create_from_template(client, "certificate")
    pdfs = {
        who: client.fetch(
            client.call("generate_pdf", {"designId": design_id}, {"data": {"recipient": who}})["downloadUrl"]
        )
        for who in (name, "Ada Lovelace")
    }
    long_size, long_width = drawn_line(pdfs[name], name)
    short_size, _ = drawn_line(pdfs["Ada Lovelace"], "Ada Lovelace")
    assert short_size == pytest.approx(40, abs=0.1)  # a short name keeps the designed size
    assert 16 <= long_size < 40 and long_width <= samples.FITTED_NAME_WIDTH  # a long one shrinks to its line
    sample = generate(client, "certificate", {})[0]
    assert "This certifies that Ada Lovelace completed the Document Design programme" in sample  # the samples


def test_the_invoice_grows_to_three_sheets_with_its_header_page_numbers_and_a_paid_stamp_only_when_paid(client):
    # The gallery's invoice computes its amounts, VAT and total from raw line items (issue 34).
    row = samples.computed_invoice_row(7, lines=60)
    sheets = generate(client, "invoice", row)
    assert len(sheets) == 3
    for number, sheet in enumerate(sheets, start=1):
        assert f"Page {number} of 3" in sheet and "INVOICE" in sheet and "No. INV-0007" in sheet
        assert "PAID" not in sheet
    assert "Service 7-1 " in sheets[0] and "Service 7-60 " in sheets[2] and "Total due" in sheets[2]
    total = samples.precomputed_invoice_row(7, lines=60)["lines"][-1][-1]  # the caller's own arithmetic
    assert f"Total due {total}" in sheets[2]
    paid = generate(client, "invoice", samples.computed_invoice_row(7, lines=60, paid=True))
    assert "PAID 2026-11-08" in paid[0] and not any("PAID" in sheet for sheet in paid[1:])


def test_the_letter_body_flows_onto_a_second_page_and_the_closing_follows_it(client):
    assert len(generate(client, "letter", {})) == 1  # the design-time body fits one page
    first, second = generate(client, "letter", samples.flowing_letter_row())
    assert "Page 1 of 2" in first and "Page 2 of 2" in second
    assert "Thank you for your order of 12 November." in first  # **12 November** drawn bold, markup gone
    assert "The docbench team" not in first
    assert "season." in second and "The docbench team" in second
    assert second.index("season.") < second.index("The docbench team")


def test_the_sample_logo_is_added_once(client):
    first = create_from_template(client, "certificate")
    second = create_from_template(client, "letter", name="My letter")
    logos = [a for a in client.call("list_assets", query={"limit": 200})["items"] if a["name"] == LOGO_NAME]
    assert len(logos) == 1
    refs = {
        node["data"]["src"]
        for design_id in (first, second)
        for node in client.call("get_design_tree", {"designId": design_id})["nodes"].values()
        if node["name"] == "logo"
    }
    assert refs == {logos[0]["ref"]}
    assert client.call("get_design", {"designId": second})["name"] == "My letter"


SHOWCASES = {
    "certificate": (samples.fitted_certificate, samples.fitted_certificate_row(2)),
    "invoice": (samples.paged_invoice, samples.paged_invoice_row(2, paid=True)),
    "letter": (samples.flowing_letter, samples.flowing_letter_row()),
}


@pytest.mark.parametrize("key", SHOWCASES)
def test_the_showcases_pass_the_tagged_profile_checks(key, tmp_path):
    design, row = SHOWCASES[key]
    accessible = render_pdf(design(), row, samples.resolver, "accessible")
    assert problems(accessible) == []
    path = tmp_path / f"{key}.pdf"
    path.write_bytes(render_pdf(design(), row, samples.resolver, "pdf-a"))
    assert problems(path.read_bytes()) == []
    assert_valid_pdf_a(path)
