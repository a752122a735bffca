"""Batch webhooks (extensions.md 8, api/service/webhooks.py) over real HTTP: a real `docbench
serve` on each store, and a real listener (http.server on loopback, in a thread) recording
what it is sent. The retry schedule is shortened with DOCBENCH_WEBHOOK_RETRY_SCALE."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.batch_jobs import MISSING, design, rows, wait_for_end

from ..conftest import store_database_url
from ..https_images import make_certificate
from ..server import Server, free_port, wait_until

RUN_ON_BOTH_STORES = True
# 10 s, 1 min, 5 min… become 0.2 s, 1.2 s, 6 s…
SCALE = "DOCBENCH_WEBHOOK_RETRY_SCALE"
RETRY_ENV = {SCALE: "0.02"}


class Listener:
    """A webhook receiver on loopback: answers the next of `answers` (then 200), keeps every request."""

    def __init__(
        self,
        answers: list[int] | None = None,
        tls: tuple[Path, Path] | None = None,
        on_request: Callable[[], None] | None = None,
    ):
        """`on_request` runs for each request before it is answered (the sender waits for it)."""
        self.answers = list(answers or [])
        self.received: list[dict] = []
        self.lock = threading.Lock()
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if on_request is not None:
                    on_request()
                with listener.lock:
                    status = listener.answers.pop(0) if listener.answers else 200
                    listener.received.append(
                        {"headers": dict(self.headers), "body": body, "answered": status, "at": time.time()}
                    )
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{port}/hooks/docbench"
        if tls is not None:  # the certificate names localhost (tests/https_images.py)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.url = f"https://localhost:{port}/hooks/docbench"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def count(self) -> int:
        with self.lock:
            return len(self.received)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class HookEnv:
    """A server that allows private webhook targets (--webhook-allow-private), with the workspace
    `hooks` (`key`) and the `others` (`keys`)."""

    def __init__(
        self,
        tmp_path_factory,
        database_url: str | None,
        retry_scale: str = RETRY_ENV[SCALE],
        env: dict[str, str] | None = None,
        others: tuple[str, ...] = (),
    ):
        from api.service import Service, Settings

        self.data_dir = tmp_path_factory.mktemp("webhooks")
        self.database_url = database_url
        service = Service(Settings(data_dir=self.data_dir, database_url=database_url))
        self.key = service.accounts.create_workspace("hooks", "pro", 10_000)[1]
        self.keys = {name: service.accounts.create_workspace(name, "pro", 10_000)[1] for name in others}
        service.close()
        env = {SCALE: retry_scale, "DOCBENCH_DATABASE_URL": database_url or "", **(env or {})}
        self.server = Server(self.data_dir, env=env, args=("--webhook-allow-private",)).start()

    def client(self, key: str | None = None):
        return self.server.client(key or self.key)


@pytest.fixture(scope="module")
def hooks(request, tmp_path_factory, store):
    env = HookEnv(tmp_path_factory, store_database_url(request, store))
    yield env
    env.server.stop()


@pytest.fixture
def listener():
    receiver = Listener()
    yield receiver
    receiver.close()


def submit(client, webhook_url: str, batch: list[dict] | None = None) -> str:
    design_id = design(client)
    body = {"rows": batch or rows(2), "webhookUrl": webhook_url}
    return client.data(client.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]


def deliveries_once(client, job_id: str, count: int, timeout: float = 60) -> list[dict]:
    def enough():
        job = client.data(client.get(f"/batches/{job_id}"), 200)
        return job["webhook"]["deliveries"] if len(job["webhook"]["deliveries"]) >= count else None

    return wait_until(enough, timeout=timeout, interval=0.1, what=f"{count} webhook attempts for {job_id}")


def delivered(client, job_id: str) -> bool:
    deliveries = client.data(client.get(f"/batches/{job_id}"), 200)["webhook"]["deliveries"]
    return bool(deliveries) and deliveries[-1]["status"] == 200


def verify(secret: str, request: dict) -> dict:
    """What a receiver does (the manual, "Verify a webhook"): recompute the HMAC of "<t>.<body>"."""
    fields = dict(part.split("=", 1) for part in request["headers"]["Docbench-Signature"].split(","))
    expected = hmac.new(secret.encode(), f"{fields['t']}.".encode() + request["body"], hashlib.sha256).hexdigest()
    assert hmac.compare_digest(expected, fields["v1"]), "the signature does not match the body"
    assert abs(time.time() - int(fields["t"])) < 300
    return json.loads(request["body"])


def test_a_finished_batch_posts_a_signed_completed_event(hooks, listener):
    with hooks.client() as client:
        secret = client.data(client.get("/me"), 200)["webhookSecret"]
        job_id = submit(client, listener.url)
        job = wait_for_end(client, job_id)
        wait_until(listener.count, what="the webhook")
        [request] = listener.received
        event = verify(secret, request)
        assert event["type"] == "batch.completed" and event["id"].startswith("evt_")
        assert request["headers"]["Docbench-Event-Id"] == event["id"]
        assert request["headers"]["Content-Type"] == "application/json"
        # The job as GET /batches/:jobId answers it, webhook included: its deliveries as they
        # stood when the event was made (none yet).
        assert event["data"] == {**job, "webhook": {"url": listener.url, "deliveries": []}}
        assert event["data"]["status"] == "completed" and event["data"]["completed"] == 2
        [attempt] = deliveries_once(client, job_id, 1)
        assert (attempt["attempt"], attempt["status"], attempt["error"]) == (1, 200, None)
        assert client.data(client.get(f"/batches/{job_id}"), 200)["webhook"]["url"] == listener.url
        # A signature made with another key does not verify: the test's check can fail.
        with pytest.raises(AssertionError):
            verify("whsec_" + "0" * 64, request)


def test_a_failed_batch_posts_batch_failed(hooks, listener):
    with hooks.client() as client:
        secret = client.data(client.get("/me"), 200)["webhookSecret"]
        job_id = submit(client, listener.url, [dict(r, photo=f"{MISSING}{i}") for i, r in enumerate(rows(2))])
        assert wait_for_end(client, job_id)["status"] == "failed"
        wait_until(listener.count, what="the webhook")
        event = verify(secret, listener.received[0])
        assert event["type"] == "batch.failed" and event["data"]["failed"] == 2


def test_a_500_is_retried_and_every_attempt_is_listed(hooks):
    receiver = Listener(answers=[500])
    try:
        with hooks.client() as client:
            job_id = submit(client, receiver.url)
            first, second = deliveries_once(client, job_id, 2)
            assert (first["attempt"], first["status"]) == (1, 500) and "500" in first["error"]
            assert (second["attempt"], second["status"], second["error"]) == (2, 200, None)
            assert [r["answered"] for r in receiver.received] == [500, 200]
            # The same event, signed again: receivers deduplicate by its id.
            ids = {r["headers"]["Docbench-Event-Id"] for r in receiver.received}
            assert len(ids) == 1 and receiver.received[0]["body"] == receiver.received[1]["body"]
            assert receiver.received[1]["at"] - receiver.received[0]["at"] >= 0.2  # 10 s scaled by 0.02
    finally:
        receiver.close()


def test_an_unreachable_target_has_its_attempts_recorded_with_their_error(hooks):
    closed = f"http://127.0.0.1:{free_port()}/hook"  # nothing listens there
    with hooks.client() as client:
        job_id = submit(client, closed)
        first, second = deliveries_once(client, job_id, 2)
        for attempt in (first, second):
            assert attempt["status"] is None and "could not connect to 127.0.0.1" in attempt["error"]
        assert (first["attempt"], second["attempt"]) == (1, 2)


def test_private_loopback_and_http_targets_are_refused_without_the_flag(api_server):
    with api_server.client(api_server.workspaces["alpha"][1]) as client:
        design_id = design(client)
        for url, words in [
            ("http://example.com/hook", "only https://"),
            ("https://127.0.0.1/hook", "loopback"),
            ("https://10.1.2.3/hook", "private"),
            ("https://169.254.169.254/latest", "metadata"),
            ("https://user:pw@example.com/hook", "user name"),
        ]:
            body = {"rows": rows(1), "webhookUrl": url}
            message = client.error(client.post(f"/designs/{design_id}/batch", json=body), 400, "VALIDATION_ERROR")
            assert words in message and "webhookUrl" in message, message
            if words != "user name":
                assert "--webhook-allow-private" in message or "public" in message


def test_me_has_a_webhook_secret(api_server):
    secrets_seen = set()
    for name in ("alpha", "beta"):
        with api_server.client(api_server.workspaces[name][1]) as client:
            me = client.data(client.get("/me"), 200)
            assert me["webhookSecret"].startswith("whsec_") and len(me["webhookSecret"]) == 70
            assert client.data(client.get("/me"), 200)["webhookSecret"] == me["webhookSecret"]
            secrets_seen.add(me["webhookSecret"])
    assert len(secrets_seen) == 2


def test_a_restart_between_attempts_delivers_after_it(request, tmp_path_factory, store):
    env = HookEnv(tmp_path_factory, store_database_url(request, store))
    receiver = Listener(answers=[500] * 1000)  # fails until the server is stopped
    try:
        with env.client() as client:
            secret = client.data(client.get("/me"), 200)["webhookSecret"]
            job_id = submit(client, receiver.url)
            wait_until(receiver.count, what="the first attempt")
        env.server.stop()
        with receiver.lock:
            failed_before = len(receiver.received)
            receiver.answers.clear()  # from now on: 200
        env.server.start()
        with env.client() as client:
            delivered = wait_until(
                lambda: next((r for r in receiver.received if r["answered"] == 200), None),
                timeout=60,
                what="the delivery after the restart",
            )
            assert receiver.received.index(delivered) == failed_before  # the first attempt after the restart
            assert verify(secret, delivered)["type"] == "batch.completed"
            attempts = deliveries_once(client, job_id, failed_before + 1)
            assert [a["status"] for a in attempts] == [500] * failed_before + [200]
            assert [a["attempt"] for a in attempts] == list(range(1, failed_before + 2))
    finally:
        env.server.stop()
        receiver.close()


def test_mcp_submit_batch_takes_a_webhook_url_and_refuses_a_loopback_one(api_server):
    from tests.mcp_calls import run

    key = api_server.workspaces["alpha"][1]
    with api_server.client(key) as client:
        design_id = design(client)

    async def script(session):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        arguments = {"designId": design_id, "rows": rows(1), "webhookUrl": "https://127.0.0.1/hook"}
        return tools["submit_batch"], await session.call_tool("submit_batch", arguments)

    tool, result = run(api_server, key, script)
    assert tool.input_schema["properties"]["webhookUrl"]["type"] == "string"
    assert result.is_error is True and "webhookUrl" in result.content[0].text and "loopback" in result.content[0].text


def test_two_servers_on_one_database_send_each_attempt_once(request, tmp_path_factory, store):
    if store != "postgres":
        pytest.skip("several processes share a PostgreSQL database; DuckDB admits one")
    env = HookEnv(tmp_path_factory, store_database_url(request, store))
    second = Server(env.data_dir, env=env.server.env, args=("--webhook-allow-private",)).start()
    receiver = Listener(answers=[500] * 4)  # the first attempts fail: retries are claimed too
    try:
        with env.client() as client:
            jobs = [submit(client, receiver.url) for _ in range(4)]
            for job_id in jobs:
                wait_until(lambda job_id=job_id: delivered(client, job_id), timeout=60, what=f"the event of {job_id}")
            attempts = sum(len(client.data(client.get(f"/batches/{j}"), 200)["webhook"]["deliveries"]) for j in jobs)
        events = [r["headers"]["Docbench-Event-Id"] for r in receiver.received]
        assert len(set(events)) == 4
        assert len(receiver.received) == attempts == 8  # one request per recorded attempt: none sent twice
    finally:
        second.stop()
        env.server.stop()
        receiver.close()


def test_a_workspace_made_before_the_migration_gets_a_secret_on_first_use(tmp_path, database_url):
    from api.service import Service, Settings

    service = Service(Settings(data_dir=tmp_path))
    try:
        workspace, _ = service.accounts.create_workspace("old", "pro", 1)
        with service.store.transaction() as cursor:  # as migration 11 leaves the workspaces it finds
            cursor.execute("UPDATE workspaces SET webhook_secret = NULL WHERE id = ?", [workspace.id])
        made = service.accounts.me(workspace)["webhookSecret"]
        assert made.startswith("whsec_") and service.accounts.me(workspace)["webhookSecret"] == made
    finally:
        service.close()


def test_the_sixth_failed_attempt_abandons_the_event(request, tmp_path_factory, store):
    # The whole schedule (10 s … 2 h, 2 h 36 min in all) scaled down to about 5 s.
    env = HookEnv(tmp_path_factory, store_database_url(request, store), retry_scale="0.0005")
    receiver = Listener(answers=[503] * 1000)
    try:
        with env.client() as client:
            job_id = submit(client, receiver.url)
            attempts = deliveries_once(client, job_id, 6)
            assert [a["attempt"] for a in attempts] == [1, 2, 3, 4, 5, 6]
            assert all(a["status"] == 503 and "503" in a["error"] for a in attempts)
            sent_at = [r["at"] for r in receiver.received]
            assert sent_at[5] - sent_at[4] >= 7200 * 0.0005  # the last wait is the 2 h one, scaled
        from tests.prometheus import value

        counted = scrape_when(
            env.server,
            lambda s: value(s, "docbench_webhook_deliveries_total", outcome="abandoned") == 1,
            "the abandoned event in /metrics",
        )
        assert value(counted, "docbench_webhook_deliveries_total", outcome="failed") == 5
        env.server.stop()  # a restart does not revive an abandoned event
        env.server.start()
        with env.client() as client:
            job = client.data(client.get(f"/batches/{job_id}"), 200)
            assert len(job["webhook"]["deliveries"]) == 6 and receiver.count() == 6
    finally:
        env.server.stop()
        receiver.close()


def test_https_delivery_checks_the_certificate_against_the_host_name(request, tmp_path_factory, store, hooks):
    cert, key = make_certificate(tmp_path_factory.mktemp("webhook-tls"))
    receiver = Listener(tls=(cert, key))
    trusting = HookEnv(tmp_path_factory, store_database_url(request, store), env={"DOCBENCH_FETCH_CAFILE": str(cert)})
    try:
        # The server that trusts the test certificate delivers over TLS, to the checked address.
        with trusting.client() as client:
            secret = client.data(client.get("/me"), 200)["webhookSecret"]
            job_id = submit(client, receiver.url)
            [attempt] = deliveries_once(client, job_id, 1)
            assert (attempt["status"], attempt["error"]) == (200, None)
            [received] = receiver.received
            assert received["headers"]["Host"] == receiver.url.split("/")[2]  # the name, not the address
            assert verify(secret, received)["type"] == "batch.completed"
        # One that does not trust it refuses to send.
        with hooks.client() as client:
            job_id = submit(client, receiver.url)
            attempt = deliveries_once(client, job_id, 1)[0]
            assert attempt["status"] is None and "certificate of localhost could not be verified" in attempt["error"]
            assert receiver.count() == 1
    finally:
        trusting.server.stop()
        receiver.close()


def test_every_attempt_checks_the_address_again(request, tmp_path_factory, store):
    # Accepted while private targets were allowed; the retry, made by a server that refuses
    # them, checks the address again (as it would a name now resolving elsewhere) and sends nothing.
    env = HookEnv(tmp_path_factory, store_database_url(request, store))
    receiver = Listener(answers=[500] * 1000)
    try:
        with env.client() as client:
            job_id = submit(client, receiver.url)
            wait_until(receiver.count, what="the first attempt")
        env.server.stop()
        sent = receiver.count()
        env.server.args = []  # no --webhook-allow-private
        env.server.start()
        with env.client() as client:
            attempts = deliveries_once(client, job_id, sent + 1)
            refused = attempts[sent]
            assert refused["status"] is None and "only https://" in refused["error"], refused
            assert receiver.count() == sent
    finally:
        env.server.stop()
        receiver.close()


# --- One attempt at a time, 10 s in all (review 18 #4, #20) ----------------------------------


class Trickler:
    """A receiver on loopback that reads the request, then answers a valid 200 one byte a
    second (about 40 s in all): each read comes well within httpx's 10 s per-read timeout,
    so only a deadline on the whole attempt cuts it off. Counts the connections it accepts."""

    ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

    def __init__(self):
        self.listening = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listening.getsockname()[1]}/slow"
        self.connections = 0
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped.is_set():
            try:
                conn, _ = self.listening.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket):
        with conn:
            received = b""
            while b"\r\n\r\n" not in received:
                received += conn.recv(65536)
            head, _, body = received.partition(b"\r\n\r\n")
            length = int(next(h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")).split(b":")[1])
            while len(body) < length:
                body += conn.recv(65536)
            for byte in self.ANSWER:
                if self.stopped.wait(1.0):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:  # the sender gave up and closed the connection
                    return

    def close(self):
        self.stopped.set()
        self.listening.close()


def schedule(webhooks, workspace_id: str, url: str) -> str:
    """An ended job's event, scheduled as Batches.job_done does (inside a transaction)."""
    from api.service.common import new_id

    job_id = new_id("job")
    with webhooks.store.transaction() as cursor:
        webhooks.schedule(cursor, workspace_id, url, {"jobId": job_id, "status": "completed"})
    webhooks.poke()
    return job_id


