"""The workbench page at `/`: sign-in, the gallery, the editor.

A person signs in with a workspace API key; the key is kept in a signed, HttpOnly
cookie (`dbk`). `docbench serve` also prints a link with a one-time token that signs
the default workspace in, as Jupyter does. Each browser session then works through a
`LocalClient`: the same operations, rules and codes as the REST API.
"""

from __future__ import annotations

import html
import json
import secrets
import threading
from pathlib import Path
from typing import Any

import panel as pn
from tornado.web import RequestHandler, decode_signed_value

from api.errors import ApiError
from api.service import Service

from ..client import LocalClient
from .editor import Editor
from .gallery import Gallery

COOKIE = "dbk"
COOKIE_DAYS = 14

CSS = (Path(__file__).parent / "workbench.css").read_text()


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


class SignInHandler(RequestHandler):
    def initialize(self, service: Service, tokens: SignInTokens) -> None:
        self.service = service
        self.tokens = tokens

    def _sign_in(self, who: dict) -> None:
        self.set_signed_cookie(COOKIE, json.dumps(who), expires_days=COOKIE_DAYS, httponly=True, samesite="Lax")
        self.redirect("/")

    def get(self) -> None:
        token = self.get_query_argument("token", "")
        workspace_id = self.tokens.redeem(token) if token else None
        if workspace_id is None:
            self.redirect("/?error=" + ("token" if token else ""))
            return
        self._sign_in({"workspace": workspace_id})

    def post(self) -> None:
        key = self.get_body_argument("api_key", "").strip()
        try:
            workspace = self.service.accounts.authenticate(key)
            workspace.require("useApiKeys")
        except ApiError:
            self.redirect("/?error=key")
            return
        self._sign_in({"key": key})


class SignOutHandler(RequestHandler):
    def get(self) -> None:
        self.clear_cookie(COOKIE)
        self.redirect("/")

    post = get


def signed_in_workspace(service: Service, secret: str) -> str | None:
    """The workspace id of this browser session's cookie, or None."""
    raw = pn.state.cookies.get(COOKIE) if pn.state.cookies else None
    value = decode_signed_value(secret, COOKIE, raw, max_age_days=COOKIE_DAYS) if raw else None
    if not value:
        return None
    try:
        who = json.loads(value)
        if "key" in who:
            return service.accounts.authenticate(who["key"]).id
        return service.accounts.get_workspace(who["workspace"]).id
    except (ApiError, ValueError, KeyError, TypeError):
        return None  # a revoked key or a deleted workspace signs the browser out


ERRORS = {"key": "That API key was not accepted.", "token": "That sign-in link was already used or has expired."}


def sign_in_view(error: str | None) -> pn.pane.HTML:
    message = f'<p class="error">{html.escape(ERRORS[error])}</p>' if error in ERRORS else ""
    return pn.pane.HTML(
        f"""<div class="dbk-signin"><h1>docbench</h1><p>Sign in with a workspace API key.</p>{message}
<form method="post" action="/signin"><label>API key<br><input name="api_key" type="password" autocomplete="off"
placeholder="dbk_live_…" required></label><button type="submit">Sign in</button></form>
<p><small>No key? <code>docbench key create WORKSPACE_ID</code> makes one.</small></p></div>""",
        sizing_mode="stretch_width",
    )


class Workbench:
    """One signed-in browser session: the gallery, or the editor of one design."""

    def __init__(self, client: LocalClient):
        self.client = client
        self.main = pn.Column(sizing_mode="stretch_both")
        me = client.call("me")
        bar = pn.pane.HTML(
            f'<div class="dbk-bar"><b>docbench</b> · {html.escape(me["workspaceName"])} '
            f'({html.escape(me["plan"])}) · <a href="/signout">Sign out</a></div>',
            sizing_mode="stretch_width",
            margin=(4, 10),
        )
        self.view = pn.Column(bar, self.main, sizing_mode="stretch_both")
        design_id = _arg("design")
        if design_id:
            self.open(design_id)
        else:
            self.show_gallery()

    def show_gallery(self) -> None:
        self.main[:] = [Gallery(self.client, self.open).view]

    def open(self, design_id: str) -> None:
        try:
            editor = Editor(self.client, design_id)
        except ApiError as error:
            self.main[:] = [pn.pane.Alert(error.message, alert_type="danger"), Gallery(self.client, self.open).view]
            return
        if pn.state.location is not None:
            pn.state.location.update_query(design=design_id)
        self.main[:] = [editor.view]


def _arg(name: str) -> str | None:
    values = pn.state.session_args.get(name) if pn.state.session_args else None
    return values[0].decode() if values else None


def workbench_app(service: Service, secret: str) -> Any:
    """The Panel app factory: one call per browser session."""

    def page() -> pn.viewable.Viewable:
        workspace_id = signed_in_workspace(service, secret)
        if workspace_id is None:
            return pn.Column(sign_in_view(_arg("error")), sizing_mode="stretch_width")
        return Workbench(LocalClient(service, workspace_id)).view

    return page


__all__ = ["CSS", "SignInHandler", "SignInTokens", "SignOutHandler", "Workbench", "workbench_app"]
