"""Generation (1 credit per PDF, or per set of page pictures) and previews (free), over the engine."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import threading
import time
from collections import OrderedDict

import engine
from engine.design.computed import computes
from engine.design.names import safe_file_name
from engine.render.layout import page_digest, page_without

from ..blobs import Blobs, UrlSigner
from ..errors import ApiError
from ..metrics import Metrics
from ..models import DEFAULT_PDF_PROFILE, GenerateBody, PreviewWithValuesBody, SheetPreviewBody
from ..renderers import Cancellation, Renderers, TaskCancelled, generation_date
from ..settings import URL_LIFETIME
from ..store import Store
from .accounts import Accounts
from .common import Workspace, new_id, now
from .designs import Designs
from .finishing import checked as checked_finishing
from .media import Media
from .output import checked_output, fitted_geometry
from .signing import Signing
from .values import checked_values

# A free picture with values must never pass for a paid PDF (issue 14, "Try values").
PREVIEW_WATERMARK = engine.Watermark(text="PREVIEW", opacity=0.25)


def pdf_filename(design_name: str, extension: str = "pdf") -> str:
    """A download name from the design's name (spec 2.8: ends in .pdf; pictures: .png, .jpg or
    .zip, extensions.md 12) that keeps the file name rule (engine.design.names): a design's name
    may hold a slash or be "CON", and one saved before the name rule may hold a bidi control.
    Cut to 120 characters, to read in a download bar."""
    return safe_file_name(design_name[:120], "document", f".{extension}")


class _Revision:
    """One saved version of a design's tree, in the forms requests need: its text (what a
    render process is sent), the validated DesignTree (values are checked against it, image
    refs read from it), its JSON form and its pages' digests (previews are cached by them),
    each made once, on first use."""

    def __init__(self, modified_at: object, text: str):
        self.modified_at = modified_at
        self.text = text
        self._tree: engine.DesignTree | None = None
        self._plain: dict | None = None
        self._digests: dict[int, str] = {}
        self._computes: bool | None = None

    def matches(self, row: dict) -> bool:
        # The text too, not only the time: two saves in one clock tick never share a revision.
        return row["modified_at"] == self.modified_at and row["tree"] == self.text

    @property
    def tree(self) -> engine.DesignTree:
        if self._tree is None:
            self._tree = engine.DesignTree.model_validate_json(self.text)
        return self._tree

    @property
    def plain(self) -> dict:
        """The JSON form; read only (page_without makes a new tree rather than changing it)."""
        if self._plain is None:
            self._plain = json.loads(self.text)
        return self._plain

    def page_digest(self, page: int) -> str:
        digest = self._digests.get(page)
        if digest is None:
            digest = self._digests[page] = page_digest(self.plain, page)
        return digest

    @property
    def computes(self) -> bool:
        """The design has an expression (extensions.md 11), which may read today()."""
        if self._computes is None:
            self._computes = computes(self.tree)
        return self._computes


def dated_digest(digest: str, computing: bool, today: dt.date) -> str:
    """A preview's digest with the day it is drawn on, for a design with expressions: today()
    is the render's date, so yesterday's picture (cached here and under shared_preview_name in
    the blobs, which outlive a process) must not pass for today's. One render per page a day."""
    if not computing:
        return digest
    return hashlib.sha256(f"{digest}:{today.isoformat()}".encode()).hexdigest()


