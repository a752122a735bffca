"""The service's guarantees under 16 concurrent clients (issue 41), on DuckDB and on PostgreSQL:
a PDF delivered is charged once, and nothing else is; credits are never overspent; a charge is
durable before its answer; workspaces stay apart; an idempotency key runs once; a revoked key
is refused at once; the body and rate limits hold. On PostgreSQL two servers share the database
and the clients are dealt over both, so every guarantee is checked across processes too.

What was charged is read from the database itself (the ledger and the generation rows): the API
has no ledger. On DuckDB that means stopping the server for the read (it holds the file)."""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.service import Service, Settings
from tests.pdf_probes import all_text

from ..conftest import add, store_database_url
from ..server import Client, Server, docbench, wait_until

RUN_ON_BOTH_STORES = True  # conftest: parametrised by store, "duckdb" and "postgres"
pytestmark = pytest.mark.slow  # servers started, killed and restarted

CLIENTS = 16
# A document longer than this is refused by the render process, after the request was admitted
# (its values checked, its credit found): a render that fails late.
MAX_PAGES = 2
LONG_TABLE = [["Item", "Qty"]] + [[f"item {n}", str(n)] for n in range(200)]  # several pages
RATE_LIMIT = 5  # requests per second per workspace, for the rate-limited server

# Every workspace the scenarios use, with its credits: made before the servers start (DuckDB's
# CLI cannot write while a server holds the file).
WORKSPACES = {
    "charged": 1000,
    "scarce": 23,
    "failing": 1000,
    "killed": 1000,
    "left": 1000,
    "right": 1000,
    "idempotent": 1000,
    "revoked": 1000,
    "limits": 1000,
}

DESIGN = [
    add("text", "name", {"x": 60, "y": 60}, {"content": "Sample Name"}, {"fontSize": 20}),
    add("table", "rows", {"x": 60, "y": 120}, {"cells": [["Item", "Qty"], ["a", "1"]], "width": 300}),
    add("image", "photo", {"x": 400, "y": 60, "w": 60, "h": 60}),
    {"type": "bind_variable", "args": {"name": "name"}},
    {"type": "bind_variable", "args": {"name": "rows"}},
    {"type": "bind_variable", "args": {"name": "photo"}},
]


def server_env(database_url: str | None) -> dict[str, str]:
    return {"DOCBENCH_DATABASE_URL": database_url or "", "DOCBENCH_MAX_PAGES": str(MAX_PAGES)}


@dataclass
class Books:
    """A workspace's accounts as the database holds them."""

    balance: int
    ledger_sum: int
    debits: list[str]  # the generation each debit of 1 credit paid for, one entry per debit
    other_entries: list[tuple[int, str]]  # (delta, reason) of every entry that is not such a debit
    generations: dict[str, tuple[str, str]]  # generation id -> (design id, blob key)
    blobs_missing: list[str]  # generations whose PDF is not in the blob store
    foreign: list[str]  # generations of a design that is not the workspace's

    def assert_consistent(self, granted: int, name: str = "") -> None:
        """Each generation paid for by exactly one debit, each debit for a generation of one of
        the workspace's designs whose PDF exists, nothing else spent, and the balance what the
        ledger adds up to."""
        assert len(set(self.debits)) == len(self.debits), f"{name}: a generation was charged twice"
        assert sorted(self.debits) == sorted(self.generations), f"{name}: debits and generation rows differ"
        assert self.other_entries == [(granted, "grant")], name
        assert self.balance == self.ledger_sum == granted - len(self.debits) >= 0, name
        assert self.blobs_missing == [] and self.foreign == [], name


