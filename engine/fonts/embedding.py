"""Font embedding done once per process, not once per document.

ReportLab embeds each subset of a TrueType font anew in every document (TTFont.addObjects):
it subsets the font program (pure Python), Flate-compresses it, builds and compresses the
ToUnicode CMap, and formats the /Widths array number by number. With ReportLab's
asciiReadable subsets (rl_config.ttfAsciiReadable: all of ASCII in subset 0, code =
character) a Latin document's subsets are usually the same lists from one document to the
next, so that work is the same too.

`EmbeddedTTFont` keeps the finished bytes of those objects (engine.pdf.reportlab_internals makes
them, as ReportLab does) in a process-wide cache, bounded by size (LRU), keyed by what decides
them (FontSubset.key): the font file, the subset's number and its codes, the glyph each code
draws and — for the private codes engine.text.shaping draws glyphs no character maps to — what each
stands for in the document, which its ToUnicode map says. A document gets objects that write
the cached bytes, registered under the names and in the order ReportLab uses, so the file is
byte for byte what ReportLab writes for the same subsets (tests/engine/fonts/test_font_embedding.py).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable

from ..pdf.reportlab_internals import Document, FontSubset, SubsetObjects, TrueTypeFont

# Bytes of finished font objects kept across documents: a Latin subset of a text face is
# 20–40 kB; a CJK document's subsets a few hundred kB each.
CACHE_BYTES = 32 * 1024 * 1024

EmbeddedSubset = SubsetObjects  # one subset's finished objects


class _SubsetCache:
    """LRU by bytes, shared by every render in the process (renders may run on threads)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.size = 0
        self._entries: OrderedDict[Hashable, EmbeddedSubset] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> EmbeddedSubset | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self.misses += 1
                return None
            self.hits += 1
            self._entries.move_to_end(key)
            return entry

    def put(self, key: Hashable, entry: EmbeddedSubset) -> None:
        if entry.size > self.capacity:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.size -= old.size
            self._entries[key] = entry
            self.size += entry.size
            while self.size > self.capacity:
                _, evicted = self._entries.popitem(last=False)
                self.size -= evicted.size

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


SUBSETS = _SubsetCache(CACHE_BYTES)


class EmbeddedTTFont(TrueTypeFont):
    """A TrueType font whose subsets are built once per process and embedded from cache."""

    def subset_objects(self, doc: Document, subset: FontSubset) -> SubsetObjects:
        embedded = SUBSETS.get(subset.key)
        if embedded is None:
            embedded = super().subset_objects(doc, subset)
            SUBSETS.put(subset.key, embedded)
        return embedded


__all__ = ["CACHE_BYTES", "SUBSETS", "EmbeddedSubset", "EmbeddedTTFont"]
