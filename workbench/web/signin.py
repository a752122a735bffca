"""Signing a browser in and out of the workbench (issue 12).

The cookie (`dbk`) holds an opaque random token that stands for a row of
`browser_sessions`, never the API key; Bokeh is told to leave it (and the raw Cookie
header) out of the session token it writes into every page, so a script in the page
cannot read it. Who is signed in is learnt at the Tornado level, where the real cookies
are: Bokeh's auth provider (`BrowserAuth.get_user`) resolves the token for the page
request and the websocket, and hangs the session on the request, which the Panel app
reads through `session_context.request`.

Sign-in and sign-out are forms protected by Tornado's XSRF double-submit token (and an
Origin check), so another site can neither sign a visitor in to its own workspace nor
sign them out. The sign-in page is plain HTML served by Tornado, not a Panel page.
"""

from __future__ import annotations

import base64
import hashlib
import html
from urllib.parse import urlencode, urlsplit

from bokeh.server.auth_provider import AuthProvider
from bokeh.server.views.doc_handler import DocHandler
from tornado.web import HTTPError, RequestHandler

from api.errors import ApiError
from api.service import Service
from api.service.accounts import BROWSER_SESSION_DAYS, BrowserSession

from ..server.signin_links import SignInTokens

COOKIE = "dbk"
XSRF_COOKIE = "_xsrf"
# Attributes our auth provider sets on the Tornado request; the app reads them through
# Bokeh's request proxy (it forwards unknown attributes to the real request).
SESSION_ATTRIBUTE = "docbench_browser"
XSRF_ATTRIBUTE = "docbench_xsrf"

SIGNIN_CSS = (
    "body{background:#f4f6f9;margin:0}"
    ".dbk-signin{max-width:26rem;margin:6rem auto;font:15px/1.5 system-ui,sans-serif;color:#1b2330}"
    ".dbk-signin input{width:100%;padding:.5rem;border:1px solid #c5cdd8;border-radius:6px;box-sizing:border-box}"
    ".dbk-signin button{margin:.8rem .4rem 0 0;padding:.5rem 1.2rem;border:none;border-radius:6px;"
    "background:#1f4e8c;color:white;cursor:pointer}"
    ".dbk-signin .error{color:#b42318}"
)
# The sign-in pages need no script at all: only their one inline stylesheet, by hash.
_STYLE_HASH = base64.b64encode(hashlib.sha256(SIGNIN_CSS.encode()).digest()).decode()
SIGNIN_CSP = (
    f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)

MESSAGES = {
    "key": "That API key was not accepted.",
    "token": "That sign-in link was already used or has expired.",
    "form": "That sign-in form had expired or came from another site; please try again.",
    "ended": "You were signed out.",
}


class BrowserAuth(AuthProvider):
    """Bokeh's auth hook: the page and its websocket open only for a live browser session."""

    def __init__(self, service: Service, secure: bool):
        """`secure`: behind an https --base-url, the cookies never travel over plain http."""
        self.service = service
        self.secure = secure
        super().__init__()

    @property
    def get_user(self):  # noqa: ANN201
        return self._user

    @property
    def login_url(self) -> str:
        return "/signin"

    def _user(self, handler: RequestHandler) -> str | None:
        page = isinstance(handler, DocHandler)  # not the websocket, not a static file
        session = self.session_of(handler, touch=page)
        if session is None:
            return None
        setattr(handler.request, SESSION_ATTRIBUTE, session)
        if page:
            # The page's own forms (sign out) carry this; it is not a credential.
            setattr(handler.request, XSRF_ATTRIBUTE, handler.xsrf_token.decode())
        return session.id

    def session_of(self, handler: RequestHandler, touch: bool = False) -> BrowserSession | None:
        token = self.token_of(handler)
        if token is None:
            return None
        try:
            return self.service.accounts.browser_session(token, touch=touch)
        except ApiError:
            return None

    def token_of(self, handler: RequestHandler) -> str | None:
        value = handler.get_signed_cookie(COOKIE, max_age_days=BROWSER_SESSION_DAYS)
        return value.decode() if value else None

    def set_cookie(self, handler: RequestHandler, token: str) -> None:
        handler.set_signed_cookie(
            COOKIE,
            token,
            expires_days=BROWSER_SESSION_DAYS,
            httponly=True,
            samesite="Lax",  # a link from elsewhere still opens the workbench signed in
            secure=self.secure,
        )

    def clear_cookie(self, handler: RequestHandler) -> None:
        handler.clear_cookie(COOKIE)


def session_of_page(request: object) -> tuple[BrowserSession | None, str]:
    """The browser session and XSRF token our auth provider found for this page's request."""
    return getattr(request, SESSION_ATTRIBUTE, None), getattr(request, XSRF_ATTRIBUTE, None) or ""


