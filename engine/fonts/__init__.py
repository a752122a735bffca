"""The closed font catalog (spec 2.10): bundled TTFs, weight fallback, glyph fallback.

Fonts are registered with ReportLab lazily, once per process, the first time a face
is asked for; after that a face costs a dictionary lookup. Their subsets are embedded
in a document from a process-wide cache (engine.fonts.embedding).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Annotated, Literal, NamedTuple

from fontTools import unicodedata
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from reportlab import rl_config
from reportlab.pdfbase import pdfmetrics

from ..elements.editing import FONT, Widget
from ..pdf import reportlab_internals
from .embedding import EmbeddedTTFont

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
    # ISO 15924 codes of the scripts the family covers (measured by scripts/fetch_fonts.sh;
    # engine/fonts/README.md says by which rule).
    scripts: list[str] = []
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


@lru_cache(maxsize=4096)
def face(family: str = DEFAULT_FAMILY, weight: int = 400, italic: bool = False) -> Face:
    """The face a family draws with at a weight (the nearest it has) and slant: one object per
    file of the catalog, whatever weight asked for it."""
    _, resolved, use_italic = face_file(family, weight, italic)
    return _face(family, resolved, use_italic)


@cache  # bounded by the catalog: one entry per file of it
def _face(family: str, resolved: int, use_italic: bool) -> Face:
    path = face_file(family, resolved, use_italic).path
    name = f"{family.replace(' ', '')}-{resolved}{'i' if use_italic else ''}"
    if name not in pdfmetrics.getRegisteredFontNames():
        # Its subsets are embedded from a process-wide cache (engine.fonts.embedding).
        pdfmetrics.registerFont(EmbeddedTTFont(name, str(path)))
    ascent, descent = reportlab_internals.vertical_metrics(name)
    return Face(
        name=name,
        family=family,
        weight=resolved,
        italic=use_italic,
        ascent=ascent,
        descent=descent,
        glyphs=frozenset(reportlab_internals.character_map(name)),
        path=path,
    )


# Scripts the design families are made for: a character of one of them that the element's
# family lacks goes straight to DejaVu Sans, as it did before the script families came.
_DESIGN_SCRIPTS = frozenset({"Latn", "Grek", "Cyrl"})
# Unicode's script (fontTools.unicodedata.script) -> the catalog's ISO 15924 code when they
# differ: kana and Hangul are written within Japanese and Korean (the Han-based codes).
_CATALOG_SCRIPT = {"Hira": "Jpan", "Kana": "Jpan", "Hrkt": "Jpan", "Hang": "Kore", "Bopo": "Hans"}
# A language's Han-based code (BCP 47 primary subtag). Traditional Chinese has no family of
# its own in the catalog: Simplified Chinese's covers its characters.
_HAN_BY_LANGUAGE = {"zh": "Hans", "ja": "Jpan", "ko": "Kore"}
_KANA = ("Hira", "Kana")


@lru_cache(maxsize=256)  # per family of the catalog
def scripts_of(family: str) -> tuple[str, ...]:
    """The ISO 15924 codes the family covers (the catalog entry's `scripts`)."""
    return tuple(_catalog()[check_family(family)].scripts)


@lru_cache(maxsize=1024)  # the language is the design's: any BCP 47 tag
def family_for_script(script: str, lang: str = "") -> str:
    """The catalog's family for a script, as fallback: the family listing the script's code
    with the fewest scripts (the one made for it; ties in catalog order). `script` is the
    Unicode script (fontTools.unicodedata.script: Arab, Hani, Hira, Hang…); Han follows the
    language (`lang`, BCP 47: ja → Japanese, ko → Korean, zh or none → Simplified Chinese),
    kana go to the Japanese family and Hangul to the Korean one. Latin, Greek, Cyrillic and
    scripts no family covers give DejaVu Sans."""
    if script == "Hani":
        code = _HAN_BY_LANGUAGE.get(lang.split("-")[0].lower(), "Hans")
    else:
        code = _CATALOG_SCRIPT.get(script, script)
    if code in _DESIGN_SCRIPTS:
        return FALLBACK_FAMILY
    listing = [e for e in families() if code in e.scripts]
    return min(listing, key=lambda e: len(e.scripts)).id if listing else FALLBACK_FAMILY


def _fallback_weight(primary: Face) -> int:
    return 700 if primary.weight >= 600 else 400


def fallback_face(primary: Face) -> Face:
    return face(FALLBACK_FAMILY, _fallback_weight(primary), primary.italic)


@lru_cache(maxsize=8192)
def _char_scripts(char: str) -> tuple[str, tuple[str, ...]]:
    """The character's script and, for a Common or Inherited one, the scripts it is used with."""
    script = unicodedata.script(char)
    if script in ("Zyyy", "Zinh", "Zzzz"):
        # Han first: a CJK punctuation mark belongs with the text's ideographs.
        return script, tuple(sorted(unicodedata.script_extension(char) - {script}, key=lambda s: (s != "Hani", s)))
    return script, ()


def _han_language(text: str, lang: str) -> str:
    """The language that picks a Han family: `lang`, else inferred from the text itself —
    kana mean Japanese, Hangul Korean (so a Japanese sentence keeps one family throughout)."""
    if lang:
        return lang
    found = {unicodedata.script(c) for c in text if ord(c) >= 0x1100}
    if found & set(_KANA):
        return "ja"
    return "ko" if "Hang" in found else ""


def _fallback_for(char: str, primary: Face, lang: str) -> Face:
    """The face for a character the primary lacks: the catalog's family for its script, then
    DejaVu Sans (which covers it, or — nothing covering it — shows the only .notdef left)."""
    script, used_with = _char_scripts(char)
    weight = _fallback_weight(primary)
    for candidate in (script, *used_with):
        # Han: the language's family first, then the other CJK families (each one lacks
        # characters the others have: Korean's has no 你, Japanese's no 们).
        for language in (lang, *_HAN_BY_LANGUAGE) if candidate == "Hani" else (lang,):
            family = family_for_script(candidate, language)
            if family != FALLBACK_FAMILY:
                chosen = face(family, weight, primary.italic)
                if chosen.covers(char):
                    return chosen
    return fallback_face(primary)


# What stays in a DejaVu Sans run (as before the script families came: the same output).
_NEUTRAL = frozenset(" \u00a0.,;:!?-\u2013\u2014'\"()/")


def _stays_in(current: Face, char: str) -> bool:
    """Whether the character continues the current run. In a script family's run, every
    character of no script of its own (spaces, punctuation, digits, combining marks) stays, so
    runs stay long: a shaper sees a whole sentence at once. A DejaVu Sans run keeps spaces and
    punctuation only, as it always has."""
    if not current.covers(char):
        return False
    if current.family == FALLBACK_FAMILY:
        return char in _NEUTRAL
    return _char_scripts(char)[0] in ("Zyyy", "Zinh")


@lru_cache(maxsize=16384)
def runs(text: str, primary: Face, lang: str = "") -> tuple[tuple[str, Face], ...]:
    """Split text into runs of one face each: the primary where it has the glyph, else the
    catalog's family for the character's script (kana → Japanese, Hangul → Korean, Han by
    `lang`, BCP 47, or by the kana/Hangul in the text), else DejaVu Sans. The fallback's weight
    and slant follow the primary's (700 for weights from 600). Characters of no script
    (spaces, punctuation, digits, combining marks) stay in the current run when its face has
    them: an Arabic sentence in an Inter element is one run, spaces included."""
    if primary.glyphs.issuperset(map(ord, text)):  # every character the primary's (covers, at C speed)
        return ((text, primary),)
    han_lang = _han_language(text, lang)
    out: list[tuple[str, Face]] = []
    for char in text:
        current = out[-1][1] if out else None
        if current is not None and _stays_in(current, char):
            chosen = current
        elif primary.covers(char):
            chosen = primary
        else:
            chosen = _fallback_for(char, primary, han_lang)
        if out and out[-1][1] is chosen:
            out[-1] = (out[-1][0] + char, chosen)
        else:
            out.append((char, chosen))
    return tuple(out)


@lru_cache(maxsize=65536)
def string_width(text: str, primary: Face, size: float, lang: str = "") -> float:
    return sum(pdfmetrics.stringWidth(run, f.name, size) for run, f in runs(text, primary, lang))


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
    "family_for_script",
    "install_defaults",
    "italic_weights",
    "runs",
    "scripts_of",
    "string_width",
]
