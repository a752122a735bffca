"""Generation, credits, previews and signed URLs over real HTTP (spec 4.11, 4.12; decisions.md)."""

import io
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from PIL import Image

from tests.pdf_probes import all_text

from ..conftest import add, png

# Uploads, generations and downloads with blobs in the data dir and in S3 (moto's server).
pytestmark = pytest.mark.parametrize("api_server", ["local", "s3"], indirect=True)

CERTIFICATE = [
    {
        "type": "add_element",
        "args": {
            "type": "text",
            "name": "recipient",
            "position": {"x": 60, "y": 60},
            "data": {"content": "Sample Name"},
            "styles": {"fontSize": 28},
        },
    },
    {
        "type": "add_element",
        "args": {
            "type": "table",
            "name": "rows",
            "position": {"x": 60, "y": 140},
            "data": {"cells": [["Item", "Qty"], ["a", "1"]], "width": 300},
        },
    },
    {
        "type": "add_element",
        "args": {"type": "image", "name": "photo", "position": {"x": 400, "y": 60, "w": 60, "h": 60}},
    },
    {"type": "bind_variable", "args": {"name": "recipient"}},
    {"type": "bind_variable", "args": {"name": "rows"}},
    {"type": "bind_variable", "args": {"name": "photo"}},
]


def design(client, name="Certificate of Excellence") -> str:
    design_id = client.data(client.post("/designs", json={"name": name}), 201)["designId"]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": CERTIFICATE}), 200)
    return design_id


def credits(client) -> int:
    return client.data(client.get("/me"), 200)["credits"]


def test_generate_renders_the_values_and_costs_one_credit(alpha):
    design_id = design(alpha)
    photo = alpha.data(alpha.post("/uploads", files={"file": ("p.png", png(), "image/png")}), 201)["ref"]
    before = credits(alpha)
    result = alpha.data(
        alpha.post(
            f"/designs/{design_id}/generate",
            json={
                "data": {
                    "recipient": "Grace Hopper",
                    "rows": [["Item", "Qty"], ["compiler", "1"], ["bug", "2"]],
                    "photo": photo,
                }
            },
        ),
        201,
    )
    # revision: extensions.md 16
    assert set(result) == {"generationId", "designId", "filename", "downloadUrl", "expiresIn", "status", "revision"}
    assert result["status"] == "completed" and result["expiresIn"] == 3600 and result["designId"] == design_id
    assert result["filename"] == "Certificate of Excellence.pdf"
    assert credits(alpha) == before - 1
    download = httpx.get(result["downloadUrl"])
    assert download.status_code == 200 and download.headers["Content-Type"] == "application/pdf"
    assert 'filename="Certificate of Excellence.pdf"' in download.headers["Content-Disposition"]
    text = all_text(download.content)
    assert "Grace Hopper" in text and "compiler" in text and "Sample Name" not in text


def test_unsupplied_variables_render_design_time_content(alpha):
    design_id = design(alpha)
    url = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={}), 201)["downloadUrl"]
    assert "Sample Name" in all_text(httpx.get(url).content)


def test_inline_data_image_values_are_dropped(alpha):
    design_id = design(alpha)
    before = credits(alpha)
    alpha.data(
        alpha.post(f"/designs/{design_id}/generate", json={"data": {"photo": "data:image/png;base64,iVBORw0KGgo="}}),
        201,
    )
    assert credits(alpha) == before - 1


@pytest.mark.parametrize(
    "body,fragment",
    [
        ({"data": {"nobody": "x"}}, "variable 'nobody'"),
        ({"data": {"recipient": 5}}, "variable 'recipient'"),
        ({"data": {"rows": [["a"]]}}, "variable 'rows'"),
        ({"data": {"photo": "uploads:upl_nope"}}, "variable 'photo'"),
        ({"pdfProfile": "fancy"}, "pdfProfile"),
        ({"data": "x"}, "data"),
        ({"values": {}}, "values"),
    ],
)
def test_bad_generation_requests_cost_nothing(alpha, body, fragment):
    design_id = design(alpha)
    before = credits(alpha)
    assert fragment in alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
    assert credits(alpha) == before


def test_generate_without_credits_is_402(api_server):
    with api_server.client(api_server.workspaces["broke"][1]) as broke:
        design_id = design(broke)
        message = broke.error(broke.post(f"/designs/{design_id}/generate", json={}), 402, "INSUFFICIENT_CREDITS")
        assert "has 0" in message and credits(broke) == 0


def test_concurrent_generates_never_spend_the_same_credit(api_server):
    key = api_server.workspaces["metered"][1]
    with api_server.client(key) as client:
        design_id = design(client)
        assert credits(client) == 10
    statuses: list[int] = []
    lock = threading.Lock()

    def generate() -> None:
        with api_server.client(key) as client:
            status = client.post(f"/designs/{design_id}/generate", json={"data": {"recipient": "x"}}).status_code
            with lock:
                statuses.append(status)

    threads = [threading.Thread(target=generate) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201] * 10 + [402] * 6
    with api_server.client(key) as client:
        assert credits(client) == 0


