"""Hostile PDFs over real HTTP (issue 48): what another PDF's pages bring is kept only as far as
engine.media.foreign_pages allows (appended, prepended and placed pages, in every profile, in
merged batches and signed documents); PDFs that would loop, fail or exhaust a render process
later are refused at upload with a 400 naming the fix."""

from __future__ import annotations

import io
import subprocess
import sys
import time

import httpx
import pikepdf
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from tests import pdf_sources
from tests.batch_jobs import design, rows, wait_for_end, zip_of
from tests.pdf_probes import active_content, link_targets, pdf_a_violations
from tests.signing_pki import PASSWORD, Pki
from tests.uploads import upload

from ..conftest import add

PROFILES = ("standard", "pdf-a", "accessible")  # engine.render.document.Profile
GOOD = set(pdf_sources.HOSTILE_GOOD_LINKS)


def upload_pdf(client, data: bytes, name: str = "hostile.pdf") -> str:
    return client.data(upload(client, data, name, "application/pdf"), 201)["ref"]


def letter(client, *extra: dict) -> str:
    design_id = client.data(client.post("/designs", json={"name": "Letter"}), 201)["designId"]
    actions = [add("text", "body", {"x": 60, "y": 300}, {"content": "Dear Ada"}), *extra]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    return design_id


def generated(client, design_id: str, body: dict) -> bytes:
    url = client.data(client.post(f"/designs/{design_id}/generate", json=body), 201)["downloadUrl"]
    return httpx.get(url).content


def assert_kept_only_the_good_links(pdf: bytes, first_added: int) -> None:
    """Nothing active anywhere in the file; the hostile PDF's page 1 (at index `first_added`)
    keeps its https and mailto links and its link to its page 2 (the next page here)."""
    assert active_content(pdf) == []
    kept = [target for page, target in link_targets(pdf) if page == first_added]
    assert sorted(kept) == sorted([*GOOD, f"page {first_added + 1}"])


@pytest.mark.parametrize("profile", PROFILES)
def test_appended_and_prepended_pages_keep_no_active_content_in_any_profile(alpha, profile):
    design_id, hostile = letter(alpha), upload_pdf(alpha, pdf_sources.hostile_pdf())
    body = {"pdfProfile": profile, "append": [hostile]}
    pdf = generated(alpha, design_id, body)
    assert_kept_only_the_good_links(pdf, 1)
    if profile == "pdf-a":
        assert pdf_a_violations(pdf) == []
    if profile != "accessible":  # which adds a tagged PDF whole only
        pdf = generated(alpha, design_id, {**body, "prepend": [{"ref": hostile, "pages": "1"}]})
        assert active_content(pdf) == []
        # Its link to page 2 is dropped where page 2 is not added with it.
        assert sorted(target for page, target in link_targets(pdf) if page == 0) == sorted(GOOD)


def test_pdf_a_refuses_an_annotation_it_cannot_make_conformant_naming_the_page(alpha):
    design_id, hostile = letter(alpha), upload_pdf(alpha, pdf_sources.hostile_pdf(note_appearance=False))
    body = {"pdfProfile": "pdf-a", "append": [hostile]}
    message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
    assert f"append[0] ({hostile}): page 1" in message and "Text annotation without an appearance" in message
    assert 'pdfProfile "standard"' in message
    assert active_content(generated(alpha, design_id, {"append": [hostile]})) == []


def test_a_placed_page_keeps_no_active_content(alpha):
    hostile = upload_pdf(alpha, pdf_sources.hostile_pdf())
    background = {"type": "set_page_background", "args": {"page": 0, "backgroundImage": hostile}}
    design_id = letter(alpha, background)
    for profile in PROFILES:
        assert active_content(generated(alpha, design_id, {"pdfProfile": profile})) == [], profile


