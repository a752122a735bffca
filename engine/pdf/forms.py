"""Fillable forms (extensions.md 13): the AcroForm of one document and its fields' appearances.

Every field is a field dictionary (its name, type, flags, value) whose /Kids are its widget
annotations, one per place it is drawn: a repeated element's copies, or a radio group's
buttons, share one field and so one value. Each widget carries its appearance stream, drawn
here in the element's font (engine.fonts.form_font), so that every viewer and the preview show
the same thing and none is asked to draw it (no /NeedAppearances, which PDF/A forbids and
which makes viewers ask to save an untouched file). The font is also the form's /DR font,
which viewers type new values in.

A flattened document draws the same appearances as page content (form XObjects) and has no
AcroForm.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from reportlab.lib.rl_accel import fp_str
from reportlab.pdfgen.canvas import Canvas

from ..design.colors import to_rl
from ..errors import EngineError
from ..fonts import form_font as form_fonts
from ..fonts.form_font import FormFont
from . import reportlab_internals as rl
from .links import PRINT_FLAG

FieldKind = Literal["text", "multiline", "checkbox", "radio", "select", "date", "signature"]

# Field flags (ISO 32000-1, tables 221, 226, 228, 230).
READ_ONLY = 1
REQUIRED = 2
MULTILINE = 1 << 12
NO_TOGGLE_TO_OFF = 1 << 14
RADIO = 1 << 15
COMBO = 1 << 17
RADIOS_IN_UNISON = 1 << 25

# A radio option's value is its button's state name. PDF/A (ISO 19005-3 6.1.13) and Acrobat
# (ISO 32000-1 annex C) take names of at most 127 bytes; PDFium (Chrome) reads at most 255
# characters of a name as written, each byte past ASCII three of them (#XX), and saves the
# value it chose cut short past that.
MAX_NAME_BYTES = 127
MAX_NAME_WRITTEN = 255


def state_name_problem(value: str) -> str | None:
    """Why `value` cannot be a button's state name, or None when it can."""
    if len(value.encode("utf-8")) > MAX_NAME_BYTES or len(rl.pdf_name(value)) > MAX_NAME_WRITTEN:
        return f"is too long for a PDF name (at most {MAX_NAME_BYTES} bytes in UTF-8, of them 84 outside ASCII)"
    return None


ON = "Yes"  # a check box's on state (the name every viewer expects)
OFF = "Off"
_QUADDING = {"left": 0, "center": 1, "right": 2}
PADDING = 2.0  # points between a field's border and its text, as viewers draw typed text
Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF coordinates


@dataclass(frozen=True)
class Look:
    """How a widget is drawn: its font, size, colours, border and alignment."""

    font_path: Path
    size: float
    color: str  # hex
    border_color: str | None
    border_width: float
    background: str | None
    align: str = "left"


@dataclass(frozen=True)
class FieldSpec:
    """One field as the PDF holds it: what the element's data says, checked."""

    name: str
    kind: FieldKind
    owner: str  # the id of the element whose field it is (names are unique per document)
    value: Any = None  # text, a date as text, True/False, or an option's value
    options: tuple[tuple[str, str], ...] = ()  # (value, label)
    required: bool = False
    read_only: bool = False
    max_length: int | None = None
    tooltip: str | None = None


def _rgb(color: str) -> str:
    """A hex colour's components as a content stream writes them ("1 .5 0")."""
    return fp_str(*to_rl(color).rgb())


def _number(value: float) -> str:
    return fp_str(value)


def pdf_literal(data: bytes) -> bytes:
    """Bytes as a PDF literal string, "(...)", escaped."""
    return b"(" + data.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)").replace(b"\r", b"\\r") + b")"


def _circle(cx: float, cy: float, r: float) -> str:
    """A circle as four Bézier curves (PDF has no circle operator)."""
    k = 0.5523 * r
    n = _number
    return (
        f"{n(cx + r)} {n(cy)} m "
        f"{n(cx + r)} {n(cy + k)} {n(cx + k)} {n(cy + r)} {n(cx)} {n(cy + r)} c "
        f"{n(cx - k)} {n(cy + r)} {n(cx - r)} {n(cy + k)} {n(cx - r)} {n(cy)} c "
        f"{n(cx - r)} {n(cy - k)} {n(cx - k)} {n(cy - r)} {n(cx)} {n(cy - r)} c "
        f"{n(cx + k)} {n(cy - r)} {n(cx + r)} {n(cy - k)} {n(cx + r)} {n(cy)} c"
    )


