"""PDF uploads (extensions.md 12), checked as every upload is: opened, counted, thumbnailed."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from api.images.processing import ImageRejected, process_image
from tests import pdf_sources

MB = 1024 * 1024


def rejected(data: bytes, limit: int = 10 * MB) -> str:
    with pytest.raises(ImageRejected) as refusal:
        process_image(data, limit)
    return str(refusal.value)


def test_a_pdf_is_stored_whole_with_its_page_count_and_page_one_size():
    data = pdf_sources.reportlab_form()  # page 1 A4, page 2 Letter
    result = process_image(data, 10 * MB)
    assert result.mime_type == result.render_mime_type == "application/pdf"
    assert result.original == result.render == data
    assert (result.pages, result.width, result.height) == (2, 595, 842)


def test_its_thumbnail_is_page_one():
    result = process_image(pdf_sources.reportlab_letterhead(), 10 * MB)
    thumbnail = Image.open(io.BytesIO(result.thumbnail)).convert("RGB")
    assert max(thumbnail.size) == 256 and thumbnail.size[0] < thumbnail.size[1]  # portrait, fitted
    # Page 1's blue band near the bottom edge; page 2 has none.
    band_y = round(thumbnail.height * (1 - 38 / 842))
    red, green, blue = thumbnail.getpixel((thumbnail.width // 2, band_y))
    assert blue > 150 and red < 80


def test_an_encrypted_pdf_is_refused_naming_the_fix():
    message = rejected(pdf_sources.encrypted(pdf_sources.reportlab_letterhead()))
    assert "encrypted" in message and "without a password" in message


def test_a_pdf_of_more_than_200_pages_is_refused():
    assert process_image(pdf_sources.pages_pdf(200), 10 * MB).pages == 200
    message = rejected(pdf_sources.pages_pdf(201))
    assert "201 pages; at most 200" in message and "split it" in message


def test_an_unreadable_pdf_is_refused():
    message = rejected(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
    assert "could not be read" in message and "re-export" in message


def test_a_pdf_over_the_size_limit_is_refused_before_it_is_opened():
    data = pdf_sources.reportlab_letterhead()
    message = rejected(data, len(data) - 1)
    assert message.startswith("the file is") and "at most" in message
