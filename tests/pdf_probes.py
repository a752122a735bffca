"""The PDF probes every test uses: what a reader sees of a PDF (text, pages, pixels, boxes,
fonts, content-stream operators, the structure tree, annotations), read with PDFium
(pypdfium2), pikepdf, poppler (pdftotext) and MuPDF (mutool), in one place. A test that needs
a probe not here adds it here, so that two tests never read a PDF two ways
(tests/test_harness.py holds to that for PDFium and the command-line readers).
"""

from __future__ import annotations

import ctypes
import io
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pikepdf
import pikepdf.pdfa
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image

Box = tuple[float, float, float, float]


def pdf_text(pdf: bytes) -> list[str]:
    """The text of every page, extracted by PDFium."""
    document = pdfium.PdfDocument(pdf)
    try:
        return [page.get_textpage().get_text_range() for page in document]
    finally:
        document.close()


# Formatting characters poppler puts around right-to-left text it reorders (RLE … PDF, RLM):
# not the document's text.
_POPPLER_MARKS = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u200e\u200f"))


def poppler_text(pdf: bytes) -> list[str]:
    """The text of every page as poppler's pdftotext extracts it (in its reading order), each
    page's lines stripped and without the bidi formatting characters pdftotext adds."""
    result = subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", "-", "-"], input=pdf, capture_output=True, check=True)
    pages = result.stdout.decode("utf-8").translate(_POPPLER_MARKS).split("\f")[:-1]
    return ["\n".join(line.strip() for line in page.splitlines() if line.strip()) for page in pages]


def mupdf_text(pdf: bytes) -> list[str]:
    """The text of every page as MuPDF (mutool draw -F txt) extracts it, each page's lines stripped."""
    with tempfile.NamedTemporaryFile(suffix=".pdf") as file:
        file.write(pdf)
        file.flush()
        command = ["mutool", "draw", "-q", "-F", "txt", "-o", "-", file.name]
        result = subprocess.run(command, capture_output=True, check=True)
    pages = result.stdout.decode("utf-8").split("\f")[:-1]
    return ["\n".join(line.strip() for line in page.splitlines() if line.strip()) for page in pages]


def page_count(pdf: bytes) -> int:
    document = pdfium.PdfDocument(pdf)
    try:
        return len(document)
    finally:
        document.close()


def page_image(pdf: bytes, index: int = 0, dpi: float = 144) -> Image.Image:
    """A page rasterised by PDFium on white, with its form fields' widgets (which PDFium draws
    only through its form filler, set up before the page is loaded)."""
    document = pdfium.PdfDocument(pdf)
    document.init_forms()
    try:
        return document[index].render(scale=dpi / 72).to_pil().convert("RGB")
    finally:
        document.close()


def crop_points(image: Image.Image, box: tuple[float, float, float, float], dpi: float = 144) -> Image.Image:
    """Crop a page image to a box given in points (x, y from the top-left, w, h)."""
    scale = dpi / 72
    x, y, w, h = box
    return image.crop((round(x * scale), round(y * scale), round((x + w) * scale), round((y + h) * scale)))


def ink_ratio(image: Image.Image, threshold: int = 128) -> float:
    """Share of pixels darker than the threshold."""
    grey = image.convert("L")
    dark = sum(1 for v in grey.get_flattened_data() if v < threshold)
    return dark / (grey.width * grey.height)


def font_report(pdf: bytes) -> list[dict]:
    """Every font resource in the PDF: its name and whether its program is embedded."""
    fonts = []
    seen: set[tuple[int, int]] = set()
    with pikepdf.open(io.BytesIO(pdf)) as document:
        for obj in document.objects:
            if not isinstance(obj, pikepdf.Dictionary) or obj.get("/Type") != "/Font":
                continue
            if obj.get("/Subtype") == "/CIDFontType2":
                continue  # a descendant: reported through its Type0 parent
            key = obj.objgen
            if key in seen:
                continue
            seen.add(key)
            descriptor_owner = obj.DescendantFonts[0] if obj.get("/Subtype") == "/Type0" else obj
            descriptor = descriptor_owner.get("/FontDescriptor")
            embedded = descriptor is not None and any(
                k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")
            )
            fonts.append({"name": str(obj.get("/BaseFont")), "embedded": embedded})
    return fonts


def all_text(pdf: bytes) -> str:
    """The text of every page, extracted by PDFium, one after another."""
    return "".join(pdf_text(pdf))


def line_rects(pdf: bytes, page: int = 0) -> list[tuple[float, float, float, float]]:
    """(left, bottom, right, top) of each line of text PDFium finds on a page, in PDF points."""
    document = pdfium.PdfDocument(pdf)
    try:
        text_page = document[page].get_textpage()
        return [text_page.get_rect(i) for i in range(text_page.count_rects())]
    finally:
        document.close()


def page_sizes(pdf: bytes) -> list[tuple[float, float]]:
    """(width, height) of every page, in PDF points."""
    document = pdfium.PdfDocument(pdf)
    try:
        return [document[i].get_size() for i in range(len(document))]
    finally:
        document.close()


def structure_elements(document: pikepdf.Pdf) -> Iterator[pikepdf.Dictionary]:
    """Every structure element of an open document, in reading order (depth first)."""

    def walk(item: pikepdf.Object) -> Iterator[pikepdf.Dictionary]:
        if isinstance(item, pikepdf.Array):
            for kid in item:
                yield from walk(kid)
        elif isinstance(item, pikepdf.Dictionary) and item.get("/Type") == "/StructElem":
            yield item
            if "/K" in item:
                yield from walk(item.K)

    yield from walk(document.Root.StructTreeRoot.K)


def structure(pdf: bytes | Path) -> list[tuple[str, dict]]:
    """(role, interesting attributes) of every structure element, in reading order."""
    out = []
    with pikepdf.open(io.BytesIO(pdf) if isinstance(pdf, bytes) else pdf) as document:
        for item in structure_elements(document):
            attrs = {k: str(item[k]) for k in ("/Alt", "/ActualText") if k in item}
            if "/A" in item:
                attrs.update({k: str(v) for k, v in item.A.items() if k != "/O"})
            out.append((str(item.S)[1:], attrs))
    return out


