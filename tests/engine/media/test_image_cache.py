"""A design's images are decoded and compressed once per process (engine.media.images.ImageLibrary),
whatever the number of documents drawn with them."""

from __future__ import annotations

import io

import pikepdf

from engine import render_pdf
from engine.media.images import ImageLibrary
from workbench import samples


def _image_streams(pdf: bytes) -> list[bytes]:
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return sorted(
            obj.read_raw_bytes()
            for obj in document.objects
            if isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") == "/Image"
        )


def test_the_logo_is_prepared_once_and_shared_by_every_document():
    first = ImageLibrary(samples.resolver).prepared(samples.LOGO_REF)
    second = ImageLibrary(samples.resolver).prepared(samples.LOGO_REF)
    assert first is second  # the same compressed streams, not a second decoding
    assert first.smask is not None  # the PNG's alpha, compressed once too


def test_documents_embed_the_same_logo_streams():
    tree = samples.certificate()
    one = render_pdf(tree, samples.certificate_row(1), samples.resolver)
    two = render_pdf(tree, samples.certificate_row(2), samples.resolver)
    streams = _image_streams(one)
    assert len(streams) == 2  # the logo and its soft mask
    assert streams == _image_streams(two)


def test_the_shared_images_are_bounded():
    ImageLibrary(samples.resolver).prepared(samples.LOGO_REF)
    assert 0 < ImageLibrary.shared_stats()["entries"] <= ImageLibrary.CAPACITY
