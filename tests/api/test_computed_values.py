"""Computed values (extensions.md 11) end to end through a real `docbench serve`: every key
set with actions over REST, generated over REST, and read back from the PDF by poppler; the
refusals at add/update and at generation (alone in a batch); readBy; the MCP face and the
schemas that carry the keys."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest

from api.service.generation import dated_digest
from tests.batch_jobs import wait_for_end
from tests.mcp_calls import failed, ok, run
from tests.pdf_probes import advance_boxes, drawn_lines, poppler_text

from ..conftest import action, add

INVOICE = [
    {"key": "item", "header": "Item"},
    {"key": "qty", "header": "Qty", "dataType": "number", "format": "#,##0"},
    {
        "key": "price",
        "header": "Price",
        "dataType": "currency",
        "format": "#,##0.00 ¤",
        "currency": "EUR",
        "locale": "de",
    },
    {"key": "amount", "header": "Amount", "dataType": "number", "format": "#,##0.00", "value": "qty * price"},
]


def table(name: str, columns: list[dict], y: float = 60, **data) -> dict:
    header = [column.get("header", column["key"]) for column in columns]
    cells = [header, [""] * len(columns)]
    return add(
        "table",
        name,
        {"x": 40, "y": y},
        {"cells": cells, "columnWidths": [120] * len(columns), "columnDefs": columns, **data},
    )


def new_design(client, actions: list[dict], name: str = "Computed") -> str:
    design_id = client.data(client.post("/designs", json={"name": name}), 201)["designId"]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    return design_id


def pdf(client, design_id: str, values: dict) -> bytes:
    """The PDF generated over REST with these values."""
    result = client.data(client.post(f"/designs/{design_id}/generate", json={"data": values}), 201)
    return httpx.get(result["downloadUrl"]).content


def generated(client, design_id: str, values: dict) -> list[str]:
    """The generated PDF's pages as poppler reads them."""
    return poppler_text(pdf(client, design_id, values))


def credits(client) -> int:
    return client.data(client.get("/me"), 200)["credits"]


def tree(client, design_id: str) -> dict:
    """The stored tree (GET /tree answers it bare, as the editor stores it)."""
    response = client.get(f"/designs/{design_id}/tree")
    assert response.status_code == 200, response.text
    return response.json()


# Each key, set over REST and generated over REST.


def test_typed_columns_format_each_cell_and_compute_the_amount(alpha):
    design_id = new_design(alpha, [table("lines", INVOICE), action("bind_variable", name="lines")])
    rows = [{"item": "Pen", "qty": 300, "price": "0.01"}, {"item": "Desk", "qty": 1200, "price": 1234.5}]
    [page] = generated(alpha, design_id, {"lines": rows})
    assert "Pen" in page and "Desk" in page
    assert "1,200" in page  # qty: #,##0
    assert "0,01 €" in page and "1.234,50 €" in page  # price: currency EUR in German
    assert "3.00" in page  # 300 × 0.01, exact
    assert "1,481,400.00" in page  # 1200 × 1234.5


def test_the_2d_array_form_stays_accepted(alpha):
    design_id = new_design(alpha, [table("lines", INVOICE), action("bind_variable", name="lines")])
    [page] = generated(alpha, design_id, {"lines": [["Item", "Qty", "Price", "Amount"], ["Ink", "3", "0.10", ""]]})
    assert "Ink" in page and "0,10 €" in page and "0.30" in page


def test_a_footer_sums_the_rows_and_is_formatted_by_its_column(alpha):
    footer = [{"item": "Total", "amount": "=sum(amount)"}, {"item": "Lines", "qty": "=count()"}]
    design_id = new_design(alpha, [table("lines", INVOICE, footer=footer), action("bind_variable", name="lines")])
    rows = [{"item": "Pen", "qty": 300, "price": "0.01"}, {"item": "Ink", "qty": 2, "price": "0.10"}]
    [page] = generated(alpha, design_id, {"lines": rows})
    lines = page.splitlines()
    assert lines.index("Total") > lines.index("Ink")  # after the last data row
    assert "3.20" in page and "Lines" in page


