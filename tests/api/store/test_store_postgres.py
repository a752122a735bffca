"""The PostgreSQL store with several processes at once (api/store.py): the credit ledger stays
exact, tree patches on one design lose nothing, migrations run once, and the CLI's workspace,
credits and key commands work while a server runs on the same database."""

from __future__ import annotations

import json
import multiprocessing
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from api.errors import ApiError
from api.models import CreateDesignBody, PatchTreeBody
from api.service import Service, Settings, Workspace
from api.service.accounts import Accounts
from api.store import MIGRATIONS, PostgresStore

from ...conftest import add
from ...server import Server, docbench, servers_on_one_database, wait_until

PROCESSES = 4
# A request during a database outage answers 503 within this (the pool once waited 30 s).
OUTAGE_ANSWER_SECONDS = 5
# Processes start by spawning (no state copied from pytest's process: its pools and threads).
SPAWN = multiprocessing.get_context("spawn")


def _debit_many(url: str, workspace_id: str, attempts: int, start: multiprocessing.Barrier) -> int:
    """In a process of its own: try `attempts` debits of one credit; how many went through."""
    store = PostgresStore(url, max_size=2)
    accounts = Accounts(store)
    done = 0
    start.wait()  # every process debits at the same moment: the race the row lock must win
    try:
        for attempt in range(attempts):
            try:
                with store.transaction() as cursor:
                    accounts.debit(cursor, workspace_id, 1, "generate", f"test-{attempt}")
                done += 1
            except ApiError as exc:
                assert exc.code == "INSUFFICIENT_CREDITS", exc.code
    finally:
        store.close()
    return done


def test_concurrent_debits_from_several_processes_spend_each_credit_exactly_once(postgres_server):
    url = postgres_server.fresh_database()
    credits, attempts_each = 25, 15  # 60 attempts for 25 credits
    store = PostgresStore(url, max_size=2)
    try:
        workspace, _ = Accounts(store).create_workspace("race", "pro", credits)
        with SPAWN.Manager() as manager:
            start = manager.Barrier(PROCESSES)
            with SPAWN.Pool(PROCESSES) as pool:
                done = pool.starmap(_debit_many, [(url, workspace.id, attempts_each, start)] * PROCESSES)
        assert sum(done) == credits, done
        assert Accounts(store).balance(workspace.id) == 0
        debits = store.one("SELECT count(*) FROM credit_ledger WHERE workspace_id = ? AND delta < 0", [workspace.id])
        assert debits == (credits,)
        # The balance kept in the workspace's row moved with every entry, under the same lock.
        summed = store.one("SELECT sum(delta) FROM credit_ledger WHERE workspace_id = ?", [workspace.id])
        assert store.one("SELECT credits FROM workspaces WHERE id = ?", [workspace.id]) == summed == (0,)
    finally:
        store.close()


def _patch_many(url: str, workspace: tuple, design_id: str, prefix: str, count: int, start) -> None:
    """In a process of its own: add `count` text elements to the design, one patch each."""
    with tempfile.TemporaryDirectory() as data_dir:
        service = Service(Settings(data_dir=Path(data_dir), database_url=url, render_processes=1))
        try:
            ws = Workspace(*workspace)
            start.wait()
            for number in range(count):
                element = add("text", f"{prefix}{number}", {"x": 10, "y": 10 + number}, data={"content": prefix})
                service.designs.patch_tree(ws, design_id, PatchTreeBody.model_validate({"actions": [element]}))
        finally:
            service.close()


def test_patches_on_one_design_from_two_processes_are_all_kept(postgres_server, tmp_path):
    url = postgres_server.fresh_database()
    service = Service(Settings(data_dir=tmp_path, database_url=url, render_processes=1))
    try:
        ws, _ = service.accounts.create_workspace("patches", "pro", 0)
        design_id = service.designs.create(ws, CreateDesignBody(name="Shared"))["designId"]
        count = 12
        with SPAWN.Manager() as manager:
            start = manager.Barrier(2)
            with SPAWN.Pool(2) as pool:
                pool.starmap(
                    _patch_many,
                    [(url, (ws.id, ws.name, ws.plan), design_id, prefix, count, start) for prefix in ("a", "b")],
                )
        names = {node.name for node in service.designs.tree(ws, design_id).nodes.values()}
        assert names >= {f"{p}{n}" for p in "ab" for n in range(count)}, sorted(names)
    finally:
        service.close()


def _open_store(url: str, start) -> int:
    start.wait()
    store = PostgresStore(url, max_size=1)
    try:
        return store.schema_version
    finally:
        store.close()


