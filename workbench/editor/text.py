"""User text shown through a Markdown pane (Markdown, Alert) stays text.

Panel renders Markdown with raw HTML allowed, so a name like `<img src=x onerror=…>`
would run in the page (issue 12). CommonMark lets any ASCII punctuation be
backslash-escaped and then shows it literally: escaping all of it leaves no tag, entity,
link, emphasis or math for the renderer to find, and the reader sees the text as typed.
"""

from __future__ import annotations

import string

_ESCAPES = {ord(c): "\\" + c for c in string.punctuation}


def text(value: object) -> str:
    """`value` as Markdown source that renders as exactly its characters, on one line."""
    return " ".join(str(value).splitlines()).translate(_ESCAPES)
