"""The placeholder parser (extensions.md 1): `{name}`, literal `{{`/`}}`, refusals with the index."""

import pytest

from engine.text.placeholders import (
    FieldSyntaxError,
    Placeholder,
    Sheet,
    fill,
    names,
    parse,
    value_text,
    variable_names,
)


def test_a_template_is_literal_text_and_placeholders_in_order():
    assert parse("Dear {first} {last},") == ("Dear ", Placeholder("first"), " ", Placeholder("last"), ",")


def test_doubled_braces_are_literal_braces():
    assert parse("{{not a field}} and {{{name}}}") == ("{not a field} and {", Placeholder("name"), "}")
    assert fill("{{x}}", {"x": "no"}) == "{x}"


@pytest.mark.parametrize(
    "text,index,fix",
    [
        ("a { b", 2, "lone '{' at character 2: write {{ for a literal brace"),
        ("tail {", 5, "lone '{' at character 5"),
        ("a } b", 2, "lone '}' at character 2: write }} for a literal brace"),
        ("{a{b}", 0, "lone '{' at character 0"),
        ("x {}", 2, "empty placeholder"),
    ],
)
def test_a_lone_brace_is_refused_with_its_index_and_the_fix(text, index, fix):
    with pytest.raises(FieldSyntaxError) as info:
        parse(text)
    assert info.value.index == index and fix in str(info.value)


@pytest.mark.parametrize(
    "name,problem",
    [(" name", "leading or trailing spaces"), ("a" * 101, "1 to 100 characters"), ("a\tb", "control characters")],
)
def test_placeholder_names_follow_the_rules_of_element_names(name, problem):
    with pytest.raises(FieldSyntaxError) as info:
        parse("{" + name + "}")
    assert problem in str(info.value)


def test_placeholder_names_refuse_invisible_characters():
    with pytest.raises(FieldSyntaxError, match="placeholder '"):
        parse("{na\u200bme}")


def test_names_are_listed_once_and_page_numbers_are_not_variables():
    assert names("{a} {b} {a} {page}") == ("a", "b", "page")
    assert variable_names(["{a} {page}", "{pages} {c} {a}"]) == ("a", "c")


def test_fill_inserts_values_literally_and_missing_names_as_nothing():
    assert fill("Hi {who}{gone}!", {"who": "{pages} **x**"}) == "Hi {pages} **x**!"
    assert fill("Page {page} of {pages}", {}, Sheet(2, 7)) == "Page 2 of 7"


def test_values_are_strings_or_numbers():
    assert value_text("x") == "x" and value_text(3) == "3" and value_text(2.0) == "2" and value_text(2.5) == "2.5"
    for wrong in (True, None, ["a"], {"a": 1}):
        with pytest.raises(ValueError, match="a string or a number"):
            value_text(wrong)


def test_fill_can_quote_values_for_a_later_markup_reading():
    def backslashed(value: str) -> str:
        return "".join("\\" + c if c in "*_[]\\" else c for c in value)

    assert fill("**{who}**", {"who": "*x*"}, escape=backslashed) == "**\\*x\\***"
