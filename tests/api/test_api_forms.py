"""Fillable forms over the API (extensions.md 13): generate and batch keep a design's field
elements as an AcroForm, fill their initial values from variables (kind "field-value"), and
flatten them on request; over real HTTP and MCP."""

from __future__ import annotations

import io

import httpx
from PIL import Image

from tests.batch_jobs import wait_for_end, zip_of
from tests.mcp_calls import ok, run
from tests.pdf_probes import field_values, ink_ratio, poppler_text

from ..conftest import action, add

FORM = [
    add("field", "applicant", {"x": 40, "y": 40, "w": 220, "h": 24}, {"fieldType": "text", "value": "Your name"}),
    add("field", "newsletter", {"x": 40, "y": 80, "w": 16, "h": 16}, {"fieldType": "checkbox"}),
    add(
        "field",
        "plan",
        {"x": 40, "y": 110, "w": 160, "h": 60},
        {"fieldType": "radio", "options": [{"value": "basic", "label": "Basic"}, {"value": "pro", "label": "Pro"}]},
    ),
    add("field", "signature", {"x": 40, "y": 190, "w": 200, "h": 50}, {"fieldType": "signature"}),
    action("bind_variable", name="applicant"),
    action("bind_variable", name="newsletter"),
    action("bind_variable", name="plan"),
]


def form_design(client) -> str:
    design_id = client.data(client.post("/designs", json={"name": "Application"}), 201)["designId"]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": FORM}), 200)
    return design_id


def generated(client, design_id: str, body: dict) -> bytes:
    url = client.data(client.post(f"/designs/{design_id}/generate", json=body), 201)["downloadUrl"]
    return httpx.get(url).content


def test_bound_fields_are_variables_of_kind_field_value(alpha):
    design_id = form_design(alpha)
    variables = alpha.data(alpha.get(f"/designs/{design_id}/variables"), 200)["variables"]
    kinds = {variable["name"]: variable["kind"] for variable in variables}
    assert kinds == {"applicant": "field-value", "newsletter": "field-value", "plan": "field-value"}


def test_mcp_lists_a_forms_variables(api_server, alpha):
    design_id = form_design(alpha)

    async def script(session):
        return ok(await session.call_tool("list_variables", {"designId": design_id}))

    variables = run(api_server, api_server.workspaces["alpha"][1], script)["variables"]
    assert {variable["name"]: variable["kind"] for variable in variables}["newsletter"] == "field-value"


def test_generate_fills_the_initial_values_and_keeps_the_form_fillable(alpha):
    design_id = form_design(alpha)
    body = {"data": {"applicant": "Ada Lovelace", "newsletter": True, "plan": "pro"}}
    fields = field_values(generated(alpha, design_id, body))
    assert fields == {
        "applicant": ("/Tx", "Ada Lovelace"),
        "newsletter": ("/Btn", True),
        "plan": ("/Btn", "pro"),
        "signature": ("/Sig", None),
    }


def test_flatten_draws_the_values_and_leaves_no_form(alpha):
    design_id = form_design(alpha)
    pdf = generated(alpha, design_id, {"data": {"applicant": "Ada Lovelace", "plan": "basic"}, "flatten": True})
    assert field_values(pdf) == {}
    text = poppler_text(pdf)[0]
    assert "Ada Lovelace" in text and "Basic" in text


def test_a_value_the_field_cannot_take_is_refused_naming_the_fix(alpha):
    design_id = form_design(alpha)
    for data, fragment in (
        ({"plan": "gold"}, "one of its options' values"),
        ({"newsletter": "maybe"}, "true or false"),
        ({"applicant": "Жанна"}, "Windows-1252"),
    ):
        message = alpha.error(
            alpha.post(f"/designs/{design_id}/generate", json={"data": data}), 400, "VALIDATION_ERROR"
        )
        assert fragment in message, message


