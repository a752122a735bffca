"""Bundled outline-icon catalog (Tabler Icons, MIT; see LICENSE.txt and README.md here).

The catalog is ``tabler-outline.json`` beside this file: ``{"version": ..., "icons": {id: svg}}``.
It is built by ``scripts/build_icons.py``, which keeps only icons that svglib renders the
same way a browser-grade renderer (cairosvg) does, so every id here draws faithfully as vectors.
"""

from __future__ import annotations

import difflib
import functools
import io
import json
import re
from pathlib import Path
from typing import Any

from reportlab.graphics import renderPDF
from reportlab.graphics.shapes import Drawing, Group

from ...pdf import reportlab_internals

__all__ = ["catalog_version", "draw_icon", "has_icon", "icon_drawing", "icon_ids", "icon_svg"]

_CATALOG_PATH = Path(__file__).with_name("tabler-outline.json")
# Tabler icons all use viewBox="0 0 24 24"; drawings are normalised to these units.
VIEWBOX = 24.0

_catalog: dict[str, Any] | None = None
# The root element's stroke-width attribute only (the first one in the text): Tabler sets
# stroke-width once on <svg> and the paths inherit it.
_STROKE_WIDTH_RE = re.compile(r'(<svg\b[^>]*?\sstroke-width=")[^"]*(")')


def _load() -> dict[str, Any]:
    """Load the JSON once per process (lazily, so importing the package stays cheap)."""
    global _catalog
    if _catalog is None:
        with _CATALOG_PATH.open(encoding="utf-8") as fh:
            _catalog = json.load(fh)
    return _catalog


def _icons() -> dict[str, str]:
    return _load()["icons"]


def catalog_version() -> str:
    """The Tabler Icons release the catalog was built from."""
    return str(_load()["version"])


def icon_ids() -> list[str]:
    """All icon ids, sorted."""
    return sorted(_icons())


def has_icon(icon_id: str) -> bool:
    return icon_id in _icons()


def _raw_svg(icon_id: str) -> str:
    icons = _icons()
    try:
        return icons[icon_id]
    except KeyError:
        close = difflib.get_close_matches(str(icon_id), icons.keys(), n=5)
        hint = f"; did you mean: {', '.join(close)}?" if close else ""
        raise KeyError(f"unknown icon id {icon_id!r}{hint}") from None


def _resolve(svg: str, color: str, stroke_width: float | None) -> str:
    """Substitute currentColor textually and optionally replace the root stroke-width.

    Textual substitution (rather than a color="" attribute on <svg>) gives a self-contained
    SVG that any renderer (svglib, cairosvg, a browser) paints identically.
    """
    out = svg.replace("currentColor", color)
    if stroke_width is not None:
        if stroke_width <= 0:
            raise ValueError(f"stroke_width must be > 0, got {stroke_width!r}")
        out = _STROKE_WIDTH_RE.sub(lambda m: f"{m.group(1)}{stroke_width:g}{m.group(2)}", out, 1)
    return out


def icon_svg(icon_id: str, color: str = "#000000", stroke_width: float | None = None) -> str:
    """The icon's SVG text with currentColor resolved to ``color`` (and stroke-width replaced)."""
    return _resolve(_raw_svg(icon_id), color, stroke_width)


def _svg_to_drawing(svg: str) -> Drawing:
    """Convert resolved SVG text to a Drawing measuring VIEWBOX x VIEWBOX units.

    svglib reads width="24" as CSS pixels and yields an 18x18 pt drawing; we rescale so one
    drawing unit is one viewBox unit, which keeps the fitting arithmetic in draw_icon simple.
    Also used by scripts/build_icons.py so the build checks exactly this code path.
    """
    from svglib.svglib import svg2rlg  # imported lazily: svglib/lxml are slow to import

    src = svg2rlg(io.BytesIO(svg.encode("utf-8")))
    if src is None or not src.width or not src.height:
        raise ValueError("svglib could not convert the SVG")
    body = Group(*src.contents)
    body.scale(VIEWBOX / src.width, VIEWBOX / src.height)
    return Drawing(VIEWBOX, VIEWBOX, body)


@functools.lru_cache(maxsize=512)
def icon_drawing(icon_id: str, color: str = "#000000", stroke_width: float | None = None) -> Drawing:
    """A cached reportlab Drawing of the icon in 24x24 viewBox units. Treat it as read-only."""
    return _svg_to_drawing(icon_svg(icon_id, color, stroke_width))


def draw_icon(
    canvas: Any,
    icon_id: str,
    x: float,
    y: float,
    w: float,
    h: float,
    color: str = "#000000",
    stroke_width: float | None = None,
) -> None:
    """Draw the icon as vectors, fitted (aspect kept, centred) into the box (x, y, w, h) in points."""
    cached = icon_drawing(icon_id, color, stroke_width)  # first, so a bad id always raises
    if w <= 0 or h <= 0:
        return
    scale = min(w / VIEWBOX, h / VIEWBOX)
    # A throwaway wrapper around the shared (cached) contents, so per-call settings never
    # mutate the cached object. renderPDF starts by applying the drawing's initial font state
    # (default: unembedded Helvetica), which would add a font reference to the PDF even though
    # icons contain no text; starting from the canvas's current font makes that a no-op.
    wrapper = Drawing(VIEWBOX, VIEWBOX, *cached.contents)
    wrapper.initialFontName, wrapper.initialFontSize = reportlab_internals.current_font(canvas)
    canvas.saveState()
    try:
        canvas.translate(x + (w - VIEWBOX * scale) / 2, y + (h - VIEWBOX * scale) / 2)
        canvas.scale(scale, scale)
        renderPDF.draw(wrapper, canvas, 0, 0, showBoundary=False)
    finally:
        canvas.restoreState()
