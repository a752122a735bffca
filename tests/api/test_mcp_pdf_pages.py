"""PDFs in over MCP (extensions.md 12): the tools are the operations' faces, so upload_image
takes a PDF as base64 and create_design takes basePdf."""

from __future__ import annotations

import base64

import httpx
import pytest

from tests import pdf_sources
from tests.mcp_calls import ok, run
from tests.pdf_probes import imported_form_fields, poppler_text


@pytest.fixture
def alpha_key(api_server):
    return api_server.workspaces["alpha"][1]


def test_a_pdf_uploaded_over_mcp_makes_a_design_that_generates(api_server, alpha_key):
    form = base64.b64encode(pdf_sources.reportlab_form()).decode()

    async def script(session):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        schema = tools["create_design"].input_schema
        assert "basePdf" in schema["properties"]
        upload = ok(await session.call_tool("upload_image", {"file": form, "filename": "form.pdf"}))
        design = ok(await session.call_tool("create_design", {"name": "Agent form", "basePdf": {"ref": upload["ref"]}}))
        variables = ok(await session.call_tool("list_variables", {"designId": design["designId"]}))
        generated = ok(
            await session.call_tool(
                "generate_pdf", {"designId": design["designId"], "data": {"full_name": "Katherine Johnson"}}
            )
        )
        return upload, variables, generated

    upload, variables, generated = run(api_server, alpha_key, script)
    assert upload["mimeType"] == "application/pdf" and upload["pages"] == 2
    assert {v["name"] for v in variables["variables"]} == {"full_name", "agree", "colour", "field_2nd_city"}
    assert {v["kind"] for v in variables["variables"]} == {"field-value"}  # the form's fields, as field elements
    pdf = httpx.get(generated["downloadUrl"]).content
    assert "Application form" in poppler_text(pdf)[0]
    fields = imported_form_fields(pdf)
    assert fields["full name"]["value"] == "Katherine Johnson" and fields["colour"]["value"] == "blue"


def test_an_agent_appends_terms_to_a_generated_pdf(api_server, alpha_key):
    terms = base64.b64encode(pdf_sources.reportlab_letterhead()).decode()

    async def script(session):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        properties = tools["generate_pdf"].input_schema["properties"]
        assert "append" in properties and "prepend" in properties
        upload = ok(await session.call_tool("upload_image", {"file": terms, "filename": "terms.pdf"}))
        design = ok(await session.call_tool("create_design", {"name": "Agent letter"}))
        body = {"designId": design["designId"], "append": [{"ref": upload["ref"], "pages": "2"}]}
        return ok(await session.call_tool("generate_pdf", body))

    generated = run(api_server, alpha_key, script)
    text = poppler_text(httpx.get(generated["downloadUrl"]).content)
    assert len(text) == 2 and "Terms and conditions" in text[1]
