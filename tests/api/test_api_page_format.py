"""Page formats over real HTTP: on add_page and update_page the dimensions follow orientation (spec 4.6).

Creating a design is the exception: a custom sheet is taken literally there (spec 4.2 rule 2).
"""

import httpx
import pytest

from tests import pdf_probes

A4_PORTRAIT = (595.28, 841.89)
A4_LANDSCAPE = (841.89, 595.28)


def new_design(client, **body) -> str:
    return client.data(client.post("/designs", json={"name": "Formats", **body}), 201)["designId"]


def patch(client, design_id: str, *actions: tuple[str, dict]) -> list[dict]:
    body = {"actions": [{"type": kind, "args": args} for kind, args in actions]}
    return client.data(client.patch(f"/designs/{design_id}/tree", json=body), 200)["results"]


def page_sizes(client, design_id: str) -> list[tuple[float, float]]:
    return [(p["width"], p["height"]) for p in client.get(f"/designs/{design_id}/tree").json()["pages"]]


def pdf_page_sizes(client, design_id: str) -> list[tuple[float, float]]:
    url = client.data(client.post(f"/designs/{design_id}/generate", json={}), 201)["downloadUrl"]
    return pdf_probes.page_sizes(httpx.get(url).content)


@pytest.mark.parametrize(
    "args,size",
    [
        ({"width": 595.28, "height": 841.89, "orientation": "landscape"}, A4_LANDSCAPE),
        ({"width": 841.89, "height": 595.28, "orientation": "portrait"}, A4_PORTRAIT),
        ({"size": "A4", "orientation": "landscape"}, A4_LANDSCAPE),
        ({"width": 595.28, "height": 841.89}, A4_PORTRAIT),  # no orientation: taken as given
        ({"width": 841.89, "height": 595.28}, A4_LANDSCAPE),
    ],
)
def test_add_page_dimensions_follow_orientation(alpha, args, size):
    design_id = new_design(alpha)
    results = patch(alpha, design_id, ("add_page", args))
    assert (results[0]["data"]["width"], results[0]["data"]["height"]) == pytest.approx(size, abs=0.01)
    assert page_sizes(alpha, design_id)[1] == pytest.approx(size, abs=0.01)
    assert pdf_page_sizes(alpha, design_id)[1] == pytest.approx(size, abs=0.01)


def test_update_page_dimensions_follow_orientation(alpha):
    design_id = new_design(alpha)
    patch(alpha, design_id, ("update_page", {"page": 0, "width": 300, "height": 500, "orientation": "landscape"}))
    assert page_sizes(alpha, design_id) == [(500, 300)]
    patch(alpha, design_id, ("update_page", {"page": 0, "width": 300, "height": 500}))
    assert page_sizes(alpha, design_id) == [(300, 500)]


def test_create_design_still_takes_a_custom_sheet_literally(alpha):
    design_id = new_design(alpha, width=595.28, height=841.89, orientation="landscape")
    assert page_sizes(alpha, design_id) == [pytest.approx(A4_PORTRAIT, abs=0.01)]