def test_a_merged_batch_keeps_no_active_content_of_its_added_pages(alpha):
    design_id, hostile = design(alpha), upload_pdf(alpha, pdf_sources.hostile_pdf())
    body = {"rows": rows(2), "append": [hostile], "merge": True}
    job_id = alpha.data(alpha.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
    assert wait_for_end(alpha, job_id)["completed"] == 2
    archive = zip_of(alpha, job_id)
    for index in range(2):
        assert_kept_only_the_good_links(archive.read(f"row-{index + 1:04d}.pdf"), 1)
    url = alpha.data(alpha.get(f"/batches/{job_id}/download", params={"merged": "true"}), 200)["downloadUrl"]
    merged = httpx.get(url).content
    assert active_content(merged) == []
    assert sorted(target for page, target in link_targets(merged) if page == 4) == sorted([*GOOD, "page 5"])


def test_a_signed_pdf_keeps_no_active_content_of_its_added_pages(alpha):
    pki = Pki.make()
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    p12 = pki.pkcs12(key, pki.issue(key))
    certificate = {"file": ("signer.p12", p12, "application/x-pkcs12")}
    alpha.data(alpha.put("/signing-certificate", files=certificate, data={"password": PASSWORD}), 200)
    try:
        design_id, hostile = letter(alpha), upload_pdf(alpha, pdf_sources.hostile_pdf())
        signed = generated(alpha, design_id, {"append": [hostile], "sign": True})
    finally:
        alpha.data(alpha.delete("/signing-certificate"), 200)
    assert b"/ByteRange" in signed
    assert_kept_only_the_good_links(signed, 1)  # the signature's widget is a field of the form


# --- Refused at upload --------------------------------------------------------------------------


def test_a_form_that_draws_itself_is_refused_at_upload_at_once(alpha):
    """Issue 48: an 850-byte PDF held every render process for 60 s; now its upload is a 400."""
    started = time.monotonic()
    response = upload(alpha, pdf_sources.cyclic_form_pdf(), "loop.pdf", "application/pdf")
    message = alpha.error(response, 400, "VALIDATION_ERROR")
    assert time.monotonic() - started < 5
    assert "page 1" in message and "inside itself" in message and "re-export the PDF" in message


def test_a_form_whose_resources_name_itself_without_drawing_it_is_placed(alpha):
    shared = upload_pdf(alpha, pdf_sources.cyclic_form_pdf(draws_itself=False))
    background = {"type": "set_page_background", "args": {"page": 0, "backgroundImage": shared}}
    design_id = letter(alpha, background)
    for profile in PROFILES:
        assert generated(alpha, design_id, {"pdfProfile": profile}).startswith(b"%PDF")


def test_the_engine_ends_its_walk_of_resources_that_name_their_own_form():
    """engine.media.pdf_pages's resource walk (pdf-a and accessible check every appended page
    with it), in a process of its own: without the fix it never returns."""
    script = (
        "import io, pikepdf, sys; from tests import pdf_sources; from engine.media.pdf_pages import conformance; "
        "pdf = pikepdf.open(io.BytesIO(pdf_sources.cyclic_form_pdf())); print(conformance(pdf.pages[0]))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "((), (), ())"


def non_utf8_key_pdf() -> bytes:
    """A page whose font dictionary has a key of bytes that are not UTF-8 (as fuzzed files do)."""
    document = pikepdf.new()
    document.add_blank_page(page_size=(200, 200))
    font = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)
    page = document.pages[0]
    page.obj.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=document.make_indirect(font)))
    page.obj.Contents = document.make_stream(b"BT /F1 24 Tf 20 100 Td (Fuzzed) Tj ET")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue().replace(b"/BaseFont /Helvetica", b"/BaseFont /Helvetica /#ff#fe 1")


def test_a_pdf_with_a_key_that_is_not_text_is_placed_not_a_500(alpha):
    data = non_utf8_key_pdf()
    with pikepdf.open(io.BytesIO(data)) as check:  # the key is there, as pikepdf gives it
        assert "/\udcff\udcfe" in check.pages[0].Resources.Font.F1.keys()
    fuzzed = upload_pdf(alpha, data)
    background = {"type": "set_page_background", "args": {"page": 0, "backgroundImage": fuzzed}}
    design_id = letter(alpha, background)
    assert generated(alpha, design_id, {}).startswith(b"%PDF")


@pytest.mark.parametrize(
    ("chain", "image"),
    [
        (("FlateDecode",), False),
        (("ASCIIHexDecode", "FlateDecode"), False),  # the review's: 597 KB passed the check
        (("LZWDecode",), False),
        (("FlateDecode",), True),  # a page's content that says it is an image
    ],
    ids=["Flate", "ASCIIHex+Flate", "LZW", "Flate-as-image"],
)
def test_a_pdf_decompression_bomb_is_a_400_naming_the_limit(alpha, chain, image):
    # 300 MB of spaces in one content stream, under 1 MB compressed: PDFium aborted its process
    # on 1 GB of them, and the upload answered 503 "send the request again".
    data = pdf_sources.bomb_pdf(chain, image=image)
    assert len(data) < 1024 * 1024
    message = alpha.error(upload(alpha, data, "bomb.pdf", "application/pdf"), 400, "VALIDATION_ERROR")
    assert "decompresses to more than 256 MB" in message and "at most 256 MB" in message
