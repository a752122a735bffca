"""The tagged profiles written straight into ReportLab's document (profiles.save_tagged) say
what the pikepdf pass (profiles.finish) says: the same structure tree, page keys, catalog
entries, document info and XMP; and the pdf-a file's syntax is what PDF/A asks of it."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import pikepdf
import pytest

from engine import RenderOptions, render_pdf
from tests.pdf_probes import pdf_text
from workbench import samples

from ...conftest import action, add, build
from ...pdf_checker import problems
from ...validators import assert_passes_outloud, assert_valid_pdf_a

# Tagged renders take the pikepdf pass, as they all did before save_tagged.
THROUGH_PIKEPDF = RenderOptions(tagged_written_directly=False)


def linked_design():
    """Text and a picture with links (annotations in Link elements), a table with headers
    (attribute objects), alt text with characters a PDF string escapes, and Arabic text."""
    return build(
        [
            action("set_metadata", title="Tagged (direct) é", author="A (B)", language="en-GB"),
            add("text", "h", {"x": 40, "y": 30}, {"content": "Orders (2024)", "role": "h1"}, {"fontSize": 20}),
            add("text", "l", {"x": 40, "y": 70}, {"content": "Open the shop", "link": "https://example.org/shop"}),
            add(
                "qr",
                "q",
                {"x": 300, "y": 60, "size": 60},
                {"content": "https://example.org", "alt": "Shop (code) \\ link", "link": "https://example.org"},
            ),
            add("text", "ar", {"x": 40, "y": 120}, {"content": "مرحبا بالعالم", "lang": "ar"}),
            add(
                "table",
                "t",
                {"x": 40, "y": 160},
                {"cells": [["Item", "Qty"], ["pear", "2"], ["fig", "3"], ["kiwi", "4"]], "width": 240},
            ),
        ]
    )


def _documents() -> dict[str, tuple]:
    return {
        "certificate": (samples.certificate(), samples.certificate_row(3), samples.resolver),
        "invoice": (samples.invoice(), samples.invoice_row(3), samples.resolver),
        "linked": (linked_design(), None, None),
    }


def _kid(kid: pikepdf.Object, pages: dict) -> object:
    if isinstance(kid, int):
        return ("mcid", int(kid))
    if kid.get("/Type") == "/OBJR":
        annotation = kid.Obj
        return ("annotation", pages[kid.Pg.objgen], int(annotation.StructParent), str(annotation.A.URI))
    return _element(kid, pages)


def _element(element: pikepdf.Dictionary, pages: dict) -> object:
    kids = element.get("/K")
    kids = list(kids) if isinstance(kids, pikepdf.Array) else [] if kids is None else [kids]
    attributes = {
        key: (str(value) if not isinstance(value, pikepdf.Dictionary) else sorted(map(str, value.items())))
        for key, value in element.items()
        if key not in ("/K", "/P", "/Pg", "/Type", "/S")
    }
    page = pages[element.Pg.objgen] if "/Pg" in element else None
    return (str(element.S), page, sorted(attributes.items()), [_kid(kid, pages) for kid in kids])


def tagged_summary(pdf: bytes) -> dict:
    """Everything the tagged profiles add, object numbers left out."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        pages = {page.obj.objgen: index for index, page in enumerate(document.pages)}
        root = document.Root.StructTreeRoot
        nums = list(root.ParentTree.Nums)
        parent_tree = {}
        for key, value in zip(nums[::2], nums[1::2], strict=True):
            owners = list(value) if isinstance(value, pikepdf.Array) else [value]
            parent_tree[int(key)] = [(str(owner.S), _element(owner, pages)[3]) for owner in owners]
        intents = document.Root.get("/OutputIntents")
        return {
            "version": document.pdf_version,
            "tree": _element(root.K, pages),
            "parent_tree": parent_tree,
            "next_key": int(root.ParentTreeNextKey),
            "pages": [
                (page.obj.get("/StructParents"), page.obj.get("/Tabs"), "/Trans" in page.obj) for page in document.pages
            ],
            "marked": bool(document.Root.MarkInfo.Marked),
            "lang": str(document.Root.Lang),
            "display_title": bool(document.Root.ViewerPreferences.DisplayDocTitle),
            "info": sorted((str(key), str(value)) for key, value in document.docinfo.items()),
            "xmp": document.Root.Metadata.read_bytes(),
            "metadata_filtered": "/Filter" in document.Root.Metadata,
            "intents": None
            if intents is None
            else [
                (str(i.S), str(i.OutputConditionIdentifier), str(i.Info), i.DestOutputProfile.read_bytes())
                for i in intents
            ],
        }


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
@pytest.mark.parametrize("document", ["certificate", "invoice", "linked"])
def test_direct_writing_says_what_the_pikepdf_pass_says(document, profile):
    tree, values, resolver = _documents()[document]
    direct = render_pdf(tree, values, resolver, profile)
    passed = render_pdf(tree, values, resolver, profile, options=THROUGH_PIKEPDF)
    assert direct != passed  # two writers: different bytes, the same content
    assert tagged_summary(direct) == tagged_summary(passed)
    assert pdf_text(direct) == pdf_text(passed)
    assert problems(direct) == []


