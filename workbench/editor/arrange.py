"""Align and distribute a selection: where each element goes, as update_element actions.

Pure placement: from nodes (and the page's size) to the patches that move them, with
nothing sent. Boxes are measured by each element type (`geometry.box_of`), so a text's
derived height aligns like a shape's, and nothing here names a type.

Locked elements are never moved, but they still count in the selection's bounds: a
locked element is the natural anchor the others line up with.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .geometry import box_of, placement_patch

ALIGNMENTS = ("left", "centre", "right", "top", "middle", "bottom")
AXES = ("horizontal", "vertical")


def bounds(boxes: Iterable[dict]) -> dict:
    """The smallest box holding every box."""
    boxes = list(boxes)
    left = min(b["x"] for b in boxes)
    top = min(b["y"] for b in boxes)
    right = max(b["x"] + b["w"] for b in boxes)
    bottom = max(b["y"] + b["h"] for b in boxes)
    return {"x": left, "y": top, "w": right - left, "h": bottom - top}


def align(nodes: Sequence[Any], how: str, page_size: tuple[float, float]) -> list[dict]:
    """Line the nodes up on one edge or centre line of their bounding box; a single node is
    lined up with the page (`page_size` is its width and height in points)."""
    if how not in ALIGNMENTS:
        raise ValueError(f"unknown alignment {how!r}: one of {', '.join(ALIGNMENTS)}")
    if not nodes:
        return []
    boxes = {node.id: box_of(node) for node in nodes}
    frame = {"x": 0.0, "y": 0.0, "w": page_size[0], "h": page_size[1]} if len(nodes) == 1 else bounds(boxes.values())
    targets = {
        "left": lambda b: (frame["x"], b["y"]),
        "centre": lambda b: (frame["x"] + (frame["w"] - b["w"]) / 2, b["y"]),
        "right": lambda b: (frame["x"] + frame["w"] - b["w"], b["y"]),
        "top": lambda b: (b["x"], frame["y"]),
        "middle": lambda b: (b["x"], frame["y"] + (frame["h"] - b["h"]) / 2),
        "bottom": lambda b: (b["x"], frame["y"] + frame["h"] - b["h"]),
    }
    return _moves(nodes, {node.id: targets[how](boxes[node.id]) for node in nodes})


def distribute(nodes: Sequence[Any], axis: str) -> list[dict]:
    """Space the nodes with equal gaps along the axis, between the first and the last (which
    stay put), keeping their order along it."""
    if axis not in AXES:
        raise ValueError(f"unknown axis {axis!r}: one of {', '.join(AXES)}")
    if len(nodes) < 3:
        raise ValueError("Select three or more elements to distribute them.")
    start, size = ("x", "w") if axis == "horizontal" else ("y", "h")
    boxes = {node.id: box_of(node) for node in nodes}
    ordered = sorted(nodes, key=lambda node: (boxes[node.id][start], boxes[node.id][start] + boxes[node.id][size]))
    first = boxes[ordered[0].id][start]
    end = max(b[start] + b[size] for b in boxes.values())
    gap = (end - first - sum(b[size] for b in boxes.values())) / (len(nodes) - 1)
    targets: dict[str, tuple[float, float]] = {}
    cursor = first
    for node in ordered:
        box = boxes[node.id]
        targets[node.id] = (cursor, box["y"]) if axis == "horizontal" else (box["x"], cursor)
        cursor += box[size] + gap
    return _moves(nodes, targets)


def _moves(nodes: Sequence[Any], targets: dict[str, tuple[float, float]]) -> list[dict]:
    """The placement patches of the unlocked nodes whose (rounded) place changes."""
    actions = []
    for node in nodes:
        x, y = (round(v, 2) for v in targets[node.id])
        if node.isLocked or (x, y) == (node.position.x, node.position.y):
            continue
        actions.append(placement_patch(node, {"x": x, "y": y}, resized=False))
    return actions
