"""Fitting and overflow of text over REST (extensions.md 2): the echoed box at the fitted
size, the refusals in the error envelope, and a flowing text generated over three sheets."""

from __future__ import annotations

import httpx

from tests.pdf_probes import page_count, pdf_text
from tests.text_samples import LONG_NAME, paragraphs, words_in_order

from ..conftest import add


def create(client) -> str:
    return client.data(client.post("/designs", json={"name": "Fitting", "size": "A4"}), 201)["designId"]


def test_add_element_echoes_the_box_at_the_fitted_size(alpha):
    design_id = create(alpha)
    name = add(
        "text",
        "Name",
        {"x": 40, "y": 40, "maxWidth": 200},
        {"content": LONG_NAME, "maxLines": 1},
        {"fontSize": 36, "fit": "shrink"},
    )
    (result,) = alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [name]}), 200)["results"]
    box = result["data"]["position"]
    assert box["w"] == 200 and box["h"] < 36 * 1.2 / 2  # one line at well under half the size


def test_shrink_without_a_width_is_refused_in_the_error_envelope(alpha):
    design_id = create(alpha)
    name = add("text", "Name", {"x": 40, "y": 40}, {"content": LONG_NAME}, {"fit": "shrink"})
    message = alpha.error(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [name]}), 400, "VALIDATION_ERROR")
    assert message.startswith("actions[0] (add_element) failed") and "position.maxWidth" in message


def test_a_flowing_text_is_generated_over_three_sheets(alpha):
    design_id = create(alpha)
    actions = [
        add("text", "Body", {"x": 40, "y": 80, "maxWidth": 60}, {"content": "short", "overflow": "flow"}),
        add("text", "Signature", {"x": 40, "y": 114.4}, {"content": "Yours truly"}),
        {"type": "bind_variable", "args": {"name": "Body"}},
    ]
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    generated = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={"data": {"Body": paragraphs(30)}}), 201)
    pdf = httpx.get(generated["downloadUrl"]).content
    texts = pdf_text(pdf)
    assert page_count(pdf) == 3
    assert words_in_order(texts) == [f"p{p:02d}l{line}" for p in range(30) for line in range(5)]
    assert "Yours truly" in texts[2]
