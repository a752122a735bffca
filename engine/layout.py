"""Page layout: where every element lands, including tables that grow.

The rule (README, "Tables that grow"): elements whose top lies at or below a
table's designed bottom edge follow that table. When the table's rows change its
height, they move by the same amount; when it runs past the page's bottom margin,
it continues on a new page of the same format with its header row repeated, and
the elements that follow it come after it there. A follower that no longer fits
moves to the next page, keeping its distance to the followers after it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from .elements import ELEMENT_TYPES, Box
from .fields import FieldSyntaxError, uses_sheet
from .tree import Background, DesignTree, Page

FLOW_MARGIN = 36.0  # half an inch: the top and bottom margins of flowing content (less on small pages)


@dataclass
class Placement:
    node: Any
    box: Box
    part: Any = None  # a table's rows on this page


@dataclass
class LaidOutPage:
    source: int  # index of the design page it comes from
    page: Page
    background: Background
    placements: list[Placement] = field(default_factory=list)


def effective_background(tree: DesignTree, page: Page) -> Background:
    """Page fields override the document's, field by field."""
    doc = tree.background
    return Background(
        backgroundColor=page.backgroundColor or doc.backgroundColor,
        backgroundImage=page.backgroundImage or doc.backgroundImage,
        backgroundSize=page.backgroundSize or doc.backgroundSize,
    )


def _box(node: Any) -> Box:
    w, h = ELEMENT_TYPES[node.type].measure(node)
    return Box(node.position.x, node.position.y, w, h)


def page_digest(tree: Mapping[str, Any], index: int) -> str:
    """A hash of everything a design-time picture of page `index` is drawn from, given the
    tree in its JSON form: the page's own fields (size, background), the nodes it lists, in
    paint order, and the document background its fields fall back to (effective_background).
    Other pages, variables and metadata never reach its pixels, so editing them keeps the
    digest: previews are cached by it. Image bytes replaced in place are the caller's part."""
    sheet = tree["pages"][index]
    nodes = tree.get("nodes", {})
    drawn = {
        "page": sheet,
        "nodes": [nodes.get(node_id) for node_id in sheet.get("elements", [])],
        "background": tree.get("background"),
    }
    if any(_shows_sheet_numbers(node) for node in drawn["nodes"]):
        # {page} and {pages} depend on the sheets every page lays out (extensions.md 1).
        drawn["document"] = {"index": index, "pages": tree["pages"], "nodes": nodes}
    return hashlib.sha256(json.dumps(drawn, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _shows_sheet_numbers(node: Mapping[str, Any] | None) -> bool:
    """Whether a node (JSON form) shows {page} or {pages}: a text with fields on."""
    data = (node or {}).get("data") or {}
    if not data.get("fields"):
        return False
    content = data.get("content", "")
    try:
        return uses_sheet(content if isinstance(content, list) else [content])
    except (FieldSyntaxError, TypeError):
        return False


def page_without(tree: Mapping[str, Any], index: int, left_out: Collection[str]) -> dict[str, Any]:
    """The tree (JSON form) with the elements `left_out` taken off page `index`'s list: what the
    editor shows under a drag, the page as it would be without the dragged elements. Their nodes
    stay (variables may name them); ids not on the page change nothing. Its page_digest does not
    depend on where the left-out elements are, so dragging one element again is the same picture."""
    gone = set(left_out)
    pages = list(tree["pages"])
    sheet = pages[index]
    pages[index] = {**sheet, "elements": [i for i in sheet.get("elements", []) if i not in gone]}
    return {**tree, "pages": pages}


def layout(design: DesignTree, filled: DesignTree | None = None, pages: list[int] | None = None) -> list[LaidOutPage]:
    """Lay out `filled` (the design with values applied) against the design's geometry."""
    filled = filled or design
    out: list[LaidOutPage] = []
    for index in pages if pages is not None else range(len(design.pages)):
        out.extend(_layout_page(design, filled, index))
    return out


def flow_margin(page: Page) -> float:
    """Top and bottom margin of flowing content: half an inch, less on label-sized pages."""
    return min(FLOW_MARGIN, page.height / 20)


def _layout_page(design: DesignTree, filled: DesignTree, index: int) -> list[LaidOutPage]:
    page = filled.pages[index]
    background = effective_background(filled, page)
    sheets = [LaidOutPage(index, page, background)]
    nodes = [filled.nodes[i] for i in page.elements if not filled.nodes[i].isHidden]
    designed = {n.id: _box(design.nodes[n.id]) for n in nodes}
    # Elements that split across sheets (tables); the others follow the ones above them.
    tables = [n for n in nodes if ELEMENT_TYPES[n.type].splits]
    margin = flow_margin(page)
    limit = page.height - margin

    def sheet(k: int) -> LaidOutPage:
        while len(sheets) <= k:
            sheets.append(LaidOutPage(index, page, background))
        return sheets[k]

    ends: dict[str, tuple[int, float]] = {}  # table id -> (sheet, bottom y)
    spills: dict[str, tuple[int, float]] = {}  # table id -> (sheet, y origin) once its followers spill over
    placed: list[tuple[int, Placement]] = []
    for node in sorted(nodes, key=lambda n: (designed[n.id].y, not ELEMENT_TYPES[n.type].splits)):
        own = designed[node.id]
        actual = _box(node)
        paginate = ELEMENT_TYPES[node.type].paginate
        anchors = _anchors(node, own, tables, designed)
        if not anchors:
            sheet_index, top = 0, own.y
            # A table designed to reach into the margin may keep its designed extent, never past the sheet.
            bottom = max(limit, min(own.bottom, page.height))
        else:
            # Follow whichever table above ends lowest, keeping the designed distance to it.
            sheet_index, top, anchor = max(
                ((ends[t.id][0], ends[t.id][1] + own.y - designed[t.id].bottom, t) for t in anchors),
                key=lambda c: (c[0], c[1]),
            )
            bottom = limit
            offset = own.y - designed[anchor.id].bottom
            if paginate is None:  # tables split across sheets instead of jumping whole
                spill = spills.get(anchor.id)
                if spill is None and top + actual.h > max(limit, own.bottom) and top > margin:
                    spill = spills[anchor.id] = (sheet_index + 1, margin - offset)
                if spill is not None:
                    sheet_index, top = spill[0], spill[1] + offset
        box = Box(node.position.x, top, actual.w, actual.h)
        if paginate is None:
            placed.append((sheet_index, Placement(node, box)))
            continue
        for part in paginate(node, bottom - top, limit - margin):
            if part.end > part.start:
                placed.append((sheet_index, Placement(node, Box(box.x, top, box.w, part.height), part)))
                ends[node.id] = (sheet_index, top + part.height)
            sheet_index, top = sheet_index + 1, margin
    # Paint order stays the design's, whatever order elements were placed in.
    paint_order = {node_id: i for i, node_id in enumerate(page.elements)}
    for sheet_index, placement in sorted(placed, key=lambda p: paint_order[p[1].node.id]):
        sheet(sheet_index).placements.append(placement)
    return sheets


def _anchors(node: Any, own: Box, tables: list[Any], designed: dict[str, Box]) -> list[Any]:
    """The tables this element follows: those that start above it and end at or above its top."""
    return [t for t in tables if t.id != node.id and designed[t.id].y < own.y and designed[t.id].bottom <= own.y + 0.01]
