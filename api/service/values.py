"""The rules for the values a render is given for a design's variables, written once for
single generation and for every batch row (spec 4.11, 4.13; decisions.md "Generation values").

1. An inline `data:` value of an image variable is dropped (spec 4.11 rule 3): images
   are uploaded first and passed by ref, so a value never carries megabytes of base64.
2. Every other value must fit its variable (engine.check_values).
3. An image value is a ref that must name an image of the workspace: a single generation
   with a missing one is refused (Media.require_images); a batch row with one fails alone
   (Media.present_images).
"""

from __future__ import annotations

from typing import Any

import engine
from engine.design.variables import image_variable_names
from engine.errors import EngineError

from ..errors import validation


def checked_values(tree: engine.DesignTree, values: Any, where: str = "") -> dict[str, Any]:
    """The values a render gets (rules 1 and 2), or VALIDATION_ERROR naming `where` (e.g. "rows[3]")."""
    prefix = f"{where}: " if where else ""
    if values is None:
        values = {}
    if not isinstance(values, dict):
        raise validation(f"{prefix}each row is an object of variable name to value")
    images = image_variable_names(tree)
    kept = {
        name: value
        for name, value in values.items()
        if not (name in images and isinstance(value, str) and value.startswith("data:"))
    }
    try:
        engine.check_values(tree, kept)
    except EngineError as exc:
        raise validation(prefix + exc.message) from None
    return kept


def image_values(tree: engine.DesignTree, values: dict[str, Any]) -> dict[str, str]:
    """The refs among checked values (rule 3): variable name -> ref."""
    images = image_variable_names(tree)
    return {name: value for name, value in values.items() if name in images and isinstance(value, str)}
