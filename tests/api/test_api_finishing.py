"""Compliance per render over real HTTP (extensions.md 9): attachments, a Factur-X
e-invoice, a watermark and encryption on generate and on every row of a batch (with a
row's own files and invoice), refusals before anything is charged; read back from the
downloaded PDFs with pikepdf, pypdfium2 and the factur-x library. On both stores."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import facturx
import httpx
import pikepdf

from tests.batch_jobs import design, rows, wait_for_end, zip_of
from tests.einvoices import INVOICE, LAUGHS, XXE, with_doctype
from tests.pdf_probes import pdf_text
from workbench.notebook.einvoice import factur_x_xml

RUN_ON_BOTH_STORES = True
CSV = b"item,qty\nconsulting,3\n"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def invoice_xml(number: str) -> bytes:
    return factur_x_xml({**INVOICE, "number": number}, level="en16931")


def credits(client) -> int:
    return client.data(client.get("/me"), 200)["credits"]


def download(client, response) -> bytes:
    return httpx.get(client.data(response, 201)["downloadUrl"]).content


def test_an_e_invoice_with_an_attachment_is_a_factur_x_pdf_a(alpha):
    design_id = design(alpha)
    body = {
        "data": {"name": "Globex", "code": "INV-1"},
        "pdfProfile": "pdf-a",
        "eInvoice": {"standard": "factur-x", "xml": b64(invoice_xml("INV-1"))},
        "attachments": [{"name": "lines.csv", "mimeType": "text/csv", "content": b64(CSV), "relationship": "Source"}],
    }
    pdf = download(alpha, alpha.post(f"/designs/{design_id}/generate", json=body))
    name, xml = facturx.get_facturx_xml_from_pdf(pdf, check_xsd=True)
    assert name == "factur-x.xml" and b"INV-1" in xml
    with pikepdf.open(io.BytesIO(pdf)) as document:
        files = document.attachments
        assert set(files) == {"factur-x.xml", "lines.csv"}
        assert files["lines.csv"].get_file().read_bytes() == CSV
        assert len(document.Root.AF) == 2  # both associated with the document (PDF/A-3)


def test_a_watermark_and_a_password_on_generate(alpha):
    design_id = design(alpha)
    body = {
        "data": {"name": "Globex", "code": "X"},
        "watermark": {"text": "CONFIDENTIAL"},
        "encryption": {"ownerPassword": "owner-secret", "userPassword": "reader", "allow": ["print"]},
    }
    pdf = download(alpha, alpha.post(f"/designs/{design_id}/generate", json=body))
    with pikepdf.open(io.BytesIO(pdf), password="reader") as document:
        assert document.encryption.R == 6 and document.encryption.bits == 256
        allowed = document.allow
        assert allowed.print_highres and not allowed.modify_other and not allowed.extract
        out = io.BytesIO()
        document.save(out)  # decrypted, to read its text
    assert "CONFIDENTIAL" in pdf_text(out.getvalue())[0]


def test_refusals_name_the_fix_and_charge_nothing(alpha):
    design_id = design(alpha)
    before = credits(alpha)
    invoice = {"standard": "factur-x", "xml": b64(invoice_xml("INV-2"))}
    message = alpha.error(
        alpha.post(f"/designs/{design_id}/generate", json={"eInvoice": invoice}), 400, "VALIDATION_ERROR"
    )
    assert 'pdfProfile "pdf-a"' in message
    broken = {"standard": "factur-x", "xml": b64(b"<rsm:CrossIndustryInvoice>\n<unclosed>")}
    body = {"eInvoice": broken, "pdfProfile": "pdf-a"}
    message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
    assert "line" in message
    body = {"encryption": {"ownerPassword": "o"}, "pdfProfile": "pdf-a"}
    message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
    assert "PDF/A forbids encryption" in message
    body = {"rows": rows(2), "rowOptions": [{}]}
    message = alpha.error(alpha.post(f"/designs/{design_id}/batch", json=body), 400, "VALIDATION_ERROR")
    assert "rowOptions has 1 entries for 2 rows" in message
    assert credits(alpha) == before


def test_an_e_invoice_with_a_doctype_is_a_400_that_reads_no_file(alpha):
    """Issue 31: an external entity answered 500. Refused before parsing, never expanded or fetched."""
    design_id = design(alpha)
    before = credits(alpha)
    passwd = Path("/etc/passwd").read_text().splitlines()[0]  # root:x:0:0:… : what the entity would read
    xxe = {"standard": "factur-x", "xml": b64(with_doctype(invoice_xml("INV-X"), *XXE))}
    response = alpha.post(f"/designs/{design_id}/generate", json={"eInvoice": xxe, "pdfProfile": "pdf-a"})
    message = alpha.error(response, 400, "VALIDATION_ERROR")
    assert "eInvoice.xml has a DOCTYPE" in message and "remove the <!DOCTYPE" in message
    assert passwd not in response.text
    laughs = {"standard": "factur-x", "xml": b64(with_doctype(invoice_xml("INV-X"), *LAUGHS))}
    body = {"rows": rows(2), "pdfProfile": "pdf-a", "rowOptions": [{}, {"eInvoice": laughs}]}
    message = alpha.error(alpha.post(f"/designs/{design_id}/batch", json=body), 400, "VALIDATION_ERROR")
    assert message.startswith("rowOptions[1]: eInvoice.xml has a DOCTYPE")
    assert credits(alpha) == before


def test_every_row_of_a_batch_gets_the_batchs_options_and_its_own_invoice(alpha):
    design_id = design(alpha)
    numbers = ["INV-10", "INV-11", "INV-12"]
    body = {
        "rows": rows(3),
        "pdfProfile": "pdf-a",
        "attachments": [{"name": "terms.txt", "mimeType": "text/plain", "content": b64(b"Net 30")}],
        "rowOptions": [{"eInvoice": {"standard": "factur-x", "xml": b64(invoice_xml(n))}} for n in numbers],
    }
    job_id = alpha.data(alpha.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
    assert wait_for_end(alpha, job_id)["completed"] == 3
    archive = zip_of(alpha, job_id)
    for index, number in enumerate(numbers):
        pdf = archive.read(f"row-{index + 1:04d}.pdf")
        _, xml = facturx.get_facturx_xml_from_pdf(pdf, check_xsd=True)
        assert number.encode() in xml
        with pikepdf.open(io.BytesIO(pdf)) as document:
            assert set(document.attachments) == {"factur-x.xml", "terms.txt"}
    # A row's invoice is checked at submit, naming the row: nothing is queued or charged.
    before = credits(alpha)
    body["rowOptions"][1] = {"eInvoice": {"standard": "factur-x", "xml": b64(b"<not-xml")}}
    message = alpha.error(alpha.post(f"/designs/{design_id}/batch", json=body), 400, "VALIDATION_ERROR")
    assert message.startswith("rowOptions[1]: ")
    assert credits(alpha) == before


def test_an_agent_asks_for_the_same_options_over_mcp(api_server, alpha):
    from tests.mcp_calls import failed, ok, run

    design_id = design(alpha)
    invoice = {"standard": "factur-x", "xml": b64(invoice_xml("INV-MCP"))}

    async def script(session):
        made = ok(
            await session.call_tool(
                "generate_pdf",
                {"designId": design_id, "pdfProfile": "pdf-a", "eInvoice": invoice, "watermark": {"text": "AGENT"}},
            )
        )
        refused = failed(
            await session.call_tool("generate_pdf", {"designId": design_id, "eInvoice": invoice}), "VALIDATION_ERROR"
        )
        return made, refused

    made, refused = run(api_server, api_server.workspaces["alpha"][1], script)
    pdf = httpx.get(made["downloadUrl"]).content
    assert b"INV-MCP" in facturx.get_facturx_xml_from_pdf(pdf, check_xsd=True)[1]
    assert "AGENT" in pdf_text(pdf)[0]
    assert 'pdfProfile "pdf-a"' in refused