def _frame(w: float, h: float, look: Look, round_shape: bool = False) -> list[str]:
    """The background and border of a widget of w x h."""
    ops: list[str] = []
    n = _number
    bw = look.border_width if look.border_color else 0.0
    if look.background:
        ops.append(f"{_rgb(look.background)} rg")
        ops.append((_circle(w / 2, h / 2, min(w, h) / 2) if round_shape else f"0 0 {n(w)} {n(h)} re") + " f")
    if bw:
        ops.append(f"{_rgb(look.border_color or '#000000')} RG {n(bw)} w")
        if round_shape:
            ops.append(_circle(w / 2, h / 2, (min(w, h) - bw) / 2) + " s")
        else:
            ops.append(f"{n(bw / 2)} {n(bw / 2)} {n(w - bw)} {n(h - bw)} re s")
    return ops


def wrap(text: str, font: FormFont, size: float, width: float) -> list[str]:
    """Lines of a multiline field's text: its own line breaks, and breaks between words where
    a line would be wider than `width` (a word wider than the field stays whole, as viewers
    leave it)."""
    lines: list[str] = []
    for paragraph in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = word if not line else f"{line} {word}"
            if line and font.width(candidate, size) > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return lines


def text_appearance(w: float, h: float, look: Look, font: FormFont, resource: str, text: str, multiline: bool) -> bytes:
    """A text, date or select widget showing `text`, as viewers draw a field: the frame, then
    the text clipped inside the border, in /Tx marked content (what they replace on an edit)."""
    n = _number
    bw = look.border_width if look.border_color else 0.0
    inner = bw + PADDING
    size = look.size
    ascent, descent = font.ascent * size / 1000, font.descent * size / 1000
    ops = _frame(w, h, look)
    ops.append("/Tx BMC q")
    ops.append(f"{n(bw)} {n(bw)} {n(max(w - 2 * bw, 0))} {n(max(h - 2 * bw, 0))} re W n")
    ops.append(f"BT /{resource} {n(size)} Tf {_rgb(look.color)} rg")
    available = max(w - 2 * inner, 0)
    if multiline:
        lines = wrap(text, font, size, available)
        leading = size * 1.15
        baseline = h - inner - ascent
    else:
        lines = [text.replace("\n", " ")]
        leading = 0.0
        baseline = (h - (ascent - descent)) / 2 - descent
    body = [" ".join(ops).encode("ascii")]
    for index, line in enumerate(lines):
        slack = available - font.width(line, size)
        x = inner + (slack if look.align == "right" else slack / 2 if look.align == "center" else 0.0)
        y = baseline - index * leading
        body.append(f" 1 0 0 1 {n(x)} {n(y)} Tm ".encode("ascii") + pdf_literal(form_fonts.encode(line)) + b" Tj")
    body.append(b" ET Q EMC")
    return b"".join(body)


def check_appearance(size: float, look: Look, on: bool) -> bytes:
    """A check box of size x size, ticked or not."""
    ops = _frame(size, size, look)
    if on:
        n = _number
        s = size
        ops.append(f"{_rgb(look.color)} RG {n(max(s * 0.1, 1.0))} w 1 J 1 j")
        ops.append(f"{n(s * 0.22)} {n(s * 0.52)} m {n(s * 0.42)} {n(s * 0.3)} l {n(s * 0.78)} {n(s * 0.74)} l S")
    return " ".join(ops).encode("ascii")


def radio_appearance(size: float, look: Look, on: bool) -> bytes:
    """A radio button of size x size, chosen or not."""
    ops = _frame(size, size, look, round_shape=True)
    if on:
        ops.append(f"{_rgb(look.color)} rg " + _circle(size / 2, size / 2, size * 0.22) + " f")
    return " ".join(ops).encode("ascii")


@dataclass
class _Field:
    spec: FieldSpec
    registered: str  # the field dictionary's name in the document
    widgets: list[str] = field(default_factory=list)


