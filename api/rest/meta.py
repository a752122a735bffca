"""Unauthenticated endpoints: health and the OpenAPI document."""

from __future__ import annotations

import json

from tornado.ioloop import IOLoop

from ..errors import ApiError
from ..http import EnvelopeHandler
from ..metrics import CONTENT_TYPE
from ..service import Service


class HealthHandler(EnvelopeHandler):
    def initialize(self, service: Service) -> None:
        self.service = service

    def get(self) -> None:
        self.respond({"status": "ok", "schemaVersion": self.service.store.schema_version})


class MetricsHandler(EnvelopeHandler):
    """GET /metrics: this process's counters in Prometheus's text format (api/metrics.py), no
    key needed; with --no-metrics, 404 as for any unknown path."""

    def initialize(self, service: Service) -> None:
        self.service = service

    async def get(self) -> None:
        if not self.service.settings.metrics:
            raise ApiError("NOT_FOUND", "metrics are turned off on this server (--no-metrics)")
        # On a thread: the queue's depth is a database query, which the event loop must not wait on.
        exposition = await IOLoop.current().run_in_executor(None, self.service.metrics.exposition)
        self.set_header("Content-Type", CONTENT_TYPE)
        self.finish(exposition)


class OpenApiHandler(EnvelopeHandler):
    def initialize(self, document: dict) -> None:
        self.body = json.dumps(document)

    def get(self) -> None:
        self.finish(self.body)
