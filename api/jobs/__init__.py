"""Batch execution behind one interface, with two back-ends (architecture: "jobs").

- `EmbeddedBackend`: the web process's render processes (api.renderers; the default).
- `RedisBackend`: RQ on Redis; `docbench worker` processes anywhere that reach the same blobs
  (the bucket, or the one machine's blob directory) run the rows and report progress through Redis.

Either way the service hears about each finished row and about the finished job (its
ZIP written to the blob store) through a `JobListener`, and settles credits then.
"""

from __future__ import annotations

from typing import Protocol

from .runner import JobPayload, RowResult


class BackendUnavailable(RuntimeError):
    """The queue cannot take work right now (Redis unreachable)."""


class JobListener(Protocol):
    def job_started(self, job_id: str) -> None: ...

    def rows_done(self, job_id: str, results: list[RowResult]) -> None: ...

    def job_done(self, job_id: str, zip_key: str, finished_at: float | None = None) -> None:
        """The ZIP is written; finished_at (epoch seconds) is when, if not just now."""


class JobBackend(Protocol):
    name: str

    def check(self) -> None:
        """Raise BackendUnavailable when a job submitted now could not be queued."""

    def submit(self, payload: JobPayload, done: dict[int, RowResult]) -> None:
        """Run the rows of `payload` not already in `done`; raise BackendUnavailable if it cannot."""

    def resume(self, payload: JobPayload, done: dict[int, RowResult]) -> None:
        """Carry on with a job that had not ended (after a restart, or taken over from a web
        process that died: api/service/batches.py, leases)."""

    def held(self) -> set[str]:
        """The jobs this back-end runs or follows now (queued ones included): their leases are renewed."""

    def drop(self, job_ids: set[str]) -> None:
        """Stop running or following these jobs: another process holds them now, or they ended."""

    def close(self) -> None: ...


__all__ = ["BackendUnavailable", "JobBackend", "JobListener", "JobPayload", "RowResult"]