@dataclass
class FormFields:
    """The fields of one document being drawn, written into its catalog by `write` once every
    page is drawn. `flatten`: fields are drawn as page content and no form is made.
    `profile` is the render's: under pdf-a no actions, under the tagged ones /TU on each field."""

    flatten: bool = False
    profile: str = "standard"
    _fields: dict[str, _Field] = field(default_factory=dict)
    _fonts: dict[str, tuple[str, FormFont]] = field(default_factory=dict)  # resource -> (registered, font)
    _made: int = 0

    def font(self, canvas: Canvas, path: Path) -> tuple[str, FormFont]:
        """The form font of the face at `path` in this document: its resource name and metrics."""
        font = form_fonts.form_font(path)
        resource = font.resource_name()
        if resource not in self._fonts:
            self._fonts[resource] = (_register_font(canvas, font), font)
        return resource, font

    def _form_xobject(self, w: float, h: float, content: bytes, fonts: Sequence[str]) -> tuple[str, Any]:
        """An appearance as a form XObject of w x h with its fonts' resources, and the digest that
        names it: the same look is one object per document."""
        digest = hashlib.sha1(content + repr((w, h, tuple(fonts))).encode()).hexdigest()[:16]
        entries: dict[str, Any] = {
            "Type": rl.pdf_name("XObject"),
            "Subtype": rl.pdf_name("Form"),
            "BBox": rl.pdf_array([0, 0, round(w, 3), round(h, 3)]),
        }
        if fonts:
            font_entries = {resource: rl.reference_to(self._fonts[resource][0]) for resource in fonts}
            entries["Resources"] = rl.dictionary({"Font": rl.dictionary(font_entries)})
        return digest, rl.form_stream(entries, content)

    def appearance(self, canvas: Canvas, w: float, h: float, content: bytes, fonts: Sequence[str] = ()) -> str:
        """The appearance stream (a form XObject of w x h), registered once per document and
        content; its registered name."""
        doc = rl.document_of(canvas)
        digest, stream = self._form_xobject(w, h, content, fonts)
        name = f"DbAppearance.{digest}"
        if not rl.is_registered(doc, name):
            rl.reference(doc, stream, name)
        return name

    def place_flat(
        self, canvas: Canvas, x: float, y: float, w: float, h: float, content: bytes, fonts: Sequence[str] = ()
    ) -> None:
        """Draw an appearance as page content at (x, y), PDF coordinates of its bottom-left."""
        digest, stream = self._form_xobject(w, h, content, fonts)
        form_name = f"DbFlat{digest}"
        if not canvas.hasForm(form_name):
            rl.add_form(canvas, form_name, stream)
        canvas.saveState()
        canvas.translate(x, y)
        canvas.doForm(form_name)
        canvas.restoreState()

    # --- The fields, as the element types draw them --------------------------------------

    def text_like(self, canvas: Canvas, spec: FieldSpec, look: Look, rect: Rect, shown: str) -> None:
        """A text, multiline, date, select or signature field over rect, showing `shown` (a
        select's chosen label); drawn flat when flattening."""
        x0, y0, x1, y1 = rect
        w, h = x1 - x0, y1 - y0
        kind = spec.kind
        if kind == "signature":
            resource, used = "", ()
            content = " ".join(_frame(w, h, look)).encode("ascii")
        else:
            resource, font = self.font(canvas, look.font_path)
            used = (resource,)
            content = text_appearance(w, h, look, font, resource, shown, kind == "multiline")
        if self.flatten:
            self.place_flat(canvas, x0, y0, w, h, content, used)
            return
        entries: dict[str, Any] = {}
        if kind == "signature":
            entries["FT"] = rl.pdf_name("Sig")
        elif kind == "select":
            entries["FT"] = rl.pdf_name("Ch")
            entries["Ff"] = COMBO
            entries["Opt"] = rl.pdf_array(
                [rl.pdf_array([rl.text_string(value), rl.text_string(label)]) for value, label in spec.options]
            )
        else:
            entries["FT"] = rl.pdf_name("Tx")
            if kind == "multiline":
                entries["Ff"] = MULTILINE
            if spec.max_length is not None:
                entries["MaxLen"] = spec.max_length
            if kind == "date" and self.profile != "pdf-a":
                entries["AA"] = _date_actions()
        if kind != "signature":
            if isinstance(spec.value, str) and spec.value:
                entries["V"] = rl.text_string(spec.value)
            entries["DA"] = rl.text_string(f"/{resource} {_number(look.size)} Tf {_rgb(look.color)} rg")
            entries["Q"] = _QUADDING.get(look.align, 0)
        made = self._field(canvas, spec, entries)
        appearance = self.appearance(canvas, w, h, content, used)
        self._widget(
            canvas, made, rect, {"AP": rl.dictionary({"N": rl.reference_to(appearance)}), **_widget_style(look)}
        )

    def check_box(self, canvas: Canvas, spec: FieldSpec, look: Look, rect: Rect) -> None:
        """A check box over rect (a square), ticked when spec.value is true."""
        x0, y0, x1, _ = rect
        side = x1 - x0
        on, off = check_appearance(side, look, True), check_appearance(side, look, False)
        if self.flatten:
            self.place_flat(canvas, x0, y0, side, side, on if spec.value else off)
            return
        state = ON if spec.value else OFF
        made = self._field(canvas, spec, {"FT": rl.pdf_name("Btn"), "V": rl.pdf_name(state)})
        states = {ON: self.appearance(canvas, side, side, on), OFF: self.appearance(canvas, side, side, off)}
        self._widget(canvas, made, rect, _button_entries(canvas, states, state, look))

    def radio_group(self, canvas: Canvas, spec: FieldSpec) -> _Field | None:
        """A radio group's field, its buttons added by radio_button (None when flattening)."""
        if self.flatten:
            return None
        state = spec.value if isinstance(spec.value, str) else OFF
        # In unison: the copies of a repeated group (extensions.md 4) have buttons of the same
        # option, which all turn on when one is chosen (without the flag only the one clicked).
        flags = RADIO | NO_TOGGLE_TO_OFF | RADIOS_IN_UNISON
        entries = {"FT": rl.pdf_name("Btn"), "Ff": flags, "V": rl.pdf_name(state)}
        return self._field(canvas, spec, entries)

    def radio_button(
        self, canvas: Canvas, group: _Field | None, option: str, look: Look, rect: Rect, chosen: bool
    ) -> None:
        """The button of one option over rect (a square); `group` None when flattening."""
        x0, y0, x1, _ = rect
        side = x1 - x0
        on, off = radio_appearance(side, look, True), radio_appearance(side, look, False)
        if group is None:
            self.place_flat(canvas, x0, y0, side, side, on if chosen else off)
            return
        states = {option: self.appearance(canvas, side, side, on), OFF: self.appearance(canvas, side, side, off)}
        self._widget(canvas, group, rect, _button_entries(canvas, states, option if chosen else OFF, look))

    def _field(self, canvas: Canvas, spec: FieldSpec, field_entries: dict[str, Any]) -> _Field:
        """The document's field named spec.name, made on its first widget; a second element
        with the same name is refused (names are unique per document, extensions.md 13)."""
        known = self._fields.get(spec.name)
        if known is not None:
            if known.spec.owner != spec.owner:
                raise EngineError(
                    f"two form fields are named '{spec.name}': a field's name is unique in a document; "
                    "change data.fieldName of one of them"
                )
            return known
        if self.profile == "accessible" and not spec.tooltip:
            raise EngineError(
                f"the form field '{spec.name}' has no data.tooltip: the accessible profile needs one on every "
                "field, as what screen readers announce for it; add a tooltip"
            )
        doc = rl.document_of(canvas)
        entries: dict[str, Any] = {"T": rl.text_string(spec.name), **field_entries}
        tooltip = spec.tooltip or (spec.name if self.profile != "standard" else None)
        if tooltip:
            entries["TU"] = rl.text_string(tooltip)
        flags = (READ_ONLY if spec.read_only else 0) | (REQUIRED if spec.required else 0) | entries.pop("Ff", 0)
        if flags:
            entries["Ff"] = flags
        self._made += 1
        registered = rl.reference(doc, rl.dictionary(entries), f"DbField.{self._made}")
        made = self._fields[spec.name] = _Field(spec, registered)
        return made

    def _widget(self, canvas: Canvas, owner: _Field, rect: Rect, entries: dict[str, Any]) -> None:
        """A widget of `owner` over rect (PDF coordinates) on the page being drawn."""
        self._made += 1
        widget_entries = {
            "Type": rl.pdf_name("Annot"),
            "Subtype": rl.pdf_name("Widget"),
            "Rect": rl.pdf_array([round(v, 3) for v in rect]),
            "F": PRINT_FLAG,
            "P": rl.this_page(canvas),
            "Parent": rl.reference_to(owner.registered),
            **entries,
        }
        owner.widgets.append(rl.add_annotation(canvas, f"DbWidget.{self._made}", widget_entries))

    def write(self, canvas: Canvas) -> None:
        """The AcroForm, once every page is drawn (nothing when no field was drawn as one)."""
        if not self._fields:
            return
        doc = rl.document_of(canvas)
        for made in self._fields.values():
            rl.set_dictionary_entry(
                doc, made.registered, "Kids", rl.pdf_array([rl.reference_to(w) for w in made.widgets])
            )
        entries: dict[str, Any] = {
            "Fields": rl.pdf_array([rl.reference_to(made.registered) for made in self._fields.values()]),
        }
        if self._fonts:
            fonts = {resource: rl.reference_to(registered) for resource, (registered, _) in self._fonts.items()}
            entries["DR"] = rl.dictionary({"Font": rl.dictionary(fonts)})
            first = next(iter(self._fonts))
            entries["DA"] = rl.text_string(f"/{first} 0 Tf 0 g")
        rl.set_catalog_entries(doc, AcroForm=rl.dictionary(entries))


