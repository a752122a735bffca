"""Compliance per render (extensions.md 9) in the engine: attachments, Factur-X
e-invoices, watermarks and encryption, read back from real PDFs with pikepdf, pypdfium2
and the factur-x library, and the tagged profiles' validators kept green."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import facturx
import pikepdf
import pydantic
import pytest
from lxml import etree

from engine import EngineError, Finishing, Watermark, render_pdf
from engine.finishing.attachments import Attachment
from engine.finishing.einvoice import EInvoice
from tests.einvoices import INVOICE, LAUGHS, XXE, with_doctype
from tests.pdf_probes import pdf_text, tagged_text_objects
from workbench import samples
from workbench.notebook.einvoice import factur_x_xml

from ...pdf_checker import problems
from ...validators import assert_passes_outloud, assert_valid_pdf_a

# The factur-x library's level key → what fx:ConformanceLevel must say, and the relationship.
LEVELS = {
    "minimum": ("MINIMUM", "/Data"),
    "basicwl": ("BASIC WL", "/Data"),
    "basic": ("BASIC", "/Alternative"),
    "en16931": ("EN 16931", "/Alternative"),
    "extended": ("EXTENDED", "/Alternative"),
}
FX = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"
CSV = b"item,qty\nconsulting,3\nhandbook,2\n"
PNG_BYTES = samples.logo_png()


@pytest.fixture(scope="module")
def design():
    return samples.invoice()


@pytest.fixture(scope="module")
def row():
    return samples.invoice_row(7)


def render(design, row, profile: str = "standard", **finishing) -> bytes:
    return render_pdf(design, row, samples.resolver, profile, finishing=Finishing.model_validate(finishing))


def e_invoice(xml: bytes) -> dict:
    """The body's shape: base64 in JSON."""
    return {"standard": "factur-x", "xml": base64.b64encode(xml).decode()}


