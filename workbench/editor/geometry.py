"""Between the canvas's boxes and the element models: derived boxes, resize rules,
position patches, defaults and unique names.

Nothing here names an element type: titles, defaults and resize rules are each
type's declaration (engine.elements.base.ElementType), so a plugin type is in the
toolbar and resizes like a built-in one.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from engine import DesignTree
from engine.elements import ELEMENT_TYPES


def element_kinds() -> list[tuple[str, str]]:
    """(type, title) of every element type, in the registry's order: the toolbar's buttons."""
    return [(name, element.title) for name, element in ELEMENT_TYPES.items()]


def resize_mode(element_type: str) -> str:
    return ELEMENT_TYPES[element_type].resize_mode


def box_of(node: Any) -> dict:
    w, h = ELEMENT_TYPES[node.type].measure(node)
    return {"x": node.position.x, "y": node.position.y, "w": round(w, 2), "h": round(h, 2)}


def boxes(tree: DesignTree, page: int) -> list[dict]:
    """The page's elements in paint order, as the canvas draws them."""
    out = []
    for node_id in tree.pages[page].elements:
        node = tree.nodes[node_id]
        out.append(
            {
                "id": node.id,
                "name": node.name,
                "type": node.type,
                **box_of(node),
                "resize": resize_mode(node.type),
                "hidden": node.isHidden,
                "locked": node.isLocked,
                "keeps_aspect": ELEMENT_TYPES[node.type].keeps_aspect,
                "hit": ELEMENT_TYPES[node.type].hit_area(node),
            }
        )
    return out


def placement_patch(node: Any, change: dict, resized: bool) -> dict:
    """The update_element args that put a node at the box the canvas reports."""
    patch: dict[str, Any] = {}
    if resized:
        element = ELEMENT_TYPES[node.type]
        patch = element.resized(node, round(change["w"], 2), round(change["h"], 2))
    position = {"x": round(change["x"], 2), "y": round(change["y"], 2), **patch.get("position", {})}
    args: dict[str, Any] = {"id": node.id, **patch, "position": position}
    return {"type": "update_element", "args": args}


def unique_name(tree: DesignTree, base: str) -> str:
    taken = {node.name for node in tree.nodes.values()}
    stem = re.sub(r"( copy)?( \d+)?$", "", base) or base
    for n in range(1, 10_000):
        candidate = f"{stem} {n}"
        if candidate not in taken:
            return candidate
    raise ValueError("too many elements with this name")


def new_element(tree: DesignTree, element_type: str, page: int, at: tuple[float, float], **data: Any) -> dict:
    """add_element for a new element of the type, at `at`, with the type's defaults."""
    element = ELEMENT_TYPES[element_type]
    default = copy.deepcopy(element.defaults)  # the declaration is shared: the action gets its own copy
    args = {
        "type": element_type,
        "name": unique_name(tree, element.title),
        "page": page,
        "position": {"x": at[0], "y": at[1], **default.get("position", {})},
        "data": {**default.get("data", {}), **data},
    }
    if default.get("styles"):
        args["styles"] = default["styles"]
    return {"type": "add_element", "args": args}


def pasted(tree: DesignTree, copied: list[dict], page: int) -> list[dict]:
    """add_element actions for copied nodes: new names, nudged down and right."""
    actions = []
    names = {node.name for node in tree.nodes.values()}
    for node in copied:
        name = f"{node['name']} copy"
        n = 2
        while name in names:
            name, n = f"{node['name']} copy {n}", n + 1
        names.add(name)
        position = {**node["position"], "x": node["position"]["x"] + 12, "y": node["position"]["y"] + 12}
        args = {k: node[k] for k in ("type", "data", "styles", "isHidden") if k in node}
        actions.append({"type": "add_element", "args": {**args, "name": name, "page": page, "position": position}})
    return actions
