"""engine.design.names: no control, bidi or invisible characters in names; element and page names in
actions; what a file name (an attachment's, a download's) may not hold besides."""

from __future__ import annotations

import pydantic
import pytest

from engine import ActionError, DesignTree, apply, new_design
from engine.design.names import (
    STORED,
    check_visible,
    file_name_problem,
    invisible_character_problem,
    safe_file_name,
    strip_invisible,
)
from engine.finishing.attachments import Attachment

from ...conftest import action, add

ZWJ, ZWNJ = "\u200d", "\u200c"
SCOTLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"

REFUSED = [
    ("\x00", "U+0000 NULL, a control character"),
    ("\t", "U+0009 TAB, a control character"),
    ("\n", "U+000A LINE FEED, a control character"),
    ("\x7f", "U+007F DELETE, a control character"),
    ("\x85", "U+0085, a control character"),  # C1 NEXT LINE
    ("\u2028", "U+2028 LINE SEPARATOR, a line break"),
    ("\u2029", "U+2029 PARAGRAPH SEPARATOR, a line break"),
    ("\u202a", "U+202A LEFT-TO-RIGHT EMBEDDING, a bidi control"),
    ("\u202b", "U+202B RIGHT-TO-LEFT EMBEDDING, a bidi control"),
    ("\u202c", "U+202C POP DIRECTIONAL FORMATTING, a bidi control"),
    ("\u202d", "U+202D LEFT-TO-RIGHT OVERRIDE, a bidi control"),
    ("\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE, a bidi control"),
    ("\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE, a bidi control"),
    ("\u2067", "U+2067 RIGHT-TO-LEFT ISOLATE, a bidi control"),
    ("\u2068", "U+2068 FIRST STRONG ISOLATE, a bidi control"),
    ("\u2069", "U+2069 POP DIRECTIONAL ISOLATE, a bidi control"),
    ("\u200e", "U+200E LEFT-TO-RIGHT MARK, a bidi control"),
    ("\u200f", "U+200F RIGHT-TO-LEFT MARK, a bidi control"),
    ("\u061c", "U+061C ARABIC LETTER MARK, a bidi control"),
    ("\u200b", "U+200B ZERO WIDTH SPACE, an invisible formatting character"),
    ("\u2060", "U+2060 WORD JOINER, an invisible formatting character"),
    ("\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE, an invisible formatting character"),
    ("\u00ad", "U+00AD SOFT HYPHEN, an invisible formatting character"),
    ("\u2062", "U+2062 INVISIBLE TIMES, an invisible formatting character"),
    ("\U000e0041", "U+E0041 TAG LATIN CAPITAL LETTER A, an invisible formatting character"),  # ASCII smuggling
    ("\ud800", "U+D800, a lone surrogate"),
]


@pytest.mark.parametrize(("character", "described"), REFUSED, ids=lambda v: f"U+{ord(v):04X}" if len(v) == 1 else "")
def test_controls_bidi_and_invisible_characters_are_refused_by_position_and_code_point(
    character: str, described: str
) -> None:
    problem = invisible_character_problem(f"invoice{character}fdp.exe")
    assert problem is not None
    assert problem.startswith(f"character 8 is {described}"), problem
    assert "remove it" in problem
    with pytest.raises(ValueError, match="character 8 is U\\+"):
        check_visible(f"invoice{character}fdp.exe")


def test_the_message_counts_further_refused_characters() -> None:
    problem = invisible_character_problem("\u202ea\u200bb\x00")
    assert problem is not None and problem.startswith("character 1 is U+202E") and "(and 2 more such)" in problem


@pytest.mark.parametrize(
    "name",
    [
        "Invoice 2024 – Müller & Søn",
        "Ünïcödé ½ € ™ ©",
        "שלום עולם",  # Hebrew: right-to-left letters need no control character
        "مرحبا بالعالم",
        "請求書 第3号",
        "नमस्ते",
        "क्‍ष",  # Devanagari: virama + ZWJ keeps the half form
        f"می{ZWNJ}خواهم",  # Persian: ZWNJ between letters is spelling
        f"👩{ZWJ}💻 team",  # emoji ZWJ sequence
        f"🏳\ufe0f{ZWJ}🌈",  # after a variation selector
        f"👨{ZWJ}👩{ZWJ}👧{ZWJ}👦",
        "👋🏽 hi",  # skin tone modifier (not a format character)
        f"{SCOTLAND} Edinburgh",  # emoji tag sequence
        "non\u00a0breaking",  # NO-BREAK SPACE is visible spacing
        "\ue000 private use",
    ],
)
def test_ordinary_text_of_every_script_and_emoji_is_accepted(name: str) -> None:
    assert invisible_character_problem(name) is None
    assert check_visible(name) == name
    assert strip_invisible(name) == name


