"""Actions on elements: add, update, remove, reorder, bind and unbind (spec 4.6)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, create_model

from ..design import conditions
from ..design.languages import node_in_language
from ..design.placeholder_variables import check_binding, check_placeholders, field_names
from ..design.tree import DesignTree, Variable
from ..elements import ELEMENT_TYPES, Condition, ElementType, Repeat, StrictModel, union_of
from ..elements.base import ElementName, merge_keys
from .base import ActionSpec, ApplyContext, ElementAddress, check_page, find_node
from .errors import describe

REPEAT_HELP = (
    "none; sheets: also drawn at the same place on every continuation sheet of its page; "
    "pages: on every sheet of the document (tables and flowing texts cannot repeat)"
)
KEEP_WITH_NEXT_HELP = (
    "Following a table or flowing text: moves to the next sheet together with the element below it "
    "(a totals block never splits)"
)
SHOW_IF_HELP = (
    "Drawn only when the condition holds for the generation's values: {variable, equals?, notEquals?} "
    "(compared as text; with neither, when the value is not empty; the variable must exist), or "
    "{expression} (drawn when it is true)"
)


def _requires_data(element: ElementType) -> bool:
    return any(field.is_required() for field in element.Data.model_fields.values())


def _add_args_model(element: ElementType) -> type[StrictModel]:
    data_field = (element.Data, ...) if _requires_data(element) else (element.Data | None, None)
    return create_model(
        f"Add{element.name.capitalize()}Args",
        __base__=StrictModel,
        type=(Literal[element.name], ...),  # type: ignore[valid-type]
        name=(ElementName, Field(..., description="Unique name; becomes the variable name when bound")),
        page=(int, Field(0, ge=0, description="Zero-based page index")),
        position=(element.Position, ...),
        data=data_field,
        styles=(element.Styles | None, None),
        isHidden=(bool, False),
        isLocked=(bool, False),
        repeat=(Repeat, Field("none", description=REPEAT_HELP)),
        showIf=(Condition | None, Field(None, description=SHOW_IF_HELP)),
        keepWithNext=(bool, Field(False, description=KEEP_WITH_NEXT_HELP)),
    )


ADD_MODELS = {name: _add_args_model(element) for name, element in ELEMENT_TYPES.items()}
AddElementArgs = Annotated[union_of(list(ADD_MODELS.values())), Field(discriminator="type")]


def _model_map(element: ElementType, top: type[StrictModel]) -> dict[str, Any]:
    return {"": top, "position": element.Position, "data": element.Data, "styles": element.Styles}


def _hints(element: ElementType) -> dict[str, dict[str, str]]:
    return {"position": element.position_hints}


def parse_add(raw: dict) -> Any:
    kind = raw.get("type") if isinstance(raw, dict) else None
    if kind not in ADD_MODELS:
        raise ValueError(f"args.type must be one of {', '.join(ADD_MODELS)} (got {kind!r})")
    model = ADD_MODELS[kind]
    try:
        # The element's name, for refusals that name it (a text too long, say).
        return model.model_validate(raw, context={"element": raw.get("name")})
    except ValidationError as exc:
        element = ELEMENT_TYPES[kind]
        raise ValueError(describe(exc, _model_map(element, model), _hints(element))) from None


def _check_unique_name(tree: DesignTree, name: str, except_id: str | None = None) -> None:
    clash = tree.node_by_name(name)
    if clash is not None and clash.id != except_id:
        raise ValueError(f"an element named '{name}' already exists (names are unique in a design)")


def element_result(node: Any, language: str | None = None) -> dict:
    """The echo of add/update: id, name, type, page and the derived box (spec 2.4), measured
    in the design's `language` where the node has none of its own (engine.design.languages)."""
    w, h = ELEMENT_TYPES[node.type].measure(node_in_language(node, language))
    position = node.position.model_dump(exclude_none=True)
    position.update(w=round(w, 3), h=round(h, 3))
    return {"id": node.id, "name": node.name, "type": node.type, "page": node.page, "position": position}


