"""The editor's Panel forms as the tests read them: every widget inside a form, and the
widgets by their label."""

from __future__ import annotations

from typing import Any


def widgets_of(panel: Any) -> list:
    """Every widget inside a Panel layout, depth first (a layout's children are its objects)."""
    found = []
    for child in getattr(panel, "objects", None) or []:
        found.extend(widgets_of(child) if hasattr(child, "objects") else [child])
    return found


def by_label(form: Any) -> dict:
    """A form's widgets by their label (a Panel widget's name; a custom one's caption)."""
    return {getattr(w, "caption", "") or getattr(w, "name", ""): w for w in widgets_of(form)}