class _Revisions:
    """The latest revision of the designs rendered lately, by design id. Every generate and
    preview reads its design's row (the tree text, modified_at) anyway: parsing and validating
    that text again on every request cost more than the rest of its checks. A row that differs
    in either (a patch, an undo, a rename) replaces the entry; a deleted design is refused
    before its row is read, so it is never looked up here."""

    SIZE = 256
    # Trees are as large as a 10 MB body makes them, and each is kept in three forms: the
    # cache is bounded by their text too, so 256 huge designs cannot take gigabytes.
    TEXT_BUDGET = 64 * 1024 * 1024

    def __init__(self) -> None:
        self._entries: OrderedDict[str, _Revision] = OrderedDict()
        self._text = 0  # characters of tree text held
        self._guard = threading.Lock()
        self.parsed = 0  # trees parsed and validated: what the cache saves shows here (tests)

    def of(self, design_id: str, row: dict) -> _Revision:
        with self._guard:
            revision = self._entries.get(design_id)
            if revision is not None and revision.matches(row):
                self._entries.move_to_end(design_id)
                return revision
        revision = _Revision(row["modified_at"], row["tree"])
        revision.tree  # noqa: B018 (parsed here, outside the guard: a refusal raises before it is kept)
        with self._guard:
            self.parsed += 1
            replaced = self._entries.pop(design_id, None)
            self._text -= len(replaced.text) if replaced else 0
            self._entries[design_id] = revision
            self._text += len(revision.text)
            while len(self._entries) > self.SIZE or (self._text > self.TEXT_BUDGET and len(self._entries) > 1):
                _, dropped = self._entries.popitem(last=False)
                self._text -= len(dropped.text)
        return revision


