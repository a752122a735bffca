"""Scaled out (issue 17): two `docbench serve` processes with separate data dirs on one real
PostgreSQL, one S3 bucket (moto's standalone server over real HTTP), one Redis and one
--secret serve the same workspace; RQ workers share no directory with them; a server killed
with SIGKILL mid-load loses no write it acknowledged."""

from __future__ import annotations

import io
import json
import threading
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.pdf_probes import all_text

from ...conftest import add, s3_blob_url
from ...server import RedisServer, Server, Worker, docbench, wait_until

pytestmark = pytest.mark.slow  # four processes of our own and three servers they stand on

SECRET = "the secret this deployment's processes share"
ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}}


@dataclass
class Deployment:
    servers: tuple[Server, Server]
    workers: list[Worker]
    database_url: str
    blob_url: str
    cli_dir: Path

    def cli(self, *args: str) -> dict:
        """A CLI command beside the running servers, from a directory of its own."""
        done = docbench(*args, "--database-url", self.database_url, data_dir=self.cli_dir)
        return json.loads(done.stdout)

    def workspace(self, name: str, credits: int) -> str:
        return self.cli("workspace", "create", name, "--credits", str(credits))["apiKey"]


@pytest.fixture(scope="module")
def deployment(postgres_server, s3_server, tmp_path_factory):
    root = tmp_path_factory.mktemp("scale-out")
    database_url = postgres_server.fresh_database()
    blob_url = s3_blob_url(s3_server, "scale-out")
    redis = RedisServer(root)
    shared = (
        *("--database-url", database_url),
        *("--blob-url", blob_url),
        *("--redis-url", redis.url),
        *("--secret", SECRET),
        *("--render-processes", "1"),
    )
    directories = [root / name for name in ("web-1", "web-2", "worker-1", "worker-2", "cli")]
    for directory in directories:
        directory.mkdir()
    servers = (Server(directories[0], args=shared), Server(directories[1], args=shared))
    workers: list[Worker] = []
    try:
        for server in servers:
            server.start()
        # Workers get Redis and the bucket only: no --data-dir, nothing of the web processes' files.
        workers = [Worker(redis.url, directory, blob_url=blob_url) for directory in directories[2:4]]
        yield Deployment(servers, workers, database_url, blob_url, directories[4])
    finally:
        for process in (*workers, *servers):
            process.stop()
        redis.stop()


def on(server: Server, url: str) -> str:
    """The same signed URL, asked of another server."""
    parts = urlsplit(url)
    return f"{server.url}{parts.path}?{parts.query}"


def badge(client, name: str = "Badge") -> str:
    design_id = client.data(client.post("/designs", json={"name": name}), 201)["designId"]
    actions = [add("text", "name", {"x": 40, "y": 40}, data={"content": "Sample"}), _bind("name")]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    return design_id


def _bind(name: str) -> dict:
    return {"type": "bind_variable", "args": {"name": name}}


def files_in(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.rglob("*") if path.suffix in (".pdf", ".png", ".zip"))


def test_a_design_made_on_one_server_is_patched_on_the_other(deployment):
    first, second = deployment.servers
    key = deployment.workspace("designers", 5)
    with first.client(key) as one, second.client(key) as other:
        design_id = badge(one)
        patch = {"actions": [add("text", "footer", {"x": 40, "y": 700}, data={"content": "Issued on B"})]}
        other.data(other.patch(f"/designs/{design_id}/tree", json=patch), 200)
        names = {node["name"] for node in one.get(f"/designs/{design_id}/tree").json()["nodes"].values()}
        assert names == {"name", "footer"}
        # The preview drawn by one is found, not drawn again, by the other (one shared picture).
        first_url = one.data(one.get(f"/designs/{design_id}/preview", params={"page": 0}), 200)["previewUrl"]
        second_url = other.data(other.get(f"/designs/{design_id}/preview", params={"page": 0}), 200)["previewUrl"]
        assert urlsplit(first_url).path == urlsplit(second_url).path
        assert httpx.get(on(first, second_url)).content.startswith(b"\x89PNG")


def test_twenty_generates_split_over_both_servers_with_ten_credits_make_ten_pdfs(deployment):
    first, second = deployment.servers
    key = deployment.workspace("ledger", 10)
    with first.client(key) as one, second.client(key) as other:
        design_id = badge(one)
        start = threading.Barrier(20)

        def generate(client, number: int) -> tuple[int, str | None]:
            start.wait(timeout=60)  # all twenty at once: the race the ledger's row lock must win
            response = client.post(f"/designs/{design_id}/generate", json={"data": {"name": f"Person {number}"}})
            return response.status_code, (response.json().get("data") or {}).get("downloadUrl")

        with ThreadPoolExecutor(20) as pool:
            answers = list(pool.map(generate, [one, other] * 10, range(20)))
        assert sorted(status for status, _ in answers) == [201] * 10 + [402] * 10, answers
        for number, (status, url) in enumerate(answers):
            if status == 201:  # each PDF served by the server that did not make it
                pdf = httpx.get(on(second if number % 2 == 0 else first, url)).content
                assert f"Person {number}" in all_text(pdf)
        assert one.data(one.get("/me"), 200)["credits"] == 0 == other.data(other.get("/me"), 200)["credits"]


