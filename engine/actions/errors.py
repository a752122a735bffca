"""Turning pydantic validation errors into one line that names the fix."""

from __future__ import annotations

from pydantic import BaseModel, ValidationError

# Keys that clients commonly send in the wrong place, with where they belong.
GENERAL_HINTS = {
    "id": "ids are minted by the server: remove 'id' and address the element by 'name'",
    "actions": "actions go to PATCH /designs/:id/tree",
}


# Pydantic names union members in error locations ('str', "literal['a','b']",
# 'constrained-int', 'function-after[...]'); they mean nothing to a client.
_UNION_TAGS = {"str", "int", "float", "bool", "list", "dict", "none", "list[str]", "dict[str,any]"}


def _is_field(part: object) -> bool:
    text = str(part)
    if isinstance(part, int):
        return True
    # Model names (capitalised) tag union members too; field names here are camelCase.
    return text not in _UNION_TAGS and "[" not in text and "-" not in text and not text[:1].isupper()


def _allowed(model: type[BaseModel] | None) -> str:
    if model is None:
        return ""
    return f"; allowed keys: {', '.join(model.model_fields)}"


def describe(
    error: ValidationError,
    models: dict[str, type[BaseModel]] | None = None,
    hints: dict[str, dict[str, str]] | None = None,
    prefix: str = "",
    root: str = "args",
) -> str:
    """One readable sentence for the first few problems.

    models maps a location head ('' for the top level, 'position', 'data', 'styles')
    to the model validated there, so an unknown key can list the allowed ones;
    hints maps the same heads to {key: fix} for the mistakes worth a tailored fix.
    """
    models = models or {}
    hints = hints or {}
    messages: dict[str, list[str]] = {}
    for item in error.errors():
        loc = [str(part) for part in item["loc"] if _is_field(part)]
        where = ".".join(([prefix] if prefix else []) + loc) or root
        head = loc[0] if len(loc) > 1 else ""
        key = loc[-1] if loc else ""
        if item["type"] == "extra_forbidden":
            fix = hints.get(head, {}).get(key) or (GENERAL_HINTS.get(key) if not head else None)
            message = "unknown key" + (f"; {fix}" if fix else _allowed(models.get(head)))
        elif item["type"] == "missing":
            message = "required"
        else:
            message = str(item["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
        if message == "Input should be None":
            continue  # the null branch of an optional field: never the helpful alternative
        if message not in messages.setdefault(where, []):
            messages[where].append(message)
    # Failures of each member of a union share a location: read them as alternatives.
    return "; ".join(_located(where, found) for where, found in list(messages.items())[:4])


def _located(where: str, found: list[str]) -> str:
    """`where: message`, unless every message already names a place inside `where` (a
    model's own check of several keys: "data.footer[0]: …"), which says it better."""
    if all(message.startswith((f"{where}.", f"{where}[")) for message in found):
        return " or ".join(found)
    return f"{where}: {' or '.join(found)}"
