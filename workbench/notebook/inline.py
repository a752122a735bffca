"""The workbench's canvas editor inline in Jupyter (JupyterLab and Notebook 7).

The same `Editor` as the web workbench, over the notebook's own client (REST or embedded),
so an edit made in the notebook is an action batch through the service like any other.
"""

from __future__ import annotations

import threading
from typing import Any

import panel as pn

from ..client.api import Client, LocalClient
from ..editor import Editor
from ..editor.connection import ConnectionWatch
from ..editor.lanes import on_this_threads_loop

_loaded = threading.Event()
_sending = threading.Lock()


def send_whole_messages() -> None:
    """Make Panel send each Bokeh message to the notebook's page in one piece (once per kernel).

    Panel sends one message as several comm messages (header, metadata, content, buffers) and
    the page's CommManager puts them back together in arrival order. JupyterLab 4.6 sends a
    comm's messages to a kernel subshell (its `commsOverSubshells` setting, "perCommTarget" by
    default; ipykernel 7 runs each subshell on its own thread): a click is then handled on that
    thread while the editor's poll runs on the kernel's main loop, and two messages sent at
    once can interleave their parts: the page then applies a header to the wrong content ("s is
    not iterable" in Bokeh's apply_json_patch, seen under load in tests/workbench/notebook/test_notebook_editor.py)."""
    from panel.io import notebook

    send = notebook.send
    if getattr(send, "whole_messages", False):
        return

    def send_whole(comm: Any, msg: Any) -> None:
        with _sending:
            send(comm, msg)

    send_whole.whole_messages = True  # type: ignore[attr-defined]
    notebook.send = send_whole


def load_extension() -> None:
    """Load Panel into the notebook once, with its JavaScript written into the notebook itself:
    by default it is fetched from a CDN, which a machine without internet can't reach. No page
    stylesheet: each of the editor's components carries the editor's one stylesheet itself, and
    the notebook's page is Jupyter's to style."""
    if _loaded.is_set():
        return
    send_whole_messages()
    pn.extension(inline=True)
    _loaded.set()


class InlineEditor:
    """The editor for one design in a notebook output cell; `.editor` is the `Editor` itself."""

    def __init__(self, client: Client, design_id: str, height: int = 820):
        load_extension()
        # An embedded service serves no HTTP, so its signed /files URLs reach no browser: a generated
        # PDF comes to the page as a data: URL. Over REST the server's own URL does.
        local = isinstance(client, LocalClient)
        # Its saves are the editor's revisions (extensions.md 16); over REST they are an API client's.
        editing = client.for_editor() if isinstance(client, LocalClient) else client
        self.editor = Editor(editing, design_id, home=None, files_served=not local)
        # The kernel is the server here: the watch says when it does not answer, and never reloads.
        self.view = pn.Column(
            self.editor, ConnectionWatch(), height=height, sizing_mode="stretch_width", css_classes=["dbk-inline"]
        )

    def __panel__(self) -> pn.viewable.Viewable:
        return self.view

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        bundle = self.view._repr_mimebundle_(include, exclude)
        self._messages_in_the_lane()
        return bundle

    def _messages_in_the_lane(self) -> None:
        """Handle the page's messages on this thread's loop, where the poll runs (the page's lane,
        ui_threads.on_this_threads_loop). Each showing of the view has its own comm for the page's
        messages (Panel's client comm), not yet opened: the page opens it once the output shows,
        and the comm then takes the handler it finds here."""
        for _, client_comm in self.view._comms.values():
            if not getattr(client_comm, "in_the_lane", False):
                client_comm._handle_msg = on_this_threads_loop(client_comm._handle_msg)
                client_comm.in_the_lane = True

    def __repr__(self) -> str:
        return f"<InlineEditor of {self.editor.session.design_id}>"