def test_an_mcp_session_opened_on_one_server_works_on_the_other(deployment):
    first, second = deployment.servers
    key = deployment.workspace("agents", 5)
    headers = {**ACCEPT, "X-API-Key": key}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}
    opened = httpx.post(f"{first.url}/mcp", headers=headers, json=initialize)
    assert opened.status_code == 200, opened.text
    session = {**headers, "Mcp-Session-Id": opened.headers["Mcp-Session-Id"]}
    listed = httpx.post(f"{second.url}/mcp", headers=session, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert listed.status_code == 200, listed.text
    assert "generate_pdf" in {tool["name"] for tool in listed.json()["result"]["tools"]}
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "me", "arguments": {}}}
    answered = httpx.post(f"{second.url}/mcp", headers=session, json=call, timeout=60)
    assert answered.status_code == 200 and answered.json()["result"].get("isError") is not True, answered.text
    assert '\\"credits\\": 5' in json.dumps(answered.json()["result"]), answered.text
    # Closed on the second, it is gone on the first too.
    assert httpx.delete(f"{second.url}/mcp", headers=session).status_code in (200, 204)
    again = httpx.post(f"{first.url}/mcp", headers=session, json={"jsonrpc": "2.0", "id": 4, "method": "ping"})
    assert again.status_code == 404, again.text


def test_a_batch_submitted_on_one_server_is_polled_to_the_end_on_the_other(deployment):
    first, second = deployment.servers
    key = deployment.workspace("batches", 20)
    with first.client(key) as one, second.client(key) as other:
        design_id = badge(one)
        rows = [{"name": f"Row {number}"} for number in range(12)]
        job_id = one.data(one.post(f"/designs/{design_id}/batch", json={"rows": rows}), 202)["jobId"]
        job = other.ended_batch(job_id, timeout=180, what="the batch to end, polled on the second server")
        assert (job["status"], job["completed"], job["failed"]) == ("completed", 12, 0)
        url = other.data(other.get(f"/batches/{job_id}/download"), 200)["downloadUrl"]
    archive = zipfile.ZipFile(io.BytesIO(httpx.get(on(first, url)).content))
    assert sorted(archive.namelist()) == [f"row-{n:04d}.pdf" for n in range(1, 13)]
    assert all(f"Row {n}" in all_text(archive.read(f"row-{n + 1:04d}.pdf")) for n in range(12))
    # The rows were rendered by the RQ workers into the bucket: no process wrote a file to a directory.
    for server in deployment.servers:
        assert files_in(server.data_dir) == []
    for worker in deployment.workers:
        assert files_in(worker.log_path.parent) == []


def test_a_server_killed_mid_load_loses_no_acknowledged_write(deployment):
    first, second = deployment.servers
    key = deployment.workspace("crash", 1000)
    acknowledged_designs: list[str] = []
    acknowledged_elements: dict[str, list[str]] = {}
    acknowledged_pdfs: list[str] = []
    stop = threading.Event()
    with first.client(key) as one:
        target = badge(one, "Patched under load")

    def load(worker: int) -> None:
        with first.client(key) as client:
            number = 0
            while not stop.is_set():
                number += 1
                try:
                    made = client.post("/designs", json={"name": f"w{worker}-{number}"})
                    if made.status_code == 201:
                        acknowledged_designs.append(made.json()["data"]["designId"])
                    name = f"w{worker}-e{number}"
                    element = add("text", name, {"x": 10, "y": 10}, data={"content": name})
                    patched = client.patch(f"/designs/{target}/tree", json={"actions": [element]})
                    if patched.status_code == 200:
                        acknowledged_elements.setdefault(target, []).append(name)
                    generated = client.post(f"/designs/{target}/generate", json={"data": {"name": name}})
                    if generated.status_code == 201:
                        acknowledged_pdfs.append(generated.json()["data"]["downloadUrl"])
                except httpx.HTTPError:
                    return  # the server is gone: whatever it had not answered was never acknowledged

    with ThreadPoolExecutor(4) as pool:
        running = [pool.submit(load, worker) for worker in range(4)]
        wait_until(lambda: len(acknowledged_pdfs) >= 8, timeout=120, what="the load to be under way")
        first.kill()  # SIGKILL: no shutdown, no flush
        stop.set()
        for future in running:
            future.result()
    try:
        assert acknowledged_designs and acknowledged_elements and acknowledged_pdfs
        with second.client(key) as other:
            for design_id in acknowledged_designs:
                other.data(other.get(f"/designs/{design_id}"), 200)
            tree = other.get(f"/designs/{target}/tree").json()
            kept = {node["name"] for node in tree["nodes"].values()}
            assert set(acknowledged_elements[target]) <= kept
            spent = 1000 - other.data(other.get("/me"), 200)["credits"]
            assert spent >= len(acknowledged_pdfs)  # an answered generate's credit is spent for good
        for url in acknowledged_pdfs:
            assert httpx.get(on(second, url)).content.startswith(b"%PDF-")
    finally:
        first.start()  # the fixture's other tests may follow
