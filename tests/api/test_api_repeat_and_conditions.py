"""repeat and showIf (extensions.md 4) through the faces: the catalog, OpenAPI and MCP
schemas carry them (generated from the models), and REST takes, stores and renders them."""

from __future__ import annotations

import httpx

from tests.mcp_calls import ok, run
from tests.pdf_probes import pdf_text

from ..conftest import action, add


def test_the_action_catalog_has_both_keys_on_add_and_update(alpha):
    actions = {a["name"]: a["args"] for a in alpha.data(alpha.get("/actions"), 200)["actions"]}
    for model in actions["add_element"]["$defs"].values():
        if model.get("title", "").startswith("Add"):
            assert {"repeat", "showIf"} <= set(model["properties"]), model["title"]
    update = actions["update_element"]["properties"]
    assert {"repeat", "showIf"} <= set(update)
    condition = actions["update_element"]["$defs"]["Condition"]
    # A variable with equals/notEquals, or an expression (extensions.md 11): neither is required alone.
    assert set(condition["properties"]) == {"variable", "equals", "notEquals", "expression"}
    assert "required" not in condition and condition["additionalProperties"] is False


def test_openapi_describes_the_keys_on_every_node(api_server):
    schemas = httpx.get(f"{api_server.api}/openapi.json").json()["components"]["schemas"]
    nodes = [name for name in schemas if name.endswith("Node")]
    assert nodes and all({"repeat", "showIf"} <= set(schemas[name]["properties"]) for name in nodes)
    assert schemas["Condition"]["additionalProperties"] is False
    assert '"sheets"' in str(schemas[nodes[0]]["properties"]["repeat"]).replace("'", '"')


def test_mcp_tool_schemas_carry_the_keys(api_server):
    async def script(session):
        return (await session.list_tools()).tools

    tools = run(api_server, api_server.workspaces["alpha"][1], script)
    patch = next(t for t in tools if t.name == "patch_design_tree")
    schema = patch.input_schema
    defs = schema["$defs"]
    adds = [d for name, d in defs.items() if name.startswith("Add") and name.endswith("Args")]
    assert adds and all({"repeat", "showIf"} <= set(d["properties"]) for d in adds)
    assert "Condition" in defs


def test_rest_stores_the_keys_and_generates_with_them(alpha):
    design_id = alpha.data(alpha.post("/designs", json={"name": "Paid stamp"}), 201)["designId"]
    actions = [
        add("text", "status", {"x": 40, "y": 40}, {"content": "due"}),
        action("bind_variable", name="status"),
        add(
            "text",
            "stamp",
            {"x": 300, "y": 40},
            {"content": "STAMPPAID"},
            showIf={"variable": "status", "equals": "paid"},
        ),
        add("text", "footer", {"x": 40, "y": 780}, {"content": "FOOTER"}, repeat="pages"),
    ]
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    nodes = {n["name"]: n for n in alpha.get(f"/designs/{design_id}/tree").json()["nodes"].values()}
    assert nodes["stamp"]["showIf"] == {"variable": "status", "equals": "paid", "notEquals": None}
    assert nodes["footer"]["repeat"] == "pages" and nodes["status"]["repeat"] == "none"

    def generated(values):
        url = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={"data": values}), 201)["downloadUrl"]
        return pdf_text(httpx.get(url).content)[0]

    assert "STAMPPAID" in generated({"status": "paid"})
    assert "STAMPPAID" not in generated({"status": "due"})


def test_rest_refuses_a_condition_on_an_unknown_variable(alpha):
    design_id = alpha.data(alpha.post("/designs", json={"name": "No such variable"}), 201)["designId"]
    actions = [add("text", "stamp", {"x": 40, "y": 40}, {"content": "x"}, showIf={"variable": "paid"})]
    message = alpha.error(alpha.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 400, "VALIDATION_ERROR")
    assert "actions[0] (add_element) failed: showIf.variable: the design has no variable 'paid'" in message


def test_mcp_refuses_repeat_on_a_table(api_server):
    async def script(session):
        design = ok(await session.call_tool("create_design", {"name": "Repeat a table"}))
        table = add("table", "t", {"x": 40, "y": 40}, repeat="sheets")
        return await session.call_tool("patch_design_tree", {"designId": design["designId"], "actions": [table]})

    result = run(api_server, api_server.workspaces["alpha"][1], script)
    assert result.is_error is True
    assert "a table cannot repeat" in result.structured_content["message"]