def test_two_processes_opening_an_empty_database_at_once_migrate_it_once(postgres_server):
    url = postgres_server.fresh_database(migrated=False)
    with SPAWN.Manager() as manager:
        start = manager.Barrier(PROCESSES)
        with SPAWN.Pool(PROCESSES) as pool:
            versions = pool.starmap(_open_store, [(url, start)] * PROCESSES)
    assert versions == [len(MIGRATIONS)] * PROCESSES
    store = PostgresStore(url, max_size=1)
    try:
        recorded = [row[0] for row in store.all("SELECT version FROM schema_version ORDER BY version")]
        assert recorded == list(range(1, len(MIGRATIONS) + 1))
    finally:
        store.close()


@pytest.mark.slow
def test_the_cli_manages_workspaces_credits_and_keys_while_a_server_runs_on_the_database(postgres_server, tmp_path):
    url = postgres_server.fresh_database()
    (tmp_path / "web").mkdir()
    server = Server(tmp_path / "web", args=("--database-url", url)).start()
    cli_dir = tmp_path / "cli"  # the CLI shares the database, not the server's data dir

    def cli(*args: str, check: bool = True):
        return docbench(*args, "--database-url", url, data_dir=cli_dir, check=check)

    try:
        created = json.loads(cli("workspace", "create", "acme", "--plan", "pro", "--credits", "3").stdout)
        workspace, first_key = created["workspaceId"], created["apiKey"]
        with server.client(first_key) as client:
            assert client.data(client.get("/me"), 200)["credits"] == 3
            assert json.loads(cli("credits", "add", workspace, "4").stdout)["credits"] == 7
            assert client.data(client.get("/me"), 200)["credits"] == 7  # the server reads the ledger, not a copy
        second_key = json.loads(cli("key", "create", workspace).stdout)["apiKey"]
        with server.client(second_key) as client:
            assert client.data(client.get("/me"), 200)["workspaceId"] == workspace
            assert json.loads(cli("key", "revoke", second_key).stdout) == {"revoked": True}
            client.error(client.get("/me"), 401, "UNAUTHORIZED")  # at once: the server had just used it
        third_key = json.loads(cli("key", "create", workspace).stdout)["apiKey"]
        assert json.loads(cli("key", "revoke", third_key).stdout) == {"revoked": True}
        with server.client(third_key) as client:
            client.error(client.get("/me"), 401, "UNAUTHORIZED")
        listed = json.loads(cli("workspace", "list").stdout)
        assert {"workspaceId": workspace, "name": "acme", "plan": "pro", "credits": 7} in listed
        assert "default" in {w["name"] for w in listed}  # the server's first start made it in the same database
    finally:
        server.stop()


@pytest.fixture(scope="module")
def two_servers(postgres_server, tmp_path_factory):
    """Two `docbench serve` processes on one PostgreSQL database. They share the data dir too:
    its blobs and URL secret (until the S3 blob store and --secret serve that)."""
    url = postgres_server.fresh_database()
    with servers_on_one_database(url, tmp_path_factory.mktemp("two-servers")) as servers_and_key:
        yield servers_and_key


@pytest.mark.slow
def test_two_servers_on_one_database_patch_one_design_and_spend_each_credit_once(two_servers):
    from concurrent.futures import ThreadPoolExecutor

    (first, second), key = two_servers
    with first.client(key) as one, second.client(key) as other:
        design_id = one.data(one.post("/designs", json={"name": "Shared"}), 201)["designId"]
        other.data(other.patch(f"/designs/{design_id}/tree", json={"actions": [_text("from-second")]}), 200)

        def patch(client, name: str) -> None:
            client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": [_text(name)]}), 200)

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(patch, [one, other] * 6, [f"p{n}" for n in range(12)]))
        tree = one.get(f"/designs/{design_id}/tree").json()
        names = {node["name"] for node in tree["nodes"].values()}
        assert names >= {"from-second", *(f"p{n}" for n in range(12))}

        def generate(client) -> tuple[int, str | None]:
            response = client.post(f"/designs/{design_id}/generate", json={})
            return response.status_code, response.json()["data"] and response.json()["data"]["downloadUrl"]

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(generate, [one, other] * 10))
        assert sorted(status for status, _ in answers) == [201] * 10 + [402] * 10, answers
        for _, url in filter(lambda answer: answer[0] == 201, answers):
            assert httpx.get(url).content.startswith(b"%PDF-")
        assert one.data(one.get("/me"), 200)["credits"] == 0 == other.data(other.get("/me"), 200)["credits"]


def _text(name: str) -> dict:
    return add("text", name, {"x": 10, "y": 10}, data={"content": name})