def test_preview_is_a_free_png_of_the_page(alpha):
    design_id = design(alpha)
    before = credits(alpha)
    preview = alpha.data(alpha.get(f"/designs/{design_id}/preview"), 200)
    assert preview["page"] == 0 and preview["expiresIn"] == 3600
    response = httpx.get(preview["previewUrl"])
    assert response.headers["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.size == (pytest.approx(794, abs=1), pytest.approx(1123, abs=1))
    assert credits(alpha) == before


def test_preview_of_a_missing_page_is_404(alpha):
    design_id = design(alpha)
    alpha.error(alpha.get(f"/designs/{design_id}/preview", params={"page": 3}), 404, "PAGE_NOT_FOUND")
    alpha.error(alpha.get(f"/designs/{design_id}/preview", params={"page": -1}), 400, "VALIDATION_ERROR")


def test_preview_follows_the_latest_tree(alpha):
    design_id = design(alpha)
    first = alpha.data(alpha.get(f"/designs/{design_id}/preview"), 200)["previewUrl"]
    alpha.data(
        alpha.patch(
            f"/designs/{design_id}/tree",
            json={"actions": [{"type": "set_page_background", "args": {"page": 0, "backgroundColor": "#000000"}}]},
        ),
        200,
    )
    second = alpha.data(alpha.get(f"/designs/{design_id}/preview"), 200)["previewUrl"]
    assert urlparse(first).path != urlparse(second).path


def test_tampered_signed_urls_are_refused(alpha):
    url = alpha.data(alpha.post(f"/designs/{design(alpha)}/generate", json={}), 201)["downloadUrl"]
    parts = urlparse(url)
    query = parse_qs(parts.query)
    base = f"{parts.scheme}://{parts.netloc}{parts.path}"
    cases = [
        f"{base}?expires={int(query['expires'][0]) + 100}&sig={query['sig'][0]}",
        f"{base}?expires={query['expires'][0]}&sig={'0' * 64}",
        f"{base}?expires={query['expires'][0]}",
        base.replace(parts.path.split("/")[2][:8], "00000000") + "?" + parts.query,
    ]
    for tampered in cases:
        response = httpx.get(tampered)
        assert response.status_code == 403 and response.json()["error"]["code"] == "URL_INVALID", tampered


def test_expired_signed_urls_are_refused(api_server):
    from api.blobs import UrlSigner

    signer = UrlSigner(Path(api_server.data_dir) / "url-secret", api_server.url)
    with api_server.client(api_server.workspaces["alpha"][1]) as client:
        url = client.data(client.post(f"/designs/{design(client)}/generate", json={}), 201)["downloadUrl"]
    key = urlparse(url).path.split("/")[2]
    expired = signer.url(key, 60, now=time.time() - 3600)
    response = httpx.get(expired)
    assert response.status_code == 403 and response.json()["error"]["code"] == "URL_EXPIRED"
    assert httpx.get(signer.url(key, 60)).status_code == 200


@pytest.mark.parametrize("profile,marker", [("accessible", "pdfuaid:part"), ("pdf-a", "pdfaid:part")])
def test_generate_with_a_pdf_profile_costs_the_same(alpha, profile, marker):
    import pikepdf

    design_id = design(alpha)
    before = credits(alpha)
    url = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={"pdfProfile": profile}), 201)["downloadUrl"]
    with pikepdf.open(io.BytesIO(httpx.get(url).content)) as pdf:
        assert pdf.Root.MarkInfo.Marked is True and "/StructTreeRoot" in pdf.Root
        with pdf.open_metadata() as meta:
            assert meta.get(marker) is not None
    assert credits(alpha) == before - 1


def test_a_design_name_in_any_script_downloads(alpha):
    design_id = design(alpha, name="日本語 certificate ✓")
    result = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={}), 201)
    response = httpx.get(result["downloadUrl"])
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
    assert "filename*=UTF-8''%E6%97%A5" in response.headers["Content-Disposition"]


def test_previews_of_huge_pages_are_bounded(alpha):
    design_id = alpha.data(alpha.post("/designs", json={"name": "poster", "width": 14400, "height": 14400}), 201)[
        "designId"
    ]
    url = alpha.data(alpha.get(f"/designs/{design_id}/preview"), 200)["previewUrl"]
    image = Image.open(io.BytesIO(httpx.get(url).content))
    assert image.size[0] * image.size[1] <= 16_000_000


def test_preview_follows_a_replaced_asset(alpha):
    asset = alpha.data(
        alpha.post("/assets", files={"file": ("a.png", png((255, 0, 0, 255), (40, 40)), "image/png")}), 201
    )
    design_id = alpha.data(alpha.post("/designs", json={"name": "swap"}), 201)["designId"]
    alpha.data(
        alpha.patch(
            f"/designs/{design_id}/tree",
            json={"actions": [add("image", "i", {"x": 0, "y": 0, "w": 200, "h": 200}, {"src": asset["ref"]})]},
        ),
        200,
    )

    def centre() -> tuple:
        url = alpha.data(alpha.get(f"/designs/{design_id}/preview"), 200)["previewUrl"]
        return Image.open(io.BytesIO(httpx.get(url).content)).convert("RGB").getpixel((130, 130))

    assert centre()[0] > 200
    alpha.data(
        alpha.put(
            f"/assets/{asset['id']}/content", files={"file": ("b.png", png((0, 0, 255, 255), (40, 40)), "image/png")}
        ),
        200,
    )
    assert centre()[2] > 200


@pytest.mark.parametrize("expires", ["²", "9" * 5000, "-5"])
def test_odd_expiry_values_are_refused_cleanly(api_server, expires):
    response = httpx.get(f"{api_server.url}/files/{'a' * 64}.pdf", params={"expires": expires, "sig": "x"})
    assert response.status_code == 403 and response.json()["error"]["code"] == "URL_INVALID"
