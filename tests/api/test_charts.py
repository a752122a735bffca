"""Charts (extensions.md 15) end to end through a real `docbench serve`: a chart added and
bound with actions over REST, generated with rows, read back by poppler; bad rows refused with
a 400 naming the variable, row and key, at no cost; the variable listed as a table; the
same over MCP; the keys in the catalog, OpenAPI and MCP schemas."""

from __future__ import annotations

import httpx

from tests.mcp_calls import failed, ok, run
from tests.pdf_probes import poppler_text, raster_images

from ..conftest import action, add

CHART = {
    "kind": "bar",
    "x": "month",
    "series": [{"key": "revenue", "label": "Revenue"}, {"key": "cost", "label": "Cost"}],
    "rows": [{"month": "Jan", "revenue": 1, "cost": 2}],
    "title": "Revenue by month",
    "axis": {"y": {"title": "EUR thousands", "format": "#,##0.0"}},
}
ACTIONS = [
    add("chart", "sales", {"x": 40, "y": 60, "w": 480, "h": 280}, CHART),
    action("bind_variable", name="sales"),
]
ROWS = [
    {"month": "January", "revenue": 12.5, "cost": "8"},
    {"month": "February", "revenue": 15, "cost": None},
    {"month": "March", "revenue": 9.75},
]


def new_design(client, actions: list[dict]) -> str:
    design_id = client.data(client.post("/designs", json={"name": "Charts"}), 201)["designId"]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    return design_id


def credits(client) -> int:
    return client.data(client.get("/me"), 200)["credits"]


def test_a_bound_chart_is_generated_over_rest_with_its_rows_as_text(alpha):
    design_id = new_design(alpha, ACTIONS)
    result = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={"data": {"sales": ROWS}}), 201)
    pdf = httpx.get(result["downloadUrl"]).content
    [page] = poppler_text(pdf)
    for label in ("Revenue by month", "EUR thousands", "January", "February", "March", "Revenue", "Cost", "16.0"):
        assert label in page, (label, page)
    assert "Jan\n" not in page
    assert raster_images(pdf) == 0
    [variable] = alpha.data(alpha.get(f"/designs/{design_id}/variables"), 200)["variables"]
    assert variable["kind"] == "table" and variable["sample"] == CHART["rows"]
    assert "row objects keyed by data.x" in variable["accepts"]


def test_rows_that_do_not_fit_are_a_400_naming_the_row_and_key_and_cost_nothing(alpha):
    design_id = new_design(alpha, ACTIONS)
    before = credits(alpha)
    body = {"data": {"sales": [ROWS[0], {"month": "April", "revenue": "a lot"}]}}
    message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
    assert "variable 'sales'" in message and "row 2, 'revenue' must be a number (or null), got 'a lot'" in message
    body = {"data": {"sales": [{"revenue": 1}]}}
    message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
    assert "row 1 has no 'month' (data.x)" in message
    assert credits(alpha) == before


def test_a_chart_that_cannot_be_drawn_is_refused_when_added_and_nothing_is_saved(alpha):
    design_id = new_design(alpha, [add("text", "note", {"x": 0, "y": 0}, {"content": "Note"})])
    bad = add("chart", "c", {"x": 0, "y": 0, "w": 200, "h": 100}, {**CHART, "series": [{"key": "month"}]})
    message = alpha.error(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [bad]}), 400, "VALIDATION_ERROR")
    assert "series[0].key 'month' is data.x" in message
    stored = alpha.get(f"/designs/{design_id}/tree").json()
    assert [node["type"] for node in stored["nodes"].values()] == ["text"]


def test_an_agent_adds_a_chart_over_mcp_and_generates_it_with_rows(api_server):
    async def script(session):
        design = ok(await session.call_tool("create_design", {"name": "Agent chart"}))
        ok(await session.call_tool("patch_design_tree", {"designId": design["designId"], "actions": ACTIONS}))
        generated = ok(
            await session.call_tool("generate_pdf", {"designId": design["designId"], "data": {"sales": ROWS}})
        )
        wrong = failed(
            await session.call_tool(
                "generate_pdf", {"designId": design["designId"], "data": {"sales": [{"month": "X", "profit": 1}]}}
            ),
            "VALIDATION_ERROR",
        )
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        return generated, wrong, tools

    result, wrong, tools = run(api_server, api_server.workspaces["alpha"][1], script)
    assert "variable 'sales'" in wrong and "'profit' is neither data.x nor a series' key" in wrong, wrong
    [page] = poppler_text(httpx.get(result["downloadUrl"]).content)
    assert "February" in page and "Revenue by month" in page
    assert '"stackedBar"' in str(tools["patch_design_tree"].input_schema).replace("'", '"')


def test_the_catalog_and_openapi_carry_the_chart(api_server, alpha):
    catalog = {a["name"]: a["args"] for a in alpha.data(alpha.get("/actions"), 200)["actions"]}
    assert "chart" in str(catalog["add_element"])
    openapi = httpx.get(f"{api_server.api}/openapi.json").json()
    assert "stackedBar" in str(openapi) and "palette" in str(openapi)
