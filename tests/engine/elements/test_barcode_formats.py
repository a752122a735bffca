"""The barcode formats of extensions.md 14 as drawn into real PDFs: each read back by ZXing from
a 150 dpi PDFium render, drawn as vector modules, their values checked per format (GS1
element strings AI by AI), their human-readable lines, their capacities."""

import re

import numpy as np
import pytest
import zxingcpp

from engine import render_pdf
from engine.design.variables import apply_values
from engine.elements import barcode, gs1
from engine.errors import ValueBindingError
from tests.pdf_probes import filled_rectangles, page_image, pdf_text, raster_images

from ...conftest import action, add, build

ELEMENT_STRING = "(01)09501101530003(17)260101(10)AB12"
# format -> (content, box, ZXing's format, the text ZXing reads)
FORMATS = {
    "datamatrix": ("Lot 42 · Grüße", (60, 60, 120, 120), "DataMatrix", "Lot 42 · Grüße"),
    "gs1-datamatrix": (ELEMENT_STRING, (60, 60, 150, 170), "DataMatrix", ELEMENT_STRING),
    "pdf417": ("TICKET 0042 ROW F SEAT 17 · 2026-11-27", (60, 60, 360, 110), "PDF417", None),
    "aztec": ("https://example.org/t/0042?k=Ab9", (60, 60, 120, 120), "Aztec", None),
    # ZXing reads a UPC-E as the EAN-13 form of the UPC-A it stands for.
    "upce": ("0123456", (60, 60, 150, 80), "UPCE", "0012345000065"),
    "gs1-128": (ELEMENT_STRING, (60, 60, 420, 90), "Code128", ELEMENT_STRING),
    "itf14": ("1234567890123", (60, 60, 320, 90), "ITF", "12345678901231"),
}


def code_design(fmt: str, content: str, box=(60, 60, 200, 80), **data):
    x, y, w, h = box
    return build([add("barcode", "b", {"x": x, "y": y, "w": w, "h": h}, {"content": content, "format": fmt, **data})])


def read(pdf: bytes) -> list[zxingcpp.Barcode]:
    return zxingcpp.read_barcodes(page_image(pdf, dpi=150))


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_new_format_reads_back_from_a_150_dpi_render(fmt):
    content, box, zxing_format, text = FORMATS[fmt]
    (found,) = read(render_pdf(code_design(fmt, content, box)))
    assert found.format == getattr(zxingcpp.BarcodeFormat, zxing_format)
    assert found.text == (text or content)


@pytest.mark.parametrize("fmt,identifier", [("gs1-128", "]C1"), ("gs1-datamatrix", "]d2")])
def test_gs1_formats_carry_fnc1(fmt, identifier):
    # ]C1 and ]d2 are the symbology identifiers of a symbol whose first codeword is FNC1
    # (ISO/IEC 15424); the raw bytes hold a GS separator after the variable-length (10), none
    # after the fixed-length (01) and (17).
    content = "(01)09501101530003(10)AB12(17)260101"
    (found,) = read(render_pdf(code_design(fmt, content, FORMATS[fmt][1])))
    assert found.symbology_identifier == identifier
    assert found.content_type == zxingcpp.ContentType.GS1
    assert found.bytes == b"010950110153000310AB12\x1d17260101"


def test_itf14_reads_as_a_14_digit_itf_with_its_check_digit():
    (found,) = read(render_pdf(code_design("itf14", "12345678901231", FORMATS["itf14"][1])))
    assert found.symbology_identifier == "]I1"  # check digit present and verified


@pytest.mark.parametrize("fmt", FORMATS)
def test_new_formats_are_vector_modules_one_path_per_symbol(fmt):
    content, box, _, _ = FORMATS[fmt]
    pdf = render_pdf(code_design(fmt, content, box, displayValue=False))
    assert raster_images(pdf) == 0
    (rectangles,) = filled_rectangles(pdf)
    if fmt in barcode.MATRIX_FORMATS:
        assert rectangles == len(barcode.matrix(content, fmt).starts)
    else:  # a bar a run, and ITF-14's two bearer bars
        assert rectangles == len(barcode.bars(content, fmt)[1]) + (2 if fmt == "itf14" else 0)


