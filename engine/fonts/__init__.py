"""The closed font catalog (spec 2.10): bundled TTFs, weight fallback, glyph fallback.

Fonts are registered with ReportLab lazily, once per process, the first time a face
is asked for; after that a face costs a dictionary lookup.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Annotated, Literal, NamedTuple

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from reportlab import rl_config
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from ..editing import FONT, Widget

FONT_DIR = Path(__file__).parent
DEFAULT_FAMILY = "Inter"
# Wide coverage (Latin, Greek, Cyrillic, symbols): where a family lacks a glyph the
# text falls back to this face, so no PDF ever shows a .notdef box.
FALLBACK_FAMILY = "DejaVu Sans"

FontClass = Literal["sans", "serif", "display", "handwriting"]


class FontEntry(BaseModel):
    """One catalog entry as GET /fonts shows it."""

    model_config = ConfigDict(populate_by_name=True, frozen=True)

    id: str
    font_class: FontClass = Field(alias="class")
    source: Literal["google", "bundled"]
    weights: list[int]
    tags: list[str] = []
    files: dict[str, str] = Field(exclude=True)

    def public(self) -> dict:
        return self.model_dump(by_alias=True)


@cache
def _catalog() -> dict[str, FontEntry]:
    entries = json.loads((FONT_DIR / "catalog.json").read_text())
    return {e["id"]: FontEntry.model_validate(e) for e in entries}


def families() -> list[FontEntry]:
    """Every family in the catalog, in catalog order."""
    return list(_catalog().values())


def check_family(name: str) -> str:
    if name not in _catalog():
        close = difflib.get_close_matches(name, list(_catalog()), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise ValueError(f"unknown fontFamily '{name}'{hint} (GET /fonts lists the families)")
    return name


FontFamily = Annotated[str, AfterValidator(check_family), Widget(FONT)]


def nearest_weight(available: list[int], wanted: int) -> int:
    """CSS-like fallback: the closest weight; ties go lighter below 500, heavier above."""
    return min(available, key=lambda w: (abs(w - wanted), w if wanted < 500 else -w))


@dataclass(frozen=True, eq=False)
class Face:
    """One registered TTF: a family at one weight and slant."""

    name: str  # the ReportLab font name
    family: str
    weight: int
    italic: bool
    ascent: float  # per 1000 units of font size
    descent: float  # negative, per 1000
    glyphs: frozenset[int] = field(repr=False)
    path: Path = field(repr=False, default=Path())  # the TTF (a shaper reads the font's own tables)

    def covers(self, char: str) -> bool:
        return ord(char) in self.glyphs


class FaceFile(NamedTuple):
    """The TTF a face is drawn from, with the weight and slant the asked ones resolve to."""

    path: Path
    weight: int
    italic: bool


def face_file(family: str = DEFAULT_FAMILY, weight: int = 400, italic: bool = False) -> FaceFile:
    """The file of the face `face()` draws with (an editor can set typing in the same face)."""
    entry = _catalog()[check_family(family)]
    resolved = nearest_weight(entry.weights, weight)
    italic_key = f"{resolved}italic"
    use_italic = italic and italic_key in entry.files
    return FaceFile(FONT_DIR / entry.files[italic_key if use_italic else str(resolved)], resolved, use_italic)


def italic_weights(family: str) -> list[int]:
    """The weights at which the family has a true italic face (empty: it has none)."""
    entry = _catalog()[check_family(family)]
    return [int(key.removesuffix("italic")) for key in entry.files if key.endswith("italic")]


@cache
def face(family: str = DEFAULT_FAMILY, weight: int = 400, italic: bool = False) -> Face:
    path, resolved, use_italic = face_file(family, weight, italic)
    name = f"{family.replace(' ', '')}-{resolved}{'i' if use_italic else ''}"
    if name not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(name, str(path)))
    ttf = pdfmetrics.getFont(name)
    return Face(
        name=name,
        family=family,
        weight=resolved,
        italic=use_italic,
        ascent=ttf.face.ascent,
        descent=ttf.face.descent,
        glyphs=frozenset(ttf.face.charToGlyph),
        path=path,
    )


def fallback_face(primary: Face) -> Face:
    return face(FALLBACK_FAMILY, 700 if primary.weight >= 600 else 400, primary.italic)


_NEUTRAL = frozenset(" \u00a0.,;:!?-\u2013\u2014'\"()/")


@lru_cache(maxsize=16384)
def runs(text: str, primary: Face, lang: str = "") -> tuple[tuple[str, Face], ...]:
    """Split text into runs of one face each: the primary, or the fallback where it lacks glyphs.

    `lang` (BCP 47) chooses among fallbacks that cover the same characters (Han in Chinese,
    Japanese or Korean faces)."""
    if all(primary.covers(c) for c in text):
        return ((text, primary),)
    backup = fallback_face(primary)
    out: list[tuple[str, Face]] = []
    for char in text:
        current = out[-1][1] if out else None
        if current is not None and char in _NEUTRAL and current.covers(char):
            chosen = current  # spaces and punctuation stay in the run: fewer font switches
        else:
            chosen = primary if primary.covers(char) or not backup.covers(char) else backup
        if out and out[-1][1] is chosen:
            out[-1] = (out[-1][0] + char, chosen)
        else:
            out.append((char, chosen))
    return tuple(out)


@lru_cache(maxsize=65536)
def string_width(text: str, primary: Face, size: float) -> float:
    return sum(pdfmetrics.stringWidth(run, f.name, size) for run, f in runs(text, primary))


@cache
def install_defaults() -> Face:
    """Point ReportLab's own defaults at a bundled face.

    ReportLab selects Helvetica at every page start and in every graphics drawing
    unless told otherwise; Helvetica is never embedded, and an unembedded font is
    both a portability and a PDF/A problem. Returns the face to pass as a canvas's
    initialFontName.
    """
    base = face(FALLBACK_FAMILY, 400)
    rl_config.canvas_basefontname = base.name
    rl_config.defaultGraphicsFontName = base.name
    # ReportLab reads the graphics default once, at import of the shapes module.
    from reportlab.graphics import shapes

    shapes.STATE_DEFAULTS["fontName"] = base.name
    return base


__all__ = [
    "DEFAULT_FAMILY",
    "FALLBACK_FAMILY",
    "Face",
    "FontEntry",
    "FontFamily",
    "check_family",
    "face",
    "families",
    "install_defaults",
    "italic_weights",
    "runs",
    "string_width",
]
