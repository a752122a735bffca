"""The gallery's "new design" form: name, paper, orientation or custom size.

A plain HTML form (`new_design.js`): Enter submits it, the custom-size fields show and hide
in the browser without a round trip, and Create sends the whole form as one message, so the
design is made from exactly what the form showed when it was submitted.
"""

from __future__ import annotations

from pathlib import Path

import panel as pn
import param

from engine.design.paper import PAPER_SIZES

from ..editor.style import STYLESHEET


class NewDesignForm(pn.custom.JSComponent):
    papers = param.List(default=[*PAPER_SIZES, "Custom"])
    submitted = param.Dict(default={}, doc="{name, paper, orientation, width, height, at} on each Create")

    _esm = Path(__file__).with_name("new_design.js")
    _stylesheets = [STYLESHEET]
