"""The embedded back-end: rows render in the web process's render processes.

The same processes that draw generations and previews (api.renderers, one more than the cores by
default, `--render-processes`): a batch uses every core, a server never runs more render
processes than it was given (not one set for renders and another for batches), and the
pool's turns are taken per owner, so a long batch delays another caller's generate by at
most one row per process, not by the whole batch. Each row is its own task, so progress
rises row by row; a row's process is bounded (time, CPU, memory) and killable like any
render's.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

from engine.finishing.label_sheets import LabelSheet

from ..renderers import RenderLimits
from ..renderers.pool import PoolClosed, ProcessPool, TaskFailed, TaskLimitExceeded, TaskProcessDied
from . import JobListener
from .runner import JobPayload, RowResult, assemble_zip

log = logging.getLogger("docbench.jobs")
FLUSH_SECONDS = 0.2
CHECK_SECONDS = 1.0  # how often a job's loop looks whether it still holds the job, rows ending or not
MAX_ATTEMPTS = 2  # a row whose process died is tried once more before it counts as failed
MAX_JOBS = 8  # jobs run at once; more wait their turn
# A row's own CPU deadline (api.jobs.runner) ends a slow row with a failed result; the pool's
# wall-clock bound is a backstop for a process that stops answering, so it is far longer.
WALL_CLOCK_FACTOR = 3


class _Stopping(Exception):
    """The back-end is closing: a job's rows are not submitted again."""


class _Dropped(Exception):
    """Another process holds the job now (its lease lapsed here): this one stops running it."""


