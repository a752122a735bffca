"""Uploads (`uploads:` refs) and assets (`assets:` refs): images and PDFs (extensions.md 12) stored as blobs.

Both resolve identically at render time (spec 2.7). Uploads are programmatic images;
assets are the editor's library, with placeholders and in-place replacement.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from engine import DesignTree, EngineError, Finishing
from engine.design.names import strip_invisible
from engine.elements import ELEMENT_TYPES
from engine.errors import ActionError
from engine.finishing.added_pages import page_numbers
from engine.media.images import REF_PATTERN, ImageError, decode_data_uri

from ..blobs import Blobs, UrlSigner
from ..errors import ApiError, validation
from ..images.fetch import FetchRefused, ResolverUnavailable, fetch_image
from ..images.processing import ProcessedImage, draw_placeholder
from ..models import NAME_MAX_LENGTH, ListQuery, PlaceholderBody
from ..renderers import Renderers
from ..settings import ASSET_LIMIT, UPLOAD_LIMIT, URL_LIFETIME, Settings
from ..spool import SpooledFile
from ..store import Store
from .common import Workspace, checked_name, iso, new_id, newest_first, now
from .remembered import Remembered
from .values import image_values

COLUMNS = "id, kind, name, mime_type, file_size, width, height, thumbnail_key, is_placeholder, created_at, page_count"
KIND_OF_REF = {"uploads": "upload", "assets": "asset"}
# Paths in an element action's args that hold an image source: every field an element
# type declares as one (ElementType.image_fields), whatever the type (update_element's
# args do not name it; a path another type lacks is simply absent from its args).
ELEMENT_SOURCE_PATHS: tuple[tuple[str, ...], ...] = tuple(
    dict.fromkeys(tuple(path.split(".")) for element in ELEMENT_TYPES.values() for path in element.image_fields)
)
# Paths of action args that hold an image source, by action type.
SOURCE_FIELDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "add_element": ELEMENT_SOURCE_PATHS,
    "update_element": ELEMENT_SOURCE_PATHS,
    "add_page": (("backgroundImage",),),
    "update_page": (("backgroundImage",),),
    "set_page_background": (("backgroundImage",),),
    "set_document_background": (("backgroundImage",),),
}


def _source_paths(action: dict) -> tuple[tuple[str, ...], ...]:
    """The image source paths of one action's args: add_element names its type, so only that
    type's declared image fields count; update_element's args do not, so every type's do."""
    args = action.get("args")
    kind = args.get("type") if isinstance(args, dict) else None
    if action.get("type") == "add_element" and isinstance(kind, str) and kind in ELEMENT_TYPES:
        return tuple(tuple(path.split(".")) for path in ELEMENT_TYPES[kind].image_fields)
    return SOURCE_FIELDS.get(action.get("type", ""), ())


# Each fetch may take up to its timeout: a bound keeps one request from holding a worker for long.
MAX_FETCHES_PER_PATCH = 10


@dataclass
class PendingUpload:
    """An upload made from a data: URI or https:// source, saved only if its batch is."""

    id: str
    name: str
    image: ProcessedImage  # its bytes reach the blob store only when the batch is saved


def _default_name(filename: str | None, fallback: str) -> str:
    """A name from a file name or URL: nobody chose its invisible characters, so they go (engine.design.names)."""
    name = PurePath((filename or "").replace("\\", "/")).name.strip()
    return strip_invisible(name[:NAME_MAX_LENGTH]).strip() or fallback


def _name(name: str | None, filename: str | None, fallback: str) -> str:
    """The name a client gave (checked, never altered: 1 to 200 characters, whichever face
    it came through), or, when it gave none, one taken from the file name."""
    return checked_name(name) if name is not None else _default_name(filename, fallback)


