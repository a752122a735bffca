"""The editor's font picker: each family's scripts as badges and a script family's sample in
its own script, drawn on the server (no font file goes to the browser)."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFont
from playwright.sync_api import expect

from engine import fonts
from workbench.editor.pickers import SCRIPT_SAMPLES, FontPicker, font_options, font_sample, own_script

from ...browser import new_design, node, open_design, select, sign_in, wait_for
from ...conftest import add


def picture(data_url: str) -> Image.Image:
    assert data_url.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1]))).convert("RGBA")


def inked(image: Image.Image) -> int:
    return sum(1 for alpha in image.getchannel("A").getdata() if alpha > 128)


def test_every_option_carries_its_family_s_scripts_and_script_families_a_sample():
    options = {o["name"]: o for o in font_options()}
    assert list(options) == [e.id for e in fonts.families()]
    for entry in fonts.families():
        option = options[entry.id]
        assert option["scripts"] == entry.scripts
        assert option["image"] == font_sample(entry.id)  # the name in its own face, as before
    samples = {name: o["sample"] for name, o in options.items() if o["sample"]}
    assert set(samples) == {e.id for e in fonts.families() if e.id.startswith("Noto Sans")}
    assert own_script("Noto Sans JP") == "Jpan" and own_script("Open Sans") is None  # Hebrew letters, Latin family
    for name, sample in samples.items():
        image = picture(sample)
        assert image.height == 52 and inked(image) > 200, name


def test_the_arabic_sample_is_shaped_and_right_to_left():
    """Drawn with libraqm, the sample differs from Pillow's basic layout (isolated letters,
    left to right) of the same text in the same font."""
    shaped = picture(font_options()[[e.id for e in fonts.families()].index("Noto Sans Arabic")]["sample"])
    font = ImageFont.truetype(str(fonts.face_file("Noto Sans Arabic").path), 30, layout_engine=ImageFont.Layout.BASIC)
    basic = Image.new("RGBA", shaped.size, (255, 255, 255, 0))

    ImageDraw.Draw(basic).text((4, 38), SCRIPT_SAMPLES["Arab"], font=font, fill=(27, 35, 48, 255), anchor="ls")
    assert ImageChops.difference(shaped, basic).getbbox() is not None
    assert inked(ImageChops.difference(shaped, basic)) > 200


def test_the_picker_is_sent_images_not_font_files():
    picker = FontPicker.catalog("Noto Sans SC")
    sent = sum(len(o["image"]) + len(o["sample"]) for o in picker.options)
    assert sent < 400_000  # a few kilobytes per family; Noto Sans SC alone is 10 MB a weight
    assert picker.value == "Noto Sans SC"


@pytest.mark.slow
def test_the_browser_picker_shows_scripts_and_samples_and_picks_a_cjk_family(api_server, page, key, alpha_api):
    design_id = new_design(
        alpha_api, "Browser: script fonts", [add("text", "title", {"x": 60, "y": 60}, {"content": "你好"})]
    )
    sign_in(page, api_server, key)
    open_design(page, api_server, design_id)
    select(page, "title")
    page.locator(".dbk-text-toolbar .dbk-tt-fontFamily button").click()
    arabic = page.locator(".dbk-tt-fonts .dbk-option[data-value='Noto Sans Arabic']")
    expect(arabic.locator(".dbk-badge")).to_have_text(["Latn", "Arab"])
    inter = page.locator(".dbk-tt-fonts .dbk-option[data-value='Inter']")
    expect(inter.locator(".dbk-badge")).to_have_text(["Latn", "Grek", "Cyrl"])
    expect(inter.locator(".dbk-font-sample")).to_have_count(0)
    chinese = page.locator(".dbk-tt-fonts .dbk-option[data-value='Noto Sans SC']")
    chinese.scroll_into_view_if_needed()
    sample = chinese.locator("img.dbk-font-sample")
    wait_for(lambda: sample.evaluate("img => img.complete && img.naturalWidth") > 50, "the Chinese sample drawn")
    expect(chinese.locator(".dbk-badge").last).to_have_text("Hans")
    chinese.click()
    wait_for(lambda: node(alpha_api, design_id, "title")["styles"].get("fontFamily") == "Noto Sans SC", "the family")
