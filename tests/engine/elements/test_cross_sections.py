"""Issue 15's sections working together, checked in real PDFs: markup (extensions.md 3) with
fitting and flow (2), growing elements between repeated headers and footers (4), and the
links of repeated elements in the tagged profiles (3 and 4)."""

from __future__ import annotations

import io

import pikepdf
import pikepdf.pdfa
import pytest

from engine import apply, render_pdf
from engine.elements.text import fitted_text, layout
from engine.render.layout import layout as lay_out_sheets
from tests.pdf_probes import line_rects, page_count, parent_tree, pdf_text, structure, text_in_bands

from ...conftest import action, add, build
from ...pdf_checker import problems
from ...validators import assert_passes_outloud, assert_valid_pdf_a

NAME = "**Maximilian** Alexander *Worthington-Smythe*"
SHOWN_NAME = "Maximilian Alexander Worthington-Smythe"


def fonts_used(pdf: bytes, page: int) -> list[tuple[str, float]]:
    """(font name, size) of every Tf operator drawn on a page, its subset prefix dropped."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        sheet = document.pages[page]
        fonts = sheet.Resources.Font
        return [
            (str(fonts[str(operands[0])].BaseFont).split("+")[-1], float(operands[1]))
            for operands, operator in pikepdf.parse_content_stream(sheet)
            if str(operator) == "Tf"
        ]


# Markup with fitting: the markdown text shrinks and is cut like a plain one.


def text_lines(tree, name: str = "T") -> list:
    """The lines engine.elements.text lays the element out in (rich lines for markdown)."""
    _, _, blocks = layout(tree.node_by_name(name))
    return [line for _, lines in blocks for line in lines]


def line_count(tree) -> int:
    return len(text_lines(tree, "Name"))


def markdown_name(**data):
    return build(
        [
            add(
                "text",
                "Name",
                {"x": 40, "y": 40, "maxWidth": 200},
                {"content": NAME, "markup": "markdown", "maxLines": 1, **data},
                {"fontSize": 36, "fit": "shrink", "fontFamily": "Roboto"},
            )
        ]
    )


def test_a_markdown_name_shrinks_to_one_line_in_its_bold_and_italic_faces():
    tree = markdown_name()
    fitted = fitted_text(tree.node_by_name("Name"))
    assert fitted is not None and 6 <= fitted.style.size < 36
    pdf = render_pdf(tree)
    used = fonts_used(pdf, 0)
    # Every piece is drawn at the fitted size, bold and italic pieces in their faces.
    assert {size for _, size in used} == {fitted.style.size}
    assert {"Roboto-Bold", "Roboto-Italic", "Roboto-Regular"} <= {name for name, _ in used}
    assert " ".join(pdf_text(pdf)[0].split()) == SHOWN_NAME  # the markup's syntax is not drawn
    (left, _, right, _), *_ = line_rects(pdf)
    assert right - left <= 200 + 0.5
    # The next size up on the grid would need a second line.
    assert (
        line_count(
            build(
                [
                    add(
                        "text",
                        "Name",
                        {"x": 40, "y": 40, "maxWidth": 200},
                        {"content": NAME, "markup": "markdown"},
                        {"fontSize": fitted.style.size + 0.5, "fontFamily": "Roboto"},
                    )
                ]
            )
        )
        > 1
    )


SENTENCE = "Plain **bold words** then *slanted ones* and a [link](https://example.org) in a sentence that wraps"


@pytest.mark.parametrize("overflow", ["ellipsis", "clip"])
def test_a_markdown_text_is_cut_to_its_lines_keeping_its_faces(overflow):
    tree = build(
        [
            add(
                "text",
                "T",
                {"x": 40, "y": 40, "maxWidth": 110},
                {"content": SENTENCE, "markup": "markdown", "maxLines": 2, "overflow": overflow},
                {"fontSize": 12, "fontFamily": "Roboto"},
            )
        ]
    )
    unlimited = build(
        [
            add(
                "text",
                "T",
                {"x": 40, "y": 40, "maxWidth": 110},
                {"content": SENTENCE, "markup": "markdown"},
                {"fontSize": 12, "fontFamily": "Roboto"},
            )
        ]
    )
    all_lines = [line.text for line in text_lines(unlimited)]
    assert len(all_lines) > 2
    pdf = render_pdf(tree)
    lines = [line.strip() for line in pdf_text(pdf)[0].replace("\r", "").split("\n") if line.strip()]
    assert len(lines) == 2
    assert lines[0] == all_lines[0]
    assert "Roboto-Bold" in {name for name, _ in fonts_used(pdf, 0)}
    if overflow == "ellipsis":
        assert lines[1].endswith("\u2026")
        assert all_lines[1].startswith(lines[1][:-1].rstrip())
        (_, _, right, _) = max(line_rects(pdf), key=lambda box: box[2])
        assert right - 40 <= 110 + 0.5  # the ellipsised line stays inside the width
    else:
        assert lines[1] == all_lines[1]
    assert "wraps" not in pdf_text(pdf)[0]  # the last line is cut away


# Markup with flow: a markdown text continues on the next sheet.


def markdown_body(paragraph_count: int) -> str:
    """One word a line in the narrow box: five lines a paragraph, its first word in bold."""
    return "\n".join(
        " ".join(f"**p{p:02d}l0**" if line == 0 else f"p{p:02d}l{line}" for line in range(5))
        for p in range(paragraph_count)
    )


def flowing_markdown():
    """A letter whose body (a variable, designed one line high) flows; the signature follows it."""
    return build(
        [
            add("text", "Heading", {"x": 40, "y": 40}, {"content": "Dear reader"}),
            add(
                "text",
                "Body",
                {"x": 40, "y": 80, "maxWidth": 60},
                {"content": "short", "markup": "markdown", "overflow": "flow"},
                {"fontFamily": "Roboto"},
            ),
            add("text", "Signature", {"x": 40, "y": 120}, {"content": "Yours truly"}),
            action("bind_variable", name="Body"),
        ]
    )


def test_a_markdown_text_flows_over_two_sheets_with_every_line_in_order_and_bold_on_both():
    pdf = render_pdf(
        flowing_markdown(), {"Body": markdown_body(16)}
    )  # 80 lines of 14.4 pt: about 50 on the first A4 sheet
    assert page_count(pdf) == 2
    texts = pdf_text(pdf)
    words = [[w for w in text.split() if w.startswith("p") and "l" in w] for text in texts]
    assert words[0] and words[1]
    assert words[0] + words[1] == [f"p{p:02d}l{line}" for p in range(16) for line in range(5)]
    for sheet in range(2):
        assert "Roboto-Bold" in {name for name, _ in fonts_used(pdf, sheet)}
    assert "Yours truly" in texts[1] and "Yours truly" not in texts[0]


# Growing elements between repeated headers and footers (extensions.md 2 and 4).


def plain_body(paragraph_count: int) -> str:
    return "\n".join(" ".join(f"p{p:02d}l{line}" for line in range(5)) for p in range(paragraph_count))


def rows(count: int) -> list[list[str]]:
    return [["Item", "Amount"]] + [[f"item{i:03d}", str(i)] for i in range(count)]


@pytest.fixture(scope="module")
def banded():
    """A table growing over sheets, followed by a text that flows, between a header repeated
    on the page's sheets and a footer repeated on every sheet."""
    tree = build(
        [
            add("text", "header", {"x": 40, "y": 40}, {"content": "SHEETHEADER"}, {"fontSize": 20}, repeat="sheets"),
            add("table", "lines", {"x": 40, "y": 120}, {"cells": rows(1), "columnWidths": [300, 100]}),
            add("text", "Body", {"x": 40, "y": 180, "maxWidth": 60}, {"content": "short", "overflow": "flow"}),
            add("text", "footer", {"x": 40, "y": 760}, {"content": "PAGEFOOTER"}, {"fontSize": 14}, repeat="pages"),
            action("bind_variable", name="lines"),
            action("bind_variable", name="Body"),
        ]
    )
    return render_pdf(tree, {"lines": rows(60), "Body": plain_body(30)})


