"""Placeholders as variables of a design (extensions.md 1).

Every `{name}` placeholder of a text is a variable: the tree's `variables` lists it with
kind "field" and no element (`nodeId` null). A name that is also a bound text element's
variable is one variable, bound to that element: its value fills the element and every
`{name}`, and its sample is the element's design-time content. A placeholder may not take
the name of a bound element of another type (an image, a table, ...), nor `{page}` and
`{pages}`' place: those are the sheet's number and count, never variables.

Element types say what they take part with: `ElementType.fields` (a type whose content holds
placeholders) and `VariableSpec.field_text` (a bound type whose value a placeholder shows).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..elements import ELEMENT_TYPES
from ..text.placeholders import RESERVED
from .tree import DesignTree, Variable

FIELD_KIND = "field"
FIELD_ACCEPTS = "a string or a number, inserted as literal text"


def field_names(node: Any) -> tuple[str, ...]:
    """The node's placeholders that are variables; () for a type without fields."""
    host = ELEMENT_TYPES[node.type].fields
    return host.names(node) if host is not None else ()


def placeholder_nodes(tree: DesignTree) -> dict[str, list[Any]]:
    """Each placeholder name -> the nodes holding it, in the tree's order."""
    found: dict[str, list[Any]] = {}
    for node in tree.nodes.values():
        for name in field_names(node):
            found.setdefault(name, []).append(node)
    return found


def _shared_text(tree: DesignTree, name: str) -> Any:
    """The node bound under `name` whose value a placeholder of that name shows, or None."""
    variable = tree.variables.get(name)
    if variable is None or variable.nodeId is None:
        return None
    return tree.nodes[variable.nodeId]


def field_value(tree: DesignTree, name: str) -> str | None:
    """What the placeholders of field variable `name` show: the generation's value once the
    values are applied (they replace the samples, fill_fields), else the first sample a
    holder gives; None when there is neither (the placeholders show "")."""
    for node in tree.nodes.values():
        host = ELEMENT_TYPES[node.type].fields
        if host is not None and name in host.names(node):
            sample = host.sample(node, name)
            if sample is not None:
                return sample
    return None


def check_placeholders(tree: DesignTree, names: Iterable[str]) -> None:
    """Refuse placeholders named after a bound element whose type no placeholder can show
    (add_element, update_element of a text)."""
    for name in names:
        bound = _shared_text(tree, name)
        if bound is not None and ELEMENT_TYPES[bound.type].variable.field_text is None:  # type: ignore[union-attr]
            title = ELEMENT_TYPES[bound.type].title.lower()
            raise ValueError(
                f"placeholder {{{name}}} has the name of the bound {title} '{name}': a placeholder shows text, "
                "so rename the placeholder or the element"
            )


def check_binding(tree: DesignTree, node: Any, name: str) -> None:
    """Refuse a variable `name` for the node (bind_variable, or renaming a bound element) when
    the name is reserved, or a placeholder's while the node's type cannot fill one."""
    if name in RESERVED:
        raise ValueError(
            f"'{name}' is reserved: {{page}} and {{pages}} show the sheet's number and the sheet count; "
            "rename the element to bind it"
        )
    spec = ELEMENT_TYPES[node.type].variable
    if spec is None or spec.field_text is not None:
        return
    holders = [other.name for other in tree.nodes.values() if other.id != node.id and name in field_names(other)]
    if holders:
        title = ELEMENT_TYPES[node.type].title.lower()
        raise ValueError(
            f"'{name}' is a placeholder in {', '.join(repr(h) for h in holders)}: a {title} cannot fill a "
            "placeholder, so rename the element or the placeholder"
        )


def sync_field_variables(tree: DesignTree) -> None:
    """Make the tree's variables list its placeholders (in place, after actions): a field
    variable per placeholder name no bound element has, none for names no text holds any more,
    and the sample of a name shared with a bound text set from that text's content."""
    holders = placeholder_nodes(tree)
    for name in [n for n, v in tree.variables.items() if v.nodeId is None and n not in holders]:
        del tree.variables[name]
    for name, nodes in holders.items():
        bound = _shared_text(tree, name)
        if bound is None:
            tree.variables.setdefault(name, Variable(nodeId=None, kind=FIELD_KIND))
            continue
        field_text = ELEMENT_TYPES[bound.type].variable.field_text  # type: ignore[union-attr]
        if field_text is None:
            continue  # refused by the actions; a tree saved otherwise keeps its element's binding
        sample = field_text(bound)
        for node in nodes:
            host = ELEMENT_TYPES[node.type].fields
            assert host is not None  # placeholder_nodes holds hosts only
            tree.nodes[node.id] = host.filled(tree.nodes[node.id], {name: sample})


def fill_fields(tree: DesignTree, texts: Mapping[str, str], updated: dict[str, Any]) -> None:
    """Show `texts` (variable name -> text) in every placeholder of those names: each node
    holding one is added to `updated` (node id -> node), on top of its bound value if any."""
    for node in tree.nodes.values():
        host = ELEMENT_TYPES[node.type].fields
        if host is None:
            continue
        mine = {name: texts[name] for name in host.names(node) if name in texts}
        if mine:
            updated[node.id] = host.filled(updated.get(node.id, node), mine)


def shows_sheet_numbers(tree: DesignTree) -> bool:
    """True when a text of the tree shows {page} or {pages}."""
    for node in tree.nodes.values():
        host = ELEMENT_TYPES[node.type].fields
        if host is not None and host.shows_sheet(node):
            return True
    return False
