"""The RQ back-end: a batch becomes chunks of rows on an RQ queue; `docbench worker`s run them.

Workers never open DuckDB. They read the job's payload from Redis, write row PDFs to
the shared blob store, record each row's result in Redis (HSETNX, so a row counts
once even if a chunk runs twice), and the worker that finishes the last chunk writes
the ZIP. A worker holds a lease on its chunk, renewed by a heartbeat; the web process
re-queues a chunk whose lease lapsed (its worker died) once, then fails its remaining
rows, so no job stays `processing` for longer than LEASE_SECONDS + one poll.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from redis import Redis
from redis.exceptions import RedisError

from ..renderers import RenderLimits
from ..settings import without_password
from . import BackendUnavailable, JobListener
from .runner import (
    JobPayload,
    RowResult,
    assemble_merged,
    assemble_sheets,
    assemble_zip,
    delivered_sheet,
    delivery,
    delivery_json,
    render_row,
    tune_for_rendering,
)

log = logging.getLogger("docbench.jobs")

QUEUE = "docbench-batches"
# A batch is cut into about this many chunks: enough to spread over several workers and
# to keep a lost worker's rework small, few enough that RQ's per-job cost stays negligible.
CHUNKS_PER_BATCH = 8
LEASE_SECONDS = 10
MAX_ATTEMPTS = 2
KEY_TTL = 7 * 24 * 3600
POLL_SECONDS = 0.1


def _key(job_id: str, *parts: object) -> str:
    return ":".join(["docbench", "batch", job_id, *map(str, parts)])


def chunks(total: int) -> list[tuple[int, int]]:
    size = max(1, -(-total // CHUNKS_PER_BATCH))
    return [(start, min(start + size, total)) for start in range(0, total, size)]


def _record(redis: Redis, job_id: str, result: RowResult) -> None:
    """Count a row once, whoever reports it (a chunk may run twice after a lost lease)."""
    if redis.hsetnx(_key(job_id, "rows"), result.index, result.model_dump_json()):
        redis.hincrby(_key(job_id), "completed" if result.ok else "failed", 1)


# Marking a chunk done and counting it must be one step: a worker killed between the
# two would leave the count one short and the job waiting forever.
_FINISH_CHUNK = """
if redis.call('HSETNX', KEYS[1], ARGV[1], 1) == 1 then
  return redis.call('HINCRBY', KEYS[2], 'chunks_done', 1)
