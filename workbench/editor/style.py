"""The workbench's one stylesheet, `editor.css`, as text: every component of the editor and of
the web page lists it in its `_stylesheets`/`stylesheets` (a Panel component is styled only by
the sheets in its own shadow root), and the server adds it to the page (`raw_css`)."""

from __future__ import annotations

from pathlib import Path

STYLESHEET = Path(__file__).with_name("editor.css").read_text()

# The sheet of an input or text area where content is typed (a text's content, samples, cells,
# tried values): each paragraph runs in its own direction, found from its first strong
# character, and starts at its own side, so Arabic and Hebrew show right to left as typed.
# It is what the HTML rendering rules give `dir="auto"` on a textarea (`unicode-bidi:
# plaintext`); Bokeh's inputs take no `dir` attribute, but a widget takes stylesheets.
TYPED_TEXT = ".bk-input { unicode-bidi: plaintext; text-align: start; }"