def test_groups_have_a_header_and_a_subtotal_each(alpha):
    columns = [
        {"key": "region"},
        {"key": "item"},
        {"key": "amount", "dataType": "number", "format": "0.00"},
    ]
    data = {
        "groupBy": "region",
        "groupHeader": "concat('Region ', upper(region))",
        "groupFooter": [{"item": "Subtotal", "amount": "=sum(amount)"}],
        "footer": [{"item": "Grand total", "amount": "=sum(amount)"}],
    }
    design_id = new_design(alpha, [table("sales", columns, **data), action("bind_variable", name="sales")])
    rows = [
        {"region": "north", "item": "a", "amount": "0.1"},
        {"region": "north", "item": "b", "amount": "0.2"},
        {"region": "south", "item": "c", "amount": "1.5"},
    ]
    document = pdf(alpha, design_id, {"sales": rows})
    [page] = poppler_text(document)
    assert "Region NORTH" in page and "Region SOUTH" in page and page.count("Subtotal") == 2
    # Top to bottom as drawn (poppler reads a row spanning the table after the columns).
    lines = ["".join(line.split()) for line in drawn_lines(document) if line.strip()]
    assert lines[lines.index("RegionNORTH") :] == [
        "RegionNORTH",
        "northa0.10",
        "northb0.20",
        "Subtotal0.30",
        "RegionSOUTH",
        "southc1.50",
        "Subtotal1.50",
        "Grandtotal1.80",
    ]


def test_a_text_expression_reads_a_table_column_exactly(alpha):
    columns = [{"key": "item"}, {"key": "amount", "dataType": "number", "format": "0.00"}]
    actions = [
        table("items", columns, footer=[{"item": "Total", "amount": "=sum(amount)"}]),
        action("bind_variable", name="items"),
        add(
            "text",
            "total",
            {"x": 40, "y": 20},
            {"expression": "sum(items.amount)", "dataType": "number", "format": "0.00"},
        ),
        add("text", "exact", {"x": 300, "y": 20}, {"expression": "concat('exact ', 0.1 + 0.2)"}),
    ]
    design_id = new_design(alpha, actions)
    # A table holds at most 500 rows, its header one of them: 499 lines of 0.01.
    rows = [{"item": f"line {n}", "amount": "0.01"} for n in range(499)]
    pages = generated(alpha, design_id, {"items": rows})
    assert len(pages) > 1
    assert pages[0].splitlines()[0] == "4.99", pages[0][:200]  # the text, above the table
    assert "exact 0.3" in pages[0]
    assert "Total\n4.99" in pages[-1] or "Total 4.99" in " ".join(pages[-1].split()), pages[-1][-200:]


def test_500_row_objects_and_the_header_are_refused_naming_the_header(alpha):
    """A table holds 500 rows, its header row among them: 500 row objects are refused with a
    count the caller sent and the header named, not as '501 rows'."""
    columns = [{"key": "item"}, {"key": "amount", "dataType": "number", "format": "0.00"}]
    design_id = new_design(
        alpha, [table("items", columns, footer=[{"amount": "=sum(amount)"}]), action("bind_variable", name="items")]
    )
    rows = [{"item": f"line {n}", "amount": "0.01"} for n in range(500)]
    body = {"data": {"items": rows}}
    message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
    assert "500 rows and the header row" in message and "501" not in message


def test_a_field_expression_is_computed_in_its_text(alpha):
    actions = [
        table("lines", INVOICE),
        action("bind_variable", name="lines"),
        add(
            "text",
            "due",
            {"x": 40, "y": 20},
            {
                "content": "Dear {customer}, you owe {= sum(lines.amount) * 2 + 0.25} in {= count(lines.item)} lines",
                "fields": True,
            },
        ),
    ]
    design_id = new_design(alpha, actions)
    values = {"customer": "Ada", "lines": [{"item": "Pen", "qty": 300, "price": "0.01"}]}
    [page] = generated(alpha, design_id, values)
    assert "Dear Ada, you owe 6.25 in 1 lines" in " ".join(page.split())


