"""What the event loop may do itself: a call answered from memory needs no thread.

Handing a request to a thread and back costs more than answering `GET /me` from what the
process remembers. So the HTTP faces first try such a call on the event loop inside
`without_waiting()`; everything that would wait (a database statement, a Redis round trip, a
render) calls `may_wait` first, which then raises `WouldWait`, and the face runs the call again
on a thread. A call tried this way must change nothing before it first reads: a read-only call,
or one whose writes all come after its reads.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_state = threading.local()


class WouldWait(Exception):
    """The call needs what the event loop must not wait for; run it on a thread instead."""


@contextmanager
def without_waiting() -> Iterator[None]:
    previous = getattr(_state, "forbidden", False)
    _state.forbidden = True
    try:
        yield
    finally:
        _state.forbidden = previous


def may_wait(what: str) -> None:
    """Called before anything that waits on I/O: raises WouldWait inside `without_waiting()`."""
    if getattr(_state, "forbidden", False):
        raise WouldWait(what)
