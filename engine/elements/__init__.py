"""The element type registry: type name -> ElementType. Adding a type is one module here."""

from __future__ import annotations

import operator
from functools import reduce
from typing import Annotated

from pydantic import Field

from . import barcode, icon, image, qr, shape, table, text
from .base import Box, DrawContext, ElementType, NodeBase, StrictModel, VariableSpec

ELEMENT_TYPES: dict[str, ElementType] = {
    module.ELEMENT.name: module.ELEMENT for module in (text, image, table, shape, icon, qr, barcode)
}


def union_of(models: list[type]) -> object:
    """A | B | C of the given models, for a discriminated union built at import time."""
    return reduce(operator.or_, models)


Node = Annotated[union_of([element.Node for element in ELEMENT_TYPES.values()]), Field(discriminator="type")]


def element_type(name: str) -> ElementType:
    return ELEMENT_TYPES[name]


__all__ = [
    "ELEMENT_TYPES",
    "Box",
    "DrawContext",
    "ElementType",
    "Node",
    "NodeBase",
    "StrictModel",
    "VariableSpec",
    "element_type",
    "union_of",
]