def char_left(pdf: bytes, word: str, page: int = 0, occurrence: int = 0) -> tuple[float, float]:
    """(left, right) in points of the `occurrence`-th `word` on a page, from PDFium's char boxes."""
    document = pdfium.PdfDocument(pdf)
    try:
        text_page = document[page].get_textpage()
        text = text_page.get_text_range()
        start = -1
        for _ in range(occurrence + 1):
            start = text.index(word, start + 1)
        left = text_page.get_charbox(start)[0]
        right = text_page.get_charbox(start + len(word) - 1)[2]
        return left, right
    finally:
        document.close()


def ink_columns(pdf: bytes, box: tuple[float, float, float, float], dpi: float = 144) -> tuple[float, float]:
    """(left, right) of the ink inside box (x, y from the top-left, w, h), in points from the page's left."""
    image = page_image(pdf, dpi=dpi).convert("L")
    scale = dpi / 72
    x, y, w, h = box
    left_px, top_px = round(x * scale), round(y * scale)
    crop = image.crop((left_px, top_px, round((x + w) * scale), round((y + h) * scale)))
    columns = [i for i in range(crop.width) if any(crop.getpixel((i, j)) < 128 for j in range(crop.height))]
    assert columns, "no ink in the box"
    return (left_px + columns[0]) / scale, (left_px + columns[-1] + 1) / scale


def text_in_bands(pdf: bytes, page: int, bands: list[tuple[float | None, float | None]]) -> list[str]:
    """The text PDFium finds inside each horizontal band of a page, across its whole width.
    A band is (top, bottom) in points from the page's top edge; None is the page's own edge."""
    document = pdfium.PdfDocument(pdf)
    try:
        sheet = document[page]
        height, width = sheet.get_height(), sheet.get_width()
        text_page = sheet.get_textpage()
        return [
            text_page.get_text_bounded(
                left=0,
                bottom=0 if bottom is None else height - bottom,
                right=width,
                top=height if top is None else height - top,
            )
            for top, bottom in bands
        ]
    finally:
        document.close()


def char_boxes(pdf: bytes) -> list[tuple[str, Box]]:
    """Every character PDFium reads, in reading order over every page, with its box in points."""
    document = pdfium.PdfDocument(pdf)
    try:
        out: list[tuple[str, Box]] = []
        for page in document:
            text_page = page.get_textpage()
            out += [(text_page.get_text_range(i, 1), text_page.get_charbox(i)) for i in range(text_page.count_chars())]
        return out
    finally:
        document.close()


def advance_boxes(pdf: bytes, page: int = 0) -> list[tuple[str, Box]]:
    """Every character PDFium reads on a page with its loose box: across its advance (where the
    pen was before and after it), from the font's descent to its ascent."""
    document = pdfium.PdfDocument(pdf)
    try:
        text_page = document[page].get_textpage()
        count = text_page.count_chars()
        return [(text_page.get_text_range(i, 1), text_page.get_charbox(i, loose=True)) for i in range(count)]
    finally:
        document.close()


def drawn_lines(pdf: bytes, page: int = 0) -> list[str]:
    """A page's text line by line as drawn (characters grouped by their baseline, top first),
    a line-end hyphen as the hyphen it is: PDFium reads one as a soft hyphen (U+FFFE) and joins
    the line to the next."""
    lines: dict[float, list[str]] = {}
    for char, box in advance_boxes(pdf, page):
        if char not in "\r\n":
            lines.setdefault(round(box[1], 1), []).append("-" if char == "\ufffe" else char)
    return ["".join(chars).strip() for _, chars in sorted(lines.items(), reverse=True)]


def glyphs_shown(pdf: bytes, page: int = 0) -> int:
    """How many glyphs a page's text operators show (one-byte codes: every font is a subset)."""
    count = 0
    for operands, operator in operators(pdf, page):
        if operator == "Tj":
            count += len(bytes(operands[0]))
        elif operator == "TJ":
            count += sum(len(bytes(item)) for item in operands[0] if isinstance(item, pikepdf.String))
    return count


def char_count(pdf: bytes, page: int = 0) -> int:
    """How many characters PDFium counts on a page (the spaces and line ends it adds included)."""
    document = pdfium.PdfDocument(pdf)
    try:
        return document[page].get_textpage().count_chars()
    finally:
        document.close()


def drawn_line(pdf: bytes, text: str) -> tuple[float, float]:
    """The font size and the width (pt) of the first place `text` is drawn on the first page."""
    document = pdfium.PdfDocument(pdf)
    try:
        text_page = document[0].get_textpage()
        found = text_page.search(text).get_next()
        assert found is not None, f"{text!r} is not drawn"
        start, count = found
        size = pdfium_c.FPDFText_GetFontSize(text_page, start)
        width = text_page.get_charbox(start + count - 1)[2] - text_page.get_charbox(start)[0]
        return size, width
    finally:
        document.close()


def page_object_types(pdf: bytes, page: int = 0) -> list[int]:
    """The type of every object on a page, as pypdfium2.raw's FPDF_PAGEOBJ_* numbers."""
    document = pdfium.PdfDocument(pdf)
    try:
        return [obj.type for obj in document[page].get_objects()]
    finally:
        document.close()


def tagged_text_objects(pdf: bytes, page: int) -> list[tuple[str, list[str]]]:
    """Each text object of a page: its text and the marked-content tags around it
    (Artifact, P, Span…), as PDFium reads them."""
    document = pdfium.PdfDocument(pdf)
    try:
        sheet = document[page]
        text_page = sheet.get_textpage()
        found = []
        for obj in sheet.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_TEXT]):
            size = pdfium_c.FPDFTextObj_GetText(obj.raw, text_page.raw, None, 0)
            buffer = ctypes.create_string_buffer(size)
            pdfium_c.FPDFTextObj_GetText(obj.raw, text_page.raw, _wide(buffer), size)
            text = buffer.raw.decode("utf-16-le").rstrip("\x00")
            marks = []
            for index in range(pdfium_c.FPDFPageObj_CountMarks(obj.raw)):
                mark = pdfium_c.FPDFPageObj_GetMark(obj.raw, index)
                length = ctypes.c_ulong()
                pdfium_c.FPDFPageObjMark_GetName(mark, None, 0, ctypes.byref(length))
                name = ctypes.create_string_buffer(length.value)
                pdfium_c.FPDFPageObjMark_GetName(mark, _wide(name), length.value, ctypes.byref(length))
                marks.append(name.raw.decode("utf-16-le").rstrip("\x00"))
            found.append((text, marks))
        return found
    finally:
        document.close()


