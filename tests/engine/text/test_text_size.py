"""Text size (issue 31, item 3): the bounds on a text's, a table's and a tree's size, and
text that costs work in proportion to its length (no quadratic line filling, Markdown and
line breaks not read again and again). Work is counted, not timed: counts do not depend on
the machine, and the old code's counts are many times the bounds asserted here."""

from __future__ import annotations

import random
import threading

import pytest
from uniseg.linebreak import line_break, line_break_units

from engine import apply, new_design
from engine.design.tree import MAX_TREE_BYTES, tree_size_problem
from engine.design.variables import check_values
from engine.elements import ELEMENT_TYPES
from engine.elements.table import MAX_TABLE_CHARACTERS
from engine.elements.text import MAX_TEXT_CHARACTERS, TextStyles, element_style
from engine.errors import ActionError, ValueBindingError
from engine.memo import text_cache
from engine.text import shaping, typeset
from engine.text.markup import check_links
from engine.text.markup import parse as parse_markup
from tests.text_samples import chinese

from ...conftest import action, add, build


def counted(monkeypatch: pytest.MonkeyPatch, module: object, name: str, budget: int, size=lambda *a: 1) -> list[int]:
    """The real `module.name`, counting its calls (or the `size` of each call's arguments); past
    `budget` it stops the test at once, so work that grows out of bounds fails and ends quickly."""
    real = getattr(module, name)
    spent = [0]

    def measured(*args, **kwargs):
        spent[0] += size(*args)
        if spent[0] > budget:
            raise AssertionError(f"{name}: more than {budget} of work")
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, measured)
    return spent


# The bounds: a text's content, its samples in place, a generation's values, a table's cells.


def text_args(name: str, content, **data) -> dict:
    return add("text", name, {"x": 10, "y": 10, "maxWidth": 300}, {"content": content, **data})


def test_a_text_over_100000_characters_is_refused_naming_the_element_the_limit_and_the_fix():
    with pytest.raises(ActionError) as refused:
        apply(new_design(), [text_args("intro", "x" * (MAX_TEXT_CHARACTERS + 1))])
    message = refused.value.message
    assert message.startswith("actions[0] (add_element) failed: data.content: the text 'intro' is 100,001 characters")
    assert "at most 100,000" in message and "split it over several text elements" in message


def test_a_text_of_exactly_100000_characters_is_accepted():
    tree, _ = apply(new_design(), [text_args("intro", ("word " * 20_000)[:MAX_TEXT_CHARACTERS])])
    assert len(tree.node_by_name("intro").data.content) == MAX_TEXT_CHARACTERS


def test_an_update_past_the_limit_is_refused_and_a_list_counts_its_line_breaks():
    tree = build([text_args("intro", "short")])
    with pytest.raises(ActionError, match="the text 'intro' is 100,001 characters"):
        apply(tree, [action("update_element", name="intro", data={"content": "y" * 100_001})])
    items = ["a" * 50_000, "b" * 50_000]  # 100,000 letters and the break between them
    with pytest.raises(ActionError, match="the text 'intro' is 100,001 characters"):
        apply(tree, [action("update_element", name="intro", data={"content": items, "listFormat": "unordered"})])


def test_a_markdown_text_past_the_limit_is_refused_before_it_is_read():
    markdown_reads = parse_markup.cache_info().misses
    with pytest.raises(ActionError, match="at most 100,000"):
        apply(new_design(), [text_args("notes", "**bold** [a](ftp://x) " * 5000, markup="markdown")])
    assert parse_markup.cache_info().misses == markdown_reads


def test_samples_that_make_the_shown_text_too_long_are_refused():
    with pytest.raises(ActionError) as refused:
        apply(new_design(), [text_args("card", "{a} {a}", fields=True, samples={"a": "z" * 60_000})])
    assert "samples: the text 'card' with its samples in place is 120,001 characters" in refused.value.message
    assert "shorten data.samples" in refused.value.message


