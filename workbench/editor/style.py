"""The workbench's one stylesheet, `editor.css`, as text: every component of the editor and of
the web page lists it in its `_stylesheets`/`stylesheets` (a Panel component is styled only by
the sheets in its own shadow root), and the server adds it to the page (`raw_css`)."""

from __future__ import annotations

from pathlib import Path

STYLESHEET = Path(__file__).with_name("editor.css").read_text()
