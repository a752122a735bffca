"""The actions that turn one design tree into another.

The editor's undo and redo are action batches like any other edit (so an API client
could replay them): `changes(current, target)` compares two trees and returns the
actions that make `current` look like `target`. Elements are matched by id, then by
name, because an element removed and added again gets a new id from the server.
"""

from __future__ import annotations

from typing import Any

from .tree import Background, DesignTree, Page

BACKGROUND_FIELDS = tuple(Background.model_fields)
METADATA_FIELDS = ("title", "author", "subject", "keywords", "creator", "language")


def _fields(model: Any) -> dict:
    return model.model_dump(exclude_none=True)


def _patch(current: dict, target: dict) -> dict:
    """Keys to send so that a key-by-key merge of `current` gives `target` (null resets)."""
    keys = set(current) | set(target)
    return {key: target.get(key) for key in sorted(keys) if current.get(key) != target.get(key)}


def _element_args(node: Any) -> dict:
    args = {
        "type": node.type,
        "name": node.name,
        "page": node.page,
        "position": _fields(node.position),
        "data": _fields(node.data),
        "styles": _fields(node.styles),
    }
    if node.isHidden:
        args["isHidden"] = True
    if node.isLocked:
        args["isLocked"] = True
    if node.repeat != "none":
        args["repeat"] = node.repeat
    return args


def _match(current: DesignTree, target: DesignTree) -> dict[str, str]:
    """target node id -> current node id for the elements both trees hold on the same page."""
    matched: dict[str, str] = {}
    by_name = {node.name: node for node in current.nodes.values()}
    taken: set[str] = set()
    for node_id, node in target.nodes.items():
        other = current.nodes.get(node_id)
        if other is None or other.type != node.type:
            other = by_name.get(node.name)
        if other is not None and other.type == node.type and other.page == node.page and other.id not in taken:
            matched[node_id] = other.id
            taken.add(other.id)
    return matched


def _page_format(page: Page) -> dict:
    return {"width": page.width, "height": page.height, "name": page.name}


def _page_actions(current: DesignTree, target: DesignTree) -> tuple[list[dict], list[dict]]:
    """(removals, updates and additions): pages are matched by index."""
    removals = [
        {"type": "remove_page", "args": {"page": i}} for i in range(len(current.pages) - 1, len(target.pages) - 1, -1)
    ]
    rest: list[dict] = []
    for index, page in enumerate(target.pages):
        background = {k: getattr(page, k) for k in BACKGROUND_FIELDS}
        if index >= len(current.pages):
            rest.append({"type": "add_page", "args": {**_page_format(page), **_fields_only(background)}})
            continue
        mine = current.pages[index]
        if _page_format(mine) != _page_format(page):
            rest.append({"type": "update_page", "args": {"page": index, **_page_format(page)}})
        patch = _patch({k: getattr(mine, k) for k in BACKGROUND_FIELDS}, background)
        if patch:
            rest.append({"type": "set_page_background", "args": {"page": index, **patch}})
    return removals, rest


def _fields_only(values: dict) -> dict:
    return {k: v for k, v in values.items() if v is not None}


def changes(current: DesignTree, target: DesignTree) -> list[dict]:
    """Actions that make `current` equal to `target`, apart from the ids the server mints."""
    matched = _match(current, target)
    kept = set(matched.values())
    actions: list[dict] = [
        {"type": "remove_element", "args": {"id": node_id}} for node_id in current.nodes if node_id not in kept
    ]
    page_removals, page_rest = _page_actions(current, target)
    actions += page_removals + page_rest
    # A new name still held by another element (two swapping names) goes through a temporary one.
    held = {current.nodes[mine].name for mine in matched.values()}
    for target_id, mine in matched.items():
        if current.nodes[mine].name != target.nodes[target_id].name and target.nodes[target_id].name in held:
            actions.append({"type": "update_element", "args": {"id": mine, "newName": f"renaming {mine}"}})
    for target_id, mine in matched.items():
        before, after = current.nodes[mine], target.nodes[target_id]
        update: dict[str, Any] = {"id": mine}
        if before.name != after.name:
            update["newName"] = after.name
        for part in ("position", "data", "styles"):
            patch = _patch(_fields(getattr(before, part)), _fields(getattr(after, part)))
            if patch:
                update[part] = patch
        for flag in ("isHidden", "isLocked", "repeat"):
            if getattr(before, flag) != getattr(after, flag):
                update[flag] = getattr(after, flag)
        if len(update) > 1:
            actions.append({"type": "update_element", "args": update})
    actions += [
        {"type": "add_element", "args": _element_args(node)}
        for node_id, node in target.nodes.items()
        if node_id not in matched
    ]
    actions += _order_actions(current, target, matched)
    actions += _variable_actions(current, target, matched)
    actions += _condition_actions(current, target, matched)
    background = _patch(_fields(current.background), _fields(target.background))
    if background:
        actions.append({"type": "set_document_background", "args": background})
    metadata = _patch(
        {k: getattr(current.metadata, k) for k in METADATA_FIELDS},
        {k: getattr(target.metadata, k) for k in METADATA_FIELDS},
    )
    if metadata:
        actions.append({"type": "set_metadata", "args": metadata})
    return actions


