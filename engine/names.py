"""What a name someone gives may hold: designs, elements, pages, assets, uploads, workspaces.

Names are shown in lists, file names, the editor and PDF outlines. Characters that are
invisible, or that reorder the text around them, make a name look like another one
("invoice<U+202E>fdp.exe" shows as "invoiceexe.pdf"), and NUL cuts names short in
C-string consumers. So a name holds none of:

- control characters (Unicode category Cc: C0 with NUL and TAB, DEL, C1), line and
  paragraph separators (Zl, Zp), and lone surrogates (Cs: not storable as UTF-8);
- format characters (Cf): bidi embeddings, overrides and isolates (U+202A-U+202E,
  U+2066-U+2069), bidi marks (U+200E, U+200F, U+061C), zero-width space U+200B, word
  joiner U+2060, byte-order mark U+FEFF, soft hyphen U+00AD, invisible operators, tags.

Two uses of format characters are ordinary text, so they stay allowed:

- ZERO WIDTH JOINER and NON-JOINER (U+200D, U+200C) between two visible non-ASCII
  characters: they join emoji (woman + ZWJ + laptop) and shape Persian and Indic words
  (Persian writes "mi" + ZWNJ + "khaham"). Next to ASCII or at either end of a name they
  change nothing visible, so there they are refused like any other invisible character.
- Tag characters inside an emoji tag sequence (the black flag U+1F3F4, tags, CANCEL TAG):
  the flags of England, Scotland and Wales.
"""

from __future__ import annotations

import re
import unicodedata

_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_JOINERS = frozenset("\u200c\u200d")
_EMOJI_TAG_SEQUENCE = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
# unicodedata has no names for control characters: the common ones, as people know them.
_CONTROL_NAMES = {0x00: "NULL", 0x09: "TAB", 0x0A: "LINE FEED", 0x0D: "CARRIAGE RETURN", 0x1B: "ESCAPE", 0x7F: "DELETE"}
RULE = "names may not hold control characters, bidi controls or invisible (zero-width) characters"


def _visible_non_ascii(character: str) -> bool:
    return (
        not character.isascii()
        and not character.isspace()
        and unicodedata.category(character) not in _REFUSED_CATEGORIES
    )


def _refused_positions(value: str) -> list[int]:
    """Indexes of the characters a name may not hold."""
    in_flag = {i for match in _EMOJI_TAG_SEQUENCE.finditer(value) for i in range(match.start() + 1, match.end())}
    refused = []
    for index, character in enumerate(value):
        if unicodedata.category(character) not in _REFUSED_CATEGORIES or index in in_flag:
            continue
        if (
            character in _JOINERS
            and 0 < index < len(value) - 1
            and _visible_non_ascii(value[index - 1])
            and _visible_non_ascii(value[index + 1])
        ):
            continue
        refused.append(index)
    return refused


def _describe(character: str) -> str:
    code = ord(character)
    name = unicodedata.name(character, "") or _CONTROL_NAMES.get(code, "")
    category = unicodedata.category(character)
    if category == "Cc":
        kind = "a control character"
    elif category in ("Zl", "Zp"):
        kind = "a line break"
    elif category == "Cs":
        kind = "a lone surrogate (not a character)"
    elif character in _BIDI_CONTROLS:
        kind = "a bidi control (it reorders the text around it)"
    else:
        kind = "an invisible formatting character"
    return f"U+{code:04X}{f' {name}' if name else ''}, {kind}"


def invisible_character_problem(value: str) -> str | None:
    """Why value may not be a name (its first refused character, by position), or None."""
    refused = _refused_positions(value)
    if not refused:
        return None
    index = refused[0]
    more = f" (and {len(refused) - 1} more such)" if len(refused) > 1 else ""
    return f"character {index + 1} is {_describe(value[index])}{more}: remove it; {RULE}"


def check_visible(value: str) -> str:
    """value unchanged, or ValueError naming the first refused character.

    A pydantic AfterValidator for names someone gives, placed after the length bounds:
    `Annotated[str, Field(max_length=200), AfterValidator(check_visible)]`. Only on input
    models: stored names are not checked again, so data saved before the rule still loads.
    """
    problem = invisible_character_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def strip_invisible(value: str) -> str:
    """value without the characters a name may not hold (for names nobody chose, e.g. from a file name)."""
    refused = set(_refused_positions(value))
    return "".join(character for index, character in enumerate(value) if index not in refused)
