"""Uploads and assets over real HTTP (spec 2.6, 2.7, 4.9, 4.10; decisions "Uploads")."""

import httpx
import pytest

from tests.uploads import upload

from ..conftest import add, png

# Uploads, generations and downloads with blobs in the data dir and in S3 (moto's server).
pytestmark = pytest.mark.parametrize("api_server", ["local", "s3"], indirect=True)

SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60">'
    b'<rect width="120" height="60" fill="#1f4e8c"/></svg>'
)


@pytest.mark.parametrize(
    "data,mime,size",
    [
        (png(size=(80, 40)), "image/png", (80, 40)),
        (png(size=(30, 20), fmt="JPEG"), "image/jpeg", (30, 20)),
        (png(size=(25, 15), fmt="WEBP"), "image/webp", (25, 15)),
        (SVG, "image/svg+xml", None),
    ],
)
def test_upload_each_accepted_type(alpha, data, mime, size):
    record = alpha.data(upload(alpha, data, "logo.bin", "application/octet-stream"), 201)
    assert set(record) == {"uploadId", "ref", "name", "mimeType", "fileSize", "dimensions", "thumbnailUrl", "createdAt"}
    assert record["ref"] == f"uploads:{record['uploadId']}" and record["mimeType"] == mime
    assert record["fileSize"] == len(data) and record["name"] == "logo.bin"
    if size:
        assert (record["dimensions"]["width"], record["dimensions"]["height"]) == size
    else:  # the SVG is rasterised; its PNG keeps the aspect ratio
        dims = record["dimensions"]
        assert dims["width"] == 2 * dims["height"]
    thumb = httpx.get(record["thumbnailUrl"])
    assert thumb.status_code == 200 and thumb.headers["Content-Type"] == "image/png"


def test_type_is_sniffed_from_the_bytes_not_the_name_or_header(alpha):
    record = alpha.data(upload(alpha, png(), "photo.jpg", "image/jpeg", name="My logo"), 201)
    assert record["mimeType"] == "image/png" and record["name"] == "My logo"


@pytest.mark.parametrize(
    "data,fragment",
    [
        (b"GIF89a" + b"\0" * 100, "PNG, JPEG, WebP"),
        (b"%PDF-1.4 not an image", "the PDF could not be read"),
        (b"\x89PNG\r\n\x1a\n" + b"garbage" * 10, ""),
        (b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>', "blank"),
        (b"", ""),
    ],
)
def test_unacceptable_uploads_are_refused(alpha, data, fragment):
    assert fragment in alpha.error(upload(alpha, data), 400, "VALIDATION_ERROR")


def test_upload_over_1_mb_is_refused(alpha):
    big = png(size=(1, 1)) + b"\0" * (1024 * 1024 + 1)
    assert "1 MB" in alpha.error(upload(alpha, big), 400, "VALIDATION_ERROR")


def test_upload_without_a_file_is_refused(alpha):
    message = alpha.error(alpha.post("/uploads", files={"other": ("x", b"y")}), 400, "VALIDATION_ERROR")
    assert "file" in message


@pytest.mark.parametrize(
    "svg",
    [
        b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b'<svg xmlns="http://www.w3.org/2000/svg" width="50" height="50"><text y="20">&x;</text></svg>',
        b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="50" height="50">'
        b'<image xlink:href="file:///etc/passwd" width="50" height="50"/></svg>',
    ],
)
def test_hostile_svgs_do_not_read_files(alpha, svg):
    response = upload(alpha, svg, "evil.svg", "image/svg+xml")
    assert "root:" not in response.text and "/etc/passwd" not in response.text
    assert response.status_code in (201, 400)
    if response.status_code == 400:
        alpha.error(response, 400, "VALIDATION_ERROR")


def test_huge_svg_dimensions_are_bounded(alpha):
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000">'
        b'<rect width="100000" height="100000" fill="#ff0000"/></svg>'
    )
    record = alpha.data(upload(alpha, svg, "huge.svg"), 201)
    assert max(record["dimensions"].values()) <= 4096


