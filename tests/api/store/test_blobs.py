"""The blob interface over both back-ends: the data dir's files and S3 (moto's standalone server)."""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

import pytest

from api.blobs import CHUNK, BlobNotFound, LocalBlobs, S3Blobs, UrlSigner, open_blobs
from api.errors import ApiError
from api.jobs.runner import RowResult, assemble_zip

from ...conftest import s3_blob_url
from ...small_disk import small_disk

PDF_BYTES = b"%PDF-1.7\n" + b"x" * 1000


@pytest.fixture(params=["local", "s3"])
def blobs(request, tmp_path):
    if request.param == "local":
        return LocalBlobs(tmp_path / "blobs")
    return S3Blobs(s3_blob_url(request.getfixturevalue("s3_server"), "unit"))


class CountingReader(io.RawIOBase):
    """A seekable file that records how much each read asked for (how the store reads it)."""

    def __init__(self, data: bytes):
        self._data = io.BytesIO(data)
        self.reads: list[int] = []

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        self.reads.append(size)
        return self._data.read(size)

    def readinto(self, buffer) -> int:  # noqa: ANN001
        chunk = self.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._data.seek(offset, whence)

    def tell(self) -> int:
        return self._data.tell()


def test_put_get_exists_and_stream(blobs):
    key = blobs.put(PDF_BYTES, "application/pdf")
    assert key == hashlib.sha256(PDF_BYTES).hexdigest() + ".pdf"
    assert blobs.exists(key)
    assert blobs.get(key) == PDF_BYTES
    with blobs.stream(key, chunk_size=300) as stream:
        assert stream.size == len(PDF_BYTES)
        chunks = list(stream)
    assert b"".join(chunks) == PDF_BYTES
    assert len(chunks) == 4 and all(len(c) <= 300 for c in chunks)


def test_the_same_bytes_are_stored_once(blobs):
    first = blobs.put(PDF_BYTES, "application/pdf")
    second = blobs.put_file(io.BytesIO(PDF_BYTES), "application/pdf")
    assert first == second
    assert list(blobs.keys()) == [first]


def test_missing_and_malformed_keys(blobs):
    missing = "0" * 64 + ".png"
    assert not blobs.exists(missing)
    with pytest.raises(BlobNotFound):
        blobs.get(missing)
    with pytest.raises(BlobNotFound):
        blobs.stream(missing)
    with pytest.raises(ValueError):
        blobs.get("../../etc/passwd")
    with pytest.raises(ValueError):
        blobs.exists("x.pdf")


def test_delete_and_keys(blobs):
    keys = {blobs.put(bytes([n]) * 10, "image/png") for n in range(3)}
    assert set(blobs.keys()) == keys
    gone = keys.pop()
    blobs.delete(gone)
    blobs.delete(gone)  # already gone: no error
    assert not blobs.exists(gone)
    assert set(blobs.keys()) == keys


def test_a_large_object_is_written_and_read_in_chunks(blobs):
    data = os.urandom(20 * 1024 * 1024)
    source = CountingReader(data)
    key = blobs.put_file(source, "application/zip")
    assert key == hashlib.sha256(data).hexdigest() + ".zip"
    # Read from the file a bounded piece at a time (boto3 uploads 8 MiB parts), never whole.
    assert source.reads and all(0 < size <= 8 * 1024 * 1024 for size in source.reads)
    if isinstance(blobs, S3Blobs):
        head = blobs.client.head_object(Bucket=blobs.bucket, Key=blobs.name(key))
        assert head["ContentLength"] == len(data)
        assert "-" in head["ETag"], "a 20 MB object goes up as a multipart upload"
        assert head["ContentType"] == "application/zip"
    digest = hashlib.sha256()
    sizes = []
    with blobs.stream(key) as stream:
        assert stream.size == len(data)
        for chunk in stream:
            sizes.append(len(chunk))
            digest.update(chunk)
    assert digest.hexdigest() == key.split(".")[0]
    assert sum(sizes) == len(data) and max(sizes) <= CHUNK and len(sizes) >= 20


