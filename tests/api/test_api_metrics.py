"""GET /metrics over real HTTP (extensions.md 8, "Metrics"), read with prometheus-client's own
parser: the counters rise with requests, generations and batches."""

from __future__ import annotations

import http.client

import httpx
import pytest

from api.models import DEFAULT_PDF_PROFILE
from tests.batch_jobs import MISSING, design, rows, wait_for_end
from tests.conftest import store_database_url
from tests.prometheus import scrape, value

from ..conftest import png
from ..server import Server

ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}}


@pytest.fixture(scope="module")
def server(request, tmp_path_factory, store):
    from api.service import Service, Settings

    database_url = store_database_url(request, store)
    data_dir = tmp_path_factory.mktemp("metrics")
    service = Service(Settings(data_dir=data_dir, database_url=database_url))
    key = service.accounts.create_workspace("watched", "pro", 1000)[1]
    service.close()
    started = Server(data_dir, env={"DOCBENCH_DATABASE_URL": database_url or ""}).start()
    started.key = key
    yield started
    started.stop()


def test_requests_are_counted_by_operation_and_status_never_by_raw_path(server):
    before = scrape(server)
    with server.client(server.key) as client:
        for _ in range(3):
            client.error(client.get("/designs/dsg_nowhere"), 404, "DESIGN_NOT_FOUND")
        client.data(client.get("/me"), 200)
    after = scrape(server)
    missing = {"route": "get_design", "method": "GET", "status": "404"}
    assert (
        value(after, "docbench_http_requests_total", **missing)
        == value(before, "docbench_http_requests_total", **missing) + 3
    )
    me = {"route": "me", "method": "GET", "status": "200"}
    assert value(after, "docbench_http_requests_total", **me) >= value(before, "docbench_http_requests_total", **me) + 1
    latency = {"route": "get_design", "method": "GET"}
    assert (
        value(after, "docbench_http_request_duration_seconds_count", **latency)
        == value(before, "docbench_http_request_duration_seconds_count", **latency) + 3
    )
    assert value(after, "docbench_http_request_duration_seconds_bucket", le="+Inf", **latency) == value(
        after, "docbench_http_request_duration_seconds_count", **latency
    )
    assert not any("dsg_nowhere" in str(labels) for _, labels in after)


def test_a_generation_counts_a_render_with_its_duration_and_a_credit(server):
    with server.client(server.key) as client:
        design_id = design(client)
        before = scrape(server)
        client.data(client.post(f"/designs/{design_id}/generate", json={"data": {"name": "Ada"}}), 201)
    after = scrape(server)
    render = {"kind": "generate", "profile": DEFAULT_PDF_PROFILE}
    done = {**render, "outcome": "completed"}
    assert value(after, "docbench_renders_total", **done) == value(before, "docbench_renders_total", **done) + 1
    seconds = "docbench_render_duration_seconds"
    assert value(after, f"{seconds}_count", **render) == value(before, f"{seconds}_count", **render) + 1
    assert value(after, f"{seconds}_sum", **render) > value(before, f"{seconds}_sum", **render)
    debited = "docbench_credits_debited_total"
    assert value(after, debited, reason="generate") == value(before, debited, reason="generate") + 1


