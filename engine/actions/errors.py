"""Turning pydantic validation errors into one line that names the fix."""

from __future__ import annotations

from pydantic import BaseModel, ValidationError

# Keys that clients commonly send in the wrong place, with where they belong.
GENERAL_HINTS = {
    "id": "ids are minted by the server: remove 'id' and address the element by 'name'",
    "actions": "actions go to PATCH /designs/:id/tree",
}


def _allowed(model: type[BaseModel] | None) -> str:
    if model is None:
        return ""
    return f"; allowed keys: {', '.join(model.model_fields)}"


def describe(
    error: ValidationError,
    models: dict[str, type[BaseModel]] | None = None,
    hints: dict[str, dict[str, str]] | None = None,
    prefix: str = "",
) -> str:
    """One readable sentence for the first few problems.

    models maps a location head ('' for the top level, 'position', 'data', 'styles')
    to the model validated there, so an unknown key can list the allowed ones;
    hints maps the same heads to {key: fix} for the mistakes worth a tailored fix.
    """
    models = models or {}
    hints = hints or {}
    messages: list[str] = []
    for item in error.errors()[:4]:
        loc = [str(part) for part in item["loc"]]
        where = ".".join(([prefix] if prefix else []) + loc) or "args"
        head = loc[0] if len(loc) > 1 else ""
        key = loc[-1] if loc else ""
        if item["type"] == "extra_forbidden":
            fix = hints.get(head, {}).get(key) or (GENERAL_HINTS.get(key) if not head else None)
            messages.append(f"{where}: unknown key" + (f"; {fix}" if fix else _allowed(models.get(head))))
        elif item["type"] == "missing":
            messages.append(f"{where}: required")
        else:
            message = str(item["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
            messages.append(f"{where}: {message}")
    return "; ".join(messages)