@pytest.fixture
def hook_service(tmp_path, database_url, monkeypatch):
    """An in-process Service allowing loopback receivers; retries pushed far away (scale 100),
    so each test sees first attempts only."""
    from api.service import Service, Settings

    monkeypatch.setenv(SCALE, "100")
    service = Service(Settings(data_dir=tmp_path, webhook_allow_private=True))
    workspace, _ = service.accounts.create_workspace("hooks", "pro", 10)
    service.workspace_id = workspace.id
    yield service
    service.close()


@pytest.mark.slow
def test_a_trickling_receiver_is_cut_off_after_10_s_sent_once_and_delays_no_other(hook_service):
    from api.service.webhooks import Webhooks

    trickler, listener = Trickler(), Listener()
    # Two senders on one store, as two processes on one database: each attempt goes out once.
    senders = [Webhooks(hook_service.store, hook_service.accounts, hook_service.settings) for _ in range(2)]
    try:
        senders[0].start()
        slow_job = schedule(senders[0], hook_service.workspace_id, trickler.url)
        wait_until(lambda: trickler.connections, what="the trickling receiver's connection")
        # The same process sends another workspace's event meanwhile: the slow one holds one sender.
        quick_job = schedule(senders[0], hook_service.workspace_id, listener.url)
        wait_until(lambda: senders[0].deliveries(quick_job), what="the quick receiver's delivery")
        assert listener.count() == 1
        assert senders[0].deliveries(slow_job) == []  # the slow attempt is still going on
        senders[1].start()  # another process, polling while the slow attempt is sent: it leaves it alone
        [attempt] = wait_until(lambda: senders[0].deliveries(slow_job), timeout=40, what="the slow attempt's end")
        # Cut off at 10 s in all, although each byte came within httpx's per-read timeout.
        assert attempt["status"] is None and attempt["error"] == "no answer from 127.0.0.1 within 10 s", attempt
        assert trickler.connections == 1
    finally:
        for sender in senders:
            sender.close()
        trickler.close()
        listener.close()


