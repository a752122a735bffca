"""The workbench's canvas editor inline in Jupyter (JupyterLab and Notebook 7).

The same `Editor` as the web workbench, over the notebook's own client (REST or embedded),
so an edit made in the notebook is an action batch through the service like any other.
"""

from __future__ import annotations

import threading

import panel as pn

from .client import Client
from .editor import Editor
from .editor.app import CSS

_loaded = threading.Event()


def load_extension() -> None:
    """Load Panel into the notebook once, with its JavaScript written into the notebook itself:
    by default it is fetched from a CDN, which a machine without internet can't reach."""
    if _loaded.is_set():
        return
    pn.extension(inline=True, raw_css=[CSS])
    _loaded.set()


def inline_editor(client: Client, design_id: str, height: int = 820) -> pn.viewable.Viewable:
    """The editor for one design, sized for a notebook output cell."""
    load_extension()
    editor = Editor(client, design_id, home=None)
    return pn.Column(editor, height=height, sizing_mode="stretch_width", css_classes=["dbk-inline"])
