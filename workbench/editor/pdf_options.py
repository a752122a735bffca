"""What the editor's Generate button adds to a PDF beyond the design (extensions.md 9): the
profile, a watermark, a password and a signature, behind an "Options" toggle next to it, so
a designer proofs the same PDF an API client would ask for; and "Print on label sheet"
(extensions.md 14), with a picture of one sheet filled with the design."""

from __future__ import annotations

import base64
from typing import Any

import panel as pn

from ..client.finishing import finishing_keys
from .style import STYLESHEET

NO_SHEET = "No: one PDF"
PROFILES = {"Standard": "standard", "Accessible (PDF/UA)": "accessible", "Archival (PDF/A-3b)": "pdf-a"}


class PdfOptions:
    def __init__(self) -> None:
        self.profile = pn.widgets.Select(
            name="Profile", options=PROFILES, value="standard", width=180, css_classes=["dbk-pdf-profile"]
        )
        self.watermark = pn.widgets.TextInput(
            name="Watermark", placeholder="e.g. DRAFT", width=160, css_classes=["dbk-pdf-watermark"]
        )
        self.password = pn.widgets.PasswordInput(
            name="Password to open", placeholder="none", width=160, css_classes=["dbk-pdf-password"]
        )
        self.sign = pn.widgets.Checkbox(
            name="Sign with the workspace's certificate", css_classes=["dbk-pdf-sign"], margin=(28, 10)
        )
        # Filled from GET /sheets by the editor (set_sheets); "" prints one PDF, as without it.
        self.sheet = pn.widgets.Select(
            name="Print on label sheet", options={NO_SHEET: ""}, value="", width=240, css_classes=["dbk-pdf-sheet"]
        )
        self.sheet_preview = pn.pane.HTML("", visible=False, css_classes=["dbk-sheet-preview"], margin=(5, 10))
        # A panel floating under the header (editor.css): opening it moves nothing below.
        self.panel = pn.Row(
            self.profile,
            self.watermark,
            self.password,
            self.sign,
            pn.Column(self.sheet, self.sheet_preview),
            visible=False,
            css_classes=["dbk-pdf-options"],
            stylesheets=[STYLESHEET],
        )
        self.toggle = pn.widgets.Toggle(name="PDF options", css_classes=["dbk-pdf-options-toggle"], margin=(8, 3))
        self.toggle.link(self.panel, value="visible")

    def set_sheets(self, presets: list[dict[str, Any]]) -> None:
        """The presets to choose from (GET /sheets' entries), each named with its label size."""
        options = {NO_SHEET: ""}
        for preset in presets:
            published = preset["published"]
            size = f"{published['labelWidth']:g} × {published['labelHeight']:g} {published['unit']}"
            label = f"{preset['brand']} {preset['name']} · {size} · {preset['labelsPerSheet']} a sheet"
            options[label] = preset["name"]
        self.sheet.options = options

    @property
    def chosen_sheet(self) -> dict[str, Any] | None:
        """The batch's `sheet` for the chosen preset, or None for one PDF."""
        return {"preset": self.sheet.value} if self.sheet.value else None

    def show_sheet(self, png: bytes | None, labels: int = 0) -> None:
        """The picture of one sheet filled with the design (None hides it)."""
        if png is None:
            self.sheet_preview.param.update(object="", visible=False)
            return
        source = "data:image/png;base64," + base64.b64encode(png).decode()
        self.sheet_preview.param.update(
            object=f'<img class="dbk-sheet-picture" src="{source}" alt="One label sheet" width="200" '
            f'style="border:1px solid #bbb"><div><small>{labels} labels a sheet; Generate prints one '
            "label (1 credit), a batch one a row</small></div>",
            visible=True,
        )

    def body_keys(self) -> dict[str, Any]:
        """generate_pdf's keys for what is filled in (nothing when the options were left alone)."""
        keys = finishing_keys(
            watermark=self.watermark.value.strip() or None,
            password=self.password.value or None,
            sign=self.sign.value,
        )
        if self.profile.value != "standard":
            keys["pdfProfile"] = self.profile.value
        return keys

    def describe(self) -> str:
        """What the last PDF got, for the message after it ("signed, with a password")."""
        parts = []
        if self.profile.value != "standard":
            parts.append(next(label for label, value in PROFILES.items() if value == self.profile.value))
        if self.watermark.value.strip():
            parts.append(f"watermark “{self.watermark.value.strip()}”")
        if self.password.value:
            parts.append("password")
        if self.sign.value:
            parts.append("signed")
        if self.sheet.value:
            parts.append(f"on a {self.sheet.value} label sheet")
        return ", ".join(parts)