def test_a_growing_table_and_a_flowing_text_stay_between_the_header_and_the_footer(banded):
    texts = pdf_text(banded)
    assert len(texts) >= 4
    rows_seen: list[str] = []
    lines_seen: list[str] = []
    for index, text in enumerate(texts):
        header_band, footer_band = text_in_bands(banded, index, [(0, 64), (760, None)])  # header: y 40 to 64
        assert "SHEETHEADER" in header_band and "PAGEFOOTER" in footer_band
        for band in (header_band, footer_band):
            assert "item" not in band and not any(w.startswith("p") and "l" in w for w in band.split())
        words = text.split()
        rows_seen += [w for w in words if w.startswith("item")]
        lines_seen += [w for w in words if w.startswith("p") and "l" in w and w[1:3].isdigit()]
    assert rows_seen == [f"item{i:03d}" for i in range(60)]
    assert lines_seen == [f"p{p:02d}l{line}" for p in range(30) for line in range(5)]


def test_a_flowing_text_designed_over_a_repeated_footer_breaks_above_it():
    # Its design-time content already reaches past the footer (y 790) but not past the sheet's edge.
    body = "\n".join(f"line{i:02d}" for i in range(21))  # 21 lines of 14.4 pt from y 500: to 802.4
    tree = build(
        [
            add("text", "Body", {"x": 40, "y": 500, "maxWidth": 60}, {"content": body, "overflow": "flow"}),
            add("text", "footer", {"x": 40, "y": 790}, {"content": "PAGEFOOTER"}, repeat="pages"),
        ]
    )
    sheets = lay_out_sheets(tree, tree)
    parts = [p.box for sheet in sheets for p in sheet.placements if p.node.name == "Body"]
    assert len(sheets) == 2 and parts[0].bottom <= 790 + 0.01
    texts = pdf_text(render_pdf(tree))
    assert [w for t in texts for w in t.split() if w.startswith("line")] == [f"line{i:02d}" for i in range(21)]