end
return -1
"""


def _finish_chunk(redis: Redis, job_id: str, chunk: int, blob_root: str | Path) -> None:
    """Mark a chunk done once; whoever finishes the last chunk writes the ZIP."""
    done = int(redis.eval(_FINISH_CHUNK, 2, _key(job_id, "done"), _key(job_id), chunk))
    for key in (_key(job_id, "rows"), _key(job_id, "done")):
        redis.expire(key, KEY_TTL)  # created by workers after submit: their lifetime is set here
    if done == int(redis.hget(_key(job_id), "chunks") or 0):
        _write_zip(redis, job_id, blob_root)


def _write_zip(redis: Redis, job_id: str, blob_root: str | Path) -> None:
    results = [RowResult.model_validate_json(v) for v in redis.hvals(_key(job_id, "rows"))]
    # Whether rows are pictures and whether the batch merges (extensions.md 12), as submitted.
    stored = redis.hget(_key(job_id), "delivery")
    output, merge = delivery(stored)
    sheet, keep_rows = delivered_sheet(stored)  # extensions.md 14
    if merge:  # before zip_key: a completed job's merged PDF is there to download
        try:
            assemble_merged(blob_root, job_id, results, RenderLimits.from_environment().max_pdf_bytes)
        except Exception:  # the batch ends without it (its download says so), never fails for it
            log.exception("batch %s: its merged PDF could not be made", job_id)
    if sheet is not None:  # likewise its label sheets
        try:
            assemble_sheets(blob_root, job_id, results, sheet, RenderLimits.from_environment().max_pdf_bytes)
        except Exception:
            log.exception("batch %s: its label sheets could not be made", job_id)
    zip_key = assemble_zip(blob_root, results, output, sheet is None or keep_rows)
    status = "completed" if any(r.ok for r in results) else "failed"
    redis.hset(_key(job_id), mapping={"zip_key": zip_key, "status": status, "finished": time.time()})


# The blobs of this `docbench worker` process, when it was given them (--blob-url or its own
# data dir): a worker on another machine reads and writes there, not at the web process's path.
_worker_blobs: str | None = None
# The servers' --secret, when this worker was given it: it opens the sealed certificate and
# passwords of a batch that signs or encrypts.
_worker_secret: bytes | None = None


def run_chunk(job_id: str, chunk: int, start: int, end: int, redis_url: str, blob_root: str) -> None:
    """The RQ job: render rows [start, end) of a batch. Runs in `docbench worker`."""
    blob_root = _worker_blobs or blob_root
    redis = Redis.from_url(redis_url)
    payload = JobPayload.stored(redis.get(_key(job_id, "payload")) or b"{}")
    lease = _key(job_id, "lease", chunk)
    stop = threading.Event()

    def heartbeat() -> None:
        while not stop.wait(LEASE_SECONDS / 3):
            redis.set(lease, 1, ex=LEASE_SECONDS)

    redis.set(lease, 1, ex=LEASE_SECONDS)
    redis.hset(_key(job_id, "chunk", chunk), "state", "running")
    redis.hsetnx(_key(job_id), "started", 1)
    beat = threading.Thread(target=heartbeat, daemon=True)
    beat.start()
    try:
        for index in range(start, end):
            if redis.hexists(_key(job_id, "rows"), index):
                continue  # done by an earlier attempt of this chunk
            _record(redis, job_id, render_row(payload, index, blob_root, _worker_secret))
        _finish_chunk(redis, job_id, chunk, blob_root)
    finally:
        stop.set()
        redis.delete(lease)


def _older_than_a_lease(moment: datetime | None) -> bool:
    """Whether an RQ timestamp (naive UTC) is more than a lease ago; unknown counts as old."""
    if moment is None:
        return True
    return (datetime.now(UTC).replace(tzinfo=None) - moment.replace(tzinfo=None)).total_seconds() > LEASE_SECONDS


class RedisBackend:
    name = "rq"

    def __init__(self, redis_url: str, blob_root: str | Path, listener: JobListener):
        from rq import Queue

        self.redis_url = redis_url
        self.blob_root = blob_root
        self.listener = listener
        self.redis = Redis.from_url(redis_url, socket_connect_timeout=2, socket_timeout=5)
        self.queue = Queue(QUEUE, connection=self.redis)
        self._tracked: dict[str, set[int]] = {}  # job id -> rows already reported to the listener
        self._started: set[str] = set()
        self._payloads: dict[str, JobPayload] = {}  # to queue a job again if Redis loses it
        self._waiting: dict[str, tuple[JobPayload, dict[int, RowResult]]] = {}  # resumes Redis refused
        self._all_done_since: dict[str, float] = {}
        self._last_recovery: dict[str, float] = {}
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._poller = threading.Thread(target=self._poll_forever, daemon=True, name="docbench-rq-poll")
        self._poller.start()

    def submit(self, payload: JobPayload, done: dict[int, RowResult]) -> None:
        job_id = payload.job_id
        parts = chunks(len(payload.rows))
        try:
            pipe = self.redis.pipeline()
            pipe.set(_key(job_id, "payload"), payload.model_dump_json(), ex=KEY_TTL)
            state: dict[str, Any] = {
                "total": len(payload.rows),
                "completed": 0,
                "failed": 0,
                "chunks": len(parts),
                "chunks_done": 0,
                "status": "queued",
                "delivery": delivery_json(payload) or "",  # extensions.md 12: what _write_zip makes
            }
            pipe.hset(_key(job_id), mapping=state)
            pipe.expire(_key(job_id), KEY_TTL)
            for result in done.values():
                pipe.hsetnx(_key(job_id, "rows"), result.index, result.model_dump_json())
            pipe.execute()
            for chunk, (start, end) in enumerate(parts):
                self._enqueue(job_id, chunk, start, end, attempt=1)
        except RedisError as exc:
            raise BackendUnavailable(f"the batch queue (Redis) is unreachable: {exc}") from None
        with self._guard:
            self._tracked[job_id] = set(done)
            self._payloads[job_id] = payload

    def resume(self, payload: JobPayload, done: dict[int, RowResult]) -> None:
        """After a web restart: follow a job that Redis still has, or submit it again.

        If Redis cannot be reached now, the job waits in this process and is submitted
        as soon as it can be (the poller retries), so no job is left behind.
        """
        try:
            known = bool(self.redis.exists(_key(payload.job_id)))
            if not known:
                self.submit(payload, done)
                return
        except (RedisError, BackendUnavailable) as exc:
            log.warning("batch %s waits for Redis to resume: %s", payload.job_id, exc)
            with self._guard:
                self._waiting[payload.job_id] = (payload, done)
            return
        with self._guard:
            self._tracked[payload.job_id] = set(done)
            self._payloads[payload.job_id] = payload

    def held(self) -> set[str]:
        """The jobs this web process follows (or waits to resubmit): their leases are renewed."""
        with self._guard:
            return set(self._tracked) | set(self._waiting)

    def drop(self, job_ids: set[str]) -> None:
        """Stop following jobs another web process follows now (it reports their rows and end)."""
        with self._guard:
            for job_id in job_ids:
                self._tracked.pop(job_id, None)
                self._payloads.pop(job_id, None)
                self._waiting.pop(job_id, None)

    def _enqueue(self, job_id: str, chunk: int, start: int, end: int, attempt: int) -> None:
        # The chunk's state is written before RQ has the job: written after, it could
        # overwrite the "running" of a worker that was quicker.
        rq_id = f"{job_id}-{chunk}-{attempt}-{secrets.token_hex(4)}"  # unique if a lost job is queued again
        state = {"state": "queued", "attempt": attempt, "start": start, "end": end, "rq": rq_id}
        self.redis.hset(_key(job_id, "chunk", chunk), mapping=state)
        self.redis.expire(_key(job_id, "chunk", chunk), KEY_TTL)
        self.queue.enqueue(
            run_chunk,
            job_id,
            chunk,
            start,
            end,
            self.redis_url,
            str(self.blob_root),
            job_id=rq_id,
            job_timeout=600,
            result_ttl=600,
            failure_ttl=KEY_TTL,
        )

    def _poll_forever(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            with self._guard:
                waiting = list(self._waiting.values())
                self._waiting.clear()
            for payload, done in waiting:
                self.resume(payload, done)
            with self._guard:
                jobs = list(self._tracked)
            for job_id in jobs:
                try:
                    self._poll(job_id)
                except RedisError as exc:
                    log.warning("cannot reach Redis to follow batch %s: %s", job_id, exc)
                except Exception:
                    log.exception("following batch %s failed", job_id)

    def _poll(self, job_id: str) -> None:
        with self._guard:
            reported = self._tracked.get(job_id)
            payload = self._payloads.get(job_id)
        if reported is None or payload is None:
            return  # dropped meanwhile: another web process follows it now
        # The state first: a ZIP is only written after every row's result, so rows read
        # after seeing zip_key are complete, whatever a worker does in between.
        state = {k.decode(): v.decode() for k, v in self.redis.hgetall(_key(job_id)).items()}
        if not state:
            # Redis lost the job (restarted without persistence): queue it again. Rows
            # already recorded by the server are not counted twice.
            log.warning("batch %s is no longer in Redis; queueing it again", job_id)
            self.submit(payload, {})
            return
        if state.get("started") and job_id not in self._started:
            self._started.add(job_id)
            self.listener.job_started(job_id)
        fresh = [
            RowResult.model_validate_json(raw)
            for index, raw in self.redis.hgetall(_key(job_id, "rows")).items()
            if int(index) not in reported
        ]
        self.listener.rows_done(job_id, fresh)
        reported.update(r.index for r in fresh)
        if state.get("zip_key"):
            self.listener.job_done(job_id, state["zip_key"], float(state.get("finished") or time.time()))
            # The rows are rendered: the payload (a sealed certificate, document passwords) goes.
            self.redis.delete(_key(job_id, "payload"))
            with self._guard:
                self._tracked.pop(job_id, None)
                self._payloads.pop(job_id, None)
            self._started.discard(job_id)
            self._all_done_since.pop(job_id, None)
            self._last_recovery.pop(job_id, None)
            return
        chunk_count = int(state.get("chunks", 0))
        if chunk_count and int(state.get("chunks_done", 0)) >= chunk_count:
            # Every chunk is done but no ZIP yet: its worker may have died writing it.
            since = self._all_done_since.setdefault(job_id, time.monotonic())
            if time.monotonic() - since > LEASE_SECONDS:
                log.warning("batch %s: the ZIP was not written by a worker; writing it here", job_id)
                _write_zip(self.redis, job_id, self.blob_root)
            return
        # Looking for lost chunks costs a few Redis calls per chunk; a lease lasts
        # LEASE_SECONDS, so checking a few times per lease is as prompt as it gets.
        if time.monotonic() - self._last_recovery.get(job_id, 0.0) > LEASE_SECONDS / 4:
            self._last_recovery[job_id] = time.monotonic()
            self._recover_lost_chunks(job_id, chunk_count)

    def _recover_lost_chunks(self, job_id: str, count: int) -> None:
        for chunk in range(count):
            info = {k.decode(): v.decode() for k, v in self.redis.hgetall(_key(job_id, "chunk", chunk)).items()}
            if not info or self.redis.hexists(_key(job_id, "done"), chunk):
                continue
            if self.redis.exists(_key(job_id, "lease", chunk)) or not self._lost(info):
                continue
            start, end, attempt = int(info["start"]), int(info["end"]), int(info["attempt"])
            if attempt < MAX_ATTEMPTS:
                log.warning("batch %s chunk %d lost its worker; running it again", job_id, chunk)
                self._enqueue(job_id, chunk, start, end, attempt + 1)
                continue
            log.error("batch %s chunk %d lost its worker %d times; failing its rows", job_id, chunk, attempt)
            for index in range(start, end):
                _record(
                    self.redis,
                    job_id,
                    RowResult(index=index, ok=False, error="the worker rendering this row stopped unexpectedly, twice"),
                )
            _finish_chunk(self.redis, job_id, chunk, self.blob_root)

    def _lost(self, info: dict[str, str]) -> bool:
        """A chunk with no lease is lost once RQ no longer has it waiting and its worker
        had a full lease period to take one (it may have died before, or while, working)."""
        from rq.exceptions import NoSuchJobError
        from rq.job import Job

        if info.get("state") == "running":
            return True
        try:
            rq_job = Job.fetch(info["rq"], connection=self.redis)
        except (NoSuchJobError, KeyError):
            return True
        status = rq_job.get_status()
        if status == "queued":
            # A worker takes a job off the queue before it marks it started: killed in
            # between, it leaves the job "queued" in no queue, where no worker will find it.
            if self.queue.get_job_position(rq_job) is not None:
                return False
            return _older_than_a_lease(rq_job.enqueued_at)
        if status in ("deferred", "scheduled"):
            return False
        if status == "started" and rq_job.started_at is not None:
            return _older_than_a_lease(rq_job.started_at)
        return status != "finished"

    def check(self) -> None:
        try:
            self.redis.ping()
        except RedisError as exc:
            raise BackendUnavailable(f"the batch queue (Redis) is unreachable: {exc}") from None

    def close(self) -> None:
        self._stop.set()


def worker_main(redis_url: str, blob_root: str | Path | None, burst: bool = False, secret: bytes | None = None) -> None:
    """`docbench worker`: run batch chunks from the queue until stopped, reading and writing blobs
    at `blob_root` (a directory or s3://bucket/prefix; None: where each job's web process keeps them).
    `secret` is the servers' --secret, which batches that sign or encrypt need."""
    global _worker_blobs, _worker_secret
    _worker_blobs = str(blob_root) if blob_root is not None else None
    _worker_secret = secret
    from rq import Queue, SimpleWorker

    import engine

    engine.fonts.install_defaults()  # register the base face before the first job, not during it
    tune_for_rendering()
    redis = Redis.from_url(redis_url)
    # SimpleWorker runs jobs in this process (no fork per job), so fonts, images and
    # QR matrices stay cached from one chunk to the next.
    worker = SimpleWorker([Queue(QUEUE, connection=redis)], connection=redis)
    log.info("docbench worker on %s, blobs in %s", without_password(redis_url), blob_root)
    worker.work(burst=burst, with_scheduler=False)
