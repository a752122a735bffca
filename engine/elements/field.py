"""Fillable form fields (extensions.md 13): text, multiline, checkbox, radio, select, date and
signature, each a real AcroForm field with its appearance drawn in the element's font.

The element owns its models, its box and its binding; engine.pdf.forms writes the field and
widget dictionaries and the appearance streams. A radio group is one element: its options are
stacked in its box, each a button with its label beside it (the labels are page text, in any
script); the other types are one widget filling the box (a check box a square at its left).
Values a widget shows are Windows-1252 text (engine.fonts.form_font says why).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationInfo, model_validator

from .. import fonts
from ..design.colors import HexColor
from ..design.names import invisible_character_problem
from ..fonts.form_font import unencodable
from ..pdf import forms
from ..pdf.forms import FieldSpec, Look
from ..text import style as text_style
from ..text import typeset
from .base import (
    Box,
    BoxPosition,
    DrawContext,
    EditorHints,
    ElementType,
    StrictModel,
    VariableSpec,
    box_size,
    with_data,
)
from .field_editor import edited, widget_for
from .text import FontWeight

FieldType = Literal["text", "multiline", "checkbox", "radio", "select", "date", "signature"]
MAX_OPTIONS = 100
MAX_VALUE = 10_000
CHOICES = ("radio", "select")
TYPED = ("text", "multiline")


def _check_field_name(value: str, info: ValidationInfo) -> str:
    if "." in value:
        raise ValueError("a field name may not hold '.', which PDF readers take as a parent field's name")
    if any(ord(c) < 32 for c in value) or value != value.strip():
        raise ValueError("a field name has no control characters and no leading or trailing spaces")
    # A name given in an action (context {"element": …}) holds no bidi control or invisible
    # character either, as element and design names (engine.design.names): a reader lists fields
    # by name, and "\u202eevil" shows as another. Stored trees load as they were saved.
    if info.context and "element" in info.context:
        problem = invisible_character_problem(value)
        if problem is not None:
            raise ValueError(f"the field name's {problem}")
    return value


FieldName = Annotated[str, Field(min_length=1, max_length=100), AfterValidator(_check_field_name)]


class FieldOption(StrictModel):
    """One choice of a radio group or a select."""

    value: str = Field(min_length=1, max_length=200, description="What the field's value is when chosen")
    label: str | None = Field(None, max_length=200, description="What the reader sees (default: the value)")

    @property
    def shown(self) -> str:
        return self.label if self.label else self.value


def _check_shown(text: str, what: str) -> None:
    missing = unencodable(text)
    if missing:
        raise ValueError(
            f"{what} holds {missing!r}, which a form field cannot show: a field shows and takes Latin "
            "(Windows-1252) text, the text every PDF viewer can edit; put other scripts in a text element beside it"
        )


def _iso_date(value: str) -> str:
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"a date field's value is a date as YYYY-MM-DD (got {value!r})") from None
    if len(value) != 10:
        raise ValueError(f"a date field's value is a date as YYYY-MM-DD (got {value!r})")
    return value


class FieldData(StrictModel):
    fieldType: FieldType = Field("text", description="text, multiline, checkbox, radio, select, date or signature")
    fieldName: FieldName | None = Field(
        None, description="The AcroForm field name, unique in the document (default: the element's name)"
    )
    options: list[FieldOption] = Field(
        default_factory=list, max_length=MAX_OPTIONS, description="radio and select: the choices, in order"
    )
    value: str | bool | None = Field(
        None, description="The initial value: text, a date (YYYY-MM-DD), true/false (checkbox) or an option's value"
    )
    required: bool = Field(False, description="The reader must fill it before submitting")
    readOnly: bool = Field(False, description="Shown, not editable")
    maxLength: int | None = Field(
        None, ge=1, le=MAX_VALUE, description="text and multiline: at most this many characters"
    )
    tooltip: str | None = Field(
        None, max_length=500, description="What screen readers announce (/TU); needed by the accessible profile"
    )

    @model_validator(mode="after")
    def _consistent(self) -> FieldData:
        kind = self.fieldType
        if kind in CHOICES:
            if not self.options:
                raise ValueError(f"a {kind} field needs options: [{{value, label}}, …]")
            values = [option.value for option in self.options]
            if len(set(values)) != len(values):
                raise ValueError(f"the options of a {kind} field have distinct values")
            if kind == "radio" and forms.OFF in values:
                raise ValueError(f"'{forms.OFF}' is the value of no choice in PDF: name the option differently")
            for value in values if kind == "radio" else ():
                problem = forms.state_name_problem(value)  # the value names its button's state
                if problem:
                    raise ValueError(
                        f"the radio option value {value[:40]!r} {problem}: give it a shorter value (its label "
                        "may be longer)"
                    )
        elif self.options:
            raise ValueError(f"options are for radio and select fields, not {kind}")
        if self.maxLength is not None and kind not in TYPED:
            raise ValueError(f"maxLength is for text and multiline fields, not {kind}")
        check_value(self, self.value)
        return self

    def option(self, value: Any) -> FieldOption | None:
        return next((option for option in self.options if option.value == value), None)


def check_value(data: FieldData, value: Any) -> None:
    """Whether `value` fits the field (its initial value, or one a generation binds);
    ValueError naming what it takes."""
    kind = data.fieldType
    if value is None:
        return
    if kind == "checkbox":
        if not isinstance(value, bool):
            raise ValueError(f"a checkbox field's value is true or false (got {value!r})")
        return
    if not isinstance(value, str):
        raise ValueError(f"a {kind} field's value is text (got {type(value).__name__})")
    if kind == "signature":
        raise ValueError("a signature field has no value: the reader signs it")
    if kind in CHOICES:
        option = data.option(value)
        if option is None:
            choices = ", ".join(repr(option.value) for option in data.options[:10])
            raise ValueError(f"the {kind} field's value must be one of its options' values ({choices}); got {value!r}")
        if kind == "select":
            _check_shown(option.shown, "the chosen option's label")
        return
    if kind == "date":
        _iso_date(value)
        return
    if len(value) > (data.maxLength or MAX_VALUE):
        raise ValueError(
            f"the value is {len(value)} characters, over the field's maxLength {data.maxLength or MAX_VALUE}"
        )
    _check_shown(value, "the value")


class FieldStyles(StrictModel):
    fontFamily: fonts.FontFamily = fonts.DEFAULT_FAMILY
    fontSize: float = Field(11, ge=4, le=72, description="Points; typed text too")
    fontWeight: FontWeight = 400
    italic: bool = False
    color: HexColor = "#000000"
    align: Literal["left", "center", "right"] = "left"
    borderColor: HexColor | None = Field("#6b7280", description="None: no border")
    borderWidth: float = Field(1, ge=0, le=12)
    backgroundColor: HexColor | None = Field(None, description="None: what lies beneath shows through")


def field_name(node: Any) -> str:
    return node.data.fieldName or node.name


def _look(node: Any) -> Look:
    styles = node.styles
    face = fonts.face_file(styles.fontFamily, styles.fontWeight, styles.italic)
    return Look(
        font_path=face.path,
        size=styles.fontSize,
        color=styles.color,
        border_color=styles.borderColor,
        border_width=styles.borderWidth,
        background=styles.backgroundColor,
        align=styles.align,
    )


def _spec(node: Any) -> FieldSpec:
    data = node.data
    return FieldSpec(
        name=field_name(node),
        kind=data.fieldType,
        owner=node.id,
        value=data.value,
        options=tuple((option.value, option.shown) for option in data.options),
        required=data.required,
        read_only=data.readOnly,
        max_length=data.maxLength,
        tooltip=data.tooltip,
    )


def _radio_rows(box: Box, count: int, size: float) -> list[tuple[float, float, float]]:
    """Each option's button as (x, top, side) in the element's box: rows of equal height."""
    row = box.h / count
    side = min(row * 0.8, size * 1.3, box.w)
    return [(box.x, box.y + index * row + (row - side) / 2, side) for index in range(count)]


def _form_key(node: Any, option: str = "") -> str:
    """The key of a widget's Form structure element. A repeated element's copies (extensions.md
    4) add no structure of their own, but each copy's widget must still sit in a Form element
    (PDF/UA-1 7.18.4): keyed, a copy's widget joins the Form of the first drawing, as a copy's
    link joins its Link."""
    return f"{node.id}/form/{option}"


def draw(node: Any, box: Box, ctx: DrawContext, part: Any = None) -> None:
    """The field's widget (a radio group's buttons and labels), or its look as plain content
    when the document is flattened. In the tagged profiles each widget is a Form element."""
    data = node.data
    spec = _spec(node)
    look = _look(node)
    form, canvas, tags = ctx.forms, ctx.canvas, ctx.tags
    kind = data.fieldType
    if kind == "radio":
        _draw_radio(node, box, ctx, spec, look)
        return
    if kind == "checkbox":
        side = min(box.w, box.h)
        bottom = ctx.pdf_y(box.y + (box.h - side) / 2, side)
        rect = (box.x, bottom, box.x + side, bottom + side)
        if form.flatten:
            state = "checked" if data.value else "not checked"
            with tags.figure(canvas, f"{spec.tooltip or spec.name}: {state}"):
                form.check_box(canvas, spec, look, rect)
            return
        with tags.group("Form", key=_form_key(node)):
            form.check_box(canvas, spec, look, rect)
            tags.annotated()
        return
    rect = (box.x, ctx.pdf_y(box.y, box.h), box.x + box.w, ctx.pdf_y(box.y))
    shown = ""
    if kind == "select" and data.value is not None:
        option = data.option(data.value)
        shown = option.shown if option is not None else ""
    elif isinstance(data.value, str):
        shown = data.value
    if not form.flatten:
        with tags.group("Form", key=_form_key(node)):
            form.text_like(canvas, spec, look, rect, shown)
            tags.annotated()
    elif kind == "signature":
        with tags.artifact(canvas):  # an empty box: nothing to read
            form.text_like(canvas, spec, look, rect, shown)
    else:
        with tags.content(canvas, "P"):
            form.text_like(canvas, spec, look, rect, shown)


def _draw_radio(node: Any, box: Box, ctx: DrawContext, spec: FieldSpec, look: Look) -> None:
    """One button per option, stacked in the box, each with its label beside it as page text."""
    data = node.data
    form, canvas, tags = ctx.forms, ctx.canvas, ctx.tags
    label_style = text_style.TextStyle(
        family=node.styles.fontFamily,
        weight=node.styles.fontWeight,
        italic=node.styles.italic,
        size=look.size,
        color=node.styles.color,
        lang=ctx.language,
    )
    group = form.radio_group(canvas, spec)
    for option, (x, top, side) in zip(data.options, _radio_rows(box, len(data.options), look.size), strict=True):
        bottom = ctx.pdf_y(top, side)
        rect = (x, bottom, x + side, bottom + side)
        if group is None:
            chosen = "chosen" if option.value == data.value else "not chosen"
            with tags.figure(canvas, f"{option.shown}: {chosen}"):
                form.radio_button(canvas, None, option.value, look, rect, option.value == data.value)
        else:
            with tags.group("Form", key=_form_key(node, option.value)):
                form.radio_button(canvas, group, option.value, look, rect, option.value == data.value)
                tags.annotated()
        left = x + side + look.size * 0.5
        lines = typeset.wrap(option.shown, label_style, None)[:1]
        with tags.content(canvas, "Lbl"):
            typeset.draw_lines(
                canvas,
                lines,
                label_style,
                left,
                top + side / 2 - label_style.leading / 2,
                max(box.x + box.w - left, 0.0),
                ctx.page_height,
                direct=ctx.options.direct_text,
            )


_TRUE = {"true", "yes", "1", "on", "x"}
_FALSE = {"false", "no", "0", "off", ""}


def bind_value(node: Any, value: Any) -> Any:
    """A generation's value for the field's initial value: a check box also takes the words a
    spreadsheet column holds ("yes", "no", "1", "0", "true", "false")."""
    data = node.data
    if data.fieldType == "signature":
        raise ValueError("a signature field has no value to fill: unbind it")
    if data.fieldType == "checkbox" and isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        value = value.strip().lower() in _TRUE
    if (
        data.fieldType == "checkbox"
        and isinstance(value, int | float)
        and not isinstance(value, bool)
        and value in (0, 1)
    ):
        value = bool(value)
    check_value(data, value)
    return with_data(node, value=value)


def _value_type(node: Any) -> str:
    kind = node.data.fieldType
    return "boolean" if kind == "checkbox" else "date" if kind == "date" else "text"


def _field_text(node: Any) -> str:
    value = node.data.value
    return "" if value is None else ("Yes" if value is True else "No" if value is False else str(value))


ELEMENT = ElementType(
    name="field",
    summary=(
        "A fillable form field (text, multiline, checkbox, radio, select, date, signature): a real AcroForm "
        "field; position {x, y, w, h}"
    ),
    Position=BoxPosition,
    Data=FieldData,
    Styles=FieldStyles,
    measure=box_size,
    draw=draw,
    title="Form field",
    tags_itself=True,
    annotates=True,
    unique_key=("data.fieldName", field_name),
    variable=VariableSpec(
        kind="field-value",
        field="data.value",
        accepts="the field's value: text, a date YYYY-MM-DD, true/false for a checkbox, an option's value",
        apply=bind_value,
        is_empty=lambda node: node.data.value in (None, "", False),
        field_text=_field_text,
        value_type=_value_type,
    ),
    editor=EditorHints(
        defaults={
            "position": {"w": 200, "h": 24},
            "data": {"fieldType": "text"},
        },
        text_toolbar=("fontFamily", "fontSize", "fontWeight", "italic", "color", "align"),
        widget_for=widget_for,
        edited=edited,
    ),
)
