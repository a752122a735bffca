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

import engine.fonts
from engine import DesignTree
from engine.design.languages import node_in_language
from engine.elements import ELEMENT_TYPES

# A new element whose spot is taken lands this far down and right of what sits there.
LANDING_STEP = 12.0
# The browser's generic family standing in for a catalog class when the face itself is not
# loaded in the page (the editor serves no web fonts; the preview after an edit is the truth).
GENERIC_FAMILIES = {"sans": "sans-serif", "serif": "serif", "display": "sans-serif", "handwriting": "cursive"}


def element_kinds() -> list[tuple[str, str]]:
    """(type, title) of every element type, in the registry's order: the toolbar's buttons."""
    return [(name, element.title) for name, element in ELEMENT_TYPES.items()]


def resize_mode(element_type: str) -> str:
    return ELEMENT_TYPES[element_type].resize_mode


def box_of(node: Any, language: str | None = None) -> dict:
    """The node's box, measured as the PDF measures it: in the design's `language` where it has
    none of its own (engine.design.languages)."""
    w, h = ELEMENT_TYPES[node.type].measure(node_in_language(node, language))
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
                **box_of(node, tree.metadata.language),
                "resize": resize_mode(node.type),
                "hidden": node.isHidden,
                "locked": node.isLocked,
                "inline_text": inline_text(node),
                "keeps_aspect": ELEMENT_TYPES[node.type].editor.keeps_aspect,
                "hit": ELEMENT_TYPES[node.type].hit_area(node),
            }
        )
    return out


def css_font_family(family: str) -> str:
    """A CSS font-family for a catalog family: its name, then the generic family of its class."""
    entry = next((e for e in engine.fonts.families() if e.id == family), None)
    generic = GENERIC_FAMILIES.get(entry.font_class, "sans-serif") if entry else "sans-serif"
    return f'"{family}", {generic}'


def inline_text(node: Any) -> dict | None:
    """What the canvas needs to let a person type the element's text in place, from the type's
    declaration (ElementType.inline_text); None when it has none or the element is locked."""
    element = ELEMENT_TYPES[node.type]
    if element.editor.inline_text is None or node.isLocked:
        return None
    look = element.editor.inline_text.look(node)
    return {
        "text": element.typed_text(node),
        "family": look.family,  # the face the canvas asks for (Canvas._send_face)
        "font_family": css_font_family(look.family),
        "font_size": look.size,
        "font_weight": look.weight,
        "italic": look.italic,
        "underline": look.underline,
        "color": look.color,
        "align": look.align,  # start/end: CSS's, resolved by the overlay's direction as the engine does
        "direction": look.direction,  # the overlay's dir: auto, ltr or rtl
        "line_height": look.line_height,
        "wraps": look.wraps,
        # Ctrl+B/I/K on a selected part write Markdown (`markdown`: the text reads it already;
        # `formats`: the type can be switched to it); else they leave the text alone.
        "markdown": element.reads_markdown(node),
        "formats": element.editor.inline_text.markup is not None,
    }


def text_typed(node: Any, text: str, markdown: bool = False) -> dict:
    """The update_element action for text typed on the canvas: the raw field, as typed
    (`markdown`: the typing wrote Markdown into a plain text, which now reads it)."""
    args = ELEMENT_TYPES[node.type].text_typed(node, text, markdown)
    return {"type": "update_element", "args": {"id": node.id, **args}}


