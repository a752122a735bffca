"""PDFs made by other producers, for the tests of placed pages and base PDFs (extensions.md 12):
a ReportLab canvas letterhead, a ReportLab form with fields, a page printed by headless
Chromium and one compiled by Typst (when the bench extra is installed)."""

from __future__ import annotations

import functools
import io
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from multiprocessing import get_context
from pathlib import Path

import pikepdf
from reportlab.lib import colors
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from engine.fonts import FONT_DIR

A4 = (595.0, 842.0)


_MAKERS: dict[str, Callable[..., bytes]] = {}


def _apart(maker: Callable[..., bytes]) -> Callable[..., bytes]:
    """Run a maker that embeds a TrueType face in a process of its own. ReportLab keeps its
    fonts and their per-document subsets process-wide: the engine's DejaVu Sans and this
    module's registration of the same file would otherwise share state in a test's process
    (a later lam-alef ligature then lost its ToUnicode entry)."""
    _MAKERS[maker.__name__] = maker

    @functools.wraps(maker)
    def made(*args: object, **kwargs: object) -> bytes:
        with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
            return pool.submit(_make, maker.__name__, args, kwargs).result(timeout=120)

    return made


def _make(name: str, args: tuple, kwargs: dict) -> bytes:
    return _MAKERS[name](*args, **kwargs)


def _embedded_font() -> str:
    """A TrueType face registered with ReportLab under a name of this module's own."""
    name = "PdfSourcesDejaVu"
    if name not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(name, str(FONT_DIR / "dejavu-sans" / "DejaVuSans.ttf")))
    return name


@cache
@_apart
def reportlab_letterhead(embedded: bool = True) -> bytes:
    """Two A4 pages drawn on a ReportLab canvas: a letterhead (company name at the top, a blue
    band at the bottom), then a page of terms. Its fonts are embedded, or the standard
    Helvetica (not embedded) when `embedded` is False."""
    font = _embedded_font() if embedded else "Helvetica"
    out = io.BytesIO()
    # ReportLab sets its initial font on every page: Helvetica unless told otherwise.
    canvas = Canvas(out, pagesize=A4, invariant=1, initialFontName=font)
    canvas.setFont(font, 20)
    canvas.drawString(50, 780, "Northwind Letterhead")
    canvas.setFont(font, 9)
    canvas.drawString(50, 765, "12 Harbour Road, Bristol")
    canvas.setFillColorRGB(0.1, 0.3, 0.7)
    canvas.rect(40, 30, 515, 16, stroke=0, fill=1)
    canvas.showPage()
    canvas.setFont(font, 14)
    canvas.drawString(60, 700, "Terms and conditions")
    canvas.showPage()
    canvas.save()
    return out.getvalue()


@cache
@_apart
def reportlab_form() -> bytes:
    """An A4 application form with AcroForm fields (ReportLab's canvas.acroForm): a text field
    'full name', a checked check box 'agree', a radio group 'colour' (blue chosen) on page 1,
    and a text field '2nd.city' holding 'Paris' on a Letter-sized page 2."""
    font = _embedded_font()
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1, initialFontName=font)
    form = canvas.acroForm
    canvas.setFont(font, 12)
    canvas.drawString(50, 800, "Application form")
    canvas.drawString(50, 752, "Full name:")
    form.textfield(name="full name", x=150, y=745, width=300, height=22, fontSize=11, value="")
    form.checkbox(name="agree", x=150, y=700, size=16, checked=True)
    form.radio(name="colour", value="red", x=150, y=660, size=14, selected=False)
    form.radio(name="colour", value="blue", x=200, y=660, size=14, selected=True)
    canvas.showPage()
    canvas.setPageSize((612, 792))
    canvas.setFont(font, 12)
    canvas.drawString(50, 740, "Page two")
    form.textfield(name="2nd.city", x=100, y=500, width=200, height=20, value="Paris")
    canvas.showPage()
    canvas.save()
    return out.getvalue()


