"""A pool of worker processes whose tasks can be bounded and killed.

`concurrent.futures.ProcessPoolExecutor` cannot stop a task that runs too long: killing
one of its processes breaks the whole pool and fails every other task in it. Here each
worker is its own child process with its own pipe, so a task past its deadline, or one
nobody waits for any more, is ended by killing just its worker; a fresh one takes its
place while the others carry on.

Workers are started as `python -m api.renderers.worker` rather than forked or spawned
through multiprocessing: nothing of the parent (a DuckDB connection, an event loop, an
analyst's unguarded script as `__main__`) is inherited or re-run. Limits on a worker:
its address space (RLIMIT_AS, set once at start) and, per task, its CPU time
(RLIMIT_CPU raised to the time used so far plus the task's budget: SIGXCPU ends it).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, Pipe
from pathlib import Path
from typing import Any

log = logging.getLogger("docbench.renderers")

ATTEMPTS = 2  # a task whose process died before it had the task runs once more on a fresh one
STARTUP_SECONDS = 60.0  # a new worker that has not imported everything by then is replaced
# How often a waiting caller looks at its cancellation; the pipe wakes it at once for results.
POLL_SECONDS = 0.1
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


class Cancellation:
    """Set when nobody waits for a result any more (the client went away, the tab closed)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._callbacks: list = []
        self._guard = threading.Lock()

    def cancel(self) -> None:
        with self._guard:
            if self._event.is_set():
                return
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_cancel(self, callback) -> None:  # noqa: ANN001
        """Run `callback` when cancelled (at once if it already is)."""
        with self._guard:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


class TaskRefused(Exception):
    """The task's input was refused by the worker (an EngineError, an image refused): a 400."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class TaskLimitExceeded(Exception):
    """The task ran past its wall-clock deadline, CPU time or memory and its worker was killed."""

    def __init__(self, limit: str):
        super().__init__(limit)
        self.limit = limit  # "time", "cpu" or "memory"


class TaskCancelled(Exception):
    """Nobody waited for the result any more; the task was dropped or its worker killed."""


class TaskUnavailable(Exception):
    """The worker cannot do the task now (its disk is full): a 503 with the worker's message."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class TaskFailed(Exception):
    """A bug or a crash in the worker (logged there); not the caller's fault."""


class TaskProcessDied(TaskFailed):
    """The worker died while it had the task (killed from outside: the OOM killer, an
    operator), for no limit of ours. Not retried: the task itself may be what kills it."""


class _WorkerLost(TaskFailed):
    """The worker process ended without answering, for no limit of ours."""


class PoolClosed(TaskFailed):
    """The pool is shutting down (the server is stopping)."""


@dataclass(eq=False)
class _Worker:
    process: subprocess.Popen
    connection: Connection
    ready: bool = False  # its "ready" (imports done) was read

    def kill(self) -> None:
        try:
            self.process.kill()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a SIGKILLed process always ends
            log.error("render worker %d did not end after SIGKILL", self.process.pid)
        self.connection.close()

    def exit_reason(self) -> str:
        """What ended a worker that stopped answering: the limit it hit, as TaskLimitExceeded names it."""
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            return "crash"
        if code == -signal.SIGXCPU:
            return "cpu"
        if code == MEMORY_EXIT:
            return "memory"
        return "crash"


@dataclass(eq=False)
class _Ticket:
    owner: str
    worker: _Worker | None = None
    ready: threading.Event = field(default_factory=threading.Event)


STARTED = "started"  # a worker's first word on a task: it has read it
MEMORY_EXIT = 75  # a worker that ran out of memory exits with this, after answering


