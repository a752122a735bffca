"""The REST face: Tornado routes for /api/v1 and /files."""

from __future__ import annotations

import re

from tornado.web import URLSpec

from ..openapi import document
from ..operations import OPERATIONS, Executors, Operation
from ..service import Service
from .files import FileHandler
from .meta import HealthHandler, MetricsHandler, OpenApiHandler
from .missing import NotFoundHandler
from .operation import OperationHandler, max_body_size, upload_bodies

PREFIX = "/api/v1"


def _pattern(path: str) -> str:
    return PREFIX + re.sub(r"{(\w+)}", r"(?P<\1>[^/]+)", path) + "$"


def routes(service: Service, executors: Executors) -> list[URLSpec]:
    by_path: dict[str, dict[str, Operation]] = {}
    for operation in OPERATIONS:
        by_path.setdefault(operation.path, {})[operation.method] = operation
    # Literal segments before parameters: /assets/placeholder must not be read as an asset id.
    ordered = sorted(by_path, key=lambda p: ("{" in p, p))
    uploads = upload_bodies(service.settings)
    service.metrics.watch_uploads(lambda: (uploads.count, uploads.bytes))
    specs = [
        URLSpec(PREFIX + "/health$", HealthHandler, {"service": service}),
        URLSpec("/metrics$", MetricsHandler, {"service": service}),
        URLSpec(PREFIX + "/openapi.json$", OpenApiHandler, {"document": document(service.settings.public_url)}),
        *[
            URLSpec(
                _pattern(path),
                OperationHandler,
                {"service": service, "executors": executors, "operations": by_path[path], "uploads": uploads},
            )
            for path in ordered
        ],
        URLSpec(r"/files/(.+)$", FileHandler, {"blobs": service.blobs, "signer": service.signer}),
        URLSpec(PREFIX + "(?:/.*)?$", NotFoundHandler, {"metrics": service.metrics}),
    ]
    return specs


__all__ = ["max_body_size", "PREFIX", "routes"]
