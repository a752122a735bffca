"""Each browser page's lane: its callbacks run one at a time, in the order they arrived.

With `pn.config.nthreads`, Panel hands every widget change and browser event to a thread
pool, so a slow callback never stalls the REST API on the same loop. But each lands on
whichever thread is free: a click on "Generate" could run before the text typed just
before it was saved. This pool keeps one lane per Bokeh document (one browser page): a
page's tasks run one at a time in the order they were submitted, while different pages
still run side by side.

A task belongs to the page whose document Panel hands it: as an argument (widget changes,
browser events and messages, `onload`) or inside the `functools.partial` it submits
(`pn.state.execute(callback, schedule="thread")`). A periodic callback names no document
when Panel submits it, so a page's periodic work enters its lane through
`pn.state.execute(..., schedule="thread")` (the editor's poll does). Tasks of no page
(Bokeh's own offloading of its document-locked callbacks, HTTP handlers) run unordered.
docs/editor-state.md explains why the lane lives here, in Panel's pool.

In a notebook there is no pool: a page's lane is the event loop of the kernel thread that
showed it (`on_this_threads_loop`).
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any

from bokeh.document import Document

_running = threading.local()  # .page: set while this thread runs a page's task


def page_of(fn: Any, args: tuple) -> Document | None:
    """The page a task belongs to: the document among its arguments or its partial's, if any."""
    if isinstance(fn, partial):
        args = (*fn.args, *args)
    return next((a for a in args if isinstance(a, Document)), None)


class PagesInOrder(ThreadPoolExecutor):
    def __init__(self, max_workers: int):
        super().__init__(max_workers=max_workers, thread_name_prefix="docbench-ui")
        self._lanes: dict[int, deque[tuple[Future, Any, tuple, dict]]] = {}
        self._guard = threading.Lock()
        self._idle = threading.Condition(self._guard)  # notified when a lane empties

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future:
        page = page_of(fn, args)
        if page is None:
            return super().submit(fn, *args, **kwargs)
        future: Future = Future()
        with self._guard:
            lane = self._lanes.setdefault(id(page), deque())
            lane.append((future, fn, args, kwargs))
            first = len(lane) == 1
        if first:
            super().submit(self._drain, id(page))
        return future

    def _drain(self, key: int) -> None:
        while True:
            with self._guard:
                future, fn, args, kwargs = self._lanes[key][0]
            if future.set_running_or_notify_cancel():
                _running.page = True
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as error:  # handed to whoever waits on the future, as a pool does
                    future.set_exception(error)
                finally:
                    _running.page = False
            with self._guard:
                lane = self._lanes[key]
                lane.popleft()
                if not lane:
                    del self._lanes[key]
                    self._idle.notify_all()
                    return

    def settle(self, timeout: float) -> bool:
        """For a server stopping: cancel the tasks still queued in the pages' lanes and wait (up to
        `timeout` seconds) for the running ones, so none uses the service (its database) after it
        is closed. The pool itself keeps working: the event loop borrows it until it ends.
        True when every lane emptied in time."""
        with self._idle:
            for lane in self._lanes.values():
                for future, *_ in list(lane)[1:]:  # the first of a lane is running, or about to
                    future.cancel()
            return self._idle.wait_for(lambda: not self._lanes, timeout)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False, _shared: bool = True) -> None:
        # Panel's pool outlives event loops that borrow it as their default executor; like
        # Panel's own, this one shuts down only when Panel asks explicitly (_shared=False).
        if not _shared:
            super().shutdown(wait=wait, cancel_futures=cancel_futures)


def in_page_task() -> bool:
    """Whether this thread is running a page's task (off the event loop, without the page's lock)."""
    return getattr(_running, "page", False)


