"""Page layout: where every element lands, including tables that grow and text that flows.

The rule (the manual, "Tables that grow"), for every element that splits (a table, a text
with overflow "flow": ElementType.splitting): elements whose top lies at or below its
designed bottom edge follow it. When its content changes its height, they move by the
same amount; when it runs past the page's bottom margin, it continues on a new page of
the same format (a table with its header row repeated), and the elements that follow it
come after it there. A follower that no longer fits moves to the next page, keeping its
distance to the followers after it.

Design-time content grows as values do: elements lying on a splitting element's content
(below its top, across its width) follow it as if its designed content ended at the last
row or line above the first of them (`_reach`). So a design whose table holds 60 rows lays
out as the same design with 5 rows and those 60 sent as values.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..design.conditions import holds, is_shown
from ..design.tree import Background, DesignTree, Page
from ..elements import ELEMENT_TYPES, Box
from ..text.placeholders import FieldSyntaxError, uses_sheet

FLOW_MARGIN = 36.0  # half an inch: the top and bottom margins of flowing content (less on small pages)


@dataclass
class Placement:
    node: Any
    box: Box
    part: Any = None  # a split element's share of this page (a table's rows, a text's lines)
    # A repeated element drawn again (extensions.md 4): a pagination artifact in the tagged profiles.
    repeated_copy: bool = False


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
        # The page number goes with the image it numbers a page of (extensions.md 12).
        backgroundPageNumber=page.backgroundPageNumber if page.backgroundImage else doc.backgroundPageNumber,
    )


def _box(node: Any) -> Box:
    w, h = ELEMENT_TYPES[node.type].measure(node)
    return Box(node.position.x, node.position.y, w, h)


def page_digest(tree: Mapping[str, Any], index: int) -> str:
    """A hash of everything a design-time picture of page `index` is drawn from, given the
    tree in its JSON form: the page's own fields (size, background), the nodes it lists, in
    paint order, and the document background its fields fall back to (effective_background).
    Other pages, variables and metadata other than the language never reach its pixels, so
    editing them keeps the digest: previews are cached by it. Image bytes replaced in place
    are the caller's part."""
    sheet = tree["pages"][index]
    nodes = tree.get("nodes", {})
    drawn = {
        "page": sheet,
        "nodes": [nodes.get(node_id) for node_id in sheet.get("elements", [])],
        "background": tree.get("background"),
    }
    language = (tree.get("metadata") or {}).get("language")
    if language:  # the language of its texts without one (engine.design.languages): their faces
        drawn["language"] = language
    beyond = _drawn_from_elsewhere(tree, index)
    if beyond:
        drawn["beyond"] = beyond
    if any(_computes(node) for node in drawn["nodes"] + beyond.get("furniture", [])):
        # Expressions may read any variable of the design (extensions.md 11).
        drawn["computed"] = {"nodes": nodes, "variables": tree.get("variables")}
    if any(_shows_sheet_numbers(node) for node in drawn["nodes"] + beyond.get("furniture", [])):
        # {page} and {pages} depend on the sheets every page lays out (extensions.md 1).
        drawn["document"] = {"index": index, "pages": tree["pages"], "nodes": nodes}
    return hashlib.sha256(json.dumps(drawn, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _drawn_from_elsewhere(tree: Mapping[str, Any], index: int) -> dict[str, Any]:
    """What else page `index`'s picture depends on (extensions.md 4, tree in JSON form): the
    other pages' elements repeated on every sheet, and the elements bound to the variables
    that conditions drawn here test. Empty for a design that uses neither."""
    nodes = tree.get("nodes", {})
    furniture = [
        nodes.get(node_id)
        for number, page in enumerate(tree["pages"])
        if number != index
        for node_id in page.get("elements", [])
        if (nodes.get(node_id) or {}).get("repeat") == "pages"
    ]
    here = [nodes.get(node_id) for node_id in tree["pages"][index].get("elements", [])] + furniture
    tested = sorted(
        {node["showIf"]["variable"] for node in here if node and (node.get("showIf") or {}).get("variable")}
    )
    variables = tree.get("variables", {})
    conditions = {name: _condition_source(nodes, variables.get(name) or {}, name) for name in tested}
    return {"furniture": furniture, "conditions": conditions} if furniture or conditions else {}


def _condition_source(nodes: Mapping[str, Any], variable: Mapping[str, Any], name: str) -> Any:
    """What a condition on variable `name` reads at design time: its bound element, or for a
    field (extensions.md 1, no element) the samples its placeholders' texts give, in order."""
    if variable.get("nodeId"):
        return nodes.get(variable["nodeId"])
    samples = (((node or {}).get("data") or {}).get("samples") or {} for node in nodes.values())
    return [given[name] for given in samples if name in given]


def _computes(node: Mapping[str, Any] | None) -> bool:
    """Whether a node (JSON form) holds an expression that may read other elements' values."""
    data = (node or {}).get("data") or {}
    if data.get("expression") or data.get("columnDefs") or ((node or {}).get("showIf") or {}).get("expression"):
        return True
    return bool(data.get("fields")) and "{=" in json.dumps(data.get("content", ""))


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
    furniture = _furniture(filled)
    out: list[LaidOutPage] = []
    for index in pages if pages is not None else range(len(design.pages)):
        out.extend(_layout_page(design, filled, index, [_box(n) for n in _furniture_of(furniture, index)]))
    if furniture:
        _place_furniture(out, furniture)
    return out


def flow_margin(page: Page) -> float:
    """Top and bottom margin of flowing content: half an inch, less on label-sized pages."""
    return min(FLOW_MARGIN, page.height / 20)


def _layout_page(
    design: DesignTree, filled: DesignTree, index: int, furniture: Sequence[Box] = ()
) -> list[LaidOutPage]:
    """The sheets of design page `index`; `furniture`: the boxes of the repeated elements
    drawn on them (placed by _place_furniture), which bound where growing elements run."""
    page = filled.pages[index]
    background = effective_background(filled, page)
    sheets = [LaidOutPage(index, page, background)]
    # Hidden elements and those whose showIf fails take no part: nothing follows them (engine.design.conditions).
    # Repeated ones are page furniture, placed on every sheet afterwards: they follow nothing.
    nodes = [
        n
        for n in map(filled.nodes.__getitem__, page.elements)
        if not n.isHidden and n.repeat == "none" and (n.showIf is None or holds(filled, n.showIf))
    ]
    designed = {n.id: _box(design.nodes[n.id]) for n in nodes}
    # Elements that split across sheets (tables, flowing text); the others follow the ones above them.
    splitting = {n.id for n in nodes if ELEMENT_TYPES[n.type].splitting(n)}
    growing = [n for n in nodes if n.id in splitting]
    reach = {g.id: _reach(design.nodes[g.id], designed[g.id], designed.values()) for g in growing}
    margin = flow_margin(page)
    limit = page.height - margin
    bands = {t.id: _band(designed[t.id], furniture, margin, limit) for t in growing}

    def sheet(k: int) -> LaidOutPage:
        while len(sheets) <= k:
            sheets.append(LaidOutPage(index, page, background))
        return sheets[k]

    ends: dict[str, tuple[int, float]] = {}  # growing element's id -> (sheet, bottom y)
    spills: dict[str, tuple[int, float]] = {}  # its id -> (sheet, y origin) once its followers spill over
    placed: list[tuple[int, Placement]] = []
    # Each growing element's followers as placed, in order: (node, index in `placed`, offset);
    # an element with keepWithNext goes to the next sheet with the one after it (extensions.md 11).
    followers: dict[str, list[tuple[Any, int, float]]] = {}
    for node in sorted(nodes, key=lambda n: (designed[n.id].y, n.id not in splitting)):
        own = designed[node.id]
        actual = _box(node)
        paginate = ELEMENT_TYPES[node.type].paginate if node.id in splitting else None
        anchors = _anchors(node, own, growing, designed, reach)
        band_top, band_bottom = bands.get(node.id, (margin, limit))
        if not anchors:
            sheet_index, top = 0, own.y
            # A table or flowing text designed to reach into the bottom margin may keep its designed
            # extent (as the design shows it), but never runs over a repeated footer (extensions.md 4);
            # one designed past the sheet's edge breaks at its band's foot.
            kept = min(own.bottom, _footer_top(own, furniture, page.height))
            bottom = max(band_bottom, kept) if own.bottom <= page.height else band_bottom
        else:
            # Follow whichever growing element above ends lowest, keeping the designed distance to it.
            sheet_index, top, anchor = max(
                ((ends[t.id][0], ends[t.id][1] + own.y - reach[t.id], t) for t in anchors),
                key=lambda c: (c[0], c[1]),
            )
            bottom = band_bottom
            offset = own.y - reach[anchor.id]
            if paginate is None:  # tables split across sheets instead of jumping whole
                follow_top, follow_bottom = bands[anchor.id]
                spill = spills.get(anchor.id)
                if spill is None and top + actual.h > max(follow_bottom, own.bottom) and top > follow_top:
                    kept = _kept_with(followers.get(anchor.id, []), sheet_index, placed)
                    first = kept[0][2] if kept else offset  # the block moves whole: from its first element
                    spill = spills[anchor.id] = (sheet_index + 1, follow_top - first)
                    for kept_node, index, kept_offset in kept:
                        box = placed[index][1].box._replace(y=spill[1] + kept_offset)
                        placed[index] = (spill[0], Placement(kept_node, box))
                if spill is not None:
                    sheet_index, top = spill[0], spill[1] + offset
                followers.setdefault(anchor.id, []).append((node, len(placed), offset))
        box = Box(node.position.x, top, actual.w, actual.h)
        if paginate is None:
            placed.append((sheet_index, Placement(node, box)))
            continue
        for part in paginate(node, bottom - top, band_bottom - band_top):
            if part.end > part.start:
                placed.append((sheet_index, Placement(node, Box(box.x, top, box.w, part.height), part)))
                ends[node.id] = (sheet_index, top + part.height)
            sheet_index, top = sheet_index + 1, band_top
    # Paint order stays the design's, whatever order elements were placed in.
    paint_order = {node_id: i for i, node_id in enumerate(page.elements)}
    for sheet_index, placement in sorted(placed, key=lambda p: paint_order[p[1].node.id]):
        sheet(sheet_index).placements.append(placement)
    return sheets


def _kept_with(
    followers: list[tuple[Any, int, float]], sheet_index: int, placed: list[tuple[int, Placement]]
) -> list[tuple[Any, int, float]]:
    """The followers placed just before one that moves to the next sheet, on the sheet it
    leaves, that keep with the next (keepWithNext): each keeps with the one after it, so the
    run ending at the moving element moves with it."""
    kept: list[tuple[Any, int, float]] = []
    for follower in reversed(followers):
        node, index, _ = follower
        if not node.keepWithNext or placed[index][0] != sheet_index:
            break
        kept.insert(0, follower)
    return kept


def _anchors(
    node: Any, own: Box, growing: list[Any], designed: dict[str, Box], reach: dict[str, float]
) -> list[Any]:
    """The growing elements (tables, flowing texts) this element follows: those that start
    above it and whose designed content ends (`_reach`) at or above its top."""
    return [g for g in growing if g.id != node.id and designed[g.id].y < own.y and reach[g.id] <= own.y + 0.01]


def _reach(node: Any, own: Box, boxes: Iterable[Box]) -> float:
    """Where the designed content of a growing element (its design-time rows or lines) ends for
    the elements that follow it: its bottom, or, when elements lie on that content (their top
    below its top, their box across its width), the end of its last whole row or line above the
    first of them. Those were placed under the content it had before it grew at design time (rows
    pasted in the editor, a long text typed), so they follow it as they would values that long,
    keeping their distance to that row's end; without this they stayed where they were, over it."""
    lying = [
        box.y
        for box in boxes
        if own.y + 0.01 < box.y < own.bottom - 0.01 and box.x < own.x + own.w and own.x < box.x + box.w
    ]
    if not lying:
        return own.bottom
    room = min(lying) - own.y
    # A room as tall as every sheet's: the rows or lines that fit it, without pushing them to a next
    # sheet for the rules of a sheet's foot (a header left alone, an orphan line).
    head = ELEMENT_TYPES[node.type].paginate(node, room, room)[0]
    return own.y + (head.height if head.end > head.start and head.height <= room + 0.01 else 0.0)


# Repeated elements (extensions.md 4): page furniture. They keep their designed place on
# every sheet they are drawn on and never follow a growing table; a growing table runs
# between them instead of between the margins.


def _furniture(filled: DesignTree) -> list[Any]:
    """The repeated elements that are drawn (not hidden, their showIf holding), in page and
    paint order."""
    return [
        node
        for page in filled.pages
        for node in (filled.nodes[i] for i in page.elements)
        if node.repeat != "none" and is_shown(filled, node)
    ]


def _furniture_of(furniture: list[Any], index: int) -> list[Any]:
    """Those drawn on the sheets of design page `index`: its own, and the other pages' `pages` ones."""
    return [n for n in furniture if n.page == index or n.repeat == "pages"]


def _band(own: Box, furniture: Sequence[Box], margin: float, limit: float) -> tuple[float, float]:
    """(top, bottom) of the room a growing element designed at `own` has on its sheets.

    It stops above the highest repeated element lying below its designed top (a footer) and
    continues below the lowest one lying wholly above it (a header), with the gap the design
    has between that header and the element's top (extensions.md 11). One that straddles its
    top is neither. The band never reaches past the margins, and when headers and footers would
    leave less than a quarter of the room between the margins it is the margins again: the
    table then runs over them rather than into hundreds of sheets.
    """
    if not furniture:
        return margin, limit
    headers = [b.bottom for b in furniture if b.bottom <= own.y + 0.01]
    # Below the header with the gap the first sheet has between it and the element: where it starts there.
    top = max(margin, own.y) if headers and max(headers) > margin else margin
    bottom = min([limit] + [b.y for b in furniture if b.y >= own.y])
    if bottom - top < (limit - margin) / 4:
        return margin, limit
    return top, bottom


def _footer_top(own: Box, furniture: Sequence[Box], sheet_height: float) -> float:
    """The top of the highest repeated element lying below `own`'s top; the sheet's edge without one."""
    return min([sheet_height] + [b.y for b in furniture if b.y >= own.y])


def _place_furniture(sheets: list[LaidOutPage], furniture: list[Any]) -> None:
    """Put the repeated elements on their sheets: `sheets` ones on every sheet of their page,
    `pages` ones on every sheet. On their own page they keep its paint order; another page's
    are painted first, under the sheet's own elements. The first drawing of each is the
    element itself, every later one a copy (Placement.repeated_copy)."""
    boxes = {n.id: _box(n) for n in furniture}
    seen: set[str] = set()

    def placed(node: Any) -> Placement:
        copy = node.id in seen
        seen.add(node.id)
        return Placement(node, boxes[node.id], repeated_copy=copy)

    for sheet in sheets:
        here = _furniture_of(furniture, sheet.source)
        foreign = [placed(n) for n in here if n.page != sheet.source]
        own = [placed(n) for n in here if n.page == sheet.source]
        if own:
            paint_order = {node_id: i for i, node_id in enumerate(sheet.page.elements)}
            sheet.placements = sorted(sheet.placements + own, key=lambda p: paint_order[p.node.id])
        sheet.placements[:0] = foreign
