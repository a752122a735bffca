"""A design made from an existing PDF (extensions.md 12, `POST /designs` with `basePdf`).

One design page per PDF page, sized as that page (its visible box, /Rotate and /UserUnit
applied), with that page placed under it as its background (vector content,
engine.media.pdf_pages). The PDF's AcroForm fields become elements at their widgets'
positions: a text field a text element bound to a variable named after the field; check boxes
and radio groups text elements too, bound likewise, until the form fields of extensions.md 13
exist (a check box shows "X" when checked, a radio group the option chosen).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pikepdf
from pikepdf import Name

from ..actions import MAX_ACTIONS, apply
from ..media.pdf_pages import PdfPageError, open_pdf, page_size, placement, transformed_bounds
from .paper import MAX_PAGE_SIDE, MIN_PAGE_SIDE
from .tree import DesignTree, new_design

MAX_FIELDS = 500  # elements a base PDF's form may bring; a design of more is not a form anyone fills by hand
_NAME_MAX = 100
_FONT_SIZE = re.compile(rb"(\d+(?:\.\d+)?)\s+Tf")


@dataclass(frozen=True)
class FormField:
    """One imported field: its name in the PDF, its kind, where its (first) widget is."""

    name: str
    kind: str  # "text", "checkbox", "radio"
    page: int  # 0-based
    x: float  # design coordinates: points from the page's top-left
    y: float
    w: float
    h: float
    value: str
    font_size: float | None


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


def design_from_pdf(data: bytes, ref: str, title: str | None = None) -> DesignTree:
    """The design of the PDF `ref` (whose bytes are `data`): see the module's docstring.
    A PdfPageError says what to fix (not a PDF, a page too small or large, too many fields)."""
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
        fields = _form_fields(pdf)
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
    taken: set[str] = set()
    for field in fields:
        name = variable_name(field.name, taken)
        style: dict[str, Any] = {}
        if field.font_size:
            style["fontSize"] = field.font_size
        size = field.font_size or 12
        # One line, centred in the widget's height, as a viewer shows a filled single-line field.
        top = field.y + max(0.0, (field.h - size * 1.2) / 2)
        position = {"x": round(field.x + 2, 2), "y": round(top, 2)}
        if field.kind == "text":  # a text field's value wraps in its width; a mark or an option name does not
            position["maxWidth"] = round(max(field.w - 4, 1), 2)
        element = {
            "type": "text",
            "name": name,
            "page": field.page,
            "position": position,
            "data": {"content": field.value},
            "styles": style,
        }
        actions += [{"type": "add_element", "args": element}, {"type": "bind_variable", "args": {"name": name}}]
    for start in range(0, len(actions), MAX_ACTIONS):  # apply takes at most MAX_ACTIONS at a time
        tree, _ = apply(tree, actions[start : start + MAX_ACTIONS])
    return tree


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


def _has_state(widget: pikepdf.Dictionary, state: str) -> bool:
    """The widget's normal appearances include `state` (a radio option's on-state name)."""
    appearances = widget.get("/AP")
    normal = appearances.get("/N") if isinstance(appearances, pikepdf.Dictionary) else None
    return isinstance(normal, pikepdf.Dictionary) and ("/" + state) in normal


def _text_value(value: Any) -> str:
    if isinstance(value, pikepdf.String):
        return str(value)[:10_000]
    return ""


def _form_fields(pdf: pikepdf.Pdf) -> list[FormField]:
    pages_of = {page.obj.objgen: index for index, page in enumerate(pdf.pages)}
    geometry = [placement(page) for page in pdf.pages]
    fields = []
    for field, widgets in _terminal_fields(pdf):
        kind_name = _inherited(field, "/FT")
        flags = int(_inherited(field, "/Ff") or 0)
        if kind_name == Name.Tx:
            kind = "text"
            value = _text_value(_inherited(field, "/V"))
        elif kind_name == Name.Btn and not flags & (1 << 16):  # not a push button
            kind = "radio" if flags & (1 << 15) else "checkbox"
            chosen = _inherited(field, "/V")
            on = chosen is not None and str(chosen) != "/Off"
            value = (str(chosen)[1:] if kind == "radio" else "X") if on else ""
        else:
            continue  # push buttons, choice lists and signature fields are not imported
        placed = [w for w in widgets if isinstance(w.get("/Rect"), pikepdf.Array)]
        # A radio group's text goes where its chosen option is, else at its first option.
        widget = next((w for w in placed if kind == "radio" and value and _has_state(w, value)), None)
        widget = widget or next(iter(placed), None)
        if widget is None:
            continue
        page = _widget_page(pdf, widget, pages_of)
        if page is None:
            continue
        x, y, w, h = _design_box(geometry[page], [float(v) for v in widget.Rect])
        appearance = _inherited(field, "/DA")
        size = None
        if isinstance(appearance, pikepdf.String):
            match = _FONT_SIZE.search(bytes(appearance))
            if match and float(match.group(1)) > 0:
                size = min(float(match.group(1)), 1000.0)
        fields.append(FormField(_full_name(field), kind, page, x, y, w, h, value, size))
    return fields


def _design_box(
    geometry: tuple[list[float], tuple[float, float, float, float]], rect: list[float]
) -> tuple[float, float, float, float]:
    """A widget's /Rect as a design box (x, y from the page's top-left, w, h) on its page."""
    matrix, (bx0, _by0, _bx1, by1) = geometry
    box = (min(rect[0], rect[2]), min(rect[1], rect[3]), max(rect[0], rect[2]), max(rect[1], rect[3]))
    x0, y0, x1, y1 = transformed_bounds(matrix, box)
    return x0 - bx0, by1 - y1, x1 - x0, y1 - y0


__all__ = ["MAX_FIELDS", "FormField", "PdfPageError", "design_from_pdf", "variable_name"]
