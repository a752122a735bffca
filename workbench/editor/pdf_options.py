"""What the editor's Generate button adds to a PDF beyond the design (extensions.md 9): the
profile, a watermark, a password and a signature, behind an "Options" toggle next to it, so
a designer proofs the same PDF an API client would ask for."""

from __future__ import annotations

from typing import Any

import panel as pn

from ..client.finishing import finishing_keys
from .style import STYLESHEET

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
        # A panel floating under the header (editor.css): opening it moves nothing below.
        self.panel = pn.Row(
            self.profile,
            self.watermark,
            self.password,
            self.sign,
            visible=False,
            css_classes=["dbk-pdf-options"],
            stylesheets=[STYLESHEET],
        )
        self.toggle = pn.widgets.Toggle(name="PDF options", css_classes=["dbk-pdf-options-toggle"], margin=(8, 3))
        self.toggle.link(self.panel, value="visible")

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
        return ", ".join(parts)