def test_show_if_an_expression_decides_per_generation(alpha):
    actions = [
        table("lines", INVOICE),
        action("bind_variable", name="lines"),
        add(
            "text",
            "bulk",
            {"x": 300, "y": 20},
            {"content": "BULKDISCOUNT"},
            showIf={"expression": "sum(lines.amount) > 100"},
        ),
    ]
    design_id = new_design(alpha, actions)
    big = [{"item": "Desk", "qty": 1, "price": "150"}]
    small = [{"item": "Pen", "qty": 1, "price": "1"}]
    assert "BULKDISCOUNT" in generated(alpha, design_id, {"lines": big})[0]
    assert "BULKDISCOUNT" not in generated(alpha, design_id, {"lines": small})[0]


def _totals_block(keep: bool) -> list[dict]:
    """A table of lines with a three-text totals block under it; the first two keep with the next."""
    columns = [{"key": "item"}, {"key": "amount", "dataType": "number", "format": "0.00"}]
    texts = [
        add("text", name, {"x": 40, "y": y}, {"content": label}, keepWithNext=keep and name != "total_due")
        for name, label, y in [
            ("subtotal", "SUBTOTALLINE", 160),
            ("tax", "TAXLINE", 200),
            ("total_due", "GESAMTBETRAG", 240),
        ]
    ]
    return [table("lines", columns), action("bind_variable", name="lines"), *texts]


def _sheets_of_block(client, design_id: str, count: int) -> set[int]:
    rows = [{"item": f"line {n}", "amount": "1"} for n in range(count)]
    pages = generated(client, design_id, {"lines": rows})
    return {n for n, page in enumerate(pages) for label in ("SUBTOTALLINE", "TAXLINE", "GESAMTBETRAG") if label in page}


def test_keep_with_next_never_splits_a_totals_block(alpha):
    # Over a range of row counts the block's end reaches past the sheet's foot at some count:
    # without keepWithNext it then splits there; with it, it moves whole.
    counts = range(28, 46)
    loose = new_design(alpha, _totals_block(keep=False), name="Loose totals")
    assert any(len(_sheets_of_block(alpha, loose, count)) > 1 for count in counts)
    kept = new_design(alpha, _totals_block(keep=True), name="Kept totals")
    nodes = {n["name"]: n for n in tree(alpha, kept)["nodes"].values()}
    assert nodes["subtotal"]["keepWithNext"] is True and nodes["tax"]["keepWithNext"] is True
    for count in counts:
        assert len(_sheets_of_block(alpha, kept, count)) == 1, count


# Refusals: at add/update a 400 naming the element, the key, the character and the fix, with
# nothing saved; at generation a 400 naming the variable, the row and the column, nothing charged.


def _refused(client, actions: list[dict]) -> str:
    """The message of a refused patch on a new design, whose tree is left as it was."""
    design_id = client.data(client.post("/designs", json={"name": "Refused"}), 201)["designId"]
    before = tree(client, design_id)
    message = client.error(
        client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 400, "VALIDATION_ERROR"
    )
    assert tree(client, design_id) == before
    return message


def _amount(value: str) -> list[dict]:
    return INVOICE[:3] + [{"key": "amount", "dataType": "number", "value": value}]