def _button_entries(canvas: Canvas, states: dict[str, str], state: str, look: Look) -> dict[str, Any]:
    """A check box's or radio button's widget: an appearance per state, the one shown (/AS).
    The states are names of option values (any text): the /N dictionary is written here, as
    its keys are names escaped by rl.pdf_name, which a dictionary's keys are not."""
    doc = rl.document_of(canvas)
    normal = b" ".join(
        rl.pdf_name(name).encode("ascii") + b" %d 0 R" % rl.object_number(doc, ref) for name, ref in states.items()
    )
    return {
        "AP": rl.dictionary({"N": b"<< " + normal + b" >>"}),
        "AS": rl.pdf_name(state),
        **_widget_style(look),
    }


def _widget_style(look: Look) -> dict[str, Any]:
    """/MK and /BS: the colours and border a viewer draws the widget with when it draws it again."""
    characteristics: dict[str, Any] = {}
    if look.background:
        characteristics["BG"] = rl.pdf_array(_components(look.background))
    if look.border_color and look.border_width:
        characteristics["BC"] = rl.pdf_array(_components(look.border_color))
    width = look.border_width if look.border_color else 0
    entries: dict[str, Any] = {"BS": rl.dictionary({"W": width, "S": rl.pdf_name("S")})}
    if characteristics:
        entries["MK"] = rl.dictionary(characteristics)
    return entries


