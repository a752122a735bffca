"""SVG rasterisation that touches nothing outside the SVG, at a bounded size.

The XML is parsed with entity expansion and external references forbidden; cairosvg
is given a url_fetcher that only lets raster images embedded as data: URIs through;
the output size is computed here (the SVG's own size, scaled, capped), so the
surface allocated is never what a hostile file claims; and the work cairosvg would
do is counted from the parsed tree before anything is drawn (engine.media.svg_work), so a
few kilobytes of nested `<use>` references, markers or patterns that expand to hours
of drawing are refused in milliseconds.
"""

from __future__ import annotations

import math
import re

from .image_bytes import RASTER_TYPES, ImageError, check_raster_size, decode_data_uri, sniff
from .svg_work import check_svg_work

SVG_SCALE = 2.0  # rasterised at twice their own size, for print ...
SVG_MAX_SIDE = 4096  # ... but never larger than this on a side


def rasterize_svg(data: bytes, scale: float = SVG_SCALE, max_side: int = SVG_MAX_SIDE) -> bytes:
    """PNG bytes of an SVG; ImageError with a message for people when it cannot be drawn."""
    root = _parse_svg(data)
    width, height = _svg_size(root)
    check_svg_work(root)
    factor = min(scale, max_side / max(width, height))
    out_w = max(1, min(max_side, round(width * factor)))
    out_h = max(1, min(max_side, round(height * factor)))
    return _rasterize(data, out_w, out_h)


_ENTITIES = "SVG with DOCTYPE/ENTITY declarations is not accepted: remove the <!DOCTYPE …> block and its entities"
_EXTERNAL = (
    "SVG refers to an external file or URL (an image, stylesheet or fragment), which is not allowed: "
    "embed images as data: URIs or convert the SVG to PNG"
)
_LENGTH = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(px|pt|pc|mm|cm|in|em|ex|ch|%)?\s*$")
# CSS pixels per unit, as cairosvg resolves them at 96 dpi with a 12pt (16 px) font size.
_PX_PER_UNIT = {None: 1.0, "px": 1.0, "pt": 96 / 72, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}
_PX_PER_UNIT |= {"em": 16.0, "ex": 8.0, "ch": 8.0}


class _ExternalResource(Exception):
    """Raised from inside cairosvg when the SVG asks for something outside itself."""

    def __init__(self, message: str = _EXTERNAL):
        super().__init__(message)
        self.message = message


def _parse_svg(data: bytes):
    """The root element, parsed with entity expansion and external references forbidden.

    defusedxml is a dependency of cairosvg (which imports it unconditionally), so it
    is always present where SVG can be rasterised at all. A plain DOCTYPE (as many
    editors write: `<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "…dtd">`) is
    harmless and accepted; any ENTITY declaration or external reference is refused.
    """
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    try:
        root = fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except DefusedXmlException:
        raise ImageError(_ENTITIES) from None
    except ParseError as exc:
        raise ImageError(f"not a readable SVG: the XML is malformed ({exc})") from None
    except Exception:
        raise ImageError("not a readable SVG: the XML is malformed") from None
    if root.tag not in ("{http://www.w3.org/2000/svg}svg", "svg"):
        raise ImageError("not an SVG: the root element must be <svg>; use a PNG, JPEG, WebP or SVG image")
    return root


def _svg_size(root) -> tuple[float, float]:
    """The SVG's own size in CSS pixels, resolved the way cairosvg resolves it."""
    width = _svg_length(root.get("width"), "width")
    height = _svg_length(root.get("height"), "height")
    view_box = root.get("viewBox")
    if view_box is not None and view_box.strip():
        try:
            numbers = [float(n) for n in re.split(r"[\s,]+", view_box.strip())]
        except ValueError:
            numbers = []
        if len(numbers) != 4 or not all(math.isfinite(n) for n in numbers) or numbers[2] <= 0 or numbers[3] <= 0:
            raise ImageError(f'SVG viewBox "{view_box[:40]}" is not valid: it needs four numbers "x y width height"')
        width = width or numbers[2]
        height = height or numbers[3]
    if not (math.isfinite(width) and math.isfinite(height)) or width <= 0 or height <= 0:
        raise ImageError("SVG has no size: give the root <svg> element width and height attributes or a viewBox")
    return width, height


def _svg_length(value: str | None, name: str) -> float:
    if value is None or not value.strip() or value.strip() == "auto":
        return 0.0
    match = _LENGTH.match(value)
    if not match:
        raise ImageError(f'SVG {name} "{value[:40]}" is not a valid length: use a number such as "400" or "120mm"')
    number, unit = float(match.group(1)), match.group(2)
    if unit == "%":
        return 0.0  # relative to nothing at the root: the viewBox decides, as in cairosvg
    return number * _PX_PER_UNIT[unit]


def _svg_fetcher(url: str, resource_type: str) -> bytes:
    """cairosvg's url_fetcher: only raster images embedded as data: URIs, within bounds."""
    if not url.startswith("data:") or not resource_type.startswith("image/"):
        raise _ExternalResource()
    try:
        payload = decode_data_uri(url)
    except ImageError:
        raise _ExternalResource("SVG embeds an image whose data: URI is malformed: re-export the SVG") from None
    kind = sniff(payload)
    if kind not in RASTER_TYPES:
        raise _ExternalResource("SVG embeds an image that is not PNG, JPEG or WebP: convert the SVG to PNG")
    try:
        check_raster_size(payload, kind)
    except ImageError as exc:
        raise _ExternalResource(f"SVG embeds an image that cannot be used: {exc}") from None
    return payload


def _rasterize(data: bytes, width: int, height: int) -> bytes:
    """PNG bytes of exactly width x height; no file or network access from the SVG.

    Safety settings: unsafe=False and a refusing url_fetcher, passed through
    Surface.convert because cairosvg's svg2png() does not accept url_fetcher. The output
    size is passed explicitly, so the surface we allocate is the one we computed,
    whatever the SVG claims.
    """
    from cairosvg.surface import PNGSurface

    try:
        return PNGSurface.convert(
            bytestring=data, output_width=width, output_height=height, unsafe=False, url_fetcher=_svg_fetcher
        )
    except _ExternalResource as exc:
        raise ImageError(exc.message) from None
    except Exception as exc:  # cairosvg raises many types for input it cannot draw
        detail = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        raise ImageError(f"the SVG could not be drawn ({detail}): re-export it and upload again") from None