def local_path(target: str | None) -> str:
    """Where to go after signing in: a path on this server, never another site."""
    if not target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith(("//", "/\\")):
        return "/"
    return target


class _FormHandler(RequestHandler):
    """A plain page of ours: no script, its own strict policy (set before the server-wide one)."""

    @property
    def auth(self) -> BrowserAuth:
        return self.application.auth_provider

    def set_default_headers(self) -> None:
        self.set_header("Content-Security-Policy", SIGNIN_CSP)
        self.set_header("Cache-Control", "no-store")

    def check_form(self) -> bool:
        """The form came from one of our pages: same-origin, with the XSRF token of this browser."""
        origin = self.request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != self.request.host:
            return False
        try:
            self.check_xsrf_cookie()
        except HTTPError:
            return False
        return True

    def page(self, body: str, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>docbench · sign in</title>'
            f'<meta name="viewport" content="width=device-width"><style>{SIGNIN_CSS}</style></head>'
            f'<body><div class="dbk-signin"><h1>docbench</h1>{body}</div></body></html>'
        )

    def xsrf_field(self) -> str:
        return f'<input type="hidden" name="_xsrf" value="{html.escape(self.xsrf_token.decode())}">'


class SignInHandler(_FormHandler):
    def initialize(self, service: Service, tokens: SignInTokens) -> None:
        self.service = service
        self.tokens = tokens

    def get(self) -> None:
        token = self.get_query_argument("token", "")
        if token:
            workspace_id = self.tokens.redeem(token)
            if workspace_id is not None:
                previous = self.auth.token_of(self)
                self._signed_in(self.service.accounts.start_browser_session(workspace_id, replacing=previous))
                return
        error = "token" if token else self.get_query_argument("error", "")
        self.form(error, self.get_query_argument("next", "/"))

    def post(self) -> None:
        target = self.get_body_argument("next", "/")
        if not self.check_form():
            self.form("form", target, status=403)
            return
        key = self.get_body_argument("api_key", "").strip()
        try:
            token = self.service.accounts.sign_in_with_key(key, replacing=self.auth.token_of(self))
        except ApiError:
            # Back to the form with the reason (a redirect: reloading must not post the key again).
            self.redirect("/signin?" + urlencode({"error": "key", "next": local_path(target)}))
            return
        self._signed_in(token, target)

    def _signed_in(self, token: str, target: str = "/") -> None:
        self.auth.set_cookie(self, token)
        self.redirect(local_path(target))

    def form(self, error: str, target: str, status: int = 200) -> None:
        message = f'<p class="error">{html.escape(MESSAGES[error])}</p>' if error in MESSAGES else ""
        self.page(
            f"<p>Sign in with a workspace API key.</p>{message}"
            '<form method="post" action="/signin">'
            f'{self.xsrf_field()}<input type="hidden" name="next" value="{html.escape(local_path(target))}">'
            '<label>API key<br><input name="api_key" type="password" autocomplete="off" placeholder="dbk_live_…" '
            'required></label><button type="submit">Sign in</button></form>'
            "<p><small>No key? <code>docbench key create WORKSPACE_ID</code> makes one.</small></p>",
            status,
        )


class SignOutHandler(_FormHandler):
    """POST signs out (this browser, or every browser of the workspace); GET only shows the form,
    so a link or image on another site cannot sign anyone out."""

    def get(self) -> None:
        self.confirm(everywhere=self.get_query_argument("everywhere", "") == "1")

    def confirm(self, everywhere: bool, status: int = 200) -> None:
        question = "<p>Sign out of the workbench?</p>"
        self.page(question + sign_out_form(self.xsrf_token.decode(), everywhere=everywhere), status)

    def post(self) -> None:
        if not self.check_form():
            self.confirm(everywhere=self.get_body_argument("everywhere", "") == "1", status=403)
            return
        token = self.auth.token_of(self)
        if token is not None:
            everywhere = self.get_body_argument("everywhere", "") == "1"
            self.auth.service.accounts.sign_out_browser(token, everywhere)
        self.auth.clear_cookie(self)
        self.redirect("/signin?error=ended")


def sign_out_form(xsrf: str, everywhere: bool = False) -> str:
    """A one-button form; the workspace bar shows two of them."""
    label = "Sign out everywhere" if everywhere else "Sign out"
    css = "dbk-signout-all" if everywhere else "dbk-signout"
    hidden = '<input type="hidden" name="everywhere" value="1">' if everywhere else ""
    return (
        f'<form method="post" action="/signout" class="{css}">'
        f'<input type="hidden" name="_xsrf" value="{html.escape(xsrf)}">{hidden}'
        f'<button type="submit">{label}</button></form>'
    )
