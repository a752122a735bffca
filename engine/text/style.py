"""The style a run of text is set in: a frozen value that shaping, line breaking, rich text
and fitting all read, in a module of its own so that none of them has to import another
for its type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .. import fonts

Align = Literal["left", "center", "right", "justify", "start", "end"]
# extensions.md 6: auto takes each paragraph's direction from its first strong character.
Direction = Literal["auto", "ltr", "rtl"]


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

    @property
    def face(self) -> fonts.Face:
        return fonts.face(self.family, self.weight, self.italic)

    @property
    def leading(self) -> float:
        return self.size * self.line_height
