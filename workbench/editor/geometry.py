"""Between the canvas's boxes and the element models: derived boxes, resize rules,
position patches, defaults and unique names.

How an element may be resized follows from its position model: `{x, y, w, h}` is
free, `{x, y, size}` stays square, `{x, y, maxWidth}` (text) takes a width only, and
a table (`{x, y}`) is widened by scaling its column widths.
"""

from __future__ import annotations

import re
from typing import Any

from engine import DesignTree
from engine.elements import ELEMENT_TYPES

# Sensible first content for each type (the toolbar's "add"); sizes in points.
DEFAULTS: dict[str, dict[str, Any]] = {
    "text": {
        "position": {"maxWidth": 220},
        "data": {"content": "Your text here"},
        "styles": {"fontSize": 16},
    },
    "image": {"position": {"w": 140, "h": 100}, "data": {"fit": "contain"}},
    "table": {
        "position": {},
        "data": {"cells": [["Item", "Qty", "Price"], ["", "", ""], ["", "", ""]], "columnWidths": [140, 60, 80]},
    },
    "shape": {
        "position": {"w": 140, "h": 90},
        "data": {"shapeType": "rectangle"},
        "styles": {"fill": "#dbe7f7", "stroke": "#1f4e8c"},
    },
    "icon": {"position": {"w": 48, "h": 48}, "data": {"iconId": "star"}, "styles": {"color": "#1f4e8c"}},
    "qr": {"position": {"size": 96}, "data": {"content": "https://example.com"}},
    "barcode": {"position": {"w": 200, "h": 70}, "data": {"content": "DOCBENCH-0001", "format": "CODE128"}},
}
TITLES = {
    "qr": "QR code",
    "barcode": "Barcode",
    "text": "Text",
    "image": "Image",
    "table": "Table",
    "shape": "Shape",
    "icon": "Icon",
}


def resize_mode(element_type: str) -> str:
    fields = set(ELEMENT_TYPES[element_type].Position.model_fields)
    if {"w", "h"} <= fields:
        return "free"
    if "size" in fields:
        return "square"
    return "width"


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
            }
        )
    return out


def placement_patch(node: Any, change: dict, resized: bool) -> dict:
    """The update_element args that put a node at the box the canvas reports."""
    position: dict[str, Any] = {"x": round(change["x"], 2), "y": round(change["y"], 2)}
    data: dict[str, Any] = {}
    mode = resize_mode(node.type)
    if resized and mode == "free":
        position.update(w=round(change["w"], 2), h=round(change["h"], 2))
    elif resized and mode == "square":
        position["size"] = round(change["w"], 2)
    elif resized and "maxWidth" in type(node.position).model_fields:
        position["maxWidth"] = round(change["w"], 2)
    elif resized and node.type == "table":
        current = box_of(node)["w"] or 1
        if node.data.columnWidths:
            factor = change["w"] / current
            data["columnWidths"] = [round(width * factor, 2) for width in node.data.columnWidths]
        else:
            data["width"] = round(change["w"], 2)
    args: dict[str, Any] = {"id": node.id, "position": position}
    if data:
        args["data"] = data
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
    default = DEFAULTS[element_type]
    args = {
        "type": element_type,
        "name": unique_name(tree, TITLES[element_type]),
        "page": page,
        "position": {"x": at[0], "y": at[1], **default["position"]},
        "data": {**default["data"], **data},
    }
    if "styles" in default:
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
