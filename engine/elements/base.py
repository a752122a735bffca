"""What every element type module provides, and the pieces they share.

An element type is one module owning its `Position`, `Data` and `Styles` models,
`measure()` (the derived box), its variable binding and `draw()`, and what the faces
need of it: a title, defaults for a new element, the fields holding image refs, how
the editor resizes it, and (on the field types, engine.elements.editing) how each field is
edited. The module ends by building an `ElementType`; the registry in
`elements/__init__.py` collects the built-in ones and those of plugins.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    create_model,
    model_validator,
)
from pydantic.fields import FieldInfo

from ..design import expressions
from ..design.names import check_visible
from ..pdf.forms import FormFields
from ..pdf.tagging import Untagged
from ..render.options import DEFAULT_OPTIONS, RenderOptions
from ..text.markup import check_link
from ..text.placeholders import DESIGN_SHEET, Sheet
from .editing import EXPRESSION, Widget, widget_of

if TYPE_CHECKING:
    from reportlab.pdfgen.canvas import Canvas

    from ..media.images import ImageLibrary


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


# The name of a stored element: trees saved before the rules of engine.design.names must still load.
StoredElementName = Annotated[str, AfterValidator(_check_name)]
# A name given in an action (add_element, update_element's newName): no control, bidi or
# invisible characters (engine.design.names), which extensions.md also asks of text placeholders.
ElementName = Annotated[str, AfterValidator(_check_given_name)]

# Bounds keep every number drawable: PDF viewers cap a page side at 14,400 units.
MAX_LENGTH = 14_400.0
Coordinate = Annotated[float, Field(ge=-MAX_LENGTH, le=MAX_LENGTH)]
Length = Annotated[float, Field(ge=0, le=MAX_LENGTH)]
Opacity = Annotated[float, Field(ge=0, le=1)]
NonNegative = Annotated[float, Field(ge=0, le=MAX_LENGTH)]


# extensions.md 3: every element's data may make its box a link (https:, http:, mailto:).
LinkUrl = Annotated[str, Field(min_length=1, max_length=2048), AfterValidator(check_link)]
LINK_FIELD = (
    LinkUrl | None,
    # Left out of dumps while unset, so trees that never use links stay exactly as they were.
    Field(
        None,
        description="A URL (https:, http: or mailto:): the element's box is a link in the PDF",
        exclude_if=lambda url: url is None,
    ),
)


def with_link(data: type[BaseModel]) -> type[BaseModel]:
    """The type's data model with the `link` every element has, declared here once
    (a model that has it already, e.g. a type built from another's Data, is kept)."""
    if "link" in data.model_fields:
        return data
    return create_model(data.__name__, __base__=data, __module__=data.__module__, link=LINK_FIELD)


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
    # The sheet being drawn, for {page} and {pages} in texts (extensions.md 1).
    sheet: Sheet = DESIGN_SHEET
    # The design's language (metadata.language, BCP 47; "" when unset): the language of a
    # text without data.lang, for shaping and for /Lang in tagged profiles (extensions.md 6).
    language: str = ""
    # Which drawing paths the render takes (the fast ones unless a test asks for the reference).
    options: RenderOptions = DEFAULT_OPTIONS
    # The document's fillable form (extensions.md 13), shared by all its sheets.
    forms: FormFields = field(default_factory=FormFields)

    def pdf_y(self, top: float, height: float = 0.0) -> float:
        """The PDF y (origin bottom-left) of a box's bottom edge."""
        return self.page_height - top - height


# What binding an element of a type makes its variable (extensions.md 5; "field-value": a form
# field's initial value, extensions.md 13). A placeholder inside a text is a variable of kind "field".
BoundKind = Literal["text", "image", "table", "code", "icon", "color", "field-value"]
VariableKind = Literal[BoundKind, "field"]


@dataclass(frozen=True)
class VariableSpec:
    """What binding an element does: which field a generation value replaces."""

    kind: BoundKind
    field: str  # where the value goes, e.g. "data.content"
    accepts: str  # what the value must be, for error messages and the catalog
    apply: Callable[[Any, Any], Any]  # (node, value) -> node; raises ValueError(reason)
    # A value is an image ref: the service checks that it exists and ships its bytes to
    # the render process (engine.design.variables.image_variable_names).
    image_ref: bool = False
    # showIf (engine.design.conditions): whether the value at `field` is empty, when "empty" is more
    # than null, "" or [] (a table with no text below its header); and whether it can be
    # compared with equals/notEquals as text (a grid of cells cannot).
    is_empty: Callable[[Any], bool] | None = None  # (node) -> bool
    comparable: bool = True
    # The text a `{name}` placeholder of the variable's name shows (extensions.md 1: one
    # variable fills the element and the placeholders): (node) -> its content as displayed.
    # None: a placeholder may not share the variable's name (an image, a table, ...).
    field_text: Callable[[Any], str] | None = None
    # What an expression reads the value as (extensions.md 11): (node) -> "text", "number",
    # "date", ... (engine.design.expressions' types). None: text.
    value_type: Callable[[Any], str] | None = None


@dataclass(frozen=True)
class FieldHost:
    """An element type whose content may hold `{name}` placeholders (engine.text.placeholders)."""

    # The node's placeholders that are variables ({page} and {pages} are not), in order.
    names: Callable[[Any], tuple[str, ...]]
    # (node, {name: text}) -> a copy showing those texts for those placeholders.
    filled: Callable[[Any, Mapping[str, str]], Any]
    # (node, name) -> the node's design-time sample for the placeholder, or None.
    sample: Callable[[Any, str], str | None]
    # Whether the node shows {page} or {pages} (then a preview numbers its sheet as in the document).
    shows_sheet: Callable[[Any], bool]
    # (node, name) -> the update_element changes ({part: {field: value}}) that add a `{name}`
    # placeholder to the content and turn placeholders on: an editor's "Insert field".
    insert: Callable[[Any, str], dict] | None = None


@dataclass(frozen=True)
class ExpressionUse:
    """One expression of a node (extensions.md 11): where it is, for messages
    ("data.columnDefs[2].value"), its text, and what it may read besides the design's variables."""

    where: str
    text: str
    # Inside a table: the current row's column keys -> their types; None elsewhere.
    row: Mapping[str, str] | None = None
    # A footer: column keys only inside aggregates (sum(amount)).
    aggregates_only: bool = False
    # The result must be a boolean (showIf); None: any result is shown.
    boolean: bool = False


@dataclass(frozen=True)
class Computing:
    """An element type whose content is computed from expressions (extensions.md 11):
    engine.design.computed checks them against the design and resolves them per generation."""

    # (node) -> its expressions, in the order they are computed.
    uses: Callable[[Any], list[ExpressionUse]]
    # (node, scope) -> the node showing its results, scope being engine.design.computed.Scope;
    # raises ValueError naming the row and column whose values made an expression fail.
    resolve: Callable[[Any, Any], Any]
    # (node) -> the column types a table variable's expressions read as `name.key`, or None
    # for a type that is not such a table.
    columns: Callable[[Any], Mapping[str, str] | None] = lambda node: None
    # (node, scope) -> {column key: values per row} of a resolved node, for `name.key` elsewhere.
    column_values: Callable[[Any, Any], Mapping[str, list[Any]]] | None = None


PARTS = ("position", "data", "styles")
ResizeMode = Literal["free", "square", "width"]
# Where a click on the editor's canvas hits an element: anywhere in its box ("box"), near the
# box's outline ("stroke"), near the ellipse inscribed in the box ("ellipse"), or near the line
# from the box's top-left to its bottom-right corner ("line"). A click that misses falls through
# to the elements below.
HitArea = Literal["box", "stroke", "ellipse", "line"]


class TextLook(NamedTuple):
    """How an element's text is set, for an editor to show typing in the same face, size,
    colour and alignment (the engine's render after the edit stays the truth)."""

    family: str  # a family of the font catalog
    size: float  # points
    weight: int
    italic: bool
    underline: bool
    color: str  # hex
    align: str  # left, center, right, justify, start, end
    line_height: float  # a multiple of size
    wraps: bool  # True: the width is fixed and lines wrap inside it; False: the box hugs the text
    direction: str = "auto"  # auto, ltr, rtl (extensions.md 6)


@dataclass(frozen=True)
class InlineText:
    """An element whose content is plain text a person may type on the canvas.

    `field` is the dotted path of the field holding the text, edited through its field type's
    Widget conversions (a list's items are lines) and stored raw: placeholders (`{name}`)
    and markup are typed as they are written, never interpreted by the editor.
    `look(node)` says how the text is set. `markup` is the dotted path of the field whose
    value "markdown" makes the text read inline Markdown (extensions.md 3): the editor then
    writes `**`, `*` and `[label](url)` around a selected part (None: the text is plain only).
    """

    field: str
    look: Callable[[Any], TextLook]
    markup: str | None = None


@dataclass(frozen=True)
class KeyedRows:
    """Fields an editor edits together as one grid of row objects (a chart's design-time rows).

    `rows` is the dotted path of the list of row objects; `label` of the key naming each row
    (its category, a text, or an x number); `series` of a list of objects each naming another
    key (`key`), their other fields edited by their types. The grid's columns are the label's
    key then the series' keys: renaming a column renames the key in all three fields, an added
    series is a new column, a removed one takes its column's values with it. The series'
    cells are numbers (null when empty)."""

    rows: str
    label: str
    series: str


@dataclass(frozen=True)
class EditorHints:
    """What an element type declares for the editor alone: how a new one looks, how it is
    resized, typed on, styled from the text toolbar and hit on the canvas. The engine never
    reads these (tests/engine/elements/test_element_contract.py checks it); the faces that show
    an editor (workbench/editor) read them through `ElementType.editor`."""

    # A new element's content, as add_element args without x and y:
    # {"position": {...}, "data": {...}, "styles": {...}}; checked against the models here.
    defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # How the editor widens a type whose width is derived (neither w nor size nor maxWidth
    # in its position): (node, new width) -> update_element args, e.g. {"data": {...}}.
    resize_width: Callable[[Any, float], dict] | None = None
    # The element's text may be typed in place on the canvas (None: it is edited in the form only).
    inline_text: InlineText | None = None
    # The Styles fields the editor's text toolbar offers for this type, in the toolbar's order
    # (family, size, weight, …); each is edited by its field type, as in the properties form.
    # Empty: the type's styles are edited in the properties panel only.
    text_toolbar: tuple[str, ...] = ()
    # How a field of one node is edited when that depends on the node's other values:
    # (node, dotted path) -> a Widget (editing.HIDDEN: the field does not apply to this node), or
    # None for its field type's own. A form field's value is a check box, a choice of its options
    # or a date by its fieldType; its options apply to radio and select fields only.
    widget_for: Callable[[Any, str], Widget | None] | None = None
    # The editor keeps its width-to-height ratio while resizing it (Shift frees it), as for a
    # picture; for the others Shift keeps it.
    keeps_aspect: bool = False
    # Where a click hits it on the canvas, (node) -> HitArea; None: anywhere in its box.
    hit_area_of: Callable[[Any], HitArea] | None = None
    # What else an edit in the properties form changes: (node, update_element args) -> the args
    # sent, e.g. a barcode switched to a 2-D format takes a square box. None: sent as edited.
    edited: Callable[[Any, dict], dict] | None = None
    # Its rows, their naming key and its series are edited together as a grid (None: each
    # field by its type).
    keyed_rows: KeyedRows | None = None


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
    # What people call it: the toolbar's button, the first name of a new element.
    title: str = ""
    # Dotted paths of the fields holding image refs ("data.src"): media rewrites data: and
    # https:// sources there, and image_refs reads them unless a type gives its own.
    image_fields: tuple[str, ...] = ()
    # Hints for keys the position refuses, e.g. {"w": "use position.maxWidth"}.
    position_hints: dict[str, str] = field(default_factory=dict)
    # Refs of images the element draws, so callers can resolve or ship them.
    image_refs: Callable[[Any], list[str]] = None  # type: ignore[assignment]  # set from image_fields
    # Types that flow across sheets ("split at height"): (node, first_room, page_room) -> list of
    # parts, each with `start`, `end` and `height` (engine.render.layout places them); an empty first
    # part means the element starts on the next sheet.
    paginate: Callable[..., list[Any]] | None = None
    # Which of the type's elements split ("can split"): (node) -> bool. None: every element of a
    # type that paginates does (tables); a text splits only when its overflow is "flow".
    splits_when: Callable[[Any], bool] | None = None
    # Rules across a node's parts (position, data, styles): (node) -> None, raising
    # ValueError with a message naming the fix. Checked wherever a node is validated.
    check: Callable[[Any], None] | None = None
    # How update_element merges a data patch into stored data (default: key by key).
    merge_data: Callable[[dict, dict], dict] | None = None
    # Its content may hold placeholders, each a variable of the design (extensions.md 1).
    fields: FieldHost | None = None
    # Tagged profiles: most elements are pictures, a Figure with data.alt or decoration
    # without; text and tables mark their own structure (paragraphs, lists, cells).
    tags_itself: bool = False
    # What makes one of its elements split when not every one does (splits_when), as the
    # refusals name it: "data.overflow 'flow'". An element that splits cannot repeat
    # (extensions.md 4): it cannot also sit at the same place on every sheet.
    split_condition: str = ""
    # Its content is computed from expressions (extensions.md 11).
    computing: Computing | None = None
    # Its drawing adds annotations to the page (form fields' widgets): it is never drawn into
    # a form shared by the documents of a design (engine.render.form_cache).
    annotates: bool = False
    # A value unique among a document's elements of the type, besides the name: (where it is
    # set, as refusals name it, (node) -> the value), e.g. a form field's name.
    unique_key: tuple[str, Callable[[Any], str]] | None = None
    # What the editor needs of the type (EditorHints above); the engine reads none of it.
    editor: EditorHints = field(default_factory=lambda: EditorHints())
    Node: type[BaseModel] = field(init=False)

    def __post_init__(self) -> None:
        if not self.title:
            object.__setattr__(self, "title", self.name.capitalize())
        object.__setattr__(self, "Data", with_link(self.Data))
        for path in self.image_fields:
            self.model_field(path)  # a KeyError names a path that is not a field
        if self.editor.inline_text is not None:
            self.model_field(self.editor.inline_text.field)
            if self.editor.inline_text.markup is not None:
                self.model_field(self.editor.inline_text.markup)
        for name in self.editor.text_toolbar:
            self.model_field(f"styles.{name}")
        if self.editor.keyed_rows is not None:
            rows = self.editor.keyed_rows
            for path in (rows.rows, rows.label, rows.series):
                self.model_field(path)
        if self.image_refs is None:
            object.__setattr__(self, "image_refs", self._declared_image_refs)
        self._check_defaults()
        validators = {}
        if self.check is not None:
            check = self.check

            def _checked(node: Any) -> Any:
                check(node)
                return node

            validators["_check_parts"] = model_validator(mode="after")(_checked)
        node = create_model(
            f"{self.name.capitalize()}Node",
            __base__=NodeBase,
            __validators__=validators,
            type=(Literal[self.name], ...),  # type: ignore[valid-type]
            position=(self.Position, ...),
            data=(self.Data, ...),
            styles=(self.Styles, Field(default_factory=self.Styles)),
        )
        object.__setattr__(self, "Node", node)

    @property
    def splits(self) -> bool:
        """True when every element of the type flows across sheets (layout splits it; others
        follow it). A type with `splits_when` splits only some: ask `splitting(node)`."""
        return self.paginate is not None and self.splits_when is None

    def splitting(self, node: Any) -> bool:
        """True when this element flows across sheets: layout splits it with `paginate`, and the
        elements below it follow it (the manual, "Tables that grow")."""
        return self.paginate is not None and (self.splits_when is None or self.splits_when(node))

    @property
    def resize_mode(self) -> ResizeMode:
        """How the editor resizes it, from the Position model: {w, h} free, {size} square,
        otherwise by width only (maxWidth, or resize_width for a derived width)."""
        fields = self.Position.model_fields
        if "w" in fields and "h" in fields:
            return "free"
        if "size" in fields:
            return "square"
        return "width"

    def hit_area(self, node: Any) -> HitArea:
        """Where a click on the editor's canvas hits the node (HitArea)."""
        return "box" if self.editor.hit_area_of is None else self.editor.hit_area_of(node)

    def resized(self, node: Any, width: float, height: float) -> dict:
        """update_element args ({"position": …} or {"data": …}) giving the node this size."""
        mode = self.resize_mode
        if mode == "free":
            return {"position": {"w": width, "h": height}}
        if mode == "square":
            return {"position": {"size": width}}
        if "maxWidth" in self.Position.model_fields:
            return {"position": {"maxWidth": width}}
        if self.editor.resize_width is not None:
            return self.editor.resize_width(node, width)
        return {}

    def model_field(self, path: str) -> FieldInfo:
        """The model field at a dotted path such as "data.src" or "styles.fill"."""
        part, _, name = path.partition(".")
        if part not in PARTS:
            raise KeyError(f"element type '{self.name}': '{path}' does not start with position, data or styles")
        model = {"position": self.Position, "data": self.Data, "styles": self.Styles}[part]
        if name not in model.model_fields:
            raise KeyError(f"element type '{self.name}': {part} has no field '{name}' (from '{path}')")
        return model.model_fields[name]

    def widget(self, node: Any, path: str) -> Widget | None:
        """How the editor edits the node's field at `path`: as its type's `EditorHints.widget_for`
        says for this node, else by the field type's Widget marker (None: by its plain type)."""
        hinted = self.editor.widget_for(node, path) if self.editor.widget_for is not None else None
        return hinted if hinted is not None else widget_of(self.model_field(path))

    def edited(self, node: Any, path: str, edited: Any) -> dict:
        """update_element args for an edited value of the field at `path`, through the
        field type's Widget conversion (a table's cell texts keep their cells' styles)."""
        part, _, name = path.partition(".")
        widget = self.widget(node, path)
        current = getattr(getattr(node, part), name)
        return {part: {name: widget.store(current, edited) if widget else edited}}

    def typed_text(self, node: Any) -> str | None:
        """The text a person edits in place on the canvas, as the field's widget shows it
        (a list's items one per line); None when the type has no inline text."""
        if self.editor.inline_text is None:
            return None
        path = self.editor.inline_text.field
        part, _, name = path.partition(".")
        widget = self.widget(node, path)
        current = getattr(getattr(node, part), name)
        shown = widget.show(current) if widget else current
        return shown if isinstance(shown, str) else str(shown)

    def text_typed(self, node: Any, text: str, markdown: bool = False) -> dict:
        """update_element args for text typed in place on the canvas (`typed_text`'s field);
        `markdown`: the text now reads inline Markdown (the editor wrote markup into it)."""
        inline = self.editor.inline_text
        if inline is None:
            raise ValueError(f"a {self.title.lower()} has no text to type on the canvas")
        args = self.edited(node, inline.field, text)
        if markdown and inline.markup is not None:
            part, _, name = inline.markup.partition(".")
            args.setdefault(part, {})[name] = "markdown"
        return args

    def reads_markdown(self, node: Any) -> bool:
        """The element's inline text reads Markdown now (its `InlineText.markup` field says so)."""
        inline = self.editor.inline_text
        if inline is None or inline.markup is None:
            return False
        part, _, name = inline.markup.partition(".")
        return getattr(getattr(node, part), name) == "markdown"

    def _declared_image_refs(self, node: Any) -> list[str]:
        refs: list[str] = []
        for path in self.image_fields:
            part, _, name = path.partition(".")
            value = getattr(getattr(node, part), name)
            refs.extend([value] if isinstance(value, str) else [v for v in value or () if isinstance(v, str)])
        return refs

    def _check_defaults(self) -> None:
        """A type's defaults must make a valid element: a mistake shows at import, naming it."""
        unknown = set(self.editor.defaults) - set(PARTS)
        if unknown:
            raise TypeError(f"element type '{self.name}': defaults has {sorted(unknown)}; use {', '.join(PARTS)}")
        try:
            self.Position.model_validate({"x": 0, "y": 0, **self.editor.defaults.get("position", {})})
            self.Data.model_validate(dict(self.editor.defaults.get("data", {})))
            self.Styles.model_validate(dict(self.editor.defaults.get("styles", {})))
        except ValidationError as exc:
            raise TypeError(f"element type '{self.name}': its defaults do not make a valid element: {exc}") from None


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


def validated_element(info: ValidationInfo | None, what: str) -> str:
    """`what` of the element being validated, named when the validation was given its name
    (context {"element": name}, as the element actions give it): "the text 'intro'"."""
    name = (info.context or {}).get("element") if info is not None else None
    return f"{what} '{name}'" if isinstance(name, str) else what


def with_data(node: Any, **changes: Any) -> Any:
    """A copy of the node with data fields replaced (values are checked by the caller)."""
    return node.model_copy(update={"data": node.data.model_copy(update=changes)})


def require_string(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return value


def _expression_syntax(text: str) -> str:
    """An expression's syntax, checked where it is set (its names and types are checked against
    the design by engine.design.computed, which knows the variables)."""
    expressions.parse(text)
    return text


# extensions.md 11: an expression of the small language of engine.design.expressions.
ExpressionText = Annotated[
    str,
    Field(min_length=1, max_length=expressions.MAX_EXPRESSION_LENGTH),
    AfterValidator(_expression_syntax),
    Widget(EXPRESSION),
]


# extensions.md 4: where an element is drawn besides its own page's first sheet.
Repeat = Literal["none", "sheets", "pages"]
# A value showIf compares with; every value is compared as text (engine.design.conditions).
ConditionValue = str | int | float | bool


# showIf (extensions.md 4); how it is evaluated: engine.design.conditions.
class Condition(StrictModel):
    """A condition on a variable, or an expression (extensions.md 11): the element is drawn
    only when it holds for the generation's values (the design-time content in previews)."""

    # Left out of dumps while unset, so a stored {variable, equals, notEquals} stays as it was.
    variable: str | None = Field(None, description="A variable of the design", exclude_if=lambda name: name is None)
    equals: ConditionValue | None = Field(None, description="Drawn when the value, as text, is this")
    notEquals: ConditionValue | None = Field(None, description="Drawn when the value, as text, is not this")
    expression: ExpressionText | None = Field(
        None,
        description='Instead of variable: drawn when this expression is true, e.g. "total > 100"',
        exclude_if=lambda text: text is None,
    )

    @model_validator(mode="after")
    def _one_comparison(self) -> Condition:
        if (self.variable is None) == (self.expression is None):
            raise ValueError(
                "send showIf.variable (with equals, notEquals or neither) or showIf.expression, one of the two"
            )
        if self.expression is not None and (self.equals is not None or self.notEquals is not None):
            raise ValueError(
                "showIf.expression compares by itself: write the comparison in it (e.g. \"status = 'paid'\") "
                "and leave equals and notEquals out"
            )
        if self.equals is not None and self.notEquals is not None:
            raise ValueError(
                "send equals or notEquals, not both: one condition per element (with neither, "
                "the element is drawn when the variable's value is not empty)"
            )
        return self


class NodeBase(StrictModel):
    """A tree node (decisions.md): id, type, name, page, position, data, styles, flags."""

    id: str
    type: str
    name: StoredElementName
    page: int = 0
    isHidden: bool = False
    isLocked: bool = False
    repeat: Repeat = Field(
        "none",
        description="sheets: also drawn on every continuation sheet of its page; pages: on every sheet of the document",
    )
    showIf: Condition | None = Field(None, description="Drawn only when this condition holds; null: always")
    # extensions.md 11; left out of dumps while false, so stored trees stay as they were.
    keepWithNext: bool = Field(
        False,
        description="Following a table or flowing text, moves to the next sheet together with the element "
        "below it (a totals block never splits)",
        exclude_if=lambda keep: not keep,
    )