class EmbeddedBackend:
    name = "embedded"

    def __init__(self, blob_root: str | Path, listener: JobListener, pool: ProcessPool, secret: bytes | None = None):
        self.blob_root = blob_root
        self.secret = secret  # the server's: opens the sealed certificate and passwords of a batch
        self.listener = listener
        self.pool = pool
        # Rows in flight per job: enough for one job alone to keep every process busy, with one
        # more waiting for each, handed over the moment a process is free.
        self.window = 2 * pool.size
        self._closed = False
        # One orchestrating thread per running job; each row in flight waits on a thread of its own.
        self._jobs = ThreadPoolExecutor(max_workers=MAX_JOBS, thread_name_prefix="docbench-batch")
        self._rows = ThreadPoolExecutor(max_workers=MAX_JOBS * self.window, thread_name_prefix="docbench-row")
        # Jobs submitted and not yet ended here (queued for a thread, or running): the leases the
        # service renews. A job whose orchestrating thread ends, however, leaves this set, so its
        # lease lapses and another process (or this one's next look) takes it over.
        self._held: set[str] = set()
        self._dropped: set[str] = set()
        self._guard = threading.Lock()

    def check(self) -> None:
        """The in-process pool is always there."""

    def submit(self, payload: JobPayload, done: dict[int, RowResult]) -> None:
        with self._guard:
            self._held.add(payload.job_id)
            self._dropped.discard(payload.job_id)
        self._jobs.submit(self._run, payload, dict(done))

    resume = submit  # the rows not done yet simply run again

    def held(self) -> set[str]:
        with self._guard:
            return set(self._held)

    def drop(self, job_ids: set[str]) -> None:
        with self._guard:
            self._dropped |= job_ids & self._held

    def _check_held(self, job_id: str) -> None:
        with self._guard:
            if job_id in self._dropped:
                raise _Dropped()

    def _run(self, payload: JobPayload, results: dict[int, RowResult]) -> None:
        running: dict[Future, int] = {}
        try:
            self._check_held(payload.job_id)
            self.listener.job_started(payload.job_id)
            waiting = [index for index in range(len(payload.rows)) if index not in results]
            waiting.reverse()  # popped from the end: rows start in order
            while waiting and len(running) < self.window:
                index = waiting.pop()
                running[self._rows.submit(self._render_row, payload, index)] = index
            unreported: list[RowResult] = []
            flushed = time.monotonic()
            while running:
                # Woken now and then even when no row ends, to notice a job taken over elsewhere.
                finished, _ = wait(running, timeout=CHECK_SECONDS, return_when=FIRST_COMPLETED)
                self._check_held(payload.job_id)
                for future in finished:
                    running.pop(future)
                    result = future.result()  # _Stopping when the server is closing
                    results[result.index] = result
                    unreported.append(result)
                    if waiting:
                        index = waiting.pop()
                        running[self._rows.submit(self._render_row, payload, index)] = index
                # Progress is written in small groups: a transaction per row would cost the
                # web process about as much CPU as a process spends rendering the row.
                if time.monotonic() - flushed > FLUSH_SECONDS:
                    self.listener.rows_done(payload.job_id, unreported)
                    unreported, flushed = [], time.monotonic()
            self.listener.rows_done(payload.job_id, unreported)
            rows = list(results.values())
            if payload.merge:  # before the job ends: a completed job's merged PDF is there to download
                self._merge(payload.job_id, rows)
            if payload.sheet is not None:  # likewise its label sheets (extensions.md 14)
                self._merge(payload.job_id, rows, payload.sheet)
            zip_key = assemble_zip(self.blob_root, rows, payload.output, payload.sheet is None or payload.keep_rows)
            self.listener.job_done(payload.job_id, zip_key)
        except _Stopping:
            log.info("batch %s stopped with the server; it will be resumed on the next start", payload.job_id)
        except _Dropped:
            for future in running:
                future.cancel()  # rows not started yet: the process holding the job renders them
            log.warning("batch %s is held by another process now; this one stops running it", payload.job_id)
        except Exception:
            log.exception("batch %s could not be run; it will be resumed once its lease lapses", payload.job_id)
        finally:
            with self._guard:
                self._held.discard(payload.job_id)
                self._dropped.discard(payload.job_id)

    def _merge(self, job_id: str, rows: list[RowResult], sheet: LabelSheet | None = None) -> None:
        """The merged PDF (extensions.md 12), or with `sheet` the PDF of label sheets (14), made
        in a render process, bounded as a render is; a failure leaves the batch without one (its
        download says so), never fails the batch."""
        limits = RenderLimits.from_environment()
        task, args = ("merge_rows", ()) if sheet is None else ("sheet_rows", (sheet,))
        try:
            self.pool.call(
                task,
                (str(self.blob_root), job_id, rows, *args, limits.max_pdf_bytes),
                seconds=limits.render_seconds,
                owner=f"batch:{job_id}",
            )
        except PoolClosed:
            raise _Stopping() from None
        except (TaskFailed, TaskLimitExceeded) as exc:
            log.error("batch %s: its %s could not be made: %r", job_id, "label sheets" if sheet else "merged PDF", exc)

    def _render_row(self, payload: JobPayload, index: int) -> RowResult:
        """One row in a render process: its result, a failed one when its process was stopped."""
        limits = RenderLimits.from_environment()
        # Only this row crosses the pipe, not the whole batch's rows each time.
        one_row = payload.one_row(index)
        seconds = limits.render_seconds * WALL_CLOCK_FACTOR
        for attempt in range(1, MAX_ATTEMPTS + 1):
            if self._closed:
                raise _Stopping()
            try:
                # The secret crosses the pipe only for a batch that signs or encrypts.
                secret = self.secret if one_row.needs_secret else None
                args = (one_row, str(self.blob_root), secret)
                result = self.pool.call("render_row", args, seconds=seconds, owner=f"batch:{payload.job_id}")
                return result.model_copy(update={"index": index})
            except PoolClosed:
                raise _Stopping() from None
            except TaskLimitExceeded as exc:
                return RowResult(index=index, ok=False, error=_limit_error(exc.limit, limits))
            except TaskProcessDied:
                if attempt < MAX_ATTEMPTS:
                    continue
                log.error("batch %s row %d lost its render process twice", payload.job_id, index)
                return RowResult(
                    index=index, ok=False, error="the process rendering this row stopped unexpectedly, twice"
                )
            except TaskFailed as exc:  # a bug in the process, logged there
                log.error("batch %s row %d failed in its render process: %s", payload.job_id, index, exc)
                return RowResult(index=index, ok=False, error="internal error while rendering this row")
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Stop now: rows being rendered are not waited for (the job resumes on restart). The
        render processes themselves are the service's to close (Renderers.close)."""
        self._closed = True
        self._jobs.shutdown(wait=False, cancel_futures=True)
        self._rows.shutdown(wait=False, cancel_futures=True)


def _limit_error(limit: str, limits: RenderLimits) -> str:
    if limit == "memory":
        return f"this row needed more than the {limits.memory_bytes / 1024**3:g} GB of memory a render may use"
    return f"this row took longer than the {limits.render_seconds:g} s a render may use"
