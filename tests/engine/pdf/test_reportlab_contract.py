"""What engine.pdf.reportlab_internals assumes of ReportLab's internals, checked against the
installed ReportLab: after upgrading ReportLab, run this file (and tests/engine/render/test_same_bytes.py).

One test per assumption, named after it; each uses ReportLab's own objects as the seam does.
"""

from __future__ import annotations

import io
import re
import zlib

import pikepdf
import pytest
from PIL import Image
from reportlab import rl_config
from reportlab.lib.colors import Color
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfdoc, pdfmetrics, ttfonts
from reportlab.pdfgen.canvas import Canvas

from engine import fonts, render_pdf
from engine.fonts.embedding import EmbeddedTTFont
from engine.pdf import reportlab_internals as rl
from tests.conftest import add, build
from workbench import samples


@pytest.fixture
def font() -> str:
    """A registered TrueType face of the catalog."""
    return fonts.face("Inter").name


_BUFFERS: dict[int, io.BytesIO] = {}


def canvas_for(**options) -> Canvas:
    """A canvas as the engine makes one (engine.render.document), writing into a buffer `written` reads."""
    fonts.install_defaults()
    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1, pageCompression=1, **options)
    _BUFFERS[id(canvas)] = buffer
    return canvas


def written(canvas: Canvas) -> bytes:
    """The file the canvas saved."""
    return _BUFFERS[id(canvas)].getvalue()


def saved(canvas: Canvas) -> pikepdf.Pdf:
    canvas.showPage()
    canvas.save()
    return pikepdf.open(io.BytesIO(written(canvas)))


def content(pdf: pikepdf.Pdf, page: int = 0) -> str:
    return pdf.pages[page].Contents.read_bytes().decode("latin-1")


# --- A canvas's state -------------------------------------------------------------------


def test_a_canvas_holds_its_document():
    canvas = canvas_for()
    assert isinstance(rl.document_of(canvas), pdfdoc.PDFDocument)
    assert type(rl.document_of(canvas).encrypt) is pdfdoc.NoEncryption  # WrittenObject relies on it


def test_page_operators_are_literals_appended_in_order_and_joined_by_newlines():
    canvas = canvas_for()
    canvas.addLiteral("0 0 m")
    canvas.addLiteral("10 10 l S")
    assert rl.page_content(canvas).endswith(b"0 0 m\n10 10 l S")
    assert content(saved(canvas)).find("0 0 m\n10 10 l S") >= 0


def test_a_page_marked_as_having_images_names_the_image_procedures():
    canvas = canvas_for()
    rl.mark_page_has_images(canvas)
    pdf = saved(canvas)
    assert "/ImageC" in [str(name) for name in pdf.pages[0].Resources.ProcSet]


def test_do_form_draws_the_xobject_by_its_resource_name_and_lists_it_for_the_page():
    canvas = canvas_for()
    canvas.doForm("one")
    canvas.doForm("two")
    canvas.doForm("one")
    assert rl.page_content(canvas).endswith(f"/{rl.xobject_name(canvas, 'two')} Do\n/FormXob.one Do".encode())
    assert rl.xobjects_used(canvas) == ["one", "two", "one"]


def test_annotations_named_colours_and_shadings_are_what_a_page_tracks_beyond_its_operators():
    plain = canvas_for()
    plain.rect(0, 0, 10, 10)
    assert not rl.uses_annotations_colors_or_shadings(plain)
    linked = canvas_for()
    linked.linkURL("https://example.org", (0, 0, 10, 10))
    assert rl.uses_annotations_colors_or_shadings(linked)
    shaded = canvas_for()
    shaded.linearGradient(0, 0, 10, 0, [Color(0, 0, 0), Color(1, 1, 1)])
    assert rl.uses_annotations_colors_or_shadings(shaded)


def test_graphics_states_are_direct_dictionaries_the_page_writes_as_its_ext_g_state():
    canvas = canvas_for()
    assert rl.graphics_state_resources(canvas) == ""
    canvas.setFillAlpha(0.5)
    resources = rl.graphics_state_resources(canvas)
    assert re.fullmatch(r" /ExtGState << /gRLs0 << /ca \.5 >> >>", resources.replace("\n", " ")), resources
    pdf = saved(canvas)
    assert float(pdf.pages[0].Resources.ExtGState.gRLs0.ca) == 0.5


