"""Postings for the store's tests (api.postings): a generate's debit with its generation row, a
workspace made on a fresh data dir, and a workspace's books as the database holds them."""

from __future__ import annotations

from pathlib import Path

from api.postings import Posting
from api.service import Service, Settings
from api.service.common import new_id, now


def a_debit(workspace_id: str, delta: int = -1, with_row: bool = True) -> Posting:
    generation_id, moment = new_id("gen"), now()
    row = (generation_id, workspace_id, "des_x", "x.pdf", f"blob/{generation_id}", "standard", moment, moment)
    return Posting(workspace_id, delta, new_id("cr"), "generate", generation_id, moment,
                   (("generations", row),) if with_row else ())  # fmt: skip


def a_workspace(tmp_path: Path, credits: int) -> str:
    service = Service(Settings(data_dir=tmp_path, render_processes=1))
    try:
        workspace, _ = service.accounts.create_workspace("postings", "pro", credits)
    finally:
        service.close()
    return workspace.id


def books(store, workspace_id: str) -> tuple[int, int, int]:  # noqa: ANN001
    """(the balance kept in the row, the sum of the ledger, the generation rows)."""
    credits = store.one("SELECT credits FROM workspaces WHERE id = ?", [workspace_id])[0]
    summed = store.one("SELECT sum(delta) FROM credit_ledger WHERE workspace_id = ?", [workspace_id])[0]
    rows = store.one("SELECT count(*) FROM generations WHERE workspace_id = ?", [workspace_id])[0]
    return credits, summed, rows