def test_links_become_link_elements_with_their_annotations():
    pdf = render_pdf(linked_design(), profile="accessible")
    summary = tagged_summary(pdf)
    annotations = re.findall(r"\('annotation', 0, (\d+), '([^']+)'\)", repr(summary["tree"]))
    assert sorted(url for _, url in annotations) == ["https://example.org", "https://example.org/shop"]
    assert summary["pages"] == [(0, "/S", False)]
    assert summary["next_key"] == 1 + len(annotations)


def _streams(pdf: bytes) -> Iterator[tuple[int, bytes, bytes]]:
    """(declared /Length, the bytes from after `stream` + EOL to the EOL before `endstream`,
    the EOL) of every stream in the file."""
    for match in re.finditer(rb"/Length (\d+)[^>]*>>\s*\nstream\n", pdf):
        start = match.end()
        end = pdf.index(b"endstream", start)
        body = pdf[start:end]
        eol = b"\r\n" if body.endswith(b"\r\n") else body[-1:]
        yield int(match.group(1)), body[: len(body) - len(eol)], eol


@pytest.mark.parametrize("document", ["certificate", "invoice", "linked"])
def test_pdf_a_streams_end_with_an_eol_before_endstream_and_their_length_is_exact(document):
    # ISO 19005-3 6.1.7.1; pikepdf's PDF/A validator trusts the file's syntax (qpdf wrote it).
    tree, values, resolver = _documents()[document]
    pdf = render_pdf(tree, values, resolver, "pdf-a")
    streams = list(_streams(pdf))
    assert len(streams) >= 5
    for length, body, eol in streams:
        assert eol in (b"\n", b"\r\n")
        assert len(body) == length
    assert pdf.startswith(b"%PDF-1.7\n%") and all(byte > 127 for byte in pdf[10:14])
    assert pdf.endswith(b"%%EOF\n")
    with pikepdf.open(io.BytesIO(pdf)) as opened:
        assert opened.check_pdf_syntax() == []  # qpdf: every xref offset and /Length is right


def test_xref_offsets_point_at_their_objects():
    pdf = render_pdf(linked_design(), profile="pdf-a")
    xref_at = int(pdf.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    assert pdf[xref_at:].startswith(b"xref\n0 ")
    count = int(pdf[xref_at:].split(b"\n")[1].split()[1])
    entries = pdf[xref_at:].split(b"\n")[2 : 2 + count]
    for number, entry in enumerate(entries[1:], start=1):
        offset = int(entry[:10])
        assert pdf[offset:].startswith(b"%d 0 obj\n" % number)


@pytest.mark.slow
@pytest.mark.parametrize("document", ["certificate", "invoice", "linked"])
def test_directly_written_documents_pass_the_validators(document, tmp_path: Path):
    tree, values, resolver = _documents()[document]
    for profile in ("accessible", "pdf-a"):
        path = tmp_path / f"{profile}.pdf"
        path.write_bytes(render_pdf(tree, values, resolver, profile))
        if profile == "pdf-a":
            assert_valid_pdf_a(path)
        else:
            assert_passes_outloud(path)


def test_direct_writing_is_deterministic():
    tree = linked_design()
    assert render_pdf(tree, profile="pdf-a") == render_pdf(tree, profile="pdf-a")


def test_documents_of_other_designs_get_their_own_metadata_after_one_is_remembered():
    """The catalog's metadata and output intent are formatted once and remembered: a second
    design's document still says its own title and language, as the pikepdf pass does."""
    first = linked_design()
    second = build(
        [
            action("set_metadata", title="Another (title) ü", language="de"),
            add("text", "t", {"x": 40, "y": 30}, {"content": "Hallo"}),
        ]
    )
    for tree in (first, second, first):
        direct = render_pdf(tree, profile="pdf-a")
        passed = render_pdf(tree, profile="pdf-a", options=THROUGH_PIKEPDF)
        assert tagged_summary(direct) == tagged_summary(passed)
        assert problems(direct) == []
    with pikepdf.open(io.BytesIO(render_pdf(second, profile="pdf-a"))) as document:
        assert "Another (title) ü" in document.Root.Metadata.read_bytes().decode()
        assert str(document.Root.Lang) == "de"