class Deployment:
    """The servers of one store: one on DuckDB; two on one PostgreSQL database (and one data dir,
    so they share the blobs and the URL secret)."""

    def __init__(self, data_dir: Path, database_url: str | None):
        self.data_dir = data_dir
        self.database_url = database_url
        count = 2 if database_url else 1
        args = ("--render-processes", "1") if database_url else ()
        self.servers = [Server(data_dir, env=server_env(database_url), args=args) for _ in range(count)]
        self.keys: dict[str, str] = {}
        self.ids: dict[str, str] = {}
        self.spare_keys: dict[str, str] = {}

    def settings(self) -> Settings:
        return Settings(data_dir=self.data_dir, database_url=self.database_url, render_processes=1)

    def start(self) -> None:
        self._start(self.servers)

    def _start(self, servers: list[Server]) -> None:
        """Started side by side: a start is mostly waiting for imports."""
        with ThreadPoolExecutor(max_workers=len(self.servers)) as pool:
            for started in [pool.submit(server.start) for server in servers]:
                started.result()

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    def kill(self) -> None:
        for server in self.servers:
            server.kill()

    @contextmanager
    def database(self) -> Iterator[Service]:
        """A service on the servers' database, to read what they committed; the servers are
        running again afterwards (killed ones restarted). DuckDB admits one process: its server
        is stopped for the read."""
        if not self.database_url:
            self.stop()
        service = Service(self.settings())
        try:
            yield service
        finally:
            service.close()
            self._start([s for s in self.servers if s.process is None or s.process.poll() is not None])

    def server_for(self, client: int) -> Server:
        """Clients dealt over the servers in turn."""
        return self.servers[client % len(self.servers)]

    def client(self, name: str, number: int = 0) -> Client:
        return self.server_for(number).client(self.keys[name])


def books(service: Service, workspace_id: str) -> Books:
    ledger = service.store.all(
        "SELECT delta, reason, reference FROM credit_ledger WHERE workspace_id = ? ORDER BY created_at", [workspace_id]
    )
    rows = service.store.all("SELECT id, design_id, blob_key FROM generations WHERE workspace_id = ?", [workspace_id])
    generations = {row[0]: (row[1], row[2]) for row in rows}
    foreign = service.store.all(
        "SELECT g.id FROM generations g LEFT JOIN designs d ON d.id = g.design_id AND d.workspace_id = g.workspace_id "
        "WHERE g.workspace_id = ? AND d.id IS NULL",
        [workspace_id],
    )
    return Books(
        balance=service.accounts.balance(workspace_id),
        ledger_sum=sum(delta for delta, _, _ in ledger),
        debits=[ref for delta, reason, ref in ledger if (delta, reason) == (-1, "generate")],
        other_entries=[(delta, reason) for delta, reason, _ in ledger if (delta, reason) != (-1, "generate")],
        generations=generations,
        blobs_missing=[gid for gid, (_, key) in generations.items() if not service.blobs.exists(key)],
        foreign=[row[0] for row in foreign],
    )


@pytest.fixture(scope="module")
def deployment(request, tmp_path_factory, store) -> Iterator[Deployment]:
    data_dir = tmp_path_factory.mktemp(f"guarantees-{store}")
    deployed = Deployment(data_dir, store_database_url(request, store))
    service = Service(deployed.settings())
    try:
        for name, credits in WORKSPACES.items():
            workspace, key = service.accounts.create_workspace(name, "pro", credits)
            deployed.ids[name], deployed.keys[name] = workspace.id, key
            deployed.spare_keys[name] = service.accounts.create_key(workspace.id)
    finally:
        service.close()
    deployed.start()
    yield deployed
    deployed.stop()


# --- helpers ------------------------------------------------------------------------------


def design(client: Client) -> str:
    design_id = client.data(client.post("/designs", json={"name": "Receipt"}), 201)["designId"]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": DESIGN}), 200)
    return design_id


def credits(client: Client) -> int:
    return client.data(client.get("/me"), 200)["credits"]


def concurrently[T](servers: list[Server], keys: str | list[str], work: Callable[[int, Client], T]) -> list[T]:
    """work(i, client) on CLIENTS threads, each with a keep-alive client of its own (with `keys`,
    or keys[i]) on the servers in turn, connected first, then released together by a barrier.
    The first error a client raised is raised here."""
    barrier = threading.Barrier(CLIENTS)
    results: list[Any] = [None] * CLIENTS
    errors: list[BaseException] = []

    def run(number: int) -> None:
        try:
            key = keys if isinstance(keys, str) else keys[number]
            with servers[number % len(servers)].client(key) as client:
                assert client.get("/health").status_code == 200  # connected before the start
                barrier.wait(timeout=60)
                results[number] = work(number, client)
        except BaseException as exc:  # raised in the test's thread, below
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads), "a client never finished"
    if errors:
        raise errors[0]
    return results