def test_pdf417_rows_are_one_rectangle_per_run_not_per_module_row():
    content = "TICKET 0042 ROW F SEAT 17"
    symbol = zxingcpp.create_barcode(content, zxingcpp.BarcodeFormat.PDF417)
    dark = np.asarray(symbol.to_image(scale=1, add_quiet_zones=False)) == 0
    module_row_runs = sum(len(re.findall("1+", "".join("1" if v else "0" for v in row))) for row in dark.tolist())
    pdf = render_pdf(code_design("pdf417", content, FORMATS["pdf417"][1]))
    # Each PDF417 row is three modules tall, drawn as one band: a third of the module rows' runs.
    assert filled_rectangles(pdf) == [module_row_runs // 3]


@pytest.mark.parametrize("fmt", ["datamatrix", "aztec"])
def test_2d_symbols_are_square_and_centred_in_a_wide_box(fmt):
    pdf = render_pdf(code_design(fmt, "centred", (100, 100, 300, 100)))
    (found,) = read(pdf)
    xs = [p.x for p in (found.position.top_left, found.position.bottom_right)]
    ys = [p.y for p in (found.position.top_left, found.position.bottom_right)]
    scale = 150 / 72
    assert abs((xs[0] + xs[1]) / 2 / scale - 250) < 2 and abs((ys[0] + ys[1]) / 2 / scale - 150) < 2
    assert abs((xs[1] - xs[0]) - (ys[1] - ys[0])) <= 2


@pytest.mark.parametrize(
    "fmt,content,line",
    [
        ("gs1-128", ELEMENT_STRING, ELEMENT_STRING),
        ("gs1-datamatrix", ELEMENT_STRING, ELEMENT_STRING),
        ("itf14", "1234567890123", "12345678901231"),
    ],
)
def test_human_readable_line_under_the_symbol(fmt, content, line):
    pdf = render_pdf(code_design(fmt, content, FORMATS[fmt][1]))
    assert pdf_text(pdf) == [line]
    assert pdf_text(render_pdf(code_design(fmt, content, FORMATS[fmt][1], displayValue=False))) == [""]


def test_upce_digits_stand_as_on_a_retail_label():
    # Number system left of the bars, the six digits under them, the check digit right.
    pdf = render_pdf(code_design("upce", "0123456", FORMATS["upce"][1]))
    assert "".join(pdf_text(pdf)).replace(" ", "").replace("\n", "") == "01234565"


@pytest.mark.parametrize("fmt", ["datamatrix", "pdf417", "aztec"])
def test_plain_2d_codes_have_no_human_readable_line(fmt):
    assert pdf_text(render_pdf(code_design(fmt, "no line", (60, 60, 200, 120)))) == [""]


@pytest.mark.parametrize(
    "content,normal",
    [("123456", "01234565"), ("0123456", "01234565"), ("01234565", "01234565"), ("1123456", "11234562")],
)
def test_upce_takes_6_7_or_8_digits_and_computes_the_check_digit(content, normal):
    assert barcode.normalise(content, "upce") == normal


@pytest.mark.parametrize(
    "content,message",
    [
        ("12345", "upce takes 6 digits, 7 with the number system (0 or 1) first, or 8 with the check digit last"),
        ("2123456", "upce's number system is 0 or 1; 2123456 starts with 2"),
        ("01234567", "check digit of 01234567 is wrong: it should be 5"),
        ("12345a", "upce takes 6 digits"),
    ],
)
def test_upce_refusals_name_the_fix(content, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        barcode.BarcodeData(content=content, format="upce")


def test_upce_expands_to_its_upca_by_the_last_digit():
    # GS1 General Specifications 5.2.2.4.2, one example per rule.
    assert barcode.upce_to_upca("0123450") == "01200000345"
    assert barcode.upce_to_upca("0123453") == "01230000045"
    assert barcode.upce_to_upca("0123454") == "01234000005"
    assert barcode.upce_to_upca("0123457") == "01234500007"


def test_itf14_computes_or_verifies_its_check_digit():
    assert barcode.normalise("1234567890123", "itf14") == "12345678901231"
    assert barcode.normalise("12345678901231", "itf14") == "12345678901231"
    with pytest.raises(ValueError, match="check digit of 12345678901234 is wrong: it should be 1"):
        barcode.BarcodeData(content="12345678901234", format="itf14")
    with pytest.raises(ValueError, match="itf14 takes 13 digits, or 14 with the check digit"):
        barcode.BarcodeData(content="123456789012", format="itf14")


def test_gs1_element_string_reads_into_its_application_identifiers():
    assert gs1.parse("(00)095011015300000010(3103)000750(8003)09501101530003SER-1(91)x(y)") == (
        ("00", "095011015300000010"),
        ("3103", "000750"),
        ("8003", "09501101530003SER-1"),
        ("91", "x(y)"),
    )


@pytest.mark.parametrize(
    "content,message",
    [
        ("(01)09501101530004", "check digit of (01)09501101530004 is wrong: it should be 3"),
        ("(00)095011015300000018", "check digit of (00)095011015300000018 is wrong: it should be 0"),
        ("(414)9501101530004", "check digit of (414)9501101530004 is wrong: it should be 3"),
        ("(85)1234", "unknown GS1 application identifier (85); docbench checks 00-02"),
        ("(01)0950110153000", "(01) takes 14 digits, the last a check digit; '0950110153000' has 13 characters"),
        ("(10)ABCDEFGHIJKLMNOPQRSTU", "(10) takes up to 20 characters"),
        ("(17)261301", "(17) takes a date YYMMDD; 261301 has month 13"),
        ("(11)250229", "(11) takes a date YYMMDD; 250229 has no day 29 in its month"),
        ("(7003)2601012460", "(7003) takes a date and time YYMMDDHHMM; 2601012460 has no time 24:60"),
        ("(10)AB#1", "(10) takes GS1's character set 82"),
        ("(37)12a", "(37) takes up to 8 digits; '12a' is not all digits"),
        ("(10)A(10)B", "application identifier (10) is given twice"),
        ("01095011015300031", "starts with an application identifier in parentheses"),
        ("(01)", "(01) has no value"),
    ],
)
def test_gs1_refusals_name_the_fix(content, message):
    for fmt in ("gs1-128", "gs1-datamatrix"):
        with pytest.raises(ValueError) as refused:
            barcode.BarcodeData(content=content, format=fmt)
        assert message in str(refused.value)


def test_gs1_dates_accept_day_00_and_leap_days():
    assert gs1.parse("(17)260100(15)280229") == (("17", "260100"), ("15", "280229"))


def test_gs1_128_holds_48_data_characters():
    # (01) and 14 digits are 16 characters; (10) and 20, (21) and 8 bring them to 48.
    most = "(01)09501101530003(10)ABCDEFGHIJKLMNOPQRST(21)12345678"
    assert barcode.normalise(most, "gs1-128") == most
    with pytest.raises(ValueError, match="gs1-128 holds at most 48 characters of AIs and values; this has 49"):
        barcode.BarcodeData(content=most + "1", format="gs1-128")
    barcode.BarcodeData(content=most + "1", format="gs1-datamatrix")


@pytest.mark.parametrize(
    "fmt,longest",
    [("datamatrix", "1" * 3116), ("datamatrix", "\x01" * 1558), ("pdf417", "1" * 2528), ("aztec", "1" * 3835)],
)
def test_2d_capacity_refusal_names_the_limit(fmt, longest):
    barcode.BarcodeData(content=longest, format=fmt)
    with pytest.raises(ValueError, match=f"content is too long for {fmt} .*: its largest symbol holds "):
        barcode.BarcodeData(content=longest + longest[0], format=fmt)


@pytest.mark.parametrize("fmt", ["datamatrix", "gs1-datamatrix", "pdf417", "aztec"])
def test_content_longer_than_any_symbol_is_refused_before_encoding(fmt):
    with pytest.raises(ValueError, match=rf"content is too long for {fmt} \(100000 bytes\): its largest symbol holds"):
        barcode.BarcodeData(content="1" * 100_000, format=fmt)


def test_bound_code_refuses_a_bad_gs1_value_and_takes_a_good_one():
    tree = build(
        [
            add(
                "barcode",
                "code",
                {"x": 60, "y": 60, "w": 420, "h": 90},
                {"content": ELEMENT_STRING, "format": "gs1-128"},
            ),
            action("bind_variable", name="code"),
        ]
    )
    with pytest.raises(ValueBindingError, match="variable 'code': check digit of \\(01\\)09501101530004 is wrong"):
        apply_values(tree, {"code": "(01)09501101530004"})
    filled = apply_values(tree, {"code": "(01)09501101530003(21)SN-7"})
    (found,) = read(render_pdf(filled))
    assert found.text == "(01)09501101530003(21)SN-7"
