"""Any path under /api/v1 that is not a route."""

from __future__ import annotations

from typing import Any

from ..errors import ApiError
from ..http import EnvelopeHandler
from ..metrics import OTHER, Metrics


class NotFoundHandler(EnvelopeHandler):
    """Any path under /api/v1 that is not a route: 404 NOT_FOUND, in the envelope."""

    def initialize(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def on_finish(self) -> None:
        # One route for every unknown path: a path of its own would be a series per path tried.
        self.metrics.request(OTHER, self.request.method or "", self.get_status(), self.request.request_time())

    def _not_found(self, *args: Any) -> None:
        raise ApiError("NOT_FOUND", f"no route {self.request.path}; see /api/v1/openapi.json")

    get = post = put = patch = delete = head = options = _not_found