def test_close_keeps_the_claim_of_an_attempt_being_sent_and_lets_go_of_the_others(hook_service, monkeypatch):
    import api.service.webhooks as module
    from api.service.common import new_id, now

    trickler = Trickler()
    sender = module.Webhooks(hook_service.store, hook_service.accounts, hook_service.settings)
    try:
        sender.start()
        sending = schedule(sender, hook_service.workspace_id, trickler.url)
        wait_until(lambda: trickler.connections, what="the attempt to start")
        # An attempt this process claimed but is not sending (made and claimed in one transaction,
        # so the sender never picks it up itself).
        waiting = new_id("job")
        with hook_service.store.transaction() as cursor:
            sender.schedule(cursor, hook_service.workspace_id, trickler.url, {"jobId": waiting, "status": "failed"})
            cursor.execute(
                "UPDATE webhook_deliveries SET claimed_by = ?, claim_until = ? WHERE job_id = ?",
                [sender.runner, now() + dt.timedelta(seconds=60), waiting],
            )
        # close() waits ATTEMPT_SECONDS + 5 for a running send; shortened (after the attempt
        # started with its 10 s) so that the send outlives the wait.
        monkeypatch.setattr(module, "ATTEMPT_SECONDS", 0.5)
        sender.close()
        claims = dict(
            hook_service.store.all(
                "SELECT job_id, claim_until IS NOT NULL FROM webhook_deliveries WHERE state = 'pending'", []
            )
        )
        assert claims == {sending: True, waiting: False}  # the one being sent keeps its claim
        assert trickler.connections == 1
    finally:
        trickler.close()  # the send that outlived close() ends now and records its attempt:
        # waited for, so that the store is not closed under it
        wait_until(lambda: sender.deliveries(sending), timeout=30, what="the last send to record its attempt")