# A repeated element with a link: every copy keeps its link annotation, inside the one Link
# element of the first drawing (its content is read once; the copies are artifacts).


@pytest.fixture(scope="module")
def linked_furniture(tmp_path_factory):
    tree = build(
        [
            action("set_metadata", title="Invoice with linked furniture", language="en-GB"),
            add(
                "text",
                "header",
                {"x": 40, "y": 40},
                {"content": "SHEETHEADER by [Example](https://example.org/header)", "markup": "markdown"},
                {"fontSize": 20},
                repeat="sheets",
            ),
            add("table", "lines", {"x": 40, "y": 120}, {"cells": rows(1), "columnWidths": [300, 100]}),
            add(
                "text",
                "footer",
                {"x": 40, "y": 760},
                {"content": "PAGEFOOTER", "link": "https://example.org/footer"},
                {"fontSize": 14},
                repeat="pages",
            ),
            add(
                "shape",
                "mark",
                {"x": 500, "y": 760, "w": 20, "h": 20},
                {"link": "https://example.org/mark"},
                repeat="pages",
            ),
            action("bind_variable", name="lines"),
            # A second design page: the "pages" furniture and its links reach it too. (With three
            # sheets only, outloud's running-footer heuristic takes the numbered rows just above
            # the footer for a footer tagged as content: PAG-001, with or without links.)
            action("add_page"),
            add("text", "second", {"x": 40, "y": 300}, {"content": "SECONDPAGE"}, page=1),
        ]
    )
    folder = tmp_path_factory.mktemp("linked-furniture")
    paths = {}
    for profile in ("accessible", "pdf-a", "standard"):
        paths[profile] = folder / f"{profile}.pdf"
        paths[profile].write_bytes(render_pdf(tree, {"lines": rows(80)}, None, profile))
    return paths


@pytest.mark.parametrize("profile", ["standard", "accessible", "pdf-a"])
def test_every_copy_of_a_repeated_element_keeps_its_links(linked_furniture, profile):
    with pikepdf.open(linked_furniture[profile]) as pdf:
        assert len(pdf.pages) == 4
        for number, page in enumerate(pdf.pages):
            uris = sorted(str(annot.A.URI) for annot in page.obj.get("/Annots", []))
            header = ["https://example.org/header"] if number < 3 else []  # repeated on its page's sheets
            assert uris == sorted(["https://example.org/footer", "https://example.org/mark", *header])


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_a_copys_links_are_in_the_link_element_of_its_first_drawing(linked_furniture, profile):
    data = linked_furniture[profile].read_bytes()
    assert problems(data) == []
    with pikepdf.open(io.BytesIO(data)) as pdf:
        parents = parent_tree(pdf)
        links: dict[str, set] = {}
        for page in pdf.pages:
            for annot in page.obj.Annots:
                link = parents[int(annot.StructParent)]
                assert link.S == pikepdf.Name("/Link") and str(annot.Contents).strip()
                kids = list(link.K) if isinstance(link.K, pikepdf.Array) else [link.K]
                assert any(
                    isinstance(k, pikepdf.Dictionary) and k.get("/Type") == "/OBJR" and k.Obj == annot for k in kids
                )
                links.setdefault(str(annot.A.URI), set()).add(link.objgen)
        # One Link element per repeated link, holding the annotations of every sheet it is on.
        assert sorted(links) == ["https://example.org/footer", "https://example.org/header", "https://example.org/mark"]
        assert all(len(elements) == 1 for elements in links.values())
    texts = [attrs.get("/ActualText", "") for _, attrs in structure(linked_furniture[profile])]
    assert sum("PAGEFOOTER" in t for t in texts) == 1  # read once


def test_linked_furniture_passes_the_pdf_a_validator(linked_furniture):
    assert_valid_pdf_a(linked_furniture["pdf-a"])


def test_linked_furniture_passes_outloud(linked_furniture):
    assert_passes_outloud(linked_furniture["accessible"])


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_a_flowing_markdown_text_stays_one_paragraph_with_its_links_in_the_tagged_profiles(profile, tmp_path):
    letter, _ = apply(flowing_markdown(), [action("set_metadata", title="A letter that flows", language="en")])
    body = markdown_body(16).replace("p03l2", "[p03l2](https://example.org/early)")
    body = body.replace("p14l2", "[p14l2](https://example.org/late)")
    path = tmp_path / f"{profile}.pdf"
    path.write_bytes(render_pdf(letter, {"Body": body}, None, profile))
    assert problems(path.read_bytes()) == []
    if profile == "pdf-a":
        assert_valid_pdf_a(path)
    with pikepdf.open(path) as pdf:
        assert len(pdf.pages) == 2
        uris = [str(annot.A.URI) for page in pdf.pages for annot in page.obj.get("/Annots", [])]
        assert uris == ["https://example.org/early", "https://example.org/late"]
    # The heading, the body's one P over both sheets holding its two Links, the signature.
    assert [role for role, _ in structure(path)] == ["Document", "P", "P", "Link", "Link", "P"]
