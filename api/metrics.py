"""Prometheus metrics (extensions.md 8, "Metrics"), served at GET /metrics by each web process.

Every series is counted in the web process, which is where every outcome is known:
- requests by route (the operation's name, "mcp" for the MCP endpoint: never a raw path with
  ids in it) and status, with a latency histogram;
- renders by kind (generate, batch) and profile with a duration histogram: a generation's
  render is timed by the web process that waits on its render process (the time includes a
  wait for a free process); a batch row's render time is measured where it rendered (a render
  process or an RQ worker) and comes back in its RowResult, which the web process holding
  the job records (Batches.rows_done), so render processes and workers keep no metrics of
  their own and need no multiprocess mode;
- batch rows by outcome (counted once, by the process that records the row);
- credits debited and refunded by reason;
- batch webhook attempts by outcome (delivered, failed and to be retried, abandoned after the
  last retry), counted by the process that sent the attempt once its outcome is committed, with
  a histogram of how long an attempt took (10 s at most, extensions.md 8);
- the batch queue's depth (unsettled jobs and their rows not yet done), read from the
  database when scraped: the same figure in every web process;
- the upload bodies this process is receiving and checking, and their bytes (api.rest.uploads
  bounds them), read when scraped.

Every label comes from a closed set, whatever a request sends (issue 31: invented HTTP methods
once added a series each, and /metrics grew to hundreds of MB): a method outside RFC 9110's
common ones, a status that is no HTTP status and a profile or kind the service does not know
are all counted as "other"; a route is an operation's name, "mcp", "method_not_allowed" (a
known path, a method it does not take) or "other" (a path under /api/v1 that is no route).

Several web processes each expose their own counters (scrape each one; sum them in
Prometheus). Each Service has a registry of its own, so tests that start several in one
process never collide on Prometheus's global registry.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from http import HTTPStatus
from typing import get_args

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from engine.render.document import Profile

log = logging.getLogger("docbench.metrics")

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# From a fast GET (milliseconds) to a long render under load (a minute).
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
# A webhook attempt is cut off at 10 s: the top bucket holds the receivers that never answered.
WEBHOOK_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0)

# The closed sets labels are taken from (module docstring); anything else is OTHER.
OTHER = "other"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
STATUSES = frozenset(str(status.value) for status in HTTPStatus)
KINDS = frozenset({"generate", "batch"})
PROFILES = frozenset(get_args(Profile))


def closed(value: str, allowed: frozenset[str]) -> str:
    return value if value in allowed else OTHER


class _QueueDepth(Collector):
    """Read when scraped: (unsettled jobs, their rows not yet done)."""

    def __init__(self, depth: Callable[[], tuple[int, int]]):
        self.depth = depth

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            jobs, rows = self.depth()
        except Exception as exc:  # noqa: BLE001 (a database outage must not cost the scrape its other series)
            log.warning("batch queue depth left out of /metrics: %s", exc)
            return
        yield GaugeMetricFamily("docbench_batch_queue_jobs", "Batch jobs not finished yet", value=jobs)
        yield GaugeMetricFamily(
            "docbench_batch_queue_rows", "Rows of unfinished batch jobs not rendered yet", value=rows
        )


class _UploadsInFlight(Collector):
    """Read when scraped: the upload bodies being received, checked or stored now, and their bytes."""

    def __init__(self, in_flight: Callable[[], tuple[int, int]]):
        self.in_flight = in_flight

    def collect(self) -> Iterator[GaugeMetricFamily]:
        count, size = self.in_flight()
        yield GaugeMetricFamily("docbench_upload_bodies_in_flight", "Upload bodies being received or checked", count)
        yield GaugeMetricFamily(
            "docbench_upload_body_bytes_in_flight", "Bytes of the upload bodies being received or checked", size
        )


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "docbench_http_requests", "API and MCP requests answered", ["route", "method", "status"], registry=r
        )
        self.request_seconds = Histogram(
            "docbench_http_request_duration_seconds",
            "Time to answer an API or MCP request",
            ["route", "method"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.renders = Counter(
            "docbench_renders", "PDF renders by kind, profile and outcome", ["kind", "profile", "outcome"], registry=r
        )
        self.render_seconds = Histogram(
            "docbench_render_duration_seconds",
            "Time to render one PDF",
            ["kind", "profile"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.batch_rows = Counter("docbench_batch_rows", "Batch rows finished, by outcome", ["outcome"], registry=r)
        self.credits_debited = Counter(
            "docbench_credits_debited", "Credits taken from workspaces", ["reason"], registry=r
        )
        self.credits_refunded = Counter(
            "docbench_credits_refunded", "Credits given back to workspaces", ["reason"], registry=r
        )

        self.webhook_deliveries = Counter(
            "docbench_webhook_deliveries", "Batch webhook attempts, by outcome", ["outcome"], registry=r
        )
        self.webhook_delivery_seconds = Histogram(
            "docbench_webhook_delivery_seconds",
            "Time a batch webhook attempt took, from the address check to the receiver's status",
            buckets=WEBHOOK_BUCKETS,
            registry=r,
        )

    def watch_queue(self, depth: Callable[[], tuple[int, int]]) -> None:
        self.registry.register(_QueueDepth(depth))

    def watch_uploads(self, in_flight: Callable[[], tuple[int, int]]) -> None:
        """Upload bodies in flight in this process (api.rest.uploads): (how many, their bytes)."""
        self.registry.register(_UploadsInFlight(in_flight))

    def request(self, route: str, method: str, status: int, seconds: float) -> None:
        """One answered request; `route` is an operation's name or one of the fixed routes
        (module docstring), never taken from the request."""
        method = closed(method, METHODS)
        self.requests.labels(route, method, closed(str(status), STATUSES)).inc()
        self.request_seconds.labels(route, method).observe(seconds)

    def render(self, kind: str, profile: str, ok: bool, seconds: float | None) -> None:
        kind, profile = closed(kind, KINDS), closed(profile, PROFILES)
        self.renders.labels(kind, profile, "completed" if ok else "failed").inc()
        if seconds is not None:
            self.render_seconds.labels(kind, profile).observe(seconds)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
