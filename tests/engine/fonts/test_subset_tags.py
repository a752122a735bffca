"""Subset tags (spec extensions.md 17): each embedded subset has its own six-letter tag, a
function of the font and what the subset holds (reportlab_internals.subset_tag), so the same
design gives the same bytes in any process, whatever the process rendered before."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from engine import render_pdf
from tests.paths import ROOT
from tests.pdf_probes import font_report

from ...conftest import add, build

# 300 ideographs: more than one subset's 256 codes, so Noto Sans JP is embedded in two subsets.
IDEOGRAPHS = "".join(chr(0x4E00 + index) for index in range(300))


def design(latin: str = "Invoice 2024", cjk: str = IDEOGRAPHS):
    return build(
        [
            add("text", "L", {"x": 40, "y": 40}, {"content": latin}, {"fontFamily": "Inter"}),
            add("text", "J", {"x": 40, "y": 80, "maxWidth": 500}, {"content": cjk}, {"fontFamily": "Noto Sans JP"}),
        ],
        title="Tags",
    )


def tags(pdf: bytes) -> list[str]:
    return [re.fullmatch(r"/([A-Z]{6})\+.+", font["name"])[1] for font in font_report(pdf)]  # type: ignore[index]


def test_each_subset_of_each_font_has_its_own_tag():
    found = tags(render_pdf(design()))
    assert len(found) >= 3  # Inter's subset, Noto Sans JP's two or more
    assert len(set(found)) == len(found)


def test_a_subset_holding_other_glyphs_has_another_tag():
    assert set(tags(render_pdf(design(latin="Invoice")))) != set(tags(render_pdf(design(latin="Invoicé"))))


def test_a_design_has_the_same_bytes_in_a_fresh_process_whatever_this_one_rendered_before():
    render_pdf(design(latin="Other text first", cjk=IDEOGRAPHS[::-1]))
    render_pdf(design(latin="Ünïcödé", cjk="山田太郎"))
    here = render_pdf(design())
    script = (
        "import sys\nfrom tests.engine.fonts.test_subset_tags import design\nfrom engine import render_pdf\n"
        "sys.stdout.buffer.write(render_pdf(design()))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    fresh = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, check=True)
    assert fresh.stdout == here