def test_a_batch_counts_its_rows_by_outcome_its_renders_and_its_credits(server):
    with server.client(server.key) as client:
        design_id = design(client)
        good = client.data(client.post("/uploads", files={"file": ("a.png", png(), "image/png")}), 201)["ref"]
        batch = [dict(r, photo=ref) for r, ref in zip(rows(3), [good, MISSING, good], strict=True)]
        before = scrape(server)
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": batch}), 202)["jobId"]
        wait_for_end(client, job_id)
    after = scrape(server)

    def rise(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert rise("docbench_batch_rows_total", outcome="completed") == 2
    assert rise("docbench_batch_rows_total", outcome="failed") == 1
    assert rise("docbench_renders_total", kind="batch", profile=DEFAULT_PDF_PROFILE, outcome="completed") == 2
    assert rise("docbench_render_duration_seconds_count", kind="batch", profile=DEFAULT_PDF_PROFILE) == 3
    assert rise("docbench_credits_debited_total", reason="batch") == 3
    assert rise("docbench_credits_refunded_total", reason="batch-refund") == 1
    submitted = {"route": "submit_batch", "method": "POST", "status": "202"}
    assert rise("docbench_http_requests_total", **submitted) == 1
    # The job ended: nothing of this server's database is queued any more.
    assert value(after, "docbench_batch_queue_jobs") == 0 and value(after, "docbench_batch_queue_rows") == 0
    assert ("docbench_batch_queue_jobs", frozenset()) in after


def test_mcp_requests_are_counted_under_one_route(server):
    before = scrape(server)
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}
    answer = httpx.post(f"{server.url}/mcp", json=body, headers={**ACCEPT, "X-API-Key": server.key}, timeout=60)
    assert answer.status_code == 200
    after = scrape(server)
    mcp = {"route": "mcp", "method": "POST", "status": "200"}
    requests = "docbench_http_requests_total"
    assert value(after, requests, **mcp) == value(before, requests, **mcp) + 1


def _invent(server, first: int, count: int) -> int:
    """`count` requests with methods and paths of their own (issue 31's probe sent `X<16000
    letters> /api/v1/me`); how many of them had an invented method."""
    invented = 0
    for n in range(first, first + count):
        method = f"X{'Q' * 4000}{n}"
        method, path = [
            (method, "/api/v1/me"),  # a known path: Tornado refuses the method (405) before the handler runs
            (method, f"/api/v1/nowhere/{n}"),
            ("GET", f"/api/v1/nowhere/{n}-{'p' * 200}"),  # no route: 404
            (method, "/mcp"),
        ][n % 4]
        invented += method != "GET"
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        try:
            connection.request(method, path, headers={"X-API-Key": server.key})
            assert connection.getresponse().status in (404, 405)
        finally:
            connection.close()
    return invented


def test_invented_methods_and_paths_add_no_series(server):
    _invent(server, 0, 20)  # every kind once: their "other" series exist from here on
    before = scrape(server)
    size = len(httpx.get(f"{server.url}/metrics").content)
    invented = _invent(server, 20, 200)
    after = scrape(server)
    # The series are the same ones: 200 more requests add none (each used to add ~19).
    assert set(after) == set(before)
    assert len(httpx.get(f"{server.url}/metrics").content) < size + 1024
    assert not any("QQQ" in value or "nowhere" in value for _, labels in after for _, value in labels)
    # Each is counted once, under closed labels.
    requests = "docbench_http_requests_total"
    rise = sum(after[series] - before[series] for series in after if series[0] == requests)
    assert rise == 200
    other = {series for series in after if series[0] == requests and ("method", "other") in series[1]}
    assert sum(after[series] - before[series] for series in other) == invented
    assert value(after, requests, route="method_not_allowed", method="other", status="405") >= 50
    assert value(after, requests, route="mcp", method="other", status="405") >= 50
    assert value(after, requests, route="other", method="other", status="405") >= 50
    assert value(after, requests, route="other", method="GET", status="404") >= 50


@pytest.mark.duckdb_only
def test_no_metrics_turns_the_endpoint_off(tmp_path_factory):
    off = Server(tmp_path_factory.mktemp("no-metrics"), args=("--no-metrics",)).start()
    try:
        response = httpx.get(f"{off.url}/metrics")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "NOT_FOUND"
        assert "--no-metrics" in response.json()["error"]["message"]
    finally:
        off.stop()


def test_status_kind_and_profile_labels_come_from_closed_sets():
    from api.metrics import Metrics

    metrics = Metrics()
    metrics.request("me", "BREW", 799, 0.01)
    metrics.render("sketch", "glossy", True, 0.5)
    sample = metrics.registry.get_sample_value
    assert sample("docbench_http_requests_total", {"route": "me", "method": "other", "status": "other"}) == 1
    assert sample("docbench_renders_total", {"kind": "other", "profile": "other", "outcome": "completed"}) == 1
    metrics.request("me", "GET", 200, 0.01)
    assert sample("docbench_http_requests_total", {"route": "me", "method": "GET", "status": "200"}) == 1