class ProcessPool:
    """`size` worker processes; `call()` runs one task on an idle one, bounded and cancellable."""

    def __init__(self, size: int, memory_bytes: int | None = None, name: str = "render"):
        self.size = max(1, size)
        self.memory_bytes = memory_bytes
        self.name = name
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._waiting: dict[str, deque[_Ticket]] = {}  # owner -> its callers, in arrival order
        self._guard = threading.Lock()
        self._closed = False
        self._started = False

    # -- life cycle -------------------------------------------------------------------

    def start(self) -> None:
        """Start every worker now (they import in the background; a task sent meanwhile waits)."""
        with self._guard:
            if self._started or self._closed:
                return
            self._started = True
        for _ in range(self.size):
            self._hand_over(self._spawn())

    def _spawn(self) -> _Worker:
        ours, theirs = Pipe(duplex=True)
        env = dict(os.environ)
        # The worker imports this package from where the parent did (a checkout, a venv, a notebook's cwd).
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
        command = [sys.executable, "-m", "api.renderers.worker", str(theirs.fileno()), str(os.getpid())]
        if self.memory_bytes:
            command.append(str(self.memory_bytes))
        process = subprocess.Popen(command, pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL)
        theirs.close()
        return _Worker(process, ours)

    def close(self) -> None:
        """Kill every worker now: a stopping server does not wait for renders (jobs resume on restart)."""
        with self._guard:
            self._closed = True
            busy, idle = list(self._busy), list(self._idle)
            self._idle.clear()
        for worker in idle:
            worker.kill()
        for worker in busy:  # their callers see the pool closed and release (close) them
            worker.process.kill()

    # -- running tasks ----------------------------------------------------------------

    def call(
        self,
        task: str,
        args: tuple,
        *,
        seconds: float,
        owner: str = "",
        cancel: Cancellation | None = None,
    ) -> Any:
        """Run `task` (a name in api.renderers.worker.TASKS) with `args` on a worker.

        Waits for an idle worker (its owner's turn; as long as it takes, unless cancelled)
        and for it to be ready, then at most `seconds` of wall-clock time and about as much
        CPU time for the answer.
        """
        self.start()
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return self._run(task, args, seconds, owner, cancel)
            except _WorkerLost:
                # It died before it had the task (killed from outside while idle, or failed to
                # start): the task runs on a fresh process. One that dies *during* a task is not
                # retried: the task itself may be what kills it.
                if attempt == ATTEMPTS:
                    raise TaskFailed(f"the {self.name} process stopped unexpectedly, twice") from None
        raise AssertionError("unreachable")

    def _run(self, task: str, args: tuple, seconds: float, owner: str, cancel: Cancellation | None) -> Any:
        worker = self._acquire(owner, cancel)
        reusable = False
        try:
            if worker.process.poll() is not None:  # it died while idle (the OOM killer, an operator)
                raise _WorkerLost()
            if cancel is not None and cancel.cancelled:
                reusable = True
                raise TaskCancelled()
            try:
                self._await_ready(worker, cancel)
            except TaskCancelled:
                reusable = True  # it was only starting: it stays for the next task
                raise
            try:
                worker.connection.send((task, args, seconds))
            except OSError:
                raise _WorkerLost() from None
            deadline = time.monotonic() + seconds
            # The worker says "started" as soon as it has read the task: a process found dead
            # before that never had it (killed while idle, however late its parent saw it die),
            # and the task goes to a fresh one.
            started = False
            while True:
                while not self._answered(worker):
                    if cancel is not None and cancel.cancelled:
                        raise TaskCancelled()
                    if time.monotonic() > deadline:
                        raise TaskLimitExceeded("time")
                try:
                    status, value = worker.connection.recv()
                except (EOFError, OSError):
                    if not started:
                        raise _WorkerLost() from None
                    reason = worker.exit_reason()
                    if reason in ("cpu", "memory"):
                        raise TaskLimitExceeded(reason) from None
                    log.warning("%s process %d died during a %s task", self.name, worker.process.pid, task)
                    raise TaskProcessDied(f"the {self.name} process stopped while rendering") from None
                if status != STARTED:
                    break
                started = True
            if status == "ok":
                reusable = True
                return value
            if status == "refused":
                reusable = True
                raise TaskRefused(value)
            if status == "memory":
                raise TaskLimitExceeded("memory")
            if status == "unavailable":
                reusable = True
                raise TaskUnavailable(value)
            reusable = True
            raise TaskFailed(value)
        finally:
            self._release(worker, reusable)

    def _answered(self, worker: _Worker) -> bool:
        """True once the worker has written (or closed) its end; False after a short wait."""
        if self._closed:
            raise PoolClosed("the server is stopping")
        try:
            return worker.connection.poll(POLL_SECONDS)
        except OSError:  # the pool closed it meanwhile
            raise PoolClosed("the server is stopping") from None

    def _await_ready(self, worker: _Worker, cancel: Cancellation | None) -> None:
        """A new worker says "ready" once it has imported everything: a task's deadline starts
        after that, so a cold process (just replaced after a kill) costs no task its time."""
        if worker.ready:
            return
        deadline = time.monotonic() + STARTUP_SECONDS
        while not self._answered(worker):
            if worker.process.poll() is not None:
                raise _WorkerLost()
            if cancel is not None and cancel.cancelled:
                raise TaskCancelled()
            if time.monotonic() > deadline:
                raise _WorkerLost()
        try:
            worker.connection.recv()
        except (EOFError, OSError):
            raise _WorkerLost() from None
        worker.ready = True

    def _acquire(self, owner: str, cancel: Cancellation | None) -> _Worker:
        """An idle worker; while none is, callers queue per owner and are served in turn,
        so one workspace's many queued renders delay another's by one render, not all."""
        ticket = _Ticket(owner)
        with self._guard:
            if self._closed:
                raise PoolClosed("the server is stopping")
            if self._idle and not self._waiting:
                worker = self._idle.pop()
                self._busy.add(worker)
                return worker
            self._waiting.setdefault(owner, deque()).append(ticket)
        while not ticket.ready.wait(POLL_SECONDS):
            if (cancel is not None and cancel.cancelled) or self._closed:
                with self._guard:
                    if ticket.worker is None:
                        self._forget(ticket)
                        raise PoolClosed("the server is stopping") if self._closed else TaskCancelled()
                break  # a worker was handed over meanwhile: use it (the caller checks cancel again)
        assert ticket.worker is not None
        return ticket.worker

    def _forget(self, ticket: _Ticket) -> None:
        tickets = self._waiting.get(ticket.owner)
        if tickets is not None:
            tickets.remove(ticket)
            if not tickets:
                del self._waiting[ticket.owner]

    def _hand_over(self, worker: _Worker) -> None:
        """Give a free worker to the owner whose turn it is, or put it with the idle ones."""
        with self._guard:
            if not self._closed:
                if not self._waiting:
                    self._busy.discard(worker)
                    self._idle.append(worker)
                    return
                owner = next(iter(self._waiting))
                tickets = self._waiting.pop(owner)
                ticket = tickets.popleft()
                if tickets:
                    self._waiting[owner] = tickets  # to the back of the line: the next owner goes first
                self._busy.add(worker)
                ticket.worker = worker
                ticket.ready.set()
                return
        worker.kill()  # the pool closed meanwhile

    def _release(self, worker: _Worker, reusable: bool) -> None:
        with self._guard:
            self._busy.discard(worker)
            closed = self._closed
        if reusable and not closed and worker.process.poll() is None:
            self._hand_over(worker)
            return
        worker.kill()
        if not closed:
            # A killed worker (deadline, cancellation, crash) is replaced at once; its successor
            # imports in the background while the other workers go on.
            self._hand_over(self._spawn())

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids (for tests and diagnostics)."""
        with self._guard:
            return [w.process.pid for w in [*self._busy, *self._idle]]


__all__ = [
    "Cancellation",
    "PoolClosed",
    "ProcessPool",
    "TaskCancelled",
    "TaskFailed",
    "TaskLimitExceeded",
    "TaskProcessDied",
    "TaskRefused",
    "TaskUnavailable",
]