def test_generation_values_past_the_limit_are_refused_naming_the_variable():
    tree = build(
        [
            text_args("body", "text"),
            action("bind_variable", name="body"),
            text_args("card", "Dear {name}", fields=True),
        ]
    )
    with pytest.raises(ValueBindingError, match="variable 'body': the value is 100,001 characters"):
        check_values(tree, {"body": "x" * 100_001})
    with pytest.raises(ValueBindingError, match="variable 'name': the value is 100,001 characters"):
        check_values(tree, {"name": "x" * 100_001})
    check_values(tree, {"body": "x" * 100_000, "name": "x" * 100_000})


def test_a_table_holds_at_most_200000_characters_in_its_cells():
    cells = [["x" * 100_000, "y" * 100_001]]
    with pytest.raises(ActionError) as refused:
        apply(new_design(), [add("table", "lines", {"x": 10, "y": 10}, {"cells": cells})])
    assert "the cells of the table 'lines' hold 200,001 characters" in refused.value.message
    assert f"at most {MAX_TABLE_CHARACTERS:,}" in refused.value.message
    tree = build(
        [add("table", "lines", {"x": 10, "y": 10}, {"cells": [["a", "b"]]}), action("bind_variable", name="lines")]
    )
    with pytest.raises(ValueBindingError, match="the value's cells hold 200,001 characters"):
        check_values(tree, {"lines": cells})


def test_a_tree_past_5_mb_is_refused_unless_it_was_larger_before():
    assert tree_size_problem(MAX_TREE_BYTES, 0) is None
    problem = tree_size_problem(MAX_TREE_BYTES + 1, 1000)
    assert problem is not None and "at most 5,000,000" in problem and "split the content" in problem
    # A design saved before the limit can still be edited, as long as it does not grow.
    assert tree_size_problem(MAX_TREE_BYTES + 10, MAX_TREE_BYTES + 10) is None


# Markdown: checked without reading it when its links are written plainly.


def test_links_written_plainly_are_checked_without_parsing_the_markdown():
    content = ("Read **this** and *that* at [the docs](https://example.org/a) or [mail](mailto:a@b.c). " * 1100)[
        :MAX_TEXT_CHARACTERS
    ]
    parse_markup.cache_clear()
    ELEMENT_TYPES["text"].Data.model_validate({"content": content, "markup": "markdown"})
    assert parse_markup.cache_info().misses == 0


@pytest.mark.parametrize(
    "written",
    [
        "[x](javascript:alert(1))",
        "[x](  ftp://host/file)",
        "[x](<javascript:alert(1)>)",
        "[x](&#106;avascript:alert(1))",  # an entity is not read plainly: the parser decides
        "[x](\\https://a) [y](data:text/html,1)",
        "[x](https://a) and [y](file:///etc/passwd)",
        "[x](HTTPS://a) [y]( \t javascript:1)",
    ],
)
def test_a_refused_link_is_found_however_it_is_written(written):
    with pytest.raises(ValueError, match="is not allowed"):
        check_links(written)


def test_links_with_allowed_schemes_pass_however_they_are_written():
    check_links("[a](https://x) [b](  HTTP://y) [c](<mailto:z@w.v>) a ](note) outside a link, [d](&#104;ttps://e)")