def test_the_current_font_is_what_set_font_set(font):
    canvas = canvas_for()
    canvas.setFont(font, 13)
    assert rl.current_font(canvas) == (font, 13)


def test_no_colour_space_is_enforced_unless_asked():
    assert not rl.enforces_color_space(canvas_for())
    assert rl.enforces_color_space(canvas_for(enforceColorSpace="cmyk"))


# --- XObjects and images --------------------------------------------------------------------


def test_a_form_added_under_its_name_is_what_do_form_draws():
    canvas = canvas_for()
    assert not canvas.hasForm("mine")
    form = rl.WrittenObject([b"<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Length 0 >>\nstream\nendstream\n"])
    rl.add_form(canvas, "mine", form)
    assert canvas.hasForm("mine")
    assert rl.xobject_name(canvas, "mine") in rl.object_names(canvas)
    canvas.doForm("mine")
    pdf = saved(canvas)
    assert "/FormXob.mine" in pdf.pages[0].Resources.XObject


def test_an_image_xobject_keeps_its_alpha_apart_and_is_added_once_with_its_mask():
    image = Image.new("RGBA", (4, 4), (255, 0, 0, 128))
    xobject, smask = rl.image_xobject("img1", ImageReader(image))
    assert smask is not None and not hasattr(xobject, "_smask")
    assert rl.stream_size(xobject) > 0 and rl.stream_size(None) == 0
    canvas = canvas_for()
    name = rl.add_image(canvas, "img1", xobject, smask)
    assert rl.add_image(canvas, "img1", xobject, smask) == name == rl.xobject_name(canvas, "img1")
    canvas.doForm("img1")
    pdf = saved(canvas)
    placed = pdf.pages[0].Resources.XObject[f"/{name}"]
    assert placed.Subtype == "/Image" and placed.SMask.Subtype == "/Image"
    assert sum(1 for obj in pdf.objects if isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") == "/Image") == 2


def test_a_written_form_is_added_once_with_the_objects_it_refers_to():
    objects = [
        (
            "form",
            [
                b"<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /ExtGState << /G0 ",
                "gs",
                b" >> >> /Length 12 >>\nstream\n/G0 gs 0 0 m\nendstream",
            ],
        ),
        ("gs", [b"<< /Type /ExtGState /ca 0.5 >>"]),
    ]
    canvas = canvas_for()
    name = rl.add_written_form(canvas, "page1", objects)
    assert rl.add_written_form(canvas, "page1", objects) == name == rl.xobject_name(canvas, "page1")
    canvas.doForm("page1")
    pdf = saved(canvas)
    form = pdf.pages[0].Resources.XObject[f"/{name}"]
    assert form.Subtype == "/Form" and form.Resources.ExtGState.G0.ca == 0.5
    assert form.read_bytes() == b"/G0 gs 0 0 m"
    assert (
        sum(1 for obj in pdf.objects if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/ExtGState") == 1
    )


# --- Objects and values ---------------------------------------------------------------------


def test_objects_are_numbered_in_order_of_registration_with_generation_zero():
    doc = rl.document_of(canvas_for())
    first = rl.reference(doc, rl.WrittenObject([b"1"]))
    second = rl.reference(doc, rl.WrittenObject([b"2"]), "mine")
    assert second == "mine"
    assert rl.object_number(doc, second) == rl.object_number(doc, first) + 1
    assert doc.idToObjectNumberAndVersion[first][1] == 0


def test_a_written_object_refers_by_name_and_is_written_as_its_bytes():
    canvas = canvas_for()
    doc = rl.document_of(canvas)
    target = rl.reference(doc, rl.WrittenObject([b"(target)"]))
    pointer = rl.reference(doc, rl.WrittenObject([b"<< /To ", target, b" >>"]))
    rl.set_catalog_entries(doc, Pointer=rl.reference_to(pointer))
    pdf = saved(canvas)
    assert str(pdf.Root.Pointer.To) == "target"


def test_values_are_formatted_as_reportlab_writes_them():
    doc = rl.document_of(canvas_for())
    assert rl.pdf_name("A B") == "/A#20B"
    assert rl.format_value(doc, rl.text_string("a (b)")) == b"(a \\(b\\))"
    assert rl.format_value(doc, rl.text_string("é")) == b"(\\351)"
    assert rl.format_value(doc, rl.text_string("ب")) == b"(\\376\\377\\006\\()"  # UTF-16, escaped
    assert rl.format_dictionary(doc, {"b": "true", "a": 1.5, "c": rl.pdf_name("X")}) == b"<<\n/a 1.5 /b true /c /X\n>>"
    assert rl.format_value(doc, rl.pdf_array([rl.pdf_name("S"), 2])) == b"[ /S 2 ]"


def test_a_name_of_any_text_is_one_name_as_iso_32000_writes_it():
    """A form option's value becomes a button's state name (engine.pdf.forms): a '/' would
    end the name, and a name's bytes are UTF-8 written #XX (ISO 32000-1 7.3.5)."""
    assert rl.pdf_name("a/b") == "/a#2Fb"
    assert rl.pdf_name("(x) #1%") == "/#28x#29#20#231#25"
    assert rl.pdf_name("Übung Ж") == "/#C3#9Cbung#20#D0#96"
    assert rl.pdf_name("Yes") == "/Yes"


def test_streams_of_the_engines_documents_are_written_unfiltered_unless_they_say():
    doc = rl.document_of(canvas_for())
    assert rl.default_stream_filters(doc) == ()
    assert rl.format_stream(doc, {"N": 3}, b"data") == b"<<\n/Length 4 /N 3\n>>\nstream\ndataendstream\n"


# --- The document's catalog, pages, annotations and info ---------------------------------


def test_page_and_catalog_entries_unknown_to_reportlab_are_written_and_none_leaves_one_out():
    canvas = canvas_for()
    canvas.showPage()
    doc = rl.document_of(canvas)
    [page] = rl.pages_of(doc)
    rl.set_entries(page, StructParents=7, Trans=None)
    rl.set_catalog_entries(doc, Lang=rl.text_string("en"), OutputIntents=rl.pdf_array([1]))
    canvas.save()
    pdf = pikepdf.open(io.BytesIO(written(canvas)))
    assert pdf.pages[0].StructParents == 7 and "/Trans" not in pdf.pages[0]
    assert str(pdf.Root.Lang) == "en" and list(pdf.Root.OutputIntents) == [1]


def test_the_catalog_makes_its_structure_entries_indirect_objects():
    assert {"StructTreeRoot", "MarkInfo", "Metadata", "ViewerPreferences"} <= set(pdfdoc.PDFCatalog.__Refs__)
    assert "Lang" in pdfdoc.PDFCatalog.__Defaults__
    assert "OutputIntents" not in pdfdoc.PDFCatalog.__Refs__  # written inline, an array of references


def test_a_pages_annotations_are_named_in_the_order_they_were_made_and_take_entries():
    canvas = canvas_for()
    canvas.linkURL("https://example.org/a", (0, 0, 10, 10))
    canvas.linkURL("https://example.org/b", (20, 0, 30, 10))
    canvas.showPage()
    doc = rl.document_of(canvas)
    [page] = rl.pages_of(doc)
    rl.reference(doc, page)  # as the tagged profiles do: a page is numbered before the save
    second = rl.annotation_name(page, 1)
    rl.set_annotation_entry(doc, second, "StructParent", 4)
    canvas.save()
    pdf = pikepdf.open(io.BytesIO(written(canvas)))
    annotations = pdf.pages[0].Annots
    assert str(annotations[1].A.URI) == "https://example.org/b" and annotations[1].StructParent == 4


def test_the_header_says_the_pdf_version_required():
    canvas = canvas_for()
    rl.require_pdf_version(rl.document_of(canvas), (1, 7))
    canvas.showPage()
    canvas.save()
    assert written(canvas).startswith(b"%PDF-1.7")


def test_the_info_without_trapped_keeps_every_other_entry_of_reportlabs():
    canvas = canvas_for()
    canvas.setAuthor("A (B)")
    doc = rl.document_of(canvas)
    reportlab_info = pdfdoc.format(doc.info, doc)
    assert b"/Trapped" in reportlab_info
    fields = rl.set_info_without_trapped(doc, "T")
    ours = pdfdoc.format(doc.info, doc)
    assert b"/Trapped" not in ours
    assert (
        re.sub(rb"/Title \([^)]*\)|/Trapped /\w+", b"", reportlab_info).split()
        == re.sub(rb"/Title \([^)]*\)", b"", ours).split()
    )
    assert fields["/Title"] == "T" and fields["/Author"] == "A (B)"
    assert fields["/CreationDate"] == fields["/ModDate"] == "D:20000101000000+00'00'"  # invariant


# --- The saved file ---------------------------------------------------------------------------


def test_a_saved_file_has_its_objects_in_number_order_then_one_table_from_zero():
    pdf = render_pdf(samples.certificate(), samples.certificate_row(1), samples.resolver)
    file = rl.read_saved(pdf)
    offsets = file.offsets()
    assert len(offsets) == file.count - 1
    assert offsets == sorted(offsets) and offsets[-1] < file.xref_at
    for number, offset in enumerate(offsets, start=1):
        assert pdf.startswith(b"%d 0 obj" % number, offset)
    assert file.entries.startswith(b"0000000000 65535 f \n")
    assert pdf[file.xref_at :].startswith(b"xref\n0 %d\n" % file.count)
    assert re.search(rb"trailer\n<<.*?/Size %d\n" % file.count, pdf[file.xref_at :], re.S)


def test_stream_objects_end_with_endstream_then_endobj():
    pdf = render_pdf(samples.certificate(), samples.certificate_row(1), samples.resolver)
    assert pdf.count(rl.STREAM_OBJECT_END) == pdf.count(b"endstream")


def test_a_table_extended_by_file_end_reads_back_every_object():
    pdf = render_pdf(samples.certificate(), samples.certificate_row(1), samples.resolver)
    file = rl.read_saved(pdf)
    extra = b"%d 0 obj\n(appended)\nendobj\n" % file.count
    end = rl.file_end(file, file.entries + rl.xref_entry(file.xref_at), file.count + 1, file.xref_at + len(extra))
    extended = pdf[: file.xref_at] + extra + b"".join(end)
    with pikepdf.open(io.BytesIO(extended)) as document:
        assert str(document.get_object((file.count, 0))) == "appended"
        assert len(document.pages) == 1
    assert extended.endswith(b"\n%%EOF\n")


# --- TrueType fonts ---------------------------------------------------------------------------


def test_a_faces_tables_are_its_cmap_widths_and_vertical_metrics(font):
    cmap, widths = rl.character_map(font), rl.char_widths(font)
    assert isinstance(cmap[ord("A")], int) and widths[ord("A")] > 0
    ascent, descent = rl.vertical_metrics(font)
    assert ascent > 0 > descent


def test_ascii_keeps_its_codes_in_subset_zero_and_other_characters_take_codes_in_order(font):
    assert rl_config.ttfAsciiReadable
    canvas = canvas_for()
    doc = rl.document_of(canvas)
    ttf = pdfmetrics.getFont(font)
    assert rl.split_into_subsets(ttf, "Aé", doc) == [(ttf.getSubsetInternalName(0, doc), b"A\x01")]
    assert rl.split_into_subsets(ttf, "ü\u00a0é", doc) == [(ttf.getSubsetInternalName(0, doc), b"\x02 \x01")]
    assert re.fullmatch(r"/F\d+\+0", ttf.getSubsetInternalName(0, doc))


def test_a_code_added_for_a_glyph_is_encoded_embedded_and_measured(font):
    glyph = rl.character_map(font)[ord("B")]
    code = 0xF0000 + glyph
    width = rl.char_widths(font)[ord("B")]
    rl.add_glyph_code(font, code, glyph, width)
    assert rl.character_map(font)[code] == glyph and rl.char_widths(font)[code] == width
    canvas = canvas_for()
    doc = rl.document_of(canvas)
    ttf = pdfmetrics.getFont(font)
    [(name, codes)] = rl.split_into_subsets(ttf, chr(code), doc)
    assert codes == b"\x01"
    rl.glyph_meanings(doc, font)[code] = "B"
    canvas.addLiteral(f"BT {name} 12 Tf (\\001) Tj ET")
    pdf = saved(canvas)
    [font_object] = pdf.pages[0].Resources.Font.values()
    assert float(font_object.Widths[1]) == pytest.approx(width)
    assert "<01> <0042>" in font_object.ToUnicode.read_bytes().decode()


def test_a_documents_fonts_map_to_their_resource_names_and_keep_their_subset_state(font):
    canvas = canvas_for()
    doc = rl.document_of(canvas)
    assert rl.ascii_subset_name(font, doc) == pdfmetrics.getFont(font).getSubsetInternalName(0, doc)[1:]
    assert rl.ascii_fonts_used(doc) == ((font, rl.ascii_subset_name(font, doc)),)
    rl.split_into_subsets(pdfmetrics.getFont(font), "é", doc)
    assert rl.ascii_fonts_used(doc) is None  # é took code 1: not its own


def test_a_document_takes_attributes_of_ours():
    doc = rl.document_of(canvas_for())
    assert rl.glyph_meanings(doc, "X") is rl.glyph_meanings(doc, "X")
    assert rl.glyph_meanings(doc, "X") is not rl.glyph_meanings(rl.document_of(canvas_for()), "X")


def test_to_unicode_maps_are_reportlabs_for_characters_of_the_bmp():
    codes = [0, *range(32, 127), 0xE9, 0x20AC]
    assert rl.to_unicode_cmap("AAAAAA+X", codes, {}) == ttfonts.makeToUnicodeCMap("AAAAAA+X", codes)
    beyond = rl.to_unicode_cmap("AAAAAA+X", [0, 0x20000, 0xF0001], {0xF0001: "لا"})
    assert "<01> <D840DC00>" in beyond and "<02> <06440627>" in beyond


@pytest.mark.parametrize("profile", ["standard", "pdf-a"])
def test_true_type_fonts_embed_byte_for_byte_as_reportlabs_own(profile, monkeypatch):
    """reportlab_internals.TrueTypeFont's objects, names and order are TTFont.addObjects'
    (ReportLab's own class, swapped in for the render), but for the subset tags (rl.subset_tag:
    ReportLab's are AAAAAA, BAAAAA, … by subset number), which ReportLab is given here in the
    order ours wrote them, and for what a private code's ToUnicode says (ReportLab's says the
    private character): a page of three faces, a table and a non-ASCII character, no glyph a
    ligature or a contextual form (the reference documents have some)."""
    tree = build(
        [
            add("text", "title", {"x": 40, "y": 40}, {"content": "Hello world"}, {"fontFamily": "Playfair Display"}),
            add("text", "body", {"x": 40, "y": 90}, {"content": "Paid on time: 42 €"}, {"fontWeight": 700}),
            add("table", "lines", {"x": 40, "y": 140}, {"cells": [["Item", "Amount"], ["Tea", "12.50"]]}),
        ]
    )
    ours = render_pdf(tree, None, samples.resolver, profile)
    tags = iter(re.findall(rb"/BaseFont /([A-Z]{6})\+", ours))
    monkeypatch.setattr(ttfonts, "SUBSETN", lambda number, table=None: next(tags))
    registered = [pdfmetrics.getFont(name) for name in pdfmetrics.getRegisteredFontNames()]
    swapped = [font for font in registered if type(font) is EmbeddedTTFont]
    for font in swapped:
        font.__class__ = ttfonts.TTFont
    try:
        theirs = render_pdf(tree, None, samples.resolver, profile)
    finally:
        for font in swapped:
            font.__class__ = EmbeddedTTFont
    assert ours == theirs


def test_font_programs_are_flate_streams_reportlab_subsets(font):
    canvas = canvas_for()
    canvas.setFont(font, 12)
    canvas.drawString(10, 10, "Hello")
    pdf = saved(canvas)
    [font_object] = pdf.pages[0].Resources.Font.values()
    program = font_object.FontDescriptor.FontFile2
    assert [str(name) for name in program.Filter] == ["/FlateDecode"]
    assert zlib.decompress(program.read_raw_bytes())[:4] in (b"\x00\x01\x00\x00", b"true")
    assert re.fullmatch(r"/[A-Z]{6}\+.+", str(font_object.BaseFont))
