"""One open design in the editor: its tree, its history, its previews.

Every edit is an action batch sent through the client (the same operation the REST
API runs), so whatever the editor does an API client could do. Undo and redo are
action batches too: the history keeps snapshots of the tree, and stepping back sends
the actions that turn the current tree into the snapshot (`engine.design.diff.changes`).

A batch that would change nothing is not sent (a value the editor itself wrote into a
widget comes back as such a batch), and a page's preview is fetched again only when that
page's content changed.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable

from engine import DesignTree
from engine.actions import apply as apply_actions
from engine.design.diff import changes
from engine.render.layout import page_digest, page_without

from ..client.api import Client

HISTORY_LIMIT = 100
PREVIEWS_KEPT = 64


def page_content(tree: DesignTree, index: int, without: tuple[str, ...] = ()) -> str:
    """Everything page `index`'s picture depends on (engine.render.layout.page_digest, as the service's
    preview cache): equal digests, equal pictures. `without`: of the page with those elements
    left out (engine.render.layout.page_without)."""
    dumped = tree.model_dump(mode="json")
    return page_digest(page_without(dumped, index, without) if without else dumped, index)


def changes_nothing(tree: DesignTree, actions: list[dict]) -> bool:
    """True when the batch would leave the tree as it is. A batch the engine refuses here is
    sent all the same, so the service's own refusal (and its message) is what the user sees."""
    try:
        after, _ = apply_actions(tree, actions)
    except Exception:
        return False
    return after == tree


