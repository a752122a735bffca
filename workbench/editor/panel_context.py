"""What a side panel sees of the editor, and all it may do: the one type every panel
builder takes (panels.py, try_values.py), in a module of its own so that they can share it
without importing each other."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine import DesignTree

from ..client.api import Client


@dataclass(frozen=True)
class PanelContext:
    """What a side panel sees of the editor, and all it may do."""

    tree: DesignTree
    page: int  # the index of the page shown on the canvas
    selection: tuple[str, ...]  # the selected element ids
    client: Client
    apply: Callable[[list[dict]], None]  # save one action batch; a refusal is shown to the user
    run: Callable[[Callable[[], Any]], None]  # any other call (an upload); the panel is rebuilt after it
    add: Callable[..., None]  # add an element of a type to the page shown, and select it; refusals shown
    show_page: Callable[[int], None]  # show another page on the canvas
    thumbnail: Callable[[int], bytes]  # a page's preview, small; made again only when the page changed
    design_id: str = ""  # the design's id, for the client's operations on it
    show_try: Callable[[dict | None], None] = lambda values: None  # tried values on the canvas; None: the page again
    sheets: Callable[[int], int] = lambda index: 1  # how many sheets a page lays out as (known once previewed)
    kept: dict = dataclasses.field(default_factory=dict)  # what panels keep across rebuilds (unsaved input)
    add_page: Callable[[], None] = lambda: None  # add a page after the last and show it; refusals shown
    select: Callable[[Sequence[str]], None] = lambda ids: None  # select elements on the canvas (and show their page)
    # The History tab (extensions.md 16): the newest n revisions, a revision's page 1 small (kept
    # for good: a revision never changes), and restoring one onto the canvas; refusals shown.
    revisions: Callable[[int], dict] = lambda limit: {"items": [], "nextCursor": None}
    revision_thumbnail: Callable[[int], bytes] = lambda revision: b""
    restore: Callable[[int], None] = lambda revision: None