def run_add(ctx: ApplyContext, args: Any) -> dict:
    tree = ctx.tree
    element = ELEMENT_TYPES[args.type]
    check_page(tree, args.page)
    _check_unique_name(tree, args.name)
    data = args.data
    if data is None:
        data = element.Data()
    try:
        node = element.Node(
            id=ctx.new_id(element.name, tree.nodes),
            type=element.name,
            name=args.name,
            page=args.page,
            position=args.position,
            data=data,
            styles=args.styles or element.Styles(),
            isHidden=args.isHidden,
            isLocked=args.isLocked,
            repeat=args.repeat,
            showIf=args.showIf,
            keepWithNext=args.keepWithNext,
        )
    except ValidationError as exc:  # the type's rules across its parts (ElementType.check)
        raise ValueError(describe(exc, _model_map(element, element.Node), _hints(element))) from None
    _check_furniture_and_condition(tree, node, condition_set=args.showIf is not None)
    check_placeholders(tree, field_names(node))
    tree.nodes[node.id] = node
    tree.pages[args.page].elements.append(node.id)
    return element_result(node, tree.metadata.language)


class UpdateElementArgs(ElementAddress):
    newName: ElementName | None = Field(None, description="Renames the element (and its variable)")
    position: dict[str, Any] | None = Field(None, description="Position keys to change, merged key by key")
    data: dict[str, Any] | None = Field(None, description="Data keys to change, merged key by key; null resets")
    styles: dict[str, Any] | None = Field(None, description="Style keys to change, merged key by key; null resets")
    isHidden: bool | None = None
    isLocked: bool | None = None
    repeat: Repeat | None = Field(None, description=REPEAT_HELP + "; null resets to none")
    showIf: Condition | None = Field(None, description=SHOW_IF_HELP + "; null removes the condition")
    keepWithNext: bool | None = Field(None, description=KEEP_WITH_NEXT_HELP)


def _check_furniture_and_condition(tree: DesignTree, node: Any, condition_set: bool) -> None:
    """extensions.md 4: refusals of repeat and showIf, on the element as it will be."""
    conditions.check_repeat(node)
    if condition_set and node.showIf is not None:
        conditions.check_condition(tree, node.showIf)


def run_update(ctx: ApplyContext, args: UpdateElementArgs) -> dict:
    tree = ctx.tree
    node = find_node(tree, args)
    element = ELEMENT_TYPES[node.type]
    current = node.model_dump()
    merge_data = element.merge_data or merge_keys
    candidate = {
        **current,
        "position": merge_keys(current["position"], args.position or {}),
        "data": merge_data(current["data"], args.data) if args.data else current["data"],
        "styles": merge_keys(current["styles"], args.styles or {}),
    }
    for flag in ("isHidden", "isLocked", "keepWithNext"):
        if getattr(args, flag) is not None:
            candidate[flag] = getattr(args, flag)
    # Sent as null, repeat returns to its default and showIf is removed.
    if "repeat" in args.model_fields_set:
        candidate["repeat"] = args.repeat or "none"
    if "showIf" in args.model_fields_set:
        candidate["showIf"] = args.showIf
    if args.newName is not None and args.newName != node.name:
        _check_unique_name(tree, args.newName, except_id=node.id)
        candidate["name"] = args.newName
    try:
        updated = element.Node.model_validate(candidate, context={"element": candidate["name"]})
    except ValidationError as exc:
        raise ValueError(describe(exc, _model_map(element, element.Node), _hints(element))) from None
    _check_furniture_and_condition(tree, updated, condition_set="showIf" in args.model_fields_set)
    check_placeholders(tree, field_names(updated))
    renamed = updated.name != node.name and tree.variable_of(node) is not None
    if renamed:
        check_binding(tree, updated, updated.name)
    tree.nodes[node.id] = updated
    if renamed:
        tree.variables[updated.name] = tree.variables.pop(node.name)
        conditions.rename_variable(tree, node.name, updated.name)
        updated = tree.nodes[node.id]
    return element_result(updated, tree.metadata.language)


