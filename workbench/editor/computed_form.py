"""Computed values in the properties form (extensions.md 11): expression inputs with a live
result, and a typed table's column editor with its footer and group rows.

Every result shown comes from the engine (engine.design.computed.preview: the expression set
on a scratch copy of the design, checked and resolved as an update_element would be), never
from a second evaluator here. An input whose expression does not check shows the engine's
message (the element, the key, the position and the fix) and sends nothing; one that checks
sends one update_element action.
"""

from __future__ import annotations

import html
import re
import typing
from collections.abc import Callable, Sequence
from typing import Any

import panel as pn

from engine.elements.table_rows import ColumnDef, footer_expression
from engine.text.formatting import DataType

from .style import TYPED_TEXT

# (node id, where, text) -> the result as shown; ValueError carrying the engine's message.
Preview = Callable[[str, str, str], str]
Update = Callable[..., None]

# The table's data keys the column editor edits (all read its column keys): the generic form
# leaves them to it.
COLUMN_KEYS = ("columnDefs", "footer", "groupBy", "groupHeader", "groupFooter")
DATA_TYPES: list[str] = list(typing.get_args(DataType))
NO_GROUP = "(no groups)"
WIDE = {"sizing_mode": "stretch_width"}


def result_html(outcome: tuple[bool, str] | None) -> str:
    if outcome is None:
        return ""
    ok, shown = outcome
    if ok:
        return f'<small class="dbk-expression-ok" style="color:#1a7f37">= {html.escape(shown)}</small>'
    return f'<small class="dbk-expression-error" style="color:#b42318">{html.escape(shown)}</small>'


def outcome_of(check: Callable[[str], str], text: str) -> tuple[bool, str] | None:
    """(True, result) or (False, the engine's message); None for an empty input."""
    if not text.strip():
        return None
    try:
        return True, check(text)
    except ValueError as error:
        return False, str(error)


def expression_input(
    label: str,
    value: str | None,
    check: Callable[[str], str],
    send: Callable[[str | None], None],
    saved: Callable[[], str | None],
    css: str = "dbk-expression",
    placeholder: str = "e.g. qty * price",
    checks: Callable[[str], bool] = lambda text: True,
) -> pn.Column:
    """A text input for an expression and its result on the samples under it, updated as it is
    typed. A committed edit (Enter, or leaving the input) is sent only when it checks; empty
    sends None. `checks(text)`: whether the text is an expression at all (a footer cell may be
    literal text, shown without a result)."""
    box = pn.widgets.TextInput(
        label=label, value=value or "", placeholder=placeholder, css_classes=[css], stylesheets=[TYPED_TEXT], **WIDE
    )
    result = pn.pane.HTML("", css_classes=[f"{css}-result", "dbk-expression-result"], margin=(0, 10), **WIDE)

    def show(text: str) -> tuple[bool, str] | None:
        outcome = outcome_of(check, text) if checks(text) else None
        result.object = result_html(outcome)
        return outcome

    def committed(text: str) -> None:
        if text == (saved() or ""):
            return  # what is saved (an echo of show_value): not an edit
        if not text.strip():
            send(None)
            return
        outcome = show(text)
        if outcome is None or outcome[0]:
            send(text)

    box.param.watch(lambda e: show(e.new), "value_input")
    box.param.watch(lambda e: committed(e.new), "value")
    column = pn.Column(box, result, margin=0, css_classes=["dbk-expression-field"], **WIDE)

    def show_value(stored: str | None) -> None:
        box.value = stored or ""
        show(stored or "")

    column.show_value = show_value
    column.input = box
    column.result = result
    show(value or "")
    return column


# --- typed columns ---------------------------------------------------------------------------------


def key_from(text: str, taken: Sequence[str], number: int) -> str:
    """A column key made from a header text: lower case, words joined by '_', unique in `taken`
    ("Unit price" -> "unit_price"; an empty header -> "column3")."""
    key = re.sub(r"\W+", "_", text.strip().lower()).strip("_")[:60]
    if not key:
        key = f"column{number}"
    elif key[0].isdigit():
        key = f"c{key}"
    unique, n = key, 2
    while unique in taken:
        unique, n = f"{key}_{n}", n + 1
    return unique


