"""The properties form's offer of a language for a text whose script tells it (issue 35): a
text without data.lang holding kana is Japanese, one holding Hangul Korean. Han characters are
shared by Chinese, Japanese and Korean and drawn in a different face for each; with its
language set, a text's Han takes the right face wherever it stands (a line of ideographs
only, a field's value), and its tagged /Lang says what it is (extensions.md 6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import panel as pn
from fontTools import unicodedata

# The scripts that name their language, first found first offered: (scripts, tag, name).
TELLING_SCRIPTS = ((frozenset({"Hira", "Kana"}), "ja", "Japanese"), (frozenset({"Hang"}), "ko", "Korean"))
WHY = {"ja": "Its kana say Japanese", "ko": "Its Hangul says Korean"}


def suggested_language(node: Any, design_language: str | None = None) -> tuple[str, str] | None:
    """(tag, name) of the language the node's text says it is in, or None: a node with a
    data.lang of its own, without text, or whose text no script of TELLING_SCRIPTS is in, or
    when that language is the design's (`design_language`), which the text takes already."""
    data = getattr(node, "data", None)
    if data is None or "lang" not in type(data).model_fields or data.lang is not None:
        return None
    scripts = {unicodedata.script(c) for item in data.items() for c in item if ord(c) >= 0x1100}
    for telling, tag, name in TELLING_SCRIPTS:
        if scripts & telling:
            same = (design_language or "").lower().split("-")[0] == tag
            return None if same else (tag, name)
    return None


class LanguageHint:
    """A "Set language: Japanese (ja)" button, shown while `suggested_language` offers one; a
    click sets data.lang through `set_lang(tag)` (the form's update_element)."""

    def __init__(
        self, node: Any, set_lang: Callable[[str], None], design_language: Callable[[], str | None] = lambda: None
    ):
        self._tag: str | None = None
        self._design_language = design_language
        self.button = pn.widgets.Button(label="", css_classes=["dbk-set-lang"], margin=(4, 0))
        self.button.on_click(lambda _: self._tag and set_lang(self._tag))
        self.why = pn.pane.HTML("", margin=(0, 0, 4, 0), sizing_mode="stretch_width")
        self.view = pn.Column(self.button, self.why, sizing_mode="stretch_width", margin=0, visible=False)
        self.show(node)

    def show(self, node: Any) -> None:
        suggested = suggested_language(node, self._design_language())
        self._tag = suggested[0] if suggested else None
        if suggested:
            tag, name = suggested
            self.button.label = f"Set language: {name} ({tag})"
            self.why.object = f"<small>{WHY[tag]}: with it set, its Han characters take the {name} face.</small>"
        self.view.visible = suggested is not None

    def __panel__(self) -> pn.viewable.Viewable:
        return self.view
