"""The element type registry: type name -> ElementType.

The built-in types are the modules here. More come from plugins, loaded before anything
is derived from the registry (the Node union, add_element's args, the catalog, OpenAPI,
MCP's tools, the editor), so a plugin type is everywhere a built-in one is:

- `DOCBENCH_ELEMENT_MODULES`: comma-separated importable module names, each exposing
  `ELEMENT = ElementType(...)`. Render processes inherit the environment, so they load
  the same types.
- the entry-point group `docbench.elements`: each entry point names such a module, or
  the ElementType itself (`pkg.stamp:ELEMENT`).
"""

from __future__ import annotations

import importlib
import operator
import os
from functools import reduce
from importlib.metadata import entry_points
from typing import Annotated, Any

from pydantic import Field

from . import barcode, chart, field, icon, image, qr, shape, table, text
from .base import (
    Box,
    Condition,
    DrawContext,
    EditorHints,
    ElementType,
    InlineText,
    KeyedRows,
    NodeBase,
    Repeat,
    StrictModel,
    TextLook,
    VariableSpec,
)

BUILT_IN = (text, image, table, shape, icon, qr, barcode, field, chart)
MODULES_VARIABLE = "DOCBENCH_ELEMENT_MODULES"
ENTRY_POINT_GROUP = "docbench.elements"


class ElementPluginError(ImportError):
    """A plugin element type that cannot be registered; the message names its module."""


def _declared(source: str, loaded: Any) -> ElementType:
    element = loaded if isinstance(loaded, ElementType) else getattr(loaded, "ELEMENT", None)
    if not isinstance(element, ElementType):
        raise ElementPluginError(
            f"element type plugin '{source}' has no ELEMENT = ElementType(...) (engine.elements.base)"
        )
    return element


def _plugins() -> list[tuple[str, ElementType]]:
    """(where it came from, its type) for every plugin named by the environment or installed."""
    found: list[tuple[str, ElementType]] = []
    for name in filter(None, (n.strip() for n in os.environ.get(MODULES_VARIABLE, "").split(","))):
        try:
            module = importlib.import_module(name)
        except Exception as exc:
            raise ElementPluginError(
                f"element type module '{name}' (from {MODULES_VARIABLE}) could not be imported: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        found.append((name, _declared(name, module)))
    for point in entry_points(group=ENTRY_POINT_GROUP):
        source = f"{point.value} (entry point '{point.name}' of {ENTRY_POINT_GROUP})"
        try:
            loaded = point.load()
        except Exception as exc:
            raise ElementPluginError(
                f"element type plugin {source} could not be loaded: {type(exc).__name__}: {exc}"
            ) from exc
        found.append((source, _declared(source, loaded)))
    return found


def _registry() -> dict[str, ElementType]:
    types = {module.ELEMENT.name: module.ELEMENT for module in BUILT_IN}
    sources = {name: "built-in" for name in types}
    for source, element in _plugins():
        if element.name in types:
            if types[element.name] is element:
                continue  # the same module named twice (environment and entry point)
            raise ElementPluginError(
                f"element type plugin '{source}' declares type '{element.name}', "
                f"which is already taken ({sources[element.name]}): choose another name"
            )
        types[element.name] = element
        sources[element.name] = source
    return types


ELEMENT_TYPES: dict[str, ElementType] = _registry()


def union_of(models: list[type]) -> object:
    """A | B | C of the given models, for a discriminated union built at import time."""
    return reduce(operator.or_, models)


Node = Annotated[union_of([element.Node for element in ELEMENT_TYPES.values()]), Field(discriminator="type")]


def element_type(name: str) -> ElementType:
    return ELEMENT_TYPES[name]


__all__ = [
    "ELEMENT_TYPES",
    "ENTRY_POINT_GROUP",
    "MODULES_VARIABLE",
    "Box",
    "Condition",
    "DrawContext",
    "ElementPluginError",
    "EditorHints",
    "ElementType",
    "InlineText",
    "KeyedRows",
    "Node",
    "NodeBase",
    "Repeat",
    "StrictModel",
    "TextLook",
    "VariableSpec",
    "element_type",
    "union_of",
]