@cache
@_apart
def reportlab_every_field_form() -> bytes:
    """An A4 form with a field of every kind, made with ReportLab's canvas.acroForm and finished
    with pikepdf where ReportLab has no way (a field hierarchy, a signature field, a push button,
    /Q, an auto-sized /DA, a radio group's /Opt labels, a value outside Windows-1252):

    - 'applicant' > 'name' (so 'applicant.name'): text, 'Ada Lovelace', required, tooltip
      'Full name', MaxLen 40, /Q 1 (centred), auto size (/DA 0 Tf), blue text;
    - 'notes': multiline, 'Line one\\nLine two', red border 2 pt, yellow background;
    - 'reference': read-only text 'REF-42'; 'motto': text holding 'Ωμέγα' (not Windows-1252);
    - 'agree': a checked check box; 'newsletter' an unchecked one;
    - 'size': a radio group S / M / L stacked at x 150, M chosen; 'contact': a radio group whose
      buttons' states are 0 and 1 with /Opt labels 'By e-mail', 'By phone', nothing chosen;
    - 'country': a combo box of (fr, France), (de, Germany), '' (a blank option), Germany chosen;
    - 'languages': a list box of English, Français, Ελληνικά with Ελληνικά chosen;
    - 'signature': a signature field; 'reset': a push button."""
    font = _embedded_font()
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1, initialFontName=font)
    form = canvas.acroForm
    canvas.setFont(font, 12)
    canvas.drawString(50, 800, "Every field")
    form.textfield(
        name="name",
        x=150,
        y=760,
        width=300,
        height=24,
        value="Ada Lovelace",
        fieldFlags="required",
        tooltip="Full name",
        maxlen=40,
    )
    form.textfield(
        name="notes",
        x=150,
        y=680,
        width=300,
        height=60,
        value="Line one\nLine two",
        fieldFlags="multiline",
        borderColor=colors.red,
        fillColor=colors.yellow,
        borderWidth=2,
        fontSize=10,
    )
    form.textfield(name="reference", x=150, y=640, width=120, height=20, value="REF-42", fieldFlags="readOnly")
    form.textfield(name="motto", x=300, y=640, width=150, height=20, value="")
    form.checkbox(name="agree", x=150, y=600, size=16, checked=True, fieldFlags="")
    form.checkbox(name="newsletter", x=200, y=600, size=16, checked=False, fieldFlags="")
    for index, value in enumerate(("S", "M", "L")):
        form.radio(
            name="size",
            value=value,
            x=150,
            y=560 - index * 20,
            size=14,
            selected=value == "M",
            fieldFlags="noToggleToOff radio",
        )
    for index in range(2):
        form.radio(
            name="contact",
            value=str(index),
            x=300 + index * 60,
            y=540,
            size=14,
            selected=False,
            fieldFlags="noToggleToOff radio",
        )
    form.choice(
        name="country",
        x=150,
        y=460,
        width=150,
        height=20,
        value="de",
        options=[("France", "fr"), ("Germany", "de"), ""],
    )
    form.listbox(
        name="languages",
        x=150,
        y=380,
        width=150,
        height=60,
        value="English",
        options=["English", "Français", "Deutsch"],
    )
    canvas.showPage()
    canvas.save()
    with pikepdf.open(io.BytesIO(out.getvalue())) as document:
        acro = document.Root.AcroForm
        page = document.pages[0].obj
        by_name = {str(field.T): field for field in acro.Fields}
        name = by_name["name"]
        name.DA = pikepdf.String("/Helv 0 Tf 0 0 1 rg")
        name.Q = 1
        parent = document.make_indirect(pikepdf.Dictionary(T=pikepdf.String("applicant"), Kids=[name]))
        name.Parent = parent
        by_name["motto"].V = pikepdf.String("Ωμέγα")
        by_name["contact"].Opt = pikepdf.Array([pikepdf.String("By e-mail"), pikepdf.String("By phone")])
        languages = by_name["languages"]
        languages.Opt = pikepdf.Array([pikepdf.String(v) for v in ("English", "Français", "Ελληνικά")])
        languages.V = pikepdf.String("Ελληνικά")
        added = []
        for entries in (
            {"T": "signature", "FT": pikepdf.Name.Sig, "Rect": [150, 300, 350, 340]},
            {"T": "reset", "FT": pikepdf.Name.Btn, "Ff": 1 << 16, "Rect": [400, 300, 480, 320]},
        ):
            widget = pikepdf.Dictionary(
                Type=pikepdf.Name.Annot,
                Subtype=pikepdf.Name.Widget,
                F=4,
                P=page,
                **{key: pikepdf.String(value) if key == "T" else value for key, value in entries.items()},
            )
            added.append(document.make_indirect(widget))
        page.Annots.extend(added)
        fields = [parent if str(field.T) == "name" else field for field in acro.Fields]
        acro.Fields = pikepdf.Array(fields + added)
        finished = io.BytesIO()
        document.save(finished)
        return finished.getvalue()


