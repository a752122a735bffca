"""Existing PDFs before and after the generated pages over real HTTP (extensions.md 12: generate's
`prepend` and `append`, with page ranges): their order, the profiles' rules, pictures of the
added pages, and the refusals, which charge nothing."""

from __future__ import annotations

import io
import zipfile

import httpx

from tests import pdf_sources
from tests.batch_jobs import design, rows, wait_for_end, zip_of
from tests.pdf_checker import problems
from tests.pdf_probes import pdf_a_violations, pdf_text
from tests.uploads import upload

from ..conftest import png

LETTERHEAD = "Northwind Letterhead"  # page 1 of pdf_sources.reportlab_letterhead
TERMS = "Terms and conditions"  # its page 2


def upload_pdf(client, data: bytes, name: str = "terms.pdf") -> str:
    return client.data(upload(client, data, name, "application/pdf"), 201)["ref"]


def letter(client) -> str:
    design_id = client.data(client.post("/designs", json={"name": "Letter"}), 201)["designId"]
    actions = [
        {"type": "add_element", "args": {"type": "text", "name": "body", "position": {"x": 60, "y": 300}}},
        {"type": "bind_variable", "args": {"name": "body"}},
    ]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    return design_id


def credits(client) -> int:
    return client.data(client.get("/me"), 200)["credits"]


def generated(client, design_id: str, body: dict) -> bytes:
    url = client.data(client.post(f"/designs/{design_id}/generate", json=body), 201)["downloadUrl"]
    return httpx.get(url).content


def first_lines(pdf: bytes) -> list[str]:
    return [text.strip().splitlines()[0] if text.strip() else "" for text in pdf_text(pdf)]


def test_append_with_page_ranges_puts_those_pages_after_ours_in_order_for_one_credit(alpha):
    design_id, terms = letter(alpha), upload_pdf(alpha, pdf_sources.reportlab_letterhead())
    before = credits(alpha)
    body = {"data": {"body": "Dear Ada"}, "append": [{"ref": terms, "pages": "2"}, {"ref": terms, "pages": "2, 1"}]}
    pdf = generated(alpha, design_id, body)
    assert first_lines(pdf) == ["Dear Ada", TERMS, TERMS, LETTERHEAD]
    assert credits(alpha) == before - 1


def test_prepend_and_append_together_with_an_asset_and_a_plain_ref(alpha):
    design_id = letter(alpha)
    data = pdf_sources.reportlab_letterhead()
    asset = alpha.data(alpha.post("/assets", files={"file": ("cover.pdf", data, "application/pdf")}), 201)["ref"]
    terms = upload_pdf(alpha, data)
    pdf = generated(alpha, design_id, {"data": {"body": "Dear Ada"}, "prepend": [asset], "append": [terms]})
    assert first_lines(pdf) == [LETTERHEAD, TERMS, "Dear Ada", LETTERHEAD, TERMS]


def test_pictures_of_the_pages_include_the_added_ones(alpha):
    design_id, terms = letter(alpha), upload_pdf(alpha, pdf_sources.reportlab_letterhead())
    body = {"data": {"body": "Dear Ada"}, "append": [{"ref": terms, "pages": "1-2"}], "output": {"format": "png"}}
    archive = zipfile.ZipFile(io.BytesIO(generated(alpha, design_id, body)))
    assert archive.namelist() == ["page-001.png", "page-002.png", "page-003.png"]


