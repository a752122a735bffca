"""The "Try values" side panel: values for the design's variables, typed or pasted as a CSV
row, and the page shown with them before any credit is spent.

The picture comes from the service (`preview_with_values`, `POST /designs/:id/preview`): free,
checked as a generation's values are, and always watermarked "PREVIEW". The editor shows it on
the canvas in place of the page (every sheet, one at a time) and offers "Generate this" with
those values until the person goes back (or edits the design); nothing here is saved. What was
typed is kept in the panel context's `kept` dict, so a rebuild of the panel
(after a save or a change from elsewhere) leaves it in place.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import panel as pn

from engine import describe_variables

from .panel_context import PanelContext
from .style import TYPED_TEXT
from .text import text

WIDE = {"sizing_mode": "stretch_width"}

# A table value is typed as CSV, one line per row (its header row first when it has one).
MULTILINE_KINDS = {"table"}


def variables_of(ctx: PanelContext) -> list[dict]:
    """Each variable of the design: name, kind, what it accepts (engine.describe_variables)."""
    return describe_variables(ctx.tree)


def csv_lines(value: str) -> list[list[str]]:
    """Lines of CSV as rows of cells."""
    return [row for row in csv.reader(io.StringIO(value.strip())) if row]


def pasted_row(pasted: str, names: list[str]) -> dict[str, str]:
    """A pasted CSV row as values: a header line naming variables and one row under it, or one
    row in the variables' order. Raises ValueError with what to fix."""
    lines = csv_lines(pasted)
    if not lines:
        raise ValueError("Paste a CSV row: a header line and one row, or one row in the variables' order.")
    if len(lines) == 1:
        row = lines[0]
        if len(row) > len(names):
            raise ValueError(f"The row has {len(row)} values; the design has {len(names)} variables.")
        return dict(zip(names, row, strict=False))
    if len(lines) > 2:
        raise ValueError("Paste one row only (with its header line, or without one).")
    header, row = [cell.strip() for cell in lines[0]], lines[1]
    unknown = [name for name in header if name not in names]
    if unknown:
        raise ValueError(f"Not variables of this design: {', '.join(unknown)}. Its variables: {', '.join(names)}.")
    return dict(zip(header, row, strict=False))


def typed_values(variables: list[dict], typed: dict[str, str]) -> dict[str, Any]:
    """What the service is sent: every filled-in value (an empty one leaves the sample), tables
    as rows of cells."""
    kinds = {variable["name"]: variable["kind"] for variable in variables}
    values: dict[str, Any] = {}
    for name, value in typed.items():
        if name not in kinds or not value.strip():
            continue
        values[name] = csv_lines(value) if kinds[name] in MULTILINE_KINDS else value
    return values


def try_values_panel(ctx: PanelContext) -> pn.Column:
    variables = variables_of(ctx)
    typed: dict[str, str] = ctx.kept.setdefault("try_values", {})
    if not variables:
        return pn.Column(
            pn.pane.Markdown("This design has no variables yet: bind an element in the Variables tab."), **WIDE
        )
    names = [variable["name"] for variable in variables]
    inputs: dict[str, Any] = {}
    for variable in variables:
        name, kind = variable["name"], variable["kind"]
        hint = "an image ref (uploads:… or assets:…), or empty for the sample" if kind == "image" else "empty: sample"
        label = f"{name} ({kind}; {hint})"
        if kind in MULTILINE_KINDS:
            widget: Any = pn.widgets.TextAreaInput(label=f"{label}: CSV, one line per row", height=90, **WIDE)
        else:
            widget = pn.widgets.TextInput(label=label, **WIDE)
        widget.value = typed.get(name, "")
        widget.css_classes = ["dbk-try-input", f"dbk-try-{name}"]
        widget.stylesheets = [TYPED_TEXT]
        widget.param.watch(lambda e, name=name: typed.__setitem__(name, e.new), "value")
        inputs[name] = widget
    paste = pn.widgets.TextAreaInput(
        label="Paste a CSV row (header line and row, or one row in this order: " + ", ".join(names) + ")",
        height=70,
        css_classes=["dbk-try-paste"],
        **WIDE,
    )
    fill = pn.widgets.Button(label="Fill from the row", css_classes=["dbk-try-fill"])
    message = pn.pane.Markdown("", css_classes=["dbk-try-message"], **WIDE)

    def filled(event: Any) -> None:
        try:
            row = pasted_row(paste.value, names)
        except ValueError as error:
            message.object = text(str(error))
            return
        for name, value in row.items():
            inputs[name].value = value
        message.object = text(f"Filled {len(row)} value{'s' if len(row) != 1 else ''}.")

    fill.on_click(filled)
    show = pn.widgets.Button(label="Show preview", color="primary", css_classes=["dbk-try-show"])
    back = pn.widgets.Button(label="Back to the design", css_classes=["dbk-try-back"])

    def shown() -> None:
        ctx.show_try(typed_values(variables, typed))

    show.on_click(lambda e: ctx.run(shown))
    back.on_click(lambda e: ctx.show_try(None))
    return pn.Column(
        pn.pane.Markdown(
            f"Values for page {ctx.page + 1}, shown on the canvas watermarked **PREVIEW**: free, and never saved."
        ),
        *inputs.values(),
        paste,
        fill,
        message,
        pn.Row(show, back),
        **WIDE,
    )


__all__ = ["pasted_row", "try_values_panel", "typed_values"]
