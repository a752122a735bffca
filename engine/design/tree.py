"""The design tree (spec 2.3): metadata, ordered pages, nodes by id, variables.

Positions are in PDF points with the origin at the page's top-left corner and y
growing downwards, as in every design tool; the renderer converts to PDF space.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..elements import Node, StrictModel
from .colors import Fill
from .paper import MAX_PAGE_SIDE, MIN_PAGE_SIDE, Orientation, PaperSize, oriented, paper_dimensions

SCHEMA_VERSION = "v1"
# the manual, "Limits" (issue 31, item 3): a design's tree as stored (JSON, UTF-8). Every request
# that reads a design reads and checks all of it, so it is bounded as a whole as well as
# text by text; a patch past it is refused (one that shrinks an older, larger tree is not).
MAX_TREE_BYTES = 5_000_000
BackgroundSize = Literal["cover", "contain", "stretch"]


class Background(StrictModel):
    """Background fields shared by pages and the document; null means not set."""

    backgroundColor: Fill | None = Field(None, description="Hex colour or linear-gradient(...)")
    backgroundImage: str | None = Field(None, description="uploads:<id> or assets:<id>")
    backgroundSize: BackgroundSize | None = None
    backgroundPageNumber: int | None = Field(
        None, ge=1, description="When backgroundImage is a PDF: which of its pages (1-based; default 1)"
    )


class Page(Background):
    id: str
    name: str | None = None
    width: float = Field(ge=MIN_PAGE_SIDE, le=MAX_PAGE_SIDE)
    height: float = Field(ge=MIN_PAGE_SIDE, le=MAX_PAGE_SIDE)
    elements: list[str] = Field(default_factory=list, description="Node ids in paint order, back first")


class Metadata(StrictModel):
    schemaVersion: Literal["v1"] = SCHEMA_VERSION
    title: str | None = None
    author: str | None = None
    subject: str | None = None
    keywords: str | None = None
    creator: str | None = None
    language: str | None = Field(None, description="BCP 47 language tag of the content, e.g. en-GB")


class Variable(StrictModel):
    """A variable is one bound element; its name is the element's name (spec 2.5). A text
    placeholder is one too (extensions.md 1): kind "field", bound to no element (nodeId null),
    unless a bound text element has its name."""

    nodeId: str | None
    kind: str


class DesignTree(StrictModel):
    metadata: Metadata = Field(default_factory=Metadata)
    background: Background = Field(default_factory=Background)
    pages: list[Page]
    nodes: dict[str, Node] = Field(default_factory=dict)
    variables: dict[str, Variable] = Field(default_factory=dict)

    def node_by_name(self, name: str) -> Node | None:
        return next((n for n in self.nodes.values() if n.name == name), None)

    def variable_of(self, node: Node) -> Variable | None:
        """The variable bound to the node, if any (a field of the same name is not bound to it)."""
        variable = self.variables.get(node.name)
        return variable if variable is not None and variable.nodeId == node.id else None

    def to_json(self) -> str:
        return self.model_dump_json()


def tree_size_problem(size: int, before: int) -> str | None:
    """Why a tree of `size` bytes (JSON) cannot replace one of `before` bytes, or None."""
    if size <= MAX_TREE_BYTES or size <= before:
        return None
    return (
        f"the design would be {size:,} bytes (its tree as JSON: fileSize); a design holds at most "
        f"{MAX_TREE_BYTES:,}: split the content over several designs, or shorten its longest texts and tables; "
        "nothing was saved"
    )


def page_size(
    size: PaperSize | None = None,
    orientation: Orientation | None = None,
    width: float | None = None,
    height: float | None = None,
) -> tuple[float, float]:
    """Resolve a paper request (spec 4.2): a named size, or a custom sheet taken literally."""
    if size is not None and (width is not None or height is not None):
        raise ValueError("send either size or width/height, not both")
    if (width is None) != (height is None):
        raise ValueError("width and height go together: send both")
    if width is not None and height is not None:
        for side in (width, height):
            if not MIN_PAGE_SIDE <= side <= MAX_PAGE_SIDE:
                raise ValueError(f"page sides must be between {MIN_PAGE_SIDE:g} and {MAX_PAGE_SIDE:g} points")
        return float(width), float(height)
    return paper_dimensions(size or "A4", orientation or "portrait")


def new_design(
    size: PaperSize | None = None,
    orientation: Orientation | None = None,
    width: float | None = None,
    height: float | None = None,
    title: str | None = None,
    page_id: str = "page_1",
) -> DesignTree:
    """A new design: one blank page at the requested format (A4 portrait by default)."""
    w, h = page_size(size, orientation, width, height)
    return DesignTree(metadata=Metadata(title=title), pages=[Page(id=page_id, width=w, height=h)])


__all__ = [
    "MAX_TREE_BYTES",
    "Background",
    "DesignTree",
    "Metadata",
    "Page",
    "Variable",
    "new_design",
    "oriented",
    "page_size",
    "tree_size_problem",
]