def _wide(buffer: ctypes.Array) -> ctypes._Pointer:
    """PDFium writes UTF-16 into an FPDF_WCHAR (unsigned short) buffer."""
    return ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort))


def page_images(pdf: bytes, dpi: float = 144) -> list[Image.Image]:
    """Every page rasterised by PDFium on white, as RGB images (page_image, all pages at once)."""
    document = pdfium.PdfDocument(pdf)
    document.init_forms()
    try:
        return [page.render(scale=dpi / 72).to_pil().convert("RGB") for page in document]
    finally:
        document.close()


def font_names(pdf: bytes) -> set[str]:
    """The /BaseFont of every font resource (font_report), its subset prefix ('ABCDEF+') dropped."""
    return {font["name"].split("+")[-1] for font in font_report(pdf)}


def drawn_sizes(pdf: bytes, page: int = 0) -> list[float]:
    """The font size of every Tf operator in a page's content stream."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return [
            float(operands[1])
            for operands, operator in pikepdf.parse_content_stream(document.pages[page])
            if str(operator) == "Tf"
        ]


def operators(pdf: bytes, page: int = 0) -> list[tuple[list, str]]:
    """(operands, operator) of a page's content stream, in order; numeric operands as floats."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return [
            ([_number(o) for o in operands], str(op))
            for operands, op in pikepdf.parse_content_stream(document.pages[page])
        ]


def filled_rectangles(pdf: bytes, page: int = 0) -> list[int]:
    """How many rectangles (re) each filled path of a page's content stream holds, in order:
    a symbol drawn as one path of merged module runs is one entry."""
    counts, pending = [], 0
    for _, operator in operators(pdf, page):
        if operator == "re":
            pending += 1
        elif operator in ("f", "F", "f*", "B", "B*", "b", "b*"):
            counts.append(pending)
            pending = 0
        elif operator in ("n", "S", "s"):
            pending = 0
    return counts


def _number(operand):
    try:
        return float(operand)
    except (TypeError, ValueError, pikepdf.PdfError):
        return operand


def parent_tree(document: pikepdf.Pdf) -> dict[int, pikepdf.Object]:
    """The ParentTree of an open document's structure tree, by key: a page's owners by MCID,
    or the one structure element an annotation belongs to (its /StructParent)."""
    nums = list(document.Root.StructTreeRoot.ParentTree.Nums)
    return {int(nums[i]): nums[i + 1] for i in range(0, len(nums), 2)}


def annotations(pdf: bytes) -> list[dict]:
    """Every link annotation of every page (form fields' widgets are left out): its page, URI,
    rectangle, contents and flags."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return [
            {
                "page": index,
                "uri": str(annot.A.URI),
                "rect": [float(v) for v in annot.Rect],
                "contents": str(annot.get("/Contents", "")),
                "flags": int(annot.get("/F", 0)),
            }
            for index, page in enumerate(document.pages)
            for annot in page.obj.get("/Annots", [])
            if annot.get("/Subtype") == "/Link"
        ]


def editor_form_fields(pdf: bytes) -> dict[str, dict]:
    """The AcroForm's fields by name (read with pikepdf), each as extensions.md 13 names it:
    {"fieldType": text|multiline|checkbox|radio|select|date|signature, "value", "options",
    "required", "readOnly", "maxLength", "tooltip", "widgets" (how many), "appearances" (how
    many widgets have an /AP /N)}. A check box's value is True or False; a radio group's or a
    select's the chosen option's value (None: none); a date field is a text field with
    Acrobat's AFDate actions."""
    fields: dict[str, dict] = {}
    with pikepdf.open(io.BytesIO(pdf)) as document:
        acroform = document.Root.get("/AcroForm")
        for field in acroform.Fields if acroform is not None else ():
            kind, flags = str(field.get("/FT", "")), int(field.get("/Ff", 0))
            value = field.get("/V")
            if kind == "/Btn" and flags & (1 << 15):
                fieldType, shown = "radio", None if value is None or str(value) == "/Off" else str(value)[1:]
            elif kind == "/Btn":
                fieldType, shown = "checkbox", value is not None and str(value) != "/Off"
            elif kind == "/Ch":
                fieldType, shown = "select", None if value is None else str(value)
            elif kind == "/Sig":
                fieldType, shown = "signature", None
            else:
                actions = str(field.get("/AA", {}).get("/F", {}).get("/JS", "")) if "/AA" in field else ""
                fieldType = "multiline" if flags & (1 << 12) else "date" if "AFDate" in actions else "text"
                shown = None if value is None else str(value)
            widgets = list(field.get("/Kids", [field]))
            fields[str(field.T)] = {
                "fieldType": fieldType,
                "value": shown,
                "options": [[str(part) for part in option] for option in field.get("/Opt", [])],
                "required": bool(flags & 2),
                "readOnly": bool(flags & 1),
                "maxLength": int(field.MaxLen) if "/MaxLen" in field else None,
                "tooltip": str(field.TU) if "/TU" in field else None,
                "widgets": len(widgets),
                "appearances": sum(1 for widget in widgets if "/AP" in widget and "/N" in widget.AP),
            }
    return fields


