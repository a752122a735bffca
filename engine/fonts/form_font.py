"""The font a fillable form's text fields are typed in (extensions.md 13).

A viewer that lets a reader type into a field draws the typed text itself, with the font the
form's /DA names from the AcroForm's /DR. That font must hold every character a reader may
type, so it cannot be the subset of the glyphs the document drew: it is the catalog face cut
down to the Windows-1252 repertoire (Latin, the one every viewer can encode into a simple
font and draw again after an edit), embedded as a simple TrueType font with WinAnsiEncoding.
PDF/A accepts it: it is embedded, its widths are the font program's, its cmap is (3,1).

fontTools does the cutting: the subset keeps the glyphs of those characters, the cmap and
the metrics, and drops layout tables and hinting a simple font never reads.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

FIRST_CODE = 32
LAST_CODE = 255
# The codes 32..255 as Windows-1252 reads them; the five it leaves undefined are unused.
_CHARACTERS = {
    code: bytes([code]).decode("cp1252")
    for code in range(FIRST_CODE, LAST_CODE + 1)
    if code not in (129, 141, 143, 144, 157)
}


@dataclass(frozen=True)
class FormFont:
    """A catalog face as a form's simple font: what the PDF's font objects need."""

    program: bytes  # the TrueType file, cut to Windows-1252
    base_font: str  # the PostScript name with its subset tag, "ABCDEF+Inter-Regular"
    widths: tuple[float, ...]  # per code FIRST_CODE..LAST_CODE, in thousandths of the size
    ascent: float  # thousandths of the size
    descent: float  # negative
    cap_height: float
    bbox: tuple[float, float, float, float]
    italic_angle: float
    flags: int  # /Flags: nonsymbolic (32), italic (64)

    def width(self, text: str, size: float) -> float:
        """The width of `text` (encodable, see encode) at `size` points."""
        widths = self.widths
        return sum(widths[code - FIRST_CODE] for code in encode(text)) * size / 1000

    def resource_name(self) -> str:
        """The name the form's /DR and every /DA call it, the same in every document."""
        return "DbF" + hashlib.sha1(self.base_font.encode()).hexdigest()[:8]


def unencodable(text: str) -> str:
    """The characters of `text` a form field cannot show ("" when it can show them all)."""
    seen: list[str] = []
    for char in text:
        if char not in _ENCODABLE and char not in seen and char not in "\n\r\t":
            seen.append(char)
    return "".join(seen)


_ENCODABLE = frozenset(_CHARACTERS.values())


# A tab or a line end a field's value may hold (unencodable lets them through) has no glyph
# in the font's codes (32..255): drawn, it would be nothing, and measured, another code's width.
_SPACED = str.maketrans("\t\r\n", "   ")


def encode(text: str) -> bytes:
    """The text in the font's codes (Windows-1252), a tab or a line end as a space; check it
    with `unencodable` first."""
    return text.translate(_SPACED).encode("cp1252")


@lru_cache(maxsize=32)
def form_font(path: Path) -> FormFont:
    """The face at `path` cut for a form (kept per process: a few tens of milliseconds each)."""
    # recalcTimestamp off: the cut keeps the face's own date, so that the same input gives the
    # same bytes (saving would write the clock into head.modified, and so into the subset tag).
    font = TTFont(path, lazy=False, recalcTimestamp=False)
    units = font["head"].unitsPerEm
    scale = 1000 / units
    options = subset.Options()
    options.layout_features = []
    options.hinting = False
    options.notdef_outline = True
    options.name_IDs = ["*"]
    options.drop_tables += ["DSIG", "GSUB", "GPOS", "GDEF", "kern", "STAT", "fvar", "gvar", "avar", "HVAR", "MVAR"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(char) for char in _CHARACTERS.values()])
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    program = out.getvalue()
    cmap = font.getBestCmap() or {}
    metrics = font["hmtx"].metrics
    widths = []
    for code in range(FIRST_CODE, LAST_CODE + 1):
        glyph = cmap.get(ord(_CHARACTERS[code])) if code in _CHARACTERS else None
        widths.append(round(metrics[glyph][0] * scale, 3) if glyph in metrics else 0.0)
    head, hhea = font["head"], font["hhea"]
    os2 = font["OS/2"] if "OS/2" in font else None
    cap = getattr(os2, "sCapHeight", 0) if os2 is not None else 0
    italic_angle = float(font["post"].italicAngle) if "post" in font else 0.0
    name = font["name"].getDebugName(6) or path.stem
    name = "".join(c for c in name if c.isascii() and c.isalnum() or c in "-_") or "Font"
    tag = "".join(chr(ord("A") + b % 26) for b in hashlib.sha1(program).digest()[:6])
    return FormFont(
        program=program,
        base_font=f"{tag}+{name}",
        widths=tuple(widths),
        ascent=round(hhea.ascent * scale, 3),
        descent=round(hhea.descent * scale, 3),
        cap_height=round((cap or hhea.ascent * 0.7) * scale, 3),
        bbox=tuple(round(v * scale, 3) for v in (head.xMin, head.yMin, head.xMax, head.yMax)),  # type: ignore[arg-type]
        italic_angle=italic_angle,
        flags=32 | (64 if italic_angle else 0),
    )


__all__ = ["FIRST_CODE", "LAST_CODE", "FormFont", "encode", "form_font", "unencodable"]
