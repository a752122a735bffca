"""Idempotency keys (extensions.md 8): a retried POST, PUT or PATCH gets the first answer again.

A client that timed out does not know whether its request ran; with an `Idempotency-Key` it
sends the very same request again and either runs it (the first one never arrived) or gets
the first answer back (same ids, no second charge). The faces (REST, MCP) ask three things:

- `claim(workspace, key, fingerprint)` before running: `Claim.new` (run it), `Claim.replay`
  (the kept answer), or an `ApiError`: 422 `IDEMPOTENCY_KEY_REUSED` when the key was used for
  another request, 409 `IDEMPOTENCY_KEY_IN_USE` while its first request still runs;
- `record(...)` after any answer but a 5xx: kept 24 hours in the store (`idempotency_keys`,
  migration 10), so every process on the database and a restarted one replay it;
- `release(...)` after a 5xx or an exception: the key is free again, the client may retry.

Claiming is one `INSERT ... ON CONFLICT DO NOTHING` on the (workspace, key) primary key: on
PostgreSQL a concurrent claimer waits for the first one's transaction and then inserts
nothing; on DuckDB the store's write lock serialises the claimers of the one process that
may open the file. A claim whose process died mid-run would hold its key for a day; a
running claim older than `STALE_SECONDS` (longer than any render may run) is taken over.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import ApiError, validation
from ..store import Store
from .common import Workspace, now

IDEMPOTENT_METHODS = frozenset({"POST", "PUT", "PATCH"})  # the methods a key applies to
KEY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
KEY_MAX_LENGTH = 255
KEPT_SECONDS = 24 * 3600  # how long a first answer is replayed (extensions.md 8)
STALE_SECONDS = 15 * 60  # a claim still 'running' this long belonged to a process that died
PURGE_SECONDS = 600  # how often one process deletes the expired rows
RUNNING, DONE = "running", "done"


def checked_key(key: str) -> str:
    """The key unchanged, or 400 naming the rule: 1 to 255 visible ASCII characters."""
    if not 1 <= len(key) <= KEY_MAX_LENGTH or not all("!" <= character <= "~" for character in key):
        raise validation(
            f"{KEY_HEADER} must be 1 to {KEY_MAX_LENGTH} visible ASCII characters (no spaces); a UUID is a good key"
        )
    return key


def fingerprint(method: str, path: str, body: bytes) -> str:
    """What makes two requests the same request: method, path (with its query) and body."""
    digest = hashlib.sha256()
    for part in (method.upper().encode(), path.encode(), body):
        digest.update(len(part).to_bytes(8, "big"))  # length-prefixed: no two splits collide
        digest.update(part)
    return digest.hexdigest()


@dataclass(frozen=True)
class Answer:
    """A kept answer: what a replay sends again."""

    status: int
    body: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Claim:
    """The outcome of a claim: `replay` is None when the caller should run the request."""

    workspace_id: str
    key: str
    replay: Answer | None = None


class Idempotency:
    def __init__(self, store: Store, clock: Callable[[], dt.datetime] = now) -> None:
        self.store = store
        self._clock = clock
        self._purged: dt.datetime | None = None
        self._purge_guard = threading.Lock()

    def claim(self, workspace: Workspace, key: str, request_fingerprint: str) -> Claim:
        key = checked_key(key)
        moment = self._clock()
        kept_after = moment - dt.timedelta(seconds=KEPT_SECONDS)
        stale_before = moment - dt.timedelta(seconds=STALE_SECONDS)
        with self.store.transaction() as cursor:
            # An expired answer, or a claim whose process died, no longer holds the key.
            cursor.execute(
                "DELETE FROM idempotency_keys WHERE workspace_id = ? AND idem_key = ? "
                "AND (created_at <= ? OR (state = ? AND created_at <= ?))",
                [workspace.id, key, kept_after, RUNNING, stale_before],
            )
            inserted = cursor.execute(
                "INSERT INTO idempotency_keys (workspace_id, idem_key, fingerprint, state, created_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING idem_key",
                [workspace.id, key, request_fingerprint, RUNNING, moment],
            ).fetchall()
            row = None
            if not inserted:
                row = cursor.execute(
                    "SELECT fingerprint, state, status, body, headers FROM idempotency_keys "
                    "WHERE workspace_id = ? AND idem_key = ?",
                    [workspace.id, key],
                ).fetchone()
        if self._purge_due(moment):
            # Its own transaction: a sweep over many rows never holds a client's key meanwhile.
            with self.store.transaction() as cursor:
                cursor.execute("DELETE FROM idempotency_keys WHERE created_at <= ?", [kept_after])
        if inserted:
            return Claim(workspace.id, key)
        assert row is not None  # the insert conflicted with it, and only this transaction deletes it
        kept_fingerprint, state, status, body, headers = row
        if kept_fingerprint != request_fingerprint:
            raise ApiError(
                "IDEMPOTENCY_KEY_REUSED",
                f"this {KEY_HEADER} was used for another request (method, path or body differ) in the last 24 hours; "
                "send a new key for a new request",
            )
        if state == RUNNING:
            raise ApiError(
                "IDEMPOTENCY_KEY_IN_USE",
                f"the first request with this {KEY_HEADER} is still running; retry in a moment to get its answer",
            )
        return Claim(workspace.id, key, Answer(int(status), body, json.loads(headers or "{}")))

    def record(self, claim: Claim, answer: Answer) -> None:
        """Keep the answer to a claimed key; a 5xx releases the key instead (the client retries)."""
        if answer.status >= 500:
            self.release(claim)
            return
        with self.store.transaction() as cursor:
            cursor.execute(
                "UPDATE idempotency_keys SET state = ?, status = ?, body = ?, headers = ? "
                "WHERE workspace_id = ? AND idem_key = ? AND state = ?",
                [DONE, answer.status, answer.body, json.dumps(answer.headers), claim.workspace_id, claim.key, RUNNING],
            )

    def release(self, claim: Claim) -> None:
        """Forget a claim whose request failed on our side, so the same key may run again."""
        with self.store.transaction() as cursor:
            cursor.execute(
                "DELETE FROM idempotency_keys WHERE workspace_id = ? AND idem_key = ? AND state = ?",
                [claim.workspace_id, claim.key, RUNNING],
            )

    def _purge_due(self, moment: dt.datetime) -> bool:
        with self._purge_guard:
            if self._purged is not None and moment - self._purged < dt.timedelta(seconds=PURGE_SECONDS):
                return False
            self._purged = moment
            return True