@contextmanager
def in_background[T](run: Callable[[], T]) -> Iterator[Future[T]]:
    """run() on a thread while the block acts; its errors are raised when the block ends."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(run)
        yield future
    future.result()


def generated_ids(answers: list[httpx.Response]) -> list[str]:
    return [answer.json()["data"]["generationId"] for answer in answers if answer.status_code == 201]


def assert_error(answer: httpx.Response, status: int, code: str) -> str:
    """Client.error's check, for answers collected from many clients: the envelope, its message."""
    assert answer.status_code == status, (answer.status_code, answer.text)
    body = answer.json()
    assert body == {"status": "error", "data": None, "error": {"code": code, "message": body["error"]["message"]}}
    assert "Traceback" not in answer.text
    return body["error"]["message"]


# --- 1. charged once, only when the PDF exists ------------------------------------------------

PER_CLIENT = 5


def test_every_pdf_delivered_is_charged_exactly_once(deployment):
    with deployment.client("charged") as client:
        design_id = design(client)
        before = credits(client)

    def work(number: int, client: Client) -> list[tuple[str, httpx.Response]]:
        names = [f"Client {number} copy {n}" for n in range(PER_CLIENT)]
        generate = f"/designs/{design_id}/generate"
        return [(name, client.post(generate, json={"data": {"name": name}})) for name in names]

    answers = [pair for pairs in concurrently(deployment.servers, deployment.keys["charged"], work) for pair in pairs]
    assert [a.status_code for _, a in answers] == [201] * CLIENTS * PER_CLIENT, [a.text for _, a in answers]
    ids = generated_ids([a for _, a in answers])
    assert len(set(ids)) == len(ids)
    with httpx.Client() as files:
        for name, answer in answers:
            pdf = files.get(answer.json()["data"]["downloadUrl"])
            assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
            assert name in all_text(pdf.content)  # its own values: no answer carries another request's PDF
    with deployment.client("charged", 1) as client:  # the other server, on PostgreSQL
        assert credits(client) == before - len(ids)
    with deployment.database() as service:
        accounts = books(service, deployment.ids["charged"])
    accounts.assert_consistent(WORKSPACES["charged"])
    assert sorted(accounts.debits) == sorted(ids)
    assert {design for design, _ in accounts.generations.values()} == {design_id}


# --- 2. credits run out under contention ----------------------------------------------------


def test_contended_credits_serve_exactly_the_balance_and_never_go_negative(deployment):
    granted = WORKSPACES["scarce"]
    with deployment.client("scarce") as client:
        design_id = design(client)
        assert credits(client) == granted

    def work(number: int, client: Client) -> list[httpx.Response]:
        return [client.post(f"/designs/{design_id}/generate", json={}) for _ in range(3)]

    answers = [a for batch in concurrently(deployment.servers, deployment.keys["scarce"], work) for a in batch]
    served = [a for a in answers if a.status_code == 201]
    refused = [a for a in answers if a.status_code != 201]
    assert len(served) == granted and len(refused) == 3 * CLIENTS - granted, [a.text for a in answers]
    for answer in refused:
        assert "the workspace has 0" in assert_error(answer, 402, "INSUFFICIENT_CREDITS")
    with deployment.client("scarce", 1) as client:
        assert credits(client) == 0
        assert_error(client.post(f"/designs/{design_id}/generate", json={}), 402, "INSUFFICIENT_CREDITS")
    with deployment.database() as service:
        accounts = books(service, deployment.ids["scarce"])
    accounts.assert_consistent(granted)
    assert accounts.balance == 0 and sorted(accounts.debits) == sorted(generated_ids(served))


# --- 3. failed renders are not charged ------------------------------------------------------