class Generation:
    def __init__(
        self,
        store: Store,
        blobs: Blobs,
        signer: UrlSigner,
        accounts: Accounts,
        designs: Designs,
        media: Media,
        renderers: Renderers,
        signing: Signing,
        metrics: Metrics | None = None,
    ):
        self.metrics = metrics or Metrics()
        self.signing = signing
        self.store = store
        self.blobs = blobs
        self.signer = signer
        self.accounts = accounts
        self.designs = designs
        self.media = media
        self.renderers = renderers
        # Previews are free and repeatable: one render per design and page content (and the
        # workspace's images version, from the database: another process may have replaced an
        # asset's bytes), so an edit re-renders only the pages it changed (page_digest).
        # (design, digest, images version, sheet) -> (blob key, the page's sheet count)
        self._previews: OrderedDict[tuple[str, str, int, int], tuple[str, int]] = OrderedDict()
        self._flights: dict[tuple[str, str, int, int], _Flight] = {}
        self._previews_guard = threading.Lock()
        self.revisions = _Revisions()

    def generate(self, ws: Workspace, design_id: str, body: GenerateBody, cancel: Cancellation | None = None) -> dict:
        # extensions.md 16: the published revision unless the body picks one (or "latest").
        row = self.designs.row_for_render(ws, design_id, "published" if body.revision is None else body.revision)
        tree = self.revisions.of(row["cache_key"], row).tree
        values = checked_values(tree, body.data)
        self.media.require_images(ws, tree, values)
        self.accounts.require_credits(1, self.accounts.balance(ws.id, as_read=row["credits"]))
        profile = body.pdfProfile or DEFAULT_PDF_PROFILE
        finishing = checked_finishing(body.finishing(), profile)
        output = checked_output(body.output, profile, body, tree)
        # Opened here (400 when the workspace has no certificate), signed in the render process.
        signing = self.signing.material_for(ws, profile) if finishing is not None and finishing.sign else None
        images = self.media.design_keys(ws, tree, values) | self.media.added_pdf_keys(ws, finishing)
        started = time.perf_counter()
        try:
            key, _ = self.renderers.pdf(
                ws.id, row["tree"], values, profile, images, cancel, finishing, signing, output=output
            )
        except TaskCancelled:
            raise  # nobody waits for it: neither a render done nor one that failed
        except Exception:
            self.metrics.render("generate", profile, False, time.perf_counter() - started)
            raise
        self.metrics.render("generate", profile, True, time.perf_counter() - started)
        if cancel is not None and cancel.cancelled:
            raise TaskCancelled()  # the client left: nothing is delivered, so nothing is charged
        generation_id, created = new_id("gen"), now()
        filename = pdf_filename(row["name"], key.rsplit(".", 1)[1])  # the key's extension: its content type
        # spec: the debit and the generation record commit together, or neither does.
        expires = created + dt.timedelta(seconds=URL_LIFETIME)
        record = (generation_id, ws.id, design_id, filename, key, profile, created, expires)
        self.accounts.charge(ws.id, 1, "generate", generation_id, rows=(("generations", record),))
        return {
            "generationId": generation_id,
            "designId": design_id,
            "filename": filename,
            "downloadUrl": self.signer.url(key, URL_LIFETIME, filename),
            "expiresIn": URL_LIFETIME,
            "status": "completed",
            "revision": row["revision"],
        }

    def preview(
        self,
        ws: Workspace,
        design_id: str,
        page: int,
        cancel: Cancellation | None = None,
        without: tuple[str, ...] = (),
        sheet: int = 0,
        revision: int | None = None,
    ) -> dict:
        """The page's picture (free), optionally `without` some of its elements: the editor's page
        under a drag. Nothing is saved either way; both are cached by what the picture shows.
        `sheet`: which of the sheets the page lays out as (its tables and flowing texts grown);
        the answer says how many there are. `revision`: a kept revision's tree in place of the
        saved one (the editor's history thumbnails, extensions.md 16)."""
        row = self.designs.row_for_render(ws, design_id, "latest" if revision is None else revision)
        parsed = self.revisions.of(row["cache_key"], row)
        _require_page(parsed, page)
        tree_json, drawn = row["tree"], None
        if without:
            plain = page_without(parsed.plain, page, without)
            tree_json = json.dumps(plain)
            digest = page_digest(plain, page)
        else:
            drawn = parsed.tree
            digest = parsed.page_digest(page)
        digest = dated_digest(digest, parsed.computes, generation_date())
        cache_key = (design_id, digest, row["media_version"], sheet)
        with self._previews_guard:
            cached = self._previews.get(cache_key)
        if cached is None or not self.blobs.exists(cached[0]):
            cached = self._render_preview(ws, tree_json, drawn, page, cache_key, cancel)
        key, sheets = cached
        return {
            "previewUrl": self.signer.url(key, URL_LIFETIME),
            "expiresIn": URL_LIFETIME,
            "page": page,
            "sheet": sheet,
            "sheets": sheets,
        }

    def preview_with_values(
        self, ws: Workspace, design_id: str, body: PreviewWithValuesBody, cancel: Cancellation | None = None
    ) -> dict:
        """One page with values filled in (POST /designs/:id/preview): free, like every preview,
        so always watermarked "PREVIEW"; the values are checked as generate checks `data` (same
        errors). Not cached: values are rarely tried twice."""
        row = self.designs.row_for_render(ws, design_id)
        revision = self.revisions.of(design_id, row)
        _require_page(revision, body.page)
        tree = revision.tree
        values = checked_values(tree, body.data)
        self.media.require_images(ws, tree, values)
        images = self.media.design_keys(ws, tree, values)
        watermark = PREVIEW_WATERMARK.model_dump()
        key, sheets = self.renderers.png(
            ws.id, row["tree"], body.page, images, cancel, values=values, watermark=watermark, sheet=body.sheet
        )
        return {
            "previewUrl": self.signer.url(key, URL_LIFETIME),
            "expiresIn": URL_LIFETIME,
            "page": body.page,
            "sheet": body.sheet,
            "sheets": sheets,
        }

    def sheet_preview(
        self, ws: Workspace, design_id: str, body: SheetPreviewBody, cancel: Cancellation | None = None
    ) -> dict:
        """One label sheet (extensions.md 14) with the design in every cell, drawn with its
        design-time content (free, as a page's preview): what a batch with this `sheet` prints.
        The same 400s as a batch's sheet (an unknown preset, a page larger than a label)."""
        row = self.designs.row_for_render(ws, design_id)
        tree = self.revisions.of(design_id, row).tree
        geometry = fitted_geometry(body.sheet, tree)
        images = self.media.design_keys(ws, tree, {})
        key = self.renderers.label_sheet_png(ws.id, row["tree"], images, body.sheet, cancel)
        return {
            "previewUrl": self.signer.url(key, URL_LIFETIME),
            "expiresIn": URL_LIFETIME,
            "labelsPerSheet": geometry.cells,
            "labelWidth": round(geometry.cell_width, 3),
            "labelHeight": round(geometry.cell_height, 3),
        }

    def _render_preview(
        self,
        ws: Workspace,
        tree_json: str,
        tree: engine.DesignTree | None,
        page: int,
        cache_key: tuple,
        cancel: Cancellation | None,
    ) -> tuple[str, int]:
        """One render per page content however many ask at once (a gallery, an editor and an
        API client); it is cancelled when every one of them has gone."""
        with self._previews_guard:
            flight = self._flights.get(cache_key)
            # A flight everyone left is being stopped: a newcomer starts its own render.
            leader = flight is None or flight.abandoned.cancelled
            if leader:
                flight = self._flights[cache_key] = _Flight()
            flight.waiters += 1
        if cancel is not None:
            cancel.on_cancel(flight.leave)
        if not leader:
            return flight.wait(cancel)
        key: tuple[str, int] | None = None
        sheet = cache_key[3]
        try:
            if tree is None:  # a page under a drag: only what it still draws needs its images
                tree = engine.DesignTree.model_validate_json(tree_json)
            images = self.media.design_keys(ws, tree, {})
            # Shared by every process on the same blobs: named by what the picture is drawn from.
            shared = shared_preview_name(cache_key[1], page, images, sheet)
            key = self._shared_preview(shared)
            if key is None:
                key = self.renderers.png(ws.id, tree_json, page, images, flight.abandoned, sheet=sheet)
                self.blobs.put_ref(shared, key[0])
        except BaseException as exc:
            flight.fail(exc)
            raise
        finally:
            # One step: a caller never finds the render neither in flight nor in the cache.
            with self._previews_guard:
                if self._flights.get(cache_key) is flight:
                    del self._flights[cache_key]
                if key is not None:
                    self._previews[cache_key] = key
                    while len(self._previews) > 512:
                        self._previews.popitem(last=False)
        flight.finish(key)
        return key

    def _shared_preview(self, shared: str) -> tuple[str, int] | None:
        """A preview another process drew (its blob key and the page's sheet count, which the
        picture carries: engine.sheets_of_png), or None."""
        key = self.blobs.get_ref(shared)
        if key is None or not self.blobs.exists(key):
            return None
        sheets = engine.sheets_of_png(self.blobs.get(key))
        return None if sheets is None else (key, sheets)


