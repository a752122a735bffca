"""Font embedding done once per process, not once per document.

ReportLab embeds each subset of a TrueType font anew in every document (TTFont.addObjects):
it subsets the font program (pure Python), Flate-compresses it, builds and compresses the
ToUnicode CMap, and formats the /Widths array number by number. With ReportLab's
asciiReadable subsets (rl_config.ttfAsciiReadable: all of ASCII in subset 0, code =
character) a Latin document's subsets are usually the same lists from one document to the
next, so that work is the same too.

`EmbeddedTTFont` keeps the finished bytes of those objects in a process-wide cache, bounded
by size (LRU), keyed by what decides them: the font file, the subset's number and its
codes, the glyph each code draws and — where a code may be one of the private codes
engine.shaping gives glyphs no character maps to — the ToUnicode map, which says what
text each code stands for. A document gets
objects that write the cached bytes, registered under the names and in the order ReportLab
uses, so the file is byte for byte what ReportLab writes (tests/test_font_embedding.py).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

from reportlab import rl_config
from reportlab.pdfbase import pdfdoc, ttfonts
from reportlab.pdfbase.pdfdoc import PDFDocument, PDFName, PDFObject, PDFObjectReference

# Bytes of finished font objects kept across documents: a Latin subset of a text face is
# 20–40 kB; a CJK document's subsets a few hundred kB each.
CACHE_BYTES = 32 * 1024 * 1024


class _Preformatted(PDFObject):
    """A PDF object whose bytes were formatted once: `parts`, with the document's own
    references (`fills`) between them. Referenced only (never inline), as ReportLab's
    fonts, descriptors and streams are."""

    __RefOnly__ = 1

    def __init__(self, parts: tuple[bytes, ...], fills: tuple[bytes | PDFObjectReference, ...] = ()) -> None:
        self.parts = parts
        self.fills = fills

    def format(self, document: PDFDocument) -> bytes:
        if not self.fills:
            return self.parts[0]
        pieces = [self.parts[0]]
        for fill, part in zip(self.fills, self.parts[1:], strict=True):
            pieces.append(fill if isinstance(fill, bytes) else fill.format(document))
            pieces.append(part)
        return b"".join(pieces)


@dataclass(frozen=True)
class EmbeddedSubset:
    """One subset's finished objects. The font dictionary and the descriptor are split
    where the document's own values go: FontDescriptor, the subset's /Name and ToUnicode for
    the font (in that order, their keys' sorted order); FontFile2 for the descriptor."""

    font: tuple[bytes, ...]
    to_unicode: bytes
    font_file: bytes
    descriptor: tuple[bytes, ...]

    @property
    def size(self) -> int:
        return sum(map(len, self.font)) + len(self.to_unicode) + len(self.font_file) + sum(map(len, self.descriptor))


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

    def __len__(self) -> int:
        return len(self._entries)


SUBSETS = _SubsetCache(CACHE_BYTES)


# Markers put where a document's own values go (the subset's /Name, references), to split
# a formatted object around them: PDF name characters, which PDFName leaves as they are.
_HOLES = ("docbench-hole-0", "docbench-hole-1", "docbench-hole-2")


def _split(formatted: bytes, holes: tuple[str, ...]) -> tuple[bytes, ...]:
    parts = [formatted]
    for marker in holes:
        before, after = parts[-1].split(marker.encode())
        parts[-1:] = [before, after]
    return tuple(parts)


class EmbeddedTTFont(ttfonts.TTFont):
    """A TrueType font whose subsets are built once per process and embedded from cache."""

    def _subset_key(self, number: int, base_font_name: str, subset: list[int], compression: int) -> Hashable:
        face = self.face
        glyphs = face.charToGlyph
        codes = tuple(subset)
        return (
            face.filename,
            face.subfontNameX,
            number,
            codes,
            tuple(map(glyphs.get, codes)),
            # A code beyond the BMP may be one of engine.shaping's private codes, which stand
            # for the text of the cluster their glyph was drawn for: the ToUnicode map itself
            # is then part of the key (a Latin subset, the usual one, never pays for it).
            ttfonts.makeToUnicodeCMap(base_font_name, subset) if max(codes) > 0xFFFF else None,
            bool(compression),
            rl_config.pdfMultiLine,
            # engine.shaping replaces ReportLab's ToUnicode builder; the one in force made the bytes.
            ttfonts.makeToUnicodeCMap,
        )

    def _build(self, doc: PDFDocument, base_font_name: str, subset: list[int]) -> EmbeddedSubset:
        """The subset's objects as ReportLab makes them (TTFont.addObjects,
        TTFontFace.addSubsetObjects), formatted with markers for the references."""
        face = self.face
        font = pdfdoc.PDFTrueTypeFont()
        font.Name = _HOLES[1]
        font.BaseFont = base_font_name
        font.FirstChar = 0
        font.LastChar = len(subset) - 1
        font.Widths = pdfdoc.PDFArray(list(map(face.getCharWidth, subset)))
        font.FontDescriptor = _HOLES[0]
        font.ToUnicode = _HOLES[2]

        to_unicode = pdfdoc.PDFStream()
        to_unicode.content = ttfonts.makeToUnicodeCMap(base_font_name, subset)
        font_file = pdfdoc.PDFStream()
        font_file.content = face.makeSubset(subset)
        font_file.dictionary["Length1"] = len(font_file.content)
        if doc.compression:
            to_unicode.filters = [pdfdoc.PDFZCompress]
            font_file.filters = [pdfdoc.PDFZCompress]
        flags = (face.flags & ~ttfonts.FF_NONSYMBOLIC) | ttfonts.FF_SYMBOLIC
        descriptor = pdfdoc.PDFDictionary(
            {
                "Type": "/FontDescriptor",
                "Ascent": face.ascent,
                "CapHeight": face.capHeight,
                "Descent": face.descent,
                "Flags": flags,
                "FontBBox": pdfdoc.PDFArray(face.bbox),
                "FontName": pdfdoc.PDFName(base_font_name),
                "ItalicAngle": face.italicAngle,
                "StemV": face.stemV,
                "FontFile2": _HOLES[0],
                "MissingWidth": face.defaultWidth,
            }
        )
        return EmbeddedSubset(
            # The keys are written sorted: FontDescriptor, Name, ToUnicode. The /Name hole is a
            # name: its slash goes with the hole, the fill brings its own.
            font=_split(pdfdoc.format(font, doc, toplevel=1), (_HOLES[0], "/" + _HOLES[1], _HOLES[2])),
            to_unicode=pdfdoc.format(to_unicode, doc, toplevel=1),
            font_file=pdfdoc.format(font_file, doc, toplevel=1),
            descriptor=_split(pdfdoc.format(descriptor, doc, toplevel=1), _HOLES[:1]),
        )

    def addObjects(self, doc: PDFDocument) -> None:  # noqa: N802 (ReportLab's name)
        """TTFont.addObjects with each subset's bytes from the cache: the same objects, under
        the same names, registered in the same order (so numbered the same)."""
        if type(doc.encrypt) is not pdfdoc.NoEncryption:
            # ReportLab's own encryption encrypts each stream with its object's number.
            super().addObjects(doc)
            return
        try:
            state = self.state[doc]
        except KeyError:
            state = self.state[doc] = ttfonts.TTFont.State(self._asciiReadable)
        state.frozen = 1
        face = self.face
        fonts_dict = doc.idToObject["BasicFonts"].dict
        for number, subset in enumerate(state.subsets):
            internal_name = self.getSubsetInternalName(number, doc)[1:]
            base_font_name = b"".join((ttfonts.SUBSETN(number), b"+", face.name, face.subfontNameX)).decode("pdfdoc")
            key = self._subset_key(number, base_font_name, subset, doc.compression)
            embedded = SUBSETS.get(key)
            if embedded is None:
                embedded = self._build(doc, base_font_name, subset)
                SUBSETS.put(key, embedded)
            to_unicode = _Preformatted((embedded.to_unicode,))
            to_unicode_ref = doc.Reference(to_unicode, "toUnicodeCMap:" + base_font_name)
            font_file = _Preformatted((embedded.font_file,))
            font_file_ref = doc.Reference(font_file, f"fontFile:{face.filename}({base_font_name})")
            descriptor = _Preformatted(embedded.descriptor, (font_file_ref,))
            descriptor_ref = doc.Reference(descriptor, "fontDescriptor:" + base_font_name)
            name = pdfdoc.pdfdocEnc(PDFName(internal_name))
            font = _Preformatted(embedded.font, (descriptor_ref, name, to_unicode_ref))
            font.__Comment__ = f"Font {self.fontName} subset {number}"
            doc.Reference(font, internal_name)
            fonts_dict[internal_name] = font
        del self.state[doc]


__all__ = ["CACHE_BYTES", "SUBSETS", "EmbeddedSubset", "EmbeddedTTFont"]