@pytest.mark.parametrize(
    ("name", "position"),
    [
        (f"ad{ZWJ}min", 3),  # between ASCII letters it only hides
        (f"{ZWJ}👩", 1),  # at an end
        (f"👩{ZWJ}", 2),
        (f"👩{ZWJ}{ZWJ}💻", 2),
        (f"a{ZWNJ}b", 2),
        ("\U000e0067\U000e0062 gb", 1),  # tags outside a flag sequence
        ("\U0001f3f4\U000e0067\U000e0062", 2),  # a flag sequence without its CANCEL TAG
    ],
)
def test_joiners_and_tags_outside_their_legitimate_places_are_refused(name: str, position: int) -> None:
    problem = invisible_character_problem(name)
    assert problem is not None and problem.startswith(f"character {position} is U+"), problem


def test_strip_invisible_keeps_the_visible_text_and_legitimate_joiners() -> None:
    assert strip_invisible("in\u202evoice\u200b.png\x00") == "invoice.png"
    assert strip_invisible(f"👩{ZWJ}💻\u2066 a{ZWJ}b") == f"👩{ZWJ}💻 ab"
    assert invisible_character_problem(strip_invisible("\u2067\u200d\ufeff x \U000e0041")) is None


# Element and page names in actions


@pytest.mark.parametrize("bad", ["ti\u202etle", "title\x00", "\u200btitle", "ti\u2066tle\u2069"])
def test_add_element_refuses_an_invisible_character_in_the_name(bad: str) -> None:
    with pytest.raises(ActionError) as caught:
        apply(new_design(), [add("text", bad, {"x": 1, "y": 1}, {"content": "x"})])
    message = caught.value.message
    assert message.startswith("actions[0] (add_element) failed: name: character"), message
    assert "U+" in message and "remove it" in message


def test_update_element_refuses_an_invisible_character_in_the_new_name() -> None:
    tree, _ = apply(new_design(), [add("text", "title", {"x": 1, "y": 1}, {"content": "x"})])
    with pytest.raises(ActionError, match="newName: character 3 is U\\+202E RIGHT-TO-LEFT OVERRIDE"):
        apply(tree, [action("update_element", name="title", newName="ti\u202etle")])


def test_element_names_of_any_script_and_emoji_are_accepted() -> None:
    names = ["Preis €", "שם", f"👩{ZWJ}💻", f"می{ZWNJ}خواهم", SCOTLAND]
    actions = [add("text", name, {"x": 1, "y": 1 + 20 * i}, {"content": "x"}) for i, name in enumerate(names)]
    tree, _ = apply(new_design(), actions)
    assert sorted(node.name for node in tree.nodes.values()) == sorted(names)


@pytest.mark.parametrize("kind", ["add_page", "update_page"])
def test_page_names_refuse_invisible_characters(kind: str) -> None:
    args = {"name": "Cover\u200f"} | ({"page": 0} if kind == "update_page" else {})
    with pytest.raises(ActionError, match="name: character 6 is U\\+200F RIGHT-TO-LEFT MARK"):
        apply(new_design(), [action(kind, **args)])
    tree, results = apply(new_design(), [action(kind, **(args | {"name": "Üb€rsicht 👩‍💻"}))])
    assert results[0]["data"]["name"] == "Üb€rsicht 👩‍💻"


def test_a_stored_tree_with_names_from_before_the_rule_still_loads() -> None:
    tree, _ = apply(new_design(), [add("text", "title", {"x": 1, "y": 1}, {"content": "x"})])
    stored = tree.model_dump()
    node = next(iter(stored["nodes"].values()))
    node["name"] = "ti\u200btle"
    stored["pages"][0]["name"] = "Cover\u202e"
    loaded = DesignTree.model_validate(stored)
    assert next(iter(loaded.nodes.values())).name == "ti\u200btle"