def test_a_line_without_markup_characters_reads_as_the_parser_reads_it():
    from engine.text.markup import _parse_line, _parsed_line

    rng = random.Random(31)
    alphabet = "abc XYZ 123 .,;:!?'\"()<>&#%$@{}|^`+-=/ é中ا\u00a0\u200b"
    for _ in range(2000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert _parse_line(line) == _parsed_line(line), line


# Line breaks and line filling: work in proportion to the text, not to its square.


def test_a_100000_character_chinese_paragraph_is_measured_in_a_few_shapings_a_line(monkeypatch):
    content = chinese(MAX_TEXT_CHARACTERS, seed=3100)
    # UAX #14 (uniseg, ~70 µs a character) is not run over ideographs: a break between them is sure.
    read_by_uniseg = counted(monkeypatch, shaping, "line_break_units", 1000, size=len)
    # Four shapings a line: the line, its first unit and two ends tried; the old filling shaped
    # the line once per unit (about 19 a line here) and was stopped by this budget early on.
    shapings = counted(monkeypatch, shaping, "line_width", 6 * MAX_TEXT_CHARACTERS // 18)
    tree, results = apply(new_design(), [text_args("story", content)])
    lines = typeset.wrap(content, element_style(TextStyles(fontSize=12)), 300)
    assert shapings[0] <= 5 * len(lines) + 1
    assert read_by_uniseg[0] <= 1000
    assert "".join(line.text for line in lines) == content  # nothing lost between lines
    assert all(line.width <= 300 for line in lines)
    assert results[0]["data"]["position"]["h"] == pytest.approx(len(lines) * 12 * 1.2)


def test_a_line_of_thousands_of_units_is_ended_in_a_few_shapings(monkeypatch):
    # A 1 pt size in a 14,400 pt box: each line holds some 14,000 ideographs. Shaping the line
    # after each one was quadratic (hours for this paragraph).
    shapings = counted(monkeypatch, shaping, "line_width", 200)
    style = element_style(TextStyles(fontSize=1))
    lines = typeset.wrap(chinese(20_000, seed=3101), style, 14_400)
    assert len(lines) == 2 and shapings[0] <= 40
    assert all(line.width <= 14_400 for line in lines)


def test_a_word_wider_than_its_box_is_cut_in_a_few_measurements(monkeypatch):
    measurements = counted(monkeypatch, typeset, "width_of", 300)
    style = element_style(TextStyles(fontSize=1))
    pieces = typeset.wrap("a" * MAX_TEXT_CHARACTERS, style, 14_400)
    assert len(pieces) == 4 and "".join(p.text for p in pieces) == "a" * MAX_TEXT_CHARACTERS
    assert measurements[0] <= 100


def test_break_opportunities_are_uniseg_s_with_ideographs_and_words_cut_apart():
    alphabet = (
        list("中文字这是，。「」、！？（）“”ぁあアっー")
        + ["word", "ab", "é", "שלום", "־", "مرحبا", "ب", "\u064e", "नमस्ते", "กา", "1", "2.5", "$", "%", "(", ")"]
        + ["[", "]", '"', "'", "«", "»", "‘", "’", "-", "—", "/", "\u00ad", "!", "?", ",", ".", ":", ";"]
        + ["\u200b", "\u200d", "\u2060", "\u00a0", "\u3000", "😀", "👍🏽", "🇯🇵", "#", "\u25cc", "\u0301", "\u1b05"]
        + [" "] * 12
    )
    rng = random.Random(14)
    for _ in range(600):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        shaping.break_units.cache_clear()
        assert shaping.break_units(text) == tuple(line_break_units(text)), text


def test_every_character_taken_for_an_ideograph_is_of_class_id():
    ranges = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FFFD), (0x30000, 0x3FFFD)]
    assert all(str(line_break(chr(c))) == "ID" for low, high in ranges for c in range(low, high + 1))


# The caches: bounded by the characters they hold, shared by threads.


def test_a_text_cache_keeps_the_most_recent_texts_up_to_its_characters():
    computed: list[str] = []

    @text_cache(10)
    def upper(text: str) -> str:
        computed.append(text)
        return text.upper()

    assert [upper("abcd"), upper("efgh"), upper("abcd")] == ["ABCD", "EFGH", "ABCD"]
    assert computed == ["abcd", "efgh"]
    upper("ijkl")  # 12 characters: the least recently used ("efgh") goes
    assert upper.cache_info().characters <= 10
    upper("abcd")
    upper("efgh")
    assert computed == ["abcd", "efgh", "ijkl", "efgh"]
    upper("x" * 11)  # larger than the whole cache: computed, never kept
    assert upper.cache_info().characters <= 10


def test_a_text_cache_is_shared_by_threads():
    @text_cache(1_000_000)
    def length(text: str) -> int:
        return len(text)

    texts = [str(n) * 50 for n in range(200)]
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for text in texts * 5:
                assert length(text) == len(text)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    info = length.cache_info()
    assert info.hits + info.misses == 4 * 5 * 200 and info.characters == sum(len(t) + 1 for t in texts)