def run_remove(ctx: ApplyContext, args: ElementAddress) -> dict:
    tree = ctx.tree
    node = find_node(tree, args)
    del tree.nodes[node.id]
    tree.pages[node.page].elements.remove(node.id)
    removed_variable = node.name if tree.variable_of(node) is not None else None
    if removed_variable is not None:
        del tree.variables[node.name]
    return {"id": node.id, "name": node.name, "removedVariable": removed_variable}


class ReorderElementArgs(ElementAddress):
    to: Literal["front", "back", "forward", "backward"] | Annotated[int, Field(ge=0)] = Field(
        description="front, back, forward, backward, or an index in the page's paint order (0 is the back)"
    )


def run_reorder(ctx: ApplyContext, args: ReorderElementArgs) -> dict:
    node = find_node(ctx.tree, args)
    order = ctx.tree.pages[node.page].elements
    index = order.index(node.id)
    last = len(order) - 1
    named = {"front": last, "back": 0, "forward": min(index + 1, last), "backward": max(index - 1, 0)}
    target = args.to if isinstance(args.to, int) else named[args.to]
    if target > last:
        raise ValueError(f"index {target} is past the page's last paint position {last}")
    order.insert(target, order.pop(index))
    return {"id": node.id, "name": node.name, "index": target}


def run_bind(ctx: ApplyContext, args: ElementAddress) -> dict:
    node = find_node(ctx.tree, args)
    spec = ELEMENT_TYPES[node.type].variable
    if spec is None:
        raise ValueError(f"{node.type} elements cannot be bound")
    check_binding(ctx.tree, node, node.name)
    # Binding twice is harmless: the element is fillable either way.
    ctx.tree.variables[node.name] = Variable(nodeId=node.id, kind=spec.kind)
    return {"variable": node.name, "id": node.id, "kind": spec.kind, "field": spec.field, "accepts": spec.accepts}


def run_unbind(ctx: ApplyContext, args: ElementAddress) -> dict:
    node = find_node(ctx.tree, args)
    if ctx.tree.variable_of(node) is None:
        raise ValueError(f"element '{node.name}' is not bound to a variable")
    del ctx.tree.variables[node.name]
    return {"variable": node.name, "id": node.id}


def _type_list() -> str:
    """Each element type as the catalog's prose names it, from its declaration."""
    return "".join(f"\n- {name} ({element.title}): {element.summary}" for name, element in ELEMENT_TYPES.items())


def _bindings() -> str:
    return "".join(
        f"\n- {name}: {element.variable.field}, {element.variable.accepts}"
        for name, element in ELEMENT_TYPES.items()
        if element.variable is not None
    )


ELEMENT_ACTIONS = [
    ActionSpec(
        "add_element",
        "Add one element with a unique name. Never send an id: the server mints it. Coordinates are points "
        "from the page's top-left corner. The result echoes the id and the derived box {x, y, w, h}. "
        f"The types, with the position each takes:{_type_list()}",
        AddElementArgs,
        run_add,
        parse=parse_add,
    ),
    ActionSpec(
        "update_element",
        "Change one element addressed by name or id: position, data and styles are merged key by key "
        "(null resets a key to its default); newName renames it (a bound variable follows); isHidden, "
        "isLocked, repeat and showIf are set here (showIf null removes the condition). The result echoes the "
        "derived box.",
        UpdateElementArgs,
        run_update,
    ),
    ActionSpec(
        "remove_element",
        "Remove one element (by name or id) and the variable bound to it, if any.",
        ElementAddress,
        run_remove,
    ),
    ActionSpec(
        "reorder_element",
        "Change an element's paint order on its page: to = front, back, forward, backward, or an index "
        "(0 is painted first, at the back).",
        ReorderElementArgs,
        run_reorder,
    ),
    ActionSpec(
        "bind_variable",
        "Make one element fillable at generation: the element's name becomes the variable name. What a value "
        f"replaces, by type:{_bindings()}",
        ElementAddress,
        run_bind,
    ),
    ActionSpec(
        "unbind_variable",
        "Remove the variable bound to one element; the element keeps its design-time content.",
        ElementAddress,
        run_unbind,
    ),
]
