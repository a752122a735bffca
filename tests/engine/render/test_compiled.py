"""Compiled designs (issue 20, engine.render.form_cache): what every row of a design draws the same is
drawn once per design version as a Form XObject; the documents read and look exactly as when
every element is drawn on the page, in every case the forms cannot carry too."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import numpy as np
import pikepdf
import pytest

from engine import DesignTree, RenderOptions, apply, new_design, render_pdf, render_png
from engine.render import form_cache as compiled
from tests.pdf_probes import page_images, pdf_text
from workbench import samples


@pytest.fixture(autouse=True)
def fresh_forms() -> Iterator[None]:
    compiled.FORMS.clear()
    yield
    compiled.FORMS.clear()


@pytest.fixture
def every_run_a_form(monkeypatch) -> None:
    """Small test designs' runs compiled too, however few operators they write."""
    monkeypatch.setattr(compiled, "WORTH_A_FORM", 0)


def shown(content: bytes) -> bytes:
    """A content stream with each TJ array's strings joined across their kerning numbers."""
    return re.sub(rb"\)\s*-?[\d.]+\s*\(", b"", content)


def plain_and_compiled(tree, row, resolver=samples.resolver) -> tuple[bytes, bytes]:
    plain = render_pdf(tree, row, resolver, options=RenderOptions(compiled_forms=False))
    return plain, render_pdf(tree, row, resolver)


def pages(pdf: bytes) -> list[tuple[str, np.ndarray]]:
    """Each page's extracted text and its pixels at 72 dpi."""
    return [(text, np.asarray(image)) for text, image in zip(pdf_text(pdf), page_images(pdf, dpi=72), strict=True)]


def assert_same_document(plain: bytes, compiled_pdf: bytes) -> None:
    expected, got = pages(plain), pages(compiled_pdf)
    assert len(got) == len(expected)
    for (text, pixels), (text_got, pixels_got) in zip(expected, got, strict=True):
        assert text_got == text
        assert np.array_equal(pixels_got, pixels)


def form_texts(pdf: bytes, page: int = 0) -> list[bytes]:
    """The content of each Form XObject the page draws."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        xobjects = document.pages[page].Resources.get("/XObject", {})
        return [x.read_bytes() for x in xobjects.values() if x.get("/Subtype") == "/Form"]


def page_operators(pdf: bytes, page: int = 0) -> list[str]:
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return [str(op) for _, op in pikepdf.parse_content_stream(document.pages[page])]


@pytest.mark.parametrize(
    "design,row",
    [
        (samples.certificate, samples.certificate_row(3)),
        (samples.invoice, samples.invoice_row(3)),
        (samples.paged_invoice, samples.paged_invoice_row(3, paid=True)),
        (samples.flowing_letter, samples.flowing_letter_row()),
        (samples.fitted_certificate, samples.fitted_certificate_row(3)),
    ],
    ids=["certificate", "invoice", "paged-invoice", "flowing-letter", "fitted-certificate"],
)
def test_a_compiled_document_reads_and_looks_as_one_drawn_element_by_element(design, row):
    tree = design()
    plain, with_forms = plain_and_compiled(tree, row)
    assert not form_texts(plain)
    assert_same_document(plain, with_forms)


def test_a_form_drawn_on_one_path_is_not_placed_by_a_render_on_another():
    """The forms are kept by the options too: text objects drawn by ReportLab (direct_text
    off) are not the operators the direct path wrote, and the bytes never depend on which
    path the process rendered the design with before."""
    tree, row, general = samples.certificate(), samples.certificate_row(4), RenderOptions(direct_text=False)
    render_pdf(tree, row, samples.resolver)
    after_fast = render_pdf(tree, row, samples.resolver, options=general)
    compiled.FORMS.clear()
    assert render_pdf(tree, row, samples.resolver, options=general) == after_fast
    assert form_texts(after_fast)


def test_a_run_too_small_to_pay_for_a_form_is_drawn_on_the_page():
    """The invoice's static runs are a one-word heading and the logo (already one shared image)."""
    pdf = render_pdf(samples.invoice(), samples.invoice_row(3), samples.resolver)
    assert not form_texts(pdf)
    assert compiled.FORMS.stats()["forms"] == 2  # both runs remembered as not worth a form


