"""Generation values: checking them against a design's variables and applying them.

A supplied value replaces the bound element's content, and a field variable's value
fills its `{name}` placeholders (extensions.md 1); a variable not supplied renders its
design-time content or sample (spec 4.11). Unknown names and values of the wrong
type are errors naming the variable (decisions.md, "Generation values").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..elements import ELEMENT_TYPES
from ..elements.text import MAX_TEXT_CHARACTERS
from ..errors import ValueBindingError
from ..text.placeholders import value_text
from . import computed
from .placeholder_variables import FIELD_ACCEPTS, FIELD_KIND, field_value, fill_fields, placeholder_nodes
from .tree import DesignTree


def _bound(tree: DesignTree, values: Mapping[str, Any]) -> dict[str, Any]:
    """Each supplied value's bound node with the value applied, by node id; the texts holding
    placeholders of the supplied names show the values too (extensions.md 1)."""
    if not isinstance(values, Mapping):
        raise ValueBindingError("data", "expected an object of variable name to value")
    updated: dict[str, Any] = {}
    placeholders = placeholder_nodes(tree)
    field_texts: dict[str, str] = {}  # what each filled placeholder shows, by variable name
    for name, value in values.items():
        variable = tree.variables.get(name)
        if variable is None:
            known = ", ".join(sorted(tree.variables)) or "none"
            raise ValueBindingError(name, f"no such variable in this design (its variables: {known})")
        try:
            if variable.nodeId is None:  # a placeholder only
                field_texts[name] = value_text(value)
                if len(field_texts[name]) > MAX_TEXT_CHARACTERS:
                    raise ValueError(
                        f"the value is {len(field_texts[name]):,} characters; a text element shows at most "
                        f"{MAX_TEXT_CHARACTERS:,}: send a shorter value"
                    )
                continue
            node = tree.nodes[variable.nodeId]
            spec = ELEMENT_TYPES[node.type].variable
            assert spec is not None  # only bindable elements become variables
            updated[node.id] = spec.apply(node, value)
        except ValueError as exc:
            raise ValueBindingError(name, str(exc)) from None
        if spec.field_text is not None and name in placeholders:
            field_texts[name] = spec.field_text(updated[node.id])
    if field_texts:
        fill_fields(tree, field_texts, updated)
    return updated


def check_values(tree: DesignTree, values: Mapping[str, Any]) -> None:
    """Raise ValueBindingError unless every value fits its variable."""
    _bound(tree, values)


def apply_values(tree: DesignTree, values: Mapping[str, Any] | None) -> DesignTree:
    """A copy of the tree with the values in place (the input is not changed)."""
    if not values:
        return tree
    updated = _bound(tree, values)
    return tree.model_copy(update={"nodes": {**tree.nodes, **updated}})


def describe_variables(tree: DesignTree) -> list[dict]:
    """What each variable takes, for catalogs, notebooks and error messages."""
    out = []
    for name, variable in tree.variables.items():
        if variable.nodeId is None:
            out.append({"name": name, "kind": variable.kind, "elementId": None, "accepts": FIELD_ACCEPTS})
            continue
        spec = ELEMENT_TYPES[tree.nodes[variable.nodeId].type].variable
        out.append(
            {"name": name, "kind": variable.kind, "elementId": variable.nodeId, "accepts": spec.accepts if spec else ""}
        )
    return out


def image_variable_names(tree: DesignTree) -> set[str]:
    """Names of the variables whose value is an image ref (their element's VariableSpec
    says so): the service checks such values exist and ships their bytes to rendering."""
    names = set()
    for name, variable in tree.variables.items():
        if variable.nodeId is None:
            continue  # a placeholder: text
        spec = ELEMENT_TYPES[tree.nodes[variable.nodeId].type].variable
        if spec is not None and spec.image_ref:
            names.add(name)
    return names


def _field_value(node: Any, path: str) -> Any:
    part, _, name = path.partition(".")
    value = getattr(getattr(node, part), name)
    return value.model_dump() if hasattr(value, "model_dump") else value


def list_variables(tree: DesignTree) -> list[dict]:
    """Every variable, bound elements and fields alike (extensions.md 5): its name, kind, what
    a value must be, its design-time sample, the names of the elements it fills, and those of
    the elements whose expressions read it (extensions.md 11: readBy)."""
    holders = placeholder_nodes(tree)
    readers = computed.read_by(tree)
    out = []
    for name, variable in tree.variables.items():
        filled = [node.name for node in holders.get(name, [])]
        read_by = readers.get(name, [])
        if variable.nodeId is None:
            sample = field_value(tree, name)
            out.append(
                {
                    "name": name,
                    "kind": FIELD_KIND,
                    "accepts": FIELD_ACCEPTS,
                    "sample": sample,
                    "elements": filled,
                    "readBy": read_by,
                }
            )
            continue
        node = tree.nodes[variable.nodeId]
        spec = ELEMENT_TYPES[node.type].variable
        assert spec is not None  # only bindable elements become variables
        out.append(
            {
                "name": name,
                "kind": variable.kind,
                "accepts": spec.accepts + (f"; it also fills {{{name}}} in texts" if filled else ""),
                "sample": _field_value(node, spec.field),
                "elements": [node.name, *filled],
                "readBy": read_by,
            }
        )
    return out
