"""What engine.media.pdf_pages checks of an uploaded PDF before any render places or adds its
pages (issue 48 and its review): decompression bombs behind any filter chain, forms that draw
themselves, a process out of memory told apart from a damaged PDF, and the time the checks
take on pages that share their resources."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
import time
import zlib

import pikepdf
import pytest

from engine.media import stream_sizes
from engine.media.pdf_pages import PdfPageError, pdf_facts
from tests import pdf_sources
from tests.paths import ROOT


def run_apart(script: str) -> str:
    """The script's output, run in a Python process of its own (a limit it sets stays there)."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_a_page_that_runs_the_process_out_of_memory_is_a_memory_error_not_a_damaged_pdf():
    """A render process recycles itself on a MemoryError (api.renderers.worker); a PdfPageError
    would be answered as a 400 blaming the PDF and leave the process as it is."""
    answer = run_apart(
        """
        import io, resource, zlib
        import pikepdf
        from engine.media.pdf_pages import PdfPageError, prepare_page

        document = pikepdf.new()
        document.add_blank_page(page_size=(200, 200))
        # Four million times "draw form /ab": each name found in Python, as the forms a page draws are.
        mark = document.make_stream(b"0 0 1 1 re f", Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Form)
        mark.BBox = [0, 0, 1, 1]
        document.pages[0].obj.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(ab=mark))
        deflated = zlib.compress(b"/ab Do " * 4_000_000)
        document.pages[0].obj.Contents = pikepdf.Stream(document, deflated, Filter=pikepdf.Name.FlateDecode)
        out = io.BytesIO()
        document.save(out)
        data = out.getvalue()
        with open("/proc/self/status") as status:
            size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
        # 128 MB more address space than the process has now: too little to list them all.
        resource.setrlimit(resource.RLIMIT_AS, (size + 128 * 2**20, resource.RLIM_INFINITY))
        try:
            prepare_page(data, 1, "0" * 24)
            print("placed")
        except MemoryError:
            print("MemoryError")
        except PdfPageError as exc:
            print("PdfPageError", exc)
        """
    )
    assert answer == "MemoryError"


def form(document: pikepdf.Pdf, content: bytes, **resources: pikepdf.Object) -> pikepdf.Stream:
    """A form XObject drawing `content`, with resources naming the given forms (none: no /Resources)."""
    made = document.make_stream(content, Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Form, BBox=[0, 0, 10, 10])
    if resources:
        made.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(**resources))
    return made


def saved(document: pikepdf.Pdf) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_form_without_resources_is_followed_again_under_resources_that_close_a_loop():
    """Form F has no resources and draws /Y: under P1's resources that is a square, under P2's
    it is P2 itself. P1 is drawn first; F must be looked at again under P2."""
    document = pikepdf.new()
    document.add_blank_page(page_size=(100, 100))
    shared = form(document, b"/Y Do")
    first = form(document, b"/F Do", F=shared, Y=form(document, b"0 0 1 1 re f"))
    second = form(document, b"/F Do", F=shared)
    second.Resources.XObject.Y = second
    page = document.pages[0].obj
    page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(P1=first, P2=second))
    page.Contents = document.make_stream(b"/P2 Do /P1 Do")  # P1 is looked at first
    with pytest.raises(PdfPageError, match=r"page 1 of the PDF draws a form XObject \(object \d+\) inside itself"):
        pdf_facts(saved(document))
    # Without the loop (P2's /Y a square too) the page is taken.
    second.Resources.XObject.Y = form(document, b"0 0 1 1 re f")
    assert pdf_facts(saved(document)).pages == 1


# --- Decompression bombs behind filter chains (engine.media.stream_sizes) ----------------------

BOMB_CHAINS = [
    ("FlateDecode",),
    ("ASCIIHexDecode", "FlateDecode"),
    ("ASCII85Decode", "FlateDecode"),
    ("FlateDecode", "FlateDecode"),
    ("LZWDecode",),
    ("ASCII85Decode", "LZWDecode"),
    ("RunLengthDecode",),
    ("FlateDecode", "RunLengthDecode"),
]


@pytest.mark.parametrize("chain", BOMB_CHAINS, ids="+".join)
def test_a_bomb_behind_any_filter_chain_is_refused_naming_the_limit(chain):
    """300 MB of spaces in a page's content, which PDFium inflates whole: before, only a stream
    whose first filter was Flate was counted (ASCIIHex around Flate, 597 KB, passed)."""
    data = pdf_sources.bomb_pdf(chain)
    assert len(data) < 5 * 1024 * 1024
    with pytest.raises(PdfPageError) as refused:
        pdf_facts(data)
    assert "decompresses to more than 256 MB" in str(refused.value) and "at most 256 MB" in str(refused.value)


