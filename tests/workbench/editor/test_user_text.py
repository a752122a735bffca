"""What the editor shows a person never cites our spec (issue 35, point 7): every label, tooltip,
placeholder and text of the properties forms, the text toolbar and the side panels' fields, and
every field description the editor or the API's schema shows (a "(extensions.md 6)" in a tooltip
told the reader nothing)."""

from __future__ import annotations

import re
import typing
from typing import Any

from pydantic import BaseModel

import api.models
from engine import apply, new_design
from engine.design.tree import Metadata
from engine.elements import ELEMENT_TYPES
from tests.panel_widgets import widgets_of
from workbench.editor.properties import element_form
from workbench.editor.text_toolbar import TextToolbar

from ...conftest import add

SPEC_CITATION = re.compile(r"extensions\.md|decisions\.md|§|\bspec\b", re.IGNORECASE)


def shown_texts(view: Any) -> list[str]:
    """What a Panel view shows in words: labels, tooltips, placeholders, options, panes' texts."""
    texts = []
    for widget in widgets_of(view):
        for attribute in ("name", "label", "caption", "description", "placeholder", "object"):
            value = getattr(widget, attribute, None)
            if isinstance(value, str):
                texts.append(value)
        options = getattr(widget, "options", None)
        if isinstance(options, dict):
            texts.extend(str(key) for key in options)
    return texts


def descriptions(model: type[BaseModel], seen: set[type]) -> list[str]:
    """Every field description of a model and of the models its fields hold."""
    if model in seen:
        return []
    seen.add(model)
    found = []
    for field in model.model_fields.values():
        if field.description:
            found.append(field.description)
        for inner in [field.annotation, *typing.get_args(field.annotation)]:
            for candidate in [inner, *typing.get_args(inner)]:
                if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                    found.extend(descriptions(candidate, seen))
    return found


def cited(texts: list[str]) -> list[str]:
    return [text for text in texts if SPEC_CITATION.search(text)]


def test_field_descriptions_shown_as_tooltips_and_in_the_api_schema_cite_no_spec():
    seen: set[type] = set()
    texts = []
    for element in ELEMENT_TYPES.values():
        texts += descriptions(element.Node, seen)
    texts += descriptions(Metadata, seen)
    for value in vars(api.models).values():
        if isinstance(value, type) and issubclass(value, BaseModel):
            texts += descriptions(value, seen)
    assert len(texts) > 50  # the walk reached the element and API models
    assert cited(texts) == []


def test_the_properties_forms_and_the_text_toolbar_cite_no_spec():
    tree, _ = apply(
        new_design(),
        [
            add("text", "body", {"x": 20, "y": 20, "maxWidth": 200}, {"content": "Dear {name}"}),
            add("table", "items", {"x": 20, "y": 140}, {"cells": [["Item", "Amount"], ["Tea", "1.50"]]}),
            add("shape", "band", {"x": 20, "y": 300, "w": 50, "h": 10}),
            add("qr", "code", {"x": 20, "y": 400, "size": 60}, {"content": "x"}),
        ],
    )
    texts = []
    for name in ("body", "items", "band", "code"):
        texts += shown_texts(element_form(tree.node_by_name(name), lambda actions: None, variables=[]))
    toolbar = TextToolbar(apply=lambda actions: None)
    texts += shown_texts(toolbar.view)
    assert any("left-to-right" in text for text in texts)  # the alignment tooltip was read
    assert cited(texts) == []
