"""Batch generation (spec 4.13, decisions.md "Batches"): accept, follow, settle.

Credits for every row are taken when a batch is accepted (402 and nothing queued when
they cannot be); the rows that fail give their credit back, once, when the job ends.
The back-end (in-process pool or RQ) runs the rows; this service hears about each row
and about the end, and is the only one that writes the database.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import engine

from ..blobs import UrlSigner
from ..errors import ApiError
from ..jobs import BackendUnavailable, JobBackend
from ..jobs.runner import JobPayload, RowResult
from ..models import DEFAULT_PDF_PROFILE, JOB_ENDED, BatchBody
from ..plans import BATCH_GENERATE
from ..settings import URL_LIFETIME
from ..store import Store
from .accounts import Accounts
from .common import Workspace, iso, new_id, now
from .designs import Designs
from .media import Media
from .values import checked_values, present_images

log = logging.getLogger("docbench.batches")
COLUMNS = "id, workspace_id, design_id, status, total, completed, failed, zip_key, created_at, updated_at"


class Batches:
    def __init__(self, store: Store, signer: UrlSigner, accounts: Accounts, designs: Designs, media: Media):
        self.store = store
        self.signer = signer
        self.accounts = accounts
        self.designs = designs
        self.media = media
        self.backend: JobBackend | None = None  # set by Service once the back-end exists

    # Submission

    def submit(self, ws: Workspace, design_id: str, body: BatchBody) -> dict:
        ws.require(BATCH_GENERATE)  # first: a plan without batches learns that, not a design's faults
        row = self.designs.row_for_render(ws, design_id)
        tree = engine.DesignTree.model_validate_json(row["tree"])
        rows = [checked_values(tree, values, f"rows[{i}]") for i, values in enumerate(body.rows)]
        present = present_images(self.media, ws, tree, rows)  # a missing ref fails its row alone
        job_id = new_id("job")
        payload = JobPayload(
            job_id=job_id,
            tree=row["tree"],
            rows=rows,
            profile=body.pdfProfile or DEFAULT_PDF_PROFILE,
            images=self.media.render_keys(ws, self.media.tree_refs(tree) | present),
        )
        assert self.backend is not None
        try:
            self.backend.check()
        except BackendUnavailable as exc:
            raise ApiError("SERVICE_UNAVAILABLE", f"{exc}; try again shortly") from None
        created = now()
        with self.store.transaction() as cursor:
            self.accounts.debit(cursor, ws.id, len(rows), "batch", job_id)
            cursor.execute(
                "INSERT INTO batch_jobs VALUES (?, ?, ?, ?, 'queued', ?, 0, 0, ?, ?, NULL, false, ?, ?)",
                [
                    job_id,
                    ws.id,
                    design_id,
                    self.backend.name,
                    len(rows),
                    payload.profile,
                    payload.model_dump_json(),
                    created,
                    created,
                ],
            )
        try:
            self.backend.submit(payload, {})
        except BackendUnavailable as exc:
            self._cancel(job_id, ws.id, len(rows))
            raise ApiError("SERVICE_UNAVAILABLE", f"{exc}; nothing was charged, try again shortly") from None
        return {"jobId": job_id, "status": "queued", "total": len(rows), "designId": design_id}

    def _cancel(self, job_id: str, workspace_id: str, rows: int) -> None:
        """The queue refused the job after it was recorded: give every credit back."""
        with self.store.transaction() as cursor:
            self.accounts.refund(cursor, workspace_id, rows, "batch-cancelled", job_id)
            cursor.execute(
                "UPDATE batch_jobs SET status = 'failed', failed = total, settled = true, updated_at = ? WHERE id = ?",
                [now(), job_id],
            )

    # Reading

    def _job(self, ws: Workspace, job_id: str) -> tuple:
        ws.require(BATCH_GENERATE)  # following a job is part of the feature, as submitting it is
        row = self.store.one(f"SELECT {COLUMNS} FROM batch_jobs WHERE id = ? AND workspace_id = ?", [job_id, ws.id])
        if row is None:
            raise ApiError("JOB_NOT_FOUND", f"no batch job '{job_id}' in this workspace")
        return row

    def get(self, ws: Workspace, job_id: str) -> dict:
        job_id, _, _, status, total, completed, failed, _, created, updated = self._job(ws, job_id)
        return {
            "jobId": job_id,
            "status": status,
            "total": total,
            "completed": completed,
            "failed": failed,
            "createdAt": iso(created),
            "updatedAt": iso(updated),
        }

    def download(self, ws: Workspace, job_id: str) -> dict:
        _, _, _, status, total, completed, _, zip_key, _, _ = self._job(ws, job_id)
        if status not in JOB_ENDED or not zip_key:
            raise ApiError(
                "JOB_NOT_COMPLETED",
                f"the job is {status} ({completed} of {total} rows done); "
                "poll GET /batches/:jobId until it is completed",
            )
        return {"downloadUrl": self.signer.url(zip_key, URL_LIFETIME, f"{job_id}.zip"), "expiresIn": URL_LIFETIME}

    # What the back-end reports (JobListener)

    def job_started(self, job_id: str) -> None:
        with self.store.transaction() as cursor:
            cursor.execute(
                "UPDATE batch_jobs SET status = 'processing', updated_at = ? WHERE id = ? AND status = 'queued'",
                [now(), job_id],
            )

    def rows_done(self, job_id: str, results: list[RowResult]) -> None:
        """Record finished rows (one transaction for all of them) and the job's counts."""
        if not results:
            return
        with self.store.transaction() as cursor:
            self.store.lock_row(cursor, "batch_jobs", job_id)  # another process's report waits (api/store.py)
            known = {
                r[0] for r in cursor.execute("SELECT row_index FROM batch_rows WHERE job_id = ?", [job_id]).fetchall()
            }
            new = [r for r in results if r.index not in known]
            if not new:
                return
            cursor.executemany(
                "INSERT INTO batch_rows VALUES (?, ?, ?, ?, ?)",
                [[job_id, r.index, r.ok, r.blob_key, r.error] for r in new],
            )
            ok = sum(r.ok for r in new)
            cursor.execute(
                "UPDATE batch_jobs SET completed = completed + ?, failed = failed + ?, status = 'processing', "
                "updated_at = ? WHERE id = ? AND NOT settled",
                [ok, len(new) - ok, now(), job_id],
            )

    def job_done(self, job_id: str, zip_key: str, finished_at: float | None = None) -> None:
        """Record the outcome and give back the credits of failed rows, exactly once.

        updatedAt becomes the moment the ZIP was written (a worker's clock for RQ jobs),
        not the moment this process noticed it."""
        finished = datetime.fromtimestamp(finished_at, UTC).replace(tzinfo=None) if finished_at is not None else now()
        with self.store.transaction() as cursor:
            self.store.lock_row(cursor, "batch_jobs", job_id)  # settled once, whichever process sees the end
            row = cursor.execute(
                "SELECT workspace_id, total, settled FROM batch_jobs WHERE id = ?", [job_id]
            ).fetchone()
            if row is None or row[2]:
                return
            workspace_id, total = row[0], row[1]
            ok, failed = cursor.execute(
                "SELECT count(*) FILTER (WHERE ok), count(*) FILTER (WHERE NOT ok) FROM batch_rows WHERE job_id = ?",
                [job_id],
            ).fetchone()
            # Rows never reported (a lost result) count as failed, and are refunded too.
            failed += total - ok - failed
            if failed:
                self.accounts.refund(cursor, workspace_id, failed, "batch-refund", job_id)
            cursor.execute(
                "UPDATE batch_jobs SET status = ?, completed = ?, failed = ?, zip_key = ?, settled = true, "
                "updated_at = ? WHERE id = ?",
                ["completed" if ok else "failed", ok, failed, zip_key, finished, job_id],
            )

    # Restart

    def resume_unsettled(self) -> int:
        """On start: hand every job that had not ended back to the back-end."""
        assert self.backend is not None
        jobs = self.store.all("SELECT id, payload, backend FROM batch_jobs WHERE NOT settled ORDER BY created_at")
        for job_id, payload_json, backend in jobs:
            done = {
                index: RowResult(index=index, ok=ok, blob_key=key, error=error)
                for index, ok, key, error in self.store.all(
                    "SELECT row_index, ok, blob_key, error FROM batch_rows WHERE job_id = ?", [job_id]
                )
            }
            if backend != self.backend.name:
                log.warning("batch %s was queued on %s and is resumed on %s", job_id, backend, self.backend.name)
            try:
                self.backend.resume(JobPayload.model_validate_json(payload_json), done)
            except BackendUnavailable as exc:
                log.error("cannot resume batch %s yet: %s", job_id, exc)
        return len(jobs)
