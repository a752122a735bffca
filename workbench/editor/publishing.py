"""The header's "Publish" (extensions.md 16): which revision generate and batch render, whether
the draft (the latest revision) differs from it, and a dialog that lists what publishing the
draft would change (elements added, removed, changed: GET /designs/:id/publish) before it is
confirmed; Unpublish returns generation to the latest.

The state is read when the editor opens, after each save it makes or sees (the poll), and when
the dialog opens; a publish made elsewhere, which saves no tree, shows by the next of those."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import panel as pn

from .session import DesignSession
from .style import STYLESHEET

PARTS = {"data": "content", "styles": "style", "position": "position or size", "showIf": "condition"}


def _element(item: dict) -> str:
    return f"{html.escape(item['type'])} “{html.escape(item['name'])}” (page {item['page'] + 1})"


def described(state: dict) -> str:
    """The dialog's text (HTML) for a publish state."""
    latest, published = state["latestRevision"], state["publishedRevision"]
    if published is None:
        return (
            f"<p>Not published: generate and batch render the latest revision. Publishing revision {latest} "
            "makes it what they render; later edits stay a draft until you publish again.</p>"
        )
    if not state["differs"]:
        return f"<p>The draft (revision {latest}) is the same as the published revision {published}.</p>"
    changes = state["changes"]
    lines = [f"<p>Published: revision {published}. Publishing the draft (revision {latest}) changes:</p><ul>"]
    lines += [f'<li class="dbk-diff-added">Added: {_element(item)}</li>' for item in changes["added"]]
    lines += [f'<li class="dbk-diff-removed">Removed: {_element(item)}</li>' for item in changes["removed"]]
    for item in changes["changed"]:
        parts = ", ".join(PARTS.get(part, part) for part in item["parts"])
        lines.append(f'<li class="dbk-diff-changed">Changed: {_element(item)}: {html.escape(parts)}</li>')
    lines += [f'<li class="dbk-diff-other">{html.escape(line.capitalize())}</li>' for line in changes["other"]]
    return "".join(lines) + "</ul>"


def state_label(state: dict) -> str:
    published = state["publishedRevision"]
    if published is None:
        text = "Not published"
    elif state["differs"]:
        text = "Draft differs from published"  # which revision, and how: the dialog
    else:
        text = f"Published: revision {published}"
    return f'<span class="dbk-publish-value">{text}</span>'


class Publishing:
    def __init__(self, session: DesignSession, run: Callable[[Callable[[], Any]], Any], say: Callable[..., None]):
        self.session = session
        self.run = run
        self.say = say
        self.state: dict | None = None
        self._read_at: str | None = None  # the save (modifiedAt) the state was read after
        self.label = pn.pane.HTML("", css_classes=["dbk-publish-state"], margin=(14, 6))
        self.button = pn.widgets.Button(label="Publish…", css_classes=["dbk-publish"], margin=(8, 3))
        self.button.on_click(lambda e: self.run(self.open))
        self.text = pn.pane.HTML("", css_classes=["dbk-publish-changes"], sizing_mode="stretch_width")
        self.confirm = pn.widgets.Button(label="Publish", color="primary", css_classes=["dbk-publish-confirm"])
        self.confirm.on_click(lambda e: self.run(self.publish))
        self.unpublish_button = pn.widgets.Button(label="Unpublish", css_classes=["dbk-unpublish"])
        self.unpublish_button.on_click(lambda e: self.run(self.unpublish))
        close = pn.widgets.Button(label="Close", css_classes=["dbk-publish-close"])
        close.on_click(lambda e: setattr(self.panel, "visible", False))
        # Floats under the header as the PDF options do (editor.css): opening it moves nothing.
        self.panel = pn.Column(
            self.text,
            pn.Row(self.confirm, self.unpublish_button, close),
            visible=False,
            css_classes=["dbk-publish-dialog"],
            stylesheets=[STYLESHEET],
        )
        self.read()

    def read(self) -> None:
        self.state = self.session.publish_state()
        self._read_at = self.session.info["modifiedAt"]
        label = state_label(self.state)
        if self.label.object != label:
            self.label.object = label

    def saved(self) -> None:
        """After a save or a reload: the draft may now differ from (or equal) the published one.
        Read once per save (a page switch or a selection refreshes the editor too)."""
        if self._read_at != self.session.info["modifiedAt"]:
            self.read()

    def open(self) -> None:
        """Read the state afresh and show what publishing the draft changes."""
        self.read()
        state = self.state
        self.text.object = described(state)
        self.confirm.label = f"Publish revision {state['latestRevision']}"
        self.confirm.disabled = state["publishedRevision"] == state["latestRevision"]
        self.unpublish_button.visible = state["publishedRevision"] is not None
        self.panel.visible = True

    def publish(self) -> None:
        """Publish the revision the dialog showed, not one saved since by someone else."""
        revision = self.state["latestRevision"] if self.state else None
        if revision is None:
            return
        self.session.publish(revision)
        self.panel.visible = False
        self.read()
        self.say(f"Published revision {revision}: generate and batch render it from now on.", "success")

    def unpublish(self) -> None:
        self.session.unpublish()
        self.panel.visible = False
        self.read()
        self.say("Unpublished: generate and batch render the latest revision again.", "success")