@pytest.mark.parametrize(
    ("actions", "fragments"),
    [
        ([table("t", _amount("qty * * price"))], ["columnDefs", "value", "unexpected '*' at character 6"]),
        (
            [table("t", _amount("qty * cost"))],
            [
                "'t' data.columnDefs[3].value",
                "unknown name 'cost' at character 6",
                "the names here are item, qty, price",
            ],
        ),
        (
            [table("t", _amount("frobnicate(qty)"))],
            [
                "'t' data.columnDefs[3].value",
                "unknown function 'frobnicate' at character 0",
                "the functions are if, sum",
            ],
        ),
        (
            [table("t", INVOICE, footer=[{"amount": "=sum(item)"}])],
            [
                "'t' data.footer[0].amount",
                "item is a text column at character 4",
                "set its dataType to number or currency",
            ],
        ),
        (
            [table("t", INVOICE, footer=[{"total": "=sum(amount)"}])],
            ["data.footer[0]: 'total' is not a column key of this table", "(its keys: item, qty, price, amount)"],
        ),
        ([add("text", "x", {"x": 40, "y": 40}, {"expression": "1 +"})], ["data.expression", "at character 3"]),
        (
            [add("text", "x", {"x": 40, "y": 40}, {"content": "a {= 1 + } b", "fields": True})],
            ["the {= expression} at character 5", "ends too early at character 3"],
        ),
        (
            [add("text", "x", {"x": 40, "y": 40}, {"content": "a"}, showIf={"expression": "nope > 1"})],
            ["'x' showIf.expression", "unknown name 'nope' at character 0"],
        ),
        ([add("text", "x", {"x": 40, "y": 40}, {"expression": "1 / 0"})], ["element 'x'", "division by zero"]),
    ],
)
def test_an_expression_that_cannot_be_computed_is_refused_where_it_is_set(alpha, actions, fragments):
    message = _refused(alpha, actions)
    assert message.startswith("actions[0] (add_element) failed: "), message
    for fragment in fragments:
        assert fragment in message, message


def test_an_update_that_breaks_an_expression_is_refused_and_nothing_is_saved(alpha):
    design_id = new_design(alpha, [table("lines", INVOICE), action("bind_variable", name="lines")])
    before = tree(alpha, design_id)
    node_id = next(n["id"] for n in before["nodes"].values() if n["name"] == "lines")
    defs = _amount("qty * discount")
    update = action("update_element", id=node_id, data={"columnDefs": defs})
    message = alpha.error(
        alpha.patch(f"/designs/{design_id}/tree", json={"actions": [update]}), 400, "VALIDATION_ERROR"
    )
    assert "actions[0] (update_element) failed" in message and "unknown name 'discount' at character 6" in message
    assert tree(alpha, design_id) == before


@pytest.mark.parametrize(
    ("row", "fragments"),
    [
        ({"item": "Pen", "amount": "3"}, ["row 1: 'amount' is a computed column", "leave it out", "item, qty, price"]),
        ({"item": "Pen", "colour": "red"}, ["row 1: 'colour' is not a column of this table", "item, qty, price"]),
        ({"item": "Pen", "qty": "many", "price": "1"}, ["row 1, column 'qty'"]),
    ],
)
def test_a_row_object_that_does_not_fit_is_refused_and_costs_nothing(alpha, row, fragments):
    design_id = new_design(alpha, [table("lines", INVOICE), action("bind_variable", name="lines")])
    before = credits(alpha)
    body = {"data": {"lines": [{"item": "Ink", "qty": 1, "price": "2"}, row]}}
    message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
    assert "variable 'lines'" in message, message
    for fragment in [f.replace("row 1", "row 2") for f in fragments]:  # the second row is the bad one
        assert fragment in message, message
    assert credits(alpha) == before


def test_a_value_that_makes_an_expression_fail_is_a_400_naming_variable_row_and_column(alpha):
    columns = [{"key": "item"}, {"key": "total", "dataType": "number"}, {"key": "qty", "dataType": "number"}]
    columns.append({"key": "each", "dataType": "number", "format": "0.00", "value": "total / qty"})
    design_id = new_design(alpha, [table("lines", columns), action("bind_variable", name="lines")])
    before = credits(alpha)
    body = {"data": {"lines": [{"item": "a", "total": "3", "qty": "2"}, {"item": "b", "total": "1", "qty": "0"}]}}
    message = alpha.error(alpha.post(f"/designs/{design_id}/generate", json=body), 400, "VALIDATION_ERROR")
    for fragment in ("variable 'lines'", "row 2", "column 'each'", "division by zero"):
        assert fragment in message, message
    assert credits(alpha) == before