def link_uris(pdf: bytes) -> list[str]:
    """The URI of every link annotation (/Subtype /Link), page by page."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return [
            str(annot.A.URI)
            for page in document.pages
            for annot in page.obj.get("/Annots", [])
            if annot.get("/Subtype") == "/Link"
        ]


def outline(pdf: bytes) -> list[tuple[str, int]]:
    """The top-level outline (bookmark) entries: (title, index of the page each points at), in order."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        pages = {page.objgen: index for index, page in enumerate(document.pages)}
        with document.open_outline() as tree:
            entries = []
            for item in tree.root:
                target = item.destination[0] if item.destination is not None else item.action.D[0]
                entries.append((str(item.title), pages[target.objgen]))
        return entries


def _pdf_value(value: object) -> object:
    """A PDF object as plain Python: names and strings as str, numbers as numbers, arrays as lists."""
    if isinstance(value, pikepdf.Name):
        return str(value)[1:]
    if isinstance(value, pikepdf.String):
        return str(value)
    if isinstance(value, pikepdf.Array):
        return [_pdf_value(item) for item in value]
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, pikepdf.Object) and value._type_code in (pikepdf.ObjectType.integer, pikepdf.ObjectType.real):
        return float(value)
    return value


def _appearance(stream: pikepdf.Object) -> dict:
    """An appearance stream as read back: its content, its box, the fonts its resources name."""
    fonts = stream.get("/Resources", {}).get("/Font", {})
    return {
        "content": stream.read_bytes(),
        "bbox": [float(v) for v in stream.BBox],
        "fonts": {str(name): font for name, font in fonts.items()},
    }


def _actions(item: pikepdf.Object) -> list[str]:
    """A field's or widget's actions: "/A" for its own, and the triggers of its /AA."""
    return (["/A"] if "/A" in item else []) + sorted(str(key) for key in item.get("/AA", {}).keys())


def form_fields(pdf: bytes) -> list[dict]:
    """The AcroForm's fields as pikepdf reads them, walking /Fields and their /Kids: each field's
    name (/T), type (/FT), flags (/Ff), value (/V), options (/Opt), /MaxLen, /TU, /DA, /Q, the
    keys of its actions (/AA), and its widgets: page index, /Rect, /F, /AS, /StructParent, /MK,
    and their normal appearances (/AP /N: {"": stream} for one, {state: stream} for buttons),
    each read as content bytes, bbox and fonts. Fonts come back as their pikepdf dictionaries
    only while the document is open, so each is summarised: BaseFont, Subtype, Encoding and
    whether its program is embedded."""
    out: list[dict] = []
    with pikepdf.open(io.BytesIO(pdf)) as document:
        pages = {page.objgen: index for index, page in enumerate(document.pages)}
        page_of_annot = {
            annot.objgen: index for index, page in enumerate(document.pages) for annot in page.obj.get("/Annots", [])
        }
        form = document.Root.get("/AcroForm")
        if form is None:
            return out
        for field in form.Fields:
            kids = list(field.get("/Kids", [field]))
            widgets = []
            for kid in kids:
                normal = kid.get("/AP", {}).get("/N")
                if normal is None:
                    states = {}
                elif isinstance(normal, pikepdf.Stream):
                    states = {"": _appearance(normal)}
                else:
                    states = {str(name)[1:]: _appearance(stream) for name, stream in normal.items()}
                for state in states.values():
                    state["fonts"] = {name: _font_summary(font) for name, font in state["fonts"].items()}
                widgets.append(
                    {
                        "page": page_of_annot.get(kid.objgen, pages.get(kid.get("/P", kid).objgen)),
                        "rect": [float(v) for v in kid.Rect],
                        "flags": int(kid.get("/F", 0)),
                        "AS": _pdf_value(kid["/AS"]) if "/AS" in kid else None,
                        "AP": states,
                        "AP keys": sorted(str(key) for key in kid.get("/AP", {}).keys()),
                        "StructParent": int(kid.StructParent) if "/StructParent" in kid else None,
                        "subtype": _pdf_value(kid.get("/Subtype")),
                        "parent is the field": kid.get("/Parent") is not None and kid.Parent.objgen == field.objgen,
                        "objgen": kid.objgen,
                        "actions": _actions(kid),
                    }
                )
            out.append(
                {
                    "name": str(field.get("/T", "")),
                    "FT": _pdf_value(field.get("/FT")),
                    "Ff": int(field.get("/Ff", 0)),
                    "V": _pdf_value(field["/V"]) if "/V" in field else None,
                    "Opt": _pdf_value(field["/Opt"]) if "/Opt" in field else None,
                    "MaxLen": int(field.MaxLen) if "/MaxLen" in field else None,
                    "TU": str(field.TU) if "/TU" in field else None,
                    "DA": str(field.DA) if "/DA" in field else None,
                    "Q": int(field.Q) if "/Q" in field else None,
                    "actions": _actions(field),
                    "widgets": widgets,
                }
            )
    return out


def _font_summary(font: pikepdf.Object) -> dict:
    descriptor = font.get("/FontDescriptor", {})
    return {
        "BaseFont": str(font.get("/BaseFont", "")),
        "Subtype": _pdf_value(font.get("/Subtype")),
        "Encoding": _pdf_value(font.get("/Encoding")),
        "embedded": any(key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3")),
    }


def acro_form(pdf: bytes) -> dict | None:
    """The document's /AcroForm dictionary, summarised (None when it has none): its keys, /DA,
    /NeedAppearances, and its /DR fonts (font_summary each)."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        form = document.Root.get("/AcroForm")
        if form is None:
            return None
        fonts = form.get("/DR", {}).get("/Font", {})
        return {
            "keys": sorted(str(key) for key in form.keys()),
            "DA": str(form.DA) if "/DA" in form else None,
            "NeedAppearances": bool(form.get("/NeedAppearances", False)),
            "DR fonts": {str(name)[1:]: _font_summary(font) for name, font in fonts.items()},
        }


def widget_annotations(pdf: bytes) -> list[tuple[int, str]]:
    """(page index, /Subtype) of every annotation that is a widget or sits in a page's /Annots
    with a /FT (a merged field): what a flattened document must have none of."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return [
            (index, str(annot.get("/Subtype")))
            for index, page in enumerate(document.pages)
            for annot in page.obj.get("/Annots", [])
            if annot.get("/Subtype") == "/Widget" or "/FT" in annot
        ]


