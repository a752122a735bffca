"""Existing PDFs before and after the generated pages (extensions.md 12, engine.finishing.added_pages):
page ranges, the page limit counting the added pages, and their place before the finishing
that covers the whole file (encryption)."""

from __future__ import annotations

import io

import pikepdf
import pytest

from engine import Encryption, EngineError, Finishing, LimitExceeded, render_pdf
from engine.finishing.added_pages import CLEANED, AddedPdf, _Cleaned
from engine.finishing.added_pages import page_numbers as numbers
from engine.memo import SizedLRU
from tests import pdf_sources
from tests.pdf_probes import active_content, pdf_text

from ...conftest import add, build

TERMS = "uploads:upl_terms"


def resolve(ref: str) -> bytes:
    return {TERMS: pdf_sources.reportlab_letterhead()}[ref]


def letter():
    return build([add("text", "body", {"x": 60, "y": 60}, {"content": "Dear Ada"})])


def test_page_ranges_are_one_based_numbers_and_ranges_in_their_order():
    assert numbers("1-3,5") == [1, 2, 3, 5]
    assert numbers(" 4 , 2-3 ") == [4, 2, 3]
    assert numbers("2,2") == [2, 2]
    assert numbers(None, 3) == [1, 2, 3]


@pytest.mark.parametrize(
    ("pages", "count", "fragment"),
    [
        ("1-", None, 'e.g. "1-3,5"'),
        ("a", None, "is not a list of pages"),
        ("1;2", None, "is not a list of pages"),
        ("0-2", None, "pages count from 1"),
        ("3-1", None, "write it as 1-3"),
        ("1-4", 3, "the PDF has 3 page(s), so page 4 does not exist"),
        ("1-99999", None, "longer than any PDF"),
    ],
)
def test_a_page_range_that_cannot_be_read_or_is_past_the_end_is_refused_naming_the_fix(pages, count, fragment):
    with pytest.raises(EngineError, match="pages") as refused:
        numbers(pages, count)
    assert fragment in refused.value.message


def test_the_request_shape_takes_a_plain_ref_and_checks_the_ranges_syntax():
    assert AddedPdf.model_validate(TERMS) == AddedPdf(ref=TERMS)
    with pytest.raises(ValueError, match="runs backwards"):
        AddedPdf.model_validate({"ref": TERMS, "pages": "2-1"})


def test_added_pages_count_against_the_page_limit():
    finishing = Finishing(append=[TERMS])
    assert len(pdf_text(render_pdf(letter(), {}, resolve, max_sheets=3, finishing=finishing))) == 3
    with pytest.raises(LimitExceeded, match=r"3 pages \(2 of them from append and prepend\); at most 2"):
        render_pdf(letter(), {}, resolve, max_sheets=2, finishing=finishing)


def test_an_encrypted_document_encrypts_the_added_pages_too():
    encryption = Encryption(ownerPassword="owner-secret", userPassword="s3cret")
    finishing = Finishing(prepend=[{"ref": TERMS, "pages": "2"}], encryption=encryption)
    pdf = render_pdf(letter(), {}, resolve, finishing=finishing)
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.open(io.BytesIO(pdf))
    with pikepdf.open(io.BytesIO(pdf), password="s3cret") as document:
        assert document.is_encrypted and len(document.pages) == 2
        # The added page's text is in the encrypted file, decrypted only with the password.
        assert b"Terms and conditions" in document.pages[0].Contents.read_bytes()


def test_pdf_a_refuses_an_added_page_with_a_blend_mode_pdf_a_forbids_naming_the_page():
    blended = pdf_sources.with_blend_mode(pdf_sources.reportlab_letterhead(), "Foo")

    def resolver(ref: str) -> bytes:
        return blended

    finishing = Finishing(append=[{"ref": TERMS, "pages": "2,1"}])
    with pytest.raises(EngineError) as refused:
        render_pdf(letter(), {}, resolver, "pdf-a", finishing=finishing)
    assert f"append[0] ({TERMS}): page 1 carries transparency with the blend mode /Foo" in refused.value.message
    assert len(pdf_text(render_pdf(letter(), {}, resolver, "standard", finishing=finishing))) == 3


