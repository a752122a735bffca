"""What every element type module provides, and the pieces they share.

An element type is one module owning its `Position`, `Data` and `Styles` models,
`measure()` (the derived box), its variable binding and `draw()`. The module ends by
building an `ElementType`; the registry in `elements/__init__.py` collects them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model

from ..names import check_visible
from ..tagging import Untagged

if TYPE_CHECKING:
    from reportlab.pdfgen.canvas import Canvas

    from ..images import ImageLibrary


class StrictModel(BaseModel):
    """Unknown keys are refused (spec 4.6: args are validated strictly)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def _check_name(value: str) -> str:
    if not 1 <= len(value) <= 100 or value != value.strip() or any(ord(c) < 32 for c in value):
        raise ValueError("a name is 1 to 100 characters, with no leading or trailing spaces or control characters")
    return value


def _check_given_name(value: str) -> str:
    if not 1 <= len(value) <= 100 or value != value.strip():
        raise ValueError("a name is 1 to 100 characters, with no leading or trailing spaces")
    return check_visible(value)


# The name of a stored element: trees saved before the rules of engine.names must still load.
StoredElementName = Annotated[str, AfterValidator(_check_name)]
# A name given in an action (add_element, update_element's newName): no control, bidi or
# invisible characters (engine.names), which extensions.md also asks of text placeholders.
ElementName = Annotated[str, AfterValidator(_check_given_name)]

# Bounds keep every number drawable: PDF viewers cap a page side at 14,400 units.
MAX_LENGTH = 14_400.0
Coordinate = Annotated[float, Field(ge=-MAX_LENGTH, le=MAX_LENGTH)]
Length = Annotated[float, Field(ge=0, le=MAX_LENGTH)]
Opacity = Annotated[float, Field(ge=0, le=1)]
NonNegative = Annotated[float, Field(ge=0, le=MAX_LENGTH)]


class Box(NamedTuple):
    """A box on the page: top-left corner (x, y) with y growing down, in points."""

    x: float
    y: float
    w: float
    h: float

    @property
    def bottom(self) -> float:
        return self.y + self.h


class BoxPosition(StrictModel):
    """An explicit box (image, barcode, shape, icon)."""

    x: Coordinate
    y: Coordinate
    w: Length
    h: Length


@dataclass
class DrawContext:
    """What a draw function may use: the canvas, the page, the image library, and the
    tagger that marks what is drawn as structure or artifact (tagged profiles)."""

    canvas: Canvas
    page_height: float
    images: ImageLibrary
    tags: Untagged = field(default_factory=Untagged)

    def pdf_y(self, top: float, height: float = 0.0) -> float:
        """The PDF y (origin bottom-left) of a box's bottom edge."""
        return self.page_height - top - height


@dataclass(frozen=True)
class VariableSpec:
    """What binding an element does: which field a generation value replaces."""

    kind: Literal["text", "image", "table", "code", "icon", "color"]
    field: str  # where the value goes, e.g. "data.content"
    accepts: str  # what the value must be, for error messages and the catalog
    apply: Callable[[Any, Any], Any]  # (node, value) -> node; raises ValueError(reason)


@dataclass(frozen=True)
class ElementType:
    name: str
    summary: str
    Position: type[BaseModel]
    Data: type[BaseModel]
    Styles: type[BaseModel]
    measure: Callable[[Any], tuple[float, float]]
    draw: Callable[..., None]  # (node, box, ctx, part) -> None
    variable: VariableSpec | None
    # Hints for keys the position refuses, e.g. {"w": "use position.maxWidth"}.
    position_hints: dict[str, str] = field(default_factory=dict)
    # Refs of images the element draws, so callers can resolve or ship them.
    image_refs: Callable[[Any], list[str]] = lambda node: []
    # Only tables split across pages: (node, first_room, page_room) -> list of parts.
    paginate: Callable[..., list[Any]] | None = None
    # How update_element merges a data patch into stored data (default: key by key).
    merge_data: Callable[[dict, dict], dict] | None = None
    # Tagged profiles: most elements are pictures, a Figure with data.alt or decoration
    # without; text and tables mark their own structure (paragraphs, lists, cells).
    tags_itself: bool = False
    Node: type[BaseModel] = field(init=False)

    def __post_init__(self) -> None:
        node = create_model(
            f"{self.name.capitalize()}Node",
            __base__=NodeBase,
            type=(Literal[self.name], ...),  # type: ignore[valid-type]
            position=(self.Position, ...),
            data=(self.Data, ...),
            styles=(self.Styles, Field(default_factory=self.Styles)),
        )
        object.__setattr__(self, "Node", node)


def merge_keys(current: dict, patch: dict) -> dict:
    """Key-by-key merge: a key the patch sets to null returns to its default; the rest stay."""
    merged = dict(current)
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


def box_size(node: Any) -> tuple[float, float]:
    """measure() of the types whose box is explicit: {x, y, w, h}."""
    return node.position.w, node.position.h


def with_data(node: Any, **changes: Any) -> Any:
    """A copy of the node with data fields replaced (values are checked by the caller)."""
    return node.model_copy(update={"data": node.data.model_copy(update=changes)})


def require_string(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return value


class NodeBase(StrictModel):
    """A tree node (decisions.md): id, type, name, page, position, data, styles, flags."""

    id: str
    type: str
    name: StoredElementName
    page: int = 0
    isHidden: bool = False
    isLocked: bool = False
