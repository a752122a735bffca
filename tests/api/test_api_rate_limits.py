"""--rate-limit over real HTTP (extensions.md 8, "Rate limits"): a token bucket per workspace,
429 RATE_LIMITED with Retry-After past it, RateLimit-* headers on every authenticated answer;
in memory for one process, shared by the processes on one Redis."""

from __future__ import annotations

import time

import httpx
import pytest

from ..conftest import store_database_url
from ..server import RedisServer, Server, wait_until

LIMIT = 3  # requests per second per workspace
ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}}


def workspaces(data_dir, database_url: str | None, names: list[str]) -> dict[str, str]:
    from api.service import Service, Settings

    service = Service(Settings(data_dir=data_dir, database_url=database_url))
    try:
        return {name: service.accounts.create_workspace(name, "pro", 100)[1] for name in names}
    finally:
        service.close()


@pytest.fixture(scope="module")
def limited(request, tmp_path_factory, store):
    database_url = store_database_url(request, store)
    data_dir = tmp_path_factory.mktemp("rate-limited")
    keys = workspaces(data_dir, database_url, ["burst", "first", "second", "errors", "mcp"])
    server = Server(data_dir, env={"DOCBENCH_DATABASE_URL": database_url or ""}, args=("--rate-limit", str(LIMIT)))
    server.keys = keys
    yield server.start()
    server.stop()


def assert_refused(response: httpx.Response) -> int:
    """A 429 as the spec words it; returns its Retry-After."""
    assert response.status_code == 429, (response.status_code, response.text)
    assert response.json()["error"]["code"] == "RATE_LIMITED"
    assert f"{LIMIT} requests per second" in response.json()["error"]["message"]
    assert response.headers["RateLimit-Limit"] == str(LIMIT)
    assert response.headers["RateLimit-Remaining"] == "0"
    retry_after = int(response.headers["Retry-After"])  # whole seconds
    assert retry_after >= 1
    assert int(response.headers["RateLimit-Reset"]) >= retry_after
    return retry_after


def test_a_burst_past_the_limit_is_refused_then_served_again(limited):
    with limited.client(limited.keys["burst"]) as client:
        answers = [client.get("/me") for _ in range(4 * LIMIT)]
        # A full bucket serves LIMIT at once, counting down.
        assert [a.status_code for a in answers[:LIMIT]] == [200] * LIMIT
        assert [a.headers["RateLimit-Remaining"] for a in answers[:LIMIT]] == [str(n) for n in range(LIMIT - 1, -1, -1)]
        assert all(a.headers["RateLimit-Limit"] == str(LIMIT) for a in answers)
        # A few tokens may come back while the burst is sent (LIMIT per second), not many.
        refused = [a for a in answers if a.status_code == 429]
        assert len(refused) >= 2 * LIMIT
        retry_after = max(assert_refused(a) for a in refused)
        assert retry_after == 1  # a token is back within a second at 3 per second
        started = time.monotonic()
        served = wait_until(
            lambda: (lambda a: a if a.status_code == 200 else None)(client.get("/me")),
            timeout=retry_after + 10,
            interval=0.05,
            what="a request to be served again",
        )
        assert time.monotonic() - started <= retry_after + 5
        assert served.headers["RateLimit-Limit"] == str(LIMIT) and "Retry-After" not in served.headers


def test_workspaces_do_not_share_a_bucket(limited):
    with limited.client(limited.keys["first"]) as first, limited.client(limited.keys["second"]) as second:
        answers = [first.get("/me") for _ in range(3 * LIMIT)]
        assert_refused(answers[-1])
        fresh = second.get("/me")
        assert fresh.status_code == 200
        assert fresh.headers["RateLimit-Remaining"] == str(LIMIT - 1)


def test_error_answers_carry_the_headers_and_anonymous_ones_do_not(limited):
    with limited.client(limited.keys["errors"]) as client:
        missing = client.get("/designs/dsg_nowhere")
        assert missing.status_code == 404 and missing.headers["RateLimit-Limit"] == str(LIMIT)
        bad = client.get("/designs", params={"limit": 0})
        assert bad.status_code == 400 and bad.headers["RateLimit-Remaining"] == str(LIMIT - 2)
    with limited.client("dbk_live_not_a_key") as stranger:
        refused = stranger.get("/me")
        assert refused.status_code == 401 and "RateLimit-Limit" not in refused.headers
    assert "RateLimit-Limit" not in httpx.get(f"{limited.api}/health").headers


