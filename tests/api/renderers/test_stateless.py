"""Stateless web processes (issue 17, point 4): two real `docbench serve` processes on one real
PostgreSQL, one S3 bucket (moto's server) and one --secret answer any request, whichever of them
began the conversation: nothing a request needs lives only in one process's memory."""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import zipfile
from urllib.parse import urlsplit

import httpx
import psutil
import pytest
from PIL import Image

from api.service import Service, Settings
from api.store import PostgresStore, open_store
from tests.pdf_probes import pdf_text

from ...conftest import add, png, s3_blob_url
from ...server import RedisServer, Server, docbench, wait_until

# The service-level tests here run on DuckDB and PostgreSQL (the `database_url` fixture).
RUN_ON_BOTH_STORES = True
SECRET = "the secret every web process of this deployment shares"
ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}}


def shared_args(database_url: str, blob_url: str) -> tuple[str, ...]:
    return ("--database-url", database_url, "--blob-url", blob_url, "--secret", SECRET, "--render-processes", "1")


@pytest.fixture(scope="module")
def pair(postgres_server, s3_server, tmp_path_factory):
    """Two servers, each with a data dir of its own, sharing the database, the bucket and the
    secret; a workspace (pro, 100 credits) and its key."""
    database_url = postgres_server.fresh_database()
    blob_url = s3_blob_url(s3_server, "stateless")
    root = tmp_path_factory.mktemp("stateless")
    service = Service(Settings(data_dir=root / "setup", database_url=database_url, blob_url=blob_url))
    try:
        workspace, key = service.accounts.create_workspace("shared", "pro", 100)
    finally:
        service.close()
    servers = []
    try:
        for name in ("a", "b"):
            (root / name).mkdir()
            servers.append(Server(root / name, args=shared_args(database_url, blob_url)).start())
        yield servers[0], servers[1], key, workspace, database_url
    finally:
        for server in servers:
            server.stop()


def mcp(server: Server, key: str, body: dict, session: str | None = None) -> httpx.Response:
    headers = {**ACCEPT, "X-API-Key": key, **({"Mcp-Session-Id": session} if session else {})}
    return httpx.post(f"{server.url}/mcp", json=body, headers=headers, timeout=60)


@pytest.mark.slow
def test_an_mcp_session_opened_on_one_server_is_used_and_closed_on_the_other(pair):
    first, second, key, _, _ = pair
    opened = mcp(first, key, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE})
    assert opened.status_code == 200, opened.text
    session = opened.headers["Mcp-Session-Id"]
    assert mcp(second, key, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session).status_code == 202
    listed = mcp(second, key, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
    assert listed.status_code == 200, listed.text
    assert "create_design" in {tool["name"] for tool in listed.json()["result"]["tools"]}
    call = {"name": "create_design", "arguments": {"name": "Made over MCP on B"}}
    made = mcp(second, key, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}, session)
    assert made.status_code == 200 and made.json()["result"]["isError"] is False, made.text
    with first.client(key) as client:
        names = [d["name"] for d in client.data(client.get("/designs"), 200)["items"]]
    assert "Made over MCP on B" in names
    # Closed on B, it is gone on A too.
    closed = httpx.delete(f"{second.url}/mcp", headers={"X-API-Key": key, "Mcp-Session-Id": session}, timeout=60)
    assert closed.status_code == 200, closed.text
    after = mcp(first, key, {"jsonrpc": "2.0", "id": 4, "method": "ping"}, session)
    assert after.status_code == 404 and after.json()["error"]["code"] == -32001, after.text


def on(server: Server, url: str) -> str:
    """The same URL (path and query) asked of another server."""
    parts = urlsplit(url)
    return f"{server.url}{parts.path}?{parts.query}"


