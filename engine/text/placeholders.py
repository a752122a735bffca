"""Placeholders inside text (extensions.md 1): `{name}` in a text whose `data.fields` is true.

`{{` and `}}` are literal braces; a lone `{` or `}` is refused with its character index.
A placeholder's name follows the rules of element names (1-100 characters, trimmed, no
control or invisible characters) and holds no brace. `{page}` and `{pages}` are reserved:
the sheet's number and the document's sheet count, known only when a sheet is drawn.

This module only reads text; which placeholders are variables of a design, and the rules
tying them to bound elements, live in engine.design.placeholder_variables.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import NamedTuple

from ..design.names import invisible_character_problem
from ..memo import text_cache

PAGE, PAGES = "page", "pages"
RESERVED = frozenset((PAGE, PAGES))
NAME_MAX = 100
# Templates are parsed on every validation of a stored design: parses are kept by text, up
# to this many characters of texts (issue 31, item 3; engine.memo).
PARSED_CHARACTERS = 4_000_000
_BRACE = re.compile(r"[{}]")


class FieldSyntaxError(ValueError):
    """A text that is not a valid field template; `index` is the offending character's."""

    def __init__(self, index: int, message: str):
        super().__init__(message)
        self.index = index


class Placeholder(NamedTuple):
    name: str


class Computed(NamedTuple):
    """`{= expression }` (extensions.md 11): a placeholder showing an expression's result.
    `index` is where the expression's text starts in the item (for messages)."""

    expression: str
    index: int

    @property
    def key(self) -> str:
        """Its result's key among a text's samples, beside the placeholders' names."""
        return "=" + self.expression


# A template: literal strings, placeholders and computed placeholders, in order.
Segment = str | Placeholder | Computed


def _computed_end(text: str, start: int) -> int:
    """The index of the `}` closing a `{=` opened before `start`, skipping braces inside the
    expression's quoted strings; -1 when there is none."""
    quote = None
    i = start
    while i < len(text):
        char = text[i]
        if quote is not None:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "}":
            return i
        i += 1
    return -1


def _name_problem(name: str) -> str | None:
    if not 1 <= len(name) <= NAME_MAX:
        return f"a placeholder name is 1 to {NAME_MAX} characters"
    if name != name.strip():
        return "a placeholder name has no leading or trailing spaces"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "a placeholder name has no control characters"
    return invisible_character_problem(name)


@text_cache(PARSED_CHARACTERS)
def parse(text: str) -> tuple[Segment, ...]:
    """The text's segments, or FieldSyntaxError naming the first problem and its index."""
    segments: list[Segment] = []
    literal: list[str] = []
    i, end = 0, len(text)
    while i < end:
        # From brace to brace: the text between is literal, taken whole.
        found = _BRACE.search(text, i)
        if found is None:
            literal.append(text[i:])
            break
        if found.start() > i:
            literal.append(text[i : found.start()])
            i = found.start()
        char = text[i]
        if char == "{":
            if text.startswith("{{", i):
                literal.append("{")
                i += 2
                continue
            if text.startswith("{=", i):
                close = _computed_end(text, i + 2)
                if close < 0:
                    raise FieldSyntaxError(i, f"'{{=' at character {i} is not closed: end the expression with }}")
                body = text[i + 2 : close]
                if not body.strip():
                    raise FieldSyntaxError(
                        i, f"empty expression '{{=}}' at character {i}: write one, e.g. {{= qty * price}}"
                    )
                if literal:
                    segments.append("".join(literal))
                    literal = []
                segments.append(Computed(body.strip(), i + 2 + len(body) - len(body.lstrip())))
                i = close + 1
                continue
            close = text.find("}", i + 1)
            opened = text.find("{", i + 1)
            if close < 0 or (0 <= opened < close):
                raise FieldSyntaxError(i, f"lone '{{' at character {i}: write {{{{ for a literal brace")
            name = text[i + 1 : close]
            if not name:
                raise FieldSyntaxError(
                    i, f"empty placeholder '{{}}' at character {i}: name it, or write {{{{}}}} for literal braces"
                )
            problem = _name_problem(name)
            if problem is not None:
                raise FieldSyntaxError(i, f"placeholder '{{{name}}}' at character {i}: {problem}")
            if literal:
                segments.append("".join(literal))
                literal = []
            segments.append(Placeholder(name))
            i = close + 1
        elif char == "}":
            if text.startswith("}}", i):
                literal.append("}")
                i += 2
                continue
            raise FieldSyntaxError(i, f"lone '}}' at character {i}: write }}}} for a literal brace")
    if literal:
        segments.append("".join(literal))
    return tuple(segments)


def literal(text: str) -> str:
    """The text as a template showing it unchanged: its braces doubled."""
    return text.replace("{", "{{").replace("}", "}}")


def computed(items: list[str] | tuple[str, ...]) -> tuple[Computed, ...]:
    """The items' `{= expression }` placeholders, in order."""
    return tuple(s for item in items for s in parse(item) if isinstance(s, Computed))


def names(text: str) -> tuple[str, ...]:
    """Every placeholder name of the text, reserved ones included, each once, in order."""
    return tuple(dict.fromkeys(s.name for s in parse(text) if isinstance(s, Placeholder)))


def variable_names(items: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The names of the items' placeholders that are variables ({page} and {pages} are not)."""
    return tuple(dict.fromkeys(n for item in items for n in names(item) if n not in RESERVED))


def uses_sheet(items: list[str] | tuple[str, ...]) -> bool:
    """True when the items show the sheet's number or the sheet count."""
    return any(n in RESERVED for item in items for n in names(item))


class Sheet(NamedTuple):
    """Where a text is drawn: the 1-based sheet number and the document's sheet count."""

    number: int
    count: int


# Measured before the document is laid out: one sheet of one (a design-time preview's view).
DESIGN_SHEET = Sheet(1, 1)


def fill(
    text: str,
    values: Mapping[str, str],
    sheet: Sheet = DESIGN_SHEET,
    escape: Callable[[str], str] | None = None,
) -> str:
    """The text with every placeholder replaced: a value as literal text (never parsed again),
    "" for a name without one, and the sheet's number and count for {page} and {pages}.
    `escape` quotes each value for a later reading of the whole text (a markup parser), so
    that braces or markup inside a value stay literal (extensions.md 1)."""
    quote = escape or (lambda value: value)
    out: list[str] = []
    for segment in parse(text):
        if isinstance(segment, str):
            out.append(segment)
        elif isinstance(segment, Computed):
            out.append(quote(values.get(segment.key, "")))
        elif segment.name == PAGE:
            out.append(str(sheet.number))
        elif segment.name == PAGES:
            out.append(str(sheet.count))
        else:
            out.append(quote(values.get(segment.name, "")))
    return "".join(out)


def value_text(value: object) -> str:
    """A generation value as a placeholder shows it: a string as it is, a number as written
    (1234.0 as 1234). Raises ValueError for anything else."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(
            f"expected a string or a number for a field, got {type(value).__name__}: send the text to show"
        )
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