def page_tabs(pdf: bytes) -> list[str | None]:
    """Every page's /Tabs (the order a reader tabs through its annotations), None when unset."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        return [str(page.obj["/Tabs"]) if "/Tabs" in page.obj else None for page in document.pages]


def form_structure(pdf: bytes) -> list[dict]:
    """Each Form structure element: the widget its OBJR points at (objgen), that widget's
    /StructParent, and whether the ParentTree leads back from that number to the element."""
    out = []
    with pikepdf.open(io.BytesIO(pdf)) as document:
        tree = parent_tree(document)
        for element in structure_elements(document):
            if element.get("/S") != "/Form":
                continue
            kids = element.get("/K")
            items = list(kids) if isinstance(kids, pikepdf.Array) else [kids]
            references = [k for k in items if isinstance(k, pikepdf.Dictionary) and k.get("/Type") == "/OBJR"]
            for reference in references:
                widget = reference.Obj
                key = int(widget.StructParent) if "/StructParent" in widget else None
                owner = tree.get(key) if key is not None else None
                out.append(
                    {
                        "widget": widget.objgen,
                        "subtype": str(widget.get("/Subtype")),
                        "StructParent": key,
                        "back to the element": owner is not None and owner.objgen == element.objgen,
                        "page": reference.Pg.objgen == widget.P.objgen if "/Pg" in reference else None,
                    }
                )
            if not references:
                out.append({"widget": None})
    return out


PERMISSIONS = (
    "accessibility",
    "extract",
    "modify_annotation",
    "modify_assembly",
    "modify_form",
    "modify_other",
    "print_lowres",
    "print_highres",
)


def reader_permissions(pdf: bytes, password: str = "") -> dict[str, bool]:
    """What an encrypted document allows its readers (the /P bits, as pikepdf reads them
    whichever password opened it: "" when it has no user password): modify_form,
    modify_annotation, extract, print…"""
    with pikepdf.open(io.BytesIO(pdf), password=password) as document:
        allow = document.allow
        return {name: bool(getattr(allow, name)) for name in PERMISSIONS}


def _wide_string(text: str) -> tuple[ctypes.Array, object]:
    """`text` as PDFium's FPDF_WIDESTRING (UTF-16LE, NUL-terminated), with the buffer to keep alive."""
    data = (text + "\x00").encode("utf-16-le")
    buffer = ctypes.create_string_buffer(data, len(data))
    return buffer, ctypes.cast(buffer, pdfium_c.FPDF_WIDESTRING)


def fill_form(
    pdf: bytes,
    texts: dict[str, str] | None = None,
    choices: dict[str, int] | None = None,
    clicks: dict[str, int] | None = None,
    keystrokes: dict[str, str] | None = None,
) -> bytes:
    """Fill the first page's fields as a reader does in PDFium's form filler, and save a copy
    (FPDF_SaveAsCopy): `texts` typed into the named text fields (all text selected, then
    replaced), `choices` the index chosen in the named combo boxes, `clicks` a click at the
    middle of the named field's widget number n (its n-th on the page: a radio group's option),
    `keystrokes` typed key by key (FORM_OnChar) over the selected text, as a reader types (PDFium
    replaces a selection through its API even in a read-only field, but takes no keys there).
    Each field is focused (FORM_SetFocusedAnnot), then focus is taken away (FORM_ForceToKillFocus),
    which is when PDFium writes the value and draws the new appearance."""
    texts, choices, clicks, keystrokes = texts or {}, choices or {}, clicks or {}, keystrokes or {}
    document = pdfium.PdfDocument(pdf)
    try:
        document.init_forms()  # before any page is loaded, as PDFium requires
        env = document.formenv.raw
        # Every page loaded, as a viewer showing the whole document has them (pypdfium2 calls
        # FORM_OnAfterLoadPage): PDFium draws the new value into the widgets of loaded pages only.
        pages = [document[index] for index in range(len(document))]
        page = pages[0]
        seen: dict[str, int] = {}
        found: set[str] = set()
        for index in range(pdfium_c.FPDFPage_GetAnnotCount(page.raw)):
            annot = pdfium_c.FPDFPage_GetAnnot(page.raw, index)
            try:
                length = pdfium_c.FPDFAnnot_GetFormFieldName(env, annot, None, 0)
                name_buffer = ctypes.create_string_buffer(length)
                pdfium_c.FPDFAnnot_GetFormFieldName(env, annot, _wide(name_buffer), length)
                name = name_buffer.raw.decode("utf-16-le").rstrip("\x00")
                number = seen[name] = seen.get(name, -1) + 1
                if name in texts:
                    assert pdfium_c.FORM_SetFocusedAnnot(env, annot), name
                    pdfium_c.FORM_SelectAllText(env, page.raw)
                    keep, typed = _wide_string(texts[name])
                    pdfium_c.FORM_ReplaceSelection(env, page.raw, typed)
                    del keep
                    assert pdfium_c.FORM_ForceToKillFocus(env), name
                elif name in keystrokes:
                    assert pdfium_c.FORM_SetFocusedAnnot(env, annot), name
                    pdfium_c.FORM_SelectAllText(env, page.raw)
                    for unit in _utf16_units(keystrokes[name]):
                        pdfium_c.FORM_OnChar(env, page.raw, unit, 0)
                    assert pdfium_c.FORM_ForceToKillFocus(env), name
                elif name in choices:
                    assert pdfium_c.FORM_SetFocusedAnnot(env, annot), name
                    assert pdfium_c.FORM_SetIndexSelected(env, page.raw, choices[name], True), name
                    assert pdfium_c.FORM_ForceToKillFocus(env), name
                elif clicks.get(name) == number:
                    rect = pdfium_c.FS_RECTF()
                    assert pdfium_c.FPDFAnnot_GetRect(annot, rect), name
                    x, y = (rect.left + rect.right) / 2, (rect.bottom + rect.top) / 2
                    pdfium_c.FORM_OnMouseMove(env, page.raw, 0, x, y)
                    assert pdfium_c.FORM_OnLButtonDown(env, page.raw, 0, x, y), name
                    assert pdfium_c.FORM_OnLButtonUp(env, page.raw, 0, x, y), name
                    pdfium_c.FORM_ForceToKillFocus(env)
                else:
                    continue
                found.add(name)
            finally:
                pdfium_c.FPDFPage_CloseAnnot(annot)
        wanted = set(texts) | set(choices) | set(clicks) | set(keystrokes)
        assert found == wanted, f"PDFium found no widget of {sorted(wanted - found)}"
        out = io.BytesIO()
        document.save(out)
        for loaded in pages:
            loaded.close()
        return out.getvalue()
    finally:
        document.close()