def _per_line(client) -> str:
    columns = [{"key": "item"}, {"key": "total", "dataType": "number"}, {"key": "qty", "dataType": "number"}]
    columns.append({"key": "each", "dataType": "number", "format": "0.00", "value": "total / qty"})
    actions = [
        table("lines", columns),
        action("bind_variable", name="lines"),
        add("text", "note", {"x": 40, "y": 20}, {"content": "Rate {rate}, doubled {= rate * 2}", "fields": True}),
    ]
    return new_design(client, actions)


GOOD = {"lines": [{"item": "a", "total": "3", "qty": "2"}], "rate": "1.5"}


@pytest.mark.parametrize(
    ("bad", "fragments"),
    [
        (
            {"lines": [*GOOD["lines"], {"item": "b", "total": "1", "qty": "0"}], "rate": "1"},
            ["variable 'lines'", "row 2", "column 'each'", "division by zero"],
        ),
        ({**GOOD, "rate": "fast"}, ["variable 'rate'", "'note'", "fast"]),
    ],
)
def test_in_a_batch_the_row_whose_value_fails_fails_alone(alpha, bad, fragments):
    design_id = _per_line(alpha)
    before = credits(alpha)
    job_id = alpha.data(alpha.post(f"/designs/{design_id}/batch", json={"rows": [GOOD, bad, GOOD]}), 202)["jobId"]
    job = wait_for_end(alpha, job_id)
    assert (job["status"], job["completed"], job["failed"]) == ("completed", 2, 1)
    failed = alpha.data(alpha.get(f"/batches/{job_id}/rows", params={"status": "failed"}), 200)["items"]
    assert [item["row"] for item in failed] == [2]
    message = failed[0]["error"]["message"]
    for fragment in fragments:
        assert fragment in message, message
    assert credits(alpha) == before - 2  # the failed row's credit came back


def test_a_batch_row_whose_value_is_not_its_columns_type_is_refused_at_submission(alpha):
    # decisions.md "Generation values": a value of the wrong type for its variable is refused
    # up front, for every batch row, before anything is queued or charged.
    design_id = _per_line(alpha)
    before = credits(alpha)
    bad = {"lines": [*GOOD["lines"], {"item": "b", "total": "lots", "qty": "1"}]}
    response = alpha.post(f"/designs/{design_id}/batch", json={"rows": [GOOD, bad, GOOD]})
    message = alpha.error(response, 400, "VALIDATION_ERROR")
    assert message.startswith("rows[1]: variable 'lines': row 2, column 'total': expected a number"), message
    assert credits(alpha) == before


def test_read_by_names_the_elements_whose_expressions_read_each_input(alpha):
    actions = [
        add("text", "customer", {"x": 40, "y": 20}, {"content": "Ada"}),
        action("bind_variable", name="customer"),
        add("text", "rate", {"x": 200, "y": 20}, {"content": "0.2", "dataType": "number"}),
        action("bind_variable", name="rate"),
        table(
            "lines",
            INVOICE,
            y=100,
            footer=[{"item": "=concat('Tax ', rate * 100, '%')", "amount": "=sum(amount) * rate"}],
        ),
        action("bind_variable", name="lines"),
        add("text", "total", {"x": 40, "y": 300}, {"expression": "sum(lines.amount)", "dataType": "number"}),
        add("text", "vip", {"x": 300, "y": 300}, {"content": "VIP"}, showIf={"expression": "customer == 'Ada'"}),
    ]
    design_id = new_design(alpha, actions)
    variables = {v["name"]: v for v in alpha.data(alpha.get(f"/designs/{design_id}/variables"), 200)["variables"]}
    assert set(variables) == {"customer", "rate", "lines"}  # computed columns and texts are no variables
    assert variables["lines"]["readBy"] == ["total"]
    assert variables["rate"]["readBy"] == ["lines"]
    assert variables["customer"]["readBy"] == ["vip"]
    assert "amount" not in variables and "total" not in variables


