"""The render process pool on its own: a process that dies before it has read a task never
fails that task; the task runs on a fresh process."""

from __future__ import annotations

import fcntl
import os
import signal
import termios
import threading

import pytest

from api.renderers.pool import ProcessPool

from ...conftest import png
from ...server import wait_until


@pytest.fixture
def pool():
    pool = ProcessPool(1)
    yield pool
    pool.close()


def unread_bytes(pool: ProcessPool) -> int:
    """Bytes the pool wrote to its one worker that the worker has not read yet."""
    (worker,) = [*pool._busy, *pool._idle]
    return int.from_bytes(fcntl.ioctl(worker.connection.fileno(), termios.TIOCOUTQ, b"\0" * 4), "little")


def test_a_process_killed_after_the_task_was_sent_but_before_it_read_it_costs_the_task_nothing(pool):
    image = png()
    first = pool.call("process_image", (image, 10_000_000), seconds=60, owner="w")  # the worker is ready
    (pid,) = pool.pids
    os.kill(pid, signal.SIGSTOP)  # alive, so the next task is sent to it, but it cannot read it
    answers: list = []
    caller = threading.Thread(
        target=lambda: answers.append(pool.call("process_image", (image, 10_000_000), seconds=60, owner="w"))
    )
    caller.start()
    try:
        wait_until(lambda: unread_bytes(pool) > 0, timeout=30, what="the task waiting in the stopped worker's pipe")
    finally:
        os.kill(pid, signal.SIGKILL)
    caller.join(timeout=120)
    assert not caller.is_alive()
    assert len(answers) == 1 and type(answers[0]) is type(first)  # served by a fresh process
    assert pid not in pool.pids
