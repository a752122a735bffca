"""Batch generation (spec 4.13, decisions.md "Batches"): accept, follow, settle.

Credits for every row are taken when a batch is accepted (402 and nothing queued when
they cannot be); the rows that fail give their credit back, once, when the job ends.
The back-end (in-process pool or RQ) runs the rows; this service hears about each row
and about the end, and is the only one that writes the database.

Several web processes share one database (issue 17): each unsettled job is held by one of
them through a lease (`runner`, `lease_until`). The process that submits a job holds it;
while its back-end still runs (embedded) or follows (RQ) the job, a thread renews the lease
every third of LEASE_SECONDS; every process looks for lapsed leases every half lease and
takes such a job over (an UPDATE whose WHERE requires the lapse: of two processes exactly
one gets the row), so a job whose process died is finished by another, and a process
starting while another runs a job leaves it alone. On DuckDB (one process) a start takes
every unsettled job at once: no other process can be running one. A process that stops
cleanly lets go of its leases, so a restart or another process carries on at once.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import threading
from datetime import UTC, datetime

import engine
from engine.finishing.label_sheets import LabelSheet

from ..blobs import Blobs, UrlSigner
from ..errors import ApiError, unreachable
from ..jobs import BackendUnavailable, JobBackend
from ..jobs.runner import (
    JobPayload,
    RowResult,
    delivered_sheet,
    delivery,
    delivery_json,
    merged_ref,
    row_entry,
    sheets_ref,
)
from ..metrics import Metrics
from ..models import DEFAULT_PDF_PROFILE, JOB_ENDED, BatchBody, BatchDownloadQuery, BatchRowsQuery
from ..plans import BATCH_GENERATE
from ..settings import URL_LIFETIME, positive_seconds_from_env
from ..store import Store
from .accounts import Accounts
from .common import Workspace, decode_number_cursor, encode_number_cursor, iso, new_id, now
from .designs import Designs
from .finishing import checked_rows as finishing_checked_rows
from .media import Media
from .output import checked_merge, checked_output, checked_sheet
from .signing import Signing
from .values import checked_values
from .webhooks import Webhooks, check_webhook_url

log = logging.getLogger("docbench.batches")
COLUMNS = "id, workspace_id, design_id, status, total, completed, failed, zip_key, created_at, updated_at, revision"
LEASE_SECONDS = 30.0  # how long a job outlives its process before another one takes it over
LEASE_ENV = "DOCBENCH_BATCH_LEASE_SECONDS"  # tests shorten it
# A failed row's code in GET /batches/:jobId/rows: the row's render failed (its message says why:
# a missing image, a value the design refuses, a limit); the job itself went on.
ROW_FAILED = "ROW_FAILED"
LOST_ROW = "this row's result never came back (its worker was lost); its credit was given back"


class Batches:
    def __init__(
        self,
        store: Store,
        signer: UrlSigner,
        accounts: Accounts,
        designs: Designs,
        media: Media,
        webhooks: Webhooks,
        signing: Signing,
        metrics: Metrics | None = None,
        *,
        secret: bytes,
        blobs: Blobs,
    ):
        self.metrics = metrics or Metrics()
        self.metrics.watch_queue(self.queue_depth)
        self.store = store
        self.signer = signer
        self.blobs = blobs  # where a merged PDF is looked up (merged_ref)
        self.accounts = accounts
        self.designs = designs
        self.media = media
        self.webhooks = webhooks
        self.signing = signing
        self.secret = secret  # the servers': seals a batch's document passwords in its payload
        self.backend: JobBackend | None = None  # set by Service once the back-end exists
        self.runner = secrets.token_hex(8)  # this process, in the leases it holds
        self.lease = dt.timedelta(seconds=positive_seconds_from_env(LEASE_ENV, LEASE_SECONDS))
        self._stop = threading.Event()
        self._keeper: threading.Thread | None = None

    # Submission

    def submit(self, ws: Workspace, design_id: str, body: BatchBody) -> dict:
        ws.require(BATCH_GENERATE)  # first: a plan without batches learns that, not a design's faults
        # extensions.md 16: the published revision unless the body picks one (or "latest").
        row = self.designs.row_for_render(ws, design_id, "published" if body.revision is None else body.revision)
        tree = engine.DesignTree.model_validate_json(row["tree"])
        rows = [checked_values(tree, values, f"rows[{i}]") for i, values in enumerate(body.rows)]
        present = self.media.present_images(ws, tree, rows)  # a missing ref fails its row alone
        profile = body.pdfProfile or DEFAULT_PDF_PROFILE
        finishing, row_options = finishing_checked_rows(body, profile)
        output = checked_output(body.output, profile, body, tree, body.rowOptions)
        sheet = checked_sheet(body, output, tree)  # before merge: its refusal names the sheet
        if sheet is not None:
            # A sheet holds each row's page as drawn, without its form: fields print as they look.
            finishing = (finishing or engine.Finishing()).model_copy(update={"flatten": True})
        merge = checked_merge(body, output)
        webhook_url = body.webhookUrl
        if webhook_url is not None:
            webhook_url = check_webhook_url(webhook_url, self.webhooks.allow_private)
        job_id = new_id("job")
        payload = JobPayload(
            job_id=job_id,
            tree=row["tree"],
            rows=rows,
            profile=profile,
            images=self.media.render_keys(ws, self.media.tree_refs(tree) | present)
            | self.media.added_pdf_keys(ws, finishing),
            finishing=finishing,
            row_options=row_options,
            # Sealed: this payload is stored and queued in clear (400 here when there is no certificate).
            signing=self.signing.sealed_for(ws, profile) if finishing is not None and finishing.sign else None,
            output=output,
            merge=merge,
            sheet=sheet,
            keep_rows=bool(body.keepRows),
        ).sealed(self.secret)  # and so are the document passwords
        assert self.backend is not None
        try:
            self.backend.check()
        except BackendUnavailable as exc:
            raise ApiError("SERVICE_UNAVAILABLE", f"{exc}; try again shortly") from None
        created = now()
        with self.accounts.spend(ws.id, len(rows), "batch", job_id) as cursor:
            cursor.execute(
                "INSERT INTO batch_jobs VALUES (?, ?, ?, ?, 'queued', ?, 0, 0, ?, ?, NULL, false, ?, ?, ?, ?, ?, ?, ?)",
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
                    self.runner,  # this process runs it: the lease is its own from the start
                    created + self.lease,
                    webhook_url,
                    delivery_json(payload),
                    row["revision"],
                ],
            )
        try:
            self.backend.submit(payload, {})
        except BackendUnavailable as exc:
            self._cancel(job_id, ws.id, len(rows))
            raise ApiError("SERVICE_UNAVAILABLE", f"{exc}; nothing was charged, try again shortly") from None
        return {
            "jobId": job_id,
            "status": "queued",
            "total": len(rows),
            "designId": design_id,
            "revision": row["revision"],
        }

    def _cancel(self, job_id: str, workspace_id: str, rows: int) -> None:
        """The queue refused the job after it was recorded: give every credit back."""
        with self.store.transaction() as cursor:
            self.store.lock_row(cursor, "batch_jobs", job_id)  # before the workspace's, as job_done locks them
            self.accounts.refund(cursor, workspace_id, rows, "batch-cancelled", job_id)
            cursor.execute(
                "UPDATE batch_jobs SET status = 'failed', failed = total, settled = true, updated_at = ? WHERE id = ?",
                [now(), job_id],
            )
            _forget_secrets(cursor, job_id)
        self.accounts.count_refund("batch-cancelled", rows)  # counted once committed
        # No webhook event: the client got 503 and never learned this job's id (its retry makes
        # another job); only a job it was told about sends one (job_done).

    def _schedule_webhook(self, cursor, job_id: str) -> bool:
        """In the transaction that settles the job: its event, if it named a webhook."""
        row = cursor.execute(f"SELECT {COLUMNS}, webhook_url FROM batch_jobs WHERE id = ?", [job_id]).fetchone()
        if row is None or row[-1] is None:
            return False
        url = row[-1]
        job = self._answer(row[:-1])
        # The event carries the job as GET /batches/:jobId answers it at this moment, webhook
        # included; its deliveries are those made so far (none: the event is made before its
        # first attempt, and every attempt sends these same bytes), so later GETs list more.
        job["webhook"] = {"url": url, "deliveries": self.webhooks.deliveries(job_id, cursor)}
        self.webhooks.schedule(cursor, row[1], url, job)
        return True

    # Reading

    def _job(self, ws: Workspace, job_id: str) -> tuple:
        ws.require(BATCH_GENERATE)  # following a job is part of the feature, as submitting it is
        row = self.store.one(
            f"SELECT {COLUMNS}, webhook_url FROM batch_jobs WHERE id = ? AND workspace_id = ?", [job_id, ws.id]
        )
        if row is None:
            raise ApiError("JOB_NOT_FOUND", f"no batch job '{job_id}' in this workspace")
        return row

    def get(self, ws: Workspace, job_id: str) -> dict:
        *row, webhook_url = self._job(ws, job_id)
        answer = self._answer(tuple(row))
        if webhook_url is not None:
            answer["webhook"] = {"url": webhook_url, "deliveries": self.webhooks.deliveries(job_id)}
        return answer

    @staticmethod
    def _answer(row: tuple) -> dict:
        """A job as GET /batches/:jobId answers it (without its webhook), from COLUMNS."""
        job_id, _, _, status, total, completed, failed, _, created, updated, revision = row
        return {
            "jobId": job_id,
            "status": status,
            "total": total,
            "completed": completed,
            "failed": failed,
            "createdAt": iso(created),
            "updatedAt": iso(updated),
            "revision": revision,
        }

    def rows(self, ws: Workspace, job_id: str, query: BatchRowsQuery) -> dict:
        """The job's finished rows in submission order (status filter, keyset cursor on the row
        number): a failed row's reason without downloading the ZIP.

        The back-end records rows out of order (the embedded pool renders them in parallel; a
        lost row is recorded at the job's end), so while the job runs a page stops before the
        first row not recorded yet, and nextCursor resumes there: a client that follows it sees
        every row exactly once. While the job runs nextCursor is never null (a page shorter than
        `limit` means "come back later"); once it has ended, it is null on the last page."""
        *job, _ = self._job(ws, job_id)  # 404 for another workspace's job, 403 without the feature
        status, total = job[3], job[4]
        after = decode_number_cursor(query.cursor) if query.cursor else -1  # every row up to it was listed
        # The status is read before the rows: a job that ends meanwhile has only more rows recorded,
        # and a row once recorded never changes, so rows below the first gap are final.
        ended = status in JOB_ENDED
        listed_below = total if ended else self._first_unrecorded_row(job_id)
        output, _ = self._delivery(job_id)
        sql = (
            "SELECT row_index, ok, error, blob_key FROM batch_rows WHERE job_id = ? AND row_index > ? AND row_index < ?"
        )
        params: list = [job_id, after, listed_below]
        if query.status is not None:
            sql += " AND ok = ?"
            params.append(query.status == "completed")
        sql += " ORDER BY row_index LIMIT ?"
        found = self.store.all(sql, [*params, query.limit + 1])
        page = found[: query.limit]
        items = [
            {
                "row": index + 1,
                "status": "completed" if ok else "failed",
                "filename": row_entry(index, key if ok else None, output),
                "error": None if ok else {"code": ROW_FAILED, "message": error or "the row was not rendered"},
            }
            for index, ok, error, key in page
        ]
        if len(found) > query.limit:
            next_cursor: str | None = encode_number_cursor(page[-1][0])
        elif ended:
            next_cursor = None
        else:  # every row below the first gap was seen (under this filter): resume at the gap
            next_cursor = encode_number_cursor(max(after, listed_below - 1))
        return {"items": items, "nextCursor": next_cursor}

    def _first_unrecorded_row(self, job_id: str) -> int:
        """The smallest row index not in batch_rows yet, whatever the row's outcome: the rows
        are numbered 0..total-1 and recorded once each, so it is the first position in index
        order where the index differs from the position (or the count, when there is no gap)."""
        (first_gap,) = self.store.one(
            "SELECT coalesce(min(position) FILTER (WHERE row_index <> position), count(*)) FROM "
            "(SELECT row_index, row_number() OVER (ORDER BY row_index) - 1 AS position "
            "FROM batch_rows WHERE job_id = ?) AS recorded",
            [job_id],
        )
        return int(first_gap)

    def _delivery(self, job_id: str) -> tuple:
        """The job's `output` and `merge` (api.jobs.runner.delivery)."""
        (stored,) = self.store.one("SELECT delivery FROM batch_jobs WHERE id = ?", [job_id])
        return delivery(stored)

    def download(self, ws: Workspace, job_id: str, query: BatchDownloadQuery | None = None) -> dict:
        _, _, _, status, total, completed, _, zip_key, _, _, _, _ = self._job(ws, job_id)
        merged = query is not None and query.merged
        (stored,) = self.store.one("SELECT delivery FROM batch_jobs WHERE id = ?", [job_id])
        sheet, keep_rows = delivered_sheet(stored)
        if sheet is not None or (query is not None and query.rows):
            return self._sheets_download(job_id, status, total, completed, zip_key, sheet, keep_rows, query)
        if merged and not delivery(stored)[1]:
            raise ApiError(
                "NOT_FOUND",
                "this batch has no merged PDF: it was submitted without merge: true; submit the rows again with "
                "merge: true, or download its ZIP (without merged=true)",
            )
        if status not in JOB_ENDED or not zip_key:
            raise ApiError(
                "JOB_NOT_COMPLETED",
                f"the job is {status} ({completed} of {total} rows done); "
                "poll GET /batches/:jobId until it is completed",
            )
        if not merged:
            return {"downloadUrl": self.signer.url(zip_key, URL_LIFETIME, f"{job_id}.zip"), "expiresIn": URL_LIFETIME}
        key = self.blobs.get_ref(merged_ref(job_id))
        if key is None:
            why = (
                "no row succeeded"
                if not completed
                else "its rows' PDFs together are larger than a document may be (the manual, Limits)"
            )
            raise ApiError("NOT_FOUND", f"this batch has no merged PDF: {why}; its ZIP holds what was made")
        return {"downloadUrl": self.signer.url(key, URL_LIFETIME, f"{job_id}.pdf"), "expiresIn": URL_LIFETIME}

    def _sheets_download(
        self,
        job_id: str,
        status: str,
        total: int,
        completed: int,
        zip_key: str | None,
        sheet: LabelSheet | None,
        keep_rows: bool,
        query: BatchDownloadQuery | None,
    ) -> dict:
        """A label-sheet batch's download (extensions.md 14): its PDF of sheets, or with rows=true
        the ZIP of its rows when it was submitted with keepRows: true."""
        rows = query is not None and query.rows
        if sheet is None:
            raise ApiError(
                "NOT_FOUND",
                "rows=true is for a label-sheet batch's ZIP of rows; this batch has no sheet: its download "
                "(without rows=true) is the ZIP",
            )
        if query is not None and query.merged:
            raise ApiError(
                "NOT_FOUND",
                "this batch has no merged PDF: it prints on label sheets; its download (without merged=true) is "
                "the PDF of sheets",
            )
        if rows and not keep_rows:
            raise ApiError(
                "NOT_FOUND",
                "this batch kept no ZIP of rows: it was submitted without keepRows: true; its download (without "
                "rows=true) is the PDF of sheets, or submit the rows again with keepRows: true",
            )
        if status not in JOB_ENDED or not zip_key:
            raise ApiError(
                "JOB_NOT_COMPLETED",
                f"the job is {status} ({completed} of {total} rows done); "
                "poll GET /batches/:jobId until it is completed",
            )
        if rows:
            return {"downloadUrl": self.signer.url(zip_key, URL_LIFETIME, f"{job_id}.zip"), "expiresIn": URL_LIFETIME}
        key = self.blobs.get_ref(sheets_ref(job_id))
        if key is None:
            why = (
                "no row succeeded"
                if not completed
                else "its rows' labels together are larger than a document may be (the manual, Limits)"
            )
            raise ApiError(
                "NOT_FOUND", f"this batch has no label sheets: {why}; GET /batches/:jobId/rows says what each row did"
            )
        return {"downloadUrl": self.signer.url(key, URL_LIFETIME, f"{job_id}.pdf"), "expiresIn": URL_LIFETIME}

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
            profile = cursor.execute("SELECT profile FROM batch_jobs WHERE id = ?", [job_id]).fetchone()[0]
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
        for result in new:  # counted once: by the process that recorded the row
            self.metrics.batch_rows.labels("completed" if result.ok else "failed").inc()
            self.metrics.render("batch", profile, result.ok, result.seconds)

    def queue_depth(self) -> tuple[int, int]:
        """Unsettled jobs and their rows not done yet, in the whole database (GET /metrics)."""
        jobs, rows = self.store.one(
            "SELECT count(*), coalesce(sum(total - completed - failed), 0) FROM batch_jobs WHERE NOT settled", []
        )
        return int(jobs), int(rows)

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
            # Rows never reported (a lost result) count as failed, and are refunded too; they are
            # recorded as failed rows, so GET /batches/:jobId/rows lists every row of an ended job.
            lost = total - ok - failed
            if lost:
                known = {
                    r[0]
                    for r in cursor.execute("SELECT row_index FROM batch_rows WHERE job_id = ?", [job_id]).fetchall()
                }
                cursor.executemany(
                    "INSERT INTO batch_rows VALUES (?, ?, false, NULL, ?)",
                    [[job_id, index, LOST_ROW] for index in range(total) if index not in known],
                )
            failed += lost
            if failed:
                self.accounts.refund(cursor, workspace_id, failed, "batch-refund", job_id)
            cursor.execute(
                "UPDATE batch_jobs SET status = ?, completed = ?, failed = ?, zip_key = ?, settled = true, "
                "updated_at = ? WHERE id = ?",
                ["completed" if ok else "failed", ok, failed, zip_key, finished, job_id],
            )
            _forget_secrets(cursor, job_id)
            scheduled = self._schedule_webhook(cursor, job_id)
        # Counted once committed: a transaction that rolled back counted nothing, and the
        # job_done that settles the job after all (this one again, or another process's) counts.
        if lost:
            self.metrics.batch_rows.labels("failed").inc(lost)
        if failed:
            self.accounts.count_refund("batch-refund", failed)
        if scheduled:
            self.webhooks.poke()

    # Restart and leases

    def resume_unsettled(self) -> int:
        """On start: take the unsettled jobs no live process holds and hand them to the back-end.
        DuckDB admits one process, so every unsettled job is this process's to carry on."""
        return self._take_over(everything=self.store.single_writer_process)

    def _take_over(self, everything: bool = False) -> int:
        """Claim the jobs whose lease lapsed (`everything`: every unsettled job) and resume them."""
        assert self.backend is not None
        moment = now()
        lapsed = "" if everything else " AND (lease_until IS NULL OR lease_until < ?)"
        with self.store.transaction() as cursor:
            claimed = cursor.execute(
                f"UPDATE batch_jobs SET runner = ?, lease_until = ? WHERE NOT settled{lapsed} "
                "RETURNING id, payload, backend, created_at",
                [self.runner, moment + self.lease, *([] if everything else [moment])],
            ).fetchall()
        running = self.backend.held()
        jobs = sorted((job for job in claimed if job[0] not in running), key=lambda job: job[3])
        for job_id, payload_json, backend, _ in jobs:
            done = {
                index: RowResult(index=index, ok=ok, blob_key=key, error=error)
                for index, ok, key, error in self.store.all(
                    "SELECT row_index, ok, blob_key, error FROM batch_rows WHERE job_id = ?", [job_id]
                )
            }
            if backend != self.backend.name:
                log.warning("batch %s was queued on %s and is resumed on %s", job_id, backend, self.backend.name)
            else:
                log.info("batch %s is resumed by this process (%s)", job_id, self.runner)
            try:
                self.backend.resume(JobPayload.stored(payload_json), done)
            except BackendUnavailable as exc:
                log.error("cannot resume batch %s yet: %s", job_id, exc)
        return len(jobs)

    def renew_leases(self) -> None:
        """Extend the lease of every job the back-end still runs or follows; one it no longer
        holds in the database (settled, or taken over after a stall) it lets go of."""
        assert self.backend is not None
        held = self.backend.held()
        if not held:
            return
        marks = ", ".join("?" * len(held))
        with self.store.transaction() as cursor:
            kept = cursor.execute(
                f"UPDATE batch_jobs SET lease_until = ? WHERE runner = ? AND NOT settled AND id IN ({marks}) "
                "RETURNING id",
                [now() + self.lease, self.runner, *held],
            ).fetchall()
        lost = held - {row[0] for row in kept}
        if lost:
            self.backend.drop(lost)

    def start_leases(self) -> None:
        """A thread that renews this process's leases and takes over lapsed ones, until close()."""
        self._keeper = threading.Thread(target=self._keep_leases, daemon=True, name="docbench-batch-leases")
        self._keeper.start()

    def _keep_leases(self) -> None:
        # Woken every sixth of a lease: leases are renewed every other wake (a third of a
        # lease), lapsed ones looked for every third (half a lease), as the manual says.
        period = self.lease.total_seconds()
        wakes = 0
        while not self._stop.wait(period / 6):
            wakes += 1
            try:
                if wakes % 2 == 0:
                    self.renew_leases()
                if wakes % 3 == 0:  # a lapsed job waits at most half a lease more
                    self._take_over()
            except unreachable() as outage:  # not a bug: one line a try, no traceback
                log.error("renewing or taking over batch leases failed (%s); trying again", str(outage).strip())
            except Exception:
                log.exception("renewing or taking over batch leases failed; trying again")

    def close(self) -> None:
        """Stop renewing, and let go of the leases this process holds (its back-end is closed or
        closing): a process still serving, or this one restarted, carries those jobs on at once."""
        self._stop.set()
        if self._keeper is not None:
            self._keeper.join(timeout=10)
        if self.backend is None:
            return
        with self.store.transaction() as cursor:
            cursor.execute("UPDATE batch_jobs SET lease_until = NULL WHERE runner = ? AND NOT settled", [self.runner])


def _forget_secrets(cursor, job_id: str) -> None:  # noqa: ANN001 (a store cursor)
    """In the transaction that settles a job: its stored payload loses the sealed signing
    certificate and the document passwords, which only its rows' renders needed."""
    (text,) = cursor.execute("SELECT payload FROM batch_jobs WHERE id = ?", [job_id]).fetchone()
    if '"signing":{' not in text and '"encryption":{' not in text and '"sealed_encryption":"' not in text:
        return  # the common case: nothing to forget, nothing to parse
    payload = JobPayload.stored(text)
    kept = payload.without_secrets()
    if kept is not payload:
        cursor.execute("UPDATE batch_jobs SET payload = ? WHERE id = ?", [kept.model_dump_json(), job_id])
