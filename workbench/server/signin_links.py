"""One-time sign-in links: `docbench serve` (the CLI) issues one and prints it, the web
workbench's sign-in page redeems it. Shared by the two faces, so it belongs to neither.

The links live in the store (`signin_links`), not in the process that printed one: behind
a load balancer the browser's click may reach another web process. Only the token's
SHA-256 is stored (a database dump holds no usable link), a link lasts LIFETIME, and
redeeming deletes its row and reads it in one statement (DELETE ... RETURNING), so of two
processes redeeming one link at once exactly one signs the browser in.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from api.service.common import now
from api.store import Store

LIFETIME = dt.timedelta(minutes=15)  # the manual: "the link works once, within 15 minutes"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class SignInTokens:
    """One-time tokens for the link `docbench serve` prints."""

    def __init__(self, store: Store, lifetime: dt.timedelta = LIFETIME) -> None:
        self.store = store
        self.lifetime = lifetime

    def issue(self, workspace_id: str) -> str:
        token = secrets.token_urlsafe(24)
        moment = now()
        with self.store.transaction() as cursor:
            cursor.execute("DELETE FROM signin_links WHERE expires_at <= ?", [moment])  # links nobody used
            cursor.execute(
                "INSERT INTO signin_links VALUES (?, ?, ?)", [_digest(token), workspace_id, moment + self.lifetime]
            )
        return token

    def redeem(self, token: str) -> str | None:
        """The workspace the link signs in to, once; None for a used, expired or unknown link."""
        with self.store.transaction() as cursor:
            row = cursor.execute(
                "DELETE FROM signin_links WHERE token_hash = ? RETURNING workspace_id, expires_at", [_digest(token)]
            ).fetchone()
        if row is None or row[1] <= now():
            return None
        return row[0]
