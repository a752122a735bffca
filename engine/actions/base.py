"""What every action shares: its spec, the apply context, and element/page addressing."""

from __future__ import annotations

import secrets
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, TypeAdapter, model_validator

from ..design.tree import DesignTree
from ..elements import StrictModel

_ID_ALPHABET = string.ascii_lowercase + string.digits


def random_id(prefix: str) -> str:
    return f"{prefix}_{''.join(secrets.choice(_ID_ALPHABET) for _ in range(10))}"


@dataclass
class ApplyContext:
    tree: DesignTree
    mint_id: Callable[[str], str] = random_id

    def new_id(self, prefix: str, taken: Any) -> str:
        while True:
            candidate = self.mint_id(prefix)
            if candidate not in taken:
                return candidate


@dataclass(frozen=True)
class ActionSpec:
    name: str
    description: str
    # The args model, or (add_element) an annotated union of one model per element type.
    Args: Any
    run: Callable[[ApplyContext, Any], dict]
    # Custom parsing (add_element picks its model by element type for sharper errors).
    parse: Callable[[dict], Any] | None = None

    def json_schema(self) -> dict:
        return TypeAdapter(self.Args).json_schema()


class ElementAddress(StrictModel):
    """Exactly one of name or id addresses an existing element (spec 4.6)."""

    name: str | None = Field(None, description="The element's unique name")
    id: str | None = Field(None, description="The element's server-minted id")

    @model_validator(mode="after")
    def _exactly_one(self) -> ElementAddress:
        if (self.name is None) == (self.id is None):
            raise ValueError("address the element by exactly one of 'name' or 'id'")
        return self


class PageAddress(StrictModel):
    page: int = Field(ge=0, description="Zero-based page index")


def find_node(tree: DesignTree, address: ElementAddress) -> Any:
    if address.id is not None:
        node = tree.nodes.get(address.id)
        if node is None:
            raise ValueError(f"no element with id '{address.id}'")
        return node
    node = tree.node_by_name(address.name or "")
    if node is None:
        raise ValueError(f"no element named '{address.name}'")
    return node


def check_page(tree: DesignTree, page: int) -> None:
    if page >= len(tree.pages):
        raise ValueError(f"page {page} does not exist; the design has {len(tree.pages)} page(s), numbered from 0")


def changed_fields(args: BaseModel, fields: tuple[str, ...]) -> dict[str, Any]:
    """The fields the client actually sent (null included, meaning 'clear')."""
    return {f: getattr(args, f) for f in fields if f in args.model_fields_set}