def test_a_batch_fills_each_rows_fields_and_flattens_them_on_request(alpha):
    design_id = form_design(alpha)
    rows = [
        {"applicant": "Ada", "newsletter": "yes", "plan": "pro"},
        {"applicant": "Grace", "newsletter": "no", "plan": "basic"},
    ]
    job_id = alpha.data(alpha.post(f"/designs/{design_id}/batch", json={"rows": rows}), 202)["jobId"]
    assert wait_for_end(alpha, job_id)["completed"] == 2
    archive = zip_of(alpha, job_id)
    first, second = (field_values(archive.read(f"row-{i:04d}.pdf")) for i in (1, 2))
    assert first["applicant"] == ("/Tx", "Ada") and first["newsletter"] == ("/Btn", True)
    assert second["plan"] == ("/Btn", "basic") and second["newsletter"] == ("/Btn", False)
    flat = alpha.data(alpha.post(f"/designs/{design_id}/batch", json={"rows": rows, "flatten": True}), 202)["jobId"]
    assert wait_for_end(alpha, flat)["completed"] == 2
    assert field_values(zip_of(alpha, flat).read("row-0002.pdf")) == {}


def test_mcp_generate_pdf_takes_flatten(api_server, alpha):
    design_id = form_design(alpha)
    arguments = {"designId": design_id, "data": {"applicant": "Ada"}}

    async def script(session):
        kept = ok(await session.call_tool("generate_pdf", arguments))
        return kept, ok(await session.call_tool("generate_pdf", {**arguments, "flatten": True}))

    kept, flat = run(api_server, api_server.workspaces["alpha"][1], script)
    assert field_values(httpx.get(kept["downloadUrl"]).content)["applicant"] == ("/Tx", "Ada")
    assert field_values(httpx.get(flat["downloadUrl"]).content) == {}


def test_the_preview_and_pictures_show_the_fields_as_the_pdf_does(alpha):
    design_id = form_design(alpha)
    preview = alpha.data(alpha.get(f"/designs/{design_id}/preview"), 200)["previewUrl"]
    picture = generated(alpha, design_id, {"data": {"newsletter": True}, "output": {"format": "png", "dpi": 72}})
    for png in (httpx.get(preview).content, picture):
        image = Image.open(io.BytesIO(png)).convert("L")
        scale = image.width / 595.28  # A4 points to pixels
        # The text field's border and its value, the check box's tick: drawn only by PDFium's form layer.
        field = image.crop((int(40 * scale), int(40 * scale), int(260 * scale), int(64 * scale)))
        assert ink_ratio(field) > 0.02, "the text field's widget is not drawn"
    tick = Image.open(io.BytesIO(picture)).convert("L").crop((42, 82, 54, 94))
    assert ink_ratio(tick) > 0.05, "the check box's tick is not drawn"


def test_a_merged_batch_keeps_every_rows_fields_fillable_under_the_rows_name(alpha):
    design_id = form_design(alpha)
    rows = [{"applicant": "Ada", "plan": "pro"}, {"applicant": "Grace", "plan": "basic"}]
    job_id = alpha.data(alpha.post(f"/designs/{design_id}/batch", json={"rows": rows, "merge": True}), 202)["jobId"]
    assert wait_for_end(alpha, job_id)["completed"] == 2
    url = alpha.data(alpha.get(f"/batches/{job_id}/download", params={"merged": "true"}), 200)["downloadUrl"]
    fields = field_values(httpx.get(url).content)
    assert fields["row-0001.applicant"] == ("/Tx", "Ada") and fields["row-0002.applicant"] == ("/Tx", "Grace")
    assert fields["row-0001.plan"] == ("/Btn", "pro") and fields["row-0002.plan"] == ("/Btn", "basic")
    assert len(fields) == 8


def test_label_sheets_print_fields_as_they_look(alpha):
    # A sheet places each row's page without its form: the rows are flattened, so the values show.
    design_id = alpha.data(alpha.post("/designs", json={"name": "Badge"}), 201)["designId"]
    actions = [
        {"type": "update_page", "args": {"page": 0, "width": 170, "height": 100}},
        add("field", "holder", {"x": 10, "y": 10, "w": 150, "h": 24}, {"fieldType": "text"}),
        action("bind_variable", name="holder"),
    ]
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    body = {"rows": [{"holder": "Ada Lovelace"}, {"holder": "Grace Hopper"}], "sheet": {"preset": "L7160"}}
    job_id = alpha.data(alpha.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
    assert wait_for_end(alpha, job_id)["completed"] == 2
    url = alpha.data(alpha.get(f"/batches/{job_id}/download"), 200)["downloadUrl"]
    text = poppler_text(httpx.get(url).content)[0]
    assert "Ada Lovelace" in text and "Grace Hopper" in text
