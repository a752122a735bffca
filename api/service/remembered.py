"""Rows this process remembers between requests, kept exactly as long as they are true.

Every generate read its design's row and its images' keys, and every `GET /me` its workspace's
webhook secret, though they change far more rarely than they are read. `Remembered` keeps what
a load returned together with the store's `data_version` at the time, and loads again once the
version moved: any write but a posting moves it (api.store), so nothing stale is ever answered.
A store that other processes write too (PostgreSQL) has no version this process could trust:
there every call loads (a round trip on PostgreSQL costs a twentieth of a DuckDB statement).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from ..store import Store


class Remembered[T]:
    """At most `size` values, the least recently used dropped first; with `weight` (a value's
    size, say its text's length), at most `budget` of it in all."""

    def __init__(
        self, store: Store, size: int = 1024, weight: Callable[[T], int] | None = None, budget: int = 64 * 1024 * 1024
    ):
        self.store = store
        self.size = size
        self.weight = weight or (lambda value: 0)
        self.budget = budget
        self._entries: OrderedDict[Hashable, tuple[int, T]] = OrderedDict()
        self._held = 0  # the weight of the values kept
        self._guard = threading.Lock()
        self.loads = 0  # for the tests: what remembering saves shows here

    def get(self, key: Hashable, load: Callable[[], T]) -> T:
        version = self.store.data_version()  # read before the load: a write during it outdates the entry
        if version is not None:
            with self._guard:
                entry = self._entries.get(key)
                if entry is not None and entry[0] == version:
                    self._entries.move_to_end(key)
                    return entry[1]
        value = load()  # an error (a 404) is never remembered
        self.loads += 1
        if version is not None:
            with self._guard:
                replaced = self._entries.pop(key, None)
                self._held += self.weight(value) - (self.weight(replaced[1]) if replaced else 0)
                self._entries[key] = (version, value)
                while len(self._entries) > self.size or (self._held > self.budget and len(self._entries) > 1):
                    _, (_, dropped) = self._entries.popitem(last=False)
                    self._held -= self.weight(dropped)
        return value
