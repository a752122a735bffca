"""Link annotations (extensions.md 3): a URI action over a box, tagged in the tagged profiles."""

from __future__ import annotations

from reportlab.pdfgen.canvas import Canvas

from . import reportlab_internals
from .tagging import Untagged

# /F 4 is the Print flag: PDF/A wants every annotation printed as it is shown.
PRINT_FLAG = 4


def add_link(
    canvas: Canvas, tags: Untagged, url: str, rect: tuple[float, float, float, float], description: str
) -> None:
    """A link annotation over `rect` (x0, y0, x1, y1 in PDF coordinates) opening `url`.

    `description` becomes its /Contents (what a reader announces for it, PDF/UA). Made inside
    `tags.group("Link")` in the tagged profiles, it becomes that Link element's OBJR.
    """
    contents = reportlab_internals.text_string(description or url)
    canvas.linkURL(url, rect, relative=0, thickness=0, F=PRINT_FLAG, Contents=contents)
    tags.annotated()
