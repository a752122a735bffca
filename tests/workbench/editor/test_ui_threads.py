"""The UI pool: one browser page's events in the order sent, pages side by side."""

from __future__ import annotations

import asyncio
import threading
import weakref
from types import SimpleNamespace

import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc

from workbench.editor.lanes import PagesInOrder, on_this_threads_loop, page_tasks_write_through_the_loop


@pytest.fixture
def pool():
    pool = PagesInOrder(4)
    yield pool
    pool.shutdown(_shared=False)


def test_one_pages_tasks_run_in_order_even_when_the_first_is_slow(pool):
    page, ran, release = Document(), [], threading.Event()

    def task(doc, n):
        if n == 0:
            release.wait(10)  # the first task is slow; the others must wait for it
        ran.append(n)

    futures = [pool.submit(task, page, n) for n in range(20)]
    assert ran == []
    release.set()
    for future in futures:
        future.result(timeout=10)
    assert ran == list(range(20))


def test_other_pages_and_tasks_without_a_page_are_not_held_up(pool):
    slow_page, release = Document(), threading.Event()
    blocked = pool.submit(lambda doc: release.wait(10), slow_page)
    assert pool.submit(lambda doc: "other page", Document()).result(timeout=10) == "other page"
    assert pool.submit(lambda: "no page").result(timeout=10) == "no page"
    release.set()
    assert blocked.result(timeout=10) is True


def test_a_failing_task_reaches_its_future_and_the_lane_goes_on(pool):
    page = Document()

    def fail(doc):
        raise ValueError("refused")

    failed = pool.submit(fail, page)
    after = pool.submit(lambda doc: "next", page)
    with pytest.raises(ValueError, match="refused"):
        failed.result(timeout=10)
    assert after.result(timeout=10) == "next"


def test_a_shared_shutdown_from_a_borrowing_loop_is_ignored(pool):
    pool.shutdown()  # what asyncio does to its default executor when a loop closes
    assert pool.submit(lambda: 1).result(timeout=10) == 1


def test_a_callback_handed_over_with_panels_execute_joins_its_pages_lane(pool):
    # `pn.state.execute(callback, schedule="thread")` submits a partial that names the page:
    # the editor's poll goes that way, so it queues behind a slow click of its page.
    from functools import partial

    page, ran, release = Document(), [], threading.Event()

    def slow_click(doc):
        release.wait(10)
        ran.append("click")

    def execute_on_thread(doc, callback):  # the shape of Panel's state._execute_on_thread
        callback()

    click = pool.submit(slow_click, page)
    poll = pool.submit(partial(execute_on_thread, page, lambda: ran.append("poll")))
    assert pool.submit(lambda: "no page").result(timeout=10) == "no page"  # outside the page: not held up
    assert ran == []
    release.set()
    click.result(timeout=10)
    poll.result(timeout=10)
    assert ran == ["click", "poll"]


def test_settling_cancels_what_is_queued_waits_for_what_runs_and_keeps_the_pool(pool):
    page, started, release, ran = Document(), threading.Event(), threading.Event(), []

    def running(doc):
        started.set()
        release.wait(10)
        ran.append("running")

    first = pool.submit(running, page)
    queued = [pool.submit(lambda doc, n=n: ran.append(n), page) for n in range(3)]
    assert started.wait(10)
    settled: list[bool] = []
    waiter = threading.Thread(target=lambda: settled.append(pool.settle(10)))
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive() and not settled  # still waiting for the running task
    release.set()
    waiter.join(10)
    assert settled == [True] and first.result(timeout=10) is None
    assert ran == ["running"] and all(future.cancelled() for future in queued)
    assert pool.submit(lambda doc: "after", page).result(timeout=10) == "after"  # the loop may still borrow it


def test_settling_gives_up_after_its_timeout(pool):
    page, release = Document(), threading.Event()
    pool.submit(lambda doc: release.wait(10), page)
    assert pool.settle(0.1) is False
    release.set()


def test_a_pages_task_never_counts_as_holding_the_pages_lock(pool):
    """Panel writes to a page's models at once only on the loop or inside the page's locked
    callback; a page's task is neither, even while the loop holds the page's lock."""
    from panel.io.state import state

    page_tasks_write_through_the_loop()
    page, lock = Document(), threading.Lock()
    context = SessionContext(SimpleNamespace(_lock=lock))  # Bokeh's session lock, as Panel reads it
    page._session_context = weakref.ref(context)
    lock.acquire()  # the loop is handling the page's next message
    try:
        with set_curdoc(page):
            assert state._document_lock_held  # what Panel sees from any other thread
        in_task = pool.submit(lambda doc: _lock_seen(doc), page).result(timeout=10)
        assert in_task is False
    finally:
        lock.release()


class SessionContext:
    def __init__(self, session: SimpleNamespace):
        self.session = session


def _lock_seen(page: Document) -> bool:
    from panel.io.state import state

    with set_curdoc(page):
        return state._document_lock_held


def in_a_thread_of_its_own(work):
    """`work()`'s result, run on a new thread: a kernel's main thread, with no loop running yet
    (the test process's own main thread may have one, left by another test)."""
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # noqa: BLE001 (handed back to the test)
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="kernel")
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive(), "the work did not end"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def test_a_notebook_pages_messages_run_on_the_loop_that_showed_it_in_the_order_they_came():
    """A kernel subshell's thread hands each message to the loop of the thread that showed the
    page, where the poll runs: one at a time, in the order the messages came."""
    handled: list[tuple[int, str]] = []

    async def kernel() -> None:
        handler = on_this_threads_loop(lambda n: handled.append((n, threading.current_thread().name)))
        subshell = threading.Thread(target=lambda: [handler(n) for n in range(50)], name="subshell")
        subshell.start()
        await asyncio.to_thread(subshell.join)
        while len(handled) < 50:
            await asyncio.sleep(0)

    in_a_thread_of_its_own(lambda: asyncio.run(asyncio.wait_for(kernel(), timeout=10)))
    assert handled == [(n, "kernel") for n in range(50)]


def test_outside_a_running_loop_the_handler_is_called_as_it_is():
    def handler(message):
        return message

    assert in_a_thread_of_its_own(lambda: on_this_threads_loop(handler)) is handler