# --- What sends an event, what the event says (review 18 #6, #7) ----------------------------


def test_a_submit_the_queue_refused_sends_no_event(request, tmp_path_factory, store):
    """503 and no jobId: the client never learned of the job, so no event may name it.
    The queue is a real Redis that answers PING but refuses every write (maxmemory 1)."""
    import redis

    from api.service import Service, Settings

    from ..server import RedisServer

    database_url = store_database_url(request, store)
    data_dir = tmp_path_factory.mktemp("refused")
    service = Service(Settings(data_dir=data_dir, database_url=database_url))
    key = service.accounts.create_workspace("hooks", "pro", 100)[1]
    service.close()
    queue = RedisServer(data_dir)
    server = Server(
        data_dir,
        env={"DOCBENCH_DATABASE_URL": database_url or ""},
        args=("--webhook-allow-private", "--redis-url", queue.url),
    ).start()
    receiver = Listener()
    try:
        with server.client(key) as client:
            design_id = design(client)
            redis.Redis.from_url(queue.url).config_set("maxmemory", 1)  # writes fail with OOM from now on
            body = {"rows": rows(2), "webhookUrl": receiver.url}
            message = client.error(client.post(f"/designs/{design_id}/batch", json=body), 503, "SERVICE_UNAVAILABLE")
            assert "nothing was charged" in message
        server.stop()
        service = Service(Settings(data_dir=data_dir, database_url=database_url))
        try:
            [(status,)] = service.store.all("SELECT status FROM batch_jobs", [])
            assert status == "failed"  # the job was recorded, then cancelled
            assert service.store.one("SELECT count(*) FROM webhook_deliveries", [])[0] == 0
        finally:
            service.close()
        assert receiver.count() == 0
    finally:
        server.stop()
        queue.stop()
        receiver.close()