def _utf16_units(text: str) -> list[int]:
    """The UTF-16 code units of `text`: what FORM_OnChar takes, one at a time."""
    data = text.encode("utf-16-le")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def form_font_program(pdf: bytes) -> bytes:
    """The font program (/FontFile2) of the AcroForm's one /DR font."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        (font,) = document.Root.AcroForm.DR.Font.values()
        return font.FontDescriptor.FontFile2.read_bytes()


def word_box(pdf: bytes, word: str, page: int = 0) -> Box:
    """(left, bottom, right, top) in points of the first `word` on a page, from PDFium's char boxes."""
    document = pdfium.PdfDocument(pdf)
    try:
        text_page = document[page].get_textpage()
        start = text_page.get_text_range().index(word)
        boxes = [text_page.get_charbox(i) for i in range(start, start + len(word))]
        return min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)
    finally:
        document.close()


def raster_images(pdf: bytes, page: int = 0) -> int:
    """How many images a page draws, inside form XObjects too (PDFium's image objects)."""
    document = pdfium.PdfDocument(pdf)
    try:
        return len(list(document[page].get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=16)))
    finally:
        document.close()


def pdf_a_violations(pdf: bytes) -> list[str]:
    """pikepdf's PDF/A-3b findings that are violations (not the parts it cannot check)."""
    with tempfile.NamedTemporaryFile(suffix=".pdf") as file:
        file.write(pdf)
        file.flush()
        report = pikepdf.pdfa.validate_written(Path(file.name), "3b")
    return [f"{finding.rule}: {finding.message}" for finding in report.findings if finding.kind != "unsupported"]


def orphan_form_mcids(pdf: bytes) -> int:
    """Marked content with an MCID inside form XObjects that have no /StructParents: content
    that claims a place in a structure tree no entry leads to."""
    found = 0
    with pikepdf.open(io.BytesIO(pdf)) as document:
        for obj in document.objects:
            if isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") == "/Form" and "/StructParents" not in obj:
                found += obj.read_bytes().count(b"/MCID")
    return found


def field_values(pdf: bytes) -> dict[str, tuple[str, object]]:
    """The AcroForm's fields by name: (their /FT, their /V as text, a bool for a check box's
    /Yes or /Off, None when unset); empty when the PDF has no form."""
    found: dict[str, tuple[str, object]] = {}

    def terminal(field: pikepdf.Object, prefix: str) -> list[tuple[str, pikepdf.Object]]:
        """Fields with a type (a merged PDF's per-row parents hold them), by full name."""
        name = prefix + str(field.get("/T", ""))
        if "/FT" in field or "/Kids" not in field or any("/T" not in kid for kid in field.Kids):
            return [(name, field)]
        return [found for kid in field.Kids for found in terminal(kid, name + ".")]

    with pikepdf.open(io.BytesIO(pdf)) as document:
        form = document.Root.get("/AcroForm")
        named = [found for field in (form.Fields if form is not None else []) for found in terminal(field, "")]
        for full_name, field in named:
            kind = str(field.get("/FT", ""))
            value = field.get("/V")
            if value is None:
                shown: object = None
            elif kind == "/Btn" and str(value) in ("/Yes", "/Off") and not int(field.get("/Ff", 0)) & (1 << 15):
                shown = str(value) == "/Yes"
            elif isinstance(value, pikepdf.Name):
                shown = str(value)[1:]
            else:
                shown = str(value)
            found[full_name] = (kind, shown)
    return found