def tagged_with_a_role_named_like_an_action() -> bytes:
    """The hostile PDF (tests.pdf_sources) with one more structure element, of a role of its own
    named like an action (/Sound, mapped to P) and indirect, and also named by the page where a
    reader runs an action: an action's /Next."""
    with pikepdf.open(io.BytesIO(pdf_sources.hostile_pdf())) as document:
        root = document.Root.StructTreeRoot
        top = root.K
        element = document.make_indirect(
            pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name.Sound, P=top, K=pikepdf.Array())
        )
        top.K.append(element)
        root.RoleMap = pikepdf.Dictionary(Sound=pikepdf.Name.P)
        page = document.pages[0].obj
        page.Chain = pikepdf.Dictionary(Next=element)
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()


def test_a_structure_element_whose_role_is_named_like_an_action_stays_in_the_structure_only():
    data = tagged_with_a_role_named_like_an_action()
    finishing = Finishing(append=[TERMS])
    pdf = render_pdf(letter(), {}, lambda ref: data, "accessible", finishing=finishing)
    assert active_content(pdf) == []
    with pikepdf.open(io.BytesIO(pdf)) as document:
        roles = []
        waiting = [document.Root.StructTreeRoot.K]
        while waiting:
            item = waiting.pop()
            if isinstance(item, pikepdf.Array):
                waiting += list(item)
            elif isinstance(item, pikepdf.Dictionary) and "/S" in item:
                roles.append(str(item.S))
                waiting.append(item.get("/K"))
        assert "/Sound" in roles  # a role, kept
        # Where a reader would run it as an action, it is not.
        assert "/Next" not in document.pages[1].obj.get("/Chain", pikepdf.Dictionary())


def test_an_added_pdf_is_cleaned_once_per_content_pages_and_profile():
    """Cleaning a 200-page PDF of 8,000 links took 0.5 s on every render, every batch row
    (issue 48 review): now once per process. Each render opens its own copy of the cleaned PDF,
    so grafting its structure tree (which changes the source) leaves the next render's alone."""
    CLEANED.clear()
    data = pdf_sources.hostile_pdf()

    def generated(profile: str, pages: str | None = None) -> bytes:
        finishing = Finishing(append=[{"ref": TERMS, "pages": pages}])
        return render_pdf(letter(), {}, lambda ref: data, profile, finishing=finishing)

    first = generated("accessible")
    assert (CLEANED.stats()["misses"], CLEANED.stats()["hits"]) == (1, 0)
    assert generated("accessible") == first and generated("accessible") == first
    assert (CLEANED.stats()["misses"], CLEANED.stats()["hits"]) == (1, 2)
    assert active_content(first) == []
    # Another profile or other pages are cleaned for themselves.
    standard = generated("standard")
    generated("standard", "1")
    generated("standard", " 1 ")  # the same pages
    assert (CLEANED.stats()["misses"], CLEANED.stats()["hits"]) == (3, 3)
    assert active_content(standard) == [] and generated("standard") == standard
    assert 0 < CLEANED.stats()["bytes"] <= CLEANED.capacity


def test_the_cleaned_pdfs_kept_stay_within_their_bytes():
    kept = SizedLRU(1000, lambda cleaned: len(cleaned.data))  # as CLEANED is, with less room
    for number in range(10):
        kept.put((f"digest{number}", None, "standard"), _Cleaned(b"x" * 300, (1,), True))
    assert kept.stats()["entries"] == 3 and kept.size == 900
    assert kept.get(("digest9", None, "standard")) is not None and kept.get(("digest0", None, "standard")) is None
    kept.put(("large", None, "standard"), _Cleaned(b"x" * 1001, (1,), True))  # more than all it holds
    assert kept.get(("large", None, "standard")) is None and kept.size == 900