def typed_columns(node: Any) -> list[dict]:
    """columnDefs made from the table's header row (or numbered when it has none)."""
    cells = node.data.model_dump()["cells"]
    first = [cell if isinstance(cell, str) else cell.get("data", {}).get("content", "") for cell in cells[0]]
    defs: list[dict] = []
    for number, text in enumerate(first, start=1):
        key = key_from(text if node.data.headerRow else "", [d["key"] for d in defs], number)
        column = {"key": key}
        if node.data.headerRow and text and text != key:
            column["header"] = text
        defs.append(column)
    return defs


def _defs(node: Any) -> list[dict]:
    return [column.model_dump(exclude_none=True) for column in node.data.columnDefs or []]


def _rekeyed(rows: list[dict] | None, old: str, new: str | None) -> list[dict] | None:
    if rows is None:
        return None
    return [
        {(new if key == old else key): text for key, text in row.items() if new is not None or key != old}
        for row in rows
    ]


def column_editor(holder: Callable[[], Any], update: Update, preview: Preview | None) -> pn.Column:
    """A typed table's columns (key, header, type, format, computed value), its footer rows and
    its groups; for a plain table, the "Typed columns" button. Rebuilt when the table's shape
    changes (columns, rows of footers, groups), else shows new values in place."""
    holder_column = pn.Column(css_classes=["dbk-columns"], margin=0, **WIDE)
    built: dict[str, Any] = {"shape": None, "show": []}

    def check(where: str) -> Callable[[str], str]:
        def run(text: str) -> str:
            if preview is None:
                return ""
            return preview(holder().id, where, text)

        return run

    def send_data(**data: Any) -> None:
        update(data=data)

    def shape(node: Any) -> tuple:
        data = node.data
        return (
            data.columnDefs is None,
            tuple(c.key for c in data.columnDefs or []),
            len(data.footer or []),
            data.groupBy is not None,
            len(data.groupFooter or []),
        )

    def build() -> None:
        node = holder()
        built["show"] = []
        if node.data.columnDefs is None:
            typed = pn.widgets.Button(label="Typed columns", css_classes=["dbk-typed-columns"])
            typed.on_click(lambda e: send_data(columnDefs=typed_columns(holder())))
            holder_column.objects = [
                pn.pane.Markdown("**Columns**", margin=(0, 5)),
                pn.pane.HTML(
                    "<small>Give each column a key, a type and a format, compute columns, add totals and "
                    "groups: keys are made from the header row.</small>",
                    margin=(0, 10),
                ),
                typed,
            ]
            return
        defs = node.data.columnDefs
        blocks: list[Any] = [pn.pane.Markdown("**Columns**", margin=(0, 5))]
        for index in range(len(defs)):
            blocks.append(_column_block(index, holder, send_data, check(f"data.columnDefs[{index}].value"), built))
        add = pn.widgets.Button(label="+ Add column", css_classes=["dbk-add-column"], margin=(5, 10))
        add.on_click(lambda e: _add_column(holder(), send_data))
        blocks.append(add)
        blocks += _footer_blocks("footer", "Footer rows", holder, send_data, check, built)
        blocks += _group_blocks(holder, send_data, check, built)
        holder_column.objects = blocks

    def show_value(_stored: Any = None) -> None:
        node = holder()
        if shape(node) != built["shape"]:
            built["shape"] = shape(node)
            build()
            return
        for shown in built["show"]:
            shown(node)

    holder_column.show_value = show_value
    show_value()
    return holder_column


