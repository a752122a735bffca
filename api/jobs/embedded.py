"""The embedded back-end: rows render in a pool of worker processes of the web process.

Processes, not threads, so a batch uses every core; they are started with `spawn`
(never fork a process holding a DuckDB connection and an event loop) on the first
batch, and each row is its own task, so progress rises row by row.

A spawned process first re-runs the parent's main module, in case a task needs
something defined there. Ours never do, and the parent may be an analyst's script
with no `if __name__ == "__main__":` guard (the embedded notebook API), which would
run again in every worker: so the workers all start at once, with `__main__` hidden.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import threading
import time
import types
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from . import JobListener
from .runner import JobPayload, RowResult, assemble_zip, render_row, tune_for_rendering

log = logging.getLogger("docbench.jobs")
FLUSH_SECONDS = 0.2
MAX_ATTEMPTS = 2  # a row whose worker died is tried once more before it counts as failed


def _worker_start() -> None:
    """Pool process start: rendering settings, and exit if the server that owns us dies
    (a SIGKILLed server cannot shut its pool down; orphans would live on)."""
    tune_for_rendering()
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)  # a heartbeat check, not synchronisation
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _started() -> int:
    return os.getpid()


def _spawn_all(pool: ProcessPoolExecutor, workers: int) -> None:
    """Start every worker now (a pool spawns one per task submitted while none is idle),
    with a main module that is empty, so no worker re-runs the parent's script."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        for _ in range(workers):
            pool.submit(_started)
    finally:
        sys.modules["__main__"] = main


class _Stopping(Exception):
    """The back-end is closing: a job's rows are not submitted again."""


class EmbeddedBackend:
    name = "embedded"

    def __init__(self, blob_root: str | Path, listener: JobListener, workers: int | None = None):
        self.blob_root = blob_root
        self.listener = listener
        self.workers = workers or os.cpu_count() or 1
        self._pool: ProcessPoolExecutor | None = None
        self._pool_guard = threading.Lock()
        self._closed = False
        # One orchestrating thread per running job; the rows themselves run in the pool.
        self._jobs = ThreadPoolExecutor(max_workers=8, thread_name_prefix="docbench-batch")

    def _processes(self) -> ProcessPoolExecutor:
        with self._pool_guard:
            if self._closed:
                raise _Stopping()
            if self._pool is None:
                pool = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_start
                )
                _spawn_all(pool, self.workers)
                self._pool = pool
            return self._pool

    def check(self) -> None:
        """The in-process pool is always there."""

    def submit(self, payload: JobPayload, done: dict[int, RowResult]) -> None:
        self._jobs.submit(self._run, payload, dict(done))

    resume = submit  # the rows not done yet simply run again

    def _run(self, payload: JobPayload, results: dict[int, RowResult]) -> None:
        try:
            self.listener.job_started(payload.job_id)
            attempts: dict[int, int] = {}
            running: dict[Future, int] = {}
            for index in range(len(payload.rows)):
                if index not in results:
                    running[self._submit_row(payload, index)] = index
                    attempts[index] = 1
            unreported: list[RowResult] = []
            flushed = time.monotonic()
            while running:
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    index = running.pop(future)
                    try:
                        result = future.result()
                    except Exception as exc:  # a worker process died: every row it held is lost
                        if attempts[index] < MAX_ATTEMPTS:
                            attempts[index] += 1
                            running[self._submit_row(payload, index)] = index
                            continue
                        log.error("batch %s row %d lost its worker twice: %s", payload.job_id, index, exc)
                        result = RowResult(
                            index=index, ok=False, error="the worker rendering this row stopped unexpectedly, twice"
                        )
                    results[index] = result
                    unreported.append(result)
                # Progress is written in small groups: a transaction per row would cost the
                # web process about as much CPU as a worker spends rendering the row.
                if time.monotonic() - flushed > FLUSH_SECONDS:
                    self.listener.rows_done(payload.job_id, unreported)
                    unreported, flushed = [], time.monotonic()
            self.listener.rows_done(payload.job_id, unreported)
            self.listener.job_done(payload.job_id, assemble_zip(self.blob_root, list(results.values())))
        except _Stopping:
            log.info("batch %s stopped with the server; it will be resumed on the next start", payload.job_id)
        except Exception:
            log.exception("batch %s could not be run; it will be resumed on the next start", payload.job_id)

    def _submit_row(self, payload: JobPayload, index: int) -> Future:
        try:
            return self._processes().submit(render_row, payload, index, self.blob_root)
        except BrokenProcessPool:
            with self._pool_guard:  # a worker died (killed, out of memory): start a fresh pool
                self._pool = None
            return self._processes().submit(render_row, payload, index, self.blob_root)

    def close(self) -> None:
        """Stop now: rows being rendered are killed, not waited for (the job resumes on restart)."""
        self._jobs.shutdown(wait=False, cancel_futures=True)
        with self._pool_guard:
            self._closed = True  # a job's thread that sees its rows' processes die must not start new ones
            pool, self._pool = self._pool, None
        if pool is not None:
            # ProcessPoolExecutor has no way to stop a running task; exiting would wait for it.
            for process in list(getattr(pool, "_processes", {}).values()):
                process.kill()
            pool.shutdown(wait=False, cancel_futures=True)