def _never_locked_in_a_page_task(held: property) -> property:
    """Panel's test for "this thread runs inside the page's locked callback" is whether the page's
    session lock is held, by anyone. A page's task runs on a pool thread and never holds it: when
    the event loop held it at that moment (handling the browser's next message), Panel wrote to the
    page's models from the pool thread, racing the loop; Bokeh then raised "_pending_writes should
    be non-None" and the editor's action failed (seen under load: the zoom readout after "+").
    In a page's task the answer is no, so Panel schedules the write on the loop as it should."""

    def document_lock_held(state: Any) -> bool:
        return False if in_page_task() else held.fget(state)

    document_lock_held.patched_for_page_tasks = True  # type: ignore[attr-defined]
    return property(document_lock_held)


def page_tasks_write_through_the_loop() -> None:
    """Teach Panel (≥ 1.8, which has the lock test) that a page's task holds no lock (once)."""
    from panel.io.state import state

    held = getattr(type(state), "_document_lock_held", None)
    if isinstance(held, property) and not getattr(held.fget, "patched_for_page_tasks", False):
        type(state)._document_lock_held = _never_locked_in_a_page_task(held)


def install(threads: int) -> None:
    """Make Panel use `threads` threads with each page's callbacks in its lane (once per process)."""
    import panel as pn
    from panel.io.state import state

    if isinstance(state._thread_pool, PagesInOrder):
        return
    page_tasks_write_through_the_loop()
    if pn.config.nthreads != threads:
        pn.config.nthreads = threads  # Panel's documented switch; its pool is replaced below
    previous = state._thread_pool
    state._thread_pool = PagesInOrder(threads)
    if previous is not None:
        try:
            previous.shutdown(wait=False, _shared=False)  # Panel ≥ 1.8's shared pool
        except TypeError:
            previous.shutdown(wait=False)


def settle(timeout: float = 10.0) -> bool:
    """Let the installed pool's page tasks end (PagesInOrder.settle); True if none was installed."""
    from panel.io.state import state

    pool = state._thread_pool
    return pool.settle(timeout) if isinstance(pool, PagesInOrder) else True


def in_page_lane(callback: Callable[[], None]) -> Callable[[], Coroutine[Any, Any, None]]:
    """A periodic callback's tick that runs `callback` in the current page's lane.

    Panel runs a plain periodic callback with no document, on any free thread, beside the
    page's other callbacks; handed over with `pn.state.execute` it names the page and joins
    its lane (docs/editor-state.md). In a notebook there is no pool: the tick runs the poll on
    the kernel's loop, which is the lane there once the page's messages are handed to it too
    (`on_this_threads_loop`)."""

    async def tick() -> None:
        import panel as pn

        pn.state.execute(callback, schedule="thread" if pn.config.nthreads else False)

    return tick


def on_this_threads_loop(handler: Callable[[Any], None]) -> Callable[[Any], None]:
    """`handler`, called from any thread, run on the event loop of the thread that asks for it,
    one call at a time, in the order of the calls: a notebook page's lane.

    In a notebook Panel runs a page's callbacks where the page's comm messages arrive, and the
    editor's poll on the loop of the kernel thread that showed it (the main one, running the
    cells). Until ipykernel 7 every shell message came to that loop too. With subshells
    (ipykernel 7; JupyterLab 4.6 and Notebook 7 send comm messages to them by default, its
    `commsOverSubshells` setting) a comm's messages are handled on a subshell's own thread, some
    on the main one (logged in one JupyterLab run: the page's first 3 on MainThread, the next 9
    on the subshell's): a click then ran beside the poll and beside the cells, on the same Bokeh
    document, whose holds and pending events are not thread-safe (once, under load, a Bokeh
    message went out in pieces interleaved with another's). Handed to the loop, a message waits
    while a cell runs, as every comm message did before subshells. (The test's more frequent
    failure under load, a selected element's properties never showing, is not this: it was
    seen as often with every message on the loop.)
    Outside a running loop (no kernel) the handler is returned as it is."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return handler

    def on_the_loop(message: Any) -> None:
        # call_soon_threadsafe keeps the calls' order, and runs each in the caller's context:
        # ipykernel's parent message, so a reply goes out as the reply to this message.
        loop.call_soon_threadsafe(handler, message)

    return on_the_loop