def landing_spot(
    page_size: tuple[float, float],
    size: tuple[float, float],
    centre: tuple[float, float] | None,
    taken: list[tuple[float, float]],
    step: float = LANDING_STEP,
) -> tuple[float, float]:
    """Where a new element of `size` lands: centred on `centre` (the middle of what the
    canvas shows, in points; the page's centre when unknown), inside the page, and stepped
    down and right past every spot already `taken` (the top-left corners of the page's
    elements), so a second new element never hides exactly behind the first."""
    page_w, page_h = page_size
    w, h = min(size[0], page_w), min(size[1], page_h)
    cx, cy = centre if centre is not None else (page_w / 2, page_h / 2)

    def inside(x: float, y: float) -> tuple[float, float]:
        return round(min(max(x, 0.0), page_w - w), 2), round(min(max(y, 0.0), page_h - h), 2)

    def is_taken(spot: tuple[float, float]) -> bool:
        return any(abs(spot[0] - x) < step / 2 and abs(spot[1] - y) < step / 2 for x, y in taken)

    first = inside(cx - w / 2, cy - h / 2)
    tries = range(1, len(taken) + 2)  # more steps than spots taken: one of them is free
    # Down and right first; back up and left when the page's corner stops the steps.
    spots = [first, *(inside(first[0] + n * step, first[1] + n * step) for n in tries)]
    spots += [inside(first[0] - n * step, first[1] - n * step) for n in tries]
    return next((spot for spot in spots if not is_taken(spot)), first)


def size_of_new(action: dict) -> tuple[float, float]:
    """The box an add_element action's element will have (a text measures its content)."""
    args = action["args"]
    element = ELEMENT_TYPES[args["type"]]
    parts = ("type", "name", "page", "position", "data", "styles")
    node = element.Node.model_validate({"id": "new", **{k: args[k] for k in parts if k in args}})
    w, h = element.measure(node)
    return round(w, 2), round(h, 2)


def placement_patch(node: Any, change: dict, resized: bool) -> dict:
    """The update_element args that put a node at the box the canvas reports."""
    patch: dict[str, Any] = {}
    if resized:
        element = ELEMENT_TYPES[node.type]
        patch = element.resized(node, round(change["w"], 2), round(change["h"], 2))
    position = {"x": round(change["x"], 2), "y": round(change["y"], 2), **patch.get("position", {})}
    args: dict[str, Any] = {"id": node.id, **patch, "position": position}
    return {"type": "update_element", "args": args}


# A name the editor makes: `<stem>_<n>`, a variable name and a DataFrame column as it stands.
_NUMBERED = re.compile(r"^(?P<stem>[A-Za-z_][A-Za-z0-9_]*?)_(?P<n>\d+)$")


def name_stem(base: str) -> str:
    """`base` as the stem of a made name: letters, digits and underscores, lower case, not
    starting with a digit ("QR code" → "qr_code"; "text_3" → "text")."""
    numbered = _NUMBERED.match(base)
    if numbered:
        base = numbered.group("stem")
    stem = re.sub(r"[^0-9a-z]+", "_", base.lower()).strip("_") or "element"
    return f"_{stem}" if stem[0].isdigit() else stem


def _free_name(taken: set[str], stem: str) -> str:
    for n in range(1, 10_000):
        candidate = f"{stem}_{n}"
        if candidate not in taken:
            return candidate
    raise ValueError("too many elements with this name")


def unique_name(tree: DesignTree, base: str) -> str:
    """`<stem>_<n>` with the lowest n no element has: `text_1`, `image_2` (issue 14)."""
    return _free_name({node.name for node in tree.nodes.values()}, name_stem(base))


def copy_name(taken: set[str], name: str) -> str:
    """The name of a pasted copy: a made name (`text_1`) gives the next free one of its stem
    (`text_2`), so copies stay variable names; a name someone chose gets " copy"."""
    if _NUMBERED.match(name):
        return _free_name(taken, name_stem(name))
    copied, n = f"{name} copy", 2
    while copied in taken:
        copied, n = f"{name} copy {n}", n + 1
    return copied


def new_element(tree: DesignTree, element_type: str, page: int, at: tuple[float, float], **data: Any) -> dict:
    """add_element for a new element of the type, at `at`, with the type's defaults."""
    element = ELEMENT_TYPES[element_type]
    default = copy.deepcopy(element.editor.defaults)  # the declaration is shared: the action gets its own copy
    args = {
        "type": element_type,
        "name": unique_name(tree, element.name),
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
        name = copy_name(names, node["name"])
        names.add(name)
        position = {**node["position"], "x": node["position"]["x"] + 12, "y": node["position"]["y"] + 12}
        args = {k: node[k] for k in ("type", "data", "styles", "isHidden") if k in node}
        actions.append({"type": "add_element", "args": {**args, "name": name, "page": page, "position": position}})
    return actions
