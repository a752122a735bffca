"""Issue 35, point 1, in a real headless Chromium: after "Try values", "Generate this" makes the
PDF with the values tried (one credit, as Generate), the plain Generate says it uses the design's
sample values, and each success message says which values the PDF holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.pdf_probes import pdf_text

from ...browser import ARTIFACTS, new_design, open_design, sign_in, wait_for
from ...conftest import add

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

LONG_NAME = "Maximiliane Alexandra von Lindenberg-Hohenstein"


def credits(api) -> int:
    return api.data(api.get("/me"), 200)["credits"]


def downloaded_text(page, button: str) -> str:
    with page.expect_download() as download:
        page.locator(f"{button} button").click()
    return " ".join(pdf_text(Path(download.value.path()).read_bytes()))


def test_generate_this_uses_the_tried_values_and_generate_the_samples(api_server, page, key, alpha_api):
    page.set_viewport_size({"width": 1440, "height": 900})
    design_id = new_design(
        alpha_api,
        "Browser: generate what was tried",
        [
            add("text", "recipient", {"x": 60, "y": 60}, {"content": "Sample Name"}, {"fontSize": 20}),
            add("text", "serial", {"x": 60, "y": 120}, {"content": "ROW-0"}),
            {"type": "bind_variable", "args": {"name": "recipient"}},
            {"type": "bind_variable", "args": {"name": "serial"}},
        ],
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    tried_button = page.locator(".dbk-generate-tried button")
    expect(tried_button).to_be_hidden()  # nothing tried yet: only the plain Generate
    expect(page.locator(".dbk-generate button")).to_have_text("Generate PDF · 1 credit")

    page.locator(".bk-tab", has_text="Try values").click()
    page.locator(".dbk-try-recipient input").fill(LONG_NAME)
    page.locator(".dbk-try-recipient input").press("Enter")
    page.locator(".dbk-try-show button").click()
    expect(tried_button).to_be_visible()
    expect(tried_button).to_have_text("Generate this · 1 credit")
    expect(page.locator(".dbk-generate button")).to_have_text("Generate with sample values · 1 credit")
    expect(page.locator(".alert", has_text="values you tried")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "editor-tried-values.png"))

    before = credits(alpha_api)
    text = downloaded_text(page, ".dbk-generate-tried")
    assert LONG_NAME in text and "Sample Name" not in text
    assert "ROW-0" in text  # a value left empty keeps the sample, as in the preview
    expect(page.locator(".alert", has_text="with the values you tried")).to_be_visible()
    wait_for(lambda: credits(alpha_api) == before - 1, "one credit spent")

    text = downloaded_text(page, ".dbk-generate")
    assert "Sample Name" in text and LONG_NAME not in text
    expect(page.locator(".alert", has_text="with the design's sample values")).to_be_visible()
    wait_for(lambda: credits(alpha_api) == before - 2, "one more credit spent")

    page.locator(".dbk-try-back button").click()
    expect(tried_button).to_be_hidden()
    expect(page.locator(".dbk-generate button")).to_have_text("Generate PDF · 1 credit")
