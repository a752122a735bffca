"""Fields over the API (extensions.md 1, 5): GET /designs/:id/variables, its MCP tool
list_variables, and generate's values for fields, over real HTTP."""

import httpx
import pytest

from tests.mcp_calls import ok, run
from tests.pdf_probes import pdf_text

from ..conftest import action, add

SENTENCE = add(
    "text",
    "sentence",
    {"x": 40, "y": 40, "maxWidth": 500},
    {
        "content": "This certifies that {recipient} completed {course}.",
        "fields": True,
        "samples": {"course": "Analytical Engines"},
    },
)
DESIGN = [
    SENTENCE,
    add("text", "recipient", {"x": 40, "y": 120}, {"content": "Ada Lovelace"}),
    add("image", "logo", {"x": 300, "y": 200, "w": 40, "h": 40}),
    add("text", "footer", {"x": 40, "y": 700}, {"content": "Page {page} of {pages}", "fields": True}),
    action("bind_variable", name="recipient"),
    action("bind_variable", name="logo"),
]


@pytest.fixture
def design_id(alpha) -> str:
    design_id = alpha.data(alpha.post("/designs", json={"name": "Fields"}), 201)["designId"]
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": DESIGN}), 200)
    return design_id


EXPECTED = [
    {
        "name": "recipient",
        "kind": "text",
        "sample": "Ada Lovelace",
        "elements": ["recipient", "sentence"],
        "readBy": [],
    },
    {"name": "logo", "kind": "image", "sample": None, "elements": ["logo"], "readBy": []},
    # readBy: no expression reads these (extensions.md 11).
    {"name": "course", "kind": "field", "sample": "Analytical Engines", "elements": ["sentence"], "readBy": []},
]


def without_accepts(variables: list[dict]) -> list[dict]:
    assert all(isinstance(v.pop("accepts"), str) for v in variables)
    return variables


def test_the_variables_endpoint_lists_bound_elements_and_fields(alpha, design_id):
    variables = alpha.data(alpha.get(f"/designs/{design_id}/variables"), 200)["variables"]
    by_name = {v["name"]: v for v in variables}
    assert by_name["course"]["accepts"] == "a string or a number, inserted as literal text"
    assert "{recipient}" in by_name["recipient"]["accepts"]
    assert sorted(without_accepts(variables), key=lambda v: v["name"]) == sorted(EXPECTED, key=lambda v: v["name"])
    tree = alpha.get(f"/designs/{design_id}/tree").json()
    assert tree["variables"]["course"] == {"nodeId": None, "kind": "field"}


def test_the_variables_endpoint_answers_404_for_another_workspace(beta, design_id):
    beta.error(beta.get(f"/designs/{design_id}/variables"), 404, "DESIGN_NOT_FOUND")


def test_list_variables_over_mcp(api_server, alpha, design_id):
    async def script(session):
        return ok(await session.call_tool("list_variables", {"designId": design_id}))

    data = run(api_server, api_server.workspaces["alpha"][1], script)
    assert sorted(without_accepts(data["variables"]), key=lambda v: v["name"]) == sorted(
        EXPECTED, key=lambda v: v["name"]
    )


def test_generate_fills_fields_and_keeps_values_literal(alpha, design_id):
    body = {"data": {"recipient": "Grace {course} **Hopper**", "course": 42}}
    url = alpha.data(alpha.post(f"/designs/{design_id}/generate", json=body), 201)["downloadUrl"]
    text = pdf_text(httpx.get(url).content)[0]
    assert "This certifies that Grace {course} **Hopper** completed 42." in text
    assert "Page 1 of 1" in text


def test_generate_uses_samples_for_missing_fields(alpha, design_id):
    url = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={}), 201)["downloadUrl"]
    assert "This certifies that Ada Lovelace completed Analytical Engines." in pdf_text(httpx.get(url).content)[0]


@pytest.mark.parametrize("value", [True, ["a"], {"a": "b"}])
def test_generate_refuses_a_field_value_of_the_wrong_type(alpha, design_id, value):
    before = alpha.data(alpha.get("/me"), 200)["credits"]
    response = alpha.post(f"/designs/{design_id}/generate", json={"data": {"course": value}})
    message = alpha.error(response, 400, "VALIDATION_ERROR")
    expected = f"expected a string or a number for a field, got {type(value).__name__}: send the text to show"
    assert message == f"variable 'course': {expected}"
    assert alpha.data(alpha.get("/me"), 200)["credits"] == before


def test_a_lone_brace_is_refused_over_http_with_its_index(alpha, design_id):
    update = action("update_element", name="sentence", data={"content": "50% off {"})
    response = alpha.patch(f"/designs/{design_id}/tree", json={"actions": [update]})
    message = alpha.error(response, 400, "VALIDATION_ERROR")
    assert "lone '{' at character 8: write {{ for a literal brace" in message


def test_a_batch_row_with_a_wrong_field_value_is_refused_naming_the_row(alpha, design_id):
    rows = [{"course": "Engines", "recipient": "Ada"}, {"course": [1]}]
    message = alpha.error(alpha.post(f"/designs/{design_id}/batch", json={"rows": rows}), 400, "VALIDATION_ERROR")
    expected = "expected a string or a number for a field, got list: send the text to show"
    assert message == f"rows[1]: variable 'course': {expected}"


def test_the_variables_endpoint_is_in_openapi(alpha):
    spec = alpha.get("/openapi.json").json()
    operation = spec["paths"]["/designs/{designId}/variables"]["get"]
    assert operation["operationId"] == "list_variables"


def test_fields_and_samples_are_in_the_action_catalog(alpha):
    actions = {a["name"]: a for a in alpha.data(alpha.get("/actions"), 200)["actions"]}
    schema = str(actions["add_element"]["args"])
    assert "'fields'" in schema and "'samples'" in schema and "{page} and {pages}" in schema
