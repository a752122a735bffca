"""The gallery's "new design" form: name, paper, orientation or custom size, in one message.

A form of Panel widgets sends each field as its own event, and Panel handles a session's
events on several threads (`pn.config.nthreads`), so a click on Create could be handled
before the name typed just before it. This component sends the whole form with the click.
"""

from __future__ import annotations

from pathlib import Path

import panel as pn
import param

from engine.paper import PAPER_SIZES

from ..editor.style import STYLESHEET


class NewDesignForm(pn.custom.JSComponent):
    papers = param.List(default=[*PAPER_SIZES, "Custom"])
    submitted = param.Dict(default={}, doc="{name, paper, orientation, width, height, at} on each Create")

    _esm = Path(__file__).with_name("new_design.js")
    _stylesheets = [STYLESHEET]
