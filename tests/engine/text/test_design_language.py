"""The design's language is the default of its texts' language (extensions.md 6): Han text
without data.lang takes the face of the design's language, measured and drawn alike."""

from __future__ import annotations

import pytest

from engine import DesignTree, render_pdf, render_png
from engine.design.languages import in_design_language
from engine.elements import ELEMENT_TYPES
from tests.pdf_probes import font_names

from ...conftest import add, build

HAN = "東京大学図書館"  # ideographs only: nothing in the text itself says which language
HAN_FACES = {"Noto Sans SC", "Noto Sans JP", "Noto Sans KR"}


def han_design(language: str | None, **data: str) -> DesignTree:
    tree = build([add("text", "t", {"x": 40, "y": 40}, {"content": HAN, **data}, {"fontFamily": "Inter"})])
    return tree.model_copy(update={"metadata": tree.metadata.model_copy(update={"language": language})})


def han_faces(pdf: bytes) -> set[str]:
    return {name for name in font_names(pdf) if any(name.startswith(face.replace(" ", "")) for face in HAN_FACES)}


@pytest.mark.parametrize(
    ("language", "face"),
    [
        ("ja", "NotoSansJP"),
        ("ja-JP", "NotoSansJP"),
        ("ko", "NotoSansKR"),
        ("zh-Hant", "NotoSansSC"),
        (None, "NotoSansSC"),
    ],
)
def test_han_text_without_lang_takes_the_face_of_the_designs_language(language, face):
    faces = han_faces(render_pdf(han_design(language)))
    assert faces and all(name.startswith(face) for name in faces), faces


def test_a_texts_own_lang_wins_over_the_designs():
    faces = han_faces(render_pdf(han_design("ja", lang="ko")))
    assert faces and all(name.startswith("NotoSansKR") for name in faces), faces


def test_the_designs_language_is_what_the_text_is_measured_in():
    """Measured and drawn in the same faces: the box the layout gives is the one the faces set."""
    tree = han_design("ja")
    measured = ELEMENT_TYPES["text"].measure(in_design_language(tree).nodes[next(iter(tree.nodes))])
    japanese = han_design(None, lang="ja")
    assert measured == ELEMENT_TYPES["text"].measure(japanese.nodes[next(iter(japanese.nodes))])


def test_the_preview_draws_the_designs_language_too():
    assert render_png(han_design("ja")) == render_png(han_design(None, lang="ja"))
    assert render_png(han_design("ja")) != render_png(han_design(None))


def test_the_default_is_not_written_into_the_design():
    """The tree laid out gets the default; the design keeps its texts without data.lang."""
    assert in_design_language(han_design(None)).model_dump() == han_design(None).model_dump()
    tree = han_design("ja")
    in_design_language(tree)
    assert all(node.data.lang is None for node in tree.nodes.values())


def test_a_pages_cached_preview_is_drawn_again_when_the_designs_language_changes():
    from engine.render.layout import page_digest

    digests = {page_digest(han_design(language).model_dump(mode="json"), 0) for language in (None, "ja", "ko")}
    assert len(digests) == 3
