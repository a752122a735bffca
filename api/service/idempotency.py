"""Idempotency keys (extensions.md 8): a retried POST, PUT or PATCH gets the first answer again.

A client that timed out does not know whether its request ran; with an `Idempotency-Key` it
sends the very same request again and either runs it (the first one never arrived) or gets
the first answer back (same ids, no second charge). Every face (REST, MCP) calls `run` with
the request's operation, which

- claims the key: 422 `IDEMPOTENCY_KEY_REUSED` when it was used for another request, 409
  `IDEMPOTENCY_KEY_IN_USE` while its first request still runs, or the kept answer;
- runs the operation and keeps its answer 24 hours in the store (`idempotency_keys`,
  migration 10), so every process on the database and a restarted one replay it, before the
  face sends it: a client that retries the moment it has its answer finds it kept;
- forgets the claim after a 5xx or an exception, so the client may retry.

Claiming is one `INSERT ... ON CONFLICT DO NOTHING` on the (workspace, key) primary key: on
PostgreSQL a concurrent claimer waits for the first one's transaction and then inserts
nothing; on DuckDB the store's write lock serialises the claimers of the one process that
may open the file. A claim whose process died mid-run would hold its key for a day; a
running claim older than `STALE_SECONDS` (longer than any request may run) is taken over,
and its claim token keeps the request it replaced, should it still be alive, from writing
over the new one's answer.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import ApiError, validation
from ..store import Store
from .common import Workspace, now

log = logging.getLogger("docbench.idempotency")

IDEMPOTENT_METHODS = frozenset({"POST", "PUT", "PATCH"})  # the methods a key applies to
KEY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
KEY_MAX_LENGTH = 255
KEPT_SECONDS = 24 * 3600  # how long a first answer is replayed (extensions.md 8)
STALE_SECONDS = 15 * 60  # a claim still 'running' this long belonged to a process that died
CLAIM_ATTEMPTS = 3  # a key freed between our INSERT and SELECT is claimed again, this many times at most
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
    """What makes two requests the same request (extensions.md 8): method, path and body.
    The path without its query: no keyed operation reads one, and a proxy's cache-buster or
    a reordered query must not turn a retry into a 422."""
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
    token: str = ""  # names this claim's request (empty for a replay)
    replay: Answer | None = None


class Idempotency:
    def __init__(self, store: Store, clock: Callable[[], dt.datetime] = now) -> None:
        self.store = store
        self._clock = clock
        self._purged: dt.datetime | None = None
        self._purge_guard = threading.Lock()

    def run(
        self, workspace: Workspace, key: str, request_fingerprint: str, operation: Callable[[], Answer]
    ) -> tuple[Answer, bool]:
        """The answer to a keyed request and whether it is a replay: the kept answer, or the
        operation's, kept before it is returned. Claim errors (409, 422) are raised."""
        claim = self.claim(workspace, key, request_fingerprint)
        if claim.replay is not None:
            return claim.replay, True
        try:
            answer = operation()
        except BaseException:
            self.release(claim)
            raise
        try:
            self.record(claim, answer)
        except Exception as exc:  # noqa: BLE001 (the operation's work is done: its answer goes out)
            # The key stays claimed until it is stale; a retry meanwhile is told it is in use.
            log.warning("the answer to %s of workspace %s was not kept: %s", KEY_HEADER, workspace.id, exc)
        return answer, False

    def claim(self, workspace: Workspace, key: str, request_fingerprint: str) -> Claim:
        key = checked_key(key)
        for _ in range(CLAIM_ATTEMPTS):
            claim = self._try_claim(workspace, key, request_fingerprint)
            if claim is not None:
                return claim
        # Freed and taken again each time we looked: another request holds it now.
        raise ApiError(
            "IDEMPOTENCY_KEY_IN_USE",
            f"the first request with this {KEY_HEADER} is still running; retry in a moment to get its answer",
        )

    def _try_claim(self, workspace: Workspace, key: str, request_fingerprint: str) -> Claim | None:
        """A claim, a replay, a refusal raised, or None when the key was freed between our
        INSERT and SELECT (its first request failed on our side, or its answer expired)."""
        moment = self._clock()
        kept_after = moment - dt.timedelta(seconds=KEPT_SECONDS)
        stale_before = moment - dt.timedelta(seconds=STALE_SECONDS)
        token = secrets.token_hex(8)
        with self.store.transaction() as cursor:
            # An expired answer, or a claim whose process died, no longer holds the key.
            cursor.execute(
                "DELETE FROM idempotency_keys WHERE workspace_id = ? AND idem_key = ? "
                "AND (created_at <= ? OR (state = ? AND created_at <= ?))",
                [workspace.id, key, kept_after, RUNNING, stale_before],
            )
            inserted = cursor.execute(
                "INSERT INTO idempotency_keys (workspace_id, idem_key, fingerprint, state, claim_token, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING idem_key",
                [workspace.id, key, request_fingerprint, RUNNING, token, moment],
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
            return Claim(workspace.id, key, token)
        if row is None:
            return None
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
        return Claim(workspace.id, key, replay=Answer(int(status), body, json.loads(headers or "{}")))

    def record(self, claim: Claim, answer: Answer) -> None:
        """Keep the answer to a claimed key; a 5xx releases the key instead (the client retries)."""
        if answer.status >= 500:
            self.release(claim)
            return
        with self.store.transaction() as cursor:
            cursor.execute(
                "UPDATE idempotency_keys SET state = ?, status = ?, body = ?, headers = ? "
                "WHERE workspace_id = ? AND idem_key = ? AND claim_token = ?",
                [DONE, answer.status, answer.body, json.dumps(answer.headers)]
                + [claim.workspace_id, claim.key, claim.token],
            )

    def release(self, claim: Claim) -> None:
        """Forget a claim whose request failed on our side, so the same key may run again."""
        with self.store.transaction() as cursor:
            cursor.execute(
                "DELETE FROM idempotency_keys "
                "WHERE workspace_id = ? AND idem_key = ? AND claim_token = ? AND state = ?",
                [claim.workspace_id, claim.key, claim.token, RUNNING],
            )

    def _purge_due(self, moment: dt.datetime) -> bool:
        with self._purge_guard:
            if self._purged is not None and moment - self._purged < dt.timedelta(seconds=PURGE_SECONDS):
                return False
            self._purged = moment
            return True
