"""Designs: create, list, read, rename, duplicate, delete, and author through atomic action batches."""

from __future__ import annotations

import datetime as dt
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import engine
from engine.design.names import invisible_character_problem, strip_invisible
from engine.design.tree import tree_size_problem
from engine.errors import ActionError, EngineError

from ..errors import design_not_found, validation
from ..models import NAME_MAX_LENGTH, CreateDesignBody, DuplicateDesignBody, ListQuery, PatchTreeBody, UpdateDesignBody
from ..store import Store
from .common import Workspace, iso, new_id, newest_first, now
from .remembered import Remembered
from .revision_rows import KEEP_REVISIONS, Source, record, revision_not_found, summary_of, unpacked

if TYPE_CHECKING:
    from .media import Media

COLUMNS = "id, name, description, file_size, created_at, modified_at"
# The designs a caller can see: not folders, not deleted (a deleted design's row stays, see delete).
LIVE = "NOT is_folder AND deleted_at IS NULL"
INSERT = (
    "INSERT INTO designs (id, workspace_id, name, description, tree, file_size, created_at, modified_at, revision) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)"
)
COPY_SUFFIX = " (copy)"
# A tree patch is applied outside the write this many times before it is applied under the row lock.
OPTIMISTIC_PATCHES = 2


def _design(row: tuple) -> dict:
    design_id, name, description, file_size, created, modified = row
    return {
        "designId": design_id,
        "name": name,
        "description": description,
        "fileSize": file_size,
        "createdAt": iso(created),
        "modifiedAt": iso(modified),
    }