def test_a_spooled_upload_is_stored_from_its_path_under_the_hash_counted_on_the_way(blobs, tmp_path):
    data = os.urandom(20 * 1024 * 1024)
    spooled = tmp_path / "upload-spooled"
    spooled.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    key = blobs.put_path(spooled, "application/pdf", digest, durable=True)
    assert key == digest + ".pdf" and blobs.get(key) == data
    if isinstance(blobs, S3Blobs):
        head = blobs.client.head_object(Bucket=blobs.bucket, Key=blobs.name(key))
        assert "-" in head["ETag"], "a 20 MB file goes up as a multipart upload"
        assert head["ContentType"] == "application/pdf"
    else:
        assert not list(blobs.root.glob("*/.tmp-*")), "no temporary file is left beside the blobs"
    # Stored once: the same bytes again leave the blob as it is.
    assert blobs.put_path(spooled, "application/pdf", digest) == key
    assert sorted(blobs.keys()) == [key]


def test_a_batch_zip_is_assembled_in_the_store(blobs):
    pdfs = [b"%PDF-1.7\n" + f"row {n}\n".encode() * 500 for n in range(3)]
    results = [RowResult(index=n, ok=True, blob_key=blobs.put(pdf, "application/pdf")) for n, pdf in enumerate(pdfs)]
    results.append(RowResult(index=3, ok=False, error="no image"))
    key = assemble_zip(blobs.location, results)
    assert key.endswith(".zip") and blobs.exists(key)
    archive = zipfile.ZipFile(io.BytesIO(blobs.get(key)))
    assert archive.namelist() == ["row-0001.pdf", "row-0002.pdf", "row-0003.pdf", "errors.json"]
    assert [archive.read(f"row-{n + 1:04d}.pdf") for n in range(3)] == pdfs
    assert "no image" in archive.read("errors.json").decode()


def test_open_blobs_picks_the_back_end_from_the_location(tmp_path, s3_server):
    local = open_blobs(str(tmp_path / "here"))
    assert isinstance(local, LocalBlobs) and local.root == tmp_path / "here" and not local.remote
    remote = open_blobs(f"s3://{s3_server.bucket}/some/prefix/")
    assert isinstance(remote, S3Blobs) and remote.remote
    assert (remote.bucket, remote.prefix, remote.location) == (
        s3_server.bucket,
        "some/prefix",
        "s3://docbench-test/some/prefix",
    )
    assert open_blobs(remote.location) is open_blobs(remote.location)  # one client per process
    key = remote.put(b"<svg/>", "image/svg+xml")
    assert remote.name(key) == f"some/prefix/{key}"
    with pytest.raises(ValueError, match="s3://bucket/prefix"):
        open_blobs("gs://bucket/prefix")


def test_settings_pick_the_blob_location(tmp_path, monkeypatch):
    from api.settings import Settings

    monkeypatch.delenv("DOCBENCH_BLOB_URL", raising=False)
    monkeypatch.delenv("DOCBENCH_SECRET", raising=False)
    settings = Settings(data_dir=tmp_path)
    assert (settings.blob_location, settings.secret) == (str(tmp_path / "blobs"), None)
    monkeypatch.setenv("DOCBENCH_BLOB_URL", "s3://b/p")
    monkeypatch.setenv("DOCBENCH_SECRET", "shared")
    settings = Settings(data_dir=tmp_path)
    assert (settings.blob_location, settings.secret) == ("s3://b/p", "shared")