def test_assets_create_get_list_and_replace_keeps_the_ref(alpha):
    asset = alpha.data(alpha.post("/assets", files={"file": ("bg.png", png(size=(60, 60)), "image/png")}), 201)
    assert set(asset) == {
        "id",
        "ref",
        "name",
        "mimeType",
        "fileSize",
        "dimensions",
        "thumbnailUrl",
        "isPlaceholder",
        "createdAt",
    }
    assert asset["ref"] == f"assets:{asset['id']}" and asset["isPlaceholder"] is False
    assert alpha.data(alpha.get(f"/assets/{asset['id']}"), 200)["ref"] == asset["ref"]
    replaced = alpha.data(
        alpha.put(
            f"/assets/{asset['id']}/content", files={"file": ("new.jpg", png(size=(90, 30), fmt="JPEG"), "image/jpeg")}
        ),
        200,
    )
    assert replaced["ref"] == asset["ref"] and replaced["mimeType"] == "image/jpeg"
    assert replaced["dimensions"] == {"width": 90, "height": 30}


def test_placeholder_defaults_and_limits(alpha):
    asset = alpha.data(alpha.post("/assets/placeholder", json={"name": "Hero image"}), 201)
    assert asset["isPlaceholder"] is True and asset["dimensions"] == {"width": 400, "height": 300}
    sized = alpha.data(
        alpha.post("/assets/placeholder", json={"name": "x", "label": "Logo", "width": 16, "height": 2000}), 201
    )
    assert sized["dimensions"] == {"width": 16, "height": 2000}
    for body in (
        {"name": "x", "width": 15},
        {"name": "x", "height": 2001},
        {"name": "x", "label": "l" * 41},
        {"label": "no name"},
        {"name": "x", "colour": "red"},
    ):
        alpha.error(alpha.post("/assets/placeholder", json=body), 400, "VALIDATION_ERROR")
    replaced = alpha.data(
        alpha.put(f"/assets/{asset['id']}/content", files={"file": ("real.png", png(), "image/png")}), 200
    )
    assert replaced["isPlaceholder"] is False and replaced["ref"] == asset["ref"]


def test_asset_over_10_mb_is_refused(alpha):
    big = png(size=(1, 1)) + b"\0" * (10 * 1024 * 1024 + 1)
    assert "10 MB" in alpha.error(
        alpha.post("/assets", files={"file": ("big.png", big, "image/png")}), 400, "VALIDATION_ERROR"
    )


def test_assets_are_private_to_their_workspace(alpha, beta):
    asset = alpha.data(alpha.post("/assets/placeholder", json={"name": "private"}), 201)
    for response in (
        beta.get(f"/assets/{asset['id']}"),
        beta.put(f"/assets/{asset['id']}/content", files={"file": ("x.png", png(), "image/png")}),
    ):
        beta.error(response, 404, "ASSET_NOT_FOUND")
    assert asset["id"] not in {a["id"] for a in beta.data(beta.get("/assets", params={"limit": 200}), 200)["items"]}
    alpha.error(alpha.get("/assets/ast_unknown"), 404, "ASSET_NOT_FOUND")


def test_uploads_of_another_workspace_cannot_be_used(alpha, beta):
    ref = alpha.data(upload(alpha, png()), 201)["ref"]
    design_id = beta.data(beta.post("/designs", json={"name": "b"}), 201)["designId"]
    image = add("image", "i", {"x": 0, "y": 0, "w": 9, "h": 9}, {"src": ref})
    message = beta.error(beta.patch(f"/designs/{design_id}/tree", json={"actions": [image]}), 400, "VALIDATION_ERROR")
    assert ref in message


def test_asset_pagination_walks_every_asset_once(api_server):
    with api_server.client(api_server.workspaces["starter"][1]) as client:
        made = [client.data(client.post("/assets/placeholder", json={"name": f"p{i}"}), 201)["id"] for i in range(9)]
        seen, cursor = [], None
        while True:
            page = client.data(
                client.get("/assets", params={"limit": 4, **({"cursor": cursor} if cursor else {})}), 200
            )
            seen += [a["id"] for a in page["items"]]
            cursor = page["nextCursor"]
            if not cursor:
                break
        assert len(seen) == len(set(seen)) and [a for a in seen if a in set(made)] == made[::-1]
