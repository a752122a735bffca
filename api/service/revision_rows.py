"""How revisions (extensions.md 16) are stored: one row per saved tree, written by `record`
inside the transaction that saves the design's tree and under its row lock (Designs), so the
tree and its revision commit together and two processes never take one number.

Each revision holds its whole tree, zlib-compressed: any revision reads back on its own (a
diff chain would make reading or pruning one touch others). Base64 text, one column type
both stores read alike. The faces' operations on them are in revisions.py.
"""

from __future__ import annotations

import base64
import zlib
from typing import Any, Literal

from ..errors import ApiError
from .common import now

Source = Literal["api", "editor", "mcp", "restore"]
# extensions.md 16: at least the last 100 revisions and every published one are kept.
KEEP_REVISIONS = 100
# Older ones are dropped at every 10th revision, not at each: a statement less on nine saves in
# ten (issue 40: a tree patch may cost at most 1.1x what it did), for up to 9 more rows kept.
PRUNE_EVERY = 10
SUMMARY_LENGTH = 200
# Level 1: a tenth of level 6's time for a few percent more bytes, on the path of every tree patch.
COMPRESSION_LEVEL = 1
PACKED = "z:"  # a packed tree's prefix; a tree's JSON starts with "{"


def packed(tree_json: str) -> str:
    return PACKED + base64.b64encode(zlib.compress(tree_json.encode(), COMPRESSION_LEVEL)).decode()


def unpacked(stored: str) -> str:
    if not stored.startswith(PACKED):
        return stored  # copied as it was by migration 15
    return zlib.decompress(base64.b64decode(stored[len(PACKED) :])).decode()


def summary_of(actions: list[dict[str, Any]]) -> str:
    """What a batch of actions did, in a line: "add_element text 'title'; update_element 'logo'",
    cut to about SUMMARY_LENGTH characters with the number of actions left out."""
    parts = []
    for action in actions:
        args = action.get("args") or {}
        part = str(action.get("type", "?"))
        if part == "add_element" and isinstance(args.get("type"), str):
            part += f" {args['type']}"
        target = args.get("name", args.get("id"))
        if isinstance(target, str):
            part += f" {target[:40]!r}"
        parts.append(part)
    text = ""
    for index, part in enumerate(parts):
        joined = f"{text}; {part}" if text else part
        if len(joined) > SUMMARY_LENGTH:
            return f"{text}; … ({len(parts) - index} more)"
        text = joined
    return text


def record(
    cursor: Any,
    design_id: str,
    number: int,
    source: Source,
    summary: str,
    tree_json: str,
    published: int | None,
    keep: int = KEEP_REVISIONS,
) -> None:
    """Write revision `number` of the design and, every PRUNE_EVERY revisions, drop what falls
    out of the kept window (the last `keep` and the published one), in the caller's transaction."""
    cursor.execute(
        "INSERT INTO design_revisions (design_id, revision, created_at, source, summary, tree) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [design_id, number, now(), source, summary[: SUMMARY_LENGTH + 40], packed(tree_json)],
    )
    oldest_kept = number - keep + 1
    if oldest_kept > 1 and number % PRUNE_EVERY == 0:
        cursor.execute(
            "DELETE FROM design_revisions WHERE design_id = ? AND revision < ? AND revision <> ?",
            [design_id, oldest_kept, published or 0],
        )


def revision_not_found(design_id: str, number: object) -> ApiError:
    return ApiError(
        "REVISION_NOT_FOUND",
        f"design '{design_id}' has no revision {str(number)[:40]!r}; GET /designs/{design_id}/revisions lists "
        f"those kept (at least the last {KEEP_REVISIONS}, and the published one)",
    )


def revision_number(design_id: str, text: str) -> int:
    """A revision number from a path, or 404: revisions are numbered 1, 2, …"""
    # The length first: int() of thousands of digits raises (Python's conversion limit).
    if not text.isascii() or not text.isdigit() or len(text) > 9 or int(text) < 1:
        raise revision_not_found(design_id, text)
    return int(text)