def _order_actions(current: DesignTree, target: DesignTree, matched: dict[str, str]) -> list[dict]:
    """Paint order per page: each element to its index, back to front, when the order differs.

    The order the batch leaves without them: on each page the kept elements in their current
    order, then the added ones in the order they are added (the target's creation order, not
    its paint order: undoing the removal of a page whose elements were reordered must reorder
    them again)."""
    target_name = {mine: target.nodes[target_id].name for target_id, mine in matched.items()}
    out: list[dict] = []
    for index, page in enumerate(target.pages):
        names = [target.nodes[node_id].name for node_id in page.elements]
        kept = (
            [target_name[node_id] for node_id in current.pages[index].elements if node_id in target_name]
            if index < len(current.pages)
            else []
        )
        added = [node.name for node_id, node in target.nodes.items() if node_id not in matched and node.page == index]
        if kept + added != names:
            out += [{"type": "reorder_element", "args": {"name": name, "to": i}} for i, name in enumerate(names)]
    return out


def _variable_actions(current: DesignTree, target: DesignTree, matched: dict[str, str]) -> list[dict]:
    out: list[dict] = []
    for node_id, node in target.nodes.items():
        mine = matched.get(node_id)
        was_bound = mine is not None and current.variable_of(current.nodes[mine]) is not None
        bound = target.variable_of(node) is not None
        if was_bound != bound:
            out.append({"type": "bind_variable" if bound else "unbind_variable", "args": {"name": node.name}})
    return out


def _condition_actions(current: DesignTree, target: DesignTree, matched: dict[str, str]) -> list[dict]:
    """showIf last, by name: a condition may name a variable the batch binds just before, and
    one whose variable the batch unbinds is already gone with it (engine.design.conditions)."""
    out: list[dict] = []
    for node_id, node in target.nodes.items():
        mine = matched.get(node_id)
        before = current.nodes[mine].showIf if mine is not None else None
        if before != node.showIf:
            condition = node.showIf.model_dump(exclude_none=True) if node.showIf is not None else None
            out.append({"type": "update_element", "args": {"name": node.name, "showIf": condition}})
    return out


def differences(before: DesignTree, after: DesignTree) -> dict[str, list]:
    """What a reader of two trees would call their difference (the editor's "Publish" dialog,
    extensions.md 16): the elements `after` adds, removes and changes, each with its name, type
    and page, a changed one with the parts that differ; `other` names the rest in words (pages,
    paint order, variables, backgrounds, metadata). Elements are matched as `changes` matches
    them (by id, then by name), so an element removed and added again reads as changed."""
    matched = _match(before, after)
    kept = set(matched.values())

    def element(node: Any) -> dict:
        return {"id": node.id, "name": node.name, "type": node.type, "page": node.page}

    changed = []
    for after_id, before_id in matched.items():
        old, new = before.nodes[before_id], after.nodes[after_id]
        parts = [] if old.name == new.name else ["name"]
        parts += [
            part
            for part in ("position", "data", "styles")
            if _fields(getattr(old, part)) != _fields(getattr(new, part))
        ]
        parts += [
            flag for flag in ("isHidden", "isLocked", "repeat", "showIf") if getattr(old, flag) != getattr(new, flag)
        ]
        if (before.variable_of(old) is None) != (after.variable_of(new) is None):
            parts.append("variable")
        if parts:
            changed.append({**element(new), "parts": parts})
    other = [f"page {index + 1} removed" for index in range(len(after.pages), len(before.pages))]
    for index, page in enumerate(after.pages):
        if index >= len(before.pages):
            other.append(f"page {index + 1} added")
            continue
        old_page = before.pages[index]
        if _page_format(old_page) != _page_format(page):
            other.append(f"page {index + 1} size or name")
        if any(getattr(old_page, k) != getattr(page, k) for k in BACKGROUND_FIELDS):
            other.append(f"page {index + 1} background")
    pages_reordered = {action["args"]["name"] for action in _order_actions(before, after, matched)}
    other += [
        f"paint order on page {index + 1}"
        for index, page in enumerate(after.pages)
        if any(after.nodes[node_id].name in pages_reordered for node_id in page.elements)
    ]
    if _fields(before.background) != _fields(after.background):
        other.append("document background")
    if any(getattr(before.metadata, k) != getattr(after.metadata, k) for k in METADATA_FIELDS):
        other.append("document properties")
    if before.variables.keys() != after.variables.keys():
        other.append("variables")

    def listed(items: list[dict]) -> list[dict]:  # by page, then name: as a reader looks them up
        return sorted(items, key=lambda item: (item["page"], item["name"]))

    return {
        "added": listed([element(node) for node_id, node in after.nodes.items() if node_id not in matched]),
        "removed": listed([element(node) for node_id, node in before.nodes.items() if node_id not in kept]),
        "changed": listed(changed),
        "other": other,
    }