# --- Addresses: a temporary DNS failure, a name that does not exist, pinning (#10, #29) -----


def fake_resolver(monkeypatch, answers: dict[str, list[list[str]]]) -> list[str]:
    """socket.getaddrinfo answering each name in `answers` with its next list of addresses
    (the last one repeats); other hosts (IP literals included) resolve for real. Lookups of
    those names are listed in the returned list."""
    real = socket.getaddrinfo
    looked_up: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        if host not in answers:
            return real(host, port, *args, **kwargs)
        looked_up.append(host)
        addresses = answers[host][min(looked_up.count(host), len(answers[host])) - 1]
        if addresses == ["EAI_AGAIN"]:
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (a, port)) for a in addresses]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return looked_up


def test_a_temporary_dns_failure_is_a_503_and_a_name_that_does_not_exist_a_400(monkeypatch):
    from api.errors import ApiError
    from api.service.webhooks import check_webhook_url

    # The machine's own resolver: a .invalid name never exists (EAI_NONAME), a lasting fault.
    with pytest.raises(ApiError) as refused:
        check_webhook_url("https://nowhere.invalid/hook", allow_private=False)
    assert refused.value.code == "VALIDATION_ERROR"
    assert "nowhere.invalid could not be resolved; check the URL's host name" in refused.value.message
    # A resolver that cannot answer right now (EAI_AGAIN): 503, so an idempotency key keeps nothing.
    fake_resolver(monkeypatch, {"hooks.example.com": [["EAI_AGAIN"]]})
    with pytest.raises(ApiError) as unavailable:
        check_webhook_url("https://hooks.example.com/hook", allow_private=False)
    assert unavailable.value.code == "SERVICE_UNAVAILABLE"
    assert "could not resolve the host hooks.example.com right now" in unavailable.value.message
    assert "try again" in unavailable.value.message


