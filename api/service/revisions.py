"""Revisions and publishing (extensions.md 16): every saved tree kept, listed, read, restored,
and the one revision generate and batch render.

A revision is written by `record`, inside the transaction that saves the design's tree and
under its row lock (Designs), so the tree and its revision commit together and two processes
never take one number. Each revision holds its whole tree, zlib-compressed: a tree's JSON
shrinks about tenfold, and any revision reads back on its own (a diff chain would make reading
or pruning one touch others). Base64 text, one column type both stores read alike.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import TYPE_CHECKING, Any, Literal

from engine import DesignTree
from engine.design.diff import differences

from ..errors import ApiError
from ..models import PublishBody, RevisionListQuery
from ..store import Store
from .common import Workspace, iso, now

if TYPE_CHECKING:
    from .designs import Designs

Source = Literal["api", "editor", "mcp", "restore"]
# extensions.md 16: at least the last 100 revisions and every published one are kept.
KEEP_REVISIONS = 100
SUMMARY_LENGTH = 200
# Level 1: a tenth of level 6's time for a few percent more bytes, on the path of every tree patch.
COMPRESSION_LEVEL = 1
PACKED = "z:"  # a packed tree's prefix; a tree's JSON starts with "{"


def packed(tree_json: str) -> str:
    return PACKED + base64.b64encode(zlib.compress(tree_json.encode(), COMPRESSION_LEVEL)).decode()


def unpacked(stored: str) -> str:
    if not stored.startswith(PACKED):
        return stored  # copied as it was by migration 15
    return zlib.decompress(base64.b64decode(stored[len(PACKED) :])).decode()


def summary_of(actions: list[dict[str, Any]]) -> str:
    """What a batch of actions did, in a line: "add_element text 'title'; update_element 'logo'",
    cut to about SUMMARY_LENGTH characters with the number of actions left out."""
    parts = []
    for action in actions:
        args = action.get("args") or {}
        part = str(action.get("type", "?"))
        if part == "add_element" and isinstance(args.get("type"), str):
            part += f" {args['type']}"
        target = args.get("name", args.get("id"))
        if isinstance(target, str):
            part += f" {target[:40]!r}"
        parts.append(part)
    text = ""
    for index, part in enumerate(parts):
        joined = f"{text}; {part}" if text else part
        if len(joined) > SUMMARY_LENGTH:
            return f"{text}; … ({len(parts) - index} more)"
        text = joined
    return text


def record(
    cursor: Any,
    design_id: str,
    number: int,
    source: Source,
    summary: str,
    tree_json: str,
    published: int | None,
    keep: int = KEEP_REVISIONS,
) -> None:
    """Write revision `number` of the design and drop what falls out of the kept window (the
    last `keep` and the published one), in the caller's transaction."""
    cursor.execute(
        "INSERT INTO design_revisions (design_id, revision, created_at, source, summary, tree) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [design_id, number, now(), source, summary[: SUMMARY_LENGTH + 40], packed(tree_json)],
    )
    oldest_kept = number - keep + 1
    if oldest_kept > 1:
        cursor.execute(
            "DELETE FROM design_revisions WHERE design_id = ? AND revision < ? AND revision <> ?",
            [design_id, oldest_kept, published or 0],
        )


def revision_not_found(design_id: str, number: object) -> ApiError:
    return ApiError(
        "REVISION_NOT_FOUND",
        f"design '{design_id}' has no revision {str(number)[:40]!r}; GET /designs/{design_id}/revisions lists "
        f"those kept (the last {KEEP_REVISIONS} and the published one)",
    )


def revision_number(design_id: str, text: str) -> int:
    """A revision number from a path, or 404: revisions are numbered 1, 2, …"""
    if not text.isascii() or not text.isdigit() or int(text) < 1 or len(text) > 9:
        raise revision_not_found(design_id, text)
    return int(text)


def encode_revision_cursor(number: int) -> str:
    return base64.urlsafe_b64encode(json.dumps(["revision", number]).encode()).decode().rstrip("=")


def decode_revision_cursor(cursor: str) -> int:
    from ..errors import validation

    try:
        kind, number = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if kind != "revision" or not isinstance(number, int):
            raise ValueError(cursor)
        return number
    except (ValueError, TypeError) as exc:
        raise validation("cursor is not one this API returned; pass nextCursor back unchanged") from exc


class Revisions:
    def __init__(self, store: Store, designs: Designs):
        self.store = store
        self.designs = designs

    def list(self, ws: Workspace, design_id: str, query: RevisionListQuery) -> dict:
        """Newest first; keyed on the number, so revisions made while a client pages never
        shift a page."""
        _, published = self.designs.revision_state(ws, design_id)
        sql = "SELECT revision, created_at, source, summary FROM design_revisions WHERE design_id = ?"
        params: list[Any] = [design_id]
        if query.cursor:
            sql += " AND revision < ?"
            params.append(decode_revision_cursor(query.cursor))
        rows = self.store.all(sql + " ORDER BY revision DESC LIMIT ?", [*params, query.limit + 1])
        items = [
            {
                "revision": number,
                "createdAt": iso(created),
                "source": source,
                "summary": summary,
                "published": number == published,
            }
            for number, created, source, summary in rows[: query.limit]
        ]
        next_cursor = encode_revision_cursor(items[-1]["revision"]) if len(rows) > query.limit else None
        return {"items": items, "nextCursor": next_cursor}

    def tree_json(self, ws: Workspace, design_id: str, number_text: str) -> str:
        self.designs.revision_state(ws, design_id)  # 404 for an unknown design, or another workspace's
        number = revision_number(design_id, number_text)
        return self.stored_tree(design_id, number)

    def stored_tree(self, design_id: str, number: int, cursor: Any = None) -> str:
        sql, params = "SELECT tree FROM design_revisions WHERE design_id = ? AND revision = ?", [design_id, number]
        found = cursor.execute(sql, params).fetchone() if cursor is not None else self.store.one(sql, params)
        if found is None:
            raise revision_not_found(design_id, number)
        return unpacked(found[0])

    def restore(self, ws: Workspace, design_id: str, number_text: str) -> dict:
        """A new revision whose tree equals revision n's (the history is kept, nothing rewritten)."""
        self.designs.revision_state(ws, design_id)
        number = revision_number(design_id, number_text)
        return self.designs.restore(ws, design_id, number, lambda cursor: self.stored_tree(design_id, number, cursor))

    def publish(self, ws: Workspace, design_id: str, body: PublishBody) -> dict:
        return self.designs.publish(ws, design_id, body.revision)

    def unpublish(self, ws: Workspace, design_id: str) -> dict:
        return self.designs.unpublish(ws, design_id)

    def publish_state(self, ws: Workspace, design_id: str) -> dict:
        """The published revision and what the latest tree (the draft) changes against it
        (engine.design.diff.differences): what publishing the latest would change."""
        (latest, published, tree_json), changes = self.designs.row_of(ws, design_id), None
        if published is not None:
            before = DesignTree.model_validate_json(self.stored_tree(design_id, published))
            changes = differences(before, DesignTree.model_validate_json(tree_json))
        differs = changes is not None and any(changes.values())
        return {
            "designId": design_id,
            "publishedRevision": published,
            "latestRevision": latest,
            "differs": differs,
            "changes": changes,
        }
