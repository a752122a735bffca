"""The notebook API (`import workbench`) against both transports: a live server over REST, and embedded.

Each test runs twice: once through `workbench.connect(url, api_key)` to the session's
`docbench serve`, once through `workbench.connect(data_dir=…)` in this process.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import workbench
from api.errors import ApiError
from api.service import Service, Settings
from api.store import DatabaseLocked
from tests.pdf_probes import field_values, imported_form_fields, outline, page_count, pdf_text, poppler_text
from workbench.client import rows

from ...conftest import add, png
from ...server import ROOT, Server

BADGE = [
    {"type": "add_element", "args": {"type": "text", "name": "name", "position": {"x": 40, "y": 40}}},
    {
        "type": "add_element",
        "args": {
            "type": "text",
            "name": "issued",
            "position": {"x": 40, "y": 80},
            "data": {"content": "2026-01-01", "dataType": "date", "format": "d MMMM y"},
        },
    },
    {
        "type": "add_element",
        "args": {"type": "image", "name": "photo", "position": {"x": 300, "y": 40, "w": 40, "h": 40}},
    },
    *[{"type": "bind_variable", "args": {"name": n}} for n in ("name", "issued", "photo")],
]


@dataclass
class Side:
    wb: workbench.Workbench
    data_dir: Path  # where the service behind `wb` keeps its blobs


@pytest.fixture(scope="module")
def rest(api_server):
    with workbench.connect(api_server.url, api_key=api_server.workspaces["analyst"][1]) as wb:
        yield Side(wb, api_server.data_dir)


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("notebook-embedded")
    service = Service(Settings(data_dir=data_dir))
    service.accounts.create_workspace("analyst", "pro", 1000)
    service.close()
    with workbench.connect(data_dir=data_dir, workspace="analyst") as wb:
        yield Side(wb, data_dir)


@pytest.fixture(params=["rest", "embedded"])
def side(request) -> Side:
    return request.getfixturevalue(request.param)


@pytest.fixture
def wb(side) -> workbench.Workbench:
    return side.wb


def badge(wb: workbench.Workbench, name: str = "Badge") -> workbench.Design:
    design = wb.create_design(name)
    design.apply(BADGE)
    return design


def lose(side: Side, image: bytes) -> str:
    """Upload an image, then lose its bytes from storage: rows that use it fail at render."""
    ref = side.wb.upload_image(image, "lost.png").ref
    for path in (side.data_dir / "blobs").rglob("*.png"):
        if path.read_bytes() == image:
            path.unlink()
    return ref


def text(pdf: bytes) -> str:
    return "\n".join(pdf_text(pdf))


# Connecting


def test_the_transports_are_the_server_and_the_embedded_service(rest, embedded):
    assert (rest.wb.transport, embedded.wb.transport) == ("rest", "embedded")
    assert rest.wb.workspace.workspaceName == embedded.wb.workspace.workspaceName == "analyst"
    assert "analyst" in repr(rest.wb) and "analyst" in repr(embedded.wb)


def test_connect_reads_the_url_and_key_from_the_environment(api_server, monkeypatch):
    monkeypatch.setenv("DOCBENCH_URL", api_server.url)
    monkeypatch.setenv("DOCBENCH_API_KEY", api_server.workspaces["analyst"][1])
    with workbench.connect() as wb:
        assert wb.transport == "rest" and wb.workspace.workspaceName == "analyst"


def test_a_wrong_key_is_refused_when_connecting(api_server):
    with pytest.raises(ApiError) as refused:
        workbench.connect(api_server.url, api_key="dbk_live_nope")
    assert refused.value.code == "UNAUTHORIZED"


def test_embedded_mode_creates_the_default_workspace_on_a_fresh_data_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("DOCBENCH_URL", raising=False)
    with workbench.connect(data_dir=tmp_path) as wb:
        assert (wb.workspace.workspaceName, wb.workspace.plan, wb.credits) == ("default", "pro", 100)
    with pytest.raises(ValueError, match="no workspace has the name or id 'elsewhere'.*default"):
        workbench.connect(data_dir=tmp_path, workspace="elsewhere")


@pytest.fixture(scope="module")
def held_data_dir(tmp_path_factory):
    """A data dir a running `docbench serve` holds."""
    data_dir = tmp_path_factory.mktemp("held")
    server = Server(data_dir).start()
    yield data_dir
    server.stop()


def test_a_data_dir_a_server_holds_is_refused_in_one_sentence_naming_the_url(held_data_dir):
    with pytest.raises(DatabaseLocked) as held:
        workbench.connect(data_dir=held_data_dir)
    message = str(held.value)
    assert message.startswith(f"The data dir {held_data_dir} is in use by a running docbench server")
    assert 'workbench.connect("http://127.0.0.1:5006", api_key=' in message
    assert message.endswith(".") and message.count(". ") == 0 and "\n" not in message


# Designs


def test_designs_lists_every_page_and_a_design_opens_by_id_or_name(wb, monkeypatch):
    monkeypatch.setattr(workbench.Workbench, "PAGE_SIZE", 2)
    made = [wb.create_design(f"Listed {wb.transport} {i}", "A5", "landscape") for i in range(3)]
    listed = wb.designs()
    assert {d.id for d in made} <= {d.designId for d in listed}
    assert len({d.designId for d in listed}) == len(listed)
    assert wb.design(made[1].id).name == made[1].name
    assert wb.design(made[2].name).id == made[2].id
    assert wb.design(made[0].id).tree.pages[0].width > wb.design(made[0].id).tree.pages[0].height


def test_opening_a_design_that_is_missing_or_ambiguous_says_so(wb):
    with pytest.raises(ApiError) as missing:
        wb.design("No such design")
    assert missing.value.code == "DESIGN_NOT_FOUND"
    twins = [wb.create_design(f"Twin {wb.transport}") for _ in range(2)]
    with pytest.raises(ValueError, match="2 designs are named") as ambiguous:
        wb.design(twins[0].name)
    assert twins[0].id in str(ambiguous.value) and twins[1].id in str(ambiguous.value)


def test_a_design_duplicates_into_an_independent_copy_and_deletes(wb):
    design = badge(wb, f"Housekept {wb.transport}")
    copy = design.duplicate()
    named = design.duplicate("Badge, second edition")
    assert isinstance(copy, workbench.Design) and copy.id != design.id
    assert (copy.name, named.name) == (f"Housekept {wb.transport} (copy)", "Badge, second edition")
    assert copy.tree == design.tree and [v["name"] for v in copy.variables] == ["name", "issued", "photo"]
    copy.update_element("name", data={"content": "Only in the copy"})
    assert copy.tree != design.tree
    pdf = design.generate({"name": "Before the delete"})
    design.delete()
    listed = {d.designId for d in wb.designs()}
    assert design.id not in listed and {copy.id, named.id} <= listed
    with pytest.raises(ApiError) as gone:
        wb.design(design.id)
    assert gone.value.code == "DESIGN_NOT_FOUND"
    with pytest.raises(ApiError) as again:
        design.delete()
    assert again.value.code == "DESIGN_NOT_FOUND"
    assert "Before the delete" in text(pdf) and "Only in the copy" in text(copy.generate())


def test_the_builders_add_every_element_type_and_bind_variables(wb):
    design = wb.create_design("Built in code", "A4", "landscape")
    design.add_text("title", "Quarterly report", x=40, y=40, font_size=24, font_weight=700)
    design.add_text("who", "Ada", x=40, y=90, max_width=300, bind=True)
    photo = design.add_image("photo", png(), x=400, y=40, w=80, h=40)
    lines = pd.DataFrame({"Item": ["Tea", "Cake"], "Price": [2.5, 4]})
    design.add_table("lines", lines, x=40, y=150, column_widths=[200, 100], bind=True)
    design.add_shape("rule", "line", x=40, y=130, w=400, h=0, stroke="#1f4e8c", stroke_width=2)
    design.add_icon("star", "star", x=500, y=40, w=24, h=24, color="#d4a017")
    design.add_qr("link", "https://example.org/r/1", x=600, y=300, size=90)
    design.add_barcode("serial", "SER-0001", x=40, y=400, w=200, h=50)
    design.bind("link", "serial")
    tree = design.tree
    kinds = {node.name: node.type for node in tree.nodes.values()}
    assert kinds == {
        "title": "text",
        "who": "text",
        "photo": "image",
        "lines": "table",
        "rule": "shape",
        "star": "icon",
        "link": "qr",
        "serial": "barcode",
    }
    assert set(tree.variables) == {"who", "lines", "link", "serial"}
    assert tree.node_by_name("title").styles.fontSize == 24 and tree.node_by_name("rule").styles.strokeWidth == 2
    assert tree.node_by_name("lines").data.cells == [["Item", "Price"], ["Tea", "2.5"], ["Cake", "4.0"]]
    assert tree.node_by_name("photo").data.src.startswith("uploads:") and photo["position"]["w"] == 80
    design.unbind("serial")
    design.update_element("title", new_name="heading", font_size=30)
    design.remove_element("star")
    tree = design.tree
    assert "serial" not in tree.variables and tree.node_by_name("heading").styles.fontSize == 30
    assert tree.node_by_name("star") is None


def test_a_chart_is_built_from_a_dataframe_and_a_generations_dataframe_replaces_its_rows(wb):
    design = wb.create_design("Chart from a DataFrame")
    sales = pd.DataFrame({"month": ["Jan", "Feb", "Mar"], "revenue": [3.2, 5.0, 9.8], "cost": [2, None, 4]})
    design.add_chart("sales", sales, x_key="month", kind="line", x=40, y=40, w=400, h=240, title="Sales", bind=True)
    node = design.tree.node_by_name("sales")
    assert [series.key for series in node.data.series] == ["revenue", "cost"]
    assert node.data.rows == [
        {"month": "Jan", "revenue": 3.2, "cost": 2.0},
        {"month": "Feb", "revenue": 5.0},
        {"month": "Mar", "revenue": 9.8, "cost": 4.0},
    ]
    quarters = pd.DataFrame({"month": ["Q1", "Q2"], "revenue": [12.5, float("nan")], "cost": [7, 8]})
    # Sent as row objects, numbers kept, a missing value leaving its key out.
    sent = rows.values({"sales": quarters}, rows.table_shapes(design.tree))["sales"]
    assert sent == [{"month": "Q1", "revenue": 12.5, "cost": 7}, {"month": "Q2", "cost": 8}]
    shown = text(design.generate({"sales": quarters}))
    assert "Sales" in shown and "Q1" in shown and "Q2" in shown and "Jan" not in shown


def test_a_form_is_built_with_add_field_filled_from_a_dataframe_and_flattened_on_request(wb):
    design = wb.create_design("Application form")
    design.add_field("applicant", x=40, y=40, w=220, h=24, tooltip="Your name", bind=True)
    design.add_field("newsletter", "checkbox", x=40, y=80, w=16, h=16, bind=True)
    design.add_field("plan", "radio", x=40, y=110, w=160, h=40, options=[("basic", "Basic"), "pro"], bind=True)
    node = design.tree.node_by_name("plan")
    assert [(option.value, option.label) for option in node.data.options] == [("basic", "Basic"), ("pro", None)]
    people = pd.DataFrame({"applicant": ["Ada", "Grace"], "newsletter": [True, False], "plan": ["pro", "basic"]})
    result = design.generate_many(people, progress=False)
    assert field_values(result.pdfs[0])["applicant"] == ("/Tx", "Ada")
    assert field_values(result.pdfs[1])["newsletter"] == ("/Btn", False)
    flat = design.generate({"applicant": "Ada"}, flatten=True)
    assert field_values(flat) == {} and "Ada" in text(flat)


def test_the_text_builder_takes_fields_fit_overflow_markup_and_every_element_links_repeats_and_shows_if(wb):
    design = wb.create_design("Builders: issue 15", "A4")
    design.add_text("paid_on", "", x=400, y=40, bind=True)
    design.add_text(
        "sentence",
        "This certifies that {recipient} completed **{course}**",
        x=40,
        y=80,
        max_width=400,
        fields=True,
        samples={"recipient": "Ada", "course": "Type"},
        markup="markdown",
        letter_spacing=0.5,
    )
    fitted = design.add_text(
        "name", "A very long name indeed", x=40, y=140, max_width=120, max_lines=1, fit="shrink", min_font_size=8
    )
    design.add_text("body", "word " * 40, x=40, y=200, max_width=200, max_height=30, overflow="clip")
    design.add_text("footer", "Page {page} of {pages}", x=40, y=800, fields=True, repeat="sheets")
    design.add_shape("stamp", x=300, y=300, w=60, h=30, show_if="paid_on", link="https://example.org/paid")
    tree = design.tree
    sentence, name, body = (tree.node_by_name(n) for n in ("sentence", "name", "body"))
    assert sentence.data.fields and sentence.data.samples == {"recipient": "Ada", "course": "Type"}
    assert sentence.data.markup == "markdown" and sentence.styles.letterSpacing == 0.5
    assert name.data.maxLines == 1 and name.styles.fit == "shrink" and name.styles.minFontSize == 8
    assert fitted["position"]["w"] <= 120
    assert body.position.maxHeight == 30 and body.data.overflow == "clip"
    assert tree.node_by_name("footer").repeat == "sheets"
    stamp = tree.node_by_name("stamp")
    assert stamp.showIf.variable == "paid_on" and stamp.data.link == "https://example.org/paid"
    listing = {v["name"]: v for v in design.variables}  # GET /designs/:id/variables
    assert listing["recipient"]["kind"] == "field" and listing["recipient"]["sample"] == "Ada"
    assert listing["course"]["elements"] == ["sentence"] and listing["paid_on"]["kind"] == "text"
    design.update_element("stamp", show_if={"variable": "paid_on", "notEquals": "no"})
    assert design.tree.node_by_name("stamp").showIf.notEquals == "no"
    pdf = text(design.generate({"recipient": "Grace Hopper", "course": "COBOL"}))
    assert "This certifies that Grace Hopper completed COBOL" in pdf and "Page 1 of 1" in pdf


def test_the_builders_take_direction_lang_and_logical_align(wb):
    design = wb.create_design("Builders: issue 16", "A4")
    design.add_text("greeting", "שלום", x=40, y=40, max_width=200, lang="he", direction="rtl", align="start")
    design.add_table("prices", [["Item", "Qty"], ["a", "1"]], x=40, y=100, direction="rtl", align="end")
    tree = design.tree
    greeting, prices = tree.node_by_name("greeting"), tree.node_by_name("prices")
    assert greeting.data.lang == "he" and greeting.styles.direction == "rtl" and greeting.styles.align == "start"
    assert prices.styles.direction == "rtl" and prices.styles.align == "end"
    design.update_element("greeting", direction="ltr", data={"lang": "ar"})
    assert design.tree.node_by_name("greeting").styles.direction == "ltr"
    assert design.tree.node_by_name("greeting").data.lang == "ar"
    with pytest.raises(ApiError, match="is not a BCP 47 language tag"):
        design.add_text("bad", "x", x=40, y=200, lang="he_IL")


def test_generate_many_fills_fields_from_dataframe_columns(wb, tmp_path):
    design = wb.create_design("Builders: fields from columns", "A4")
    design.add_text("sentence", "{recipient} completed {course}", x=40, y=80, fields=True)
    people = pd.DataFrame({"recipient": ["Ada", "Grace"], "subject": ["Maths", "Navy"]})
    result = design.generate_many(people, columns={"course": "subject"}, out=tmp_path / "f", progress=False)
    assert result.ok and result.completed == 2
    first, second = (text((tmp_path / "f" / f"row-000{i}.pdf").read_bytes()) for i in (1, 2))
    assert "Ada completed Maths" in first and "Grace completed Navy" in second


def test_the_inline_editor_saves_its_edits_and_shows_changes_made_in_code(wb):
    design = badge(wb, "Badge: inline editor")
    inline = design.editor()
    bundle, _ = inline._repr_mimebundle_()
    assert "application/vnd.holoviews_exec.v0+json" in bundle  # what JupyterLab renders (test_notebook_editor)
    editor = inline.editor
    box = next(b for b in editor.canvas.boxes if b["name"] == "name")
    editor.canvas._handle_msg({"kind": "move", "changes": [{**box, "x": 120, "y": 60}]})  # a drag on the canvas
    moved = design.tree.node_by_name("name").position
    shown = next(b for b in editor.canvas.boxes if b["name"] == "name")  # what the browser is sent back
    assert (moved.x, moved.y) == (120, 60) and (shown["x"], shown["y"]) == (120, 60)
    design.update_element("name", position={"x": 200})  # from code, while the editor is open
    editor.poll()
    assert next(b for b in editor.canvas.boxes if b["name"] == "name")["x"] == 200
    editor.canvas._handle_msg({"kind": "undo"})  # back to before the editor's move
    assert design.tree.node_by_name("name").position.x == 40


def test_a_failing_action_changes_nothing_and_says_which(wb):
    design = badge(wb)
    before = design.tree
    with pytest.raises(ApiError) as refused:
        design.apply([{"type": "bind_variable", "args": {"name": "name"}}, {"type": "nope", "args": {}}])
    assert refused.value.code == "VALIDATION_ERROR" and "actions[1] (nope)" in refused.value.message
    assert design.tree == before


def test_a_preview_shows_inline_as_a_png_and_saves(wb, tmp_path):
    design = badge(wb)
    preview = design.preview(page=0)
    assert preview._repr_png_().startswith(b"\x89PNG") and preview.data == preview._repr_png_()
    assert preview.save(tmp_path / "page.png").read_bytes() == preview.data
    assert preview.size == (794, 1123) and repr(preview).startswith("<Preview of page 0: 794×1123 px PNG")  # A4, 96 dpi
    with pytest.raises(ApiError) as missing:
        design.preview(page=3)
    assert missing.value.code == "PAGE_NOT_FOUND"


def test_generate_returns_the_pdf_writes_the_file_and_takes_one_credit(wb, tmp_path):
    design = badge(wb)
    before = wb.credits
    pdf = design.generate({"name": "Grace Hopper", "issued": pd.Timestamp("2026-03-04")}, path=tmp_path / "one.pdf")
    assert (tmp_path / "one.pdf").read_bytes() == pdf
    assert "Grace Hopper" in text(pdf) and "4 March 2026" in text(pdf)
    assert wb.credits == before - 1


def test_generate_with_output_png_returns_the_picture_at_the_dpi_for_one_credit(wb, tmp_path):
    from PIL import Image

    design = badge(wb, "Picture badge")
    before = wb.credits
    picture = design.generate({"name": "Ada"}, output="png", dpi=72, path=tmp_path / "badge.png")
    image = Image.open(io.BytesIO(picture))
    assert image.format == "PNG" and (abs(image.width - 595) <= 1 and abs(image.height - 842) <= 1)
    assert (tmp_path / "badge.png").read_bytes() == picture
    assert wb.credits == before - 1
    with pytest.raises(ApiError, match="output.dpi"):
        design.generate({"name": "Ada"}, output="png", dpi=1000)


def test_generate_appends_and_prepends_pdfs_given_by_path_bytes_or_ref_with_pages(wb, tmp_path):
    from tests import pdf_sources

    design = badge(wb, "Badge with terms")
    terms = tmp_path / "terms.pdf"
    terms.write_bytes(pdf_sources.reportlab_letterhead())
    ref = wb.upload_image(terms).ref
    before = wb.credits
    pdf = design.generate({"name": "Ada"}, append=[terms], prepend=[{"ref": ref, "pages": "2"}])
    pages = pdf_text(pdf)
    assert len(pages) == 4 and "Terms and conditions" in pages[0] and "Ada" in pages[1]
    assert "Northwind Letterhead" in pages[2] and "Terms and conditions" in pages[3]
    assert wb.credits == before - 1
    with pytest.raises(ApiError, match=r"append\[0\].pages"):
        design.generate({"name": "Ada"}, append=[{"ref": ref, "pages": "3"}])


def test_generate_many_with_merge_returns_and_writes_the_merged_pdf(wb, tmp_path):
    design = badge(wb, "Merged badge")
    people = [{"name": "Ada"}, {"name": "Grace"}, {"name": "Alan"}]
    result = design.generate_many(people, out=tmp_path / "badges.zip", merge=True, progress=False)
    assert result.ok and result.merged_path == tmp_path / "badges.pdf"
    assert result.merged_path.read_bytes() == result.merged
    assert page_count(result.merged) == 3
    assert outline(result.merged) == [("row-0001.pdf", 0), ("row-0002.pdf", 1), ("row-0003.pdf", 2)]
    assert "Grace" in pdf_text(result.merged)[1]
    with pytest.raises(ValueError, match="at most 100 rows"):
        design.generate_many([{"name": "x"}] * 101, merge=True, progress=False)


def test_generate_many_on_a_label_sheet_returns_and_writes_the_sheets(wb, tmp_path):
    design = badge(wb, "Sheet badge")
    design.apply([{"type": "update_page", "args": {"page": 0, "width": 4 * 72, "height": 2 * 72}}])  # an Avery 5163
    assert "5163" in {entry.name for entry in wb.sheets()}
    people = [{"name": f"Person{i}"} for i in range(12)]
    result = design.generate_many(people, out=tmp_path / "labels", sheet="5163", progress=False)
    assert result.ok and result.sheets_path == tmp_path / "labels" / "sheets.pdf"
    assert result.sheets_path.read_bytes() == result.sheets and result.files == []  # no rows kept
    assert page_count(result.sheets) == 2  # 10 labels a sheet
    assert "Person11" in pdf_text(result.sheets)[1]
    kept = design.generate_many(people[:3], sheet={"preset": "5163", "cutMarks": True}, keep_rows=True, progress=False)
    assert sorted(kept.pdfs) == [0, 1, 2] and page_count(kept.sheets) == 1
    with pytest.raises(ApiError, match="the presets are"):
        design.generate_many(people[:1], sheet="nope", progress=False)


def test_create_design_takes_a_base_pdf_as_bytes_or_as_a_ref(wb):
    from tests import pdf_sources

    form = pdf_sources.reportlab_form()
    design = wb.create_design(f"From a form {wb.transport}", base_pdf=form)
    assert [(p.width, p.height) for p in design.tree.pages] == [(595, 842), (612, 792)]
    assert {v["name"] for v in design.variables} == {"full_name", "agree", "colour", "field_2nd_city"}
    pdf = design.generate({"full_name": "Grace Hopper"})
    assert "Application form" in text(pdf) and imported_form_fields(pdf)["full name"]["value"] == "Grace Hopper"
    again = wb.create_design(f"From its ref {wb.transport}", base_pdf=design.tree.pages[0].backgroundImage)
    assert len(again.tree.pages) == 2


# Many PDFs from data


def test_generate_many_from_pandas_writes_a_folder_of_pdfs(wb, tmp_path):
    design = badge(wb)
    people = pd.DataFrame(
        {
            "full_name": ["Ada Lovelace", "Grace Hopper", None],
            "issued": pd.to_datetime(["2026-01-02", "2026-02-03", None]),
            "email": ["a@x", "g@x", "n@x"],  # not a variable: left out on purpose
        }
    )
    columns = {"name": "full_name", "email": None}
    result = design.generate_many(people, columns=columns, out=tmp_path / "badges", progress=False)
    assert result.ok and result.completed == 3 and len(result.jobs) == 1
    assert [p.name for p in sorted((tmp_path / "badges").iterdir())] == ["row-0001.pdf", "row-0002.pdf", "row-0003.pdf"]
    first, second, third = (text((tmp_path / "badges" / f"row-000{i}.pdf").read_bytes()) for i in (1, 2, 3))
    assert "Ada Lovelace" in first and "2 January 2026" in first and "3 February 2026" in second
    assert "1 January 2026" in third  # missing values render the design-time content


def test_generate_many_from_polars_writes_one_zip_with_a_profile(wb, tmp_path):
    import pikepdf

    design = badge(wb)
    people = pl.DataFrame({"name": ["Alan Turing", "Katherine Johnson"]})
    result = design.generate_many(people, out=tmp_path / "badges.zip", profile="pdf-a", progress=False)
    assert result.ok and result.out == tmp_path / "badges.zip"
    with zipfile.ZipFile(tmp_path / "badges.zip") as archive:
        assert archive.namelist() == ["row-0001.pdf", "row-0002.pdf"]
        assert "Katherine Johnson" in text(archive.read("row-0002.pdf"))
        with pikepdf.open(io.BytesIO(archive.read("row-0001.pdf"))) as pdf:
            assert "/OutputIntents" in pdf.Root


def test_generate_and_generate_many_carry_e_invoices_watermarks_and_passwords(wb, tmp_path):
    import facturx
    import pikepdf

    from tests.einvoices import INVOICE
    from workbench.notebook.einvoice import factur_x_xml

    design = badge(wb)
    invoices = pd.DataFrame({"name": ["Globex", "Initech"], "number": ["INV-A", "INV-B"]})
    xmls = invoices.apply(lambda row: factur_x_xml({**INVOICE, "number": row["number"]}), axis=1)
    options = {"profile": "pdf-a", "e_invoices": xmls, "watermark": "COPY", "progress": False}
    result = design.generate_many(invoices, columns={"number": None}, **options)  # "number" made the XML
    assert result.ok and result.completed == 2
    for position, number in enumerate(["INV-A", "INV-B"]):
        pdf = result.pdfs[position]
        assert number.encode() in facturx.get_facturx_xml_from_pdf(pdf, check_xsd=True)[1]
        assert "COPY" in text(pdf)
    attachment = tmp_path / "terms.txt"
    attachment.write_text("Net 30")
    pdf = design.generate({"name": "Hooli"}, password="open-sesame", attachments=[attachment])
    with pikepdf.open(io.BytesIO(pdf), password="open-sesame") as document:
        assert document.encryption.R == 6
        assert document.attachments["terms.txt"].get_file().read_bytes() == b"Net 30"


def test_an_attachment_whose_file_name_breaks_the_file_name_rule_is_refused(wb, tmp_path):
    design = badge(wb)
    disguised = tmp_path / "invoice\u202efdp.exe"  # shows as "invoiceexe.pdf"
    disguised.write_bytes(b"MZ")
    with pytest.raises(ApiError) as refused:
        design.generate({"name": "Hooli"}, attachments=[disguised])
    assert refused.value.code == "VALIDATION_ERROR"
    assert "attachments.0.name: character 8 is U+202E RIGHT-TO-LEFT OVERRIDE" in refused.value.message
    with pytest.raises(ApiError, match="U\\+2215 DIVISION SLASH"):
        design.generate_many(
            [{"name": "A"}], attachments=[{"name": "..\u2215evil.exe", "content": b"x"}], progress=False
        )


def test_generate_many_takes_a_list_of_dicts_and_keeps_pdfs_in_memory_without_out(wb):
    design = badge(wb)
    result = design.generate_many([{"name": "Mary Somerville"}, {"name": "Emmy Noether"}], progress=False)
    assert sorted(result.pdfs) == [0, 1] and "Emmy Noether" in text(result.pdfs[1])


def test_more_than_100_rows_run_in_chunks_and_failed_rows_come_back_by_position(side, tmp_path):
    wb = side.wb
    design = badge(wb)
    lost = lose(side, png((9, 8, 7, 255), size=(31, 13)))
    frame = pd.DataFrame({"name": [f"Person {i}" for i in range(120)], "photo": [None] * 120})
    frame.loc[[7, 110], "photo"] = lost
    before = wb.credits
    result = design.generate_many(frame, out=tmp_path / "many.zip", progress=True)
    assert len(result.jobs) == 2 and result.total == 120 and result.completed == 118
    assert list(result.failures.index) == [7, 110] and result.failures.index.name == "row"
    assert list(result.failures["file"]) == ["row-0008.pdf", "row-0111.pdf"]
    assert all(lost in reason for reason in result.failures["reason"])
    with zipfile.ZipFile(tmp_path / "many.zip") as archive:
        names = set(archive.namelist())
        assert names == {f"row-{i + 1:04d}.pdf" for i in range(120) if i not in (7, 110)} | {"errors.json"}
        assert [e["row"] for e in json.loads(archive.read("errors.json"))["failed"]] == [8, 111]
        assert "Person 105" in text(archive.read("row-0106.pdf"))  # numbering runs on across chunks
    assert wb.credits == before - 118  # failed rows are refunded


def test_a_nested_dataframe_per_row_fills_a_table_variable(wb, tmp_path):
    from workbench import samples

    design = wb.create_design("Invoice")
    design.apply(samples.invoice_actions(wb.upload_image(samples.logo_png(), "logo").ref))
    orders = pd.DataFrame(
        {
            "invoice": ["INV-1", "INV-1", "INV-2"],
            "Description": ["Tea", "Cake", "Coffee"],
            "Quantity": [2, 1, 3],
            "Unit price": [2.5, 4.0, 3.0],
        }
    )
    orders["Amount"] = orders["Quantity"] * orders["Unit price"]
    invoices = pd.DataFrame(
        [
            {"number": f"No. {number}", "lines": group.drop(columns="invoice"), "total": f"Total: {group.Amount.sum()}"}
            for number, group in orders.groupby("invoice")
        ]
    )
    result = design.generate_many(invoices, out=tmp_path / "invoices", progress=False)
    assert result.ok
    first = text((tmp_path / "invoices" / "row-0001.pdf").read_bytes())
    assert "Description" in first and "Cake" in first and "Total: 9.0" in first and "Coffee" not in first
    assert "Line item" not in first  # the design's sample rows are replaced, header row first


def test_a_list_of_records_from_polars_fills_a_table_variable(wb):
    design = wb.create_design("Table from structs")
    design.add_table("lines", [["Item", "Price"], ["x", "0"]], x=40, y=40, width=300, bind=True)
    frame = pl.DataFrame({"lines": [[{"Item": "Scone", "Price": 3}, {"Item": "Jam", "Price": 1}]]})
    result = design.generate_many(frame, progress=False)
    page = text(result.pdfs[0])
    assert "Scone" in page and "Jam" in page and "Item" in page


def test_a_refused_row_is_named_by_its_position_and_the_batches_before_it_are_kept(wb):
    design = badge(wb)
    before = wb.credits
    rows = [{"name": f"P{i}"} for i in range(105)]
    rows[103]["issued"] = "not a date"
    with pytest.raises(ApiError) as refused:
        design.generate_many(rows, progress=False)
    assert refused.value.code == "VALIDATION_ERROR"
    message = refused.value.message
    assert message.startswith("row 103: variable 'issued'")
    assert message.endswith("rows 0-99 were generated (in this error's .result), nothing from row 100 on was submitted")
    assert isinstance(refused.value, workbench.BatchRefused) and sorted(refused.value.result.pdfs) == list(range(100))
    assert wb.credits == before - 100


def test_a_mapping_to_a_missing_column_is_refused_before_anything_runs(wb):
    design = badge(wb)
    with pytest.raises(ValueError, match="column 'nom' .*its columns: name"):
        design.generate_many(pd.DataFrame({"name": ["x"]}), columns={"name": "nom"}, progress=False)
    with pytest.raises(ApiError, match="variable 'nom': no such variable in this design"):
        design.generate_many(pd.DataFrame({"nom": ["x"]}), progress=False)


# Columns checked as REST checks names; typed tables from DataFrames (extensions.md 11)

LINE_ITEMS = [
    {"key": "item", "header": "Item"},
    {"key": "qty", "header": "Qty", "dataType": "number"},
    {"key": "price", "header": "Price", "dataType": "currency", "currency": "EUR", "locale": "en"},
    {
        "key": "amount",
        "header": "Amount",
        "dataType": "currency",
        "currency": "EUR",
        "locale": "en",
        "value": "qty * price",
    },
]


def invoice(wb: workbench.Workbench, name: str) -> workbench.Design:
    """A design whose table `items` has typed columns, a computed amount and a total footer."""
    design = wb.create_design(name)
    table = {"columnDefs": LINE_ITEMS, "footer": [{"item": "Total", "amount": "=sum(amount)"}]}
    sample = [["Item", "Qty", "Price", "Amount"], ["Sample line", "1", "9.99", ""]]
    design.add_table("items", sample, x=40, y=40, width=420, data=table, bind=True)
    return design


def lines() -> pd.DataFrame:
    from decimal import Decimal

    return pd.DataFrame(
        {"item": ["Pen", "Ink", None], "qty": [2, 3, 1], "price": [Decimal("1.50"), Decimal("0.10"), 2.25]}
    )


def test_a_misspelt_column_is_refused_with_the_rest_message_before_anything_is_charged(wb):
    design = badge(wb)
    with pytest.raises(ApiError) as rest:
        design.generate({"nmae": "Ada"})  # the service's own refusal of the name
    before = wb.credits
    people = pd.DataFrame({"nmae": ["Ada", "Grace"], "issued": ["2026-01-02", "2026-02-03"]})
    with pytest.raises(ApiError) as refused:
        design.generate_many(people, progress=False)
    assert refused.value.code == rest.value.code == "VALIDATION_ERROR"
    assert rest.value.message == "variable 'nmae': no such variable in this design (its variables: issued, name, photo)"
    assert refused.value.message.startswith(
        rest.value.message + "; to leave the column out pass columns={'nmae': None}"
    )
    assert wb.credits == before


def test_a_column_mapped_to_none_is_left_out_and_its_variable_keeps_the_design_content(wb):
    design = badge(wb)
    people = pd.DataFrame({"name": ["Ada"], "issued": ["2026-03-04"], "email": ["a@x"]})
    result = design.generate_many(people, columns={"email": None, "issued": None}, progress=False)
    page = text(result.pdfs[0])
    assert "Ada" in page and "1 January 2026" in page and "4 March 2026" not in page


def test_a_dataframe_fills_a_typed_table_whose_amounts_and_total_are_computed(wb):
    design = invoice(wb, "Typed invoice")
    single = "\n".join(poppler_text(design.generate({"items": lines()})))
    many = design.generate_many(pd.DataFrame({"items": [lines(), lines().head(1)]}), progress=False)
    first, second = ("\n".join(poppler_text(many.pdfs[i])) for i in (0, 1))
    for page in (single, first):
        assert "Pen\n2\n€1.50\n€3.00" in page and "Ink\n3\n€0.10\n€0.30" in page  # exact: 3 × 0.10
        assert "Total\n€5.55" in page and "Sample line" not in page
        assert "\n1\n€2.25\n€2.25" in page  # the missing item left its cell empty
    assert "Total\n€3.00" in second and "Ink" not in second


def test_generate_many_maps_a_typed_tables_keys_to_nested_columns(wb):
    design = invoice(wb, "Mapped invoice")
    nested = lines().rename(columns={"qty": "Quantity"}).assign(note="internal")
    by_name = design.generate_many(
        pd.DataFrame({"items": [nested]}), columns={"items": {"qty": "Quantity", "note": None}}, progress=False
    )
    elsewhere = design.generate_many(
        pd.DataFrame({"lines": [nested]}),
        columns={"items": ("lines", {"qty": "Quantity", "note": None}), "lines": None},
        progress=False,
    )
    for result in (by_name, elsewhere):
        page = "\n".join(poppler_text(result.pdfs[0]))
        assert "Pen\n2\n€1.50\n€3.00" in page and "Total\n€5.55" in page and "internal" not in page
    before = wb.credits
    with pytest.raises(ApiError) as refused:
        design.generate_many(pd.DataFrame({"items": [nested]}), progress=False)
    assert refused.value.code == "VALIDATION_ERROR"
    assert refused.value.message.startswith(
        "row 0: variable 'items': row 1: 'Quantity' is not a column of this table; "
        "its input columns are item, qty, price"
    )
    assert wb.credits == before


# Scripts and the command line


def test_a_script_without_a_main_guard_generates_in_embedded_mode(tmp_path):
    """The pool's workers are spawned: they must not run the analyst's script again."""
    script = tmp_path / "make_badges.py"
    script.write_text(
        "import workbench\n"
        f"wb = workbench.connect(data_dir={str(tmp_path / 'data')!r})\n"
        "design = wb.create_design('Script')\n"
        "design.add_text('name', 'x', x=40, y=40, bind=True)\n"
        "print(design.generate_many([{'name': 'Script row'}] * 3, out='out', progress=False))\n"
        "wb.close()\n"
    )
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("<BatchResult") == 1 and "3 of 3 PDFs" in done.stdout
    assert "Script row" in text((tmp_path / "out" / "row-0003.pdf").read_bytes())


def docbench(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    environment = {k: v for k, v in os.environ.items() if not k.startswith("DOCBENCH_")} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "workbench.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env=environment,
    )


def test_the_cli_generates_from_a_csv_over_the_api_with_a_progress_bar(api_server, rest, tmp_path):
    design = badge(rest.wb, "CLI badge")
    (tmp_path / "rows.csv").write_text("full_name,issued\nAda,2026-05-06\nGrace,\nAlan,2026-07-08\n")
    out = tmp_path / "cli.zip"
    key = api_server.workspaces["analyst"][1]
    args = ("generate", design.id, "--data", str(tmp_path / "rows.csv"), "--out", str(out), "--map", "name=full_name")
    done = docbench(*args, env={"DOCBENCH_URL": api_server.url, "DOCBENCH_API_KEY": key})
    assert done.returncode == 0, done.stderr
    assert "100%" in done.stderr and f"3 PDFs, 0 failed: {out}" in done.stderr
    with zipfile.ZipFile(out) as archive:
        assert "Grace" in text(archive.read("row-0002.pdf")) and "8 July 2026" in text(archive.read("row-0003.pdf"))


def test_the_cli_batch_takes_output_and_dpi_and_merge(api_server, rest, tmp_path):
    design = badge(rest.wb, "CLI pictures")
    (tmp_path / "rows.json").write_text(json.dumps([{"name": "Ada"}, {"name": "Grace"}]))
    key = api_server.workspaces["analyst"][1]
    url = ("--url", api_server.url, "--key", key)
    out = tmp_path / "pictures.zip"
    args = ("batch", design.id, str(tmp_path / "rows.json"), "--output", "jpeg", "--dpi", "72", "--out", str(out))
    done = docbench(*args, *url)
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == ["row-0001.jpg", "row-0002.jpg"]
    merged = tmp_path / "merged.zip"
    done = docbench("batch", design.id, str(tmp_path / "rows.json"), "--merge", "--out", str(merged), *url)
    assert done.returncode == 0, done.stderr
    pdf = (tmp_path / "merged.pdf").read_bytes()
    assert [line.strip() for line in pdf_text(pdf)][0].startswith("Ada") and "Grace" in pdf_text(pdf)[1]
    done = docbench("batch", design.id, str(tmp_path / "rows.json"), "--merge", "--output", "png", *url)
    assert done.returncode != 0 and "merge: " in done.stderr and "Traceback" not in done.stderr


def test_the_cli_batch_prints_on_a_label_sheet(api_server, rest, tmp_path):
    design = badge(rest.wb, "CLI labels")
    design.apply([{"type": "update_page", "args": {"page": 0, "width": 4 * 72, "height": 2 * 72}}])
    (tmp_path / "rows.json").write_text(json.dumps([{"name": "Ada"}, {"name": "Grace"}]))
    url = ("--url", api_server.url, "--key", api_server.workspaces["analyst"][1])
    out = tmp_path / "labels.zip"
    args = ("batch", design.id, str(tmp_path / "rows.json"), "--sheet", "5163", "--keep-rows", "--out", str(out))
    done = docbench(*args, *url)
    assert done.returncode == 0, done.stderr
    sheets = (tmp_path / "labels.pdf").read_bytes()
    assert page_count(sheets) == 1 and "Grace" in pdf_text(sheets)[0]
    with zipfile.ZipFile(out) as archive:
        assert archive.namelist() == ["row-0001.pdf", "row-0002.pdf"]
    done = docbench("batch", design.id, str(tmp_path / "rows.json"), "--sheet", "L7160", *url)
    assert done.returncode != 0 and "180 × 108 pt" in done.stderr and "Traceback" not in done.stderr


def test_the_cli_generates_on_a_data_dir_and_reports_failed_rows(tmp_path):
    data_dir = tmp_path / "data"
    with workbench.connect(data_dir=data_dir) as wb:
        badge(wb, "Data dir badge")
        side = Side(wb, data_dir)
        lost = lose(side, png((1, 2, 3, 255), size=(7, 5)))
    (tmp_path / "rows.json").write_text(json.dumps([{"name": "Ada"}, {"name": "Lost", "photo": lost}]))
    args = ("--data", str(tmp_path / "rows.json"), "--out", str(tmp_path / "pdfs"), "--data-dir", str(data_dir))
    done = docbench("generate", "Data dir badge", *args)
    assert done.returncode == 1, done.stderr
    assert "1 PDFs, 1 failed" in done.stderr and "row-0002.pdf: " in done.stderr and lost in done.stderr
    assert sorted(p.name for p in (tmp_path / "pdfs").iterdir()) == ["errors.json", "row-0001.pdf"]


def test_the_cli_refuses_a_column_that_fills_no_variable_unless_map_leaves_it_out(tmp_path):
    data_dir = tmp_path / "data"
    with workbench.connect(data_dir=data_dir) as wb:
        badge(wb, "CLI columns")
        before = wb.credits
    (tmp_path / "rows.csv").write_text("name,email\nAda,a@x\n")
    args = ("--data", str(tmp_path / "rows.csv"), "--out", str(tmp_path / "pdfs"), "--data-dir", str(data_dir))
    refused = docbench("generate", "CLI columns", *args)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "variable 'email': no such variable in this design (its variables: issued, name, photo)" in refused.stderr
    with workbench.connect(data_dir=data_dir) as wb:
        assert wb.credits == before
    done = docbench("generate", "CLI columns", *args, "--map", "email=")
    assert done.returncode == 0 and "1 PDFs, 0 failed" in done.stderr


def test_the_cli_on_a_data_dir_a_server_holds_says_to_pass_its_url(held_data_dir, tmp_path):
    (tmp_path / "rows.csv").write_text("name\nAda\n")
    args = ("--data", str(tmp_path / "rows.csv"), "--out", str(tmp_path / "x.zip"), "--data-dir", str(held_data_dir))
    done = docbench("generate", "dsg_x", *args)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"the data dir {held_data_dir} is in use by a running docbench server" in done.stderr
    assert "--url http://127.0.0.1:5006 --key" in done.stderr


def test_a_preview_with_data_shows_the_values_watermarked_and_is_free(wb):
    design = badge(wb)
    before = wb.credits
    plain, tried = design.preview(), design.preview(data={"name": "Grace Hopper"})
    assert tried.size == plain.size and tried.data != plain.data and wb.credits == before
    with pytest.raises(ApiError) as refused:
        design.preview(data={"nobody": "x"})
    assert refused.value.code == "VALIDATION_ERROR" and "variable 'nobody'" in refused.value.message


def test_generate_many_fills_text_fields_from_columns(wb, tmp_path):
    design = wb.create_design("Field sentence")
    design.apply(
        [
            add(
                "text",
                "sentence",
                {"x": 40, "y": 40, "maxWidth": 500},
                {"content": "{who} completed {course}.", "fields": True, "samples": {"course": "Sample course"}},
            )
        ]
    )
    rows = pd.DataFrame({"who": ["Ada", "Grace"], "course": ["Engines", None]})
    result = design.generate_many(rows, out=tmp_path / "fields", progress=False)
    assert result.ok and result.completed == 2
    first, second = (text((tmp_path / "fields" / f"row-000{i}.pdf").read_bytes()) for i in (1, 2))
    assert "Ada completed Engines." in first and "Grace completed Sample course." in second


# Revisions and publishing (extensions.md 16)


def test_a_notebook_lists_publishes_and_restores_revisions(wb):
    design = wb.create_design("Versions")
    design.apply([add("text", "title", {"x": 40, "y": 40}, data={"content": "Approved"})])
    assert design.publish().publishedRevision == 2
    design.apply({"type": "update_element", "args": {"name": "title", "data": {"content": "Draft"}}})
    assert "Approved" in text(design.generate()) and "Draft" in text(design.generate(revision="latest"))
    listed = design.revisions()
    assert [(r.revision, r.source, r.published) for r in listed] == [
        (3, "api", False),
        (2, "api", True),
        (1, "api", False),
    ]
    assert design.revision_tree(2).nodes != design.tree.nodes
    restored = design.restore(2)
    assert restored.revision == 4 and design.tree == design.revision_tree(2)
    assert design.unpublish().publishedRevision is None
    assert "Approved" in text(design.generate())
    with pytest.raises(ApiError) as refused:
        design.publish(99)
    assert refused.value.code == "REVISION_NOT_FOUND"


def test_generate_many_and_the_cli_render_the_published_revision_or_the_one_asked(api_server, rest, tmp_path):
    design = badge(rest.wb, "Published badge")
    design.apply([add("text", "status", {"x": 40, "y": 120}, data={"content": "Approved"})])
    design.publish()
    design.apply({"type": "update_element", "args": {"name": "status", "data": {"content": "Draft"}}})
    published = design.generate_many([{"name": "Ada"}], progress=False)
    latest = design.generate_many([{"name": "Ada"}], progress=False, revision="latest")
    assert "Approved" in text(published.pdfs[0]) and "Draft" in text(latest.pdfs[0])
    (tmp_path / "rows.json").write_text(json.dumps([{"name": "Ada"}]))
    key = api_server.workspaces["analyst"][1]
    url = ("--url", api_server.url, "--key", key)
    for revision, shown in ((None, "Approved"), ("latest", "Draft")):
        out = tmp_path / f"{revision}.zip"
        chosen = ("--revision", revision) if revision else ()
        done = docbench("batch", design.id, str(tmp_path / "rows.json"), "--out", str(out), *chosen, *url)
        assert done.returncode == 0, done.stderr
        with zipfile.ZipFile(out) as archive:
            assert shown in text(archive.read("row-0001.pdf"))
    refused = docbench("batch", design.id, str(tmp_path / "rows.json"), "--revision", "newest", *url)
    assert refused.returncode == 2 and "not a revision number" in refused.stderr