# The MCP face and the schemas every face is generated from.


def test_an_agent_adds_a_typed_table_with_a_computed_column_over_mcp_and_generates(api_server):
    columns = [
        {"key": "item"},
        {"key": "hours", "dataType": "number"},
        {"key": "rate", "dataType": "number"},
        {"key": "fee", "dataType": "currency", "format": "¤#,##0.00", "value": "hours * rate"},
    ]
    actions = [
        table("work", columns, footer=[{"item": "Total", "fee": "=sum(fee)"}]),
        action("bind_variable", name="work"),
    ]

    async def script(session):
        design = ok(await session.call_tool("create_design", {"name": "Agent invoice"}))
        ok(await session.call_tool("patch_design_tree", {"designId": design["designId"], "actions": actions}))
        rows = [{"item": "Audit", "hours": "2.5", "rate": 80}, {"item": "Report", "hours": 1, "rate": "0.1"}]
        generated = ok(
            await session.call_tool("generate_pdf", {"designId": design["designId"], "data": {"work": rows}})
        )
        # The same refusals as REST: one operation behind both faces.
        broken = [action("update_element", name="work", data={"footer": [{"fee": "=sum(item)"}]})]
        refused = failed(
            await session.call_tool("patch_design_tree", {"designId": design["designId"], "actions": broken}),
            "VALIDATION_ERROR",
        )
        extra = [{"item": "Audit", "fee": "3"}]
        wrong_row = failed(
            await session.call_tool("generate_pdf", {"designId": design["designId"], "data": {"work": extra}}),
            "VALIDATION_ERROR",
        )
        return generated, refused, wrong_row

    result, refused, wrong_row = run(api_server, api_server.workspaces["alpha"][1], script)
    assert "'work' data.footer[0].fee: sum(item): item is a text column at character 4" in refused, refused
    assert "variable 'work': row 1: 'fee' is a computed column" in wrong_row, wrong_row
    [page] = poppler_text(httpx.get(result["downloadUrl"]).content)
    assert "$200.00" in page and "$0.10" in page and "$200.10" in page


KEYS = {"columnDefs", "footer", "groupBy", "groupHeader", "groupFooter"}


def _properties(schema: object) -> list[set[str]]:
    """The property names of every object schema inside `schema`."""
    found: list[set[str]] = []
    if isinstance(schema, dict):
        if isinstance(schema.get("properties"), dict):
            found.append(set(schema["properties"]))
        for value in schema.values():
            found += _properties(value)
    elif isinstance(schema, list):
        for value in schema:
            found += _properties(value)
    return found


def _carries_the_keys(schema: object) -> None:
    objects = _properties(schema)
    table_data = [keys for keys in objects if "columnDefs" in keys]
    assert table_data and all(KEYS <= keys for keys in table_data), table_data
    assert any({"key", "dataType", "format", "locale", "currency", "value"} <= keys for keys in objects)  # ColumnDef
    assert any({"expression", "dataType", "format"} <= keys for keys in objects)  # a text's data
    assert any({"variable", "equals", "notEquals", "expression"} <= keys for keys in objects)  # showIf
    assert any({"keepWithNext", "showIf", "repeat"} <= keys for keys in objects)  # a node, or add_element's args