def test_refusals_name_the_file_and_the_fix_and_charge_nothing(alpha, beta):
    design_id, terms = letter(alpha), upload_pdf(alpha, pdf_sources.reportlab_letterhead())
    image = alpha.data(upload(alpha, png()), 201)["ref"]
    theirs = upload_pdf(beta, pdf_sources.reportlab_letterhead())
    before = credits(alpha)
    cases = [
        ({"append": [{"ref": terms, "pages": "1-3"}]}, f"append[0].pages ({terms}): the PDF has 2 page(s)"),
        ({"prepend": [{"ref": terms, "pages": "0"}]}, "pages count from 1"),
        ({"append": [{"ref": terms, "pages": "2-"}]}, 'e.g. "1-3,5"'),
        ({"append": [{"ref": terms, "pages": "2-1"}]}, "write it as 1-2"),
        ({"append": [image]}, f"append[0].ref: {image} is an image"),
        ({"prepend": [terms, "uploads:upl_missing"]}, "prepend[1].ref: no uploads:upl_missing in this workspace"),
        ({"append": [theirs]}, f"no {theirs} in this workspace"),
        ({"append": ["terms.pdf"]}, "is not a ref"),
    ]
    for extra, fragment in cases:
        response = alpha.post(f"/designs/{design_id}/generate", json={"data": {"body": "x"}, **extra})
        assert fragment in alpha.error(response, 400, "VALIDATION_ERROR"), extra
    assert credits(alpha) == before


def test_accessible_refuses_an_untagged_pdf_and_takes_a_tagged_one_with_its_structure(alpha):
    design_id, untagged = letter(alpha), upload_pdf(alpha, pdf_sources.reportlab_letterhead())
    before = credits(alpha)
    body = {"data": {"body": "Dear Ada"}, "pdfProfile": "accessible", "append": [untagged]}
    message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
    assert f"append[0] ({untagged})" in message and "not tagged" in message and "upload a tagged PDF" in message
    assert credits(alpha) == before
    # One of ours in the accessible profile is a tagged PDF: added, its structure under ours.
    tagged_pdf = generated(alpha, design_id, {"data": {"body": "Our terms"}, "pdfProfile": "accessible"})
    tagged = upload_pdf(alpha, tagged_pdf)
    pdf = generated(alpha, design_id, {**body, "append": [tagged]})
    assert first_lines(pdf) == ["Dear Ada", "Our terms"]
    assert problems(pdf) == []
    ranged = {**body, "append": [{"ref": tagged, "pages": "1"}]}  # every page, so still whole
    assert first_lines(generated(alpha, design_id, ranged)) == ["Dear Ada", "Our terms"]


def test_pdf_a_takes_a_pdf_with_embedded_fonts_and_refuses_one_without(alpha):
    design_id = letter(alpha)
    embedded = upload_pdf(alpha, pdf_sources.reportlab_letterhead())
    bare = upload_pdf(alpha, pdf_sources.reportlab_letterhead(embedded=False))
    body = {"data": {"body": "Dear Ada"}, "pdfProfile": "pdf-a", "append": [{"ref": embedded, "pages": "2"}]}
    pdf = generated(alpha, design_id, body)
    assert first_lines(pdf) == ["Dear Ada", TERMS]
    assert pdf_a_violations(pdf) == []
    refused = {**body, "append": [bare]}
    message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=refused), 400, "VALIDATION_ERROR")
    assert f"append[0] ({bare}): page 1" in message and "Helvetica" in message and "embedded" in message


def test_a_batch_appends_to_every_row_and_merges_them_with_their_terms(alpha):
    design_id, terms = design(alpha), upload_pdf(alpha, pdf_sources.reportlab_letterhead())
    body = {"rows": rows(2), "append": [{"ref": terms, "pages": "2"}], "merge": True}
    job_id = alpha.data(alpha.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
    assert wait_for_end(alpha, job_id)["completed"] == 2
    archive = zip_of(alpha, job_id)
    for index in range(2):
        assert first_lines(archive.read(f"row-{index + 1:04d}.pdf")) == [f"Person {index}", TERMS]
    url = alpha.data(alpha.get(f"/batches/{job_id}/download", params={"merged": "true"}), 200)["downloadUrl"]
    assert first_lines(httpx.get(url).content) == ["Person 0", TERMS, "Person 1", TERMS]
    # Checked at submit as on generate: nothing is queued or charged.
    before = credits(alpha)
    refused = {**body, "append": [{"ref": terms, "pages": "3"}]}
    message = alpha.error(alpha.post(f"/designs/{design_id}/batch", json=refused), 400, "VALIDATION_ERROR")
    assert "append[0].pages" in message and credits(alpha) == before
