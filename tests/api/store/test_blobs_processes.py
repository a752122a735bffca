"""Blobs in S3 shared by real processes: two `docbench serve` with one bucket and one --secret,
and an RQ worker that has the bucket and nothing of the web process's data dir."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from urllib.parse import urlsplit

import httpx
import pytest

from api.blobs import open_blobs
from tests.pdf_probes import all_text

from ...conftest import s3_blob_url
from ...server import RedisServer, Server, Worker

SECRET = "the secret every process of this deployment shares"

DESIGN = [
    {
        "type": "add_element",
        "args": {"type": "text", "name": "name", "position": {"x": 40, "y": 40}, "data": {"content": "Sample"}},
    },
    {"type": "bind_variable", "args": {"name": "name"}},
]


def design(client) -> str:
    design_id = client.data(client.post("/designs", json={"name": "Badge"}), 201)["designId"]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": DESIGN}), 200)
    return design_id


def files_on_disk(directory) -> list[str]:
    return sorted(path.name for path in directory.rglob("*") if path.suffix in (".pdf", ".png", ".zip"))


def on(server: Server, url: str) -> str:
    """The same signed URL, asked of another server."""
    parts = urlsplit(url)
    return f"{server.url}{parts.path}?{parts.query}"


@pytest.fixture
def two_servers(tmp_path, s3_server):
    blob_url = s3_blob_url(s3_server, "shared")
    args = ("--blob-url", blob_url, "--secret", SECRET)
    first = Server(tmp_path / "one", args=args)
    second = Server(tmp_path / "two", args=args)
    for server in (first, second):
        server.data_dir.mkdir()
        server.start()
    try:
        yield first, second, blob_url
    finally:
        for server in (first, second):
            server.stop()


def test_a_url_signed_by_one_server_is_served_by_another(two_servers):
    first, second, blob_url = two_servers
    with first.client(first.read_key()) as client:
        design_id = design(client)
        url = client.data(client.post(f"/designs/{design_id}/generate", json={"data": {"name": "Ada"}}), 201)[
            "downloadUrl"
        ]
    here, there = httpx.get(url), httpx.get(on(second, url))
    assert here.status_code == 200 and there.status_code == 200, there.text
    assert there.content == here.content and "Ada" in all_text(there.content)
    for header in ("Content-Type", "Content-Length", "Content-Disposition"):
        assert there.headers.get(header) == here.headers.get(header), header
    assert there.headers["Content-Type"] == "application/pdf"
    assert int(there.headers["Content-Length"]) == len(there.content)
    # The PDF is in the bucket, not in either data dir.
    key = urlsplit(url).path.split("/")[2]
    assert open_blobs(blob_url).exists(key)
    assert files_on_disk(first.data_dir) == [] and files_on_disk(second.data_dir) == []
    # Tampered, it is refused by both.
    forged = on(second, url).replace("sig=", "sig=0")
    assert httpx.get(forged).json()["error"]["code"] == "URL_INVALID"


def test_a_batch_on_rq_whose_worker_has_only_the_bucket(tmp_path, s3_server):
    blob_url = s3_blob_url(s3_server, "batches")
    web_dir, worker_dir = tmp_path / "web", tmp_path / "worker"
    web_dir.mkdir()
    worker_dir.mkdir()
    redis = RedisServer(web_dir)
    server = Server(web_dir, args=("--redis-url", redis.url, "--blob-url", blob_url, "--secret", SECRET))
    worker = None
    try:
        server.start()
        # The worker is given Redis and the bucket: no --data-dir, nothing of the web's files.
        worker = Worker(redis.url, worker_dir, blob_url=blob_url)
        with server.client(server.read_key()) as client:
            design_id = design(client)
            rows = [{"name": f"Person {i}"} for i in range(5)]
            job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": rows}), 202)["jobId"]
            job = client.ended_batch(job_id)
            assert (job["status"], job["completed"], job["failed"]) == ("completed", 5, 0)
            url = client.data(client.get(f"/batches/{job_id}/download"), 200)["downloadUrl"]
        response = httpx.get(url)
        assert response.status_code == 200 and response.headers["Content-Type"] == "application/zip"
        assert int(response.headers["Content-Length"]) == len(response.content)
        archive = zipfile.ZipFile(io.BytesIO(response.content))
        assert sorted(archive.namelist()) == [f"row-{i:04d}.pdf" for i in range(1, 6)]
        for i in range(5):
            assert f"Person {i}" in all_text(archive.read(f"row-{i + 1:04d}.pdf"))
        # Every PDF and the ZIP went to the bucket; neither process wrote one to a directory.
        assert files_on_disk(web_dir) == [] and files_on_disk(worker_dir) == []
        stored = list(open_blobs(blob_url).keys())
        assert urlsplit(url).path.split("/")[2] in stored
        assert sum(key.endswith(".pdf") for key in stored) >= 5
    finally:
        if worker is not None:
            worker.stop()
        server.stop()
        redis.stop()


@pytest.mark.parametrize("api_server", ["s3"], indirect=True)
def test_the_s3_api_server_keeps_uploads_and_pdfs_in_the_bucket(api_server):
    from ...conftest import png

    with api_server.client(api_server.workspaces["alpha"][1]) as client:
        ref = client.data(client.post("/uploads", files={"file": ("p.png", png(), "image/png")}), 201)["ref"]
        url = client.data(client.post(f"/designs/{design(client)}/generate", json={"data": {"name": "Bo"}}), 201)[
            "downloadUrl"
        ]
    assert ref and "Bo" in all_text(httpx.get(url).content)
    stored = set(open_blobs(api_server.blob_url).keys())
    assert urlsplit(url).path.split("/")[2] in stored
    assert any(key.endswith(".png") for key in stored)
    assert not (api_server.data_dir / "blobs").exists()


@pytest.mark.parametrize("api_server", ["s3"], indirect=True)
def test_an_embedded_batch_writes_its_pdfs_and_zip_to_the_bucket(api_server):
    with api_server.client(api_server.workspaces["alpha"][1]) as client:
        design_id = design(client)
        rows = [{"name": f"Row {i}"} for i in range(3)]
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": rows}), 202)["jobId"]
        assert client.ended_batch(job_id)["completed"] == 3
        url = client.data(client.get(f"/batches/{job_id}/download"), 200)["downloadUrl"]
    archive = zipfile.ZipFile(io.BytesIO(httpx.get(url).content))
    assert [all_text(archive.read(f"row-{i + 1:04d}.pdf")).strip() for i in range(3)] == ["Row 0", "Row 1", "Row 2"]
    assert urlsplit(url).path.split("/")[2] in set(open_blobs(api_server.blob_url).keys())
    assert not (api_server.data_dir / "blobs").exists()


def test_a_server_with_an_unusable_bucket_refuses_to_start(tmp_path, s3_server):
    from ...server import ROOT

    for command in ("serve", "worker"):
        extra = ["--port", "0"] if command == "serve" else ["--redis-url", "redis://127.0.0.1:1/0"]
        result = subprocess.run(
            [sys.executable, "-m", "workbench.cli", command, *extra, "--blob-url", "s3://no-such-bucket/x"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "DOCBENCH_DATA_DIR": str(tmp_path / command)},
        )
        assert result.returncode == 2, result.stderr
        assert "s3://no-such-bucket/x" in result.stderr and "AWS_ENDPOINT_URL" in result.stderr, result.stderr


@pytest.mark.parametrize("api_server", ["local", "s3"], indirect=True)
def test_a_large_file_is_downloaded_in_chunks_with_its_length(api_server):
    """A blob of several chunks (a big batch ZIP) goes out whole, with Content-Length, from either store."""
    from pathlib import Path

    from api.blobs import CHUNK, UrlSigner

    data = os.urandom(3 * CHUNK + 12345)
    blobs = open_blobs(api_server.blob_url or str(api_server.data_dir / "blobs"))
    key = blobs.put_file(io.BytesIO(data), "application/zip")
    signer = UrlSigner(Path(api_server.data_dir) / "url-secret", api_server.url)
    with httpx.stream("GET", signer.url(key, 60, "batch.zip")) as response:
        assert response.status_code == 200
        assert response.headers["Content-Type"] == "application/zip"
        assert response.headers["Content-Length"] == str(len(data))
        assert "batch.zip" in response.headers["Content-Disposition"]
        assert response.read() == data


@pytest.mark.parametrize("api_server", ["s3"], indirect=True)
def test_a_spooled_asset_goes_to_the_bucket_from_its_spool_file(api_server, tmp_path):
    from tests.uploads import MB, MultipartFile, padded_pdf, send

    key = api_server.workspaces["alpha"][1]
    source = tmp_path / "cover.pdf"
    digest = padded_pdf(source, 6 * MB, 7)  # past 4 MB: spooled to disk as it arrives
    with api_server.client(key) as client:
        asset = client.data(send(api_server, key, MultipartFile(source), path="/assets"), 201)
        assert asset["fileSize"] == source.stat().st_size
        url = client.data(client.post(f"/designs/{design(client)}/generate", json={"prepend": [asset["ref"]]}), 201)
    assert f"{digest}.pdf" in set(open_blobs(api_server.blob_url).keys())
    assert open_blobs(api_server.blob_url).get(f"{digest}.pdf") == source.read_bytes()
    assert "Sample" in all_text(httpx.get(url["downloadUrl"]).content)
    assert not list((api_server.data_dir / "spool").glob("*"))