class Media:
    def __init__(self, store: Store, blobs: Blobs, signer: UrlSigner, settings: Settings, renderers: Renderers):
        self.store = store
        self.blobs = blobs
        self.signer = signer
        self.settings = settings
        self.renderers = renderers
        self._render_keys: Remembered[str | None] = Remembered(store, 4096)

    # Records

    def _record(self, row: tuple) -> dict:
        media_id, kind, name, mime, size, width, height, thumb, placeholder, created, pages = row
        record: dict[str, Any] = {
            "ref": f"{'uploads' if kind == 'upload' else 'assets'}:{media_id}",
            "name": name,
            "mimeType": mime,
            "fileSize": size,
            # A PDF's: its page 1 in points (extensions.md 12).
            "dimensions": {"width": width, "height": height},
            "thumbnailUrl": self.signer.url(thumb, URL_LIFETIME),
            "createdAt": iso(created),
        }
        if pages is not None:
            record["pages"] = pages
        if kind == "upload":
            return {"uploadId": media_id, **record}
        return {"id": media_id, **record, "isPlaceholder": bool(placeholder)}

    def _store_blobs(self, image: ProcessedImage, spooled: SpooledFile | None = None) -> tuple[str, str, str]:
        if spooled is not None:
            # Copied (uploaded) from the spool file under the hash counted as it arrived; the
            # image checked from it carries `render` only where that is not the original (SVG).
            original = self.blobs.put_path(spooled.path, image.mime_type, spooled.sha256, durable=True)
            same = not image.render
        else:
            original = self.blobs.put(image.original, image.mime_type, durable=True)
            same = image.render is image.original
        render = original if same else self.blobs.put(image.render, image.render_mime_type)
        return original, render, self.blobs.put(image.thumbnail, "image/png")

    def _insert(
        self,
        cursor,
        ws: Workspace,
        media_id: str,
        kind: str,
        name: str,
        image: ProcessedImage,
        keys: tuple[str, str, str],
        placeholder: bool = False,
        size: int | None = None,
    ) -> None:
        """`size`: the original's bytes, when `image` does not hold them (a spooled upload)."""
        moment = now()
        cursor.execute(
            "INSERT INTO media (id, workspace_id, kind, name, mime_type, file_size, width, height, original_key, "
            "render_key, thumbnail_key, is_placeholder, created_at, modified_at, page_count) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                media_id,
                ws.id,
                kind,
                name,
                image.mime_type,
                len(image.original) if size is None else size,
                image.width,
                image.height,
                *keys,
                placeholder,
                moment,
                moment,
                image.pages,
            ],
        )

    def _row(self, ws: Workspace, kind: str, media_id: str) -> tuple | None:
        return self.store.one(
            f"SELECT {COLUMNS} FROM media WHERE id = ? AND workspace_id = ? AND kind = ?", [media_id, ws.id, kind]
        )

    def _process(self, ws: Workspace, data: bytes | SpooledFile, limit: int) -> ProcessedImage:
        """Checked, rasterised and thumbnailed in a render process: a hostile SVG, raster or PDF
        costs that process, bounded in time and memory, never the server (the manual, "Limits").
        A spooled file is read there from its path: its bytes never pass through this process."""
        if isinstance(data, SpooledFile):
            return self.renderers.image_file(ws.id, data.path, limit)
        return self.renderers.image(ws.id, data, limit)

    # Uploads (spec 4.9)

    def create_upload(self, ws: Workspace, data: bytes | SpooledFile, filename: str | None, name: str | None) -> dict:
        """`data`: the file's bytes, or a large one's spool file (api.spool)."""
        name = _name(name, filename, "upload")  # before any blob is stored
        image = self._process(ws, data, self.settings.file_limit(UPLOAD_LIMIT))
        media_id = new_id("upl")
        spooled = data if isinstance(data, SpooledFile) else None
        keys = self._store_blobs(image, spooled)
        with self.store.transaction() as cursor:
            self._insert(cursor, ws, media_id, "upload", name, image, keys, size=spooled.size if spooled else None)
        return self._record(self._row(ws, "upload", media_id))

    # Assets (spec 4.10)

    def create_asset(self, ws: Workspace, data: bytes | SpooledFile, filename: str | None, name: str | None) -> dict:
        """`data`: the file's bytes, or a large one's spool file (api.spool)."""
        name = _name(name, filename, "asset")  # before any blob is stored
        image = self._process(ws, data, self.settings.file_limit(ASSET_LIMIT))
        media_id = new_id("ast")
        spooled = data if isinstance(data, SpooledFile) else None
        keys = self._store_blobs(image, spooled)
        with self.store.transaction() as cursor:
            self._insert(cursor, ws, media_id, "asset", name, image, keys, size=spooled.size if spooled else None)
        return self.get_asset(ws, media_id)

    def create_placeholder(self, ws: Workspace, body: PlaceholderBody) -> dict:
        png = draw_placeholder(body.label or body.name[:40], body.width, body.height)
        image = self._process(ws, png, ASSET_LIMIT)
        media_id = new_id("ast")
        keys = self._store_blobs(image)
        with self.store.transaction() as cursor:
            self._insert(cursor, ws, media_id, "asset", body.name, image, keys, placeholder=True)
        return self.get_asset(ws, media_id)

    def replace_asset_content(self, ws: Workspace, asset_id: str, data: bytes | SpooledFile) -> dict:
        """`data`: the file's bytes, or a large one's spool file (api.spool)."""
        self.get_asset(ws, asset_id)
        image = self._process(ws, data, self.settings.file_limit(ASSET_LIMIT))
        spooled = data if isinstance(data, SpooledFile) else None
        keys = self._store_blobs(image, spooled)
        size = spooled.size if spooled else len(image.original)
        with self.store.transaction() as cursor:
            cursor.execute(
                "UPDATE media SET mime_type = ?, file_size = ?, width = ?, height = ?, original_key = ?, "
                "render_key = ?, thumbnail_key = ?, is_placeholder = false, modified_at = ?, page_count = ? "
                "WHERE id = ?",
                [image.mime_type, size, image.width, image.height, *keys, now(), image.pages, asset_id],
            )
            # Previews drawn with the old bytes are stale now, in every web process
            # (Designs.row_for_render reads this version with the design).
            cursor.execute("UPDATE workspaces SET media_version = media_version + 1 WHERE id = ?", [ws.id])
        return self.get_asset(ws, asset_id)

    def design_from_pdf(self, ws: Workspace, ref: str, title: str) -> tuple[str, list[str]]:
        """The tree (JSON) of a design made from the workspace's PDF `ref` (extensions.md 12,
        basePdf), read in a render process, and the notes of what of its form was left out."""
        if not REF_PATTERN.match(ref):
            raise validation(f"basePdf.ref: '{ref[:60]}' is not a ref: upload the PDF (POST /uploads) and send its ref")
        scheme, _, media_id = ref.partition(":")
        row = self.store.one(
            "SELECT render_key, mime_type FROM media WHERE id = ? AND workspace_id = ? AND kind = ?",
            [media_id, ws.id, KIND_OF_REF[scheme]],
        )
        if row is None:
            raise validation(f"basePdf.ref: no {ref} in this workspace (upload the PDF first)")
        if row[1] != "application/pdf":
            raise validation(f"basePdf.ref: {ref} is an image ({row[1]}), not a PDF: upload the PDF and send its ref")
        return self.renderers.design_from_pdf(ws.id, row[0], ref, title)

    def get_asset(self, ws: Workspace, asset_id: str) -> dict:
        row = self._row(ws, "asset", asset_id)
        if row is None:
            raise ApiError("ASSET_NOT_FOUND", f"no asset '{asset_id}' in this workspace")
        return self._record(row)

    def list_assets(self, ws: Workspace, query: ListQuery) -> dict:
        sql = f"SELECT {COLUMNS} FROM media WHERE workspace_id = ? AND kind = 'asset'"
        rows, next_cursor = newest_first(self.store, sql, [ws.id], query, 9, 0)
        return {"items": [self._record(r) for r in rows], "nextCursor": next_cursor}

    # Rendering

    def _render_key(self, ws: Workspace, ref: str) -> str | None:
        """The blob key of the bytes drawn for a ref of this workspace, or None; remembered
        while nothing is written (api.service.remembered): every render asks it of every image."""
        return self._render_keys.get((ws.id, ref), lambda: self._read_render_key(ws, ref))

    def _read_render_key(self, ws: Workspace, ref: str) -> str | None:
        scheme, _, media_id = ref.partition(":")
        row = self.store.one(
            "SELECT render_key FROM media WHERE id = ? AND workspace_id = ? AND kind = ?",
            [media_id, ws.id, KIND_OF_REF.get(scheme, "")],
        )
        return row[0] if row else None

    def render_keys(self, ws: Workspace, refs: set[str]) -> dict[str, str]:
        """The blob key of the bytes to draw for each ref: what a batch worker needs."""
        keys: dict[str, str] = {}
        for ref in refs:
            if ref.startswith("data:"):
                continue  # decoded by the engine itself
            key = self._render_key(ws, ref)
            if key is None:
                raise validation(f"the design uses image {ref}, which is not in this workspace")
            keys[ref] = key
        return keys

    @staticmethod
    def tree_refs(tree: DesignTree) -> set[str]:
        """Every image source the tree itself draws: its elements' (as each element type
        declares them) and its backgrounds'."""
        refs = {ref for node in tree.nodes.values() for ref in ELEMENT_TYPES[node.type].image_refs(node)}
        return refs | {b.backgroundImage for b in [tree.background, *tree.pages] if b.backgroundImage}

    def design_keys(self, ws: Workspace, tree: DesignTree, values: dict[str, Any]) -> dict[str, str]:
        """The blob key of every image a render of `tree` with (checked) `values` draws: what a
        render process needs."""
        return self.render_keys(ws, self.tree_refs(tree) | set(image_values(tree, values).values()))

    def added_pdf_keys(self, ws: Workspace, finishing: Finishing | None) -> dict[str, str]:
        """The blob keys of the PDFs a generate puts before and after its pages (extensions.md
        12), each checked here first (before anything is charged or rendered): a ref of this
        workspace, a PDF, its `pages` within the page count its upload recorded."""
        if finishing is None:
            return {}
        keys: dict[str, str] = {}
        for name, entries in (("prepend", finishing.prepend), ("append", finishing.append)):
            for index, entry in enumerate(entries):
                where = f"{name}[{index}]"
                if not REF_PATTERN.match(entry.ref):
                    raise validation(
                        f"{where}.ref: '{entry.ref[:60]}' is not a ref: upload the PDF (POST /uploads) and send its ref"
                    )
                scheme, _, media_id = entry.ref.partition(":")
                row = self.store.one(
                    "SELECT render_key, mime_type, page_count FROM media "
                    "WHERE id = ? AND workspace_id = ? AND kind = ?",
                    [media_id, ws.id, KIND_OF_REF[scheme]],
                )
                if row is None:
                    raise validation(f"{where}.ref: no {entry.ref} in this workspace (upload the PDF first)")
                if row[1] != "application/pdf":
                    raise validation(
                        f"{where}.ref: {entry.ref} is an image ({row[1]}), not a PDF: upload the PDF and send its ref"
                    )
                try:
                    page_numbers(entry.pages, row[2], f"{where}.pages ({entry.ref})")
                except EngineError as exc:
                    raise validation(exc.message) from None
                keys[entry.ref] = row[0]
        return keys

    def ref_exists(self, ws: Workspace, ref: str) -> bool:
        return self._render_key(ws, ref) is not None

    def require_images(self, ws: Workspace, tree: DesignTree, values: dict[str, Any]) -> None:
        """Rule 3 for one PDF: a ref that is not in the workspace refuses the generation (before
        any credit is taken)."""
        for name, ref in image_values(tree, values).items():
            if not self.ref_exists(ws, ref):
                raise validation(f"variable '{name}': no image {ref} in this workspace (upload it first)")

    def present_images(self, ws: Workspace, tree: DesignTree, rows: list[dict[str, Any]]) -> set[str]:
        """Rule 3 for a batch: the rows' refs that are in the workspace. A well-formed ref that is
        not is no submission error; the worker is not given it and cannot resolve it, so that row
        fails alone (refunded, listed in errors.json) and the others render."""
        refs = {ref for values in rows for ref in image_values(tree, values).values()}
        return {ref for ref in refs if self.ref_exists(ws, ref)}

    # Sources inside tree patches

    def inline_sources(self, ws: Workspace, actions: list[dict]) -> tuple[list[dict], list[PendingUpload]]:
        """Check image refs, and turn data: URIs and https:// URLs into pending uploads.

        Nothing is saved here: the caller saves the pending uploads in the same
        transaction as the tree, so a failed batch leaves no upload behind. Nothing
        here reads the tree either, so callers run it before taking the design's lock.
        """
        pending: list[PendingUpload] = []
        fetched = 0
        for index, action in enumerate(actions):
            for path in _source_paths(action):
                holder = action.get("args")
                for key in path[:-1]:
                    holder = holder.get(key) if isinstance(holder, dict) else None
                if not isinstance(holder, dict) or not isinstance(holder.get(path[-1]), str):
                    continue
                source = holder[path[-1]]
                where = ".".join(path)
                try:
                    if source.startswith("https://"):
                        fetched += 1
                        if fetched > MAX_FETCHES_PER_PATCH:
                            raise ValueError(
                                f"at most {MAX_FETCHES_PER_PATCH} https:// images per batch; upload the rest first"
                            )
                    if source.startswith(("data:", "https://")):
                        upload = self._pending_upload(ws, source)
                        pending.append(upload)
                        holder[path[-1]] = f"uploads:{upload.id}"
                    elif REF_PATTERN.match(source) and not self.ref_exists(ws, source):
                        raise ValueError(f"no image {source} in this workspace (upload it first)")
                except (ValueError, ApiError) as exc:
                    if isinstance(exc, ApiError) and exc.code != "VALIDATION_ERROR":
                        raise  # a stopping server (503) is not a fault of the action
                    reason = exc.message if isinstance(exc, ApiError) else str(exc)
                    raise ActionError(index, action["type"], f"{where}: {reason}") from None
        return actions, pending

    def _pending_upload(self, ws: Workspace, source: str) -> PendingUpload:
        if source.startswith("data:"):
            try:
                data = decode_data_uri(source)
            except ImageError as exc:
                raise ValueError(str(exc)) from None
            name = "inline image"
        else:
            try:
                data = fetch_image(
                    source,
                    max_bytes=self.settings.file_limit(UPLOAD_LIMIT),
                    allow_private=self.settings.fetch_allow_private,
                    cafile=self.settings.fetch_cafile,
                )
            except ResolverUnavailable as exc:  # not the URL's fault: a retry may succeed (and is not a kept 400)
                raise ApiError("SERVICE_UNAVAILABLE", str(exc)) from None
            except FetchRefused as exc:
                raise ValueError(str(exc)) from None
            name = _default_name(source.split("?")[0], "fetched image")
        image = self._process(ws, data, self.settings.file_limit(UPLOAD_LIMIT))
        return PendingUpload(new_id("upl"), name, image)

    def save_pending(self, cursor, ws: Workspace, pending: list[PendingUpload]) -> None:
        """Inside the transaction that saves the tree: a refused batch leaves no file behind."""
        for upload in pending:
            self._insert(cursor, ws, upload.id, "upload", upload.name, upload.image, self._store_blobs(upload.image))
