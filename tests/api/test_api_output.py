"""Pictures of the pages instead of a PDF (extensions.md 12, `output`) over real HTTP: sizes,
ZIP names, formats, refusals, credits."""

from __future__ import annotations

import io
import zipfile

import httpx
from PIL import Image

A4 = (595.2756, 841.8898)  # points


def design(client, pages: int = 1, name: str = "Card") -> str:
    design_id = client.data(client.post("/designs", json={"name": name}), 201)["designId"]
    actions = [
        {
            "type": "add_element",
            "args": {"type": "text", "name": "who", "position": {"x": 40, "y": 40}, "data": {"content": "Ada"}},
        },
        {"type": "bind_variable", "args": {"name": "who"}},
        *[{"type": "add_page", "args": {}} for _ in range(pages - 1)],
    ]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    return design_id


def credits(client) -> int:
    return client.data(client.get("/me"), 200)["credits"]


def generated(client, design_id: str, body: dict) -> tuple[dict, httpx.Response]:
    generation = client.data(client.post(f"/designs/{design_id}/generate", json=body), 201)
    download = httpx.get(generation["downloadUrl"])
    assert download.status_code == 200
    return generation, download


def expected_size(dpi: int) -> tuple[int, int]:
    return round(A4[0] * dpi / 72), round(A4[1] * dpi / 72)


def assert_size(picture: Image.Image, dpi: int) -> None:
    width, height = expected_size(dpi)
    assert abs(picture.width - width) <= 1 and abs(picture.height - height) <= 1, (picture.size, (width, height))


def test_a_one_page_design_as_png_is_the_picture_at_the_dpi_for_one_credit(alpha):
    design_id = design(alpha, name="Social card")
    before = credits(alpha)
    generation, download = generated(alpha, design_id, {"data": {"who": "Grace"}, "output": {"format": "png"}})
    assert generation["filename"] == "Social card.png"
    assert download.headers["Content-Type"] == "image/png"
    picture = Image.open(io.BytesIO(download.content))
    assert picture.format == "PNG"
    assert_size(picture, 150)  # the default dpi
    assert credits(alpha) == before - 1


def test_a_three_page_design_as_png_is_a_zip_of_its_pages(alpha):
    design_id = design(alpha, pages=3, name="Report")
    before = credits(alpha)
    generation, download = generated(alpha, design_id, {"output": {"format": "png", "dpi": 300}})
    assert generation["filename"] == "Report.zip"
    assert download.headers["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(download.content))
    assert archive.namelist() == ["page-001.png", "page-002.png", "page-003.png"]
    for name in archive.namelist():
        assert_size(Image.open(io.BytesIO(archive.read(name))), 300)
    assert credits(alpha) == before - 1


def test_jpeg_output_is_a_jpeg_at_the_dpi(alpha):
    design_id = design(alpha)
    generation, download = generated(alpha, design_id, {"output": {"format": "jpeg", "dpi": 72}})
    assert generation["filename"].endswith(".jpg")
    assert download.headers["Content-Type"] == "image/jpeg"
    picture = Image.open(io.BytesIO(download.content))
    assert picture.format == "JPEG" and picture.mode == "RGB"
    assert_size(picture, 72)


def test_format_pdf_is_the_pdf_as_without_output(alpha):
    design_id = design(alpha)
    generation, download = generated(alpha, design_id, {"output": {"format": "pdf"}})
    assert generation["filename"].endswith(".pdf") and download.content.startswith(b"%PDF-")


def test_dpi_outside_72_to_600_is_refused_and_charges_nothing(alpha):
    design_id = design(alpha)
    before = credits(alpha)
    for dpi in (71, 601):
        body = {"output": {"format": "png", "dpi": dpi}}
        message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
        assert "output.dpi" in message, message
    message = alpha.error(
        alpha.post(f"/designs/{design_id}/generate", json={"output": {"format": "gif"}}), 400, "VALIDATION_ERROR"
    )
    assert "output.format" in message
    message = alpha.error(
        alpha.post(f"/designs/{design_id}/generate", json={"output": {"format": "png", "scale": 2}}),
        400,
        "VALIDATION_ERROR",
    )
    assert "scale" in message
    assert credits(alpha) == before


def test_a_picture_too_large_for_its_dpi_is_refused_naming_the_dpi_that_fits(alpha):
    design_id = alpha.data(alpha.post("/designs", json={"name": "Poster", "size": "A3"}), 201)["designId"]
    before = credits(alpha)
    body = {"output": {"format": "png", "dpi": 600}}
    message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
    assert "million pixels" in message and "use dpi 4" in message, message  # A3 fits at about 450 dpi
    assert credits(alpha) == before
    fits = int(message.split("use dpi ")[1].split()[0])
    generated(alpha, design_id, {"output": {"format": "jpeg", "dpi": fits}})  # the named fix works


def test_pictures_with_pdf_only_options_are_refused(alpha):
    design_id = design(alpha)
    before = credits(alpha)
    refused = [
        ({"pdfProfile": "pdf-a"}, 'pdfProfile "pdf-a"'),
        ({"pdfProfile": "accessible"}, 'pdfProfile "accessible"'),
        ({"encryption": {"ownerPassword": "o" * 12}}, "encryption"),
        ({"sign": True}, "sign"),
        ({"attachments": [{"name": "a.txt", "mimeType": "text/plain", "content": "aGk="}]}, "attachments"),
    ]
    for options, named in refused:
        body = {**options, "output": {"format": "png"}}
        message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
        assert named in message and 'format "pdf"' in message, message
    assert credits(alpha) == before
    # A watermark is drawn on the pages: pictures keep it.
    generated(alpha, design_id, {"output": {"format": "png", "dpi": 72}, "watermark": {"text": "DRAFT"}})


def test_another_workspace_cannot_generate_pictures_of_a_design(alpha, beta):
    design_id = design(alpha)
    beta.error(beta.post(f"/designs/{design_id}/generate", json={"output": {"format": "png"}}), 404, "DESIGN_NOT_FOUND")
