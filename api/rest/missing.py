"""Any path under /api/v1 that is not a route."""

from __future__ import annotations

from typing import Any

from ..errors import ApiError
from ..http import EnvelopeHandler


class NotFoundHandler(EnvelopeHandler):
    """Any path under /api/v1 that is not a route: 404 NOT_FOUND, in the envelope."""

    def _not_found(self, *args: Any) -> None:
        raise ApiError("NOT_FOUND", f"no route {self.request.path}; see /api/v1/openapi.json")

    get = post = put = patch = delete = head = options = _not_found