def test_an_unreachable_database_url_is_refused_with_what_to_check(tmp_path):
    from ...server import free_port

    url = f"postgresql://docbench@127.0.0.1:{free_port()}/catalogue"  # nothing listens there
    result = docbench("workspace", "list", "--database-url", url, data_dir=tmp_path, check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "cannot open the PostgreSQL database 'catalogue'" in result.stderr and "--database-url" in result.stderr


def test_a_batch_whose_end_two_processes_report_at_once_is_refunded_once(postgres_server, tmp_path):
    import datetime as dt
    import threading

    url = postgres_server.fresh_database()
    # Two services, each with its own pool: two processes as far as the database can tell.
    services = [Service(Settings(data_dir=tmp_path, database_url=url, render_processes=1)) for _ in range(2)]
    try:
        ws, _ = services[0].accounts.create_workspace("batches", "pro", 100)
        jobs = [f"job_{n}" for n in range(10)]
        moment = dt.datetime(2026, 1, 1)
        with services[0].store.transaction() as cursor:
            for job_id in jobs:  # 3 rows each, charged, none reported: each end refunds 3
                services[0].accounts.debit(cursor, ws.id, 3, "batch", job_id)
                cursor.execute(
                    "INSERT INTO batch_jobs VALUES (?, ?, 'dsg_x', 'rq', 'processing', 3, 0, 0, 'standard', '{}', "
                    "NULL, false, ?, ?)",
                    [job_id, ws.id, moment, moment],
                )
        assert services[0].accounts.balance(ws.id) == 70
        together = threading.Barrier(2)

        def report_every_end(service: Service) -> None:
            for job_id in jobs:
                together.wait()
                service.batches.job_done(job_id, f"{job_id}.zip")

        threads = [threading.Thread(target=report_every_end, args=(service,)) for service in services]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert services[0].accounts.balance(ws.id) == 100
        refunds = services[0].store.one("SELECT count(*) FROM credit_ledger WHERE reason = 'batch-refund'")
        assert refunds == (len(jobs),)
    finally:
        for service in services:
            service.close()


def test_two_servers_starting_at_once_on_an_empty_database_make_one_default_workspace(postgres_server, tmp_path):
    import threading

    url = postgres_server.fresh_database()
    services = [Service(Settings(data_dir=tmp_path, database_url=url, render_processes=1)) for _ in range(2)]
    try:
        together = threading.Barrier(2)
        keys: list[str | None] = []

        def first_start(service: Service) -> None:
            together.wait()
            keys.append(service.ensure_default_workspace())

        threads = [threading.Thread(target=first_start, args=(service,)) for service in services]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(keys, key=bool) == [None, keys[0] or keys[1]] and any(keys)
        assert [w.name for w in services[0].accounts.list_workspaces()] == ["default"]
    finally:
        for service in services:
            service.close()


@pytest.mark.slow
def test_a_database_outage_is_a_503_and_the_server_serves_again_once_it_is_back(tmp_path):
    from ...postgres import PostgresServer, missing_reason

    if missing_reason():
        pytest.skip(missing_reason())
    database = PostgresServer()  # its own: this test stops it
    server = None
    try:
        url = database.fresh_database()
        created = docbench("workspace", "create", "acme", "--database-url", url, data_dir=tmp_path / "cli")
        key = json.loads(created.stdout)["apiKey"]
        (tmp_path / "web").mkdir()
        server = Server(tmp_path / "web", args=("--database-url", url)).start()
        # Alone it serves, but it says what another process beside it would miss.
        assert "no --secret (DOCBENCH_SECRET)" in server.output() and "no --blob-url" in server.output()
        with server.client(key) as client:
            # Several pooled connections, so the outage finds more than one idle in the pool.
            with ThreadPoolExecutor(4) as pool:
                assert all(r.status_code == 200 for r in pool.map(lambda _: client.get("/designs"), range(8)))
            database.pause()
            # Every request answers 503 at once, not only the first one per pooled connection
            # (the others used to wait for the pool's 30 s timeout).
            for path in ["/me", "/me", "/designs", "/me", "/designs", "/me"]:
                started = time.monotonic()
                message = client.error(client.get(path), 503, "SERVICE_UNAVAILABLE")
                assert time.monotonic() - started < OUTAGE_ANSWER_SECONDS, path
                assert message == "the database cannot be reached right now; try again shortly"
            database.resume()
            # Served again within seconds (not after the pool's next reconnection attempt, whose
            # delay doubles while the database is away).
            wait_until(lambda: client.get("/me").status_code == 200, timeout=10, what="the database again")
            assert client.data(client.get("/me"), 200)["credits"] == 100
        assert "Traceback" not in server.output()
    finally:
        if server is not None:
            server.stop()
        database.stop()