def shared_preview_name(digest: str, page: int, images: dict[str, str], sheet: int = 0) -> str:
    """A page's preview named by what it is drawn from (the page's digest, its index, the image
    blobs it may draw: replaced bytes are new keys, and which of its sheets), the same in every
    process: another web process finds the picture instead of drawing it again."""
    inputs = json.dumps(["preview", digest, page, sorted(images.items()), sheet], separators=(",", ":"))
    return hashlib.sha256(inputs.encode()).hexdigest()


def _require_page(revision: _Revision, page: int) -> None:
    pages = len(revision.tree.pages)
    if not 0 <= page < pages:
        raise ApiError("PAGE_NOT_FOUND", f"page {page} does not exist; the design has {pages} page(s), numbered from 0")


class _Flight:
    """A preview being rendered, and how many callers still want it."""

    def __init__(self) -> None:
        self.waiters = 0
        self.abandoned = Cancellation()
        self.key: tuple[str, int] | None = None  # the blob key and the sheet count
        self.error: BaseException | None = None
        self._done = False
        self._wakers: list = []
        self._guard = threading.Lock()

    def leave(self) -> None:
        with self._guard:
            self.waiters -= 1
            nobody = self.waiters <= 0
        if nobody:
            self.abandoned.cancel()

    def finish(self, key: tuple[str, int]) -> None:
        self.key = key
        self._end()

    def fail(self, error: BaseException) -> None:
        self.error = error
        self._end()

    def _end(self) -> None:
        with self._guard:
            self._done = True
            wakers, self._wakers = self._wakers, []
        for wake in wakers:
            wake()

    def wait(self, cancel: Cancellation | None) -> tuple[str, int]:
        """The leader's result, or TaskCancelled as soon as this caller's own client is gone."""
        woken = threading.Event()
        with self._guard:
            if self._done:
                woken.set()
            else:
                self._wakers.append(woken.set)
        if cancel is not None:
            cancel.on_cancel(woken.set)
        woken.wait()
        with self._guard:
            done = self._done
        if not done:
            raise TaskCancelled()
        if self.error is not None:
            raise self.error
        assert self.key is not None
        return self.key