def imported_form_fields(pdf: bytes) -> dict[str, dict]:
    """Each terminal field of the AcroForm by its fully qualified name (parents' /T joined with
    '.'): `type` (/FT without '/', inherited), `flags` (/Ff), `value` (/V: text, a name without
    '/', or a list), `options` (/Opt as (export, label) pairs; a lone string is both), `tooltip`,
    `max_length`, and `widgets`: (page index, (x0, y0, x1, y1), on state or None) each."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        pages = {page.obj.objgen: index for index, page in enumerate(document.pages)}

        def inherited(node: pikepdf.Dictionary, key: str) -> object:
            while isinstance(node, pikepdf.Dictionary):
                if key in node:
                    return node[key]
                node = node.get("/Parent")
            return None

        def plain(value: object) -> object:
            if isinstance(value, pikepdf.Name):
                return str(value)[1:]
            if isinstance(value, pikepdf.Array):
                return [plain(item) for item in value]
            return None if value is None else str(value)

        def on_state(widget: pikepdf.Dictionary) -> str | None:
            normal = widget.get("/AP", {}).get("/N")
            if not isinstance(normal, pikepdf.Dictionary):
                return None
            return next((str(key)[1:] for key in normal.keys() if key != "/Off"), None)

        annotated = {
            annot.objgen: index for index, page in enumerate(document.pages) for annot in page.obj.get("/Annots", [])
        }

        def page_of(widget: pikepdf.Dictionary) -> int:
            page = widget.get("/P")
            return pages[page.objgen] if page is not None and page.objgen in pages else annotated[widget.objgen]

        def rect(widget: pikepdf.Dictionary) -> Box:
            x0, y0, x1, y1 = (float(v) for v in widget.Rect)
            return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)

        found: dict[str, dict] = {}
        stack = [(field, "") for field in reversed(list(document.Root.AcroForm.Fields))]
        while stack:
            field, prefix = stack.pop()
            name = prefix + str(field.T) if "/T" in field else prefix.rstrip(".")
            kids = list(field.get("/Kids", []))
            if any("/T" in kid for kid in kids):
                stack.extend((kid, name + ".") for kid in reversed(kids))
                continue
            options = [
                (str(item[0]), str(item[1])) if isinstance(item, pikepdf.Array) else (str(item), str(item))
                for item in field.get("/Opt", [])
            ]
            found[name] = {
                "type": plain(inherited(field, "/FT")),
                "flags": int(inherited(field, "/Ff") or 0),
                "value": plain(inherited(field, "/V")),
                "options": options,
                "tooltip": plain(field.get("/TU")),
                "max_length": None if inherited(field, "/MaxLen") is None else int(inherited(field, "/MaxLen")),
                "widgets": [(page_of(widget), rect(widget), on_state(widget)) for widget in (kids or [field])],
            }
        return found


def placed_forms(pdf: bytes, page: int = 0) -> list[Box]:
    """(left, bottom, right, top) in points of each form XObject a page draws (its /BBox through
    the current matrix), in drawing order: where a placed page (a label on a sheet) landed."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        sheet = document.pages[page]
        forms = sheet.Resources.get("/XObject", {})
        matrix, stack, boxes = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0], [], []
        for operands, op in pikepdf.parse_content_stream(sheet):
            name = str(op)
            if name == "q":
                stack.append(matrix)
            elif name == "Q":
                matrix = stack.pop()
            elif name == "cm":
                a, b, c, d, e, f = (float(v) for v in operands)
                m = matrix
                matrix = [
                    a * m[0] + b * m[2],
                    a * m[1] + b * m[3],
                    c * m[0] + d * m[2],
                    c * m[1] + d * m[3],
                    e * m[0] + f * m[2] + m[4],
                    e * m[1] + f * m[3] + m[5],
                ]
            elif name == "Do" and forms[operands[0]].get("/Subtype") == "/Form":
                x0, y0, x1, y1 = (float(v) for v in forms[operands[0]].BBox)
                xs = [matrix[0] * x + matrix[2] * y + matrix[4] for x, y in ((x0, y0), (x1, y1))]
                ys = [matrix[1] * x + matrix[3] * y + matrix[5] for x, y in ((x0, y0), (x1, y1))]
                boxes.append((min(xs), min(ys), max(xs), max(ys)))
        return boxes


def stroked_segments(pdf: bytes, page: int = 0) -> list[Box]:
    """(x0, y0, x1, y1) of each straight segment a page's own content stream strokes (m … l … S),
    untransformed: the cut marks of a label sheet."""
    segments, start, path = [], None, []
    for operands, op in operators(pdf, page):
        if op == "m":
            start = (operands[0], operands[1])
        elif op == "l" and start is not None:
            path.append((*start, operands[0], operands[1]))
            start = (operands[0], operands[1])
        elif op in ("S", "s"):
            segments += path
            path = []
        elif op == "n":
            path = []
    return segments


def syntax_problems(pdf: bytes) -> list[str]:
    """What qpdf finds wrong in a PDF's syntax and cross-reference table, every stream decoded
    (an empty list: a PDF readers take as written)."""
    with pikepdf.open(io.BytesIO(pdf)) as document:
        found = [str(problem) for problem in document.check_pdf_syntax()]
        for obj in document.objects:
            if isinstance(obj, pikepdf.Stream):
                try:
                    obj.read_bytes()
                except pikepdf.PdfError as exc:
                    found.append(f"object {obj.objgen}: {exc}")
        return found


def drawn_paths(pdf: bytes, page: int = 0) -> list[dict]:
    """Every path a page draws (inside form XObjects too), in paint order, as PDFium reads it:
    `points` (each segment's end point, in page points, y up), `bounds` (left, bottom, right,
    top of those points), `fill` and `stroke` ((r, g, b) 0-255, None when not painted)."""
    document = pdfium.PdfDocument(pdf)
    try:
        found = []
        for obj in document[page].get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=16):
            matrix = obj.get_matrix()
            parent = obj.parent
            while isinstance(parent, pdfium.PdfObject):  # a form XObject's placement
                matrix = matrix.multiply(parent.get_matrix())
                parent = parent.parent
            points = []
            for index in range(pdfium_c.FPDFPath_CountSegments(obj.raw)):
                segment = pdfium_c.FPDFPath_GetPathSegment(obj.raw, index)
                x, y = ctypes.c_float(), ctypes.c_float()
                pdfium_c.FPDFPathSegment_GetPoint(segment, ctypes.byref(x), ctypes.byref(y))
                points.append(matrix.on_point(x.value, y.value))
            mode, stroked = ctypes.c_int(), ctypes.c_int()
            pdfium_c.FPDFPath_GetDrawMode(obj.raw, ctypes.byref(mode), ctypes.byref(stroked))
            colors = []
            for getter, painted in (
                (pdfium_c.FPDFPageObj_GetFillColor, mode.value),
                (pdfium_c.FPDFPageObj_GetStrokeColor, stroked.value),
            ):
                rgba = [ctypes.c_uint() for _ in range(4)]
                getter(obj.raw, *(ctypes.byref(v) for v in rgba))
                colors.append(tuple(v.value for v in rgba[:3]) if painted else None)
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            bounds = (min(xs), min(ys), max(xs), max(ys)) if points else (0.0, 0.0, 0.0, 0.0)
            found.append({"points": points, "bounds": bounds, "fill": colors[0], "stroke": colors[1]})
        return found
    finally:
        document.close()


# What a PDF docbench writes never carries from another PDF's pages (engine.media.foreign_pages).
_ACTIVE_KEYS = (
    "/JS", "/JavaScript", "/AA", "/OpenAction", "/EmbeddedFiles", "/EF", "/AF", "/RichMediaContent", "/PresSteps"
)  # fmt: skip
_ACTIVE_ANNOTATIONS = ("/FileAttachment", "/RichMedia", "/Screen", "/Movie", "/Sound", "/3D")
_KEPT_SCHEMES = ("http:", "https:", "mailto:")
_ACTIONS = frozenset(
    "/" + kind
    for kind in (
        "GoTo GoToR GoToE GoToDp Launch Thread URI Sound Movie Hide Named SubmitForm ResetForm ImportData "
        "JavaScript SetOCGState Rendition Trans GoTo3DView RichMediaExecute"
    ).split()
)


