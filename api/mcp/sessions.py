"""MCP sessions (streamable HTTP transport, "Session Management"): which workspace opened
each `Mcp-Session-Id`, forgotten once idle for `idle_seconds`.

Three operations only (open, belongs, close), so the store can move to shared state when
several processes serve (issue 17): in Redis they are SET with EX, GET plus EXPIRE, and a
compare-and-delete.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

IDLE_SECONDS = 3600.0  # an agent thinking between calls keeps its session; an abandoned one goes
IDLE_ENV = "DOCBENCH_MCP_SESSION_IDLE"  # seconds; tests shorten it


def idle_seconds_from_env() -> float:
    raw = os.environ.get(IDLE_ENV)
    if not raw:
        return IDLE_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise ValueError(f"{IDLE_ENV} must be a positive number of seconds, not {raw!r}")
    return value


class Sessions:
    def __init__(self, idle_seconds: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_seconds = idle_seconds if idle_seconds is not None else idle_seconds_from_env()
        self._clock = clock
        # session id -> (workspace id, last use), least recently used first, so expired ones
        # are found at the front without scanning them all.
        self._sessions: OrderedDict[str, tuple[str, float]] = OrderedDict()
        self._guard = threading.Lock()

    def open(self, workspace_id: str) -> str:
        session = secrets.token_hex(16)  # the spec asks for cryptographically secure ids
        with self._guard:
            self._forget_expired()
            self._sessions[session] = (workspace_id, self._clock())
        return session

    def belongs(self, session: str, workspace_id: str) -> bool:
        """Whether the session is live and the workspace's; using it keeps it alive."""
        with self._guard:
            self._forget_expired()
            entry = self._sessions.get(session)
            if entry is None or entry[0] != workspace_id:
                return False
            self._sessions[session] = (workspace_id, self._clock())
            self._sessions.move_to_end(session)
            return True

    def close(self, session: str, workspace_id: str) -> bool:
        """End the workspace's own live session; False (nothing closed) for anyone else's."""
        with self._guard:
            self._forget_expired()
            entry = self._sessions.get(session)
            if entry is None or entry[0] != workspace_id:
                return False
            del self._sessions[session]
            return True

    def _forget_expired(self) -> None:
        oldest_alive = self._clock() - self.idle_seconds
        while self._sessions:
            session, (_, used) = next(iter(self._sessions.items()))
            if used > oldest_alive:
                return
            del self._sessions[session]
