"""Paper formats (spec 4.2) in PDF points (1/72 inch)."""

from __future__ import annotations

from typing import Literal

from reportlab.lib import pagesizes

PaperSize = Literal["A4", "A3", "A5", "Letter", "Legal"]
Orientation = Literal["portrait", "landscape"]

PAPER_SIZES: dict[str, tuple[float, float]] = {
    "A4": pagesizes.A4,
    "A3": pagesizes.A3,
    "A5": pagesizes.A5,
    "Letter": pagesizes.LETTER,
    "Legal": pagesizes.LEGAL,
}

# Custom sheets are taken literally (spec 4.2 rule 2) but must stay within what
# PDF viewers accept: ISO 32000 caps a page at 14,400 units per side.
MIN_PAGE_SIDE = 36.0
MAX_PAGE_SIDE = 14400.0


def oriented(width: float, height: float, orientation: Orientation) -> tuple[float, float]:
    """Swap the sides when needed so the sheet has the requested orientation."""
    short, long_ = sorted((width, height))
    return (long_, short) if orientation == "landscape" else (short, long_)


def paper_dimensions(size: PaperSize, orientation: Orientation = "portrait") -> tuple[float, float]:
    width, height = PAPER_SIZES[size]
    return oriented(width, height, orientation)


def named_size(width: float, height: float, tolerance: float = 0.5) -> tuple[PaperSize, Orientation] | None:
    """The named paper a sheet is, in either orientation, within `tolerance` points (a size
    that went through millimetres or JSON is rarely exact), or None for a custom sheet."""
    for name, (short, long_) in PAPER_SIZES.items():
        for orientation in ("portrait", "landscape"):
            w, h = oriented(short, long_, orientation)  # type: ignore[arg-type]
            if abs(w - width) <= tolerance and abs(h - height) <= tolerance:
                return name, orientation  # type: ignore[return-value]
    return None


def shown_points(value: float) -> str:
    """A length as a person reads it: to a tenth of a point (841.9, 400)."""
    return f"{round(value, 1):g}"
