"""MCP sessions (streamable HTTP transport, "Session Management"): which workspace opened
each `Mcp-Session-Id`, forgotten once idle for `idle_seconds`.

They live in the store (`mcp_sessions`), not in one process's memory: several web processes
on one database answer any session any of them opened. Three operations only (open,
belongs, close). Expiry is a condition in the SQL (`last_used` after the idle cutoff), so a
session is refused the moment it is too old whichever process asks; expired rows are
deleted now and then by whichever process opens a session. A call does not write on every
use: `last_used` is moved only when it is older than a tenth of the idle period (at most a
minute), so a session may end up to that much before a full idle period since its very
last call.
"""

from __future__ import annotations

import datetime as dt
import secrets
import threading
from collections.abc import Callable

from ..service.common import now
from ..settings import positive_seconds_from_env
from ..store import Store

IDLE_SECONDS = 3600.0  # an agent thinking between calls keeps its session; an abandoned one goes
IDLE_ENV = "DOCBENCH_MCP_SESSION_IDLE"  # seconds; tests shorten it
TOUCH_SECONDS = 60.0  # the most `last_used` may lag behind a session's last call


class Sessions:
    def __init__(self, store: Store, idle_seconds: float | None = None, clock: Callable[[], dt.datetime] = now) -> None:
        self.store = store
        if idle_seconds is None:
            idle_seconds = positive_seconds_from_env(IDLE_ENV, IDLE_SECONDS)
        self.idle_seconds = idle_seconds
        self._idle = dt.timedelta(seconds=self.idle_seconds)
        self._touch = dt.timedelta(seconds=min(TOUCH_SECONDS, self.idle_seconds / 10))
        self._clock = clock
        self._purged: dt.datetime | None = None  # when this process last deleted expired rows
        self._purge_guard = threading.Lock()

    def open(self, workspace_id: str) -> str:
        session = secrets.token_hex(16)  # the spec asks for cryptographically secure ids
        moment = self._clock()
        with self.store.transaction() as cursor:
            cursor.execute("INSERT INTO mcp_sessions VALUES (?, ?, ?)", [session, workspace_id, moment])
            if self._purge_due(moment):
                cursor.execute("DELETE FROM mcp_sessions WHERE last_used <= ?", [moment - self._idle])
        return session

    def belongs(self, session: str, workspace_id: str) -> bool:
        """Whether the session is live and the workspace's; using it keeps it alive."""
        moment = self._clock()
        row = self.store.one(
            "SELECT last_used FROM mcp_sessions WHERE id = ? AND workspace_id = ? AND last_used > ?",
            [session, workspace_id, moment - self._idle],
        )
        if row is None:
            return False
        if row[0] <= moment - self._touch:
            with self.store.transaction() as cursor:
                cursor.execute(
                    "UPDATE mcp_sessions SET last_used = ? WHERE id = ? AND last_used < ?", [moment, session, moment]
                )
        return True

    def close(self, session: str, workspace_id: str) -> bool:
        """End the workspace's own live session; False (nothing closed) for anyone else's."""
        moment = self._clock()
        with self.store.transaction() as cursor:
            ended = cursor.execute(
                "DELETE FROM mcp_sessions WHERE id = ? AND workspace_id = ? AND last_used > ? RETURNING id",
                [session, workspace_id, moment - self._idle],
            ).fetchall()
        return bool(ended)

    def _purge_due(self, moment: dt.datetime) -> bool:
        """Whether this process should delete the expired rows now: once per touch period."""
        with self._purge_guard:
            if self._purged is not None and moment - self._purged < self._touch:
                return False
            self._purged = moment
            return True
