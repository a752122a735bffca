"""QR codes and barcodes as drawn into real PDFs: read back by ZXing from a PDFium render,
their modules where the matrix puts them, their capacity per error-correction level."""

import io
import re

import pikepdf
import pytest
import zxingcpp

from engine import render_pdf
from engine.elements import barcode, qr
from tests.pdf_probes import crop_points, page_image

from ...conftest import add, build

SCRIPTS = {
    "ascii url": "https://example.org/verify/000042?k=Ab9",
    "accented latin": "Zoë Ångström, café crème, Łódź, Ærø",
    "greek": "Γειά σου Κόσμε",
    "cyrillic": "Привет, мир",
    "cjk": "漢字テスト 中文简体 한국어",
    "emoji": "Well done 🎓🏆 ✓",
    "vcard": "BEGIN:VCARD\nVERSION:3.0\nN:Müller;Jürgen\nFN:Jürgen Müller\nTEL:+49 30 1234567\nEND:VCARD",
    "mixed": "Ünïcødé 漢字 😀 123",
}

# ISO/IEC 18004 table 7: the bytes a version-40 code holds in byte mode, per level.
VERSION_40_BYTES = {"L": 2953, "M": 2331, "Q": 1663, "H": 1273}


def qr_design(content: str, size: float = 200, level: str = "M", quiet_zone: int = 2):
    return build(
        [
            add(
                "qr",
                "q",
                {"x": 60, "y": 60, "size": size},
                {"content": content, "errorCorrection": level},
                {"quietZone": quiet_zone},
            )
        ]
    )


def read_qr(pdf: bytes, dpi: float = 216, text_mode=zxingcpp.TextMode.HRI) -> list[zxingcpp.Barcode]:
    return zxingcpp.read_barcodes(page_image(pdf, dpi=dpi), formats=zxingcpp.BarcodeFormat.QRCode, text_mode=text_mode)


def page_content(pdf: bytes) -> str:
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return b"".join(
            pikepdf.unparse_content_stream(pikepdf.parse_content_stream(page)) for page in document.pages
        ).decode("latin-1")


@pytest.mark.parametrize("content", SCRIPTS.values(), ids=SCRIPTS.keys())
def test_qr_content_in_any_script_reads_back_exactly(content):
    (found,) = read_qr(render_pdf(qr_design(content)))
    assert found.text == content


@pytest.mark.parametrize("content", [SCRIPTS["greek"], SCRIPTS["accented latin"], SCRIPTS["cjk"]])
def test_non_ascii_qr_content_is_declared_utf8(content):
    # Read with the ECI designators kept: "]Q2" then ECI 000026 (UTF-8), then the UTF-8 bytes;
    # not a legacy charset such as ISO 8859-7 that fewer readers follow.
    (found,) = read_qr(render_pdf(qr_design(content)), text_mode=zxingcpp.TextMode.HexECI)
    assert bytes.fromhex(found.text) == b"]Q2\\000026" + content.encode()


def test_ascii_qr_content_carries_no_eci():
    (found,) = read_qr(render_pdf(qr_design("HELLO-42 abc")), text_mode=zxingcpp.TextMode.HexECI)
    assert bytes.fromhex(found.text) == b"]Q1HELLO-42 abc"


@pytest.mark.parametrize("level", VERSION_40_BYTES)
def test_qr_capacity_is_version_40_at_each_level(level):
    longest = "x" * VERSION_40_BYTES[level]
    qr.check_encodable(longest, level)
    assert qr.module_runs(longest, level)[0] == 177  # version 40: 17 + 4 * 40 modules
    with pytest.raises(ValueError, match=f"too long for a QR code at error correction {level} "):
        qr.check_encodable(longest + "x", level)


def test_qr_capacity_counts_utf8_bytes():
    # Two bytes each in UTF-8, and the 12-bit ECI header takes the last byte of level M's 2331.
    qr.check_encodable("é" * 1165, "M")
    with pytest.raises(ValueError, match=r"error correction M \(2332 bytes\)"):
        qr.check_encodable("é" * 1166, "M")


