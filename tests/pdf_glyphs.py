"""The glyphs a PDF actually shows, read back from its content streams and embedded fonts.

For every text-showing operator (Tj, TJ, ', ") on every page and in every form XObject, the
shown string is split into character codes by the current font (one byte for a simple
TrueType font, two for a Type0 font with Identity-H), and each code is mapped to the glyph
the viewer draws:

- a simple TrueType font: through the embedded subset's own `cmap` (FontFile2, read with
  fontTools; a symbolic (3,0) cmap maps code c at 0xF000 + c, as viewers do);
- a Type0 / CIDFontType2 font: the code is the CID, and the CID is the glyph id through
  `/CIDToGIDMap` (Identity, or the stream's two-byte table).

A code no cmap maps, or one that maps to glyph 0, is drawn as `.notdef` — exactly the box the
issue forbids. This is what a viewer does, so the check is sound for whatever way the engine
chooses to draw (ReportLab's 8-bit subsets today, shaped glyph ids later).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import pikepdf
from fontTools.ttLib import TTFont

TEXT_SHOWING = {"Tj", "TJ", "'", '"'}


@dataclass(frozen=True)
class ShownGlyph:
    font: str  # the font's /BaseFont
    code: int
    glyph_id: int  # 0: .notdef
    glyph_name: str


class _FontReader:
    """Maps a font's codes to glyph ids, from its embedded program."""

    def __init__(self, font: pikepdf.Dictionary) -> None:
        self.name = str(font.get("/BaseFont"))
        self.two_byte = font.get("/Subtype") == "/Type0"
        owner = font.DescendantFonts[0] if self.two_byte else font
        descriptor = owner.get("/FontDescriptor")
        program = descriptor.get("/FontFile2") if descriptor is not None else None
        self.ttf = TTFont(io.BytesIO(program.read_bytes())) if program is not None else None
        self.order = self.ttf.getGlyphOrder() if self.ttf else []
        self.cid_to_gid: bytes | None = None
        if self.two_byte:
            mapping = owner.get("/CIDToGIDMap")
            if isinstance(mapping, pikepdf.Stream):
                self.cid_to_gid = mapping.read_bytes()
        self.cmap: dict[int, str] = {}
        self.symbolic = False
        if self.ttf is not None and not self.two_byte and "cmap" in self.ttf:
            for table in self.ttf["cmap"].tables:
                if table.platformID == 3 and table.platEncID == 0:
                    self.symbolic = True
                    self.cmap = dict(table.cmap)
                    break
            else:
                best = self.ttf.getBestCmap() or {}
                self.cmap = dict(best) or dict(self.ttf["cmap"].tables[0].cmap)

    def glyphs(self, shown: bytes) -> list[ShownGlyph]:
        out = []
        if self.two_byte:
            for i in range(0, len(shown) - 1, 2):
                cid = shown[i] << 8 | shown[i + 1]
                gid = cid
                if self.cid_to_gid is not None:
                    gid = (
                        self.cid_to_gid[2 * cid] << 8 | self.cid_to_gid[2 * cid + 1]
                        if 2 * cid + 1 < len(self.cid_to_gid)
                        else 0
                    )
                out.append(ShownGlyph(self.name, cid, gid, self._name_of(gid)))
            return out
        for code in shown:
            name = self.cmap.get(0xF000 + code if self.symbolic else code) or self.cmap.get(code)
            gid = self.ttf.getGlyphID(name) if name and self.ttf is not None else 0
            out.append(ShownGlyph(self.name, code, gid, name or ".notdef"))
        return out

    def _name_of(self, gid: int) -> str:
        return self.order[gid] if gid < len(self.order) else ".notdef"


def _strings(operator: str, operands: list) -> list[bytes]:
    if operator == "TJ":
        return [bytes(item) for item in operands[0] if isinstance(item, pikepdf.String)]
    return [bytes(operands[-1])]


def shown_glyphs(pdf: bytes) -> list[ShownGlyph]:
    """Every glyph every page shows, in content-stream order."""
    found: list[ShownGlyph] = []
    readers: dict[tuple[int, int], _FontReader] = {}

    def walk(owner: pikepdf.Object, resources: pikepdf.Dictionary) -> None:
        fonts = resources.get("/Font", {})
        current: _FontReader | None = None
        for operands, operator in pikepdf.parse_content_stream(owner):
            op = str(operator)
            if op == "Tf":
                font = fonts[operands[0]]
                key = font.objgen
                if key not in readers:
                    readers[key] = _FontReader(font)
                current = readers[key]
            elif op in TEXT_SHOWING and current is not None:
                for shown in _strings(op, operands):
                    found.extend(current.glyphs(shown))
            elif op == "Do":
                xobject = resources.get("/XObject", {}).get(operands[0])
                if xobject is not None and xobject.get("/Subtype") == "/Form":
                    walk(xobject, xobject.get("/Resources", resources))

    with pikepdf.open(io.BytesIO(pdf)) as document:
        for page in document.pages:
            walk(page.obj, page.obj.get("/Resources", pikepdf.Dictionary()))
    return found


def notdef_glyphs(pdf: bytes) -> list[ShownGlyph]:
    """The shown glyphs a viewer draws as .notdef (empty when every character has a glyph)."""
    return [g for g in shown_glyphs(pdf) if g.glyph_id == 0 or g.glyph_name == ".notdef"]
