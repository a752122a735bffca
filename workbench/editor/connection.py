"""The page's connection watch (connection.js): a notice while the page cannot reach what runs
it, and, in the workbench, a reload once the server is back (issue 35, point 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import panel as pn
import param

# The workbench server's cheap readiness check (GET /api/v1/health), relative to the page at `/`
# so that it also holds behind a proxy that serves docbench under a path.
HEALTH_URL = "api/v1/health"


class ConnectionWatch(pn.custom.JSComponent):
    """`health_url` set: the page is served by a docbench server; when its websocket drops, the
    page shows "Reconnecting…", asks that URL with a growing pause and loads again once it
    answers. Empty: the page is a notebook output whose kernel is the server; it pings the
    kernel and says so while the kernel does not answer, and never reloads the notebook."""

    health_url = param.String(default="")

    _esm = Path(__file__).with_name("connection.js")

    def __init__(self, **params: Any):
        super().__init__(height=0, width=0, margin=0, **params)

    def _handle_msg(self, msg: Any) -> None:
        if isinstance(msg, dict) and "ping" in msg:
            self._send_msg({"pong": msg["ping"]})
