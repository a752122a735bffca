"""Every process-wide cache of the engine, in one place (issue 32), with its bound and figures.

A render is pure, but what it works out from its inputs is kept for the next one (the same
design drawn for another row, a preview after an edit): shaped runs, line breaks, laid-out
texts, embedded font subsets, compiled forms, prepared images. Each is bounded, by entries
or by bytes, since most are keyed by what users write; and each is safe to share between
the threads a service renders on: functools.lru_cache (locked inside), or an LRU of its own
under a lock. A memo of a function that takes no arguments holds one value; one keyed by a
face or a font file of the catalog is bounded by the catalog.

`caches()` lists them; tests/engine/render/test_caches.py checks that every cached function of the engine is
listed here, and bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import fonts
from .design import colors, expressions
from .elements import barcode, chart, qr, table, table_rows, text
from .finishing import einvoice
from .finishing.added_pages import CLEANED
from .fonts import form_font
from .fonts.embedding import SUBSETS
from .media import icons
from .media.images import ImageLibrary
from .memo import TextCache
from .pdf import reportlab_internals, structure_tree
from .render.form_cache import FORMS
from .text import breaking, formatting, markup, placeholders, richtext, shaping, typeset, words


@dataclass(frozen=True)
class CacheInfo:
    name: str  # where it lives: "engine.text.shaping.shape"
    holds: str
    bound: int
    unit: str  # "entries", "bytes" or "characters"
    size: int  # now, in the unit
    hits: int | None = None
    misses: int | None = None


# The cached functions, with what each keeps.
FUNCTIONS: tuple[tuple[Callable[..., Any], str], ...] = (
    (shaping.base_level, "a paragraph's bidi level, per text and direction"),
    (shaping.levels, "each character's bidi level, per text"),
    (shaping.shape, "HarfBuzz's glyphs, per run of text, face, direction, script and language"),
    (shaping._line_runs, "a line's shaped runs in visual order"),
    (shaping.break_units, "a paragraph cut at its line-break opportunities"),
    (shaping._class_of, "a character's line-break class"),
    (shaping._short_piece_units, "a short piece between sure breaks, cut at its opportunities"),
    (shaping.clusters, "a text's grapheme clusters"),
    (shaping._hb_font, "HarfBuzz's font, per face"),
    (shaping._outline, "a glyph's outline as PDF path operators, per face"),
    (words.shaped, "a word of the simple scripts shaped and encoded, per face, language and features"),
    (words._width, "a text's width as drawn, per style"),
    (words.pair_kerning, "the figures a face kerns pair by pair, and their kerning"),
    (words._joined, "a line's one text operator, where every glyph has an ASCII code"),
    (words._gathered, "a line's glyphs in runs of one face, with what moves them"),
    (breaking.hyphenator, "the hyphenation patterns of a language"),
    (breaking.hyphenation_points, "where a word may be hyphenated, per language"),
    (typeset.breaker_for, "a line breaker, per text style"),
    (typeset._wrap_cached, "a text's lines, per style and width"),
    (typeset.pdf_number, "a number as ReportLab writes it"),
    (typeset.fill_operator, "the fill operator of a colour"),
    (richtext.span_style, "the style of a span of rich text"),
    (richtext.wrap, "rich text's lines, per style and width"),
    (markup.parse, "the spans of a text's markup"),
    (markup._parser, "the markdown parser"),
    (markup._links, "the links of a text's markup, by the text's digest"),
    (placeholders.parse, "the placeholders of a text"),
    (fonts._catalog, "the font catalog"),
    (fonts.face, "a face, per family, weight and slant asked for"),
    (fonts._face, "a face, per font file of the catalog"),
    (fonts.scripts_of, "the scripts a family covers"),
    (fonts.family_for_script, "the fallback family of a script and language"),
    (fonts._char_scripts, "a character's scripts"),
    (fonts.runs, "a text cut where its face changes"),
    (fonts.string_width, "a text's width"),
    (fonts.install_defaults, "ReportLab's default font, set once"),
    (form_font.form_font, "a catalog face cut to Windows-1252, what form fields are typed in"),
    (colors.to_rl, "ReportLab's colour of a hex colour"),
    (colors.parse_gradient, "a parsed gradient"),
    (icons.icon_drawing, "an icon's drawing, per id, colour and stroke"),
    (structure_tree._icc_bytes, "the sRGB profile"),
    (reportlab_internals._subset_tag_of, "a font subset's tag, per font, codes and meanings"),
    (structure_tree._xmp_of, "a tagged document's XMP, per document info"),
    (structure_tree._name, "a PDF name"),
    (einvoice._schema, "a Factur-X level's schema"),
    (einvoice._template, "the Factur-X XMP template"),
    (einvoice._xmp_descriptions, "a Factur-X level's XMP properties"),
    (text._layout, "a text element's lines"),
    (text._rich_layout, "a rich text element's lines"),
    (text._fitted, "a text fitted to its box"),
    (table._grid_cached, "a table's laid-out grid"),
    (table_rows._design_rows, "a typed table's rows computed on its own data (no generation)"),
    (table_rows.formatter_for, "a typed column's shown values, per type, pattern, locale and currency"),
    (expressions.parse, "an expression's syntax tree"),
    (formatting.number_formatter, "a typed column's number formatter, per type, pattern, locale and currency"),
    (expressions.check, "an expression checked against the names it may read"),
    (barcode.bars, "a barcode's bars"),
    (barcode._bars_path, "a barcode's path"),
    (barcode.matrix, "a 2-D barcode's modules"),
    (barcode._matrix_path, "a 2-D barcode's path"),
    (qr.module_runs, "a QR code's modules"),
    (qr._modules_path, "a QR code's path"),
    (chart.label_style, "a chart's label style, per family, size, alignment and role"),
    (chart._percent, "a pie slice's share as a percentage, per locale"),
    (chart._locale, "the locale a chart's numbers are formatted in, per design language"),
)


def _catalog_files() -> int:
    return sum(len(entry.files) for entry in fonts.families())


def _function_info(function: Any, holds: str) -> CacheInfo:
    info = function.cache_info()
    if isinstance(function, TextCache):  # bounded by the characters it holds, not by entries
        name = f"{function.__module__}.{function.__qualname__}"
        return CacheInfo(name, holds, info.max_characters, "characters", info.characters, info.hits, info.misses)
    bound = info.maxsize
    if bound is None:
        # Unbounded only when its inputs are a closed set: none, or the catalog's font files.
        bound = _catalog_files() if function is fonts._face else 1
    name = f"{function.__module__}.{function.__qualname__}"
    return CacheInfo(name, holds, bound, "entries", info.currsize, info.hits, info.misses)


def caches() -> list[CacheInfo]:
    """Every process-wide cache, its bound and its figures now."""
    forms, subsets, formatted = FORMS.stats(), SUBSETS.stats(), len(structure_tree.FORMATTED)
    cleaned = CLEANED.stats()
    return [
        *(_function_info(function, holds) for function, holds in FUNCTIONS),
        CacheInfo(
            "engine.render.form_cache.FORMS",
            "compiled forms, per run of static drawing",
            FORMS.capacity_bytes,
            "bytes",
            forms["bytes"],
            forms["hits"],
            forms["misses"],
        ),
        CacheInfo(
            "engine.fonts.embedding.SUBSETS",
            "embedded font subsets' objects",
            SUBSETS.capacity,
            "bytes",
            subsets["bytes"],
            subsets["hits"],
            subsets["misses"],
        ),
        CacheInfo(
            "engine.finishing.added_pages.CLEANED",
            "appended and prepended PDFs cleaned and checked, per content, pages and profile",
            CLEANED.capacity,
            "bytes",
            cleaned["bytes"],
            cleaned["hits"],
            cleaned["misses"],
        ),
        CacheInfo(
            "engine.media.images.ImageLibrary",
            "prepared images (decoded, compressed), per content and crop",
            ImageLibrary.CAPACITY,
            "entries",
            ImageLibrary.shared_stats()["entries"],
        ),
        CacheInfo(
            "engine.media.images.ImageLibrary.placed_page",
            "pages of PDFs made into forms (engine.media.pdf_pages), per content and page",
            ImageLibrary.PAGES_CAPACITY,
            "entries",
            ImageLibrary.shared_stats()["pages"],
        ),
        CacheInfo(
            "engine.pdf.structure_tree.FORMATTED",
            "objects of the tagged profiles formatted once (sRGB profile, metadata)",
            structure_tree.FORMATTED_MAX,
            "entries",
            formatted,
        ),
    ]


__all__ = ["FUNCTIONS", "CacheInfo", "caches"]
