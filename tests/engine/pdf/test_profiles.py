"""The tagged profiles, checked by three independent validators (the manual, "Tagged PDF"):
pikepdf.pdfa for PDF/A-3b, outloud for PDF/UA-1, and our own structural checker."""


import pikepdf
import pikepdf.pdfa
import pytest

from engine import render_pdf
from tests.images import TAGGED_IMAGES
from tests.pdf_probes import pdf_text, structure

from ...conftest import action, add, build
from ...pdf_checker import problems
from ...validators import assert_passes_outloud, assert_valid_pdf_a

WORDS = ["apple", "pear", "plum", "fig", "kiwi", "lime", "date"]


TITLE = 'Profile test: <tags> & "quotes"'


@pytest.fixture(scope="module")
def everything():
    """Every element type, headings, both lists, figures with and without alt text,
    a bound table that grows over three pages, images and backgrounds."""
    return build(
        [
            action("set_metadata", title=TITLE, author="docbench", language="en-GB"),
            add(
                "image", "print", {"x": 520, "y": 30, "w": 30, "h": 30}, {"src": "uploads:cmyk", "alt": "A print photo"}
            ),
            add("text", "h", {"x": 40, "y": 30}, {"content": "Heading", "role": "h1"}, {"fontSize": 24}),
            add(
                "text",
                "p",
                {"x": 40, "y": 70, "maxWidth": 300},
                {"content": "A paragraph that wraps over more than one line of text in its box."},
            ),
            add("text", "ol", {"x": 40, "y": 130}, {"content": ["one", "two"], "listFormat": "ordered"}),
            add("text", "ul", {"x": 200, "y": 130}, {"content": ["red", "green"], "listFormat": "unordered"}),
            add("image", "logo", {"x": 400, "y": 30, "w": 60, "h": 40}, {"src": "uploads:logo", "alt": "Company logo"}),
            add("image", "photo", {"x": 470, "y": 30, "w": 40, "h": 40}, {"src": "uploads:photo"}),
            add("shape", "frame", {"x": 20, "y": 20, "w": 550, "h": 800}),
            add("icon", "star", {"x": 400, "y": 100, "w": 30, "h": 30}, {"iconId": "star", "alt": "Star"}),
            add(
                "qr",
                "qr",
                {"x": 400, "y": 150, "size": 60},
                {"content": "https://example.org", "alt": "Link to example.org"},
            ),
            add(
                "barcode", "bc", {"x": 400, "y": 230, "w": 150, "h": 50}, {"content": "ABC-123", "alt": "Order ABC-123"}
            ),
            add(
                "table",
                "t",
                {"x": 40, "y": 200},
                {"cells": [["Item", "Qty", "Price"], ["a", "1", "2"]], "width": 300, "headerColumn": True},
            ),
            add("text", "after", {"x": 40, "y": 260}, {"content": "After the table"}),
            action("bind_variable", name="t"),
            action("set_page_background", page=0, backgroundColor="#fafafa"),
            action("set_document_background", backgroundImage="uploads:logo", backgroundSize="contain"),
        ]
    )


ROWS = [["Item", "Qty", "Price"]] + [
    [f"{WORDS[i % 7]} crate {chr(65 + i % 26)}", str(i * 7 % 13), f"{i * 3 % 17}.50"] for i in range(70)
]


@pytest.fixture(scope="module")
def documents(everything, tmp_path_factory):
    folder = tmp_path_factory.mktemp("profiles")
    paths = {}
    for profile in ("standard", "accessible", "pdf-a"):
        path = folder / f"{profile}.pdf"
        path.write_bytes(render_pdf(everything, {"t": ROWS}, TAGGED_IMAGES.__getitem__, profile))
        paths[profile] = path
    return paths


def test_pdf_a_passes_pikepdfs_pdfa_validator(documents):
    assert_valid_pdf_a(documents["pdf-a"])


def test_accessible_passes_outloud(documents):
    assert_passes_outloud(documents["accessible"])


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_tagged_profiles_pass_our_structural_checker(documents, profile):
    assert problems(documents[profile].read_bytes()) == []


def test_our_checker_finds_an_untagged_document(documents):
    assert problems(documents["standard"].read_bytes()) == ["no StructTreeRoot"]


def test_the_structure_follows_the_design(documents):
    elements = structure(documents["accessible"])
    roles = [role for role, _ in elements]
    assert roles[:2] == ["Document", "P"] or "H1" in roles
    assert roles.count("Table") == 1 and roles.count("TR") == 71  # one table over three pages
    assert roles.count("L") == 2 and roles.count("LI") == 4 and roles.count("Lbl") == 4
    figures = [attrs["/Alt"] for role, attrs in elements if role == "Figure"]
    assert sorted(figures) == ["A print photo", "Company logo", "Link to example.org", "Order ABC-123", "Star"]
    scopes = [attrs.get("/Scope") for role, attrs in elements if role == "TH"]
    assert scopes.count("/Column") == 3 and scopes.count("/Row") == 70
    paragraph = next(attrs for role, attrs in elements if role == "P" and "paragraph" in attrs.get("/ActualText", ""))
    assert paragraph["/ActualText"] == "A paragraph that wraps over more than one line of text in its box."


def test_reading_order_is_paint_order(documents):
    roles = [role for role, _ in structure(documents["accessible"])]
    assert roles.index("H1") < roles.index("L") < roles.index("Table")


def test_catalog_and_metadata(documents):
    for profile in ("accessible", "pdf-a"):
        with pikepdf.open(documents[profile]) as pdf:
            assert str(pdf.Root.Lang) == "en-GB" and pdf.Root.ViewerPreferences.DisplayDocTitle is True
            with pdf.open_metadata() as meta:
                assert meta["dc:title"] == TITLE == str(pdf.docinfo.Title)
                ua, part = meta.get("pdfuaid:part"), meta.get("pdfaid:part")
            assert (ua, part) == (("1", None) if profile == "accessible" else (None, "3"))
            assert ("/OutputIntents" in pdf.Root) is (profile == "pdf-a")


def test_tagged_output_keeps_the_text_and_is_deterministic(everything, documents):
    text = "".join(pdf_text(documents["accessible"].read_bytes()))
    assert "Heading" in text and "fig crate" in text and "After the table" in text
    again = render_pdf(everything, {"t": ROWS}, TAGGED_IMAGES.__getitem__, "accessible")
    assert again == documents["accessible"].read_bytes()


def test_pdf_a_holds_no_cmyk(documents):
    with pikepdf.open(documents["pdf-a"]) as pdf:
        spaces = {
            str(obj.get("/ColorSpace"))
            for obj in pdf.objects
            if isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") == "/Image"
        }
    assert spaces and "/DeviceCMYK" not in spaces
