"""A batch's document passwords (extensions.md 9, `encryption`) are sealed with the servers'
secret while the batch waits and runs (issue 31, 6f): neither the job's row in the real
database nor anything in the real Redis holds them, and the PDFs still open with them."""

from __future__ import annotations

import io
import zipfile

import httpx
import pikepdf
import pytest
from redis import Redis

from api.jobs.redis_backend import _key
from tests.batch_jobs import design, rows, wait_for_end

from ..server import RedisServer, Server, Worker

OWNER = "owner-Quokka-5521-zebra"
READER = "reader-Axolotl-8834-heron"
SECRETS = [OWNER.encode(), READER.encode()]


def _redis_values(redis: Redis) -> list[bytes]:
    """Every key and value in Redis, whatever its type (RQ's own keys too)."""
    values: list[bytes] = []
    for key in redis.scan_iter(count=1000):
        values.append(key)
        kind = redis.type(key)
        if kind == b"string":
            values.append(redis.get(key) or b"")
        elif kind == b"hash":
            values.extend(k + b"=" + v for k, v in redis.hgetall(key).items())
        elif kind == b"list":
            values.extend(redis.lrange(key, 0, -1))
        elif kind == b"set":
            values.extend(redis.smembers(key))
        elif kind == b"zset":
            values.extend(redis.zrange(key, 0, -1))
    return values


def _job_row(data_dir, database_url: str | None, job_id: str) -> tuple[str, bool]:
    from api.settings import Settings
    from api.store import open_store

    store = open_store(Settings(data_dir=data_dir, database_url=database_url))
    try:
        return store.one("SELECT payload, settled FROM batch_jobs WHERE id = ?", [job_id])
    finally:
        store.close()


def test_a_batchs_passwords_are_in_neither_its_row_nor_redis_and_its_pdfs_open_with_them(
    tmp_path_factory, database_url
) -> None:
    from api.service import Service, Settings

    data_dir = tmp_path_factory.mktemp("batch-passwords")
    service = Service(Settings(data_dir=data_dir, database_url=database_url))
    key = service.accounts.create_workspace("w", "pro", 50)[1]
    service.close()
    redis_server = RedisServer(data_dir)
    server = Server(data_dir, args=("--redis-url", redis_server.url)).start()
    worker = None
    try:
        with server.client(key) as client:
            design_id = design(client)
            body = {"rows": rows(3), "encryption": {"ownerPassword": OWNER, "userPassword": READER}}
            job_id = client.data(client.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
        # No worker yet: the job waits in Redis, and its row is unsettled.
        redis = Redis.from_url(redis_server.url)
        assert b'"sealed_encryption":"' in redis.get(_key(job_id, "payload"))
        queued = _redis_values(redis)
        assert not any(secret in value for value in queued for secret in SECRETS)
        server.stop()  # DuckDB is one process's at a time: the row is read with the server stopped
        payload, settled = _job_row(data_dir, database_url, job_id)
        assert not settled and '"sealed_encryption":"' in payload
        assert OWNER not in payload and READER not in payload
        if database_url is None:  # nor anywhere in the data dir: the database file, its WAL, the logs
            for path in (p for p in data_dir.rglob("*") if p.is_file()):
                assert not any(secret in path.read_bytes() for secret in SECRETS), path
        server.start()  # takes the job back; the worker renders it, opening the passwords
        worker = Worker(redis_server.url, data_dir)
        with server.client(key) as client:
            assert wait_for_end(client, job_id, timeout=120)["completed"] == 3
            url = client.data(client.get(f"/batches/{job_id}/download"), 200)["downloadUrl"]
        archive = zipfile.ZipFile(io.BytesIO(httpx.get(url).content))
        for number in range(3):
            pdf = archive.read(f"row-{number + 1:04d}.pdf")
            with pytest.raises(pikepdf.PasswordError):
                pikepdf.open(io.BytesIO(pdf))
            for password in (READER, OWNER):
                with pikepdf.open(io.BytesIO(pdf), password=password) as document:
                    assert document.encryption.R == 6
    finally:
        if worker:
            worker.stop()
        server.stop()
        redis_server.stop()


def test_an_encrypted_batch_in_the_servers_own_render_processes_opens_with_its_passwords(alpha) -> None:
    """The in-process back-end: the secret crosses the pipe to the render process that encrypts."""
    design_id = design(alpha)
    body = {"rows": rows(2), "encryption": {"ownerPassword": OWNER, "userPassword": READER}}
    job_id = alpha.data(alpha.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
    assert wait_for_end(alpha, job_id)["completed"] == 2
    url = alpha.data(alpha.get(f"/batches/{job_id}/download"), 200)["downloadUrl"]
    archive = zipfile.ZipFile(io.BytesIO(httpx.get(url).content))
    for name in ("row-0001.pdf", "row-0002.pdf"):
        with pikepdf.open(io.BytesIO(archive.read(name)), password=READER) as document:
            assert document.encryption.R == 6
