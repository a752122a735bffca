"""Inline Markdown of text elements (extensions.md 3), parsed into styled spans."""

import pytest

from engine.text.markup import Span, check_link, check_links, escape, links, parse, plain


def test_bold_italic_and_strike_in_both_spellings():
    (line,) = parse("a **b** __c__ *d* _e_ ~~f~~")
    assert line == (
        Span("a "),
        Span("b", bold=True),
        Span(" "),
        Span("c", bold=True),
        Span(" "),
        Span("d", italic=True),
        Span(" "),
        Span("e", italic=True),
        Span(" "),
        Span("f", strike=True),
    )


def test_nested_styles_combine():
    (line,) = parse("***both*** and **bold _and italic_**")
    assert line[0] == Span("both", bold=True, italic=True)
    assert line[-1] == Span("and italic", bold=True, italic=True)


def test_a_link_carries_its_url_over_its_styled_label():
    (line,) = parse("see [the **docs**](https://example.org/a?b=1) now")
    assert line == (
        Span("see "),
        Span("the ", link="https://example.org/a?b=1"),
        Span("docs", bold=True, link="https://example.org/a?b=1"),
        Span(" now"),
    )


def test_block_syntax_at_a_line_start_stays_literal():
    text = "# Title\n- item\n> quote\n1. first\n---"
    assert plain(text) == text
    assert all(len(line) == 1 and not line[0].bold for line in parse(text))


def test_newlines_are_line_breaks():
    assert [[s.text for s in line] for line in parse("one\n**two**\n\nfour")] == [["one"], ["two"], [], ["four"]]


def test_backslash_escapes_keep_the_character():
    (line,) = parse(r"\*not italic\* and \_not\_ and \[x\](y) and a\\b")
    assert line == (Span("*not italic* and _not_ and [x](y) and a\\b"),)


def test_unclosed_markers_and_intraword_underscores_are_literal():
    assert plain("2 * 3 ** 4 and snake_case_name") == "2 * 3 ** 4 and snake_case_name"


def test_html_and_backticks_are_literal():
    assert plain("<b>x</b> `code`") == "<b>x</b> `code`"


def test_links_lists_every_destination():
    assert links("[a](https://a.org) [b](mailto:b@c.org) [c](http://c.org)") == [
        "https://a.org",
        "mailto:b@c.org",
        "http://c.org",
    ]


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", "ftp://x.org", "relative/page", "data:x"])
def test_other_schemes_are_refused_naming_the_allowed_ones(url):
    with pytest.raises(ValueError, match="https:, http: or mailto:"):
        check_links(f"[click]({url})")
    with pytest.raises(ValueError, match="https:, http: or mailto:"):
        check_link(url)


def test_allowed_schemes_pass():
    check_links("[a](HTTPS://a.org) [b](mailto:b@c.org)")
    assert check_link("http://x.org") == "http://x.org"


@pytest.mark.parametrize("value", ["**not bold**", "[x](https://a.org)", "a\\b_c_ ~~d~~ {brace}", "# 1. - >"])
def test_an_escaped_value_stays_literal_inside_markup(value):
    (line,) = parse(f"**Dear** {escape(value)}!")
    assert line == (Span("Dear", bold=True), Span(f" {value}!"))


def test_tabs_and_carriage_returns_are_normalised_as_in_plain_text():
    assert plain("a\tb\r\nc\rd") == "a    b\nc\nd"
