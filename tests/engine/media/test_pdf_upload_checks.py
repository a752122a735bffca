"""What engine.media.pdf_pages checks of an uploaded PDF before any render places or adds its
pages (issue 48 and its review): decompression bombs behind any filter chain, forms that draw
themselves, a process out of memory told apart from a damaged PDF, and the time the checks
take on pages that share their resources."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap

import pikepdf
import pytest

from engine.media.pdf_pages import PdfPageError, pdf_facts
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
