"""Inline Markdown of text elements (extensions.md 3): styled spans, one tuple per line.

Only inline syntax is read: `**bold**` / `__bold__`, `*italic*` / `_italic_`,
`~~strike~~`, `[label](url)` and backslash escapes. Block syntax (`#`, `-`, `>`, `1.` at a
line's start) stays literal because each line is parsed on its own with markdown-it's
inline parser, which never runs a block rule; `\\n` is a line break.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from markdown_it import MarkdownIt

from ..memo import digest, text_cache, weight

# extensions.md 3: the only schemes a link may use; anything else is refused at add/update.
LINK_SCHEMES = ("https:", "http:", "mailto:")


@dataclass(frozen=True)
class Span:
    """A piece of a line drawn in one style."""

    text: str
    bold: bool = False
    italic: bool = False
    strike: bool = False
    link: str | None = None


Line = tuple[Span, ...]


@cache
def _parser() -> MarkdownIt:
    # The "zero" preset enables no syntax; these are the inline rules the spec names.
    parser = MarkdownIt("zero").enable(["emphasis", "strikethrough", "link", "escape"])
    # Every destination comes through, so a refused scheme is reported (check_links) instead
    # of the link silently turning into literal text, as markdown-it's XSS guard would do.
    parser.validateLink = lambda url: True  # type: ignore[method-assign]
    return parser


def check_link(url: str) -> str:
    """A link URL as given, or ValueError naming the allowed schemes."""
    if not url.strip().lower().startswith(LINK_SCHEMES):
        raise ValueError(
            f"link {url!r} is not allowed: a link starts with https:, http: or mailto: (e.g. https://example.org)"
        )
    return url


# markdown-it's inline parser costs tens of microseconds a character (a 100,000-character
# text takes seconds), and a stored design's texts are checked on every request that reads
# it: parses are kept by text, up to this many characters of texts (issue 31, item 3).
PARSED_CHARACTERS = 4_000_000
# Only these start syntax the enabled rules read (emphasis, strikethrough, link, escape; a
# NUL is replaced): a line without any is one plain span, parsed or not (tests/engine/text/test_markup.py).
_SYNTAX = re.compile(r"[*_~\[\\\0]")


@text_cache(PARSED_CHARACTERS)
def parse(text: str) -> tuple[Line, ...]:
    """The spans of each line of `text` (lines split at newlines)."""
    # As the plain path (typeset.wrap): no font has glyphs for carriage returns or tabs.
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
    return tuple(_parse_line(line) for line in text.split("\n"))


def _parse_line(line: str) -> Line:
    if not _SYNTAX.search(line):
        return (Span(line),) if line else ()
    return _parsed_line(line)


def _parsed_line(line: str) -> Line:
    # Consecutive texts of one style are joined once at the end: joining them as they come
    # copies the span so far for each (quadratic in a line of many escapes or brackets).
    runs: list[tuple[tuple[bool, bool, bool, str | None], list[str]]] = []
    bold = italic = strike = 0  # nesting depths: `***x***` opens two at once
    links: list[str] = []
    for block in _parser().parseInline(line):
        for token in block.children or ():
            kind = token.type
            if kind == "text" and token.content:
                look = (bold > 0, italic > 0, strike > 0, links[-1] if links else None)
                if runs and runs[-1][0] == look:
                    runs[-1][1].append(token.content)
                else:
                    runs.append((look, [token.content]))
            elif kind == "strong_open":
                bold += 1
            elif kind == "strong_close":
                bold -= 1
            elif kind == "em_open":
                italic += 1
            elif kind == "em_close":
                italic -= 1
            elif kind == "s_open":
                strike += 1
            elif kind == "s_close":
                strike -= 1
            elif kind == "link_open":
                links.append(str(token.attrs.get("href", "")))
            elif kind == "link_close":
                links.pop()
    return tuple(Span("".join(texts), *look) for look, texts in runs)


def links(text: str) -> list[str]:
    """Every link destination in the markup, in order."""
    # An inline link is `[label](destination)`: without "](" there is none (reference links
    # need definitions, which inline parsing never has), and nothing to parse.
    return list(_links(text)) if "](" in text else []


# Validation asks only for the links: kept by the text's digest, they cost their URLs alone.
@text_cache(PARSED_CHARACTERS, key=lambda args: digest(args[0]), size=lambda args, found: weight(found) + 16)
def _links(text: str) -> tuple[str, ...]:
    found: list[str] = []
    for line in parse(text):
        for span in line:
            if span.link is not None and (not found or found[-1] != span.link):
                found.append(span.link)
    return tuple(found)


def check_links(text: str) -> None:
    """Refuse markup whose links use a scheme other than https:, http: or mailto:."""
    if _every_destination_allowed(text):
        return
    for url in links(text):
        check_link(url)


def _every_destination_allowed(text: str) -> bool:
    """True when whatever follows each "](" starts with an allowed scheme, written plainly:
    every link's destination is then allowed without parsing the text (a link's destination
    starts after its "](", spaces and an optional "<"; escapes and entities would change
    what it says, so a destination not starting with a plain scheme is left to the parser)."""
    start = text.find("](")
    while start >= 0:
        at = start + 2
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        if text.startswith("<", at):
            at += 1
        if not text[at : at + 7].lower().startswith(LINK_SCHEMES):
            return False
        start = text.find("](", start + 2)
    return True


_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def escape(value: str) -> str:
    """A value to insert into markup that must stay literal (extensions.md 1: values are
    never interpreted): every ASCII punctuation character gets its backslash escape."""
    return "".join("\\" + char if char in _ESCAPABLE else char for char in value)


def plain(text: str) -> str:
    """The text a reader sees: markup removed, lines kept."""
    return "\n".join("".join(span.text for span in line) for line in parse(text))


__all__ = ["LINK_SCHEMES", "Line", "Span", "check_link", "check_links", "escape", "links", "parse", "plain"]
