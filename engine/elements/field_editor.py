"""How the editor edits a form field (extensions.md 13): the field type's EditorHints hooks.

A field's `value` takes what its fieldType takes (a check box's true or false, one of a radio
group's or a select's options, a date), so its widget is chosen per node (`widget_for`), and
the keys that do not apply to the node's type are not offered. A new fieldType comes with what
makes it valid and fitting (`edited`): options for a choice, no value it cannot take, no
maxLength where there is no typing, and a box of a fitting size.

Nothing here imports engine.elements.field (which declares these hooks): the node's own data
model checks what a change would make.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from .editing import BOOLEAN, CHOICE, DATE, HIDDEN, MULTILINE, TEXT, Widget

CHOICES = ("radio", "select")
TYPED = ("text", "multiline")
# A new radio group's or select's options, for the designer to rename.
STARTING_OPTIONS = [{"value": "option1", "label": "Option 1"}, {"value": "option2", "label": "Option 2"}]


def options_text(options: Any) -> str:
    """The options one per line: the value, or `value | label` when the label differs."""
    return "\n".join(
        option.value if not option.label or option.label == option.value else f"{option.value} | {option.label}"
        for option in options or ()
    )


def options_from_text(_current: Any, text: str) -> list[dict]:
    """Lines of `value` or `value | label` as options (empty lines left out)."""
    options: list[dict] = []
    for line in (text or "").splitlines():
        value, _, label = line.partition("|")
        value, label = value.strip(), label.strip()
        if value:
            options.append({"value": value, **({"label": label} if label and label != value else {})})
    return options


OPTIONS = Widget(MULTILINE, shown=options_text, stored=options_from_text)


def widget_for(node: Any, path: str) -> Widget | None:
    kind = node.data.fieldType
    if path == "data.value":
        if kind == "checkbox":
            return Widget(BOOLEAN)
        if kind in CHOICES:
            return Widget(CHOICE, choices=tuple((option.value, option.shown) for option in node.data.options))
        if kind == "date":
            return Widget(DATE)
        if kind == "signature":
            return Widget(HIDDEN)  # the reader signs it: no value to give
        return Widget(MULTILINE) if kind == "multiline" else Widget(TEXT)
    if path == "data.options":
        return OPTIONS if kind in CHOICES else Widget(HIDDEN)
    if path == "data.maxLength" and kind not in TYPED:
        return Widget(HIDDEN)
    return None


def fitting_size(node: Any, kind: str, options: int) -> dict[str, float]:
    """A box that fits a field of the kind in the node's font size: a check box a square, a
    radio group a row per option, a multiline field several lines, the others one line."""
    size = node.styles.fontSize
    line = round(size * 2.2)
    width = node.position.w
    if kind == "checkbox":
        side = round(size * 1.45)
        return {"w": side, "h": side}
    wide = max(width, 200) if width < size * 6 else width  # out of a check box's square: a field's width
    if kind == "radio":
        return {"w": wide, "h": round(size * 1.9) * max(options, 1)}
    if kind in ("multiline", "signature"):
        return {"w": wide, "h": max(node.position.h, line * 3)}
    return {"w": wide, "h": line}


def edited(node: Any, changes: dict) -> dict:
    """The properties form's edit (update_element args) with what it brings along: a new
    fieldType its options, no value or maxLength it cannot take, and a fitting box; a radio
    group's new options a box whose rows keep their height."""
    data = changes.get("data") or {}
    if "position" in changes:
        return changes
    kind = data.get("fieldType")
    if kind is None or kind == node.data.fieldType:
        options = data.get("options")
        if node.data.fieldType not in CHOICES or not isinstance(options, list) or not options:
            return changes
        if node.data.value is not None and node.data.value not in [option.get("value") for option in options]:
            changes = {**changes, "data": {**data, "value": None}}  # its option is gone: none chosen
        if node.data.fieldType == "radio":
            row = node.position.h / max(len(node.data.options), 1)
            return {**changes, "position": {"h": round(row * len(options), 2)}}
        return changes
    brought: dict[str, Any] = {}
    if kind in CHOICES:
        if not node.data.options and "options" not in data:
            brought["options"] = STARTING_OPTIONS
    elif node.data.options:
        brought["options"] = None  # back to none: only choices have options
    if kind not in TYPED and node.data.maxLength is not None:
        brought["maxLength"] = None
    new = {**brought, **data}
    merged = {**node.data.model_dump(exclude_none=True), **new}
    merged = {key: value for key, value in merged.items() if value is not None}
    try:
        type(node.data).model_validate(merged)
    except ValidationError:
        new["value"] = None  # a value the new type cannot take (text in a check box)
    options = new.get("options")
    count = len(options) if isinstance(options, list) else 0 if "options" in new else len(node.data.options)
    return {**changes, "data": new, "position": fitting_size(node, kind, count)}