def test_the_catalog_openapi_and_mcp_schemas_carry_the_keys(api_server, alpha):
    catalog = {a["name"]: a["args"] for a in alpha.data(alpha.get("/actions"), 200)["actions"]}
    _carries_the_keys(catalog["add_element"])
    assert "keepWithNext" in catalog["update_element"]["properties"]
    openapi = httpx.get(f"{api_server.api}/openapi.json").json()
    _carries_the_keys(openapi)
    assert "readBy" in openapi["components"]["schemas"]["VariableInfo"]["properties"]

    async def script(session):
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in run(api_server, api_server.workspaces["alpha"][1], script)}
    _carries_the_keys(tools["patch_design_tree"].input_schema)


def test_a_computing_designs_preview_is_a_picture_of_its_day():
    # today() reads the render's date: a preview cached by the page's digest alone (in memory,
    # and by name in the blobs) showed the first day's date for ever.
    digest = "0" * 64
    monday, tuesday = dt.date(2026, 11, 23), dt.date(2026, 11, 24)
    assert dated_digest(digest, True, monday) != dated_digest(digest, True, tuesday)
    assert dated_digest(digest, True, monday) == dated_digest(digest, True, monday)
    assert dated_digest(digest, False, monday) == digest == dated_digest(digest, False, tuesday)


def _lines_of(document: bytes, page: int) -> list[str]:
    return ["".join(line.split()) for line in drawn_lines(document, page) if line.strip()]


def _top_of(document: bytes, page: int, word: str) -> float:
    """The top (points from the sheet's bottom) of the first place `word` is drawn on a page."""
    boxes = advance_boxes(document, page)
    text = "".join(char for char, _ in boxes)
    return boxes[text.index(word)][1][3]


def test_groups_keep_their_subtotals_over_page_breaks_and_continue_below_the_repeated_header(alpha):
    columns = [{"key": "region"}, {"key": "item"}, {"key": "amount", "dataType": "number", "format": "0.00"}]
    data = {
        "groupBy": "region",
        "groupFooter": [{"item": "Subtotal", "amount": "=sum(amount)"}],
        "footer": [{"item": "Grand total", "amount": "=sum(amount)"}],
    }
    actions = [
        add("text", "letterhead", {"x": 40, "y": 40}, {"content": "LETTERHEAD"}, repeat="sheets"),
        table("sales", columns, y=100, **data),
        action("bind_variable", name="sales"),
    ]
    design_id = new_design(alpha, actions)
    rows = [{"region": region, "item": f"{region}{n}", "amount": "0.1"} for region in "xyz" for n in range(30)]
    document = pdf(alpha, design_id, {"sales": rows})
    pages = [_lines_of(document, n) for n in range(len(poppler_text(document)))]
    assert len(pages) > 1
    everything = [line for page in pages for line in page]
    assert everything.count("Subtotal3.00") == 3 and everything.count("Grandtotal9.00") == 1
    for page in pages:
        assert page[-1] not in ("x", "y", "z"), page[-3:]  # a group row is never left alone at a sheet's foot
    last = pages[-1]
    assert last[-3:] == ["zz290.10", "Subtotal3.00", "Grandtotal9.00"]  # the footers keep the last data row
    # On the next sheet the table starts below the repeated letterhead with the first sheet's gap.
    assert "LETTERHEAD" in pages[1] and pages[1][1] == "regionitemamount"
    assert abs(_top_of(document, 1, "region") - _top_of(document, 0, "region")) < 0.5


def test_a_preview_with_values_computes_and_refuses_as_generate_does(alpha):
    design_id = new_design(alpha, [table("lines", INVOICE), action("bind_variable", name="lines")])
    rows = [{"item": "Pen", "qty": 300, "price": "0.01"}]
    preview = alpha.data(alpha.post(f"/designs/{design_id}/preview", json={"data": {"lines": rows}}), 200)
    assert httpx.get(preview["previewUrl"]).headers["Content-Type"] == "image/png"
    bad = {"data": {"lines": [{"item": "Pen", "amount": "3"}]}}
    message = alpha.error(alpha.post(f"/designs/{design_id}/preview", json=bad), 400, "VALIDATION_ERROR")
    assert message.startswith("variable 'lines': row 1: 'amount' is a computed column"), message