@pytest.mark.slow
def test_a_sign_in_link_printed_by_one_server_signs_in_once_on_the_other_and_its_cookie_works_on_both(pair):
    first, second, _, _, _ = pair
    link = re.search(r"(http://\S+/signin\?token=\S+)", first.output()).group(1)
    with httpx.Client() as browser:
        signed_in = browser.get(on(second, link))
        assert signed_in.status_code == 302 and "dbk" in signed_in.cookies, signed_in.text
        # The cookie the second server set (signed with the shared --secret) opens the page on both.
        for server in (second, first):
            page = browser.get(server.url + "/")
            assert page.status_code == 200 and "/signin" not in str(page.url), server.url
    with httpx.Client() as other_browser:
        for server in (first, second):  # used once: refused everywhere after
            again = other_browser.get(on(server, link))
            assert again.status_code == 200 and "dbk" not in again.cookies
            assert "already used or has expired" in again.text
        assert other_browser.get(first.url + "/").status_code == 302  # not signed in


def test_a_sign_in_link_works_once_even_when_redeemed_twice_at_once(database_url, tmp_path):
    import threading

    from workbench.server.signin_links import SignInTokens

    store = open_store(Settings(data_dir=tmp_path, database_url=database_url))
    try:
        links = SignInTokens(store)
        token = links.issue("ws_a")
        together = threading.Barrier(4)
        redeemed: list[str | None] = []

        def redeem() -> None:
            together.wait()
            redeemed.append(links.redeem(token))

        threads = [threading.Thread(target=redeem) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(redeemed, key=bool) == [None, None, None, "ws_a"]
        stored = store.all("SELECT token_hash FROM signin_links")
        assert stored == []  # used: gone (and a token is never stored as itself)
        expired = SignInTokens(store, lifetime=dt.timedelta(seconds=-1))
        assert expired.redeem(expired.issue("ws_a")) is None
    finally:
        store.close()


def colour_at_centre(picture: bytes) -> tuple[int, int, int]:
    image = Image.open(io.BytesIO(picture)).convert("RGB")
    return image.getpixel((image.width // 2, image.height // 2))


@pytest.mark.slow
def test_a_preview_on_one_server_shows_an_asset_whose_bytes_were_replaced_on_the_other(pair):
    first, second, key, _, _ = pair
    red, blue = (220, 20, 20, 255), (20, 20, 220, 255)
    with first.client(key) as a, second.client(key) as b:
        asset = a.data(a.post("/assets", files={"file": ("logo.png", png(red, (60, 60)), "image/png")}), 201)
        design_id = a.data(a.post("/designs", json={"name": "Logo page"}), 201)["designId"]
        # The asset fills the middle of the page.
        image = add("image", "logo", {"x": 100, "y": 200, "w": 400, "h": 400}, {"src": asset["ref"]})
        a.data(a.patch(f"/designs/{design_id}/tree", json={"actions": [image]}), 200)

        def picture(client) -> bytes:
            url = client.data(client.get(f"/designs/{design_id}/preview"), 200)["previewUrl"]
            return httpx.get(url).content

        for client in (a, b):  # each server's own preview cache now holds the red picture
            assert colour_at_centre(picture(client)) == red[:3]
        a.data(
            a.put(f"/assets/{asset['id']}/content", files={"file": ("blue.png", png(blue, (60, 60)), "image/png")}), 200
        )
        assert colour_at_centre(picture(b)) == blue[:3]  # not the picture B had cached
        assert colour_at_centre(picture(a)) == blue[:3]


# --- batches on the embedded pool, with a lease per job -----------------------------------

LEASE_SECONDS = 3  # the servers' DOCBENCH_BATCH_LEASE_SECONDS: a dead server's job moves on quickly
BADGE = [
    add("text", "name", {"x": 40, "y": 20}, data={"content": "Sample"}),
    {"type": "bind_variable", "args": {"name": "name"}},
    # Enough to draw that a batch of 100 rows lasts while another server starts.
    *(
        add("text", f"line{n}", {"x": 40, "y": 50 + 18 * n}, data={"content": f"Line {n} of the badge"})
        for n in range(40)
    ),
]
ROWS = 100  # the most one batch takes


def batch_servers(postgres_server, s3_server, root, count: int) -> tuple[list[Server], str, str]:
    """`count` servers (not started) on a fresh database and bucket, with a short batch lease."""
    database_url = postgres_server.fresh_database()
    blob_url = s3_blob_url(s3_server, "leases")
    service = Service(Settings(data_dir=root / "setup", database_url=database_url, blob_url=blob_url))
    try:
        _, key = service.accounts.create_workspace("batches", "pro", 1000)
    finally:
        service.close()
    servers = []
    for name in "abcd"[:count]:
        (root / name).mkdir()
        env = {"DOCBENCH_BATCH_LEASE_SECONDS": str(LEASE_SECONDS)}
        servers.append(Server(root / name, env=env, args=shared_args(database_url, blob_url)))
    return servers, key, database_url


def submit_batch(client, rows: int) -> str:
    design_id = client.data(client.post("/designs", json={"name": "Badges"}), 201)["designId"]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": BADGE}), 200)
    body = {"rows": [{"name": f"Person {n}"} for n in range(rows)]}
    return client.data(client.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]


def ended(client, job_id: str):
    job = client.data(client.get(f"/batches/{job_id}"), 200)
    return job if job["status"] in ("completed", "failed") else None


def settled_exactly_once(database_url: str, job_id: str, rows: int) -> None:
    """Every row recorded once, the credits taken once and nothing given back (no row failed)."""
    store = PostgresStore(database_url, max_size=1)
    try:
        assert store.one("SELECT count(*), count(DISTINCT row_index) FROM batch_rows WHERE job_id = ?", [job_id]) == (
            rows,
            rows,
        )
        ledger = store.all("SELECT reason, delta FROM credit_ledger WHERE reference = ? ORDER BY created_at", [job_id])
        assert ledger == [("batch", -rows)], ledger
        assert store.one("SELECT settled, completed, failed FROM batch_jobs WHERE id = ?", [job_id]) == (True, rows, 0)
    finally:
        store.close()


def render_cpu_seconds(server: Server) -> float:
    """CPU time used so far by the server's render processes (its children)."""
    children = psutil.Process(server.process.pid).children(recursive=True)
    total = 0.0
    for child in children:
        try:
            times = child.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


@pytest.mark.slow
def test_a_server_starting_while_another_runs_batches_leaves_them_alone(postgres_server, s3_server, tmp_path):
    (first, second), key, database_url = batch_servers(postgres_server, s3_server, tmp_path, 2)
    try:
        first.start()
        with first.client(key) as a:
            jobs = [submit_batch(a, ROWS) for _ in range(5)]
            second.start()  # while the first renders the rows
            second_before = render_cpu_seconds(second)
            done = sum(a.data(a.get(f"/batches/{job_id}"), 200)["completed"] for job_id in jobs)
            # Rows enough left that a second server resuming them (as before leases) would render some.
            assert done < len(jobs) * ROWS - 50, f"{done} rows were done before B started: make the batches longer"
            for job_id in jobs:
                job = wait_until(lambda job_id=job_id: ended(a, job_id), timeout=300, interval=0.2, what="the end")
                assert (job["status"], job["completed"], job["failed"]) == ("completed", ROWS, 0)
                settled_exactly_once(database_url, job_id, ROWS)
        # The second server rendered none of the rows: its render processes stayed idle.
        assert render_cpu_seconds(second) - second_before < 1.0
        with second.client(key) as b:
            url = b.data(b.get(f"/batches/{jobs[-1]}/download"), 200)["downloadUrl"]
        names = zipfile.ZipFile(io.BytesIO(httpx.get(url).content)).namelist()
        assert sorted(names) == [f"row-{n:04d}.pdf" for n in range(1, ROWS + 1)]
    finally:
        for server in (first, second):
            server.stop()


@pytest.mark.slow
def test_a_batch_whose_server_was_killed_is_finished_by_another_once_its_lease_lapses(
    postgres_server, s3_server, tmp_path
):
    (first, second), key, database_url = batch_servers(postgres_server, s3_server, tmp_path, 2)
    rows = ROWS
    try:
        first.start()
        second.start()
        with first.client(key) as a:
            job_id = submit_batch(a, rows)
            wait_until(lambda: a.data(a.get(f"/batches/{job_id}"), 200)["completed"] > 0, what="a first row")
        first.kill()  # SIGKILL mid-batch: nothing lets go of its lease
        with second.client(key) as b:
            assert ended(b, job_id) is None, "the batch ended before its server was killed: make it longer"
            job = wait_until(lambda: ended(b, job_id), timeout=300, interval=0.2, what="the second server to finish")
            assert (job["status"], job["completed"], job["failed"]) == ("completed", rows, 0)
            url = b.data(b.get(f"/batches/{job_id}/download"), 200)["downloadUrl"]
        settled_exactly_once(database_url, job_id, rows)
        archive = zipfile.ZipFile(io.BytesIO(httpx.get(url).content))
        assert sorted(archive.namelist()) == [f"row-{n:04d}.pdf" for n in range(1, rows + 1)]
        assert "Person 99" in pdf_text(archive.read("row-0100.pdf"))[0]
    finally:
        for server in (first, second):
            server.kill()


@pytest.mark.slow
def test_a_key_revoked_by_the_cli_on_the_database_is_refused_by_both_servers_at_once(pair, tmp_path):
    first, second, _, workspace, database_url = pair

    def cli(*args: str):
        return docbench(*args, "--database-url", database_url, data_dir=tmp_path / "cli")

    key = json.loads(cli("key", "create", workspace.id).stdout)["apiKey"]
    with first.client(key) as a, second.client(key) as b:
        for client in (a, b):  # each server has just accepted it
            assert client.data(client.get("/me"), 200)["workspaceId"] == workspace.id
        # No server is asked (the inbox is DuckDB's): the command writes the database itself.
        assert json.loads(cli("key", "revoke", key).stdout) == {"revoked": True}
        for client in (a, b):
            assert "revoked" in client.error(client.get("/me"), 401, "UNAUTHORIZED")
    assert not (first.data_dir / "revocations").exists() and not (second.data_dir / "revocations").exists()


def test_two_servers_starting_at_once_queue_an_unfinished_rq_batch_once(postgres_server, tmp_path):
    import threading

    from redis import Redis
    from rq import Queue

    from api.jobs.redis_backend import QUEUE, chunks
    from api.models import BatchBody, CreateDesignBody, PatchTreeBody

    database_url = postgres_server.fresh_database()
    redis = RedisServer(tmp_path)

    def service() -> Service:
        return Service(Settings(data_dir=tmp_path, database_url=database_url, redis_url=redis.url, render_processes=1))

    try:
        first = service()
        try:
            first.start_jobs()
            ws, _ = first.accounts.create_workspace("rq", "pro", 100)
            design_id = first.designs.create(ws, CreateDesignBody(name="Badges"))["designId"]
            first.designs.patch_tree(ws, design_id, PatchTreeBody.model_validate({"actions": BADGE[:2]}))
            body = BatchBody(rows=[{"name": f"Person {n}"} for n in range(20)])
            job_id = first.batches.submit(ws, design_id, body)["jobId"]
        finally:
            first.close()  # no worker ran it; the job is unsettled and nobody holds it now
        Redis.from_url(redis.url).flushall()  # and Redis lost it: whoever resumes it queues it again
        services = [service() for _ in range(2)]
        together = threading.Barrier(2)

        def start(one: Service) -> None:
            together.wait()
            one.start_jobs()

        threads = [threading.Thread(target=start, args=(one,)) for one in services]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        try:
            queued = Queue(QUEUE, connection=Redis.from_url(redis.url)).count
            assert queued == len(chunks(20))  # once, not once per server
            runner = services[0].store.one("SELECT runner FROM batch_jobs WHERE id = ?", [job_id])[0]
            assert runner in {one.batches.runner for one in services}
        finally:
            for one in services:
                one.close()
    finally:
        redis.stop()
