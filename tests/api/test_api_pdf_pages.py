"""PDFs in over real HTTP (extensions.md 12): PDF uploads and assets, designs made of a PDF
(basePdf), generation with a placed page, and the refusals."""

from __future__ import annotations

import io

import httpx
from PIL import Image

from tests import pdf_sources
from tests.pdf_probes import imported_form_fields, poppler_text, raster_images
from tests.uploads import upload

from ..conftest import png


def upload_pdf(client, data: bytes, name: str = "form.pdf") -> dict:
    return client.data(upload(client, data, name, "application/pdf"), 201)


def generated(client, design_id: str, body: dict) -> bytes:
    url = client.data(client.post(f"/designs/{design_id}/generate", json=body), 201)["downloadUrl"]
    return httpx.get(url).content


def test_a_pdf_upload_records_its_pages_and_page_one_size_and_is_stored_whole(alpha):
    data = pdf_sources.reportlab_form()
    record = upload_pdf(alpha, data)
    assert record["mimeType"] == "application/pdf" and record["fileSize"] == len(data)
    assert record["pages"] == 2 and record["dimensions"] == {"width": 595, "height": 842}
    thumbnail = httpx.get(record["thumbnailUrl"])
    assert thumbnail.headers["Content-Type"] == "image/png"
    assert Image.open(io.BytesIO(thumbnail.content)).size[1] == 256  # page 1, portrait


def test_a_pdf_asset_is_listed_and_read_with_its_pages(alpha):
    data = pdf_sources.reportlab_letterhead()
    asset = alpha.data(alpha.post("/assets", files={"file": ("letterhead.pdf", data, "application/pdf")}), 201)
    assert asset["pages"] == 2 and asset["mimeType"] == "application/pdf"
    assert alpha.data(alpha.get(f"/assets/{asset['id']}"), 200)["pages"] == 2
    listed = {item["id"]: item for item in alpha.data(alpha.get("/assets", params={"limit": 100}), 200)["items"]}
    assert listed[asset["id"]]["pages"] == 2


def test_an_image_upload_has_no_page_count(alpha):
    assert "pages" not in alpha.data(upload(alpha, png()), 201)


def test_an_encrypted_pdf_upload_is_refused_naming_the_fix(alpha):
    data = pdf_sources.encrypted(pdf_sources.reportlab_letterhead())
    message = alpha.error(upload(alpha, data, "locked.pdf", "application/pdf"), 400, "VALIDATION_ERROR")
    assert "encrypted" in message and "without a password" in message


def test_a_design_made_of_a_pdf_form_generates_with_its_fields_filled(alpha):
    ref = upload_pdf(alpha, pdf_sources.reportlab_form())["ref"]
    created = alpha.data(alpha.post("/designs", json={"name": "Application", "basePdf": {"ref": ref}}), 201)
    design_id = created["designId"]
    # A name PDF readers would take for a child field's is renamed, and the answer says so.
    assert created["importNotes"] == [
        "the field '2nd.city' (page 2) is the field '2nd_city' (a field's name holds no '.' and is unique)"
    ]
    tree = alpha.get(f"/designs/{design_id}/tree").json()  # the tree itself, not in an envelope
    assert [(p["width"], p["height"], p["backgroundImage"]) for p in tree["pages"]] == [
        (595, 842, ref),
        (612, 792, ref),
    ]
    variables = alpha.data(alpha.get(f"/designs/{design_id}/variables"), 200)["variables"]
    assert {v["name"] for v in variables} == {"full_name", "agree", "colour", "field_2nd_city"}
    assert {v["kind"] for v in variables} == {"field-value"}
    pdf = generated(alpha, design_id, {"data": {"full_name": "Grace Hopper", "field_2nd_city": "Rome"}})
    assert "Application form" in poppler_text(pdf)[0]
    fields = imported_form_fields(pdf)
    assert fields["full name"]["value"] == "Grace Hopper" and fields["2nd_city"]["value"] == "Rome"
    assert fields["full name"]["widgets"] == [(0, (150, 745, 450, 767), None)]  # at the field's widget
    assert raster_images(pdf) == 0 and raster_images(pdf, 1) == 0


