"""Tests for the bundled Tabler outline-icon catalog (engine.media.icons)."""

from __future__ import annotations

import io
import re

import numpy as np
import pikepdf
import pypdfium2.raw as pdfium_c
import pytest
from reportlab.pdfgen.canvas import Canvas

from engine.media import icons
from tests.pdf_probes import page_image, page_object_types

PAGE = 400.0
# Deliberately not square: the icon must be fitted to 100x100 and centred horizontally.
BOX = (100.0, 120.0, 200.0, 100.0)  # x, y (bottom-left, PDF coords), w, h


def _pdf_with_icon(icon_id: str = "star", color: str = "#ff0000", **kw: object) -> bytes:
    buf = io.BytesIO()
    # Courier as the canvas font, so any stray font the icon drawing adds (e.g. renderPDF's
    # default Helvetica) shows up as a second font in the PDF.
    c = Canvas(buf, pagesize=(PAGE, PAGE), initialFontName="Courier")
    icons.draw_icon(c, icon_id, *BOX, color=color, **kw)
    c.showPage()
    c.save()
    return buf.getvalue()


def _rgb(pdf: bytes) -> np.ndarray:
    """The first page at 72 dpi, on white: one pixel a point."""
    return np.asarray(page_image(pdf, dpi=72), dtype=np.int16)


def _box_px(x: float, y: float, w: float, h: float) -> tuple[slice, slice]:
    """(rows, cols) of a PDF-coordinate box in the scale-1 bitmap (y axis flipped)."""
    return slice(int(PAGE - y - h), int(PAGE - y)), slice(int(x), int(x + w))


def test_catalog_size_and_known_ids() -> None:
    ids = icons.icon_ids()
    assert len(ids) > 4000
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for name in ("star", "check", "mail"):
        assert name in ids and icons.has_icon(name)
    assert not icons.has_icon("definitely-not-an-icon")
    assert re.fullmatch(r"\d+\.\d+\.\d+", icons.catalog_version())


def test_icon_svg_resolves_current_color_and_stroke_width() -> None:
    raw = icons.icon_svg("star")
    assert raw.startswith("<svg") and "\n" not in raw
    assert "currentColor" not in raw and 'stroke="#000000"' in raw
    red = icons.icon_svg("star", color="#ff0000", stroke_width=1.5)
    assert "currentColor" not in red and 'stroke="#ff0000"' in red
    assert 'stroke-width="1.5"' in red and 'stroke-width="2"' not in red
    # Icons with filled dots use fill="currentColor" too; it must be resolved as well.
    filled = [i for i in icons.icon_ids() if 'fill="currentColor"' in icons._raw_svg(i)]
    assert filled, "expected some icons with fill=currentColor"
    assert 'fill="#00ff00"' in icons.icon_svg(filled[0], color="#00ff00")


def test_unknown_id_raises_keyerror_with_close_matches() -> None:
    with pytest.raises(KeyError) as exc:
        icons.icon_svg("stra")
    msg = str(exc.value)
    assert "stra" in msg and "star" in msg
    with pytest.raises(KeyError, match="did you mean"):
        icons.draw_icon(Canvas(io.BytesIO()), "mial", 0, 0, 10, 10)
    with pytest.raises(KeyError):
        icons.icon_drawing("zzzzzzzzzzzz")


def test_icon_drawing_is_cached_and_in_viewbox_units() -> None:
    d1 = icons.icon_drawing("check", "#123456")
    assert icons.icon_drawing("check", "#123456") is d1
    assert icons.icon_drawing("check", "#654321") is not d1
    assert (d1.width, d1.height) == (24, 24)
    x0, y0, x1, y1 = d1.getBounds()
    assert 0 <= x0 < x1 <= 24 and 0 <= y0 < y1 <= 24


def test_draw_icon_star_red_inside_box_white_outside() -> None:
    px = _rgb(_pdf_with_icon("star", "#ff0000"))
    rows, cols = _box_px(*BOX)
    inside = px[rows, cols]
    r, g, b = inside[..., 0], inside[..., 1], inside[..., 2]
    red = (r > 180) & (g < 90) & (b < 90)
    assert red.sum() > 500, "expected a red star inside the box"
    # Nothing but red ink / anti-aliased red-on-white: green never exceeds blue by much, etc.
    assert not ((g < 200) & (r < 150)).any(), "non-red ink inside the box"

    outside = px.copy()
    # 1px margin for anti-aliasing at the box edge.
    outside[rows.start - 1 : rows.stop + 1, cols.start - 1 : cols.stop + 1] = 255
    assert (outside == 255).all(), "ink outside the icon box"

    # Fitted (aspect preserved) and centred: the star spans x 2..22 of 24, so its ink lies in
    # the centred 100x100 square (x 150..250) and is horizontally centred on x = 200.
    _, xs = np.nonzero(red)
    xs = xs + cols.start
    assert xs.min() >= 150 and xs.max() <= 250
    assert abs((xs.min() + xs.max()) / 2 - 200) <= 2
    assert xs.max() - xs.min() > 70  # scaled up to the box, not left at 24pt


def test_stroke_width_changes_ink() -> None:
    thin = _rgb(_pdf_with_icon("mail", "#000000", stroke_width=1))
    thick = _rgb(_pdf_with_icon("mail", "#000000", stroke_width=3))
    ink = lambda a: (a.mean(axis=2) < 128).sum()
    assert ink(thick) > 2 * ink(thin) > 0


def test_draw_icon_is_vector_and_adds_no_font() -> None:
    pdf = _pdf_with_icon("star", "#ff0000")
    kinds = page_object_types(pdf)
    assert pdfium_c.FPDF_PAGEOBJ_PATH in kinds
    assert pdfium_c.FPDF_PAGEOBJ_IMAGE not in kinds

    with pikepdf.open(io.BytesIO(pdf)) as p:
        page = p.pages[0]
        xobjects = page.Resources.get("/XObject", {})
        assert len(xobjects) == 0
        fonts = page.Resources.get("/Font", {})
        base = {str(f.BaseFont) for f in fonts.values()}
        # Only the canvas's own initial font; renderPDF's default Helvetica must not appear.
        assert base <= {"/Courier"}, base
