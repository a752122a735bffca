"""Generation (1 credit per PDF) and previews (free), over the engine."""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections import OrderedDict
from typing import Any

import engine
from engine.errors import EngineError

from ..blobs import BlobStore, UrlSigner
from ..errors import ApiError, validation
from ..models import GenerateBody
from ..settings import URL_LIFETIME
from ..store import Store
from .accounts import Accounts
from .common import Workspace, new_id, now
from .designs import Designs
from .media import Media

_UNSAFE_FILENAME = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')


def pdf_filename(design_name: str) -> str:
    """A download name from the design's name (spec 2.8: ends in .pdf)."""
    stem = _UNSAFE_FILENAME.sub(" ", design_name).strip(" .")[:120] or "document"
    return f"{stem}.pdf"


class Generation:
    def __init__(
        self, store: Store, blobs: BlobStore, signer: UrlSigner, accounts: Accounts, designs: Designs, media: Media
    ):
        self.store = store
        self.blobs = blobs
        self.signer = signer
        self.accounts = accounts
        self.designs = designs
        self.media = media
        # Previews are free and repeatable: one render per (design version, page).
        self._previews: OrderedDict[tuple[str, Any, int, int], str] = OrderedDict()
        self._previews_guard = threading.Lock()

    def _values(self, tree: engine.DesignTree, data: dict[str, Any] | None) -> dict[str, Any]:
        values = dict(data or {})
        for name, value in list(values.items()):
            variable = tree.variables.get(name)
            # spec 4.11 rule 3: inline data: image values are dropped; upload first.
            if (
                variable is not None
                and variable.kind == "image"
                and isinstance(value, str)
                and value.startswith("data:")
            ):
                del values[name]
        try:
            engine.check_values(tree, values)
        except EngineError as exc:
            raise validation(exc.message) from None
        return values

    def render(self, ws: Workspace, tree: engine.DesignTree, values: dict[str, Any], profile: str) -> bytes:
        try:
            return engine.render_pdf(tree, values, self.media.resolver(ws), profile)  # type: ignore[arg-type]
        except EngineError as exc:
            raise validation(exc.message) from None

    def generate(self, ws: Workspace, design_id: str, body: GenerateBody) -> dict:
        row = self.designs.row_for_render(ws, design_id)
        tree = engine.DesignTree.model_validate_json(row["tree"])
        values = self._values(tree, body.data)
        self._check_image_values(ws, tree, values)
        self.accounts.require_credits(ws.id, 1)
        profile = body.pdfProfile or "standard"
        pdf = self.render(ws, tree, values, profile)
        key = self.blobs.put(pdf, "application/pdf")
        generation_id, created = new_id("gen"), now()
        filename = pdf_filename(row["name"])
        # spec: the debit and the generation record commit together, or neither does.
        with self.store.transaction() as cursor:
            self.accounts.debit(cursor, ws.id, 1, "generate", generation_id)
            cursor.execute(
                "INSERT INTO generations VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    generation_id,
                    ws.id,
                    design_id,
                    filename,
                    key,
                    profile,
                    created,
                    created + dt.timedelta(seconds=URL_LIFETIME),
                ],
            )
        return {
            "generationId": generation_id,
            "designId": design_id,
            "filename": filename,
            "downloadUrl": self.signer.url(key, URL_LIFETIME, filename),
            "expiresIn": URL_LIFETIME,
            "status": "completed",
        }

    def _check_image_values(self, ws: Workspace, tree: engine.DesignTree, values: dict[str, Any]) -> None:
        for name, value in values.items():
            if tree.variables[name].kind == "image" and not self.media.ref_exists(ws, value):
                raise validation(f"variable '{name}': no image {value} in this workspace (upload it first)")

    def preview(self, ws: Workspace, design_id: str, page: int) -> dict:
        row = self.designs.row_for_render(ws, design_id)
        cache_key = (design_id, row["modified_at"], page, self.media.version)
        with self._previews_guard:
            key = self._previews.get(cache_key)
        if key is None or not self.blobs.exists(key):
            tree = engine.DesignTree.model_validate_json(row["tree"])
            try:
                png = engine.render_png(tree, page, self.media.resolver(ws), dpi=96)
            except engine.PageNotFound as exc:
                raise ApiError("PAGE_NOT_FOUND", exc.message) from None
            except EngineError as exc:
                raise validation(exc.message) from None
            key = self.blobs.put(png, "image/png")
            with self._previews_guard:
                self._previews[cache_key] = key
                while len(self._previews) > 512:
                    self._previews.popitem(last=False)
        return {"previewUrl": self.signer.url(key, URL_LIFETIME), "expiresIn": URL_LIFETIME, "page": page}
