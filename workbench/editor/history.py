"""The History tab (extensions.md 16): the design's revisions, newest first, each with a
thumbnail of its page 1, who saved it, what changed, whether it is the published one, and
Restore.

A long history stays quick: the tab lists HISTORY_PAGE revisions and "Show older" more, so
only the thumbnails looked at are rendered; a revision never changes, so the editor keeps each
thumbnail for good (Editor.revision_thumbnail).
"""

from __future__ import annotations

import html
import re

import panel as pn

from engine import DesignTree

from .panel_context import PanelContext

HISTORY_PAGE = 8  # revisions listed at first, and added by each "Show older"
SOURCES = {"api": "API", "editor": "editor", "mcp": "MCP", "restore": "restore"}


def _when(created_at: str) -> str:
    """ "2026-11-27 10:25 UTC" from the API's ISO time."""
    return created_at[:16].replace("T", " ") + " UTC"


def _named(summary: str, tree: DesignTree) -> str:
    """The summary with the ids of elements the design still has shown as their names: the
    editor addresses elements by id, and a reader knows them by name."""
    nodes = tree.nodes
    return re.sub(r"'([^']+)'", lambda m: repr(nodes[m[1]].name) if m[1] in nodes else m[0], summary)


def history_panel(ctx: PanelContext) -> pn.Column:
    shown = ctx.kept.get("history_shown", HISTORY_PAGE)
    listed = ctx.revisions(shown)
    items = listed["items"]
    rows = []
    for index, item in enumerate(items):
        number = item["revision"]
        badge = ' <span class="dbk-published-badge">Published</span>' if item["published"] else ""
        latest = " · current" if index == 0 else ""
        described = pn.pane.HTML(
            f"<b>Revision {number}</b>{badge}<br>"
            f"<small>{_when(item['createdAt'])} · {SOURCES.get(item['source'], item['source'])}{latest}</small><br>"
            f'<small class="dbk-revision-summary">{html.escape(_named(item["summary"], ctx.tree))}</small>',
            margin=(0, 4),
            sizing_mode="stretch_width",
        )
        parts: list = [described]
        if index > 0:  # the newest is what the canvas shows: nothing to restore
            restore = pn.widgets.Button(label="Restore", css_classes=["dbk-restore"], margin=(4, 4))
            restore.on_click(lambda e, number=number: ctx.restore(number))
            parts.append(restore)
        thumbnail = pn.pane.PNG(
            ctx.revision_thumbnail(number), width=72, margin=(4, 4), styles={"border": "1px solid #d5dbe3"}
        )
        rows.append(
            pn.Row(
                thumbnail,
                pn.Column(*parts, sizing_mode="stretch_width", margin=0),
                css_classes=["dbk-revision", f"dbk-revision-{number}"],
                sizing_mode="stretch_width",
            )
        )
    if listed["nextCursor"] is not None:
        older = pn.widgets.Button(label="Show older", css_classes=["dbk-history-older"])

        def more(event: object) -> None:
            ctx.kept["history_shown"] = shown + HISTORY_PAGE
            ctx.run(lambda: None)  # the tab is rebuilt after it, listing more

        older.on_click(more)
        rows.append(older)
    hint = pn.pane.HTML(
        "<small>Every save is a revision. Restore makes a new one equal to it (Undo takes it back).</small>",
        sizing_mode="stretch_width",
    )
    return pn.Column(hint, *rows, sizing_mode="stretch_width", css_classes=["dbk-history"])