def test_a_name_resolving_to_loopback_is_refused_without_the_flag(api_server):
    with api_server.client(api_server.workspaces["alpha"][1]) as client:
        design_id = design(client)
        body = {"rows": rows(1), "webhookUrl": "https://localhost/hook"}  # /etc/hosts: 127.0.0.1
        message = client.error(client.post(f"/designs/{design_id}/batch", json=body), 400, "VALIDATION_ERROR")
        assert "localhost resolves to a loopback address" in message and "127.0.0.1" not in message


def test_the_attempt_connects_to_the_address_it_checked(hook_service, listener, monkeypatch):
    """DNS rebinding: the name resolves to the receiver when checked, and elsewhere (127.0.0.2,
    where nothing listens) at any later lookup. The POST still reaches the receiver, with the
    name in Host: the connection went to the checked address, the name was looked up once."""
    from api.service.webhooks import Webhooks

    port = listener.url.split(":")[2].split("/")[0]
    looked_up = fake_resolver(monkeypatch, {"rebind.example": [["127.0.0.1"], ["127.0.0.2"]]})
    sender = Webhooks(hook_service.store, hook_service.accounts, hook_service.settings)
    try:
        sender.start()
        job_id = schedule(sender, hook_service.workspace_id, f"http://rebind.example:{port}/hooks/docbench")
        [attempt] = wait_until(lambda: sender.deliveries(job_id), what="the attempt")
        assert (attempt["status"], attempt["error"]) == (200, None)
        [received] = listener.received
        assert received["headers"]["Host"] == f"rebind.example:{port}"
        assert looked_up == ["rebind.example"]
    finally:
        sender.close()


# --- Metrics (review 18 #15) -------------------------------------------------------------------


def scrape_when(server, ready, what: str) -> dict:
    """GET /metrics until `ready(samples)`: outcomes are counted just after they are committed."""
    from tests.prometheus import scrape

    def samples():
        found = scrape(server)
        return found if ready(found) else None

    return wait_until(samples, what=what)