def test_a_url_signed_with_the_shared_secret_verifies_anywhere_with_it(tmp_path):
    one = UrlSigner("a shared secret", "http://one.example")
    other = UrlSigner("a shared secret", "http://other.example")
    stranger = UrlSigner("another secret", "http://one.example")
    key = "a" * 64 + ".pdf"
    url = one.url(key, 60, "Invoice 7.pdf")
    path, query = url.split("/files/", 1)[1].split("?")
    params = dict(part.split("=") for part in query.split("&"))
    signed_path = f"{key}/Invoice 7.pdf"
    assert other.verify(signed_path, params["expires"], params["sig"]) == key
    with pytest.raises(ApiError) as refused:
        stranger.verify(signed_path, params["expires"], params["sig"])
    assert refused.value.code == "URL_INVALID"
    # One process without --secret keeps the data dir's secret file, as before.
    file_signer = UrlSigner(Path(tmp_path / "url-secret"), "http://one.example")
    assert (tmp_path / "url-secret").exists()
    with pytest.raises(ApiError):
        file_signer.verify(signed_path, params["expires"], params["sig"])


def test_refs_name_blobs_for_every_process_on_the_store(blobs):
    key = blobs.put(b"\x89PNG picture", "image/png")
    name = hashlib.sha256(b"what the picture is drawn from").hexdigest()
    assert blobs.get_ref(name) is None
    blobs.put_ref(name, key)
    assert blobs.get_ref(name) == key
    assert open_blobs(blobs.location).get_ref(name) == key  # another opening of the same store
    assert list(blobs.keys()) == [key]  # a ref is not a blob
    with pytest.raises(ValueError):
        blobs.put_ref("../escape", key)


@pytest.mark.parametrize("where", ["local", "s3"])
def test_a_preview_drawn_by_one_process_is_found_by_the_next(where, tmp_path, request):
    """Previews are shared through the blobs: a restarted (or another) web process with the same
    blobs and database answers a page it has never drawn without drawing it."""
    from api.service import Service, Settings
    from workbench.client.api import LocalClient

    from ...conftest import add

    blob_url = s3_blob_url(request.getfixturevalue("s3_server"), "previews") if where == "s3" else None
    settings = Settings(data_dir=tmp_path, blob_url=blob_url, render_processes=1)

    def preview(service: Service, workspace_id: str, design_id: str) -> tuple[str, int]:
        client = LocalClient(service, workspace_id)
        before = service.renderers.tasks["render_png"]
        url = client.call("preview_page", {"designId": design_id}, query={"page": 0})["previewUrl"]
        return url.split("/files/")[1].split("?")[0], service.renderers.tasks["render_png"] - before

    first = Service(settings)
    try:
        workspace, _ = first.accounts.create_workspace("previews", "pro", 5)
        client = LocalClient(first, workspace.id)
        design_id = client.call("create_design", body={"name": "Shared"})["designId"]
        client.call(
            "patch_design_tree",
            {"designId": design_id},
            {"actions": [add("text", "Hello", {"x": 40, "y": 40}, {"content": "Hello"})]},
        )
        key, rendered = preview(first, workspace.id, design_id)
        assert rendered == 1
    finally:
        first.close()
    second = Service(settings)
    try:
        assert preview(second, workspace.id, design_id) == (key, 0)
        assert second.blobs.exists(key)
    finally:
        second.close()


@pytest.mark.parametrize("how", ["put", "put_path"])
def test_a_full_disk_is_a_503_that_leaves_no_temporary_file(how, tmp_path):
    data = os.urandom(2 * 1024 * 1024)
    spooled = tmp_path / "upload-spooled"  # off the small disk, as the spool may be
    spooled.write_bytes(data)
    with small_disk(tmp_path / "disk", "1m") as disk:
        blobs = LocalBlobs(disk / "blobs")
        for durable in (False, True):
            with pytest.raises(ApiError) as refused:
                if how == "put":
                    blobs.put(data, "application/pdf", durable=durable)
                else:
                    blobs.put_path(spooled, "application/pdf", hashlib.sha256(data).hexdigest(), durable=durable)
            assert refused.value.code == "SERVICE_UNAVAILABLE" and refused.value.status == 503
            assert refused.value.message.startswith("the server's disk is full")
            assert [path.name for path in blobs.root.rglob("*") if path.is_file()] == []
