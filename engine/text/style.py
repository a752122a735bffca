"""The style a run of text is set in: a frozen value that shaping, line breaking, rich text
and fitting all read, in a module of its own so that none of them has to import another
for its type."""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cached_property
from typing import Literal

from .. import fonts

Align = Literal["left", "center", "right", "justify", "start", "end"]
# extensions.md 6: auto takes each paragraph's direction from its first strong character.
Direction = Literal["auto", "ltr", "rtl"]
# extensions.md 17
Hyphens = Literal["manual", "auto", "none"]
NumericVariant = Literal["normal", "tabular-nums", "oldstyle-nums", "lining-nums", "slashed-zero"]
Ligatures = Literal["normal", "none"]
# The OpenType feature each numeric variant turns on (CSS font-variant-numeric).
NUMERIC_FEATURES = {"tabular-nums": "tnum", "oldstyle-nums": "onum", "lining-nums": "lnum", "slashed-zero": "zero"}


@dataclass(frozen=True)
class TextStyle:
    family: str = fonts.DEFAULT_FAMILY
    weight: int = 400
    italic: bool = False
    size: float = 12.0
    line_height: float = 1.2  # a multiple of the font size
    color: str = "#000000"
    align: Align = "left"
    underline: bool = False
    # extensions.md 3; their defaults leave the plain path's work unchanged.
    strikethrough: bool = False
    letter_spacing: float = 0.0  # points added after every character (PDF Tc)
    link_color: str = "#1a56db"
    # extensions.md 6
    direction: Direction = "auto"
    lang: str = ""  # BCP 47 tag of the content ("": the design's language); shaping and /Lang
    # extensions.md 17
    hyphens: Hyphens | None = None  # None: auto for justified text, else manual
    numeric: NumericVariant = "normal"
    ligatures: Ligatures = "normal"

    @cached_property
    def face(self) -> fonts.Face:
        return fonts.face(self.family, self.weight, self.italic)

    @property
    def leading(self) -> float:
        return self.size * self.line_height

    def __hash__(self) -> int:
        return self._hash

    def __getstate__(self) -> dict:
        # Its fields only: what the cached properties keep is this process's (a str's hash).
        return {field.name: getattr(self, field.name) for field in fields(self)}

    @cached_property
    def _hash(self) -> int:
        # A style keys the text caches, each asked several times a line: its fields are hashed
        # once (a frozen dataclass's own __hash__ makes a tuple of all of them at every call).
        return hash(tuple(getattr(self, field.name) for field in fields(self)))

    @property
    def hyphenation(self) -> Hyphens:
        """Where words may break: at soft hyphens only (manual), also by the language's
        patterns (auto), or nowhere (none)."""
        if self.hyphens is not None:
            return self.hyphens
        return "auto" if self.align == "justify" else "manual"

    @cached_property
    def features(self) -> tuple[tuple[str, bool], ...]:
        """The OpenType features set apart from the font's defaults, for HarfBuzz. Letter
        spacing turns the optional ligatures off, as CSS does: spaced letters stay letters."""
        found: list[tuple[str, bool]] = []
        if self.ligatures == "none" or self.letter_spacing:
            found += [("liga", False), ("clig", False)]
        if self.numeric != "normal":
            found.append((NUMERIC_FEATURES[self.numeric], True))
        return tuple(found)
