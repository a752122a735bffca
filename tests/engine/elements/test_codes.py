"""QR codes and barcodes as drawn into real PDFs: read back by ZXing from a PDFium render,
their modules where the matrix puts them, their capacity per error-correction level, the
quiet zones their standards require kept blank inside their boxes, and EAN/UPC digits where
the standard sets them."""

import io
import re

import pikepdf
import pytest
import zxingcpp

from engine import render_pdf
from engine.elements import barcode, qr
from tests.codes import decode
from tests.pdf_checker import problems
from tests.pdf_probes import char_boxes, crop_points, page_image, page_sizes, pdf_text
from tests.validators import assert_passes_outloud, assert_valid_pdf_a

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


def qr_design(content: str, size: float = 200, level: str = "M", quiet_zone: int | None = 4):
    return build(
        [
            add(
                "qr",
                "q",
                {"x": 60, "y": 60, "size": size},
                {"content": content, "errorCorrection": level},
                None if quiet_zone is None else {"quietZone": quiet_zone},
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


def test_code128_bars_stand_ten_modules_inside_the_box_and_read_back():
    # "ROW-7" is 90 modules: with 10 of quiet zone each side, 3 pt a module in a 330 pt box.
    tree = build(
        [add("barcode", "b", {"x": 100, "y": 100, "w": 330, "h": 80}, {"content": "ROW-7", "displayValue": False})]
    )
    pdf = render_pdf(tree)
    _, runs, count = barcode.bars("ROW-7", "CODE128")
    assert count == 90
    assert len(re.findall(r" re\b", page_content(pdf))) == len(runs)
    dpi = 144
    band = crop_points(page_image(pdf, dpi=dpi), (96, 140, 338, 1), dpi=dpi).convert("L")
    dark = [x for x in range(band.width) if band.getpixel((x, 0)) < 128]
    # CODE128 starts and ends with a bar: ink from 10 modules inside the box's left edge to
    # 10 modules inside its right edge (ISO/IEC 15417's quiet zones), the box unchanged.
    assert dark[0] == (4 + 30) * dpi / 72 and dark[-1] == (334 - 30) * dpi / 72 - 1
    assert [r.text for r in zxingcpp.read_barcodes(page_image(pdf, dpi=200))] == ["ROW-7"]


# (format, content, what ZXing reads): a code 2 pt to the right of a filled dark rectangle.
# Before issue 33 the bars ran to the box's edges and no linear code here was read; the QR code
# was read even then (ZXing copes with 2 modules of quiet zone: its quiet zone is measured below).
BESIDE_A_SHAPE = [
    ("EAN13", "590123412345", "5901234123457"),
    ("UPCA", "03600029145", "0036000291452"),  # ZXing reads UPC-A as the EAN-13 it is
    ("EAN8", "9638507", "96385074"),
    ("ISBN13", "978-3-16-148410-0", "9783161484100"),
    ("CODE128", "ROW-000042", "ROW-000042"),
    ("CODE39", "HELLO-39", "HELLO-39"),
    ("ITF", "12345678", "12345678"),
    ("QR", "https://example.org/c/42", "https://example.org/c/42"),
]


def beside_a_shape(fmt: str, content: str, box: tuple[float, float, float, float], **data):
    x, y, w, h = box
    if fmt == "QR":
        code = add("qr", "code", {"x": x, "y": y, "size": w}, {"content": content})
    else:
        code = add("barcode", "code", {"x": x, "y": y, "w": w, "h": h}, {"content": content, "format": fmt, **data})
    # Dark rectangles 2 pt from the box on the left and on the right, taller than it.
    left = add("shape", "left", {"x": x - 42, "y": y - 10, "w": 40, "h": h + 20}, {}, {"fill": "#000000"})
    right = add("shape", "right", {"x": x + w + 2, "y": y - 10, "w": 40, "h": h + 20}, {}, {"fill": "#000000"})
    return render_pdf(build([left, code, right]))


@pytest.mark.parametrize("fmt,content,expected", BESIDE_A_SHAPE, ids=[row[0] for row in BESIDE_A_SHAPE])
def test_codes_two_points_from_a_dark_shape_decode(fmt, content, expected):
    pdf = beside_a_shape(fmt, content, (100, 100, 120 if fmt == "QR" else 200, 120 if fmt == "QR" else 80))
    for dpi in (150, 300):
        assert list(decode(page_image(pdf, dpi=dpi)).values()) == [expected], dpi


# The quiet zones the standards require, in narrow-bar widths (left, right), and python-barcode's
# units per narrow bar; written out here, not read from engine.elements.barcode.
STANDARD_QUIET_ZONES = {
    "EAN13": (11, 7, 1),  # ISO/IEC 15420 (extensions.md 17)
    "ISBN13": (11, 7, 1),
    "EAN8": (11, 7, 1),  # GS1: 7 and 7; extensions.md 17: 11 and 7 for EAN
    "UPCA": (11, 9, 1),  # GS1: 9 and 9; extensions.md 17: 11 left
    "CODE128": (10, 10, 1),  # ISO/IEC 15417
    "CODE39": (10, 10, 1),  # ISO/IEC 16388
    "ITF": (10, 10, 2),  # ISO/IEC 16390; python-barcode draws the narrow bar 2 units wide
}


@pytest.mark.parametrize("fmt,content,expected", BESIDE_A_SHAPE[:-1], ids=[row[0] for row in BESIDE_A_SHAPE[:-1]])
def test_barcode_quiet_zones_are_blank_inside_the_box(fmt, content, expected):
    """No dark pixel between the box's edges and the bars, over the bars' height, within the
    standard's quiet zone: measured in bar widths from the drawn bars themselves."""
    box, dpi = (100.0, 100.0, 200.0, 80.0), 300
    pdf = beside_a_shape(fmt, content, box)
    x, y, w, h = box
    # The bars' band: the top 40 % of the box, above any digits (EAN-13's first one stands
    # in the quiet zone, below the bars, as the standard puts it).
    band = crop_points(page_image(pdf, dpi=dpi), (x, y, w, h * 0.4), dpi=dpi).convert("L")
    columns = [c for c in range(band.width) if any(band.getpixel((c, r)) < 128 for r in range(band.height))]
    scale = dpi / 72
    first, last = columns[0] / scale, (columns[-1] + 1) / scale  # points from the box's left edge
    _, _, units = barcode.bars(content, fmt)
    left, right, narrow = STANDARD_QUIET_ZONES[fmt]
    module = (last - first) / units * narrow  # a narrow bar's width, as drawn
    tolerance = 1.5 / scale  # a pixel and a half of antialiasing
    assert first >= left * module - tolerance, (first / module, left)
    assert w - last >= right * module - tolerance, ((w - last) / module, right)
    # The box is used: the zones are no wider than the standard's (and half a module).
    assert first <= (left + 0.5) * module and w - last <= (right + 0.5) * module


@pytest.mark.parametrize("quiet_zone,drawn", [(None, 4), (0, 4), (2, 4), (4, 4), (6, 6)])
def test_qr_keeps_at_least_four_modules_of_quiet_zone(quiet_zone, drawn):
    """ISO/IEC 18004's 4 modules, whatever a design stored before issue 33 holds (its
    quietZone 2 was the default then, kept in the design as a value); more when asked."""
    content, size, dpi = "https://example.org/q", 200.0, 288
    count, _ = qr.module_runs(content, "M")
    pdf = render_pdf(qr_design(content, size=size, quiet_zone=quiet_zone))
    image = crop_points(page_image(pdf, dpi=dpi), (60, 60, size, size), dpi=dpi).convert("L")
    dark = [(c, r) for r in range(image.height) for c in range(image.width) if image.getpixel((c, r)) < 128]
    module = size / (count + 2 * drawn) * dpi / 72  # pixels
    lefts, tops = [c for c, _ in dark], [r for _, r in dark]
    for near, far in ((min(lefts), max(lefts)), (min(tops), max(tops))):
        assert abs(near - drawn * module) <= 1.5 and abs(image.width - 1 - far - drawn * module) <= 1.5
    (found,) = read_qr(pdf)
    assert found.text == content


def digit_boxes(pdf: bytes) -> list[tuple[str, float, float, float]]:
    """(digit, left, right, height) of every digit PDFium reads, in points, in reading order."""
    return [(c, box[0], box[2], box[3] - box[1]) for c, box in char_boxes(pdf) if c.isdigit()]


def bar_edges(pdf: bytes, box: tuple[float, float, float, float], dpi: float = 300) -> tuple[float, float]:
    """(left, right) in points of the bars' ink in the top 40 % of the box."""
    x, y, w, h = box
    band = crop_points(page_image(pdf, dpi=dpi), (x, y, w, h * 0.4), dpi=dpi).convert("L")
    columns = [c for c in range(band.width) if any(band.getpixel((c, r)) < 128 for r in range(band.height))]
    return x + columns[0] * 72 / dpi, x + (columns[-1] + 1) * 72 / dpi


def code_pdf(fmt: str, content: str, box: tuple[float, float, float, float]) -> bytes:
    x, y, w, h = box
    return render_pdf(
        build([add("barcode", "b", {"x": x, "y": y, "w": w, "h": h}, {"content": content, "format": fmt})])
    )


def test_ean13_digits_stand_in_the_standard_layout():
    """The first digit left of the bars, then six under the left half and six under the right
    (between the start, centre and end guard bars, which reach down between the groups)."""
    box = (100.0, 100.0, 226.0, 90.0)  # 113 modules (11 + 95 + 7) of 2 pt
    pdf = code_pdf("EAN13", "590123412345", box)
    left, right = bar_edges(pdf, box)
    module = (right - left) / 95
    assert module == pytest.approx(2.0, abs=0.02)
    digits = digit_boxes(pdf)
    assert "".join(d for d, *_ in digits) == "5901234123457"
    first, left_group, right_group = digits[0], digits[1:7], digits[7:]
    assert box[0] <= first[1] and first[2] <= left  # in the quiet zone, inside the box
    assert all(left + 3 * module <= a and b <= left + 45 * module for _, a, b, _ in left_group)
    assert all(left + 50 * module <= a and b <= right - 3 * module for _, a, b, _ in right_group)
    # One digit under each 7-module symbol character.
    for group, start in ((left_group, 3), (right_group, 50)):
        for i, (_, a, b, _) in enumerate(group):
            assert (a + b) / 2 == pytest.approx(left + (start + 7 * i + 3.5) * module, abs=module)
    assert pdf_text(pdf)[0].split() == ["5", "901234", "123457"]
    # The guard bars run down into the digits' line, a point below the digits' tops.
    dpi = 300
    x, y, w, h = box
    ((_, page_height),) = page_sizes(pdf)
    top_of_digits = min(page_height - char[3] for c, char in char_boxes(pdf) if c.isdigit())
    row = crop_points(page_image(pdf, dpi=dpi), (x, top_of_digits + 1, w, 0.5), dpi=dpi).convert("L")
    inked = [round(x + (c + 0.5) * 72 / dpi, 1) for c in range(row.width) if row.getpixel((c, 0)) < 128]
    guards = [(0, 1), (2, 3), (46, 47), (48, 49), (92, 93), (94, 95)]  # 101 … 01010 … 101
    for a, b in guards:
        assert any(left + a * module < p < left + b * module for p in inked), (a, b)
    # Under the halves, only the digits' own ink: the other bars stop above the line.
    halves = [
        p for p in inked if left + 4 * module < p < left + 44 * module or left + 51 * module < p < left + 91 * module
    ]
    assert halves and all(any(a - 0.5 <= p <= b + 0.5 for _, a, b, _ in digits) for p in halves)


def test_upca_outer_digits_stand_outside_in_smaller_type_and_ean8_in_two_fours():
    box = (100.0, 100.0, 230.0, 90.0)  # 115 modules (11 + 95 + 9) of 2 pt
    pdf = code_pdf("UPCA", "03600029145", box)
    left, right = bar_edges(pdf, box)
    digits = digit_boxes(pdf)
    assert "".join(d for d, *_ in digits) == "036000291452"
    first, last, inner = digits[0], digits[-1], digits[1:-1]
    assert first[2] <= left and right <= last[1] <= last[2] <= box[0] + box[2]
    assert first[3] < min(d[3] for d in inner) and last[3] < min(d[3] for d in inner)
    module = (right - left) / 95
    assert all(left + 10 * module <= d[1] and d[2] <= left + 45 * module for d in inner[:5])
    assert all(left + 50 * module <= d[1] and d[2] <= left + 85 * module for d in inner[5:])
    assert pdf_text(pdf)[0].split() == ["0", "36000", "29145", "2"]

    box = (100.0, 100.0, 170.0, 90.0)  # 85 modules (11 + 67 + 7) of 2 pt
    pdf = code_pdf("EAN8", "9638507", box)
    left, right = bar_edges(pdf, box)
    module = (right - left) / 67
    digits = digit_boxes(pdf)
    assert all(left + 3 * module <= d[1] and d[2] <= left + 31 * module for d in digits[:4])
    assert all(left + 36 * module <= d[1] and d[2] <= left + 64 * module for d in digits[4:])
    assert pdf_text(pdf)[0].split() == ["9638", "5074"]


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


def test_retail_codes_in_the_tagged_profiles_pass_the_validators(tmp_path):
    """The digits drawn group by group (letter-spaced, in smaller type outside the bars) stay
    inside the barcode's Figure: PDF/A-3b, PDF/UA-1 and our structural checker accept them."""
    tree = build(
        [
            add(
                "barcode", "ean", {"x": 60, "y": 60, "w": 226, "h": 90}, {"content": "590123412345", "format": "EAN13"}
            ),
            add(
                "barcode",
                "upc",
                {"x": 60, "y": 200, "w": 230, "h": 90},
                {"content": "03600029145", "format": "UPCA", "alt": "Barcode of the product number"},
            ),
        ],
        title="Retail codes",
    )
    for profile in ("accessible", "pdf-a"):
        pdf = render_pdf(tree, profile=profile)
        assert problems(pdf) == [], profile
        path = tmp_path / f"{profile}.pdf"
        path.write_bytes(pdf)
        (assert_valid_pdf_a if profile == "pdf-a" else assert_passes_outloud)(path)
        read = sorted(r.text for r in zxingcpp.read_barcodes(page_image(pdf, dpi=200)))
        assert read == ["0036000291452", "5901234123457"], profile