def _column_block(
    index: int, holder: Callable[[], Any], send_data: Callable[..., None], check: Any, built: dict
) -> Any:
    column: ColumnDef = holder().data.columnDefs[index]
    css = f"dbk-column-{index}"
    key = pn.widgets.TextInput(label="Key", value=column.key, css_classes=["dbk-column-key"], width=130)
    header = pn.widgets.TextInput(
        label="Header", value=column.header or "", placeholder=column.key, css_classes=["dbk-column-header"], width=130
    )
    data_type = pn.widgets.Select(
        label="Type", options=DATA_TYPES, value=column.dataType, css_classes=["dbk-column-type"], width=130
    )
    fmt = pn.widgets.TextInput(
        label="Format",
        value=column.format or "",
        placeholder="e.g. #,##0.00",
        css_classes=["dbk-column-format"],
        width=130,
    )
    currency = pn.widgets.TextInput(
        label="Currency",
        value=column.currency,
        css_classes=["dbk-column-currency"],
        width=130,
        visible=column.dataType == "currency",
    )
    locale = pn.widgets.TextInput(label="Locale", value=column.locale, css_classes=["dbk-column-locale"], width=130)

    def saved() -> dict:
        return _defs(holder())[index]

    def changed(field: str, value: Any) -> None:
        defs = _defs(holder())
        if defs[index].get(field) == value or (value is None and field not in defs[index]):
            return  # an echo of what is saved
        if value is None:
            defs[index].pop(field, None)
        else:
            defs[index][field] = value
        if field != "key":
            send_data(columnDefs=defs)
            return
        # A new key: the footers and the grouping that name the old one follow it, in the same action.
        old, data = saved()["key"], holder().data
        send_data(
            columnDefs=defs,
            footer=_rekeyed([dict(r) for r in data.footer] if data.footer else None, old, value),
            groupFooter=_rekeyed([dict(r) for r in data.groupFooter] if data.groupFooter else None, old, value),
            groupBy=value if data.groupBy == old else data.groupBy,
        )

    key.param.watch(lambda e: e.new.strip() and changed("key", e.new.strip()), "value")
    header.param.watch(lambda e: changed("header", e.new or None), "value")
    data_type.param.watch(lambda e: changed("dataType", e.new), "value")
    fmt.param.watch(lambda e: changed("format", e.new or None), "value")
    currency.param.watch(lambda e: e.new and changed("currency", e.new.strip().upper()), "value")
    locale.param.watch(lambda e: e.new and changed("locale", e.new.strip()), "value")
    value = expression_input(
        "Computed value (empty: an input column)",
        column.value,
        check,
        lambda text: changed("value", text),
        lambda: saved().get("value"),
        css="dbk-column-value",
    )
    remove = pn.widgets.Button(
        label="Remove column",
        css_classes=["dbk-remove-column"],
        margin=(5, 10),
        disabled=len(holder().data.columnDefs) == 1,
    )
    remove.on_click(lambda e: _remove_column(holder(), index, send_data))

    def show(node: Any) -> None:
        current = node.data.columnDefs[index]
        key.value, header.value, data_type.value = current.key, current.header or "", current.dataType
        header.placeholder = current.key
        fmt.value, currency.value, locale.value = current.format or "", current.currency, current.locale
        currency.visible = current.dataType == "currency"
        value.show_value(current.value)

    built["show"].append(show)
    return pn.Column(
        pn.pane.HTML(f"<b>Column {index + 1}</b>", margin=(4, 10, 0, 10)),
        pn.Row(key, header, margin=0),
        pn.Row(data_type, fmt, margin=0),
        pn.Row(locale, currency, margin=0),
        value,
        remove,
        css_classes=["dbk-column", css],
        styles={"border-top": "1px solid #ddd"},
        margin=(4, 0),
        **WIDE,
    )


def _add_column(node: Any, send_data: Callable[..., None]) -> None:
    """A column at the end: its definition, and an empty cell in every row (the header row's the key)."""
    defs = _defs(node)
    key = key_from("", [d["key"] for d in defs], len(defs) + 1)
    cells = node.data.model_dump()["cells"]
    header_rows = 1 if node.data.headerRow else 0
    cells = [row + [key if r < header_rows else ""] for r, row in enumerate(cells)]
    send_data(columnDefs=[*defs, {"key": key}], cells=cells)


def _remove_column(node: Any, index: int, send_data: Callable[..., None]) -> None:
    """The column's definition, its cells, its width and its footer cells go in one action."""
    data = node.data
    defs = _defs(node)
    gone = defs.pop(index)["key"]
    changes: dict[str, Any] = {
        "columnDefs": defs,
        "cells": [row[:index] + row[index + 1 :] for row in data.model_dump()["cells"]],
    }
    if data.columnWidths is not None:
        changes["columnWidths"] = data.columnWidths[:index] + data.columnWidths[index + 1 :]
    if data.footer is not None:
        changes["footer"] = _rekeyed([dict(r) for r in data.footer], gone, None)
    if data.groupBy == gone:
        changes.update(groupBy=None, groupHeader=None, groupFooter=None)
    elif data.groupFooter is not None:
        changes["groupFooter"] = _rekeyed([dict(r) for r in data.groupFooter], gone, None)
    send_data(**changes)


