"""A preview of every sheet (issue 35): a page whose table grows lays out as several sheets;
GET and POST /designs/:id/preview take `sheet` and say how many `sheets` the page has."""

from __future__ import annotations

import io

import httpx
from PIL import Image, ImageChops

from ..conftest import add

HEADER = ["Item", "Qty"]
LONG_TABLE = [
    add("text", "title", {"x": 40, "y": 40}, {"content": "Rows"}),
    add("table", "rows", {"x": 40, "y": 80}, {"cells": [HEADER] + [[f"row {i}", str(i)] for i in range(90)]}),
    add("text", "total", {"x": 40, "y": 200}, {"content": "Total"}),
    {"type": "bind_variable", "args": {"name": "rows"}},
]


def design(client) -> str:
    design_id = client.data(client.post("/designs", json={"name": "Sheets"}), 201)["designId"]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": LONG_TABLE}), 200)
    return design_id


def picture(url: str) -> Image.Image:
    response = httpx.get(url)
    assert response.status_code == 200 and response.headers["Content-Type"] == "image/png"
    return Image.open(io.BytesIO(response.content)).convert("RGB")


def test_every_sheet_of_a_page_can_be_previewed(alpha):
    design_id = design(alpha)
    first = alpha.data(alpha.get(f"/designs/{design_id}/preview"), 200)
    assert (first["page"], first["sheet"]) == (0, 0) and first["sheets"] == 3
    third = alpha.data(alpha.get(f"/designs/{design_id}/preview", params={"sheet": 2}), 200)
    assert (third["sheet"], third["sheets"]) == (2, 3)
    assert ImageChops.difference(picture(first["previewUrl"]), picture(third["previewUrl"])).getbbox() is not None
    # Asked again: the same picture (cached by sheet as by page content).
    again = alpha.data(alpha.get(f"/designs/{design_id}/preview", params={"sheet": 2}), 200)
    assert again["previewUrl"].split("?")[0] == third["previewUrl"].split("?")[0]


def test_a_sheet_past_the_page_s_is_a_clear_400(alpha):
    design_id = design(alpha)
    message = alpha.error(alpha.get(f"/designs/{design_id}/preview", params={"sheet": 3}), 400, "VALIDATION_ERROR")
    assert "sheet 3 does not exist" in message and "3 sheet(s)" in message
    alpha.error(alpha.get(f"/designs/{design_id}/preview", params={"sheet": -1}), 400, "VALIDATION_ERROR")


def test_a_preview_with_values_shows_the_sheet_asked_for(alpha):
    design_id = design(alpha)
    short = {"rows": [HEADER, ["only", "1"]]}
    one = alpha.data(alpha.post(f"/designs/{design_id}/preview", json={"data": short}), 200)
    assert (one["sheet"], one["sheets"]) == (0, 1)
    long = {"rows": [HEADER] + [[f"line {i}", str(i)] for i in range(150)]}
    last = alpha.data(alpha.post(f"/designs/{design_id}/preview", json={"data": long, "sheet": 3}), 200)
    assert (last["sheet"], last["sheets"]) == (3, 5)