def write(tmp_path: Path, name: str, pdf: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(pdf)
    return path


# --- Factur-X ------------------------------------------------------------------------


@pytest.mark.parametrize("level", list(LEVELS))
def test_factur_x_invoice_of_each_level_reads_back_valid_with_its_xmp(design, row, level, tmp_path):
    xml = factur_x_xml(INVOICE, level)
    pdf = render(design, row, "pdf-a", eInvoice=e_invoice(xml))

    name, embedded = facturx.get_facturx_xml_from_pdf(pdf, check_xsd=True)
    assert (name, embedded) == ("factur-x.xml", xml)
    assert facturx.get_level(etree.fromstring(embedded)) == level
    conformance, relationship = LEVELS[level]
    with pikepdf.open(io.BytesIO(pdf)) as document:
        spec = document.attachments["factur-x.xml"].obj
        assert spec.AFRelationship == relationship
        assert spec.EF.F.Subtype == "/text/xml"
        assert [item.objgen for item in document.Root.AF] == [spec.objgen]
        with document.open_metadata() as xmp:
            assert xmp[f"{{{FX}}}DocumentType"] == "INVOICE"
            assert xmp[f"{{{FX}}}DocumentFileName"] == "factur-x.xml"
            assert xmp[f"{{{FX}}}Version"] == "1.0"
            assert xmp[f"{{{FX}}}ConformanceLevel"] == conformance
            # The profile's own XMP is kept: PDF/A-3b, and the title the design gives.
            assert xmp["pdfaid:part"] == "3" and xmp["pdfaid:conformance"] == "B"
            assert xmp["dc:title"] == "Invoice"
    assert_valid_pdf_a(write(tmp_path, f"{level}.pdf", pdf))
    assert "No. INV-0007" in pdf_text(pdf)[0]  # the visual invoice is still the design


def test_the_pdf_a_gate_refuses_factur_x_properties_without_their_extension_schema(design, row, tmp_path):
    """The gate above sets aside only what an extension schema declares."""
    pdf = render(design, row, "pdf-a", eInvoice=e_invoice(factur_x_xml(INVOICE, "basic")))
    with pikepdf.open(io.BytesIO(pdf)) as document:
        packet = document.Root.Metadata.read_bytes()
        root = etree.fromstring(packet)
        (schemas,) = root.iterfind(".//{http://www.aiim.org/pdfa/ns/extension/}schemas")
        description = schemas.getparent()
        description.getparent().remove(description)
        head, tail = packet.split(b"?>", 1)[0] + b"?>", b'<?xpacket end="w"?>'
        document.Root.Metadata = document.make_stream(
            head + etree.tostring(root) + tail, Type=pikepdf.Name.Metadata, Subtype=pikepdf.Name.XML
        )
        out = io.BytesIO()
        document.save(out)
    assert_valid_pdf_a(write(tmp_path, "declared.pdf", pdf))  # as rendered: valid
    with pytest.raises(AssertionError, match="fx:ConformanceLevel is not permitted"):
        assert_valid_pdf_a(write(tmp_path, "undeclared.pdf", out.getvalue()))


def test_e_invoice_and_attachments_give_the_same_bytes_each_time(design, row):
    options = {
        "eInvoice": e_invoice(factur_x_xml(INVOICE, "en16931")),
        "attachments": [{"name": "lines.csv", "mimeType": "text/csv", "content": base64.b64encode(CSV).decode()}],
    }
    first = render(design, row, "pdf-a", **options)
    assert render(design, row, "pdf-a", **options) == first
    assert render(design, row, "standard", attachments=options["attachments"]) == render(
        design, row, "standard", attachments=options["attachments"]
    )


def test_malformed_invoice_xml_is_refused_naming_the_line(design, row):
    xml = factur_x_xml(INVOICE, "basic").replace(b"<ram:TypeCode>380</ram:TypeCode>", b"<ram:TypeCode>380</ram:Type>")
    line = xml[: xml.index(b"</ram:Type>")].count(b"\n") + 1
    with pytest.raises(EngineError, match=rf"not well-formed XML: line {line}:.*TypeCode"):
        render(design, row, "pdf-a", eInvoice=e_invoice(xml))


def test_invoice_xml_against_its_schema_is_refused_naming_the_line_and_element(design, row):
    xml = factur_x_xml(INVOICE, "en16931").replace(
        b"<ram:TypeCode>380</ram:TypeCode>", b"<ram:TypeCode>380</ram:TypeCode>\n    <ram:Colour>red</ram:Colour>"
    )
    line = xml[: xml.index(b"<ram:Colour>")].count(b"\n") + 1
    with pytest.raises(EngineError, match=rf"EN 16931 schema it declares: line {line}: .*Colour.*not expected"):
        render(design, row, "pdf-a", eInvoice=e_invoice(xml))


def test_invoice_xml_checked_against_the_level_it_declares(design, row):
    """Line items are valid in BASIC but not in MINIMUM: relabelling a BASIC invoice as
    MINIMUM makes it fail MINIMUM's schema."""
    xml = factur_x_xml(INVOICE, "basic").replace(
        b"urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic", b"urn:factur-x.eu:1p0:minimum"
    )
    with pytest.raises(EngineError, match="MINIMUM schema it declares: line \\d+: .*IncludedSupplyChainTradeLineItem"):
        render(design, row, "pdf-a", eInvoice=e_invoice(xml))


@pytest.mark.parametrize(
    ("doctype", "number"), [XXE, LAUGHS, (b"<!DOCTYPE html>", b"INV-1")], ids=["xxe", "laughs", "bare"]
)
def test_invoice_xml_with_a_doctype_is_refused_before_any_entity_is_read(design, row, doctype, number):
    xml = with_doctype(factur_x_xml(INVOICE, "en16931"), doctype, number)
    with pytest.raises(EngineError, match="eInvoice.xml has a DOCTYPE .* remove the <!DOCTYPE") as refused:
        render(design, row, "pdf-a", eInvoice=e_invoice(xml))
    assert "root:" not in refused.value.message  # /etc/passwd's first line, had the entity been read


@pytest.mark.parametrize(
    ("xml", "message"),
    [
        (b'<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>', "is not a Factur-X"),
        (
            b'<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>',
            "does not declare a Factur-X profile",
        ),
        (
            b'<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" '
            b'xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100">'
            b"<rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID/>"
            b"</ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext></rsm:CrossIndustryInvoice>",
            "does not declare a Factur-X profile",  # an empty ram:ID: facturx itself fails on it
        ),
    ],
)
def test_xml_that_is_no_factur_x_invoice_is_refused(design, row, xml, message):
    with pytest.raises(EngineError, match=message):
        render(design, row, "pdf-a", eInvoice=e_invoice(xml))


@pytest.mark.parametrize("profile", ["standard", "accessible"])
def test_e_invoice_without_pdf_a_is_refused_naming_the_fix(design, row, profile):
    with pytest.raises(EngineError, match='eInvoice needs pdfProfile "pdf-a"'):
        render(design, row, profile, eInvoice=e_invoice(factur_x_xml(INVOICE, "basic")))


def test_e_invoice_xml_must_be_base64_in_json():
    with pytest.raises(pydantic.ValidationError, match="not valid base64"):
        EInvoice.model_validate({"standard": "factur-x", "xml": "<rsm:CrossIndustryInvoice/>"})
    with pytest.raises(pydantic.ValidationError, match="standard"):
        EInvoice.model_validate({"standard": "xrechnung", "xml": ""})


# --- Attachments ---------------------------------------------------------------------


def attachments_json() -> list[dict]:
    return [
        {
            "name": "lines.csv",
            "mimeType": "text/csv",
            "content": base64.b64encode(CSV).decode(),
            "relationship": "Source",
            "description": "The invoice lines",
        },
        {"name": "logo.png", "mimeType": "image/png", "content": base64.b64encode(PNG_BYTES).decode()},
    ]


@pytest.mark.parametrize("profile", ["standard", "accessible", "pdf-a"])
def test_attachments_read_back_with_their_relationship(design, row, profile, tmp_path):
    pdf = render(design, row, profile, attachments=attachments_json())
    with pikepdf.open(io.BytesIO(pdf)) as document:
        files = document.attachments
        assert sorted(files) == ["lines.csv", "logo.png"]
        csv, logo = files["lines.csv"], files["logo.png"]
        assert csv.get_file().read_bytes() == CSV and logo.get_file().read_bytes() == PNG_BYTES
        assert csv.obj.AFRelationship == "/Source" and logo.obj.AFRelationship == "/Unspecified"
        assert csv.description == "The invoice lines" and logo.description == "logo.png"  # PDF/UA: every one has /Desc
        assert csv.obj.EF.F.Subtype == "/text/csv" and logo.obj.EF.F.Subtype == "/image/png"
        assert int(csv.obj.EF.F.Params.Size) == len(CSV)
        listed = sorted(str(spec.F) for spec in document.Root.AF) if "/AF" in document.Root else []
        # spec 9: the catalog's /AF lists them under pdf-a
        assert listed == (["lines.csv", "logo.png"] if profile == "pdf-a" else [])
    if profile == "pdf-a":
        assert_valid_pdf_a(write(tmp_path, "attached.pdf", pdf))
    if profile == "accessible":
        assert problems(pdf) == []
        assert_passes_outloud(write(tmp_path, "attached.pdf", pdf))


def test_attachments_with_an_e_invoice_are_all_associated(design, row, tmp_path):
    pdf = render(
        design, row, "pdf-a", attachments=attachments_json(), eInvoice=e_invoice(factur_x_xml(INVOICE, "basic"))
    )
    with pikepdf.open(io.BytesIO(pdf)) as document:
        assert sorted(str(spec.F) for spec in document.Root.AF) == ["factur-x.xml", "lines.csv", "logo.png"]
    assert facturx.get_facturx_xml_from_pdf(pdf, check_xsd=True)[0] == "factur-x.xml"
    assert_valid_pdf_a(write(tmp_path, "both.pdf", pdf))


def test_the_e_invoice_has_its_own_5_mb_beside_the_attachments(design, row):
    almost = [{"name": "big.bin", "mimeType": "application/octet-stream", "content": bytes(5 * 1024 * 1024 - 100)}]
    pdf = render(design, row, "pdf-a", attachments=almost, eInvoice=e_invoice(factur_x_xml(INVOICE, "basic")))
    assert facturx.get_facturx_xml_from_pdf(pdf)[0] == "factur-x.xml"
    huge = b"<x>" + b" " * (5 * 1024 * 1024) + b"</x>"
    with pytest.raises(EngineError, match="e-invoice XML is .* bytes, over 5 MB"):
        render(design, row, "pdf-a", eInvoice=e_invoice(huge))


def test_an_attachment_may_not_take_the_e_invoices_name(design, row):
    clash = [{"name": "factur-x.xml", "mimeType": "text/xml", "content": ""}]
    with pytest.raises(EngineError, match="named factur-x.xml.*rename it"):
        render(design, row, "pdf-a", attachments=clash, eInvoice=e_invoice(factur_x_xml(INVOICE, "basic")))


def test_attachment_limits_name_the_fix():
    one = {"mimeType": "text/plain", "content": ""}
    with pytest.raises(pydantic.ValidationError, match="11 attachments given; at most 10"):
        Finishing.model_validate({"attachments": [{"name": f"{i}.txt", **one} for i in range(11)]})
    big = base64.b64encode(bytes(3 * 1024 * 1024)).decode()
    with pytest.raises(pydantic.ValidationError, match="at most 5242880 \\(5 MB\\) together"):
        Finishing.model_validate(
            {"attachments": [{"name": f"{i}.bin", "mimeType": "application/zip", "content": big} for i in range(2)]}
        )
    with pytest.raises(pydantic.ValidationError, match="a.txt is given more than once"):
        Finishing.model_validate({"attachments": [{"name": "a.txt", **one}, {"name": "a.txt", **one}]})
    with pytest.raises(pydantic.ValidationError, match="mimeType"):
        Finishing.model_validate({"attachments": [{"name": "a", "mimeType": "text", "content": ""}]})
    with pytest.raises(pydantic.ValidationError, match="relationship"):
        Finishing.model_validate({"attachments": [{"name": "a", **one, "relationship": "Parent"}]})


def test_attachment_is_bytes_in_python_and_base64_in_json():
    attachment = Attachment(name="a.csv", mime_type="text/csv", content=CSV)
    assert attachment.content == CSV
    dumped = attachment.model_dump(mode="json")
    assert dumped["mimeType"] == "text/csv" and base64.b64decode(dumped["content"]) == CSV
    assert Attachment.model_validate(dumped) == attachment
    schema = Finishing.model_json_schema(by_alias=True)
    assert {"attachments", "eInvoice", "watermark", "encryption", "sign"} <= set(schema["properties"])


def test_a_rows_options_add_to_the_batchs(design, row):
    batch = Finishing.model_validate({"attachments": attachments_json()[:1]})
    mine = Attachment.model_validate(attachments_json()[1])
    invoice = EInvoice.model_validate(e_invoice(factur_x_xml(INVOICE, "minimum")))
    combined = batch.for_row([mine], invoice)
    assert [a.name for a in combined.attachments] == ["lines.csv", "logo.png"] and combined.e_invoice == invoice
    assert batch.for_row() is batch
    with pytest.raises(EngineError, match="rowOptions: .*more than once"):
        batch.for_row([batch.attachments[0]])


# --- Watermark -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def paged():
    return samples.paged_invoice(), samples.paged_invoice_row(3)


@pytest.mark.parametrize("profile", ["standard", "accessible", "pdf-a"])
def test_watermark_text_is_on_every_page(paged, profile):
    design, values = paged
    pdf = render(design, values, profile, watermark={"text": "CONFIDENTIAL", "opacity": 0.2, "angle": 30})
    pages = pdf_text(pdf)
    assert len(pages) >= 3
    assert all("CONFIDENTIAL" in text for text in pages)
    assert not any("CONFIDENTIAL" in text for text in pdf_text(render(design, values, profile)))


def test_watermark_is_an_artifact_in_the_accessible_profile(paged, tmp_path):
    design, values = paged
    pdf = render(design, values, "accessible", watermark={"text": "DRAFT"})
    for index in range(len(pdf_text(pdf))):
        marks = [marks for text, marks in tagged_text_objects(pdf, index) if text == "DRAFT"]
        assert marks == [["Artifact"]], marks
    # and the content around it is still structure
    assert any("P" in marks for _, marks in tagged_text_objects(pdf, 0))
    assert problems(pdf) == []
    assert_passes_outloud(write(tmp_path, "draft.pdf", pdf))


def test_watermark_in_finishing_and_the_preview_shorthand_agree(design, row):
    mark = Watermark(text="COPY")
    assert render(design, row, watermark={"text": "COPY"}) == render_pdf(design, row, samples.resolver, watermark=mark)
    with pytest.raises(EngineError, match="two watermarks given"):
        render_pdf(design, row, samples.resolver, watermark=Watermark(text="A"), finishing=Finishing(watermark=mark))


# --- Encryption ----------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["standard", "accessible"])
def test_encryption_is_aes_256_with_the_permissions_asked_for(design, row, profile):
    pdf = render(
        design,
        row,
        profile,
        encryption={"ownerPassword": "owner-secret", "userPassword": "reader", "allow": ["print", "fill-forms"]},
    )
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.open(io.BytesIO(pdf))
    with pikepdf.open(io.BytesIO(pdf), password="reader") as document:
        assert document.is_encrypted
        assert document.encryption.R == 6 and document.encryption.bits == 256
        assert str(document.encryption.stream_method) == "EncryptionMethod.aesv3"
        allow = document.allow
        assert allow.print_highres and allow.print_lowres and allow.modify_form
        assert not (allow.extract or allow.modify_other or allow.modify_annotation or allow.modify_assembly)
        assert allow.accessibility  # PDF/UA: screen readers may always read it
        assert "No. INV-0007" in pdf_text(document_bytes(document))[0]
    with pikepdf.open(io.BytesIO(pdf), password="owner-secret") as document:
        assert document.owner_password_matched
    assert len(pdf) < 1.2 * len(render(design, row, profile))  # the streams stay compressed


def document_bytes(document: pikepdf.Pdf) -> bytes:
    out = io.BytesIO()
    document.save(out)  # decrypted copy, for PDFium's text
    return out.getvalue()


def test_encryption_without_a_user_password_opens_but_keeps_its_restrictions(design, row):
    pdf = render(
        design, row, encryption={"ownerPassword": "owner-secret", "allow": ["copy"]}, attachments=attachments_json()
    )
    with pikepdf.open(io.BytesIO(pdf)) as document:
        assert document.is_encrypted and not document.owner_password_matched
        assert document.allow.extract and not document.allow.print_highres and not document.allow.modify_other
        assert document.attachments["lines.csv"].get_file().read_bytes() == CSV  # encrypted with the rest
    assert b"item,qty" not in pdf
    assert "No. INV-0007" in pdf_text(pdf)[0]


def test_encryption_is_refused_with_pdf_a(design, row):
    with pytest.raises(EngineError, match="PDF/A forbids encryption"):
        render(design, row, "pdf-a", encryption={"ownerPassword": "owner-secret"})


def test_encryption_needs_two_different_passwords():
    with pytest.raises(pydantic.ValidationError, match="userPassword equals ownerPassword"):
        Finishing.model_validate({"encryption": {"ownerPassword": "same", "userPassword": "same"}})
    with pytest.raises(pydantic.ValidationError, match="allow"):
        Finishing.model_validate({"encryption": {"ownerPassword": "x", "allow": ["print", "everything"]}})


# --- No option, no cost --------------------------------------------------------------


@pytest.mark.parametrize("profile", ["standard", "pdf-a"])
def test_an_empty_finishing_changes_nothing(design, row, profile):
    plain = render_pdf(design, row, samples.resolver, profile)
    assert render(design, row, profile) == plain
    assert render(design, row, profile, sign=True) == plain  # signing is the caller's step, after the engine
