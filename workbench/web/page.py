"""The workbench page at `/`: the workspace bar, the gallery, the editor of one design.

A person signs in with a workspace API key (or the one-time link `docbench serve`
prints, as Jupyter does) on the sign-in page (`signin.py`); the browser then holds an
opaque session cookie, never the key. Each page works through a `SignedInClient`: the
same operations, rules and codes as the REST API, refused once the session has ended.

Everything a user or an API caller could have typed (design, asset, element names,
error messages) reaches the page as text: through widgets, `text()` for Markdown panes,
or `html.escape` for HTML panes (issue 12).
"""

from __future__ import annotations

import html
from typing import Any

import panel as pn

from api.errors import ApiError
from api.renderers import Cancellation
from api.service import Service
from api.service.accounts import BrowserSession
from api.service.common import Workspace

from ..client.api import LocalClient
from ..editor import Editor
from ..editor.connection import HEALTH_URL, ConnectionWatch
from ..editor.lanes import in_page_lane
from ..editor.style import STYLESHEET
from ..editor.text import text
from .gallery import Gallery
from .signin import SIGNIN_CSS, session_of_page, sign_out_form

SESSION_CHECK_MS = 2000  # an open page notices within this that its session ended


class SignedInClient(LocalClient):
    """The page's client: every call first checks that its browser session is still live, so a
    page stops working the moment its session ends (signed out everywhere, key revoked)."""

    source = "editor"  # what this page saves is the editor's (extensions.md 16)

    def __init__(self, service: Service, session: BrowserSession, cancel: Cancellation | None = None):
        super().__init__(service, session.workspace_id, cancel)
        self.session_id = session.id

    def workspace(self) -> Workspace:
        self.service.accounts.check_browser_session(self.session_id)
        return super().workspace()


class WorkbenchPage:
    """The page of one signed-in browser session: the workspace bar over the gallery, or over
    the editor of one design. (Not `workbench.Workbench`, the notebook's connection.)"""

    def __init__(self, client: SignedInClient, xsrf: str):
        self.client = client
        self.editor: Editor | None = None
        self.main = pn.Column(sizing_mode="stretch_both")
        me = client.call("me")
        signed_in_here = sign_out_form(xsrf) + sign_out_form(xsrf, everywhere=True)
        forms = signed_in_here if xsrf else '<a href="/signout">Sign out</a>'
        bar = pn.pane.HTML(
            f'<div class="dbk-bar"><b>docbench</b> · {html.escape(me["workspaceName"])} '
            f"({html.escape(me['plan'])}) · {forms}</div>",
            stylesheets=[STYLESHEET],  # the bar's sign-out buttons look like links (.dbk-bar)
            sizing_mode="stretch_width",
            margin=(4, 10),
        )
        # After a server restart the page reloads by itself, gallery or editor (issue 35).
        self.view = pn.Column(bar, self.main, ConnectionWatch(health_url=HEALTH_URL), sizing_mode="stretch_both")
        design_id = _arg("design")
        if design_id:
            self.open(design_id)
        else:
            self.show_gallery()
        # The check replaces the page's view and stops its editor: it must not run beside a
        # callback of this page, so it takes the page's lane as the editor's poll does.
        self._watch = pn.state.add_periodic_callback(in_page_lane(self._check_session), period=SESSION_CHECK_MS)

    def show_gallery(self) -> None:
        self.main[:] = [Gallery(self.client, self.open).view]

    def open(self, design_id: str) -> None:
        try:
            editor = Editor(self.client, design_id)
        except ApiError as error:
            refusal = pn.pane.Alert(text(error.message), alert_type="danger")
            self.main[:] = [refusal, Gallery(self.client, self.open).view]
            return
        if pn.state.location is not None:
            pn.state.location.update_query(design=design_id)
        self.editor = editor
        self.main[:] = [editor.view]

    def _check_session(self) -> None:
        """End the page (and its editor's poll) once its browser session has ended."""
        try:
            self.client.service.accounts.check_browser_session(self.client.session_id)
        except ApiError as error:
            self._watch.stop()
            if self.editor is not None:
                self.editor.stop()
            self.view[:] = [signed_out_view(error.message)]


def signed_out_view(reason: str) -> pn.pane.HTML:
    return pn.pane.HTML(
        f'<div class="dbk-signin dbk-signed-out"><h1>docbench</h1><p class="error">{html.escape(reason)}</p>'
        '<p><a href="/signin">Sign in</a></p></div>',
        stylesheets=[SIGNIN_CSS],
        sizing_mode="stretch_width",
    )


def _arg(name: str) -> str | None:
    values = pn.state.session_args.get(name) if pn.state.session_args else None
    return values[0].decode() if values else None


def workbench_app(service: Service) -> Any:
    """The Panel app factory: one call per browser session. Bokeh opens the page only for a
    live browser session (`BrowserAuth`), which it found from the real cookie."""

    def page() -> pn.viewable.Viewable:
        context = pn.state.curdoc.session_context if pn.state.curdoc is not None else None
        session, xsrf = session_of_page(context.request if context is not None else None)
        if session is None:  # not through our auth provider: refuse rather than guess
            return signed_out_view("Sign in first.")
        # When the tab closes, the renders it asked for (the gallery's thumbnails, the editor's
        # previews) are dropped from the queue or stopped: nobody will see them.
        closed = Cancellation()
        if context is not None:
            pn.state.on_session_destroyed(lambda _: closed.cancel())
        try:
            return WorkbenchPage(SignedInClient(service, session, closed), xsrf).view
        except ApiError as error:  # the session ended between the request and now
            return signed_out_view(error.message)

    return page


__all__ = ["SignedInClient", "WorkbenchPage", "signed_out_view", "workbench_app"]
