"""The canvas component: a page preview with element boxes to select, move and resize."""

from __future__ import annotations

from pathlib import Path

import panel as pn
import param

STYLE = Path(__file__).with_name("editor.css").read_text()


class Canvas(pn.custom.JSComponent):
    """Python side of the canvas. `edit` carries one gesture from the browser (move,
    resize, delete, paste, undo, redo); the editor turns it into an action batch.

    Trial notes: a param named `background` is never synced, and list params sync only
    when a new list is assigned, so every update assigns a fresh list.
    """

    image = param.String(default="", doc="the page preview as a data: URL")
    page_width = param.Number(default=595.28)
    page_height = param.Number(default=841.89)
    boxes = param.List(default=[], doc="[{id, name, type, x, y, w, h, resize, hidden, locked}] in paint order")
    selection = param.List(default=[], doc="selected element ids")
    zoom = param.Number(default=0, doc="pixels per point; 0 fits the page into the view")
    fit_scale = param.Number(default=1, doc="pixels per point when fitted, measured by the browser")
    edit = param.Dict(default={}, doc="the last gesture, written by the browser")
    applied = param.Integer(default=0, doc="the seq of the last gesture handled (saved or refused)")

    _esm = Path(__file__).with_name("canvas.js")
    _stylesheets = [STYLE]