def test_refused_values_and_failed_renders_cost_nothing_among_good_ones(deployment):
    with deployment.client("failing") as client:
        design_id = design(client)
        before = credits(client)
    bodies = [
        ({"data": {"name": "Good"}}, None),  # the one that is charged
        ({"data": {"nobody": "x"}}, "variable 'nobody'"),  # refused before anything runs
        ({"data": {"photo": "uploads:upl_nowhere"}}, "variable 'photo'"),  # an image that does not exist
        ({"data": {"rows": LONG_TABLE}}, f"at most {MAX_PAGES}"),  # admitted, then the render fails
    ]

    def work(number: int, client: Client) -> list[tuple[str | None, httpx.Response]]:
        answers = []
        for n in range(len(bodies)):
            body, fragment = bodies[(number + n) % len(bodies)]  # each kind in flight at every moment
            answers.append((fragment, client.post(f"/designs/{design_id}/generate", json=body)))
        return answers

    answers = [pair for pairs in concurrently(deployment.servers, deployment.keys["failing"], work) for pair in pairs]
    good = [answer for fragment, answer in answers if fragment is None]
    assert [a.status_code for a in good] == [201] * CLIENTS
    for fragment, answer in answers:
        if fragment is not None:
            assert fragment in assert_error(answer, 400, "VALIDATION_ERROR")
    with deployment.client("failing", 1) as client:
        assert credits(client) == before - CLIENTS  # the ledger: in the kill's test


# --- 5. isolation --------------------------------------------------------------------------


def test_concurrent_workspaces_pay_for_and_see_only_their_own(deployment):
    designs = {}
    for name in ("left", "right"):
        with deployment.client(name) as client:
            designs[name] = design(client)
            assert credits(client) == WORKSPACES[name]
    names = ["left" if n % 2 == 0 else "right" for n in range(CLIENTS)]  # both on every server
    keys = [deployment.keys[name] for name in names]

    def work(number: int, client: Client) -> list[httpx.Response]:
        mine, theirs = designs[names[number]], designs["right" if names[number] == "left" else "left"]
        answers = []
        for _ in range(3):
            answers.append(client.post(f"/designs/{mine}/generate", json={}))
            assert_error(client.post(f"/designs/{theirs}/generate", json={}), 404, "DESIGN_NOT_FOUND")
        assert_error(client.get(f"/designs/{theirs}"), 404, "DESIGN_NOT_FOUND")
        listed = {item["designId"] for item in client.data(client.get("/designs"), 200)["items"]}
        assert mine in listed and theirs not in listed
        return answers

    answers = concurrently(deployment.servers, keys, work)
    ids = {name: [] for name in designs}
    for number, batch in enumerate(answers):
        assert [a.status_code for a in batch] == [201] * 3, [a.text for a in batch]
        ids[names[number]] += generated_ids(batch)
    for name in designs:
        assert len(set(ids[name])) == 3 * CLIENTS // 2
        with deployment.client(name, 1) as client:
            assert credits(client) == WORKSPACES[name] - 3 * CLIENTS // 2


# --- 6. idempotency under contention --------------------------------------------------------


def test_one_idempotency_key_sent_by_sixteen_clients_at_once_runs_and_charges_once(deployment):
    with deployment.client("idempotent") as client:
        design_id = design(client)
        before = credits(client)
    path, body = f"/designs/{design_id}/generate", {"data": {"name": "Once"}}
    key = {"Idempotency-Key": f"issue-41-{uuid.uuid4()}"}
    idempotent = deployment.keys["idempotent"]
    answers = concurrently(deployment.servers, idempotent, lambda _, client: client.post(path, json=body, headers=key))
    ran = [a for a in answers if a.status_code == 201 and "Idempotent-Replayed" not in a.headers]
    assert len(ran) == 1, [(a.status_code, dict(a.headers), a.text) for a in answers]
    generation_id = ran[0].json()["data"]["generationId"]
    for answer in answers:
        if answer.status_code == 409:
            assert_error(answer, 409, "IDEMPOTENCY_KEY_IN_USE")  # asked while the first still ran
        elif answer is not ran[0]:
            assert answer.status_code == 201 and answer.headers["Idempotent-Replayed"] == "true"
            assert answer.json() == ran[0].json()
    # Once it has ended, every server replays it to everyone, and another body is refused.
    replays = concurrently(deployment.servers, idempotent, lambda _, client: client.post(path, json=body, headers=key))
    for answer in replays:
        assert answer.status_code == 201 and answer.headers["Idempotent-Replayed"] == "true"
        assert answer.json()["data"]["generationId"] == generation_id
    other = {"data": {"name": "Twice"}}
    reused = concurrently(deployment.servers, idempotent, lambda _, client: client.post(path, json=other, headers=key))
    for answer in reused:
        assert "new key" in assert_error(answer, 422, "IDEMPOTENCY_KEY_REUSED")
    with deployment.client("idempotent", 1) as client:
        assert credits(client) == before - 1