def test_the_certificate_draws_its_static_text_and_logo_from_forms_and_its_values_on_the_page():
    tree = samples.certificate()
    pdf = render_pdf(tree, samples.certificate_row(5), samples.resolver)
    shared = shown(b"\n".join(form_texts(pdf)))
    assert b"Certificate of Excellence" in shared and b" Do" in shared  # the title; the logo image
    with pikepdf.open(io.BytesIO(pdf)) as document:
        page_stream = shown(document.pages[0].Contents.read_bytes())
    assert b"Recipient Number 5" in page_stream and b"Certificate of Excellence" not in page_stream
    # Two forms: the border and title before the recipient's name, the paragraph and logo after it.
    assert page_operators(pdf).count("Do") == 2


def test_forms_are_compiled_once_per_design_and_shared_by_every_row_and_preview():
    tree = samples.certificate()
    for i in range(5):
        render_pdf(tree, samples.certificate_row(i), samples.resolver)
    stats = compiled.FORMS.stats()
    assert stats["misses"] == 2 and stats["hits"] == 8
    # A preview with values, and a copy of the same version loaded again (as a request does), use them.
    loaded_again = DesignTree.model_validate_json(tree.model_dump_json())
    render_png(loaded_again, 0, samples.resolver, 96, values=samples.certificate_row(9))
    assert compiled.FORMS.stats()["misses"] == 2


def test_the_same_row_gives_the_same_bytes_whether_the_forms_are_cached_or_not():
    tree, row = samples.invoice(), samples.invoice_row(11)
    cold = render_pdf(tree, row, samples.resolver)
    warm = render_pdf(tree, row, samples.resolver)
    compiled.FORMS.clear()
    assert render_pdf(DesignTree.model_validate_json(tree.model_dump_json()), row, samples.resolver) == cold == warm


def retitled(tree: DesignTree, title: str) -> DesignTree:
    update = {"id": tree.node_by_name("title").id, "data": {"content": title}}
    return apply(tree, [{"type": "update_element", "args": update}])[0]


def test_an_edit_never_draws_an_old_form():
    tree = samples.certificate()
    render_pdf(tree, samples.certificate_row(1), samples.resolver)
    edited = retitled(tree, "Diploma")
    pdf = render_pdf(edited, samples.certificate_row(1), samples.resolver)
    shared = shown(b"\n".join(form_texts(pdf)))
    assert b"Diploma" in shared and b"Certificate of Excellence" not in shared


def test_a_design_drawn_without_values_and_the_tagged_profiles_draw_on_the_page():
    tree, row = samples.certificate(), samples.certificate_row(2)
    assert not form_texts(render_pdf(tree, None, samples.resolver))
    for profile in ("accessible", "pdf-a"):
        assert not form_texts(render_pdf(tree, row, samples.resolver, profile))


def _design_with(*elements: dict):
    actions = [{"type": "add_element", "args": element} for element in elements]
    actions.append({"type": "bind_variable", "args": {"name": "name"}})
    return apply(new_design(size="A5", title="Test"), actions)[0]


NAME = {"type": "text", "name": "name", "position": {"x": 40, "y": 200}, "data": {"content": "Someone"}}


def test_static_text_beyond_ascii_is_drawn_on_the_page_and_reads_the_same(every_run_a_form):
    """ReportLab gives a character outside ASCII its code in order of first use per document,
    so a form holding one could not be shared: that run is drawn the ordinary way."""
    tree = _design_with(
        {"type": "text", "name": "title", "position": {"x": 40, "y": 40}, "data": {"content": "Café – Zürich"}},
        NAME,
    )
    plain, with_forms = plain_and_compiled(tree, {"name": "Zoë Ångström"})
    assert_same_document(plain, with_forms)
    assert not form_texts(with_forms)
    assert "Café – Zürich" in pages(with_forms)[0][0]


