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

from pydantic import ValidationInfo

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


# What a file name must not hold besides the name rule above. It names a file that a PDF
# reader saves (an attachment) or a browser downloads: one file, in one folder, on any
# system. So no folders (a slash, a backslash, or a character drawn like one), no drive or
# stream (a colon: "C:evil.exe", "a.txt:hidden"), none of the characters Windows refuses,
# no name that Windows keeps for a device, and nothing a file system trims or hides.
FILE_NAME_MAX_BYTES = 255  # ext4, APFS and NTFS all stop near 255 (bytes in UTF-8, or UTF-16 units)
_SEPARATORS = {
    "/": "a path separator",
    "\\": "a path separator",
    "\u2215": "drawn like a slash (a path separator)",
    "\u2044": "drawn like a slash (a path separator)",
    "\u29f8": "drawn like a slash (a path separator)",
    "\uff0f": "drawn like a slash (a path separator)",
    "\uff3c": "drawn like a backslash (a path separator)",
}
_WINDOWS_REFUSED = {":": "a drive or stream separator on Windows", **dict.fromkeys('*?"<>|', "refused by Windows")}
_DEVICE_NAMES = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"{port}{digit}" for port in ("COM", "LPT") for digit in "123456789\u00b9\u00b2\u00b3"}
)
FILE_NAME_RULE = (
    "a file name is one name, not a path: no / or \\ (or characters drawn like them), no colon, "
    'none of * ? " < > |, no control, bidi or invisible character, not only dots, no space or '
    "dot at either end, not a Windows device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9), "
    f"at most {FILE_NAME_MAX_BYTES} bytes in UTF-8"
)


def _character(character: str) -> str:
    name = unicodedata.name(character, "")
    return f"'{character}' (U+{ord(character):04X}{f' {name}' if name else ''})"


def file_name_problem(value: str) -> str | None:
    """Why value may not be a file name (the first rule it breaks, with the fix), or None."""
    if not value:
        return f"is empty: give the file a name such as 'data.csv'; {FILE_NAME_RULE}"
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > FILE_NAME_MAX_BYTES:
        return f"is {size} bytes in UTF-8, more than {FILE_NAME_MAX_BYTES}: shorten it; {FILE_NAME_RULE}"
    problem = invisible_character_problem(value)
    if problem is not None:
        return problem
    for index, character in enumerate(value):
        kind = _SEPARATORS.get(character) or _WINDOWS_REFUSED.get(character)
        if kind is not None:
            return (
                f"character {index + 1} is {_character(character)}, {kind}: replace it (with '-', say); "
                f"{FILE_NAME_RULE}"
            )
    if value.strip(".") == "":
        return f"is only dots ({value!r}), which names a folder, not a file: give the file a name; {FILE_NAME_RULE}"
    if value[0] in " ." or value[-1] in " .":
        end = "starts" if value[0] in " ." else "ends"
        what = "a space" if (value[0] if end == "starts" else value[-1]) == " " else "a dot"
        return f"{end} with {what}, which file systems trim or hide: remove it; {FILE_NAME_RULE}"
    stem = value.split(".", 1)[0].rstrip(" ").upper()
    if stem in _DEVICE_NAMES:
        return (
            f"is the Windows device name {stem}, which names no file there, whatever the extension: "
            f"rename it (e.g. 'file-{value}'); {FILE_NAME_RULE}"
        )
    return None


def check_file_name(value: str) -> str:
    """value unchanged, or ValueError saying what it may not hold and how to fix it (a pydantic
    AfterValidator for the file names someone gives, such as an attachment's)."""
    problem = file_name_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


# The validation context for what the service reads back (a queued batch's payload): its file
# names were checked when it was accepted, and one accepted before a rule was added still loads.
STORED = {"stored": True}


def check_stored_file_name(value: str, info: ValidationInfo) -> str:
    """`check_file_name`, except for values validated with the STORED context."""
    if info.context and info.context.get("stored"):
        return value
    return check_file_name(value)


def safe_file_name(text: str, fallback: str, suffix: str = "") -> str:
    """A file name made from text nobody chose as one (a design's name becomes its PDF's):
    what the file name rule refuses is dropped or becomes a space, a device name gets a
    leading "_", the result is bounded, and `fallback` (itself a valid file name) stands in
    when nothing is left. The result always passes `file_name_problem`."""
    refused = _SEPARATORS.keys() | _WINDOWS_REFUSED.keys()
    replaced = "".join(" " if character in refused else character for character in strip_invisible(text))
    stem = " ".join(replaced.split()).strip(" .")  # runs of spaces (from replaced characters) become one
    if stem.split(".", 1)[0].rstrip(" ").upper() in _DEVICE_NAMES:
        stem = f"_{stem}"
    room = FILE_NAME_MAX_BYTES - len(suffix.encode())
    stem = stem.encode()[:room].decode("utf-8", "ignore").rstrip(" .")
    return f"{stem or fallback}{suffix}"
