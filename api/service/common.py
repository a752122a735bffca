"""What every service shares: the caller's workspace, ids, time and cursors."""

from __future__ import annotations

import base64
import datetime as dt
import json
import secrets
import string
from dataclasses import dataclass
from typing import Any

from engine.design.names import invisible_character_problem

from ..errors import ApiError, validation
from ..models import NAME_MAX_LENGTH
from ..plans import PLANS

_ALPHABET = string.ascii_lowercase + string.digits


@dataclass(frozen=True)
class Workspace:
    """The caller: the workspace behind the API key (or the workbench's session)."""

    id: str
    name: str
    plan: str

    @property
    def features(self) -> dict[str, bool]:
        return PLANS[self.plan]

    def require(self, feature: str) -> None:
        """403 unless the workspace's plan includes `feature` (api.plans). Each rule is asked
        by the service method it guards, so every face (REST, MCP, the workbench, the
        notebook) meets it alike."""
        if not self.features.get(feature):
            raise ApiError(
                "INSUFFICIENT_PERMISSIONS",
                f"the {self.plan} plan does not include {feature}; upgrade the workspace's plan",
            )


def checked_name(name: str, what: str = "name") -> str:
    """A name someone gave, unchanged, or 400 naming the rule it breaks: 1 to 200 characters,
    no control, bidi or invisible character (engine.design.names, the same rule as the API's models)."""
    if not 1 <= len(name) <= NAME_MAX_LENGTH:
        raise validation(f"{what} must be 1 to {NAME_MAX_LENGTH} characters")
    problem = invisible_character_problem(name)
    if problem is not None:
        raise validation(f"{what}: {problem}")
    return name


def new_id(prefix: str, length: int = 16) -> str:
    # One draw of a number below 36^length, written in base 36: a draw per character (one read of
    # the system's randomness each) cost more than the rest of a generate's checks together.
    number = secrets.randbelow(len(_ALPHABET) ** length)
    characters = []
    for _ in range(length):
        number, digit = divmod(number, len(_ALPHABET))
        characters.append(_ALPHABET[digit])
    return f"{prefix}_{''.join(characters)}"


def now() -> dt.datetime:
    """UTC now, naive (DuckDB TIMESTAMP), to the microsecond."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def iso(moment: dt.datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.replace(tzinfo=dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def encode_cursor(created_at: dt.datetime, item_id: str) -> str:
    raw = json.dumps([created_at.isoformat(), item_id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[dt.datetime, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        created, item_id = json.loads(base64.urlsafe_b64decode(padded))
        return dt.datetime.fromisoformat(created), str(item_id)
    except (ValueError, TypeError) as exc:
        raise validation("cursor is not one this API returned; pass nextCursor back unchanged") from exc


def encode_number_cursor(number: int, kind: str = "row") -> str:
    """A cursor over items ordered by a number that is never reused: a batch's rows by their
    index ("row"), a design's revisions by theirs ("revision")."""
    return base64.urlsafe_b64encode(json.dumps([kind, number]).encode()).decode().rstrip("=")


def decode_number_cursor(cursor: str, kind: str = "row") -> int:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        found, number = json.loads(base64.urlsafe_b64decode(padded))
        if found != kind or not isinstance(number, int):
            raise ValueError(cursor)
        return number
    except (ValueError, TypeError) as exc:
        raise validation("cursor is not one this API returned; pass nextCursor back unchanged") from exc


def newest_first(
    store: Any, sql: str, params: list, query: Any, created_index: int, id_index: int
) -> tuple[list[tuple], str | None]:
    """Keyset pagination, newest first: the page after `query.cursor`, and the next cursor.

    Keyed on (created_at, id), so rows created while a client pages never cause a gap
    or a duplicate, as offsets would.
    """
    if query.cursor:
        created, last_id = decode_cursor(query.cursor)
        sql += " AND (created_at < ? OR (created_at = ? AND id < ?))"
        params = [*params, created, created, last_id]
    sql += " ORDER BY created_at DESC, id DESC LIMIT ?"
    rows = store.all(sql, [*params, query.limit + 1])
    if len(rows) <= query.limit:
        return rows, None
    last = rows[query.limit - 1]
    return rows[: query.limit], encode_cursor(last[created_index], last[id_index])