def _components(color: str) -> list[float]:
    return [round(component, 4) for component in to_rl(color).rgb()]


def _date_actions() -> Any:
    """Acrobat's date format and keystroke actions, so that it offers a date picker (not under
    pdf-a, which forbids actions; other viewers take the field as text)."""

    def script(js: str) -> Any:
        return rl.dictionary({"S": rl.pdf_name("JavaScript"), "JS": rl.text_string(js)})

    return rl.dictionary(
        {"F": script('AFDate_FormatEx("yyyy-mm-dd");'), "K": script('AFDate_KeystrokeEx("yyyy-mm-dd");')}
    )


def _register_font(canvas: Canvas, font: FormFont) -> str:
    """The form font's objects in the document (once): the font program, its descriptor and the
    simple TrueType font; the font's registered name."""
    doc = rl.document_of(canvas)
    name = f"DbFormFont.{font.resource_name()}"
    if rl.is_registered(doc, name):
        return name
    program = rl.reference(doc, rl.form_stream({"Length1": len(font.program)}, font.program), f"{name}/program")
    descriptor = rl.reference(
        doc,
        rl.dictionary(
            {
                "Type": rl.pdf_name("FontDescriptor"),
                "FontName": rl.pdf_name(font.base_font),
                "Flags": font.flags,
                "FontBBox": rl.pdf_array(list(font.bbox)),
                "ItalicAngle": font.italic_angle,
                "Ascent": font.ascent,
                "Descent": font.descent,
                "CapHeight": font.cap_height,
                "StemV": 80,
                "FontFile2": rl.reference_to(program),
            }
        ),
        f"{name}/descriptor",
    )
    rl.reference(
        doc,
        rl.dictionary(
            {
                "Type": rl.pdf_name("Font"),
                "Subtype": rl.pdf_name("TrueType"),
                "BaseFont": rl.pdf_name(font.base_font),
                "FirstChar": form_fonts.FIRST_CODE,
                "LastChar": form_fonts.LAST_CODE,
                "Widths": rl.pdf_array(list(font.widths)),
                "Encoding": rl.pdf_name("WinAnsiEncoding"),
                "FontDescriptor": rl.reference_to(descriptor),
            }
        ),
        name,
    )
    return name


__all__ = [
    "COMBO",
    "MULTILINE",
    "NO_TOGGLE_TO_OFF",
    "OFF",
    "ON",
    "RADIO",
    "RADIOS_IN_UNISON",
    "FieldSpec",
    "FormFields",
    "Look",
    "wrap",
]
