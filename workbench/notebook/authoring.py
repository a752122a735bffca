"""Building a design in code: one method per element type, each a single action.

`Design` (workbench.notebook.workspace) inherits these; they need only its `apply` and `workbench`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..client import rows

_IMAGE_REFS = ("uploads:", "assets:", "data:", "https://", "http://")


def _camel(key: str) -> str:
    return re.sub(r"_([a-z])", lambda match: match.group(1).upper(), key)


def _node(link: str | None, repeat: str | None, show_if: str | dict | None) -> dict[str, Any]:
    """The keywords every builder passes on to add_element."""
    return {"link": link, "repeat": repeat, "show_if": show_if}


def _text_data(content: str | list[str], options: dict[str, Any], data: dict | None) -> dict:
    """A text's data: its content, the text options given (camelCased), then `data` as is."""
    given = {_camel(k): v for k, v in options.items() if v is not None}
    return {"content": content, **given, **(data or {})}


class Authoring:
    """add_text, add_image, … update_element, remove_element, bind, unbind."""

    def add_element(
        self,
        type: str,
        name: str,
        position: dict,
        data: dict | None = None,
        styles: dict | None = None,
        *,
        page: int = 0,
        bind: bool = False,
        link: str | None = None,
        repeat: str | None = None,
        show_if: str | dict | None = None,
    ) -> dict:
        """Add one element (and bind it as a variable); returns its id, page and box.

        Every element takes `link` (a URL: its box links there in the PDF), `repeat`
        ("sheets" or "pages": drawn on every continuation sheet or every sheet) and `show_if`
        (a variable's name: drawn only when its value is non-empty, or a condition
        `{"variable": …, "equals": …}` / `{"variable": …, "notEquals": …}`).
        """
        args: dict[str, Any] = {"type": type, "name": name, "page": page, "position": position}
        if link is not None:
            data = {**(data or {}), "link": link}
        if data:
            args["data"] = data
        if repeat is not None:
            args["repeat"] = repeat
        if show_if is not None:
            args["showIf"] = {"variable": show_if} if isinstance(show_if, str) else show_if
        if styles:
            args["styles"] = {_camel(k): v for k, v in styles.items()}
        actions = [{"type": "add_element", "args": args}]
        if bind:
            actions.append({"type": "bind_variable", "args": {"name": name}})
        return self.apply(actions).results[0].data

    def add_text(
        self,
        name: str,
        content: str | list[str],
        *,
        x: float,
        y: float,
        max_width: float | None = None,
        max_height: float | None = None,
        fields: bool | None = None,
        samples: dict[str, str] | None = None,
        max_lines: int | None = None,
        overflow: str | None = None,
        markup: str | None = None,
        lang: str | None = None,
        data: dict | None = None,
        page: int = 0,
        bind: bool = False,
        link: str | None = None,
        repeat: str | None = None,
        show_if: str | dict | None = None,
        **styles: Any,
    ) -> dict:
        """Text at (x, y) in points from the top-left; styles as keywords (`font_size=28`,
        `fit="shrink"`, `min_font_size=12`, `letter_spacing=1`, `background_color=…`,
        `direction="rtl"`, `align="start"`).

        `lang` is the content's BCP 47 tag (`"ar"`, `"he"`, `"hi"`, `"zh-Hans"`: shaping and the
        tagged PDF's /Lang; the design's language when left out).

        `fields=True` makes `{name}` in the content a field (a variable; `samples` gives each
        its design-time value); `max_lines`, `max_height` and `overflow` ("ellipsis", "clip",
        "flow") limit the box; `markup="markdown"` reads **bold**, *italic*, ~~strike~~ and
        [links](https://…).
        """
        box = {"maxWidth": max_width, "maxHeight": max_height}
        position = {"x": x, "y": y, **{k: v for k, v in box.items() if v is not None}}
        options = {
            "fields": fields,
            "samples": samples,
            "max_lines": max_lines,
            "overflow": overflow,
            "markup": markup,
            "lang": lang,
        }
        text = _text_data(content, options, data)
        return self.add_element(
            "text", name, position, text, styles, page=page, bind=bind, **_node(link, repeat, show_if)
        )

    def add_image(
        self,
        name: str,
        src: str | Path | bytes | None = None,
        *,
        x: float,
        y: float,
        w: float,
        h: float,
        data: dict | None = None,
        page: int = 0,
        bind: bool = False,
        link: str | None = None,
        repeat: str | None = None,
        show_if: str | dict | None = None,
        **styles: Any,
    ) -> dict:
        """An image: `src` a ref (`uploads:…`, `assets:…`), a data: or https: URL, or a file path or bytes to upload."""
        extra = dict(data or {})
        if src is not None:
            is_ref = isinstance(src, str) and src.startswith(_IMAGE_REFS)
            extra["src"] = src if is_ref else self.workbench.upload_image(src, name).ref
        position = {"x": x, "y": y, "w": w, "h": h}
        return self.add_element(
            "image", name, position, extra, styles, page=page, bind=bind, **_node(link, repeat, show_if)
        )

    def add_table(
        self,
        name: str,
        cells: Any,
        *,
        x: float,
        y: float,
        column_widths: list[float] | None = None,
        width: float | None = None,
        header_row: bool | None = None,
        data: dict | None = None,
        page: int = 0,
        bind: bool = False,
        link: str | None = None,
        repeat: str | None = None,
        show_if: str | dict | None = None,
        **styles: Any,
    ) -> dict:
        """A table from rows of strings, a DataFrame or a list of records (their header row first);
        styles as keywords (`direction="rtl"`: the first column on the right; `align="start"`)."""
        table = {"cells": rows.to_value(cells, rows.TableShape(header=header_row is not False))}
        options = {"columnWidths": column_widths, "width": width, "headerRow": header_row}
        table.update({k: v for k, v in options.items() if v is not None}, **(data or {}))
        return self.add_element(
            "table", name, {"x": x, "y": y}, table, styles, page=page, bind=bind, **_node(link, repeat, show_if)
        )

    def add_chart(
        self,
        name: str,
        data: Any,
        *,
        x_key: str,
        series: list[str | dict] | None = None,
        kind: str = "bar",
        x: float,
        y: float,
        w: float,
        h: float,
        title: str | None = None,
        legend: str | None = None,
        chart: dict | None = None,
        page: int = 0,
        bind: bool = False,
        link: str | None = None,
        repeat: str | None = None,
        show_if: str | dict | None = None,
        **styles: Any,
    ) -> dict:
        """A chart (extensions.md 15) of a DataFrame or a list of records: `x_key` its categories'
        column (a scatter's x numbers), `series` the columns plotted (keys, or {key, label, color,
        dataType, format}; default every other column); `kind` bar, stackedBar, line, area, pie,
        donut or scatter; `chart` any other data keys (axis, alt); styles as keywords
        (`font_size=`, `palette=`). With `bind=True` a generation's DataFrame replaces the rows."""
        records = rows.to_value(data, rows.TableShape(header=False, typed=True))
        records = records if isinstance(records, list) else []
        if series is None:
            _, columns = rows.records(data)
            series = [str(column) for column in columns if str(column) != x_key]
        plotted = [{"key": item} if isinstance(item, str) else dict(item) for item in series]
        content: dict[str, Any] = {"kind": kind, "x": x_key, "series": plotted, "rows": records}
        content.update({k: v for k, v in {"title": title, "legend": legend}.items() if v is not None}, **(chart or {}))
        position = {"x": x, "y": y, "w": w, "h": h}
        return self.add_element(
            "chart", name, position, content, styles, page=page, bind=bind, **_node(link, repeat, show_if)
        )

    def add_shape(
        self,
        name: str,
        shape_type: str = "rectangle",
        *,
        x: float,
        y: float,
        w: float,
        h: float,
        data: dict | None = None,
        page: int = 0,
        bind: bool = False,
        link: str | None = None,
        repeat: str | None = None,
        show_if: str | dict | None = None,
        **styles: Any,
    ) -> dict:
        """A rectangle, circle, line or arrow (`fill=`, `stroke=`, `stroke_width=`…)."""
        position = {"x": x, "y": y, "w": w, "h": h}
        shape = {"shapeType": shape_type, **(data or {})}
        return self.add_element(
            "shape", name, position, shape, styles, page=page, bind=bind, **_node(link, repeat, show_if)
        )

    def add_icon(
        self,
        name: str,
        icon_id: str,
        *,
        x: float,
        y: float,
        w: float,
        h: float,
        data: dict | None = None,
        page: int = 0,
        bind: bool = False,
        link: str | None = None,
        repeat: str | None = None,
        show_if: str | dict | None = None,
        **styles: Any,
    ) -> dict:
        """A bundled outline icon (`star`, `check`, `mail`, …)."""
        position = {"x": x, "y": y, "w": w, "h": h}
        icon = {"iconId": icon_id, **(data or {})}
        return self.add_element(
            "icon", name, position, icon, styles, page=page, bind=bind, **_node(link, repeat, show_if)
        )

    def add_qr(
        self,
        name: str,
        content: str,
        *,
        x: float,
        y: float,
        size: float,
        data: dict | None = None,
        page: int = 0,
        bind: bool = False,
        link: str | None = None,
        repeat: str | None = None,
        show_if: str | dict | None = None,
        **styles: Any,
    ) -> dict:
        """A square QR code drawn as vectors."""
        qr = {"content": content, **(data or {})}
        return self.add_element(
            "qr", name, {"x": x, "y": y, "size": size}, qr, styles, page=page, bind=bind, **_node(link, repeat, show_if)
        )

    def add_barcode(
        self,
        name: str,
        content: str,
        *,
        x: float,
        y: float,
        w: float,
        h: float,
        format: str | None = None,
        data: dict | None = None,
        page: int = 0,
        bind: bool = False,
        link: str | None = None,
        repeat: str | None = None,
        show_if: str | dict | None = None,
        **styles: Any,
    ) -> dict:
        """A barcode (`format` CODE128 by default, EAN13, EAN8, UPCA, CODE39, ITF, ISBN13, upce, itf14,
        gs1-128; 2-D: datamatrix, gs1-datamatrix, pdf417, aztec)."""
        barcode = {"content": content, **({"format": format} if format else {}), **(data or {})}
        position = {"x": x, "y": y, "w": w, "h": h}
        return self.add_element(
            "barcode", name, position, barcode, styles, page=page, bind=bind, **_node(link, repeat, show_if)
        )

    def add_field(
        self,
        name: str,
        field_type: str = "text",
        *,
        x: float,
        y: float,
        w: float,
        h: float,
        value: str | bool | None = None,
        options: list[str | tuple[str, str] | dict] | None = None,
        tooltip: str | None = None,
        required: bool = False,
        data: dict | None = None,
        page: int = 0,
        bind: bool = False,
        repeat: str | None = None,
        show_if: str | dict | None = None,
        **styles: Any,
    ) -> dict:
        """A fillable form field (the manual, "Fillable forms"): `field_type` text, multiline,
        checkbox, radio, select, date or signature; `value` its initial value (True/False for a
        checkbox, an option's value for radio and select); `options` for radio and select, each a
        value, a (value, label) pair or {value, label}; `tooltip` what screen readers announce.
        `bind=True` makes the initial value a variable that generate and generate_many fill."""
        field: dict[str, Any] = {"fieldType": field_type, **(data or {})}
        if value is not None:
            field["value"] = value
        if options is not None:
            field["options"] = [_option(option) for option in options]
        if tooltip is not None:
            field["tooltip"] = tooltip
        if required:
            field["required"] = True
        position = {"x": x, "y": y, "w": w, "h": h}
        return self.add_element(
            "field", name, position, field, styles, page=page, bind=bind, **_node(None, repeat, show_if)
        )

    def update_element(
        self,
        name: str,
        *,
        new_name: str | None = None,
        position: dict | None = None,
        data: dict | None = None,
        repeat: str | None = None,
        show_if: str | dict | None = None,
        **styles: Any,
    ) -> dict:
        """Change an element key by key (`None` as a value resets that key); `repeat` and
        `show_if` as in add_element ("none" stops repeating)."""
        condition = {"variable": show_if} if isinstance(show_if, str) else show_if
        fields = {"newName": new_name, "position": position, "data": data, "repeat": repeat, "showIf": condition}
        args: dict[str, Any] = {"name": name, **{k: v for k, v in fields.items() if v is not None}}
        if styles:
            args["styles"] = {_camel(k): v for k, v in styles.items()}
        return self.apply({"type": "update_element", "args": args}).results[0].data

    def remove_element(self, name: str) -> None:
        self.apply({"type": "remove_element", "args": {"name": name}})

    def bind(self, *names: str) -> None:
        """Make elements variables, filled by name at generation."""
        self.apply([{"type": "bind_variable", "args": {"name": n}} for n in names])

    def unbind(self, *names: str) -> None:
        self.apply([{"type": "unbind_variable", "args": {"name": n}} for n in names])


def _option(option: str | tuple[str, str] | dict) -> dict:
    """A radio or select option as the API takes it: {value, label?}."""
    if isinstance(option, dict):
        return dict(option)
    if isinstance(option, tuple):
        value, label = option
        return {"value": value, "label": label}
    return {"value": option}
