"""Workspaces, API keys, plans and the credit ledger."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import ApiError, validation
from ..metrics import Metrics
from ..plans import PLANS, USE_API_KEYS
from ..postings import BalanceShort, Posting
from ..store import Store
from .common import Workspace, checked_name, new_id, now
from .remembered import Remembered

KEY_PREFIX = "dbk_live_"
# A workbench sign-in lasts this long from its start, unless it is ended sooner.
BROWSER_SESSION_DAYS = 14
SIGNED_OUT = "this browser session has ended (signed out, or its API key was revoked); sign in again"


@dataclass(frozen=True)
class BrowserSession:
    """A workbench sign-in: what its cookie's token stands for. The token itself is never stored."""

    id: str
    workspace_id: str
    key_id: str | None


def hash_key(key: str) -> str:
    # Keys carry 190 bits of randomness: a plain SHA-256 cannot be brute-forced,
    # and it lets a lookup be one indexed equality.
    return hashlib.sha256(key.encode()).hexdigest()


def _check_covered(amount: int, available: int) -> None:
    if available < amount:
        raise _insufficient(amount, available)


def _insufficient(amount: int, available: int) -> ApiError:
    plural = "s" if amount != 1 else ""
    return ApiError("INSUFFICIENT_CREDITS", f"this needs {amount} credit{plural} and the workspace has {available}")


def _may_use_api(workspace: Workspace) -> Workspace:
    workspace.require(USE_API_KEYS)
    return workspace