def many_fields_form(count: int) -> bytes:
    """One page with `count` text fields."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1)
    for index in range(count):
        canvas.acroForm.textfield(
            name=f"f{index}", x=20 + (index % 20) * 28, y=20 + (index // 20) * 30, width=25, height=20
        )
    canvas.showPage()
    canvas.save()
    return out.getvalue()


CHROMIUM_PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>
@page { size: A4; margin: 0 }
body { font-family: sans-serif; margin: 48px }
h1 { color: #1f4e8c; font-size: 28px }
.band { position: absolute; bottom: 40px; left: 48px; width: 500px; height: 12px; background: #1f4e8c; opacity: 0.5 }
</style></head><body><h1>Chromium Letterhead GmbH</h1><p>Hauptstrasse 1, Berlin</p><div class="band"></div>
</body></html>
"""


@cache
def chromium_letterhead() -> bytes:
    """An A4 page printed by headless Chromium (Debian's chromium), with a half-transparent band."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise RuntimeError("chromium is not installed")
    with tempfile.TemporaryDirectory() as directory:
        page = Path(directory) / "letterhead.html"
        page.write_text(CHROMIUM_PAGE, encoding="utf-8")
        out = Path(directory) / "out.pdf"
        command = [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-pdf-header-footer",
            f"--user-data-dir={directory}/profile",
            f"--print-to-pdf={out}",
            page.as_uri(),
        ]
        subprocess.run(command, capture_output=True, timeout=120, check=True)
        return out.read_bytes()


@cache
def typst_letterhead() -> bytes:
    """An A4 page compiled by Typst (the bench extra's `typst`; the caller skips without it)."""
    import typst

    source = b'#set page(paper: "a4")\n= Typst Letterhead\nInvoices from the harbour office.'
    return typst.compile(source)


def rotated(pdf: bytes, degrees: int) -> bytes:
    """The PDF with /Rotate set on its first page."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        document.pages[0].obj.Rotate = degrees
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()


def with_field_entries(pdf: bytes, field: str, **entries: object) -> bytes:
    """The PDF with `entries` set on its top-level field named `field` (lists become arrays,
    str text strings), e.g. Opt=[""] or Rect=[…]."""

    def pdf_object(value: object) -> object:
        if isinstance(value, list):
            return pikepdf.Array([pdf_object(item) for item in value])
        return pikepdf.String(value) if isinstance(value, str) else value

    with pikepdf.open(io.BytesIO(pdf)) as document:
        for entry in document.Root.AcroForm.Fields:
            if str(entry.get("/T", "")) == field:
                for key, value in entries.items():
                    entry[f"/{key}"] = pdf_object(value)
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()


def encrypted(pdf: bytes) -> bytes:
    with pikepdf.open(io.BytesIO(pdf)) as document:
        out = io.BytesIO()
        document.save(out, encryption=pikepdf.Encryption(owner="owner", user="secret"))
        return out.getvalue()


def pages_pdf(count: int) -> bytes:
    """A PDF of `count` small blank pages."""
    document = pikepdf.new()
    for _ in range(count):
        document.add_blank_page(page_size=(100, 100))
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def with_blend_mode(pdf: bytes, mode: str) -> bytes:
    """The PDF with a graphics state of blend mode `mode` used on its first page."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        page = document.pages[0]
        state = pikepdf.Dictionary(Type=pikepdf.Name.ExtGState, BM=pikepdf.Name("/" + mode), ca=0.5)
        name = page.add_resource(state, pikepdf.Name.ExtGState)
        page.contents_add(document.make_stream(f"q {name} gs 0 0 1 rg 100 100 50 50 re f Q".encode()))
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()


def coloured_pages(*colours: tuple[float, float, float]) -> bytes:
    """A4 pages drawn on a ReportLab canvas, each filled with one colour (RGB, 0–1): which page
    a background shows can be told from one pixel."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, invariant=1)
    for red, green, blue in colours:
        canvas.setFillColorRGB(red, green, blue)
        canvas.rect(0, 0, *A4, stroke=0, fill=1)
        canvas.showPage()
    canvas.save()
    return out.getvalue()
