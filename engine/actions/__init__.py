"""Actions: the only way a design tree changes (spec 4.3, 4.6).

`apply` works on a copy and either applies every action or raises on the first
failure with `actions[<i>] (<type>) failed: <reason>`, leaving the input untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from ..design import computed
from ..design.conditions import drop_orphan_conditions
from ..design.placeholder_variables import sync_field_variables
from ..design.tree import DesignTree
from ..elements import ELEMENT_TYPES, StrictModel
from ..errors import ActionError, EngineError
from .base import ActionSpec, ApplyContext, random_id
from .element_actions import ELEMENT_ACTIONS, element_result
from .errors import describe
from .page_actions import PAGE_ACTIONS

MAX_ACTIONS = 500
ACTIONS: dict[str, ActionSpec] = {spec.name: spec for spec in ELEMENT_ACTIONS + PAGE_ACTIONS}


class Action(StrictModel):
    type: str
    args: dict[str, Any] = {}


def catalog() -> list[dict]:
    """The action catalog (spec 2.11), generated from the argument models."""
    return [{"name": s.name, "description": s.description, "args": s.json_schema()} for s in ACTIONS.values()]


def _parse_args(spec: ActionSpec, raw: Any) -> Any:
    if spec.parse is not None:
        return spec.parse(raw)
    try:
        return spec.Args.model_validate(raw)
    except ValidationError as exc:
        raise ValueError(describe(exc, {"": spec.Args})) from None


def apply(
    tree: DesignTree,
    actions: list[dict | Action],
    mint_id: Callable[[str], str] = random_id,
) -> tuple[DesignTree, list[dict]]:
    """Apply actions in order, atomically: a new tree and one result per action."""
    if not 1 <= len(actions) <= MAX_ACTIONS:
        raise EngineError(f"send between 1 and {MAX_ACTIONS} actions (got {len(actions)})")
    ctx = ApplyContext(tree.model_copy(deep=True), mint_id)
    results: list[dict] = []
    resolutions = computed.Resolutions()  # each check resolves only what the action before it changed
    for index, raw in enumerate(actions):
        action_type = (
            raw.type if isinstance(raw, Action) else str(raw.get("type", "?")) if isinstance(raw, dict) else "?"
        )
        try:
            action = raw if isinstance(raw, Action) else _parse_action(raw)
            spec = ACTIONS.get(action.type)
            if spec is None:
                raise ValueError(f"unknown action type; use one of {', '.join(ACTIONS)}")
            variables_before = set(ctx.tree.variables)
            data = spec.run(ctx, _parse_args(spec, action.args))
            # extensions.md 1: placeholders are variables, from the next action on (a showIf may
            # name a field added just before); a field whose last placeholder went is gone here.
            sync_field_variables(ctx.tree)
            _check_unique_keys(ctx.tree)
            # extensions.md 11: every expression still computes, and computed texts show their results.
            for node_id in computed.check(ctx.tree, resolutions):
                # A computed text's content changed after the action measured it: echo it as shown.
                if isinstance(data, dict) and data.get("id") == node_id and "position" in data:
                    data = element_result(ctx.tree.nodes[node_id], ctx.tree.metadata.language)
            if not variables_before <= ctx.tree.variables.keys():
                # extensions.md 4: a condition goes away with its variable, whichever action removed it.
                drop_orphan_conditions(ctx.tree)
        except (ValueError, EngineError) as exc:
            reason = exc.message if isinstance(exc, EngineError) else str(exc)
            raise ActionError(index, action_type, reason) from None
        results.append({"type": action.type, "status": "success", "data": data})
    return ctx.tree, results


def _check_unique_keys(tree: DesignTree) -> None:
    """Values an element type keeps unique in a document (ElementType.unique_key: a form
    field's name, extensions.md 13) are unique in the design."""
    seen: dict[tuple[str, str], str] = {}
    for node in tree.nodes.values():
        unique = ELEMENT_TYPES[node.type].unique_key
        if unique is None:
            continue
        where, key_of = unique
        key = (node.type, key_of(node))
        other = seen.setdefault(key, node.name)
        if other != node.name:
            raise ValueError(
                f"the {node.type}s '{other}' and '{node.name}' share the {where} '{key[1]}', which is unique in a "
                f"document: set a different {where} on one of them"
            )


def _parse_action(raw: Any) -> Action:
    try:
        return Action.model_validate(raw)
    except ValidationError as exc:
        raise ValueError(describe(exc, {"": Action})) from None


__all__ = ["ACTIONS", "MAX_ACTIONS", "Action", "ActionSpec", "apply", "catalog", "element_result", "random_id"]
