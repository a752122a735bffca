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

from collections.abc import Hashable

from ..memo import SizedLRU
from ..pdf.reportlab_internals import Document, FontSubset, SubsetObjects, TrueTypeFont

# Bytes of finished font objects kept across documents: a Latin subset of a text face is
# 20–40 kB; a CJK document's subsets a few hundred kB each.
CACHE_BYTES = 32 * 1024 * 1024

EmbeddedSubset = SubsetObjects  # one subset's finished objects


# Finished subsets, LRU by bytes, shared by every render in the process.
SUBSETS: SizedLRU[Hashable, EmbeddedSubset] = SizedLRU(CACHE_BYTES, lambda subset: subset.size)


class EmbeddedTTFont(TrueTypeFont):
    """A TrueType font whose subsets are built once per process and embedded from cache."""

    def subset_objects(self, doc: Document, subset: FontSubset) -> SubsetObjects:
        embedded = SUBSETS.get(subset.key)
        if embedded is None:
            embedded = super().subset_objects(doc, subset)
            SUBSETS.put(subset.key, embedded)
        return embedded


__all__ = ["CACHE_BYTES", "SUBSETS", "EmbeddedSubset", "EmbeddedTTFont"]
