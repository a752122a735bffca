"""Lines of Thai, Lao, Khmer and Burmese break between words (extensions.md 17, issue 33).

These scripts put no spaces between words; UAX #14 leaves their breaks to a dictionary
(class SA), which engine.text.segmentation takes from ICU. Each test renders a real PDF of a
text in a narrow box and reads its lines back with PDFium: every line must start where a word
starts, by the segmenter's words and by a list of words checked by hand.

Thai and Lao are set in their Noto families; Khmer and Burmese in Inter, whose fallback draws
them in Noto Sans Khmer and Noto Sans Myanmar.
"""

from __future__ import annotations

import random

import pytest
from uniseg.linebreak import line_break_units

from engine import render_pdf
from engine.text import segmentation, shaping
from tests.pdf_probes import pdf_text

from ...conftest import add, build

THAI = "ใบประกาศนียบัตรนี้มอบให้เพื่อแสดงว่าผู้ได้รับได้ผ่านการอบรมหลักสูตรการออกแบบเอกสาร"
LAO = "ພາສາລາວເປັນພາສາທາງການຂອງສາທາລະນະລັດປະຊາທິປະໄຕປະຊາຊົນລາວ"
KHMER = "ភាសាខ្មែរគឺជាភាសាផ្លូវការនៃប្រទេសកម្ពុជា"
BURMESE = "လူတိုင်းသည်တူညီလွတ်လပ်သောဂုဏ်သိက္ခာဖြင့်လည်းကောင်း"

# Checked by hand: "this certificate / is given / to show / that / the recipient / has passed /
# the training / course / in document design".
THAI_WORDS = [
    "ใบ", "ประกาศนียบัตร", "นี้", "มอบ", "ให้", "เพื่อ", "แสดง", "ว่า", "ผู้", "ได้", "รับ", "ได้", "ผ่าน",
    "การ", "อบรม", "หลักสูตร", "การ", "ออกแบบ", "เอกสาร",
]  # fmt: skip
# "Lao is the official language of the Lao People's Democratic Republic".
LAO_WORDS = ["ພາສາ", "ລາວ", "ເປັນ", "ພາສາ", "ທາງການ", "ຂອງ", "ສາທາລະນະລັດ", "ປະຊາທິປະໄຕ", "ປະຊາຊົນ", "ລາວ"]
# "Khmer (language) / is / the official language / of / the country / Cambodia".
KHMER_WORDS = ["ភាសាខ្មែរ", "គឺជា", "ភាសាផ្លូវការ", "នៃ", "ប្រទេស", "កម្ពុជា"]
# "Person / every / (subject) / equal / free / (adjective) / dignity / with / also" (the
# Universal Declaration of Human Rights, article 1).
BURMESE_WORDS = ["လူ", "တိုင်း", "သည်", "တူညီ", "လွတ်လပ်", "သော", "ဂုဏ်သိက္ခာ", "ဖြင့်", "လည်းကောင်း"]

SENTENCES = [
    pytest.param(THAI, THAI_WORDS, "Noto Sans Thai", id="thai"),
    pytest.param(LAO, LAO_WORDS, "Noto Sans Lao", id="lao"),
    pytest.param(KHMER, KHMER_WORDS, "Inter", id="khmer"),
    pytest.param(BURMESE, BURMESE_WORDS, "Inter", id="burmese"),
]


def rendered_lines(content: str, family: str, max_width: float) -> list[str]:
    """The lines of a text element in a box `max_width` wide, as PDFium extracts them."""
    element = add("text", "T", {"x": 40, "y": 40, "maxWidth": max_width}, {"content": content}, {"fontFamily": family})
    pdf = render_pdf(build([element], title="Word breaks"))
    return [line for line in pdf_text(pdf)[0].split("\r\n") if line]


def starts(pieces: list[str]) -> set[int]:
    """The offset at which each piece starts when the pieces are joined."""
    offsets, at = set(), 0
    for piece in pieces:
        offsets.add(at)
        at += len(piece)
    return offsets


