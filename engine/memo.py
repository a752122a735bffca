"""A cache for functions of text, bounded by the characters it holds (issue 31, item 3).

functools.lru_cache bounds entries, not their size: 4,096 entries of 100,000-character
texts (and what was derived from them) are gigabytes. `text_cache` keeps the most recently
used results up to a number of characters of their arguments, which is what their results
grow with. A stored design is validated on every request that reads it: the parse of its
texts is what this keeps, so a text is parsed once, not on every request, while the
process's memory stays bounded however many texts its workspaces hold.

Thread-safe: requests run on threads. As with lru_cache, two threads asking for the same
new text at once may both compute it; the result is the same.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import update_wrapper
from typing import Any, NamedTuple


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    characters: int  # held now
    max_characters: int


def weight(value: Any) -> int:
    """The characters an argument holds: strings by length, tuples (of strings, of spans
    with a `text`) summed; anything else counts 1."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, tuple):
        return sum(weight(item) for item in value) + 1
    text = getattr(value, "text", None) if dataclasses.is_dataclass(value) else None
    return len(text) if isinstance(text, str) else 1


def digest(text: str) -> bytes:
    """A 128-bit BLAKE2b digest of the text: a key that holds 16 bytes, not the text."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class TextCache[R]:
    """See text_cache."""

    def __init__(
        self,
        function: Callable[..., R],
        max_characters: int,
        key: Callable[[tuple], Hashable] | None = None,
        size: Callable[[tuple, R], int] | None = None,
    ):
        self.__wrapped__ = function
        self.max_characters = max_characters
        self._key = key or (lambda args: args)
        self._size = size or (lambda args, result: weight(args))
        self._entries: OrderedDict[Hashable, tuple[R, int]] = OrderedDict()
        self._characters = 0
        self._hits = self._misses = 0
        self._lock = threading.Lock()
        update_wrapper(self, function)

    def __call__(self, *args: Any) -> R:
        key = self._key(args)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self._hits += 1
                return found[0]
            self._misses += 1
        result = self.__wrapped__(*args)
        size = self._size(args, result)
        if size > self.max_characters:
            return result  # larger than the whole cache: kept by nobody
        with self._lock:
            if key not in self._entries:
                self._entries[key] = (result, size)
                self._characters += size
                while self._characters > self.max_characters:
                    _, (_, dropped) = self._entries.popitem(last=False)
                    self._characters -= dropped
        return result

    def cache_info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self._hits, self._misses, self._characters, self.max_characters)

    def cache_clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._characters = 0
            self._hits = self._misses = 0


def text_cache[R](
    max_characters: int,
    key: Callable[[tuple], Hashable] | None = None,
    size: Callable[[tuple, R], int] | None = None,
) -> Callable[[Callable[..., R]], TextCache[R]]:
    """Decorator: results kept by their (hashable, positional) arguments, least recently used
    dropped first once the entries kept weigh more than `max_characters` characters. An
    entry weighs its arguments' characters (weight), or `size(args, result)`; `key(args)`
    replaces the arguments as the key (a digest of a long text: only a small result is kept)."""

    def decorate(function: Callable[..., R]) -> TextCache[R]:
        return TextCache(function, max_characters, key, size)

    return decorate


__all__ = ["CacheInfo", "TextCache", "digest", "text_cache", "weight"]


class SizedLRU[K: Hashable, V]:
    """An LRU bounded by the total size of its values (`size_of` each: bytes, say), shared by
    the renders of a process under a lock (renders may run on threads). A value larger than all
    it may hold is not kept."""

    def __init__(self, capacity: int, size_of: Callable[[V], int]) -> None:
        self.capacity = capacity
        self.size = 0
        self._size_of = size_of
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: K) -> V | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self.misses += 1
                return None
            self.hits += 1
            self._entries.move_to_end(key)
            return entry

    def put(self, key: K, entry: V) -> None:
        size = self._size_of(entry)
        if size > self.capacity:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.size -= self._size_of(old)
            self._entries[key] = entry
            self.size += size
            while self.size > self.capacity:
                _, evicted = self._entries.popitem(last=False)
                self.size -= self._size_of(evicted)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.size = 0
            self.hits = self.misses = 0

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"entries": len(self._entries), "bytes": self.size, "hits": self.hits, "misses": self.misses}

    def __len__(self) -> int:
        return len(self._entries)