def test_too_long_qr_content_is_refused_when_received():
    with pytest.raises(ValueError, match="too long for a QR code at error correction H"):
        qr.QrData(content="x" * 1274, errorCorrection="H")


def test_largest_qr_at_level_l_draws_and_reads_back():
    # Lower-case letters: byte mode throughout (digits would be packed tighter).
    content = ("the quick brown fox jumps over a lazy dog " * 80)[: VERSION_40_BYTES["L"]]
    (found,) = read_qr(render_pdf(qr_design(content, size=470, level="L")), dpi=288)
    assert found.text == content and found.extra["Version"] == "40"


@pytest.mark.parametrize("level", ["L", "M", "Q", "H"])
def test_qr_is_encoded_at_its_level(level):
    (found,) = read_qr(render_pdf(qr_design("https://example.org/c/7", level=level)))
    assert found.ec_level == level


def test_same_qr_renders_to_the_same_bytes_after_the_caches_are_cleared():
    tree = qr_design(SCRIPTS["mixed"])
    first = render_pdf(tree)
    qr.module_runs.cache_clear()
    qr._modules_path.cache_clear()
    assert render_pdf(tree) == first


def test_drawn_qr_has_its_module_count_and_quiet_zone():
    content, quiet_zone, size, dpi = "https://example.org/q", 4, 232.0, 144
    count, (rows, starts, lengths) = qr.module_runs(content, "M")
    assert count == 25  # version 2
    matrix = [[False] * count for _ in range(count)]
    for row, start, length in zip(rows.tolist(), starts.tolist(), lengths.tolist(), strict=True):
        matrix[row][start : start + length] = [True] * length
    pdf = render_pdf(qr_design(content, size=size, quiet_zone=quiet_zone))
    # One rectangle per dark run plus the background, all in one path.
    assert len(re.findall(r" re\b", page_content(pdf))) == len(rows) + 1
    side = count + 2 * quiet_zone
    module_pixels = size / side * dpi / 72  # 16 pixels
    image = crop_points(page_image(pdf, dpi=dpi), (60, 60, size, size), dpi=dpi).convert("L")
    for y in range(side):
        for x in range(side):
            pixel = image.getpixel((int((x + 0.5) * module_pixels), int((y + 0.5) * module_pixels)))
            inside = quiet_zone <= x < quiet_zone + count and quiet_zone <= y < quiet_zone + count
            dark = inside and matrix[y - quiet_zone][x - quiet_zone]
            assert (pixel < 128) == dark, (x, y)


def test_barcode_bars_span_the_box_and_read_back():
    tree = build(
        [add("barcode", "b", {"x": 100, "y": 100, "w": 300, "h": 80}, {"content": "ROW-7", "displayValue": False})]
    )
    pdf = render_pdf(tree)
    _, runs, _ = barcode.bars("ROW-7", "CODE128")
    assert len(re.findall(r" re\b", page_content(pdf))) == len(runs)
    dpi = 144
    band = crop_points(page_image(pdf, dpi=dpi), (96, 140, 308, 1), dpi=dpi).convert("L")
    dark = [x for x in range(band.width) if band.getpixel((x, 0)) < 128]
    # CODE128 starts and ends with a bar: ink from the box's left edge to its right edge.
    assert dark[0] == round(4 * dpi / 72) and dark[-1] == round(304 * dpi / 72) - 1
    assert [r.text for r in zxingcpp.read_barcodes(page_image(pdf, dpi=200))] == ["ROW-7"]


@pytest.mark.parametrize("level", ["L", "M", "Q", "H"])
def test_the_quick_capacity_check_accepts_only_what_the_encoder_can_encode(level):
    """A value within byte mode's capacity is accepted without encoding it; around that edge
    the answer must be the encoder's, in ASCII and in UTF-8 (whose ECI header takes room)."""
    capacity = qr._BYTE_CAPACITY[level]
    for length in range(capacity - 4, capacity + 2):
        for text in ("a" * length, "é" * (length // 2)):
            try:
                qr.module_runs(text, level)
                encodable = True
            except ValueError:
                encodable = False
            try:
                qr.check_encodable(text, level)
                accepted = True
            except ValueError:
                accepted = False
            assert accepted == encodable, (level, length, text[0])