@pytest.mark.parametrize("content,words,family", SENTENCES)
def test_the_segmenter_finds_the_words_checked_by_hand(content, words, family):
    assert "".join(words) == content
    assert segmentation.words(content) == words


@pytest.mark.parametrize("max_width", [90, 120, 160])
@pytest.mark.parametrize("content,words,family", SENTENCES)
def test_each_line_starts_at_a_word(content, words, family, max_width):
    lines = rendered_lines(content, family, max_width)
    assert "".join(lines) == content  # nothing lost or added between lines
    assert len(lines) >= 2
    assert starts(lines) <= starts(words), lines
    assert starts(lines) <= starts(segmentation.words(content)), lines


def test_the_thai_certificate_no_longer_breaks_inside_a_word():
    # Issue 33: `ใบประกาศนียบัต | รนี้…`, cut between clusters of ประกาศนียบัตร ("certificate").
    lines = rendered_lines(THAI + THAI, "Noto Sans Thai", 120)
    assert not any(line.endswith("ใบประกาศนียบัต") for line in lines)
    assert starts(lines) <= starts(THAI_WORDS + THAI_WORDS), lines


def test_thai_words_keep_their_spaces_and_punctuation():
    content = "ภาษาไทย (ภาษาราชการ) เป็นภาษาที่สวยงาม."
    units = shaping.break_units(content)
    assert "".join(units) == content
    assert units == ("ภาษา", "ไทย ", "(ภาษา", "ราชการ) ", "เป็น", "ภาษา", "ที่", "สวยงาม.")


def test_text_without_these_scripts_is_not_given_to_the_dictionary():
    assert segmentation.word_breaks("Hello, world — 你好 مرحبا नमस्ते") == []
    assert segmentation.word_breaks("ก") == []  # a single character has nothing inside


def test_break_opportunities_are_uniseg_s_cut_between_dictionary_words():
    """break_units gives uniseg only the pieces between dictionary breaks: the same as uniseg's
    opportunities over the whole text with the dictionary's breaks added."""
    alphabet = (
        ["ภาษา", "ไทย", "ๆ", "ฯ", "๑๒", "ก", "\u0e48", "ການ", "ລາວ", "ខ្មែរ", "។", "ប្រទេស", "မြန်မာ", "။", "၊", "၁၂"]
        + ["word", "中文", "1", "2.5", "(", ")", '"', "«", "»", "-", "—", "/", "\u00ad", "!", "?", ",", "."]
        + ["\u200b", "\u200c", "\u200d", "\u2060", "\u00a0", "😀", "\u0301"]
        + [" "] * 8
    )
    rng = random.Random(33)
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        expected: list[str] = []
        for unit in line_break_units(text):
            start = len("".join(expected))
            inside = [cut - start for cut in segmentation.word_breaks(text) if start < cut < start + len(unit)]
            expected.extend(piece for piece in _cut(unit, inside) if piece)
        shaping.break_units.cache_clear()
        assert shaping.break_units(text) == tuple(expected), text


def test_a_thai_paragraph_is_given_to_uniseg_a_word_at_a_time(monkeypatch):
    # uniseg costs some 70 µs a character; the dictionary's breaks are sure breaks, so a Thai
    # paragraph reaches it in words (a 2,000-character paragraph: 110 ms before, a few ms now).
    read: list[int] = []

    def counted(piece: str):
        read.append(len(piece))
        return line_break_units(piece)

    monkeypatch.setattr(shaping, "line_break_units", counted)
    shaping.break_units.cache_clear()
    shaping._short_piece_units.cache_clear()
    paragraph = (THAI + " ") * 25
    assert "".join(shaping.break_units(paragraph)) == paragraph
    assert read and max(read) <= max(map(len, THAI_WORDS)) + 1


def _cut(text: str, offsets: list[int]) -> list[str]:
    bounds = [0, *offsets, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
