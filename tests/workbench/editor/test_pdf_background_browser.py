"""PDFs in the editor (extensions.md 12) in a real headless Chromium: a PDF uploaded in the
Images tab is listed with its page count and set as the page background on the page chosen
(the Pages tab then changes it); a file dropped on the canvas is uploaded: a PDF becomes the
page's background, an image is placed where it fell, a file past the limit is refused; the
gallery's "From a PDF…" makes a design from a PDF (basePdf)."""

from __future__ import annotations

import base64
import io
import re

import pytest
from PIL import Image
from playwright.sync_api import expect

from tests.pdf_sources import coloured_pages, reportlab_form
from workbench.samples import logo_png

from ...browser import TIMEOUT_MS, new_design, open_design, sign_in, tree, wait_for

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

RED, BLUE = (0.9, 0.1, 0.1), (0.1, 0.2, 0.8)
RED_PX, BLUE_PX = (230, 26, 26), (26, 51, 204)


def near(colour: tuple[int, ...], target: tuple[int, int, int], within: int = 40) -> bool:
    return all(abs(a - b) <= within for a, b in zip(colour[:3], target, strict=True))


def preview_centre(api, design_id: str) -> tuple[int, ...]:
    """The middle pixel of page 1's preview as the REST API renders it."""
    url = api.data(api.get(f"/designs/{design_id}/preview", params={"page": 0}), 200)["previewUrl"]
    image = Image.open(io.BytesIO(api.get(url).content)).convert("RGB")
    return image.getpixel((image.width // 2, image.height // 2))


def canvas_centre(page) -> tuple[int, ...]:
    """The middle pixel of the page the canvas shows (what a designer sees)."""
    sheet = page.locator(".dbk-sheet").bounding_box()
    x, y = sheet["x"] + sheet["width"] / 2, sheet["y"] + sheet["height"] / 2
    shot = page.screenshot(clip={"x": x - 1, "y": y - 1, "width": 3, "height": 3})
    return Image.open(io.BytesIO(shot)).convert("RGB").getpixel((1, 1))


def drop_file(page, name: str, mime: str, data: bytes | None, at: tuple[float, float], size: int = 0) -> None:
    """Drop a file on the canvas's page at a point of the screen, as a file dragged from the
    desktop (a DataTransfer built in the page; the sheet is inside the canvas's shadow root,
    which a locator reaches). With `data` None, a file of `size` zero bytes."""
    page.locator(".dbk-sheet").evaluate(
        """(sheet, [name, mime, data, x, y, size]) => {
            const bytes = data === null ? new Uint8Array(size) : Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], name, { type: mime }));
            const at = { bubbles: true, cancelable: true, clientX: x, clientY: y, dataTransfer: transfer };
            for (const type of ["dragenter", "dragover", "drop"]) sheet.dispatchEvent(new DragEvent(type, at));
        }""",
        [name, mime, None if data is None else base64.b64encode(data).decode(), at[0], at[1], size],
    )


def sheet_point(page, x_pt: float, y_pt: float, page_width_pt: float = 595.28) -> tuple[float, float]:
    sheet = page.locator(".dbk-sheet").bounding_box()
    s = sheet["width"] / page_width_pt
    return sheet["x"] + x_pt * s, sheet["y"] + y_pt * s


def test_a_pdf_from_the_images_tab_is_the_background_on_the_page_chosen(api_server, page, key, alpha_api, tmp_path):
    design_id = new_design(alpha_api, "PDF: images tab")
    pdf = tmp_path / "letterhead.pdf"
    pdf.write_bytes(coloured_pages(RED, BLUE))
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    page.locator(".bk-tab", has_text="Images").click()
    page.locator(".dbk-upload input[type=file]").set_input_files(str(pdf))
    row = page.locator(".dbk-asset", has_text="letterhead.pdf")
    expect(row).to_contain_text("PDF · 2 pages", timeout=TIMEOUT_MS)
    number = row.locator(".dbk-asset-page input")
    number.fill("2")
    number.press("Enter")
    row.locator(".dbk-as-background button").click()

    def background() -> dict:
        saved = tree(alpha_api, design_id)["pages"][0]
        return saved if saved.get("backgroundImage") else {}

    saved = wait_for(background, "the PDF as the page background")
    assert saved["backgroundImage"].startswith("assets:") and saved["backgroundPageNumber"] == 2
    assert near(preview_centre(alpha_api, design_id), BLUE_PX)  # page 2 of the PDF, not page 1
    wait_for(lambda: near(canvas_centre(page), BLUE_PX), "the canvas showing page 2 of the PDF")
    page.screenshot(path=str(tmp_path / "images-tab.png"))

    # The Pages tab shows which PDF page the background is, and changes it.
    page.locator(".bk-tab", has_text="Pages").click()
    chosen = page.locator(".dbk-background-page input")
    expect(chosen).to_have_value("2", timeout=TIMEOUT_MS)
    chosen.fill("1")
    chosen.press("Enter")
    wait_for(lambda: tree(alpha_api, design_id)["pages"][0].get("backgroundPageNumber") == 1, "page 1 chosen")
    assert near(preview_centre(alpha_api, design_id), RED_PX)
    wait_for(lambda: near(canvas_centre(page), RED_PX), "the canvas showing page 1 of the PDF")


def test_a_pdf_dropped_on_the_canvas_is_the_page_background(api_server, page, key, alpha_api):
    design_id = new_design(alpha_api, "PDF: dropped")
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    drop_file(page, "form.pdf", "application/pdf", coloured_pages(BLUE, RED), sheet_point(page, 300, 400))
    saved = wait_for(
        lambda: (
            tree(alpha_api, design_id)["pages"][0].get("backgroundImage") and tree(alpha_api, design_id)["pages"][0]
        ),
        "the dropped PDF as the page background",
    )
    assert saved["backgroundPageNumber"] == 1
    assets = alpha_api.data(alpha_api.get("/assets"), 200)["items"]
    assert [a["pages"] for a in assets if a["ref"] == saved["backgroundImage"]] == [2]  # uploaded to the library
    wait_for(lambda: near(canvas_centre(page), BLUE_PX), "the canvas showing the dropped PDF")


def test_an_image_dropped_on_the_canvas_is_placed_where_it_fell(api_server, page, key, alpha_api):
    design_id = new_design(alpha_api, "Image: dropped")
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    drop_file(page, "logo.png", "image/png", logo_png(), sheet_point(page, 300, 400))
    placed = wait_for(lambda: tree(alpha_api, design_id)["nodes"], "the dropped image")
    (image,) = placed.values()
    assert image["type"] == "image" and image["data"]["src"].startswith("assets:")
    centre_x = image["position"]["x"] + image["position"]["w"] / 2
    centre_y = image["position"]["y"] + image["position"]["h"] / 2
    assert abs(centre_x - 300) < 3 and abs(centre_y - 400) < 3
    assert tree(alpha_api, design_id)["pages"][0].get("backgroundImage") is None


def test_a_file_past_the_limit_dropped_on_the_canvas_is_refused_by_name(api_server, page, key, alpha_api):
    design_id = new_design(alpha_api, "PDF: too big")
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    assets = len(alpha_api.data(alpha_api.get("/assets"), 200)["items"])
    drop_file(page, "huge.pdf", "application/pdf", None, sheet_point(page, 300, 400), size=11 * 1024 * 1024)
    expect(page.locator(".alert", has_text="huge.pdf is 11.0 MB")).to_contain_text("at most 10 MB")
    assert tree(alpha_api, design_id)["pages"][0].get("backgroundImage") is None
    assert len(alpha_api.data(alpha_api.get("/assets"), 200)["items"]) == assets  # nothing uploaded


def test_a_design_from_a_pdf_in_the_gallery_has_its_pages_and_fields(api_server, page, key, alpha_api, tmp_path):
    form = tmp_path / "application.pdf"
    form.write_bytes(reportlab_form())
    sign_in(page, api_server, key)
    page.locator(".dbk-from-pdf input[type=file]").set_input_files(str(form))
    page.locator(".dbk-canvas .dbk-preview[src^='data:image/png']").wait_for()
    design_id = re.search(r"design=(\w+)", page.url).group(1)
    assert alpha_api.data(alpha_api.get(f"/designs/{design_id}"), 200)["name"] == "application"
    saved = tree(alpha_api, design_id)
    first, second = saved["pages"]  # a page per PDF page, each at its size, with it as background
    assert (round(second["width"]), round(second["height"])) == (612, 792)
    assert first["backgroundImage"] == second["backgroundImage"]
    assert (first.get("backgroundPageNumber") or 1, second["backgroundPageNumber"]) == (1, 2)  # 1: the default
    assert "full_name" in {n["name"] for n in saved["nodes"].values()}  # its text field, as an element