def test_a_bomb_that_says_it_is_an_image_is_counted_where_a_page_reads_it_as_content():
    data = pdf_sources.bomb_pdf(("FlateDecode",), image=True)
    with pytest.raises(PdfPageError, match="decompresses to more than 256 MB"):
        pdf_facts(data)


def test_an_image_whose_pixels_decompress_past_the_bound_is_taken():
    """An image is decoded row by row and drawn downsampled: its pixels are not counted."""
    document = pikepdf.new()
    document.add_blank_page(page_size=(200, 200))
    deflater = zlib.compressobj(9)
    pixels = b"".join(deflater.compress(b"\xff" * 3 * 20_000 * 100) for _ in range(50)) + deflater.flush()
    image = pikepdf.Stream(document, pixels, Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Image)
    image.Width, image.Height, image.BitsPerComponent = 20_000, 5_000, 8
    image.ColorSpace, image.Filter = pikepdf.Name.DeviceRGB, pikepdf.Name.FlateDecode
    page = document.pages[0].obj
    page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im0=document.make_indirect(image)))
    page.Contents = document.make_stream(b"q 200 0 0 200 0 0 cm /Im0 Do Q")
    assert pdf_facts(saved(document)).pages == 1  # 300 MB of pixels


SAMPLES = [b"", b"a", bytes(range(256)) * 40, b"0 0 m 10 10 l S\n" * 30_000]


@pytest.mark.parametrize(
    "chain",
    [
        ("LZWDecode",),
        ("RunLengthDecode",),
        ("ASCIIHexDecode",),
        ("ASCII85Decode",),
        ("ASCII85Decode", "LZWDecode"),
        ("ASCIIHexDecode", "FlateDecode"),
        ("LZWDecode", "RunLengthDecode", "FlateDecode"),
    ],
    ids="+".join,
)
def test_the_size_counted_is_what_a_reader_decodes(chain):
    document = pikepdf.new()
    for sample in SAMPLES:
        stream = pikepdf.Stream(document, pdf_sources.encoded(sample, chain))
        stream.Filter = pikepdf.Array([pikepdf.Name("/" + name) for name in chain])
        read = stream.read_bytes(pikepdf.StreamDecodeLevel.specialized)  # qpdf's decoders
        assert read == sample
        assert stream_sizes.decoded_size(stream, 1 << 40) == len(read)


def test_lzw_and_runlength_past_what_is_decoded_in_python_are_refused_naming_the_fix():
    document = pikepdf.new()
    document.add_blank_page(page_size=(200, 200))
    literal = bytes([127]) + bytes(range(128))  # 128 bytes as they are: 9 MB of RunLength, 9 MB of content
    run = literal * (9 * 1024 * 1024 // len(literal)) + b"\x80"
    document.pages[0].obj.Contents = pikepdf.Stream(document, run, Filter=pikepdf.Name.RunLengthDecode)
    with pytest.raises(PdfPageError) as refused:
        pdf_facts(saved(document))
    message = str(refused.value)
    assert "compressed in a way docbench does not decompress to check its size" in message
    assert "LZW or RunLength over more than 8 MB" in message and "compress with Flate" in message


def test_a_predictor_followed_by_another_filter_is_refused_naming_the_fix():
    document = pikepdf.new()
    document.add_blank_page(page_size=(200, 200))
    stream = pikepdf.Stream(document, zlib.compress(zlib.compress(b"0 0 m\n" * 100)))
    stream.Filter = pikepdf.Array([pikepdf.Name.FlateDecode, pikepdf.Name.FlateDecode])
    stream.DecodeParms = pikepdf.Array([pikepdf.Dictionary(Predictor=12, Columns=6), None])
    document.pages[0].obj.Contents = stream
    with pytest.raises(PdfPageError, match="with a predictor, followed by another filter"):
        pdf_facts(saved(document))


# --- Time ---------------------------------------------------------------------------------------


@pytest.mark.alone  # a time is measured: the machine to itself
def test_pages_that_share_their_forms_are_checked_in_the_time_of_one():
    """The review's PDF: 200 pages sharing 40 forms of 150 KB took 2.7 s to check (every page
    wrote out every form again) where plain pages take 0.05 s; 10 s is all an upload gets."""
    document = pikepdf.new()
    forms = pikepdf.Dictionary()
    for number in range(40):
        forms[f"/X{number}"] = form(document, bytes(range(256)) * 600 + b"%d" % number)
    resources = document.make_indirect(pikepdf.Dictionary(XObject=forms))
    for _ in range(200):
        document.add_blank_page()
        document.pages[-1].obj.Resources = resources
        document.pages[-1].obj.Contents = document.make_stream(b"/X0 Do")
    data = saved(document)
    started = time.perf_counter()
    assert pdf_facts(data).pages == 200
    assert time.perf_counter() - started < 1.0
