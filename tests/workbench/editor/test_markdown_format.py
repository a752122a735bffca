"""The canvas's Markdown formatting of a selected part (workbench/editor/canvas/markdown_format.js),
run in Node, read back by the engine's own parser (engine/text/markup.py): the selected words,
and only they, come out bold, italic or linked, and a second toggle gives the text back."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from engine.text.markup import parse
from tests.paths import ROOT

MODULE = ROOT / "workbench" / "editor" / "canvas" / "markdown_format.js"


def run(calls: list[list]) -> list[dict | None]:
    """Each call [function, *args] of the module, in Node; its results as JSON."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node is not installed: `make test` installs it (apt-get install nodejs)")
    script = (
        f"const m = await import({json.dumps(MODULE.as_uri())});"
        f"const calls = {json.dumps(calls)};"
        "console.log(JSON.stringify(calls.map(([f, ...args]) => m[f](...args))));"
    )
    done = subprocess.run(
        [node, "--experimental-default-type=module", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def styled(text: str) -> list[tuple[str, bool, bool, str | None]]:
    return [(span.text, span.bold, span.italic, span.link) for line in parse(text) for span in line]


def test_bold_italic_and_a_link_cover_exactly_the_selected_word_as_the_engine_reads_them():
    text = "Hello brave world"
    bold, italic, link = run(
        [["toggleEmphasis", text, 6, 11, 2], ["toggleEmphasis", text, 6, 11, 1], ["toggleLink", text, 6, 11, "x.org"]]
    )
    plain_before, plain_after = ("Hello ", False, False, None), (" world", False, False, None)
    assert styled(bold["text"]) == [plain_before, ("brave", True, False, None), plain_after]
    assert styled(italic["text"]) == [plain_before, ("brave", False, True, None), plain_after]
    assert styled(link["text"])[1] == ("brave", False, False, "https://x.org")
    for done in (bold, italic, link):
        assert done["text"][done["start"] : done["end"]] == "brave"  # the same word selected


def test_a_second_toggle_gives_the_text_back_and_bold_and_italic_combine():
    text = "Hello brave world"
    (bold,) = run([["toggleEmphasis", text, 6, 11, 2]])
    off, both = run(
        [["toggleEmphasis", bold["text"], bold["start"], bold["end"], 2], ["toggleEmphasis", bold["text"], 8, 13, 1]]
    )
    assert off["text"] == text
    assert styled(both["text"])[1] == ("brave", True, True, None)
    (link,) = run([["toggleLink", text, 6, 11, "https://x.org"]])
    (unlinked,) = run([["toggleLink", link["text"], link["start"], link["end"], None]])
    assert unlinked["text"] == text


def test_spaces_at_the_selection_s_edges_stay_outside_and_each_line_is_wrapped_on_its_own():
    spaced, lines = run(
        [["toggleEmphasis", "a brave b", 1, 8, 2], ["toggleEmphasis", "one two\nthree four", 4, 13, 2]]
    )
    assert styled(spaced["text"])[1] == ("brave", True, False, None)
    assert [s for s in styled(lines["text"]) if s[1]] == [("two", True, False, None), ("three", True, False, None)]


def test_a_plain_text_turned_markdown_keeps_its_punctuation_literal():
    (escaped,) = run([["escapePlain", "5*3 [x] _y_ brave", 12, 17]])
    (bold,) = run([["toggleEmphasis", escaped["text"], escaped["start"], escaped["end"], 2]])
    assert styled(bold["text"]) == [("5*3 [x] _y_ ", False, False, None), ("brave", True, False, None)]


def test_a_typed_address_becomes_a_link_the_engine_allows():
    urls = run([["linkUrl", "example.org/a b"], ["linkUrl", "ada@example.org"], ["linkUrl", "http://x.org/(1)"]])
    assert urls == ["https://example.org/a%20b", "mailto:ada@example.org", "http://x.org/%281%29"]
