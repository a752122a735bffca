"""One-time sign-in links: `docbench serve` (the CLI) issues one and prints it, the web
workbench's sign-in page redeems it. Shared by the two faces, so it belongs to neither."""

from __future__ import annotations

import secrets
import threading


class SignInTokens:
    """One-time tokens for the link `docbench serve` prints."""

    def __init__(self) -> None:
        self._tokens: dict[str, str] = {}
        self._guard = threading.Lock()

    def issue(self, workspace_id: str) -> str:
        token = secrets.token_urlsafe(24)
        with self._guard:
            self._tokens[token] = workspace_id
        return token

    def redeem(self, token: str) -> str | None:
        with self._guard:
            return self._tokens.pop(token, None)