def active_content(pdf: bytes) -> list[str]:
    """Everything active anywhere in the PDF's objects (reachable or not), as findings: keys that
    hold scripts, additional actions, presentation steps or files; actions other than URI (http,
    https, mailto) and GoTo, or chained (/Next); annotations that play or attach; embedded files;
    widgets that are not fields of the document's AcroForm. An action is any dictionary whose /S
    names one, whatever its /Type, /P or /K: only an element of the structure tree (reached from
    its root) has an /S that is a role. Empty for a PDF with nothing active."""
    findings: list[str] = []
    with pikepdf.open(io.BytesIO(pdf)) as document:
        fields: set[tuple[int, int]] = set()
        form = document.Root.get("/AcroForm")
        waiting = list(form.get("/Fields", [])) if isinstance(form, pikepdf.Dictionary) else []
        while waiting:
            field = waiting.pop()
            if isinstance(field, pikepdf.Dictionary) and field.objgen not in fields:
                fields.add(field.objgen)
                waiting += list(field.get("/Kids", []))
        elements = _structure_elements(document)
        for obj in document.objects:
            where = f"object {obj.objgen[0]}"
            for item, element in _direct_parts(obj, obj.objgen in elements):
                findings += [f"{where}: {finding}" for finding in _active_in(item, fields, element)]
    return findings


def _structure_elements(document: pikepdf.Pdf) -> set[tuple[int, int]]:
    """The indirect structure elements: those the structure tree's /K reaches, and the values
    of its ParentTree."""
    root = document.Root.get("/StructTreeRoot")
    if not isinstance(root, pikepdf.Dictionary):
        return set()
    found: set[tuple[int, int]] = set()
    waiting = [root.get("/K")]
    nodes, visited = [root.get("/ParentTree")], set()
    while nodes:
        node = nodes.pop()
        if isinstance(node, pikepdf.Dictionary) and node.objgen not in visited:
            visited.add(node.objgen)
            nodes += list(node.get("/Kids", []))
            waiting += list(node.get("/Nums", []))[1::2]
    while waiting:
        item = waiting.pop()
        if isinstance(item, pikepdf.Array):
            waiting += list(item)
        elif isinstance(item, pikepdf.Dictionary) and not _is_reference(item):
            if item.is_indirect:
                if item.objgen in found:
                    continue
                found.add(item.objgen)
            waiting.append(item.get("/K"))
    return found


def _direct_parts(obj: pikepdf.Object, element: bool) -> list[tuple[pikepdf.Object, bool]]:
    """The dictionaries and streams of `obj`: itself and those written inside it (not indirect),
    each with whether it is a structure element (`element`: `obj` is; a direct one is an element
    when its parent element's /K holds it)."""
    parts, waiting = [], [(obj, element)]
    while waiting:
        item, is_element = waiting.pop()
        children: list[tuple[object, bool]] = []
        if isinstance(item, pikepdf.Dictionary | pikepdf.Stream):
            is_element = is_element and not _is_reference(item)
            parts.append((item, is_element))
            children = [(item[key], is_element and key == "/K") for key in item.keys()]
        elif isinstance(item, pikepdf.Array):
            children = [(child, is_element) for child in item]
        # An indirect one is an object of its own, looked at as such.
        waiting += [
            (child, kid) for child, kid in children if isinstance(child, pikepdf.Object) and not child.is_indirect
        ]
    return parts


def _is_reference(item: pikepdf.Object) -> bool:
    """A structure element's reference to marked content or an object, not an element."""
    return isinstance(item, pikepdf.Dictionary) and item.get("/Type") in ("/MCR", "/OBJR")


def _active_in(item: pikepdf.Object, fields: set[tuple[int, int]], element: bool = False) -> list[str]:
    found = [key for key in _ACTIVE_KEYS if key in item]
    if item.get("/Type") == "/EmbeddedFile":
        found.append("an embedded file")
    subtype = str(item.get("/Subtype", ""))
    if subtype in _ACTIVE_ANNOTATIONS:
        found.append(f"a {subtype} annotation")
    if subtype == "/Widget" and not (item.is_indirect and item.objgen in fields):
        found.append("a widget of no field of the AcroForm")
    kind = str(item.get("/S", ""))
    if kind not in _ACTIONS or element:
        return found  # a structure element's /S is its role
    if kind not in ("/URI", "/GoTo"):
        found.append(f"a {kind} action")
    elif kind == "/URI" and not str(item.get("/URI", "")).lower().startswith(_KEPT_SCHEMES):
        found.append(f"a URI action to {str(item.get('/URI', ''))[:40]!r}")
    if "/Next" in item:
        found.append("a chained action (/Next)")
    return found


def link_targets(pdf: bytes) -> list[tuple[int, str]]:
    """Every link annotation, by its page's index: a URI, or "page N" (0-based) for a link within
    the document (its /Dest or GoTo action's explicit destination)."""
    found = []
    with pikepdf.open(io.BytesIO(pdf)) as document:
        pages = {page.obj.objgen: index for index, page in enumerate(document.pages)}
        for index, page in enumerate(document.pages):
            for annotation in page.obj.get("/Annots", []):
                if annotation.get("/Subtype") != "/Link":
                    continue
                action = annotation.get("/A")
                if isinstance(action, pikepdf.Dictionary) and action.get("/S") == "/URI":
                    found.append((index, str(action.URI)))
                    continue
                dest = annotation.get("/Dest", action.get("/D") if isinstance(action, pikepdf.Dictionary) else None)
                target = dest[0] if isinstance(dest, pikepdf.Array) and len(dest) else None
                page_index = pages.get(target.objgen) if isinstance(target, pikepdf.Dictionary) else None
                found.append((index, f"page {page_index}"))
    return found
