"""A design made from an existing PDF (extensions.md 12, `POST /designs` with `basePdf`).

One design page per PDF page, sized as that page (its visible box, /Rotate and /UserUnit
applied), with that page placed under it as its background (vector content,
engine.media.pdf_pages). A placed page drops its own widgets, so each of the PDF's AcroForm
fields becomes a form `field` element (extensions.md 13) at its widget's box: a text field
(multiline when flagged), a check box, a radio group (one element over the union of its
buttons, which it lays out again stacked in that box), a combo or list box (a `select`), a
signature field. Each takes the field's value, flags, tooltip, maximum length, alignment,
font size and colours, and each with a value is bound to a variable named after the field
(kind field-value), as issue 36 bound text fields. Push buttons are not imported.

What the field element cannot hold (a value outside Windows-1252, an option it refuses, a
second widget of one field) is left out of that field, never failing the import: each such
thing is a note of `import_pdf`'s answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pikepdf
from pikepdf import Name
from pydantic import ValidationError

from ..actions import MAX_ACTIONS, apply
from ..elements.field import MAX_OPTIONS, FieldData, FieldOption, FieldStyles, check_value
from ..errors import ActionError
from ..media.pdf_pages import PdfPageError, open_pdf, page_size, placement, transformed_bounds
from ..pdf.forms import OFF, PADDING
from .names import strip_invisible
from .paper import MAX_PAGE_SIDE, MIN_PAGE_SIDE
from .tree import DesignTree, new_design

MAX_FIELDS = 500  # elements a base PDF's form may bring; a design of more is not a form anyone fills by hand
_NAME_MAX = 100
_FONT_SIZE = re.compile(rb"(\d+(?:\.\d+)?)\s+Tf")
_COLOUR = re.compile(rb"((?:[-+]?(?:\d+\.?\d*|\.\d+)\s+){1,4})(rg|g|k)\b")
_ALIGN = {0: "left", 1: "center", 2: "right"}

# Field flags (ISO 32000-1, tables 221, 226, 228; bit n is 1 << (n - 1)).
_READ_ONLY, _REQUIRED = 1, 1 << 1
_MULTILINE = 1 << 12
_RADIO, _PUSH_BUTTON = 1 << 15, 1 << 16
_LINE = 1.35  # a line's height over its font size, as viewers size an auto-sized single-line field


@dataclass(frozen=True)
class FormField:
    """One imported field: its fully qualified name in the PDF, its field element's type, where
    its box is on the design page (a radio group's: the union of its buttons), what it holds."""

    name: str
    kind: str  # a field element's fieldType: text, multiline, checkbox, radio, select, signature
    page: int  # 0-based
    x: float  # design coordinates: points from the page's top-left
    y: float
    w: float
    h: float
    value: str | bool | None = None
    options: tuple[tuple[str, str | None], ...] = ()  # (value, label); radio and select
    required: bool = False
    read_only: bool = False
    max_length: int | None = None
    tooltip: str | None = None
    font_size: float | None = None  # None: the /DA asks for auto size (or says nothing)
    color: str | None = None
    align: str = "left"
    border_color: str | None = None
    border_width: float = 1.0
    background: str | None = None


@dataclass
class PdfImport:
    """A design made of a PDF, and what of the PDF's form it left out (sentences, in form order)."""

    tree: DesignTree
    notes: list[str] = field(default_factory=list)


def variable_name(field_name: str, taken: set[str]) -> str:
    """A valid element (and variable) name for a field, unique among `taken` (which it joins):
    letters, digits and underscores, not starting with a digit, at most 100 characters."""
    base = re.sub(r"[^0-9A-Za-z_]+", "_", field_name).strip("_") or "field"
    if base[0].isdigit():
        base = f"field_{base}"
    base = base[:_NAME_MAX]
    name, number = base, 1
    while name.lower() in taken:
        number += 1
        suffix = f"_{number}"
        name = base[: _NAME_MAX - len(suffix)] + suffix
    taken.add(name.lower())
    return name


def pdf_field_name(full_name: str, taken: set[str]) -> str:
    """The AcroForm name of an imported field, unique among `taken` (which it joins): the PDF's
    fully qualified name with each '.' (which a field element refuses: readers take it as a
    parent's name) made '_', control characters made spaces, without bidi controls and invisible
    characters (engine.design.names), at most 100 characters."""
    base = strip_invisible(re.sub(r"[\x00-\x1f]", " ", full_name.replace(".", "_")))
    base = base.strip()[:_NAME_MAX].strip() or "field"
    name, number = base, 1
    while name in taken:  # PDF field names are case-sensitive
        number += 1
        suffix = f"_{number}"
        name = base[: _NAME_MAX - len(suffix)] + suffix
    taken.add(name)
    return name


def design_from_pdf(data: bytes, ref: str, title: str | None = None) -> DesignTree:
    """The design of the PDF `ref` (whose bytes are `data`): see the module's docstring."""
    return import_pdf(data, ref, title).tree


def import_pdf(data: bytes, ref: str, title: str | None = None) -> PdfImport:
    """The design of the PDF `ref` (whose bytes are `data`) and the notes of what of its form
    was left out. A PdfPageError says what to fix (not a PDF, a page too small or large, too
    many fields)."""
    notes: list[str] = []
    with open_pdf(data) as pdf:
        sizes = [page_size(page) for page in pdf.pages]
        if not sizes:
            raise PdfPageError("the PDF has no pages: upload a PDF with at least one page")
        for number, (width, height) in enumerate(sizes, start=1):
            if not (MIN_PAGE_SIDE <= width <= MAX_PAGE_SIDE and MIN_PAGE_SIDE <= height <= MAX_PAGE_SIDE):
                raise PdfPageError(
                    f"page {number} of the PDF is {width:g} × {height:g} points; design pages are "
                    f"{MIN_PAGE_SIDE:g} to {MAX_PAGE_SIDE:g} points on a side: resize that page first"
                )
        fields = _form_fields(pdf, notes)
    if len(fields) > MAX_FIELDS:
        raise PdfPageError(
            f"the PDF has {len(fields)} form fields; at most {MAX_FIELDS} become elements: "
            "remove (or flatten) the fields you do not fill, then upload it again"
        )
    tree = new_design(width=sizes[0][0], height=sizes[0][1], title=title)
    actions: list[dict[str, Any]] = []
    for index, (width, height) in enumerate(sizes):
        if index:
            actions.append({"type": "add_page", "args": {"width": width, "height": height}})
        background = {"page": index, "backgroundImage": ref, "backgroundSize": "stretch"}
        if index:
            background["backgroundPageNumber"] = index + 1
        actions.append({"type": "set_page_background", "args": background})
    for start in range(0, len(actions), MAX_ACTIONS):  # apply takes at most MAX_ACTIONS at a time
        tree, _ = apply(tree, actions[start : start + MAX_ACTIONS])
    names: set[str] = set()
    field_names: set[str] = set()
    groups: list[tuple[FormField, list[dict[str, Any]]]] = []  # each field's actions
    for form_field in fields:
        name = variable_name(form_field.name, names)
        element = _element(form_field, name, pdf_field_name(form_field.name, field_names), notes)
        if element is None:
            continue
        group = [{"type": "add_element", "args": element}]
        if form_field.kind != "signature":  # a signature has no value to fill
            group.append({"type": "bind_variable", "args": {"name": name}})
        groups.append((form_field, group))
    return PdfImport(_add_fields(tree, groups, notes), notes)


def _add_fields(tree: DesignTree, groups: list[tuple[FormField, list[dict[str, Any]]]], notes: list[str]) -> DesignTree:
    """The tree with each field's actions applied, as many at a time as apply takes; should a
    batch fail (a widget far off its page, say), its fields one by one, each that fails left
    out and noted, so that one odd field never fails the import."""
    batch: list[tuple[FormField, list[dict[str, Any]]]] = []
    for index, group in enumerate(groups):
        batch.append(group)
        following = groups[index + 1][1] if index + 1 < len(groups) else None
        if following is not None and sum(len(actions) for _, actions in batch) + len(following) <= MAX_ACTIONS:
            continue
        try:
            tree, _ = apply(tree, [action for _, actions in batch for action in actions])
        except ActionError:
            for form_field, actions in batch:
                try:
                    tree, _ = apply(tree, actions)
                except ActionError as exc:
                    notes.append(
                        f"the field '{form_field.name}' (page {form_field.page + 1}) was left out: {exc.reason}"
                    )
        batch = []
    return tree


def _element(form_field: FormField, name: str, field_name: str, notes: list[str]) -> dict[str, Any] | None:
    """The add_element args of one field: what the field element refuses is left out, noted;
    None (noted) when nothing of a radio group's or select's options is left."""
    where = f"the field '{form_field.name}' (page {form_field.page + 1})"
    data: dict[str, Any] = {"fieldType": form_field.kind, "fieldName": field_name}
    if field_name != form_field.name:
        notes.append(f"{where} is the field '{field_name}' (a field's name holds no '.' and is unique)")
    if form_field.kind in ("radio", "select"):
        data["options"] = _accepted_options(form_field, where, notes)
        if not data["options"]:
            notes.append(f"{where} was left out: none of its options can be a field's option")
            return None
    if form_field.required:
        data["required"] = True
    if form_field.read_only:
        data["readOnly"] = True
    if form_field.max_length is not None:
        if 1 <= form_field.max_length <= 10_000:
            data["maxLength"] = form_field.max_length
        else:
            notes.append(f"{where}: its maximum length {form_field.max_length} was left out (1 to 10,000)")
    if form_field.tooltip:
        data["tooltip"] = form_field.tooltip[:500]
    checked = FieldData.model_validate(data)  # everything here is in range: a bug if not
    if form_field.value is not None:
        try:
            check_value(checked, form_field.value)
            data["value"] = form_field.value
        except ValueError as exc:
            notes.append(f"{where}: its value {form_field.value!r} was left out: {exc}")
    styles: dict[str, Any] = {
        "fontSize": _font_size(form_field),
        "align": form_field.align,
        "borderColor": form_field.border_color,
        "borderWidth": min(max(form_field.border_width, 0.0), 12.0),
        "backgroundColor": form_field.background,
    }
    if form_field.color:
        styles["color"] = form_field.color
    FieldStyles.model_validate(styles)
    box = {"x": form_field.x, "y": form_field.y, "w": form_field.w, "h": form_field.h}
    box = {key: round(value, 3) for key, value in box.items()}
    return {"type": "field", "name": name, "page": form_field.page, "position": box, "data": data, "styles": styles}


def _accepted_options(form_field: FormField, where: str, notes: list[str]) -> list[dict[str, str]]:
    """The field's options the field element takes, each one it refuses noted."""
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    for value, label in form_field.options:
        option = {"value": value} if not label or label == value else {"value": value, "label": label}
        reason = None
        if len(out) == MAX_OPTIONS:
            reason = f"a field has at most {MAX_OPTIONS} options"
        elif value in seen:
            reason = "another option has that value"
        elif form_field.kind == "radio" and value == OFF:
            reason = f"'{OFF}' is the value of no choice in PDF"
        else:
            try:
                FieldOption.model_validate(option)
            except ValidationError:
                reason = "an option's value is 1 to 200 characters, its label at most 200"
        if reason:
            notes.append(f"{where}: its option {value!r} was left out: {reason}")
            continue
        seen.add(value)
        out.append(option)
    return out


def _font_size(form_field: FormField) -> float:
    """The /DA's size, or for auto size (0) one that fits the box's height (a radio group's: one
    row's), as viewers size an auto-sized field; 4 to 72 points as a field element takes."""
    size = form_field.font_size
    if size is None:
        inner = form_field.h / max(len(form_field.options), 1) if form_field.kind == "radio" else form_field.h
        border = form_field.border_width if form_field.border_color else 0.0
        size = (inner - 2 * border - (2 * PADDING if form_field.kind != "radio" else 0)) / _LINE
        if form_field.kind == "multiline":
            size = min(size, 12.0)  # a box of several lines: the usual text size, not one line its height
    return round(min(max(size, 4.0), 72.0), 2)


# --- Reading the AcroForm ----------------------------------------------------------------------


def _inherited(field: pikepdf.Dictionary, key: str) -> Any:
    """A field's entry, or its nearest ancestor's (ISO 32000-1 12.7.3.1: FT, V, DA, Ff inherit)."""
    node: Any = field
    for _ in range(32):
        if not isinstance(node, pikepdf.Dictionary):
            return None
        if key in node:
            return node[key]
        node = node.get("/Parent")
    return None


def _full_name(field: pikepdf.Dictionary) -> str:
    parts = []
    node: Any = field
    for _ in range(32):
        if not isinstance(node, pikepdf.Dictionary):
            break
        if "/T" in node:
            parts.append(str(node.T))
        node = node.get("/Parent")
    return ".".join(reversed(parts)) or "field"


def _terminal_fields(pdf: pikepdf.Pdf) -> list[tuple[pikepdf.Dictionary, list[pikepdf.Dictionary]]]:
    """Each terminal field of the AcroForm with its widgets, in the form's order."""
    acro = pdf.Root.get("/AcroForm")
    if not isinstance(acro, pikepdf.Dictionary) or not isinstance(acro.get("/Fields"), pikepdf.Array):
        return []
    out = []
    seen: set[tuple[int, int]] = set()
    stack = list(reversed(list(acro.Fields)))
    while stack and len(out) <= MAX_FIELDS:
        field = stack.pop()
        if not isinstance(field, pikepdf.Dictionary):
            continue
        if field.is_indirect:
            if field.objgen in seen:
                continue
            seen.add(field.objgen)
        kids = field.get("/Kids")
        children = [k for k in kids if isinstance(k, pikepdf.Dictionary)] if isinstance(kids, pikepdf.Array) else []
        # Kids that are fields (they have a name) make this one a non-terminal field; kids that
        # are only widgets are this field's widgets.
        if children and any("/T" in kid for kid in children):
            stack.extend(reversed(children))
            continue
        out.append((field, children or [field]))
    return out


def _widget_page(pdf: pikepdf.Pdf, widget: pikepdf.Dictionary, pages_of: dict[tuple[int, int], int]) -> int | None:
    page = widget.get("/P")
    if isinstance(page, pikepdf.Dictionary) and page.is_indirect and page.objgen in pages_of:
        return pages_of[page.objgen]
    if widget.is_indirect:
        for index, candidate in enumerate(pdf.pages):
            annots = candidate.obj.get("/Annots")
            if isinstance(annots, pikepdf.Array) and any(
                a.is_indirect and a.objgen == widget.objgen for a in annots if isinstance(a, pikepdf.Dictionary)
            ):
                return index
    return None


def _on_state(widget: pikepdf.Dictionary) -> str | None:
    """A button widget's on state: the name of its normal appearance that is not Off."""
    appearances = widget.get("/AP")
    normal = appearances.get("/N") if isinstance(appearances, pikepdf.Dictionary) else None
    if not isinstance(normal, pikepdf.Dictionary):
        return None
    return next((str(key)[1:] for key in normal.keys() if str(key) != "/" + OFF), None)


def _text(value: Any) -> str | None:
    if isinstance(value, pikepdf.String):
        return str(value)[:10_000] or None
    return None


def _state(value: Any) -> str | None:
    """A button's state (a name; some producers write a string)."""
    if isinstance(value, Name):
        return str(value)[1:]
    return _text(value)


def _number(value: Any, default: float) -> float:
    try:
        return float(value) if value is not None else default
    except (TypeError, ValueError):
        return default


def _hex(components: list[float]) -> str | None:
    """A colour of 1 (grey), 3 (RGB) or 4 (CMYK) components in 0-1 as #rrggbb; None for none."""
    values = [min(max(v, 0.0), 1.0) for v in components]
    if len(values) == 1:
        rgb = values * 3
    elif len(values) == 3:
        rgb = values
    elif len(values) == 4:
        c, m, y, k = values
        rgb = [(1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)]
    else:
        return None  # an empty array: transparent
    return "#" + "".join(f"{round(v * 255):02x}" for v in rgb)


def _colour(value: Any) -> str | None:
    if not isinstance(value, pikepdf.Array):
        return None
    return _hex([_number(v, 0.0) for v in value])


def _appearance(da: Any) -> tuple[float | None, str | None]:
    """The font size (None: 0, auto size, or none given) and text colour of a /DA string."""
    if not isinstance(da, pikepdf.String):
        return None, None
    raw = bytes(da)
    match = _FONT_SIZE.search(raw)
    size = float(match.group(1)) if match and float(match.group(1)) > 0 else None
    colour = None
    for found in _COLOUR.finditer(raw):
        numbers = [float(v) for v in found.group(1).split()]
        need = {b"g": 1, b"rg": 3, b"k": 4}[found.group(2)]
        if len(numbers) >= need:
            colour = _hex(numbers[-need:])
    return size, colour


def _opt_entries(node: pikepdf.Dictionary) -> tuple[tuple[str, str | None], ...]:
    """A choice field's /Opt: text strings, or [export value, label] pairs."""
    found = node.get("/Opt")
    out = []
    for item in found if isinstance(found, pikepdf.Array) else []:
        if isinstance(item, pikepdf.Array) and len(item) >= 2:
            out.append((str(item[0]), str(item[1])))
        elif isinstance(item, pikepdf.String):
            out.append((str(item), None))
    return tuple(out)


def _form_fields(pdf: pikepdf.Pdf, notes: list[str]) -> list[FormField]:
    """The fields of the PDF's form a design takes, in the form's order; what it leaves out noted."""
    pages_of = {page.obj.objgen: index for index, page in enumerate(pdf.pages)}
    geometry = [placement(page) for page in pdf.pages]
    acro = pdf.Root.get("/AcroForm")
    defaults = acro if isinstance(acro, pikepdf.Dictionary) else pikepdf.Dictionary()
    fields = []
    for node, widgets in _terminal_fields(pdf):
        name = _full_name(node)
        kind_name = _inherited(node, "/FT")
        flags = int(_number(_inherited(node, "/Ff"), 0))
        if kind_name == Name.Tx:
            kind = "multiline" if flags & _MULTILINE else "text"
        elif kind_name == Name.Btn and flags & _PUSH_BUTTON:
            notes.append(f"the push button '{name}' was left out: a design has no push buttons")
            continue
        elif kind_name == Name.Btn:
            kind = "radio" if flags & _RADIO else "checkbox"
        elif kind_name == Name.Ch:
            kind = "select"
        elif kind_name == Name.Sig:
            kind = "signature"
        else:
            notes.append(f"the field '{name}' was left out: it has no field type (/FT)")
            continue
        placed = []
        for index, widget in enumerate(widgets):
            page = _widget_page(pdf, widget, pages_of) if isinstance(widget.get("/Rect"), pikepdf.Array) else None
            if page is not None:
                placed.append((index, widget, page, _design_box(geometry[page], [float(v) for v in widget.Rect])))
        if not placed:
            notes.append(f"the field '{name}' was left out: it has no widget on a page")
            continue
        _, first, page, box = placed[0]
        where = f"the field '{name}' (page {page + 1})"
        if len(placed) > 1 and (kind != "radio" or any(p != page for _, _, p, _ in placed)):
            what = "widgets on another page" if kind == "radio" else "widgets after its first"
            notes.append(f"{where} shows in {len(placed)} places: its {what} were left out")
        if kind == "radio":
            boxes = [b for _, _, p, b in placed if p == page]
            x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
            x1, y1 = max(b[0] + b[2] for b in boxes), max(b[1] + b[3] for b in boxes)
            box = (x0, y0, x1 - x0, y1 - y0)
        if box[2] < 1 or box[3] < 1:
            notes.append(f"{where} was left out: its widget has no area (a hidden field)")
            continue
        value: str | bool | None = None
        options: tuple[tuple[str, str | None], ...] = ()
        chosen = _inherited(node, "/V")
        if kind in ("text", "multiline"):
            value = _text(chosen)
        elif kind == "checkbox":
            state = _state(chosen) if chosen is not None else _state(first.get("/AS"))
            on = _on_state(first)  # a field of several boxes is on in one of them: this one?
            value = True if state not in (None, OFF) and (on is None or state == on) else None
        elif kind == "radio":
            # /Opt, when there, holds each button's label (its on state is then often an index).
            labels = [label for label, _ in _opt_entries(node)]
            states = [(_on_state(widget), index) for index, widget, p, _ in placed if p == page]
            options = tuple(
                (state, labels[index] if len(labels) == len(widgets) else None)
                for state, index in states
                if state is not None
            )
            value = _state(chosen)
            value = None if value == OFF else value
        elif kind == "select":
            options = _opt_entries(node)
            if isinstance(chosen, pikepdf.Array):  # a list box's several choices
                if len(chosen) > 1:
                    notes.append(f"{where}: only its first chosen value was kept (a select holds one)")
                chosen = chosen[0] if len(chosen) else None
            value = _text(chosen)
        if kind in ("radio", "select") and not options:
            notes.append(f"{where} was left out: it has no options")
            continue
        size, colour = _appearance(_inherited(node, "/DA") or defaults.get("/DA"))
        characteristics = first.get("/MK")
        characteristics = characteristics if isinstance(characteristics, pikepdf.Dictionary) else pikepdf.Dictionary()
        style = first.get("/BS")
        if isinstance(style, pikepdf.Dictionary) and "/W" in style:
            border_width = _number(style.W, 1.0)
        elif isinstance(first.get("/Border"), pikepdf.Array) and len(first.Border) >= 3:
            border_width = _number(first.Border[2], 1.0)
        else:
            border_width = 1.0
        tooltip = node.get("/TU")
        max_length = _inherited(node, "/MaxLen") if kind in ("text", "multiline") else None
        fields.append(
            FormField(
                name=name,
                kind=kind,
                page=page,
                x=box[0],
                y=box[1],
                w=box[2],
                h=box[3],
                value=value,
                options=options,
                required=bool(flags & _REQUIRED),
                read_only=bool(flags & _READ_ONLY),
                max_length=None if max_length is None else int(_number(max_length, 0)),
                tooltip=str(tooltip) if isinstance(tooltip, pikepdf.String) and str(tooltip).strip() else None,
                font_size=size,
                color=colour,
                align=_ALIGN.get(int(_number(_inherited(node, "/Q") or defaults.get("/Q"), 0)), "left"),
                border_color=_colour(characteristics.get("/BC")),
                border_width=border_width,
                background=_colour(characteristics.get("/BG")),
            )
        )
    return fields


def _design_box(
    geometry: tuple[list[float], tuple[float, float, float, float]], rect: list[float]
) -> tuple[float, float, float, float]:
    """A widget's /Rect as a design box (x, y from the page's top-left, w, h) on its page."""
    matrix, (bx0, _by0, _bx1, by1) = geometry
    box = (min(rect[0], rect[2]), min(rect[1], rect[3]), max(rect[0], rect[2]), max(rect[1], rect[3]))
    x0, y0, x1, y1 = transformed_bounds(matrix, box)
    return x0 - bx0, by1 - y1, x1 - x0, y1 - y0


__all__ = [
    "MAX_FIELDS",
    "FormField",
    "PdfImport",
    "PdfPageError",
    "design_from_pdf",
    "import_pdf",
    "pdf_field_name",
    "variable_name",
]
