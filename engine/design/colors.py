"""Colours as designers write them: hex strings and CSS-style linear gradients."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated

from pydantic import AfterValidator
from reportlab.lib.colors import Color as RLColor

from ..elements.editing import COLOR, Widget

_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
_GRADIENT = re.compile(r"^linear-gradient\((?P<body>.*)\)$", re.IGNORECASE | re.DOTALL)
_ANGLE = re.compile(r"^(-?\d+(?:\.\d+)?)deg$")
_STOP = re.compile(r"^(#[0-9a-fA-F]+)(?:\s+(\d+(?:\.\d+)?)%)?$")
_DIRECTIONS = {"to top": 0.0, "to right": 90.0, "to bottom": 180.0, "to left": 270.0}


def check_hex(value: str) -> str:
    if not _HEX.match(value):
        raise ValueError(f"'{value}' is not a hex colour: use #rgb, #rrggbb or #rrggbbaa")
    return value


def check_fill(value: str) -> str:
    """A page/document background: a hex colour or a linear gradient."""
    if _HEX.match(value):
        return value
    parse_gradient(value)
    return value


HexColor = Annotated[str, AfterValidator(check_hex), Widget(COLOR)]
Fill = Annotated[str, AfterValidator(check_fill)]


def is_opaque(value: str) -> bool:
    """A hex colour without an alpha part (#rgb or #rrggbb): painted with no transparency state."""
    return len(value) in (4, 7)


@lru_cache(maxsize=1024)
def to_rl(value: str) -> RLColor:
    """A hex string as a ReportLab colour (alpha from the #rrggbbaa form)."""
    digits = value[1:]
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    r, g, b = (int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4))
    alpha = int(digits[6:8], 16) / 255 if len(digits) == 8 else 1.0
    return RLColor(r, g, b, alpha)


@dataclass(frozen=True)
class LinearGradient:
    angle: float  # CSS degrees: 0 points up, 90 points right
    colors: tuple[str, ...]
    positions: tuple[float, ...]

    def endpoints(self, x: float, y: float, w: float, h: float) -> tuple[float, float, float, float]:
        """Start and end points in PDF space (y up) for a box at (x, y) bottom-left.

        CSS sizes the gradient line so the corners get the first and last colours;
        the same length rule is used here so a preview matches what a browser shows.
        """
        rad = math.radians(self.angle)
        dx, dy = math.sin(rad), math.cos(rad)
        half = (abs(w * dx) + abs(h * dy)) / 2
        cx, cy = x + w / 2, y + h / 2
        return cx - dx * half, cy - dy * half, cx + dx * half, cy + dy * half


@lru_cache(maxsize=256)
def parse_gradient(value: str) -> LinearGradient:
    match = _GRADIENT.match(value.strip())
    hint = "write e.g. 'linear-gradient(90deg, #ff0000, #0000ff 100%)'"
    if not match:
        raise ValueError(f"'{value}' is neither a hex colour nor a linear-gradient(...); {hint}")
    parts = [p.strip() for p in match.group("body").split(",")]
    angle = 180.0
    if parts and (_ANGLE.match(parts[0]) or parts[0].lower() in _DIRECTIONS):
        head = parts.pop(0)
        if head.lower() in _DIRECTIONS:
            angle = _DIRECTIONS[head.lower()]
        else:
            angle = float(_ANGLE.match(head).group(1))  # type: ignore[union-attr]
    colors: list[str] = []
    positions: list[float | None] = []
    for part in parts:
        stop = _STOP.match(part)
        if not stop or not _HEX.match(stop.group(1)):
            raise ValueError(f"gradient stop '{part}' is not '<hex colour> [<percent>%]'; {hint}")
        colors.append(stop.group(1))
        positions.append(float(stop.group(2)) / 100 if stop.group(2) else None)
    if len(colors) < 2:
        raise ValueError(f"a gradient needs at least two colours; {hint}")
    # Stops without a position are spread evenly, as CSS does.
    filled = [p if p is not None else i / (len(colors) - 1) for i, p in enumerate(positions)]
    for earlier, later in zip(filled, filled[1:], strict=False):
        if later < earlier:
            raise ValueError(f"gradient stop positions must not decrease; {hint}")
    return LinearGradient(angle % 360, tuple(colors), tuple(filled))