class Designs:
    def __init__(self, store: Store, media: Media, keep_revisions: int = KEEP_REVISIONS):
        self.store = store
        self.media = media
        self.keep_revisions = keep_revisions
        # Tree patches on one design run one at a time, so none is lost (read, apply, write).
        self._locks: dict[str, threading.Lock] = defaultdict(threading.Lock)
        self._locks_guard = threading.Lock()
        # Trees are as large as a 10 MB body makes them: the rows kept are bounded by their text too.
        self._render_rows: Remembered[dict] = Remembered(store, 256, lambda row: len(row["tree"]))

    def _lock(self, design_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks[design_id]

    def _known_lock(self, ws: Workspace, design_id: str) -> threading.Lock:
        """The design's lock, 404 before a lock is made for an id that does not exist. A lock
        already made is for a design that existed (delete drops it): a patch then skips that
        query (issue 40: a revision's write must keep a patch within 1.1x its cost), and the
        read under the row lock still answers 404 for a deleted or another workspace's design."""
        with self._locks_guard:
            lock = self._locks.get(design_id)
        if lock is not None:
            return lock
        self._row(ws, design_id, "id")
        return self._lock(design_id)

    def create(self, ws: Workspace, body: CreateDesignBody, source: Source = "api") -> dict:
        summary = "create_design"
        notes: list[str] = []
        if body.basePdf is not None:
            tree_json, notes = self.media.design_from_pdf(ws, body.basePdf.ref, body.name)
            summary = f"create_design from {body.basePdf.ref}"
        else:
            tree = engine.new_design(body.size, body.orientation, body.width, body.height, title=body.name)
            tree_json = tree.model_dump_json()
        problem = tree_size_problem(len(tree_json.encode()), 0)
        if problem is not None:
            raise validation(problem)
        design_id, created = new_id("dsg"), now()
        result = self._insert(ws, design_id, body.name, body.description, tree_json, created, source, summary)
        if notes:
            result["importNotes"] = notes  # what of the PDF's form was left out, and why
        return result

    def _insert(
        self,
        ws: Workspace,
        design_id: str,
        name: str,
        description: str | None,
        tree_json: str,
        created: dt.datetime,
        source: Source,
        summary: str,
    ) -> dict:
        with self.store.transaction() as cursor:
            cursor.execute(
                INSERT, [design_id, ws.id, name, description, tree_json, len(tree_json.encode()), created, created]
            )
            record(cursor, design_id, 1, source, summary, tree_json, None)  # a design starts at revision 1
        result = {"designId": design_id, "name": name, "createdAt": iso(created)}
        if description is not None:
            result["description"] = description
        return result

    def duplicate(self, ws: Workspace, design_id: str, body: DuplicateDesignBody, source: Source = "api") -> dict:
        """A new design holding a copy of the tree (pages, nodes, variables, metadata) as saved now;
        its history starts afresh (revision 1), the original's stays with the original."""
        name, description, tree_json, revision = self._row(ws, design_id, "name, description, tree, revision")
        copy = body.name if body.name is not None else copy_name(name)
        summary = f"duplicate_design of {design_id} revision {revision}"
        return self._insert(ws, new_id("dsg"), copy, description, tree_json, now(), source, summary)

    def delete(self, ws: Workspace, design_id: str) -> dict:
        """Mark the design deleted; every read of designs skips it from then on.

        Its row stays so the generations and batch jobs made from it still point at a design.
        Nothing else needs it: their PDFs and ZIPs are blobs of their own (downloadable until
        their signed URLs expire), a running batch carries its own copy of the tree and image
        keys (JobPayload) and settles on its job's row, and images belong to the workspace."""
        self._row(ws, design_id, "id")  # 404 before a lock is made for an id that does not exist
        with self._lock(design_id):  # a tree patch under way is saved first; the next one finds no design
            with self.store.transaction() as cursor:
                self.store.lock_row(cursor, "designs", design_id)  # and one in another process
                live = cursor.execute(
                    f"SELECT id FROM designs WHERE id = ? AND workspace_id = ? AND {LIVE}", [design_id, ws.id]
                ).fetchone()
                if live is None:  # deleted meanwhile by another call
                    raise design_not_found(design_id)
                cursor.execute("UPDATE designs SET deleted_at = ? WHERE id = ?", [now(), design_id])
        with self._locks_guard:
            self._locks.pop(design_id, None)
        return {"designId": design_id, "deleted": True}

    def list(self, ws: Workspace, query: ListQuery) -> dict:
        sql = f"SELECT {COLUMNS} FROM designs WHERE workspace_id = ? AND {LIVE}"
        params: list = [ws.id]
        if query.parentId is not None:
            sql += " AND parent_id = ?"
            params.append(query.parentId)
        rows, next_cursor = newest_first(self.store, sql, params, query, 4, 0)
        return {"items": [_design(r) for r in rows], "nextCursor": next_cursor}

    def _row(self, ws: Workspace, design_id: str, columns: str = COLUMNS) -> tuple:
        row = self.store.one(
            f"SELECT {columns} FROM designs WHERE id = ? AND workspace_id = ? AND {LIVE}", [design_id, ws.id]
        )
        if row is None:
            raise design_not_found(design_id)
        return row

    def get(self, ws: Workspace, design_id: str) -> dict:
        return _design(self._row(ws, design_id))

    def tree_json(self, ws: Workspace, design_id: str) -> str:
        return self._row(ws, design_id, "tree")[0]

    def tree(self, ws: Workspace, design_id: str) -> engine.DesignTree:
        return engine.DesignTree.model_validate_json(self.tree_json(ws, design_id))

    def variables(self, ws: Workspace, design_id: str) -> dict:
        """Every variable of the design with what it takes and its sample (extensions.md 5)."""
        return {"variables": engine.list_variables(self.tree(ws, design_id))}

    def update(self, ws: Workspace, design_id: str, body: UpdateDesignBody) -> dict:
        self._row(ws, design_id)
        changes = {k: getattr(body, k) for k in ("name", "description") if k in body.model_fields_set}
        with self.store.transaction() as cursor:
            assignments = ", ".join(f"{column} = ?" for column in changes)
            cursor.execute(
                f"UPDATE designs SET {assignments}, modified_at = ? WHERE id = ?",
                [*changes.values(), now(), design_id],
            )
        design = self.get(ws, design_id)
        design.pop("createdAt")
        return design

    def patch_tree(self, ws: Workspace, design_id: str, body: PatchTreeBody, source: Source = "api") -> dict:
        """Apply the actions atomically (spec 4.3): all of them are saved, or nothing; the save
        is a new revision (extensions.md 16), committed with it."""
        actions = [a.model_dump() for a in body.actions]
        summary = summary_of(actions)  # before image sources are inlined: as the caller wrote them
        lock = self._known_lock(ws, design_id)
        # Fetching and decoding image sources does not read the tree, and may take up to
        # 10 URLs x 10 s: it happens before the lock, which covers only read, apply, write.
        # The uploads stay pending until the tree is saved, so a refused batch leaves none.
        try:
            actions, pending = self.media.inline_sources(ws, actions)
        except ActionError as exc:
            raise validation(exc.message) from None
        # The actions are applied outside any transaction: applying may take a while (expressions on
        # the samples, Markdown, measuring text), and the DuckDB store's transaction holds the
        # process's one writer, so every other workspace's reads and generates would wait for it
        # (issue 48: a 43 s patch held them all). A short transaction then writes the tree if no
        # one saved another revision meanwhile. The in-process lock queues this process's patches
        # of the design, so only another process (PostgreSQL) can have: the actions are then
        # applied to its tree.
        with lock:
            for _ in range(OPTIMISTIC_PATCHES):
                stored, read = self._row(ws, design_id, "tree, revision")
                tree_json, results = _applied(stored, actions)
                with self.store.transaction() as cursor:
                    latest, published, name = self._locked_row(
                        cursor, ws, design_id, "revision, published_revision, name"
                    )
                    if latest == read:
                        self.media.save_pending(cursor, ws, pending)
                        revision, modified = self._save(
                            cursor, design_id, tree_json, latest, published, source, summary
                        )
                        break
            else:  # another process saved each time: applied under the row lock, which queues its patches
                with self.store.transaction() as cursor:
                    latest, published, name, stored = self._locked_row(
                        cursor, ws, design_id, "revision, published_revision, name, tree"
                    )
                    tree_json, results = _applied(stored, actions)
                    self.media.save_pending(cursor, ws, pending)
                    revision, modified = self._save(cursor, design_id, tree_json, latest, published, source, summary)
        return {
            "designId": design_id,
            "name": name,
            "fileSize": len(tree_json.encode()),
            "modifiedAt": iso(modified),
            "revision": revision,
            "results": results,
        }

    def _save(
        self,
        cursor: Any,
        design_id: str,
        tree_json: str,
        latest: int,
        published: int | None,
        source: Source,
        summary: str,
    ) -> tuple[int, dt.datetime]:
        """Save the tree as the design's next revision, under its row lock (the caller's)."""
        modified, revision = now(), latest + 1
        cursor.execute(
            "UPDATE designs SET tree = ?, file_size = ?, modified_at = ?, revision = ? WHERE id = ?",
            [tree_json, len(tree_json.encode()), modified, revision, design_id],
        )
        record(cursor, design_id, revision, source, summary, tree_json, published, self.keep_revisions)
        return revision, modified

    def _locked_row(self, cursor: Any, ws: Workspace, design_id: str, columns: str) -> tuple:
        self.store.lock_row(cursor, "designs", design_id)
        found = cursor.execute(
            f"SELECT {columns} FROM designs WHERE id = ? AND workspace_id = ? AND {LIVE}", [design_id, ws.id]
        ).fetchone()
        if found is None:  # deleted meanwhile by another call
            raise design_not_found(design_id)
        return found

    def revision_state(self, ws: Workspace, design_id: str) -> tuple[int, int | None]:
        """The design's latest revision and its published one (None: never, or unpublished)."""
        return self._row(ws, design_id, "revision, published_revision")

    def row_of(self, ws: Workspace, design_id: str) -> tuple[int, int | None, str]:
        """The design's latest revision, its published one (None: never, or unpublished) and its tree."""
        return self._row(ws, design_id, "revision, published_revision, tree")

    def restore(self, ws: Workspace, design_id: str, number: int, stored_tree: Callable[[Any], str]) -> dict:
        """Make a new revision whose tree is revision `number`'s (`stored_tree` reads it)."""
        with self._lock(design_id), self.store.transaction() as cursor:
            latest, published = self._locked_row(cursor, ws, design_id, "revision, published_revision")
            tree_json = stored_tree(cursor)
            revision, modified = self._save(
                cursor, design_id, tree_json, latest, published, "restore", f"restore revision {number}"
            )
        return {
            "designId": design_id,
            "revision": revision,
            "restoredFrom": number,
            "fileSize": len(tree_json.encode()),
            "modifiedAt": iso(modified),
        }

    def publish(self, ws: Workspace, design_id: str, number: int | None) -> dict:
        """Mark the revision generate and batch render (extensions.md 16); the latest by default."""
        with self._lock(design_id), self.store.transaction() as cursor:
            latest, published = self._locked_row(cursor, ws, design_id, "revision, published_revision")
            number = latest if number is None else number
            kept = cursor.execute(
                "SELECT revision FROM design_revisions WHERE design_id = ? AND revision = ?", [design_id, number]
            ).fetchone()
            if kept is None:
                raise revision_not_found(design_id, number)
            cursor.execute("UPDATE designs SET published_revision = ? WHERE id = ?", [number, design_id])
            self._drop_if_outside_window(cursor, design_id, published, latest, number)
        return {"designId": design_id, "publishedRevision": number}

    def unpublish(self, ws: Workspace, design_id: str) -> dict:
        """Back to rendering the latest tree, as before the first publish."""
        with self._lock(design_id), self.store.transaction() as cursor:
            latest, published = self._locked_row(cursor, ws, design_id, "revision, published_revision")
            cursor.execute("UPDATE designs SET published_revision = NULL WHERE id = ?", [design_id])
            self._drop_if_outside_window(cursor, design_id, published, latest, None)
        return {"designId": design_id, "publishedRevision": None}

    def _drop_if_outside_window(
        self, cursor: Any, design_id: str, before: int | None, latest: int, now_published: int | None
    ) -> None:
        """A revision kept only because it was published goes once it no longer is."""
        if before is not None and before != now_published and before <= latest - self.keep_revisions:
            cursor.execute("DELETE FROM design_revisions WHERE design_id = ? AND revision = ?", [design_id, before])

    def row_for_render(
        self, ws: Workspace, design_id: str, revision: int | Literal["latest", "published"] = "latest"
    ) -> dict:
        """The design's row, with its workspace's images version (`media_version`, bumped when
        an asset's bytes are replaced, by any process) and balance read in the same query: what a
        preview cache entry is keyed by, and whether a generation can be paid for, for no extra
        round trip. Remembered between requests while nothing is written (api.service.remembered):
        every generate and preview reads it; a posting does not move the version, so a remembered
        row's `credits` may be higher than the balance now (Store.balance knows which to believe).

        `revision` picks the tree (extensions.md 16): "latest" (the saved tree: previews),
        "published" (generate and batch: the published revision, the latest until there is
        one) or a number. Another revision's tree comes in the same query."""
        load = lambda: self._row_for_render(ws, design_id, revision)  # noqa: E731
        return self._render_rows.get((ws.id, design_id, revision), load)

    def _row_for_render(self, ws: Workspace, design_id: str, revision: int | Literal["latest", "published"]) -> dict:
        wanted = None if revision == "latest" else "d.published_revision" if revision == "published" else "?"
        params: list[Any] = [] if wanted != "?" else [revision]
        row = self.store.one(
            "SELECT d.name, d.tree, d.modified_at, w.media_version, w.credits, d.revision, r.revision, r.tree "
            "FROM designs d JOIN workspaces w ON w.id = d.workspace_id "
            "LEFT JOIN design_revisions r ON r.design_id = d.id "
            f"AND r.revision = {wanted or 'NULL'} AND r.revision <> d.revision "
            f"WHERE d.id = ? AND d.workspace_id = ? AND {LIVE}",  # LIVE's columns are the design's alone
            [*params, design_id, ws.id],
        )
        if row is None:
            raise design_not_found(design_id)
        name, tree_json, modified, media_version, credits, latest, other, other_tree = row
        number, cache_key = latest, design_id
        if other is not None:  # an older revision: never changes, so its time is not its key
            number, tree_json, modified, cache_key = other, unpacked(other_tree), None, f"{design_id}@{other}"
        elif isinstance(revision, int) and revision != latest:
            raise revision_not_found(design_id, revision)
        return {
            "name": name,
            "tree": tree_json,
            "modified_at": modified,
            "media_version": media_version,
            "credits": credits,
            "revision": number,
            "cache_key": cache_key,  # what the parsed tree is cached by (generation._Revisions)
        }


def _applied(tree_json: str, actions: list[dict]) -> tuple[str, list[dict]]:
    """The tree the actions make of the stored one, as JSON, and their results; a refusal (spec
    4.3: nothing is saved) as a validation error."""
    tree = engine.DesignTree.model_validate_json(tree_json)
    try:
        new_tree, results = engine.apply(tree, actions)
    except EngineError as exc:  # ActionError included
        raise validation(exc.message) from None
    new_json = new_tree.model_dump_json()
    problem = tree_size_problem(len(new_json.encode()), len(tree_json.encode()))
    if problem is not None:
        raise validation(problem)
    return new_json, results


def copy_name(name: str) -> str:
    """'<name> (copy)' within the rules of names: the original part is cut to fit 200
    characters, and loses what a cut can leave invalid (a joiner or half an emoji flag at its
    end) and any invisible character a name saved before the rule still holds."""
    stem = strip_invisible(name)[: NAME_MAX_LENGTH - len(COPY_SUFFIX)]
    while stem and invisible_character_problem(stem + COPY_SUFFIX) is not None:
        stem = stem[:-1]
    return (stem + COPY_SUFFIX).lstrip()
