"""Repeating and conditional elements (extensions.md 4): the rules of the node keys
`repeat` and `showIf` that are not layout.

- `showIf = {variable, equals?, notEquals?}` draws an element only when its condition
  holds for the generation's values; a preview has no values, so it tests the design-time
  content. The variable must exist when the condition is set; when the variable goes away
  (unbound, its element or page removed) every condition naming it goes with it, and when
  it is renamed (its element renamed) the conditions follow the new name.
- An element whose condition fails is left out as if it were hidden (`isHidden`): it is
  not drawn and takes no space, so it pushes nothing (a table left out has no followers).
- `repeat` is refused on an element that splits across sheets (ElementType.splitting: a
  table, a text that flows).
"""

from __future__ import annotations

import math
from typing import Any

from ..elements import ELEMENT_TYPES, Condition, ElementType
from .placeholder_variables import field_value
from .tree import DesignTree


def as_text(value: Any) -> str:
    """A value as showIf compares it: text as it is; list items one per line (a list
    text); numbers as JSON writes them, with no trailing '.0' (3.0 is "3"); booleans as
    "true"/"false"; null as "". So `equals: 3` matches the text "3" but not "3.00"."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return "\n".join(as_text(item) for item in value)
    return str(value)


def _bound_node(tree: DesignTree, name: str) -> tuple[Any, ElementType] | None:
    variable = tree.variables.get(name)
    node = tree.nodes.get(getattr(variable, "nodeId", None) or "") if variable is not None else None
    if node is None or ELEMENT_TYPES[node.type].variable is None:
        return None
    return node, ELEMENT_TYPES[node.type]


def variable_value(tree: DesignTree, name: str) -> Any:
    """The value a variable has in a tree with the generation's values applied (its bound
    element's field, e.g. a text's data.content), or its design-time content when the
    generation gave none. A field variable (extensions.md 1: no element) has the text its
    placeholders show: the generation's value, else the sample. None for a name with neither."""
    variable = tree.variables.get(name)
    if variable is not None and variable.nodeId is None:
        return field_value(tree, name)
    found = _bound_node(tree, name)
    if found is None:
        return None
    node, element = found
    assert element.variable is not None
    value: Any = node
    for part in element.variable.field.split("."):
        value = getattr(value, part)
    return value


def _is_empty(tree: DesignTree, name: str) -> bool:
    found = _bound_node(tree, name)
    if found is not None and found[1].variable is not None and found[1].variable.is_empty is not None:
        return found[1].variable.is_empty(found[0])
    return variable_value(tree, name) in (None, "", [])


def holds(tree: DesignTree, condition: Condition) -> bool:
    """Whether the condition holds in `tree` (values applied). With equals or notEquals the
    value and the operand are compared as text (as_text); with neither it holds when the
    value is not empty: not "", not null, not an empty list, not a table with no text
    below its header."""
    if condition.variable is None:
        return True  # an expression (extensions.md 11): decided when the tree is resolved (engine.design.computed)
    if condition.equals is not None:
        return as_text(variable_value(tree, condition.variable)) == as_text(condition.equals)
    if condition.notEquals is not None:
        return as_text(variable_value(tree, condition.variable)) != as_text(condition.notEquals)
    return not _is_empty(tree, condition.variable)


def is_shown(tree: DesignTree, node: Any) -> bool:
    """The node is drawn: not hidden, and its condition (if any) holds."""
    return not node.isHidden and (node.showIf is None or holds(tree, node.showIf))


def check_condition(tree: DesignTree, condition: Condition) -> None:
    """Refuse a condition naming no variable of the design, or comparing one that cannot be
    compared (a table's grid)."""
    name = condition.variable
    if name is None:
        return  # an expression: checked with the design's other expressions (engine.design.computed)
    if name not in tree.variables:
        known = ", ".join(f"'{n}'" for n in sorted(tree.variables)) or "none yet"
        raise ValueError(
            f"showIf.variable: the design has no variable '{name}' (its variables: {known}); "
            "bind an element with bind_variable or add a {placeholder} to a text with fields first, "
            "or name one of its variables"
        )
    found = _bound_node(tree, name)
    compares = condition.equals is not None or condition.notEquals is not None
    if compares and found is not None and found[1].variable is not None and not found[1].variable.comparable:
        raise ValueError(
            f"showIf: the {found[1].variable.kind} variable '{name}' cannot be compared with equals or notEquals; "
            "leave both out to draw the element when it is not empty"
        )


def check_repeat(node: Any) -> None:
    """Refuse `repeat` on an element that splits across sheets: it cannot also be furniture."""
    if node.repeat == "none":
        return
    element = ELEMENT_TYPES[node.type]
    if not element.splitting(node):
        return
    condition = element.split_condition
    which = f"a {element.title.lower()}" + (f" with {condition}" if condition else "")
    fix = "set repeat to 'none'" + (f" or change {condition}" if condition else "")
    raise ValueError(f"repeat: {which} cannot repeat (it continues on new sheets); {fix}")


def rename_variable(tree: DesignTree, old: str, new: str) -> None:
    """Conditions naming a renamed variable follow its new name."""
    for node_id, node in tree.nodes.items():
        if node.showIf is not None and node.showIf.variable == old:
            tree.nodes[node_id] = node.model_copy(update={"showIf": node.showIf.model_copy(update={"variable": new})})


def drop_orphan_conditions(tree: DesignTree) -> list[str]:
    """Remove every condition whose variable the design no longer has; the names of the
    elements that lost theirs."""
    dropped = []
    for node_id, node in tree.nodes.items():
        if node.showIf is not None and node.showIf.variable is not None and node.showIf.variable not in tree.variables:
            tree.nodes[node_id] = node.model_copy(update={"showIf": None})
            dropped.append(node.name)
    return dropped


__all__ = [
    "as_text",
    "check_condition",
    "check_repeat",
    "drop_orphan_conditions",
    "holds",
    "is_shown",
    "rename_variable",
    "variable_value",
]
