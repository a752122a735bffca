"""The barcode formats of extensions.md 14 over real HTTP: GS1 element strings and per-format
values refused with 400 VALIDATION_ERROR naming the fix, nothing saved; a bound GS1 code
checked at generation and read back from the generated PDF."""

import httpx
import pytest
import zxingcpp

from tests.mcp_calls import failed, ok, run
from tests.pdf_probes import page_image

ELEMENT_STRING = "(01)09501101530003(17)260101(10)AB12"


def barcode(content: str, fmt: str, name: str = "code") -> dict:
    return {
        "type": "add_element",
        "args": {
            "type": "barcode",
            "name": name,
            "position": {"x": 60, "y": 60, "w": 420, "h": 100},
            "data": {"content": content, "format": fmt},
        },
    }


def create(client) -> str:
    return client.data(client.post("/designs", json={"name": "Label"}), 201)["designId"]


@pytest.mark.parametrize(
    "fmt,content,message",
    [
        ("gs1-128", "(01)09501101530004", "check digit of (01)09501101530004 is wrong: it should be 3"),
        ("gs1-datamatrix", "(85)1234", "unknown GS1 application identifier (85); docbench checks 00-02"),
        ("gs1-128", "(01)0950110153000", "(01) takes 14 digits, the last a check digit; '0950110153000' has 13"),
        ("gs1-datamatrix", "(01)09501101530003(17)261301", "(17) takes a date YYMMDD; 261301 has month 13"),
        ("upce", "2123456", "upce's number system is 0 or 1"),
        ("itf14", "12345678901234", "check digit of 12345678901234 is wrong: it should be 1"),
        ("pdf417", "1" * 2529, "content is too long for pdf417 (2529 bytes): its largest symbol holds"),
    ],
)
def test_bad_barcode_values_are_refused_naming_the_fix(alpha, fmt, content, message):
    design_id = create(alpha)
    before = alpha.get(f"/designs/{design_id}/tree").text
    refusal = alpha.error(
        alpha.patch(f"/designs/{design_id}/tree", json={"actions": [barcode(content, fmt)]}), 400, "VALIDATION_ERROR"
    )
    assert message in refusal
    assert alpha.get(f"/designs/{design_id}/tree").text == before


def test_bound_gs1_code_is_checked_at_generation_and_drawn(alpha):
    design_id = create(alpha)
    actions = [barcode(ELEMENT_STRING, "gs1-128"), {"type": "bind_variable", "args": {"name": "code"}}]
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    (variable,) = alpha.data(alpha.get(f"/designs/{design_id}/variables"), 200)["variables"]
    assert variable["name"] == "code" and variable["kind"] == "code"
    refusal = alpha.error(
        alpha.post(f"/designs/{design_id}/generate", json={"data": {"code": "(01)09501101530003(17)260230"}}),
        400,
        "VALIDATION_ERROR",
    )
    assert "variable 'code': (17) takes a date YYMMDD; 260230 has no day 30 in its month" in refusal
    value = "(01)09501101530003(21)SN-0042"
    url = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={"data": {"code": value}}), 201)["downloadUrl"]
    (found,) = zxingcpp.read_barcodes(page_image(httpx.get(url).content, dpi=150))
    assert found.text == value and found.symbology_identifier == "]C1"


def test_mcp_refuses_a_bad_gs1_value_as_rest_does(api_server):
    async def script(session):
        design = ok(await session.call_tool("create_design", {"name": "label"}))
        actions = [barcode("(01)09501101530003(17)260101(99)", "gs1-datamatrix")]
        return failed(
            await session.call_tool("patch_design_tree", {"designId": design["designId"], "actions": actions}),
            "VALIDATION_ERROR",
        )

    assert "(99) has no value; write it after the parentheses" in run(
        api_server, api_server.workspaces["alpha"][1], script
    )