class DesignSession:
    def __init__(self, client: Client, design_id: str):
        self.client = client
        self.design_id = design_id
        self.undo_stack: list[DesignTree] = []
        self.redo_stack: list[DesignTree] = []
        self.listeners: list[Callable[[], None]] = []
        # (page index, page content, sheet) -> (PNG, how many sheets the page lays out as)
        self._previews: dict[tuple[int, str, int], tuple[bytes, int]] = {}
        self.tree: DesignTree
        self.info: dict
        self.reload()

    # -- reading ---------------------------------------------------------------------

    def reload(self) -> None:
        self.info = self.client.call("get_design", {"designId": self.design_id})
        self.tree = DesignTree.model_validate(self.client.call("get_design_tree", {"designId": self.design_id}))

    def changed_elsewhere(self) -> bool:
        """True (and the tree reloaded) when someone else saved the design since we read it."""
        info = self.client.call("get_design", {"designId": self.design_id})
        if info["modifiedAt"] == self.info["modifiedAt"]:
            return False
        self.reload()
        self._notify()
        return True

    def preview_png(self, page: int, without: tuple[str, ...] = ()) -> bytes:
        """The page's picture, or (`without`) the page with those elements left out: a free
        preview either way, which saves nothing."""
        return self.sheet_preview(page, 0, without)[0]

    def sheet_preview(self, page: int, sheet: int = 0, without: tuple[str, ...] = ()) -> tuple[bytes, int]:
        """Sheet `sheet` of the page (a page whose tables or flowing texts grow lays out as
        several), and how many sheets it lays out as: one render per sheet looked at, cached by
        the page's content like every preview. A sheet past the page's is the service's 400."""
        key = (page, page_content(self.tree, page, without), sheet)
        if key not in self._previews:
            query = {
                "page": page,
                **({"sheet": sheet} if sheet else {}),
                **({"without": ",".join(without)} if without else {}),
            }
            preview = self.client.call("preview_page", {"designId": self.design_id}, query=query)
            if len(self._previews) >= PREVIEWS_KEPT:
                self._previews.pop(next(iter(self._previews)))  # the oldest
            self._previews[key] = (self.client.fetch(preview["previewUrl"]), int(preview["sheets"]))
        return self._previews[key]

    def tried_preview(self, page: int, values: dict, sheet: int = 0) -> tuple[bytes, int]:
        """Sheet `sheet` of the page with `values` ("Try values"; the service checks them as
        generate does and watermarks the picture), and how many sheets it lays out as."""
        preview = self.client.call(
            "preview_with_values", {"designId": self.design_id}, {"page": page, "sheet": sheet, "data": values}
        )
        return self.client.fetch(preview["previewUrl"]), int(preview["sheets"])

    def preview_data_url(self, page: int, without: tuple[str, ...] = ()) -> str:
        return "data:image/png;base64," + base64.b64encode(self.preview_png(page, without)).decode()

    @property
    def name(self) -> str:
        return self.info["name"]

    # -- writing ---------------------------------------------------------------------

    def apply(self, actions: list[dict]) -> list[dict]:
        """Save one action batch (all or nothing) and remember the tree before it for undo."""
        if not actions or changes_nothing(self.tree, actions):
            return []
        before = self.tree
        results = self._send(actions)
        self.undo_stack.append(before)
        del self.undo_stack[:-HISTORY_LIMIT]
        self.redo_stack.clear()
        return results

    def undo(self) -> bool:
        return self._step(self.undo_stack, self.redo_stack)

    def redo(self) -> bool:
        return self._step(self.redo_stack, self.undo_stack)

    def _step(self, source: list[DesignTree], target: list[DesignTree]) -> bool:
        if not source:
            return False
        snapshot = source[-1]
        before = self.tree
        actions = changes(before, snapshot)
        if actions:
            self._send(actions)
        source.pop()
        target.append(before)
        return True

    def _send(self, actions: list[dict]) -> list[dict]:
        result = self.client.call("patch_design_tree", {"designId": self.design_id}, {"actions": actions})
        # The answer carries the saved name, size and modifiedAt; only the tree is read back.
        self.info = {**self.info, **{k: result[k] for k in ("name", "fileSize", "modifiedAt")}}
        self.tree = DesignTree.model_validate(self.client.call("get_design_tree", {"designId": self.design_id}))
        self._notify()
        return result["results"]

    # -- revisions and publishing (extensions.md 16) ----------------------------------------

    def revisions(self, limit: int) -> dict:
        """The newest `limit` revisions (list_revisions' answer: items and nextCursor)."""
        return self.client.call("list_revisions", {"designId": self.design_id}, query={"limit": limit})

    def revision_preview(self, revision: int) -> bytes:
        """Page 1 of a kept revision as it was saved: a free preview. A revision never changes,
        so the caller may keep it for good."""
        preview = self.client.call(
            "preview_page", {"designId": self.design_id}, query={"page": 0, "revision": revision}
        )
        return self.client.fetch(preview["previewUrl"])

    def restore(self, revision: int) -> dict:
        """Make a new revision equal to `revision` and show it: one step that Undo takes back
        (as an edit: the tree before it is on the undo stack)."""
        before = self.tree
        restored = self.client.call("restore_revision", {"designId": self.design_id, "revision": str(revision)})
        self.info = {**self.info, **{k: restored[k] for k in ("fileSize", "modifiedAt")}}
        self.tree = DesignTree.model_validate(self.client.call("get_design_tree", {"designId": self.design_id}))
        self.undo_stack.append(before)
        del self.undo_stack[:-HISTORY_LIMIT]
        self.redo_stack.clear()
        self._notify()
        return restored

    def publish_state(self) -> dict:
        """The published revision, the latest, and what the draft changes against the published."""
        return self.client.call("get_publish_state", {"designId": self.design_id})

    def publish(self, revision: int) -> dict:
        return self.client.call("publish_design", {"designId": self.design_id}, {"revision": revision})

    def unpublish(self) -> dict:
        return self.client.call("unpublish_design", {"designId": self.design_id})

    def rename(self, name: str) -> None:
        self.info = {**self.info, **self.client.call("update_design", {"designId": self.design_id}, {"name": name})}
        self._notify()

    def generate(self, values: dict | None = None, options: dict | None = None) -> dict:
        """A PDF (1 credit, like the API) with `values` for the design's variables ("Try values"),
        the design-time content standing in for those not given: the API's answer, with its
        `filename` and signed `downloadUrl`. `options` are generate_pdf's other keys (pdfProfile,
        watermark, encryption, sign: extensions.md 9)."""
        # The draft, as the canvas shows it, even once the design is published (extensions.md 16).
        body = {"data": values or {}, "revision": "latest", **(options or {})}
        return self.client.call("generate_pdf", {"designId": self.design_id}, body)

    def label_sheet_presets(self) -> list[dict]:
        """The label-sheet presets (GET /sheets)."""
        return list(self.client.call("list_sheets")["sheets"])

    def label_sheet_preview(self, sheet: dict) -> tuple[bytes, int]:
        """One label sheet filled with the design (free; refused as a batch's sheet is when the
        page does not fit a label), and how many labels a sheet holds."""
        preview = self.client.call("preview_sheet", {"designId": self.design_id}, {"sheet": sheet})
        return self.client.fetch(preview["previewUrl"]), int(preview["labelsPerSheet"])

    def generate_on_label_sheet(
        self, sheet: dict, values: dict | None = None, options: dict | None = None, timeout: float = 120
    ) -> dict:
        """One label on a sheet (extensions.md 14): a batch of one row (1 credit) with `sheet`,
        followed to its end; its `filename` and the signed `downloadUrl` of the PDF of sheets."""
        body = {"rows": [values or {}], "sheet": sheet, **(options or {})}
        job = self.client.call("submit_batch", {"designId": self.design_id}, body)
        deadline = time.monotonic() + timeout
        state = job
        while state["status"] not in ("completed", "failed"):
            if time.monotonic() > deadline:
                raise ValueError(f"the label sheet is still being made (batch {job['jobId']}); try again shortly")
            time.sleep(0.2)
            state = self.client.call("get_batch", {"jobId": job["jobId"]})
        if state["status"] == "failed":
            failed = self.client.call("get_batch_rows", {"jobId": job["jobId"]}, query={"status": "failed"})
            reason = failed["items"][0]["error"]["message"] if failed["items"] else "the row failed"
            raise ValueError(f"the label could not be made: {reason}")
        download = self.client.call("get_batch_download", {"jobId": job["jobId"]})
        return {"filename": f"{job['jobId']}.pdf", "downloadUrl": download["downloadUrl"]}

    def credits(self) -> int:
        return int(self.client.call("me")["credits"])

    def _notify(self) -> None:
        for listener in list(self.listeners):
            listener()


__all__ = ["DesignSession"]