# --- 4. durable before the answer (after 3, 5 and 6: it reads their workspaces' books too) ---


def test_every_generation_answered_before_a_kill_is_kept_and_charged(deployment):
    with deployment.client("killed") as client:
        design_id = design(client)
    answered: list[httpx.Response] = []
    killed = threading.Event()
    guard = threading.Lock()

    def work(number: int, client: Client) -> int:
        sent = 0
        deadline = time.monotonic() + 120
        while not killed.is_set() and time.monotonic() < deadline:
            try:
                answer = client.post(f"/designs/{design_id}/generate", json={"data": {"name": f"c{number}"}})
            except httpx.HTTPError:
                break  # the server is gone: this request has no answer
            sent += 1
            assert answer.status_code == 201, answer.text
            with guard:
                answered.append(answer)
        return sent

    with in_background(lambda: concurrently(deployment.servers, deployment.keys["killed"], work)):
        try:
            wait_until(lambda: len(answered) >= 2 * CLIENTS, timeout=120, what="generations before the kill")
            deployment.kill()  # SIGKILL, with requests in flight
        finally:
            killed.set()
    with guard:
        ids = generated_ids(answered)
    with deployment.database() as service:  # what the killed servers left, before any restart
        every = {name: books(service, workspace_id) for name, workspace_id in deployment.ids.items()}
    accounts = every["killed"]
    # Every answer's generation is there and charged; nothing charged lacks its row or its PDF.
    accounts.assert_consistent(WORKSPACES["killed"], "killed")
    assert set(ids) <= set(accounts.debits), "a generation answered 201 was lost in the kill"
    # So are the books of every workspace, whatever the scenarios before did to them (renders
    # that failed, two workspaces at once, one idempotency key from sixteen clients): read here,
    # where the database is read anyway, and not in each (on DuckDB a read costs a restart).
    for name, kept in every.items():
        kept.assert_consistent(WORKSPACES[name], name)
    # Restarted on the same data: the service sees the same balance and serves every PDF answered.
    with deployment.client("killed", 1) as client:
        assert credits(client) == accounts.balance
    with httpx.Client() as files:
        for answer in answered:
            assert files.get(answer.json()["data"]["downloadUrl"]).content.startswith(b"%PDF-")


# --- 7. revocation is immediate under load ----------------------------------------------


def test_a_key_revoked_under_load_is_refused_by_every_server_from_that_instant(deployment):
    with deployment.client("revoked") as client:
        design_id = design(client)
    spare_key = deployment.spare_keys["revoked"]  # the workspace's other key, never revoked
    with deployment.server_for(0).client(spare_key) as spare:
        before = credits(spare)
    revoked_at: list[float] = []  # the monotonic time the revocation had answered
    gave_up = threading.Event()
    requests = [
        ("GET", "/me", None),
        ("GET", f"/designs/{design_id}", None),
        ("POST", f"/designs/{design_id}/generate", {}),
    ]

    def work(number: int, client: Client) -> list[tuple[float, str, int, int]]:
        seen = []  # (sent at, method, server port, status)
        after = 0  # requests sent after the revocation answered
        for n in itertools.count(number):
            if after >= 6 or gave_up.is_set():
                break
            method, path, body = requests[n % len(requests)]
            sent = time.monotonic()
            answer = client.request(method, path, json=body)
            seen.append((sent, method, answer.url.port, answer.status_code))
            if answer.status_code == 401:
                assert "revoked" in assert_error(answer, 401, "UNAUTHORIZED")
            else:
                assert answer.status_code in (200, 201), answer.text
            after += bool(revoked_at) and sent > revoked_at[0]
        return seen

    def spent() -> int:
        with deployment.server_for(0).client(spare_key) as spare:
            return before - credits(spare)

    with in_background(lambda: concurrently(deployment.servers, deployment.keys["revoked"], work)) as clients:
        try:
            wait_until(lambda: spent() >= CLIENTS, timeout=120, what="generations under load")
            # DuckDB: the command hands the revocation to the server holding the file (within a
            # quarter second); PostgreSQL: it revokes in the database, which both servers read.
            key = deployment.keys["revoked"]
            where = ["--database-url", deployment.database_url] if deployment.database_url else []
            done = docbench("key", "revoke", key, *where, data_dir=deployment.data_dir, check=False)
            revoked_at.append(time.monotonic())
            assert (done.returncode, done.stdout.strip()) == (0, '{"revoked": true}'), done.stderr
        finally:
            if not revoked_at:
                gave_up.set()
    seen = [entry for client_seen in clients.result() for entry in client_seen]
    late = [entry for entry in seen if entry[0] > revoked_at[0]]
    assert len(late) >= 6 * CLIENTS
    assert {port for _, _, port, _ in late} == {server.port for server in deployment.servers}
    assert [entry for entry in late if entry[3] != 401] == [], "a revoked key was served"
    generated = sum(1 for _, method, _, status in seen if method == "POST" and status == 201)
    assert generated >= CLIENTS
    # The other key still works, on every server; nothing refused was charged.
    for number in range(len(deployment.servers)):
        with deployment.server_for(number).client(spare_key) as spare:
            assert credits(spare) == before - generated