def test_delivery_outcomes_and_durations_are_counted_in_metrics(hooks):
    from tests.prometheus import scrape, value

    def outcomes(samples) -> tuple[float, float, float]:
        return (
            value(samples, "docbench_webhook_deliveries_total", outcome="delivered"),
            value(samples, "docbench_webhook_deliveries_total", outcome="failed"),
            value(samples, "docbench_webhook_delivery_seconds_count"),
        )

    receiver = Listener(answers=[500])
    try:
        delivered, failed, timed = outcomes(scrape(hooks.server))
        with hooks.client() as client:
            job_id = submit(client, receiver.url)
            deliveries_once(client, job_id, 2)
        after = scrape_when(
            hooks.server, lambda s: outcomes(s) == (delivered + 1, failed + 1, timed + 2), "the attempts in /metrics"
        )
        assert value(after, "docbench_webhook_delivery_seconds_bucket", le="+Inf") == timed + 2
        assert value(after, "docbench_webhook_delivery_seconds_sum") > 0
    finally:
        receiver.close()


# --- Workspaces take turns at the senders (issue 31 #4) ---------------------------------------


class Hanger:
    """A receiver on loopback that reads each request and then answers nothing (until released
    or the sender gives up): counts the requests it got and the most it held open at once."""

    ANSWER = Trickler.ANSWER

    def __init__(self):
        self.listening = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listening.getsockname()[1]}/hang"
        self.received: list[dict] = []  # {"event": Docbench-Event-Id, "at": time.time()}
        self.open = self.most_open = 0
        self.lock = threading.Lock()
        self.released = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.listening.accept()
            except OSError:
                return
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn: socket.socket):
        with conn:
            received = b""
            while b"\r\n\r\n" not in received:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                received += chunk
            head = received.partition(b"\r\n\r\n")[0].decode()
            event = next(line.split(":", 1)[1].strip() for line in head.split("\r\n") if line.startswith("Docbench-Ev"))
            with self.lock:
                self.received.append({"event": event, "at": time.time()})
                self.open += 1
                self.most_open = max(self.most_open, self.open)
            conn.settimeout(0.05)
            try:
                while not self.released.is_set():
                    try:
                        if not conn.recv(65536):
                            break  # the sender gave up (its 10 s) and closed the connection
                    except TimeoutError:
                        continue
                else:
                    conn.sendall(self.ANSWER)
            except OSError:
                pass
            finally:
                with self.lock:
                    self.open -= 1

    def close(self):
        self.released.set()
        self.listening.close()


def test_a_workspace_whose_receivers_hang_does_not_delay_another_workspaces_event(request, tmp_path_factory, store):
    from api.service.webhooks import PER_WORKSPACE, SENDERS

    env = HookEnv(tmp_path_factory, store_database_url(request, store), others=("other",))
    hanger, listener = Hanger(), Listener()
    hanging = 12  # three times the senders: before, they took all 4 for 10 s, three rounds in a row
    try:
        with env.client() as client:
            design_id = design(client)
            jobs = [
                client.data(
                    client.post(f"/designs/{design_id}/batch", json={"rows": rows(1), "webhookUrl": hanger.url}), 202
                )["jobId"]
                for _ in range(hanging)
            ]
            for job_id in jobs:
                wait_for_end(client, job_id)
            wait_until(lambda: hanger.open >= PER_WORKSPACE, what="the hanging receivers to be sent to")
        with env.client(env.keys["other"]) as other:
            job_id = submit(other, listener.url)
            wait_until(listener.count, timeout=60, what="the other workspace's webhook")
        [sent] = listener.received
        made = dt.datetime.fromisoformat(json.loads(sent["body"])["createdAt"]).timestamp()
        with hanger.lock:
            reached_before = {r["event"] for r in hanger.received if r["at"] <= sent["at"]}
        # The hanging workspace's backlog was still there (most of its events not sent even
        # once), and the other's event went out at once, not after them (before: 20 s or more).
        assert len(reached_before) <= SENDERS and hanging - len(reached_before) >= 8
        assert sent["at"] - made < 5, f"the other workspace's event waited {sent['at'] - made:.1f} s"
        # Half the senders at most: the rest stay free for the other workspaces.
        assert hanger.most_open <= PER_WORKSPACE < SENDERS
    finally:
        hanger.close()  # the held attempts are answered: the server stops without waiting 10 s
        env.server.stop()
        listener.close()


# --- Rotating the webhook secret (issue 31 #6) -------------------------------------------------


