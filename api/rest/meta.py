"""Unauthenticated endpoints: health and the OpenAPI document."""

from __future__ import annotations

import json

from ..http import EnvelopeHandler
from ..service import Service


class HealthHandler(EnvelopeHandler):
    def initialize(self, service: Service) -> None:
        self.service = service

    def get(self) -> None:
        self.respond({"status": "ok", "schemaVersion": self.service.store.schema_version})


class OpenApiHandler(EnvelopeHandler):
    def initialize(self, document: dict) -> None:
        self.body = json.dumps(document)

    def get(self) -> None:
        self.finish(self.body)