# --- 8. limits under contention -----------------------------------------------------------


def test_a_body_over_the_limit_is_413_while_others_generate(deployment):
    with deployment.client("limits") as client:
        design_id = design(client)
        before = credits(client)
    huge = b'{"data": {"name": "' + b"x" * (10 * 1024 * 1024 + 10) + b'"}}'

    def work(number: int, client: Client) -> list[httpx.Response]:
        path = f"/designs/{design_id}/generate"
        if number == 0:
            return [client.post(path, content=huge, headers={"Content-Type": "application/json"})]
        return [client.post(path, json={"data": {"name": f"c{number}"}}) for _ in range(3)]

    answers = concurrently(deployment.servers, deployment.keys["limits"], work)
    assert_error(answers[0][0], 413, "PAYLOAD_TOO_LARGE")
    served = [a for batch in answers[1:] for a in batch]
    assert [a.status_code for a in served] == [201] * 3 * (CLIENTS - 1)
    with deployment.client("limits", 1) as client:
        assert credits(client) == before - len(served)


@pytest.fixture
def rate_limited(request, tmp_path, store) -> Iterator[tuple[Server, str]]:
    """A server with --rate-limit on a database of its own, and the key of a pro workspace."""
    database_url = store_database_url(request, store)
    service = Service(Settings(data_dir=tmp_path, database_url=database_url, render_processes=1))
    try:
        _, key = service.accounts.create_workspace("rated", "pro", 1000)
    finally:
        service.close()
    server = Server(tmp_path, env=server_env(database_url), args=("--rate-limit", str(RATE_LIMIT)))
    server.start()
    yield server, key
    server.stop()


def test_the_rate_limit_admits_no_more_than_its_budget_across_sixteen_clients(rate_limited):
    server, key = rate_limited
    with server.client(key) as client:
        design_id = design(client)
    started = time.monotonic()
    answers = concurrently(
        [server], key, lambda _, client: [client.post(f"/designs/{design_id}/generate", json={}) for _ in range(3)]
    )
    elapsed = time.monotonic() - started
    answers = [a for batch in answers for a in batch]
    served = [a for a in answers if a.status_code == 201]
    refused = [a for a in answers if a.status_code != 201]
    # A full bucket, plus what refilled while the burst ran (RATE_LIMIT a second): never more.
    assert 1 <= len(served) <= RATE_LIMIT + elapsed * RATE_LIMIT + 1, (len(served), elapsed)
    assert refused
    for answer in refused:
        assert_error(answer, 429, "RATE_LIMITED")
        assert int(answer.headers["Retry-After"]) >= 1
    with server.client(key) as client:
        me = wait_until(lambda: (lambda r: r if r.status_code == 200 else None)(client.get("/me")), what="a token")
        assert me.json()["data"]["credits"] == 1000 - len(served)  # a refused request costs nothing
