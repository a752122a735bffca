"""Label sheets in the engine (extensions.md 14): where each page lands, the two ways a page is
placed (spliced from the engine's own PDFs, or through pikepdf for any other PDF), cut marks,
and the refusals."""

from __future__ import annotations

import io

import pikepdf
import pytest

from engine import EngineError, apply, new_design, render_pdf
from engine.finishing.label_sheets import PRESETS, LabelSheet, label_sheets
from engine.pdf.splice import SplicedPage
from tests.pdf_probes import page_count, placed_forms, stroked_segments, syntax_problems, word_box

MM = 72 / 25.4


def label(width: float = 63.5 * MM, height: float = 38.1 * MM):
    actions = [
        {"type": "update_page", "args": {"page": 0, "width": width, "height": height}},
        {"type": "add_element", "args": {"type": "text", "name": "name", "position": {"x": 10, "y": 10}}},
        {"type": "bind_variable", "args": {"name": "name"}},
    ]
    return apply(new_design(title="Label"), actions)[0]


def rows(count: int, width: float = 63.5 * MM, height: float = 38.1 * MM) -> list[bytes]:
    tree = label(width, height)
    return [render_pdf(tree, {"name": f"Label{i:02d}"}) for i in range(count)]


def resaved(pdf: bytes) -> bytes:
    """The same PDF written by qpdf with object streams: not one the splicer reads."""
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(pdf)) as document:
        document.save(out, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    return out.getvalue()


def test_the_engines_pdfs_are_spliced_and_others_are_not():
    pdf = rows(1)[0]
    assert SplicedPage.read(pdf) is not None
    assert SplicedPage.read(resaved(pdf)) is None
    assert SplicedPage.read(b"%PDF-1.4 not really") is None


@pytest.mark.parametrize("through", ["splice", "pikepdf"])
def test_thirty_labels_fill_l7160_cells_in_order_either_way(through):
    documents = rows(30)
    if through == "pikepdf":
        documents[5] = resaved(documents[5])  # one PDF the splicer cannot read: all go through pikepdf
    geometry = PRESETS["L7160"].geometry()
    sheets = label_sheets(documents, geometry, cut_marks=True)
    assert syntax_problems(sheets) == []
    assert page_count(sheets) == 2
    placed = placed_forms(sheets, 0) + placed_forms(sheets, 1)
    for index, box in enumerate(placed):
        left, bottom, right, top = geometry.cell(index)
        # Published: 7.25 mm from the left, 15.15 mm from the top, a 66 × 38.1 mm pitch.
        row, column = divmod(index % 21, 3)
        assert left == pytest.approx((7.25 + 66 * column) * MM, abs=0.01)
        assert top == pytest.approx(841.89 - (15.15 + 38.1 * row) * MM, abs=0.01)
        assert box == pytest.approx((left, bottom, right, top), abs=0.5)
        text = word_box(sheets, f"Label{index:02d}", page=index // 21)
        assert left <= text[0] and text[2] <= right and bottom <= text[1] and text[3] <= top
    assert len(stroked_segments(sheets, 1)) > 0


def test_a_row_of_two_pages_takes_two_labels():
    tree = label()
    two = apply(tree, [{"type": "add_page", "args": {}}])[0]
    sheets = label_sheets([render_pdf(two, {"name": "A"}), rows(1)[0]], PRESETS["L7160"].geometry())
    assert len(placed_forms(sheets)) == 3


def test_a_page_larger_than_a_label_is_refused_naming_both_sizes():
    with pytest.raises(EngineError, match=r"200 × 100 pt .* 180 × 108 pt"):
        label_sheets(rows(1, 200, 100), PRESETS["L7160"].geometry())


def test_an_explicit_sheet_is_symmetric_and_cut_marks_stay_outside_the_labels():
    geometry = LabelSheet(paper="A4", columns=2, rows=2, marginTop=20, marginLeft=30, gapX=10, gapY=0).geometry()
    assert geometry.cell_width == pytest.approx((595.276 - 60 - 10) / 2, abs=0.01)
    assert geometry.cell_height == pytest.approx((841.89 - 40) / 2, abs=0.01)
    sheets = label_sheets(rows(4), geometry, cut_marks=True)
    cells = [geometry.cell(i) for i in range(4)]
    marks = stroked_segments(sheets)
    assert marks
    for x0, y0, x1, y1 in marks:
        for left, bottom, right, top in cells:
            assert max(x0, x1) <= left or min(x0, x1) >= right or max(y0, y1) <= bottom or min(y0, y1) >= top


def test_unknown_presets_and_half_given_geometry_are_refused():
    with pytest.raises(EngineError, match="the presets are L7160"):
        LabelSheet(preset="L0000").geometry()
    assert LabelSheet(preset="avery l7160").geometry() == PRESETS["L7160"].geometry()
    with pytest.raises(ValueError, match="not both"):
        LabelSheet(preset="L7160", rows=3)