def _footer_blocks(
    key: str, title: str, holder: Callable[[], Any], send_data: Callable[..., None], check: Any, built: dict
) -> list[Any]:
    """Footer rows (or group footer rows): per row one input per column; "=…" is an expression."""
    node = holder()
    rows = getattr(node.data, key) or []
    blocks: list[Any] = [
        pn.pane.Markdown(f"**{title}**", margin=(0, 5)),
        pn.pane.HTML(
            "<small>Per column: text, or an expression starting with = (e.g. =sum(amount)).</small>", margin=(0, 10)
        ),
    ]

    def saved_rows() -> list[dict]:
        return [dict(r) for r in getattr(holder().data, key) or []]

    def cell_sent(number: int, column: str, text: str | None) -> None:
        new = saved_rows()
        if text:
            new[number][column] = text
        else:
            new[number].pop(column, None)
        send_data(**{key: new})

    for number in range(len(rows)):
        for column in node.data.columnDefs:
            cell = expression_input(
                f"{title[:-5] if title.endswith(' rows') else title} {number + 1} · {column.key}",
                rows[number].get(column.key),
                check(f"data.{key}[{number}].{column.key}"),
                lambda text, n=number, c=column.key: cell_sent(n, c, text),
                lambda n=number, c=column.key: (saved_rows()[n] if n < len(saved_rows()) else {}).get(c),
                css=f"dbk-{key}-cell",
                placeholder="text, or =sum(...)",
                checks=lambda text: footer_expression(text) is not None,
            )
            built["show"].append(
                lambda node, cell=cell, n=number, c=column.key: cell.show_value(
                    ((getattr(node.data, key) or [])[n] if n < len(getattr(node.data, key) or []) else {}).get(c)
                )
            )
            blocks.append(cell)
    add = pn.widgets.Button(label=f"+ {title[:-1]}", css_classes=[f"dbk-add-{key}"], margin=(5, 10))
    add.on_click(lambda e: send_data(**{key: [*saved_rows(), {}]}))
    remove = pn.widgets.Button(
        label=f"Remove last {title[:-1].lower()}", css_classes=[f"dbk-remove-{key}"], margin=(5, 10), disabled=not rows
    )
    remove.on_click(lambda e: send_data(**{key: saved_rows()[:-1] or None}))
    blocks.append(pn.Row(add, remove, margin=0))
    return blocks


def _group_blocks(holder: Callable[[], Any], send_data: Callable[..., None], check: Any, built: dict) -> list[Any]:
    node = holder()
    keys = [column.key for column in node.data.columnDefs]
    group_by = pn.widgets.Select(
        label="Group rows by",
        options=[NO_GROUP, *keys],
        value=node.data.groupBy or NO_GROUP,
        css_classes=["dbk-group-by"],
        **WIDE,
    )

    def grouped(chosen: str) -> None:
        current = holder().data.groupBy
        if (chosen == NO_GROUP and current is None) or chosen == current:
            return
        if chosen == NO_GROUP:
            send_data(groupBy=None, groupHeader=None, groupFooter=None)
        else:
            send_data(groupBy=chosen)

    group_by.param.watch(lambda e: grouped(e.new), "value")
    built["show"].append(lambda node: setattr(group_by, "value", node.data.groupBy or NO_GROUP))
    blocks: list[Any] = [pn.pane.Markdown("**Groups**", margin=(0, 5)), group_by]
    if node.data.groupBy is None:
        return blocks
    header = expression_input(
        "Group row (an expression; empty: the group's value)",
        node.data.groupHeader,
        check("data.groupHeader"),
        lambda text: send_data(groupHeader=text),
        lambda: holder().data.groupHeader,
        css="dbk-group-header",
        placeholder="e.g. concat('Month ', month)",
    )
    built["show"].append(lambda node: header.show_value(node.data.groupHeader))
    blocks.append(header)
    blocks += _footer_blocks("groupFooter", "Group footer rows", holder, send_data, check, built)
    return blocks
