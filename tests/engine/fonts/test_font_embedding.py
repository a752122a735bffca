"""Font subsets embedded from the process-wide cache (engine.fonts.embedding): the bytes are
the same whether the cache is cold, warm, or not used at all (reportlab_internals.TrueTypeFont
makes every subset anew; tests/engine/pdf/test_reportlab_contract.py checks that it writes what
ReportLab's own TTFont writes)."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator

import pikepdf
import pytest
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas

from engine import render_pdf
from engine.fonts import embedding
from engine.fonts.embedding import EmbeddedSubset, EmbeddedTTFont
from engine.memo import SizedLRU
from engine.pdf import reportlab_internals
from engine.pdf.reportlab_internals import TrueTypeFont
from engine.text import shaping
from engine.text.typeset import TextStyle
from tests.paths import DATA
from tests.pdf_probes import pdf_text
from workbench import samples

from ...conftest import add, build

LANGUAGES = {
    entry["lang"]: entry["text"]
    for entry in json.loads((DATA / "udhr_article1.json").read_text())["languages"]
}
# Arabic (joined forms: glyphs no character maps to, drawn with engine.text.shaping's private
# codes, whose ToUnicode entries say what each stands for in the document), Chinese and
# Japanese (subsets past the first).
LANGUAGES["ar"] = "مرحبا بالعالم 123 مرحبا"
NON_LATIN = ("ar", "zh-Hans", "ja")


def _non_latin_design(first: int = 0):
    """One text element per language, the first `first` characters cut off each (so the
    subsets' code lists differ from one document to the next)."""
    actions = [
        add(
            "text",
            f"T{index}",
            {"x": 30, "y": 30 + 110 * index, "maxWidth": 520},
            {"content": LANGUAGES[lang][first:]},
            {"fontSize": 12},
        )
        for index, lang in enumerate(NON_LATIN)
    ]
    return build(actions, title="Every script")


@contextlib.contextmanager
def uncached_embedding() -> Iterator[None]:
    """The registered fonts make every subset anew (reportlab_internals.TrueTypeFont)."""
    fonts = map(pdfmetrics.getFont, pdfmetrics.getRegisteredFontNames())
    ours = [font for font in fonts if type(font) is EmbeddedTTFont]
    for font in ours:
        font.__class__ = TrueTypeFont
    try:
        yield
    finally:
        for font in ours:
            font.__class__ = EmbeddedTTFont


def _three_ways(render) -> tuple[bytes, bytes, bytes]:
    """(cache cold, cache warm, uncached) for the same render."""
    embedding.SUBSETS.clear()
    cold = render()
    warm = render()
    with uncached_embedding():
        uncached = render()
    return cold, warm, uncached


def _font_objects(pdf: bytes) -> int:
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return sum(1 for obj in document.objects if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/Font")


@pytest.mark.parametrize("profile", ["standard", "pdf-a"])
@pytest.mark.parametrize("document", ["certificate", "invoice"])
def test_reference_documents_are_byte_identical_cold_warm_and_uncached(document, profile):
    tree = getattr(samples, document)()
    row = getattr(samples, f"{document}_row")
    for index in (0, 7):
        cold, warm, uncached = _three_ways(lambda: render_pdf(tree, row(index), samples.resolver, profile))  # noqa: B023
        assert cold == warm == uncached
        assert _font_objects(cold) >= 2


def test_warm_render_takes_every_subset_from_the_cache():
    tree = samples.certificate()
    embedding.SUBSETS.clear()
    render_pdf(tree, samples.certificate_row(1), samples.resolver)
    built = embedding.SUBSETS.misses
    assert built >= 2 and embedding.SUBSETS.hits == 0
    # Another row, the same characters outside ASCII (none): the same subsets.
    render_pdf(tree, samples.certificate_row(2), samples.resolver)
    assert embedding.SUBSETS.misses == built
    assert embedding.SUBSETS.hits == built


def test_non_latin_document_is_byte_identical_and_reads_back():
    tree = _non_latin_design()
    cold, warm, uncached = _three_ways(lambda: render_pdf(tree))
    assert cold == warm == uncached
    text = "".join(pdf_text(cold)).replace("\r\n", " ").replace(" ", "")
    assert LANGUAGES["ja"][:12].replace(" ", "") in text
    assert LANGUAGES["ar"].split()[0] in text


def test_different_text_gets_its_own_subsets_not_a_stale_one():
    # The same design with other text: other code lists, other glyphs, other ToUnicode maps.
    first, second = _non_latin_design(), _non_latin_design(first=5)
    embedding.SUBSETS.clear()
    render_pdf(first)
    cached_second = render_pdf(second)
    with uncached_embedding():
        assert render_pdf(second) == cached_second


def test_tagged_non_latin_document_is_byte_identical():
    tree = _non_latin_design()
    cold, warm, uncached = _three_ways(lambda: render_pdf(tree, profile="accessible"))
    assert cold == warm == uncached


def _entry(size: int) -> EmbeddedSubset:
    return EmbeddedSubset(font=(b"x" * size,), to_unicode=b"", font_file=b"", descriptor=(b"",))


def test_cache_is_bounded_by_bytes_and_drops_the_least_recently_used():
    cache = SizedLRU(1000, lambda subset: subset.size)  # as embedding.SUBSETS is, with less room
    cache.put("a", _entry(400))
    cache.put("b", _entry(400))
    assert cache.get("a") is not None  # a is now the most recently used
    cache.put("c", _entry(400))
    assert cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None
    assert cache.size == 800 <= cache.capacity
    cache.put("huge", _entry(5000))  # larger than the whole cache: not kept
    assert cache.get("huge") is None and len(cache) == 2


def _to_unicode_texts(pdf: bytes) -> list[str]:
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return [
            obj.ToUnicode.read_bytes().decode("latin-1")
            for obj in document.objects
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/Font" and "/ToUnicode" in obj
        ]


def test_a_subset_whose_private_codes_mean_other_text_is_not_taken_from_the_cache():
    """The same glyphs under the same codes, but in the second document the private codes were
    first drawn for other text (reportlab_internals.glyph_meanings): its ToUnicode map says so,
    though the first document's subset is in the cache."""
    content = "مرحبا بالعالم"
    style = TextStyle(family="Noto Sans Arabic", size=24)
    placed = shaping.line_runs([shaping.Segment(content, style)], rtl=True)
    face = style.face

    def draw(meaning: str | None) -> bytes:
        buffer = io.BytesIO()
        canvas = Canvas(buffer, invariant=1)
        if meaning is not None:
            meanings = reportlab_internals.glyph_meanings(reportlab_internals.document_of(canvas), face.name)
            meanings.update(dict.fromkeys(reportlab_internals.private_codes(face.name).values(), meaning))
        shaping.draw_line(canvas, placed, 20, 100, content)
        canvas.showPage()
        canvas.save()
        return buffer.getvalue()

    embedding.SUBSETS.clear()
    first = draw(None)
    assert reportlab_internals.private_codes(face.name)  # the text has glyphs no character maps to
    other = draw("\u2603")
    marked = "<" + "\u2603".encode("utf-16-be").hex().upper() + ">"
    assert not any(marked in cmap for cmap in _to_unicode_texts(first))
    assert any(marked in cmap for cmap in _to_unicode_texts(other))
    with uncached_embedding():
        assert draw("\u2603") == other