def test_mcp_requests_take_tokens_too(limited):
    from concurrent.futures import ThreadPoolExecutor

    key = limited.keys["mcp"]
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}
    with httpx.Client(base_url=limited.url, headers={**ACCEPT, "X-API-Key": key}, timeout=60) as client:
        first = client.post("/mcp", json=body)
        assert first.status_code == 200 and first.headers["RateLimit-Remaining"] == str(LIMIT - 1)
        # Sent together, so that even a loaded machine sends them well within the seconds a
        # bucket of LIMIT takes to refill that many.
        started = time.monotonic()
        with ThreadPoolExecutor(4 * LIMIT) as pool:
            answers = list(pool.map(lambda _: client.post("/mcp", json=body), range(4 * LIMIT)))
        elapsed = time.monotonic() - started
    served = [a for a in answers if a.status_code == 200]
    refused = [a for a in answers if a.status_code == 429]
    assert len(served) + len(refused) == 4 * LIMIT
    # What is left of the bucket, plus what refilled meanwhile: never more.
    assert len(served) <= LIMIT - 1 + elapsed * LIMIT + 1, (len(served), elapsed)
    assert refused, f"{4 * LIMIT} requests in {elapsed:.1f} s all served"
    for answer in refused:
        assert_refused(answer)


def test_without_the_option_nothing_is_limited(api_server):
    with api_server.client(api_server.workspaces["alpha"][1]) as client:
        answers = [client.get("/me") for _ in range(20)]
        assert {a.status_code for a in answers} == {200}
        assert not any("RateLimit-Limit" in a.headers for a in answers)


@pytest.mark.slow
def test_two_servers_on_one_redis_share_the_bucket(tmp_path_factory, postgres_server):
    # One workspace seen by two processes: they share PostgreSQL (the workspace) and Redis (its bucket).
    database_url = postgres_server.fresh_database()
    data_dir = tmp_path_factory.mktemp("rate-shared")
    redis = RedisServer(data_dir)
    servers = []
    try:
        key = workspaces(data_dir, database_url, ["shared"])["shared"]
        env = {"DOCBENCH_DATABASE_URL": database_url}
        args = ("--rate-limit", str(LIMIT), "--redis-url", redis.url)
        for name in ("one", "two"):
            (data_dir / name).mkdir()
            servers.append(Server(data_dir / name, env=env, args=args).start())
        clients = [server.client(key) for server in servers]
        # Alternating between the processes: LIMIT in all are served, not LIMIT each.
        answers = [clients[i % 2].get("/me") for i in range(4 * LIMIT)]
        assert [a.status_code for a in answers[:LIMIT]] == [200] * LIMIT
        assert [a.headers["RateLimit-Remaining"] for a in answers[:LIMIT]] == [str(n) for n in range(LIMIT - 1, -1, -1)]
        refused = [a for a in answers if a.status_code == 429]
        assert len(refused) >= 2 * LIMIT
        assert {a.url.port for a in refused} == {servers[0].port, servers[1].port}
        for answer in refused:
            assert_refused(answer)
        for client in clients:
            client.close()
    finally:
        for server in servers:
            server.stop()
        redis.stop()
        postgres_server.drop_database(database_url)


@pytest.mark.duckdb_only
def test_a_rate_limit_below_one_is_refused_at_start(tmp_path_factory):
    from ..server import docbench

    refused = docbench("serve", "--rate-limit", "0", data_dir=tmp_path_factory.mktemp("bad-limit"), check=False)
    assert refused.returncode == 2 and "--rate-limit must be at least 1" in refused.stderr


def test_while_redis_is_down_each_process_limits_on_its_own(tmp_path):
    from api.ratelimit import REDIS_PREFIX, RedisBuckets

    redis = RedisServer(tmp_path)
    buckets = RedisBuckets(LIMIT, redis.url, retry_seconds=0.2)
    try:
        assert buckets.take("ws_shared").allowed
        assert buckets.redis.exists(REDIS_PREFIX + "ws_shared")  # the bucket lives in Redis
        redis.stop()
        # Neither an outage nor a free-for-all: this process's buckets refuse past the limit.
        decisions = [buckets.take("ws_alone") for _ in range(3 * LIMIT)]
        assert [d.allowed for d in decisions[:LIMIT]] == [True] * LIMIT
        assert not decisions[-1].allowed and decisions[-1].retry_after == 1
        redis = RedisServer(tmp_path, port=redis.port)  # back, empty
        wait_until(
            lambda: buckets.take("ws_back") and buckets.redis.exists(REDIS_PREFIX + "ws_back"),
            what="the buckets to be shared through Redis again",
        )
    finally:
        buckets.close()
        redis.stop()