def test_a_pdf_form_with_every_kind_of_field_comes_back_with_the_same_fields(alpha):
    source = pdf_sources.reportlab_every_field_form()
    ref = upload_pdf(alpha, source, "every.pdf")["ref"]
    created = alpha.data(alpha.post("/designs", json={"name": "Every field", "basePdf": {"ref": ref}}), 201)
    design_id = created["designId"]
    # What the import left out is said in the answer: the push button, among others.
    assert any("reset" in note and "push button" in note for note in created["importNotes"]), created
    nodes = alpha.get(f"/designs/{design_id}/tree").json()["nodes"].values()
    kinds = {node["name"]: node["data"]["fieldType"] for node in nodes if node["type"] == "field"}
    assert len(kinds) == len(list(nodes)) == 11 and "reset" not in kinds  # a push button is left out
    assert {kind for kind in kinds.values()} == {"text", "multiline", "checkbox", "radio", "select", "signature"}
    variables = alpha.data(alpha.get(f"/designs/{design_id}/variables"), 200)["variables"]
    assert {v["name"] for v in variables} == set(kinds) - {"signature"}
    data = {"applicant_name": "Grace Hopper", "newsletter": True, "size": "L", "country": "fr", "languages": "English"}
    fields = imported_form_fields(generated(alpha, design_id, {"data": data}))
    before = imported_form_fields(source)
    assert set(fields) == {name.replace(".", "_") for name in before} - {"reset"}
    assert {name: field["type"] for name, field in fields.items()} == {
        name.replace(".", "_"): field["type"] for name, field in before.items() if name != "reset"
    }
    assert fields["applicant_name"]["value"] == "Grace Hopper" and fields["newsletter"]["value"] == "Yes"
    assert fields["size"]["value"] == "L" and fields["country"]["value"] == "fr"
    assert fields["languages"]["value"] == "English" and fields["reference"]["value"] == "REF-42"
    assert fields["signature"]["widgets"] == [(0, (150, 300, 350, 340), None)]
    # A value the field refuses is refused at generation like any field's.
    message = alpha.error(
        alpha.post(f"/designs/{design_id}/generate", json={"data": {"size": "XL"}}), 400, "VALIDATION_ERROR"
    )
    assert "size" in message and "'S', 'M', 'L'" in message


def test_base_pdf_refusals_name_the_fix(alpha):
    image = alpha.data(upload(alpha, png()), 201)["ref"]
    pdf = upload_pdf(alpha, pdf_sources.reportlab_letterhead())["ref"]
    cases = [
        ({"ref": image}, "not a PDF"),
        ({"ref": "uploads:upl_missing"}, "upload the PDF first"),
        ({"ref": "letterhead.pdf"}, "not a ref"),
    ]
    for base, fragment in cases:
        body = {"name": "From a PDF", "basePdf": base}
        assert fragment in alpha.error(alpha.post("/designs", json=body), 400, "VALIDATION_ERROR")
    body = {"name": "From a PDF", "basePdf": {"ref": pdf}, "size": "A4"}
    assert "without size" in alpha.error(alpha.post("/designs", json=body), 400, "VALIDATION_ERROR")
    fields = upload_pdf(alpha, pdf_sources.many_fields_form(501))["ref"]
    body = {"name": "Too many", "basePdf": {"ref": fields}}
    assert "501 form fields; at most 500" in alpha.error(alpha.post("/designs", json=body), 400, "VALIDATION_ERROR")


def test_a_letterhead_background_in_generate_preview_and_the_pdf_a_refusal(alpha):
    embedded = upload_pdf(alpha, pdf_sources.reportlab_letterhead())["ref"]
    design_id = alpha.data(alpha.post("/designs", json={"name": "Letter"}), 201)["designId"]
    actions = [
        {"type": "set_page_background", "args": {"page": 0, "backgroundImage": embedded}},
        {"type": "add_element", "args": {"type": "text", "name": "body", "position": {"x": 60, "y": 300}}},
        {"type": "bind_variable", "args": {"name": "body"}},
    ]
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    pdf = generated(alpha, design_id, {"data": {"body": "Dear Ada"}, "pdfProfile": "pdf-a"})
    assert "Northwind Letterhead" in poppler_text(pdf)[0] and "Dear Ada" in poppler_text(pdf)[0]
    preview = alpha.data(alpha.get(f"/designs/{design_id}/preview", params={"page": 0}), 200)
    picture = Image.open(io.BytesIO(httpx.get(preview["previewUrl"]).content)).convert("RGB")
    red, green, blue = picture.getpixel((picture.width // 2, round(picture.height * (1 - 38 / 842))))
    assert blue > 150 and red < 80  # the letterhead's band, drawn from the placed page
    # A letterhead whose fonts are not embedded cannot go into a PDF/A document.
    bare = upload_pdf(alpha, pdf_sources.reportlab_letterhead(embedded=False))["ref"]
    swap = [{"type": "set_page_background", "args": {"page": 0, "backgroundImage": bare}}]
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": swap}), 200)
    message = alpha.error(
        alpha.post(f"/designs/{design_id}/generate", json={"pdfProfile": "pdf-a"}), 400, "VALIDATION_ERROR"
    )
    assert "page 1 of " + bare in message and "Helvetica" in message and "embedded" in message