def test_rotating_the_secret_over_rest_signs_the_retry_of_an_earlier_event_with_the_new_one(hooks):
    with hooks.client() as client:
        old = client.data(client.get("/me"), 200)["webhookSecret"]
        rotated: list[dict] = []

        def rotate_during_the_first_attempt():
            # While the first attempt waits for its answer: the retry is made after this.
            if not rotated:
                with hooks.client() as rotating:
                    answer = rotating.post("/me/webhook-secret", headers={"Idempotency-Key": "rotate-1"})
                    rotated.append(rotating.data(answer, 200))

        receiver = Listener(answers=[500], on_request=rotate_during_the_first_attempt)
        try:
            job_id = submit(client, receiver.url)
            first, second = deliveries_once(client, job_id, 2)
            assert (first["status"], second["status"]) == (500, 200)
            new = rotated[0]["webhookSecret"]
            assert rotated == [{"webhookSecret": new}] and new.startswith("whsec_") and len(new) == 70
            assert new != old and client.data(client.get("/me"), 200)["webhookSecret"] == new
            before, after = receiver.received
            assert verify(old, before)["id"] == verify(new, after)["id"]  # the same event, signed anew
            with pytest.raises(AssertionError):
                verify(old, after)  # the old secret stopped signing at once
            # Idempotency-Key: the same key answers the same secret again and rotates nothing.
            replay = client.post("/me/webhook-secret", headers={"Idempotency-Key": "rotate-1"})
            assert client.data(replay, 200) == {"webhookSecret": new}
            assert replay.headers["Idempotent-Replayed"] == "true"
            assert client.data(client.get("/me"), 200)["webhookSecret"] == new
        finally:
            receiver.close()


def test_rotate_webhook_secret_over_mcp(hooks, listener):
    from tests.mcp_calls import ok, run

    with hooks.client() as client:
        old = client.data(client.get("/me"), 200)["webhookSecret"]

    async def script(session):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        return tools["rotate_webhook_secret"], await session.call_tool("rotate_webhook_secret", {})

    tool, result = run(hooks.server, hooks.key, script)
    assert "idempotencyKey" in tool.input_schema["properties"] and "stops signing" in tool.description
    new = ok(result)["webhookSecret"]
    with hooks.client() as client:
        assert new != old and client.data(client.get("/me"), 200)["webhookSecret"] == new
        job_id = submit(client, listener.url)
        wait_for_end(client, job_id)
        wait_until(listener.count, what="the webhook")
    [request] = listener.received
    assert verify(new, request)["data"]["jobId"] == job_id
    with pytest.raises(AssertionError):
        verify(old, request)


def test_docbench_webhook_secret_rotate(request, tmp_path_factory, store):
    from ..server import docbench

    # The first retry 3 s after the first attempt: the server is stopped before it, as a rule.
    env = HookEnv(tmp_path_factory, store_database_url(request, store), retry_scale="0.3")
    receiver = Listener(answers=[500] * 1000)  # fails until the secret was rotated
    database = ("--database-url", env.database_url) if env.database_url else ()
    try:
        with env.client() as client:
            me = client.data(client.get("/me"), 200)
            job_id = submit(client, receiver.url)
            wait_until(receiver.count, what="the first attempt")
        env.server.stop()  # DuckDB admits one process: the command runs while the server is stopped
        with receiver.lock:
            signed_before = list(receiver.received)
            receiver.answers.clear()  # from now on: 200
        printed = docbench("webhook-secret", "rotate", me["workspaceId"], *database, data_dir=env.data_dir)
        rotated = json.loads(printed.stdout)
        new = rotated["webhookSecret"]
        assert rotated == {"workspaceId": me["workspaceId"], "webhookSecret": new} and new != me["webhookSecret"]
        unknown = docbench("webhook-secret", "rotate", "ws_nowhere", *database, data_dir=env.data_dir, check=False)
        assert unknown.returncode == 2 and "no workspace 'ws_nowhere'" in unknown.stderr
        env.server.start()
        with env.client() as client:
            assert client.data(client.get("/me"), 200)["webhookSecret"] == new
            wait_until(lambda: delivered(client, job_id), timeout=60, what="the retry after the rotation")
        retry = receiver.received[len(signed_before)]
        event = verify(new, retry)
        assert event["id"] == verify(me["webhookSecret"], signed_before[0])["id"]
        with pytest.raises(AssertionError):
            verify(me["webhookSecret"], retry)
        if not database:  # the running server holds the DuckDB file: the command says how else to rotate
            locked = docbench("webhook-secret", "rotate", me["workspaceId"], data_dir=env.data_dir, check=False)
            assert locked.returncode == 2 and "POST /api/v1/me/webhook-secret" in locked.stderr
    finally:
        env.server.stop()
        receiver.close()