class Accounts:
    def __init__(self, store: Store, metrics: Metrics | None = None):
        self.store = store
        self.metrics = metrics or Metrics()
        # Every request authenticates: a key's workspace is remembered until anything is written
        # (a revocation, a plan changed), and on a store other processes write (PostgreSQL: the
        # CLI or another server revokes a key without telling this one) never (api.service.remembered).
        self._callers: Remembered[Workspace] = Remembered(store)
        self._secrets: Remembered[str] = Remembered(store)

    def create_workspace(self, name: str, plan: str = "pro", credits: int = 100) -> tuple[Workspace, str]:
        """A new workspace with its first API key (returned once, stored hashed)."""
        made = self._create_workspace(name, plan, credits, only_if_first=False)
        assert made is not None
        return made

    def create_first_workspace(self, name: str, plan: str, credits: int) -> tuple[Workspace, str] | None:
        """The workspace, when the database has none yet; None when one exists. Two servers
        starting at once on an empty shared database make one (the check and the insert hold
        the store's named lock)."""
        return self._create_workspace(name, plan, credits, only_if_first=True)

    def _create_workspace(
        self, name: str, plan: str, credits: int, only_if_first: bool
    ) -> tuple[Workspace, str] | None:
        if plan not in PLANS:
            raise validation(f"plan must be one of {', '.join(PLANS)}")
        checked_name(name, "workspace name")
        if credits < 0:
            raise validation("credits cannot be negative")
        workspace = Workspace(new_id("ws"), name, plan)
        with self.store.transaction() as cursor:
            if only_if_first:
                self.store.lock_name(cursor, "first-workspace")
                if cursor.execute("SELECT count(*) FROM workspaces").fetchone()[0]:
                    return None
            cursor.execute(
                "INSERT INTO workspaces (id, name, plan, created_at, webhook_secret) VALUES (?, ?, ?, ?, ?)",
                [workspace.id, name, plan, now(), new_webhook_secret()],
            )
            key = self._insert_key(cursor, workspace.id)
            if credits:
                self._ledger(cursor, workspace.id, credits, "grant", None)
        return workspace, key

    def create_key(self, workspace_id: str) -> str:
        self.get_workspace(workspace_id)
        with self.store.transaction() as cursor:
            return self._insert_key(cursor, workspace_id)

    def revoke_key(self, key: str) -> bool:
        """Revoke a live key; False when no live key matches."""
        return self.revoke_key_hash(hash_key(key))

    def revoke_key_hash(self, digest: str) -> bool:
        """Revoke the live key with this SHA-256 (what `docbench key revoke` hands a running server)."""
        with self.store.transaction() as cursor:
            found = cursor.execute(
                "SELECT count(*) FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL", [digest]
            ).fetchone()[0]
            cursor.execute("UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?", [now(), digest])
            # A browser signed in with this key is signed out with it (issue 12), whichever way
            # the key was revoked (the API, the CLI through a running server).
            cursor.execute(
                "UPDATE browser_sessions SET ended_at = ? WHERE ended_at IS NULL "
                "AND key_id IN (SELECT id FROM api_keys WHERE key_hash = ?)",
                [now(), digest],
            )
        return bool(found)

    def _insert_key(self, cursor, workspace_id: str) -> str:
        key = KEY_PREFIX + secrets.token_urlsafe(24)
        cursor.execute(
            "INSERT INTO api_keys VALUES (?, ?, ?, ?, ?, NULL)",
            [new_id("key"), workspace_id, hash_key(key), key[: len(KEY_PREFIX) + 4], now()],
        )
        return key

    def authenticate(self, key: str | None) -> Workspace:
        """The workspace of a live key; 401 for a missing, unknown or revoked one."""
        if not key:
            raise ApiError("UNAUTHORIZED", "send your workspace API key in the X-API-Key header")
        digest = hash_key(key)
        return self._callers.get(digest, lambda: self._caller(digest))

    def _caller(self, digest: str) -> Workspace:
        row = self.store.one(
            "SELECT w.id, w.name, w.plan FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id "
            "WHERE k.key_hash = ? AND k.revoked_at IS NULL",
            [digest],
        )
        if row is None:  # not remembered: an unknown key costs a query each time, and fills nothing
            raise ApiError("UNAUTHORIZED", "this API key is not valid (unknown or revoked)")
        return Workspace(*row)

    # Who may call the API: one rule for every face.

    def api_caller(self, key: str | None) -> Workspace:
        """The workspace of a live API key whose plan may use the API: 401 for a bad key, 403
        for a plan without useApiKeys. REST, MCP and the workbench's sign-in ask this, before
        reading a request's body."""
        return _may_use_api(self.authenticate(key))

    def local_caller(self, workspace_id: str) -> Workspace:
        """The same rule for an in-process caller (the workbench, the notebook), which holds a
        workspace id rather than a key. Read afresh: a plan changed over the CLI applies at once."""
        return _may_use_api(self.get_workspace(workspace_id))

    # Workbench sign-ins: the cookie holds an opaque token, never the key (issue 12).

    def sign_in_with_key(self, key: str, replacing: str | None = None) -> str:
        """A browser signed in with a workspace's API key (live, on a plan with API keys)."""
        workspace = self.api_caller(key)
        return self.start_browser_session(workspace.id, key, replacing)

    def sign_out_browser(self, token: str, everywhere: bool = False) -> None:
        """Sign this browser out, or every browser of its workspace ("sign out everywhere")."""
        if not everywhere:
            self.end_browser_session(token)
            return
        try:
            session = self.browser_session(token)
        except ApiError:
            return  # its session had ended already: there is no workspace to sign out of
        self.end_browser_sessions(session.workspace_id)

    def start_browser_session(self, workspace_id: str, key: str | None = None, replacing: str | None = None) -> str:
        """Sign a browser in; returns the token for its cookie (stored hashed, shown once).

        `key` is the API key the person typed, if any: revoking it ends this session.
        `replacing` is the token the browser's cookie held: a browser has one session, so
        signing in again ends the one it had rather than adding another."""
        self.get_workspace(workspace_id)
        key_id = None
        if key is not None:
            row = self.store.one(
                "SELECT id FROM api_keys WHERE key_hash = ? AND workspace_id = ? AND revoked_at IS NULL",
                [hash_key(key), workspace_id],
            )
            if row is None:
                raise ApiError("UNAUTHORIZED", "this API key is not valid (unknown or revoked)")
            key_id = row[0]
        token = secrets.token_urlsafe(32)
        started = now()
        with self.store.transaction() as cursor:
            cursor.execute(
                "INSERT INTO browser_sessions VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
                [
                    new_id("bs"),
                    hash_key(token),
                    workspace_id,
                    key_id,
                    started,
                    started,
                    started + dt.timedelta(days=BROWSER_SESSION_DAYS),
                ],
            )
            if replacing is not None:
                cursor.execute(
                    "UPDATE browser_sessions SET ended_at = ? WHERE token_hash = ? AND ended_at IS NULL",
                    [started, hash_key(replacing)],
                )
        return token

    def browser_session(self, token: str | None, touch: bool = False) -> BrowserSession:
        """The live session of a cookie's token; 401 when unknown, ended, expired or its key revoked.

        `touch` records the visit (a page load); a poll only checks."""
        if not token:
            raise ApiError("UNAUTHORIZED", SIGNED_OUT)
        session = self._live_browser_session("s.token_hash = ?", hash_key(token))
        if touch:
            with self.store.transaction() as cursor:
                cursor.execute("UPDATE browser_sessions SET last_seen_at = ? WHERE id = ?", [now(), session.id])
        return session

    def check_browser_session(self, session_id: str) -> BrowserSession:
        """The same check by the session's id: an open page asks it on every action and poll."""
        return self._live_browser_session("s.id = ?", session_id)

    def _live_browser_session(self, match: str, value: str) -> BrowserSession:
        row = self.store.one(
            "SELECT s.id, s.workspace_id, s.key_id FROM browser_sessions s LEFT JOIN api_keys k ON k.id = s.key_id "
            f"WHERE {match} AND s.ended_at IS NULL AND s.expires_at > ? AND k.revoked_at IS NULL",
            [value, now()],
        )
        if row is None:
            raise ApiError("UNAUTHORIZED", SIGNED_OUT)
        return BrowserSession(*row)

    def end_browser_session(self, token: str) -> None:
        """Sign one browser out (its cookie's token); nothing to do for an unknown one."""
        with self.store.transaction() as cursor:
            cursor.execute(
                "UPDATE browser_sessions SET ended_at = ? WHERE token_hash = ? AND ended_at IS NULL",
                [now(), hash_key(token)],
            )

    def end_browser_sessions(self, workspace_id: str) -> int:
        """ "Sign out everywhere": ends every browser session of the workspace; returns how many."""
        with self.store.transaction() as cursor:
            live = cursor.execute(
                "SELECT count(*) FROM browser_sessions WHERE workspace_id = ? AND ended_at IS NULL", [workspace_id]
            ).fetchone()[0]
            cursor.execute(
                "UPDATE browser_sessions SET ended_at = ? WHERE workspace_id = ? AND ended_at IS NULL",
                [now(), workspace_id],
            )
        return int(live)

    def get_workspace(self, workspace_id: str) -> Workspace:
        row = self.store.one("SELECT id, name, plan FROM workspaces WHERE id = ?", [workspace_id])
        if row is None:
            raise validation(f"no workspace '{workspace_id}'")
        return Workspace(*row)

    def list_workspaces(self) -> list[Workspace]:
        return [Workspace(*row) for row in self.store.all("SELECT id, name, plan FROM workspaces ORDER BY created_at")]

    def set_plan(self, workspace_id: str, plan: str) -> Workspace:
        if plan not in PLANS:
            raise validation(f"plan must be one of {', '.join(PLANS)}")
        self.get_workspace(workspace_id)
        with self.store.transaction() as cursor:
            cursor.execute("UPDATE workspaces SET plan = ? WHERE id = ?", [plan, workspace_id])
        return self.get_workspace(workspace_id)

    # Credits: a ledger, so a balance is a sum anyone can audit; the sum is kept in the
    # workspace's row by every entry's own transaction, so reading it costs one row.

    def balance(self, workspace_id: str, cursor=None, as_read: int | None = None) -> int:
        """The balance; inside a transaction, as `cursor`'s transaction sees it. `as_read`: one
        read a moment ago with another row (Store.balance)."""
        if cursor is None:
            return self.store.balance(workspace_id, as_read)
        row = cursor.execute("SELECT credits FROM workspaces WHERE id = ?", [workspace_id]).fetchone()
        return int(row[0]) if row else 0

    def add_credits(self, workspace_id: str, amount: int, reason: str = "grant") -> int:
        self.get_workspace(workspace_id)
        if amount == 0:
            raise validation("amount must not be zero")
        with self.store.transaction() as cursor:
            self.store.lock_row(cursor, "workspaces", workspace_id)  # api/store.py: why row locks
            if amount < 0 and self.balance(workspace_id, cursor) + amount < 0:
                raise validation("that would make the balance negative")
            self._ledger(cursor, workspace_id, amount, reason, None)
            return self.balance(workspace_id, cursor)

    # The credit counters of GET /metrics count what committed: a debit or refund is counted
    # after its transaction, never inside it (a rollback, even a retried one, counts nothing).

    @contextmanager
    def spend(self, workspace_id: str, amount: int, reason: str, reference: str) -> Iterator[Any]:
        """A transaction that starts by spending `amount` credits (402, nothing spent, when they
        are short) for the caller to record what is paid for in; the debit is counted once the
        transaction commits."""
        with self.store.transaction() as cursor:
            self.debit(cursor, workspace_id, amount, reason, reference)
            yield cursor
        self.count_debit(reason, amount)

    def charge(
        self, workspace_id: str, amount: int, reason: str, reference: str, rows: tuple[tuple[str, tuple], ...] = ()
    ) -> None:
        """Spend `amount` credits together with `rows` (what is paid for, api.postings), durably
        before returning, or raise 402 (nothing spent, nothing written). Concurrent charges are
        committed in groups: the commonest write of the service (a generate's) costs a fraction
        of a transaction of its own."""
        try:
            self.store.post(Posting(workspace_id, -amount, new_id("cr"), reason, reference, now(), rows))
        except BalanceShort as short:
            raise _insufficient(amount, short.available) from None
        self.count_debit(reason, amount)

    def debit(self, cursor, workspace_id: str, amount: int, reason: str, reference: str) -> None:
        """Spend credits inside the caller's transaction, or raise 402 (nothing spent). The
        workspace's row is locked first, so a debit in another process waits for this one's
        commit before reading the balance (api/store.py). Not counted: spend() counts it after
        the commit (a caller with a transaction of its own calls count_debit then)."""
        self.store.lock_row(cursor, "workspaces", workspace_id)
        _check_covered(amount, self.balance(workspace_id, cursor))
        self._ledger(cursor, workspace_id, -amount, reason, reference)

    def refund(self, cursor, workspace_id: str, amount: int, reason: str, reference: str) -> None:
        """Give credits back inside the caller's transaction (failed batch rows); the caller
        counts it with count_refund once that transaction commits."""
        self._ledger(cursor, workspace_id, amount, reason, reference)

    def count_debit(self, reason: str, amount: int) -> None:
        """docbench_credits_debited_total, for a debit whose transaction has committed."""
        self.metrics.credits_debited.labels(reason).inc(amount)

    def count_refund(self, reason: str, amount: int) -> None:
        """docbench_credits_refunded_total, for a refund whose transaction has committed."""
        self.metrics.credits_refunded.labels(reason).inc(amount)

    @staticmethod
    def require_credits(amount: int, balance: int) -> None:
        """A cheap check before expensive work (`balance`: kept in memory on DuckDB, read with
        the design's row on PostgreSQL); the debit checks again as it is made (`charge`, or
        `debit` in a transaction)."""
        _check_covered(amount, balance)

    def _ledger(self, cursor, workspace_id: str, delta: int, reason: str, reference: str | None) -> None:
        cursor.execute(
            "INSERT INTO credit_ledger VALUES (?, ?, ?, ?, ?, ?)",
            [new_id("cr"), workspace_id, delta, reason, reference, now()],
        )
        cursor.execute("UPDATE workspaces SET credits = credits + ? WHERE id = ?", [delta, workspace_id])

    def me(self, workspace: Workspace) -> dict:
        return {
            "workspaceId": workspace.id,
            "workspaceName": workspace.name,
            "plan": workspace.plan,
            "features": dict(workspace.features),
            "credits": self.balance(workspace.id),
            "webhookSecret": self.webhook_secret(workspace.id),
        }

    def webhook_secret(self, workspace_id: str) -> str:
        """The key of the workspace's webhook signatures (extensions.md 8). A workspace made
        before migration 11 gets one on first use: the UPDATE keeps whichever process's wins."""
        return self._secrets.get(workspace_id, lambda: self._webhook_secret(workspace_id))

    def _webhook_secret(self, workspace_id: str) -> str:
        row = self.store.one("SELECT webhook_secret FROM workspaces WHERE id = ?", [workspace_id])
        if row is not None and row[0]:
            return row[0]
        with self.store.transaction() as cursor:
            cursor.execute(
                "UPDATE workspaces SET webhook_secret = ? WHERE id = ? AND webhook_secret IS NULL",
                [new_webhook_secret(), workspace_id],
            )
            return cursor.execute("SELECT webhook_secret FROM workspaces WHERE id = ?", [workspace_id]).fetchone()[0]

    def rotate_webhook_secret(self, workspace_id: str) -> dict:
        """A new webhook secret for the workspace (POST /me/webhook-secret, `docbench webhook-secret
        rotate`). The old one signs nothing from now on: every attempt reads the secret as it is
        sent (api/service/webhooks.py), so retries of events made before the rotation are signed
        with the new one too."""
        self.get_workspace(workspace_id)
        secret = new_webhook_secret()
        with self.store.transaction() as cursor:
            cursor.execute("UPDATE workspaces SET webhook_secret = ? WHERE id = ?", [secret, workspace_id])
        return {"webhookSecret": secret}


def new_webhook_secret() -> str:
    return "whsec_" + secrets.token_hex(32)
