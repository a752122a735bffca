"""Revisions and publishing (extensions.md 16): every kept revision of a design listed and
read, restored as a new one, and the one revision generate and batch render published or not.
The rows themselves are written with each save (revision_rows.py, Designs)."""

from __future__ import annotations

from typing import Any

from engine import DesignTree
from engine.design.diff import differences

from ..models import PublishBody, RevisionListQuery
from ..store import Store
from .common import Workspace, decode_number_cursor, encode_number_cursor, iso
from .designs import Designs
from .revision_rows import revision_not_found, revision_number, unpacked


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
            params.append(decode_number_cursor(query.cursor, "revision"))
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
        next_cursor = encode_number_cursor(items[-1]["revision"], "revision") if len(rows) > query.limit else None
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
        if published == latest:  # the latest is published: nothing to read or compare
            changes = {"added": [], "removed": [], "changed": [], "other": []}
        elif published is not None:
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