# File names: the name rule above, and what makes a name a path, a device or a hidden file.
BAD_FILE_NAMES = [
    ("invoice\u202efdp.exe", "character 8 is U+202E RIGHT-TO-LEFT OVERRIDE, a bidi control"),
    ("in\u200bvoice.pdf", "character 3 is U+200B ZERO WIDTH SPACE"),
    ("\ufeffinvoice.pdf", "character 1 is U+FEFF ZERO WIDTH NO-BREAK SPACE"),
    ("invoice\x7f.pdf", "character 8 is U+007F DELETE, a control character"),
    ("../etc/passwd", "character 3 is '/' (U+002F SOLIDUS), a path separator"),
    ("..\\boot.ini", "character 3 is '\\' (U+005C REVERSE SOLIDUS), a path separator"),
    ("..", "is only dots ('..')"),
    (".", "is only dots ('.')"),
    ("C:evil.exe", "character 2 is ':' (U+003A COLON), a drive or stream separator"),
    ("notes.txt:hidden", "character 10 is ':' (U+003A COLON)"),
    ("..\u2215..\u2215etc\u2215passwd", "character 3 is '\u2215' (U+2215 DIVISION SLASH), drawn like a slash"),
    ("a\u2044b.txt", "U+2044 FRACTION SLASH), drawn like a slash"),
    ("a\u29f8b.txt", "U+29F8 BIG SOLIDUS), drawn like a slash"),
    ("a\uff0fb.txt", "U+FF0F FULLWIDTH SOLIDUS), drawn like a slash"),
    ("a\uff3cb.txt", "U+FF3C FULLWIDTH REVERSE SOLIDUS), drawn like a backslash"),
    ("what?.txt", "character 5 is '?' (U+003F QUESTION MARK), refused by Windows"),
    (" invoice.pdf", "starts with a space"),
    ("invoice.pdf ", "ends with a space"),
    (".bashrc", "starts with a dot"),
    ("invoice.", "ends with a dot"),
    ("CON", "the Windows device name CON"),
    ("nul.txt", "the Windows device name NUL"),
    ("Com7.tar.gz", "the Windows device name COM7"),
    ("lpt9 .csv", "the Windows device name LPT9"),
    ("é" * 128 + ".txt", "is 260 bytes in UTF-8, more than 255"),
]


@pytest.mark.parametrize(("name", "fragment"), BAD_FILE_NAMES)
def test_a_file_name_is_one_visible_name_not_a_path_or_device(name: str, fragment: str) -> None:
    problem = file_name_problem(name)
    assert problem is not None and fragment in problem, problem
    with pytest.raises(pydantic.ValidationError, match="name"):
        Attachment(name=name, mime_type="text/plain", content=b"x")


@pytest.mark.parametrize(
    "name", ["terms.txt", "Rechnung Nr. 7 – Müller.pdf", f"👩{ZWJ}💻 notes.md", "שלום.csv", "CONTRACT.pdf", "a..b.txt"]
)
def test_ordinary_file_names_of_every_script_are_accepted(name: str) -> None:
    assert file_name_problem(name) is None
    assert Attachment(name=name, mime_type="text/plain", content=b"x").name == name


def test_a_queued_payloads_attachment_named_before_the_rule_still_loads() -> None:
    stored = {"name": "a:b.txt", "mimeType": "text/plain", "content": "eA=="}
    assert Attachment.model_validate(stored, context=STORED).name == "a:b.txt"
    with pytest.raises(pydantic.ValidationError, match="U\\+003A COLON"):
        Attachment.model_validate(stored)


@pytest.mark.parametrize(
    ("text", "made"),
    [
        ("Q1 / Q2 report", "Q1 Q2 report.pdf"),
        ("a\u2215b\uff3cc: d", "a b c d.pdf"),
        ("invoice\u202efdp.exe", "invoicefdp.exe.pdf"),
        ("CON", "_CON.pdf"),
        ("aux.final", "_aux.final.pdf"),
        ("...", "document.pdf"),
        (" .hidden. ", "hidden.pdf"),
        ("é" * 300, "é" * 125 + ".pdf"),
    ],
)
def test_a_file_name_made_from_any_text_keeps_the_rule(text: str, made: str) -> None:
    assert safe_file_name(text, "document", ".pdf") == made
    assert file_name_problem(made) is None