def test_transparency_and_a_link_keep_their_place_and_look(every_run_a_form):
    tree = _design_with(
        {
            "type": "shape",
            "name": "veil",
            "position": {"x": 20, "y": 20, "w": 200, "h": 100},
            "data": {"shapeType": "rectangle"},
            "styles": {"fill": "#1f4e8c", "opacity": 0.4},
        },
        {
            "type": "text",
            "name": "site",
            "position": {"x": 40, "y": 140},
            "data": {"content": "docbench.example", "link": "https://docbench.example"},
        },
        NAME,
    )
    plain, with_forms = plain_and_compiled(tree, {"name": "Ada"})
    assert_same_document(plain, with_forms)
    (veil,) = form_texts(with_forms)
    assert b" gs" in veil  # the opacity travels with the form, as its own ExtGState
    with pikepdf.open(io.BytesIO(with_forms)) as document:
        page = document.pages[0]
        assert [str(a.A.URI) for a in page.Annots] == ["https://docbench.example"]
    assert b"docbench.example" not in veil  # a linked element is drawn on the page, by its annotation


def test_the_cache_keeps_to_its_size_dropping_the_least_recently_used():
    cache = compiled.FormCache(capacity_bytes=20_000)
    tree = samples.certificate()
    original = compiled.FORMS
    compiled.FORMS = cache
    try:
        render_pdf(tree, samples.certificate_row(1), samples.resolver)
        first = cache.stats()
        assert first["forms"] == 2 and first["bytes"] <= 20_000
        cache.capacity_bytes = first["bytes"] + 1000  # no room for a second title's form
        for k in range(3):  # other versions push the first out
            render_pdf(retitled(tree, f"Award {k}"), samples.certificate_row(1), samples.resolver)
            assert cache.stats()["bytes"] <= cache.capacity_bytes
        render_pdf(tree, samples.certificate_row(2), samples.resolver)
        # The first title's run compiled again (the paragraph and logo's run, the same in every
        # version, stayed in use).
        assert cache.stats()["misses"] == first["misses"] + 3 + 1
    finally:
        compiled.FORMS = original


def _logo(colour: tuple[int, int, int]) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (40, 40), colour).save(out, format="PNG")
    return out.getvalue()


def test_an_image_whose_bytes_change_under_the_same_ref_is_drawn_anew(every_run_a_form):
    """An asset replaced under its ref (or another resolver) must not find the old form."""
    tree = _design_with(
        {
            "type": "image",
            "name": "logo",
            "position": {"x": 20, "y": 20, "w": 80, "h": 80},
            "data": {"src": "assets:logo"},
        },
        NAME,
    )
    for colour in ((255, 0, 0), (0, 0, 255)):
        data = _logo(colour)
        pdf = render_pdf(tree, {"name": "Ada"}, lambda ref, data=data: data)
        pixel = pages(pdf)[0][1][60, 60]
        assert tuple(pixel) == colour


def test_two_runs_alike_but_for_their_opacity_keep_their_own(every_run_a_form):
    veil = {"position": {"x": 20, "y": 20, "w": 200, "h": 100}, "data": {"shapeType": "rectangle"}}
    tree = _design_with(
        {"type": "shape", "name": "light", **veil, "styles": {"fill": "#000000", "opacity": 0.2}},
        NAME,
        {"type": "shape", "name": "dark", **veil, "styles": {"fill": "#000000", "opacity": 0.7}},
    )
    plain, with_forms = plain_and_compiled(tree, {"name": "Ada"})
    assert len(form_texts(with_forms)) == 2
    assert_same_document(plain, with_forms)


def test_a_tree_changed_in_place_draws_its_change():
    tree = samples.certificate()
    render_pdf(tree, samples.certificate_row(1), samples.resolver)
    tree.node_by_name("title").styles.color = "#ff0000"
    pdf = render_pdf(tree, samples.certificate_row(1), samples.resolver)
    assert b"1 0 0 rg" in b"\n".join(form_texts(pdf))
