"""A file dropped on the canvas (canvas/drop.js): its bytes, checked, and what it becomes."""

from __future__ import annotations

import base64
import binascii

MB = 1024 * 1024


def dropped_file(message: dict, limit: int) -> tuple[str, bytes]:
    """The dropped file's name and bytes. A file past `limit` bytes (the browser sends none of
    it then) or bytes that are not base64 raise a ValueError saying what to do instead."""
    name = str(message.get("name") or "dropped file")[:200]
    data = message.get("data")
    size = int(message.get("size") or 0)
    too_big = (
        f"{name} is {size / MB:.1f} MB: a file dropped on the page can be at most {limit // MB} MB. "
        "Make it smaller (a PDF: fewer or lighter pages) and drop it again."
    )
    unreadable = f"{name} could not be read: drop the file again, or upload it in the Images tab."
    # The size the browser gives is checked, and the bytes too: a message may say anything.
    if size > limit or (isinstance(data, str) and len(data) > (limit + 2) // 3 * 4):
        raise ValueError(too_big)
    if not isinstance(data, str):
        raise ValueError(unreadable)
    try:
        raw = base64.b64decode(data, validate=True)
    except binascii.Error as error:
        raise ValueError(unreadable) from error
    return name, raw
