"""Inline Markdown of text elements (extensions.md 3): styled spans, one tuple per line.

Only inline syntax is read: `**bold**` / `__bold__`, `*italic*` / `_italic_`,
`~~strike~~`, `[label](url)` and backslash escapes. Block syntax (`#`, `-`, `>`, `1.` at a
line's start) stays literal because each line is parsed on its own with markdown-it's
inline parser, which never runs a block rule; `\\n` is a line break.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

from markdown_it import MarkdownIt

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


@lru_cache(maxsize=4096)
def parse(text: str) -> tuple[Line, ...]:
    """The spans of each line of `text` (lines split at newlines)."""
    # As the plain path (typeset.wrap): no font has glyphs for carriage returns or tabs.
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
    return tuple(_parse_line(line) for line in text.split("\n"))


def _parse_line(line: str) -> Line:
    spans: list[Span] = []
    bold = italic = strike = 0  # nesting depths: `***x***` opens two at once
    links: list[str] = []
    for block in _parser().parseInline(line):
        for token in block.children or ():
            kind = token.type
            if kind == "text" and token.content:
                link = links[-1] if links else None
                span = Span(token.content, bold > 0, italic > 0, strike > 0, link)
                last = spans[-1] if spans else None
                if last is not None and (last.bold, last.italic, last.strike, last.link) == (
                    span.bold,
                    span.italic,
                    span.strike,
                    span.link,
                ):
                    spans[-1] = Span(last.text + span.text, span.bold, span.italic, span.strike, span.link)
                else:
                    spans.append(span)
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
    return tuple(spans)


def links(text: str) -> list[str]:
    """Every link destination in the markup, in order."""
    found: list[str] = []
    for line in parse(text):
        for span in line:
            if span.link is not None and (not found or found[-1] != span.link):
                found.append(span.link)
    return found


def check_links(text: str) -> None:
    """Refuse markup whose links use a scheme other than https:, http: or mailto:."""
    for url in links(text):
        check_link(url)


_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def escape(value: str) -> str:
    """A value to insert into markup that must stay literal (extensions.md 1: values are
    never interpreted): every ASCII punctuation character gets its backslash escape."""
    return "".join("\\" + char if char in _ESCAPABLE else char for char in value)


def plain(text: str) -> str:
    """The text a reader sees: markup removed, lines kept."""
    return "\n".join("".join(span.text for span in line) for line in parse(text))


__all__ = ["LINK_SCHEMES", "Line", "Span", "check_link", "check_links", "escape", "links", "parse", "plain"]
