"""The canvas component: a page preview with element boxes to select, move and resize."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path
from typing import Any

import panel as pn
import param

import engine.fonts
from api.settings import ASSET_LIMIT

from .esm import joined_module
from .style import STYLESHEET


class GestureMessages:
    """For a component whose browser events come as messages (`model.send_msg`): each is
    handed to `on_gesture`, in the page's lane, in the order sent (docs/editor-state.md)."""

    def __init__(self, on_gesture: Callable[[dict], None] | None = None, **params: Any):
        super().__init__(**params)
        self.on_gesture = on_gesture

    def _handle_msg(self, msg: Any) -> None:
        if isinstance(msg, dict) and self.on_gesture is not None:
            self.on_gesture(msg)


class Canvas(GestureMessages, pn.custom.JSComponent):
    """Python side of the canvas (docs/editor-state.md).

    The server writes what the page shows (`boxes`, `image`, the page size) and nothing
    else; the browser owns the view (`selection`, `zoom`, `view_centre`). Each gesture (move,
    resize, nudge, delete, paste, undo, redo, edit_text) comes as one message, handed to
    `on_gesture` in the page's lane, in the order the browser sent them.

    Trial notes: a param named `background` is never synced, and list params sync only
    when a new list is assigned, so every update assigns a fresh list.
    """

    image = param.String(default="", doc="the page preview as a data: URL")
    page_width = param.Number(default=595.28)
    page_height = param.Number(default=841.89)
    boxes = param.List(
        default=[],
        doc="[{id, name, type, x, y, w, h, resize, hidden, locked, inline_text, keeps_aspect, hit}] in paint order",
    )
    selection = param.List(default=[], doc="selected element ids")
    zoom = param.Number(default=0, doc="pixels per point; 0 fits the page into the view")
    fit_scale = param.Number(default=1, doc="pixels per point when fitted, measured by the browser")
    drop_limit = param.Integer(
        default=ASSET_LIMIT, doc="the largest file, in bytes, a drop on the page sends (the asset upload limit)"
    )
    view_centre = param.List(
        default=[], doc="[x, y] in points: the middle of the page's visible part, written by the browser; [] unknown"
    )

    # One module per concern in canvas/ (boxes, gestures, snap, hits, live drag, keys, text
    # overlay, menus, view, rulers), joined into the one module Panel loads: it loads `_esm`
    # from a blob: URL, where their relative imports would resolve to nothing (esm.py).
    _esm = joined_module(Path(__file__).with_name("canvas") / "render.js")
    _stylesheets = [STYLESHEET]

    def _handle_msg(self, msg: Any) -> None:
        # A face the text overlay asks for is for the view: no gesture, no batch, no redraw.
        if isinstance(msg, dict) and msg.get("kind") == "face":
            self._send_face(str(msg.get("family")), int(msg.get("weight") or 400), bool(msg.get("italic")))
            return
        super()._handle_msg(msg)

    def _send_face(self, family: str, weight: int, italic: bool) -> None:
        """The catalog's TTF for a face, so text typed on the canvas is set in it. Sent as bytes
        in a message (the browser builds a FontFace from them): the page's CSP loads no font
        from a URL, and an editor inline in a notebook has no server to fetch one from."""
        try:
            path, resolved, slanted = engine.fonts.face_file(family, weight, italic)
        except ValueError:  # not a catalog family: the overlay keeps its generic family
            return
        data = base64.b64encode(path.read_bytes()).decode()
        self._send_msg({"face": {"family": family, "weight": resolved, "italic": slanted, "data": data}})

    def redraw(self) -> None:
        """Ask the browser to draw the boxes it holds again: a gesture that saved nothing
        (refused, or on locked elements) leaves no new boxes to put the dropped ones back."""
        self._send_msg({"redraw": True})

    def show_under(self, ids: list[str], image: str) -> None:
        """Answer a drag's lift: `image` (a data: URL) is the page without the elements `ids`,
        shown under them while they move, so their old spot is empty."""
        self._send_msg({"under": image, "ids": ids})
