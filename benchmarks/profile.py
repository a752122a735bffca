"""Where a warm render of each reference document spends its time: pyinstrument's call tree.

    .venv/bin/python -m benchmarks.profile [--quick]

Each document is rendered a few times to warm up, then N times under pyinstrument, each
render from a new row (`certificate_row(i)`, `invoice_row(i)`) in the standard profile.
Printed per document: the top of the call tree in percent of the time, frames under 2 %
left out, library frames (ReportLab, qrcode, pikepdf) shown, so a change's before and
after read side by side.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from pyinstrument import Profiler

from engine import DesignTree, render_pdf
from workbench import samples

RENDERS = {"certificate": 200, "invoice": 100}
WARMUP = 3
WARMUP_ROW = 1_000_000
LINES = 25  # of the call tree printed per document
DEPTH = 6  # levels of the call tree under render_rows: render_pdf, _render, then four more
FLAT = 10  # functions listed by their own time
THRESHOLD = 0.02  # frames under 2 % of the time are left out
INTERVAL = 0.0005  # seconds between samples: a render takes a few milliseconds


def render_rows(tree: DesignTree, rows: list[dict[str, Any]]) -> None:
    """The profiled work, named so the tree's root says what it is."""
    for row in rows:
        render_pdf(tree, row, samples.resolver)


def _depth(line: str) -> int:
    """A tree line's level: pyinstrument indents each level by three characters."""
    return line.find("- ") // 3


def profiled(tree: DesignTree, make_row: Callable[[int], dict[str, Any]], count: int) -> str:
    """The top of the call tree, then the functions taking the most time of their own."""
    for k in range(WARMUP):
        render_pdf(tree, make_row(WARMUP_ROW + k), samples.resolver)
    rows = [make_row(i) for i in range(count)]  # built before the profile starts
    profiler = Profiler(interval=INTERVAL)
    profiler.start()
    render_rows(tree, rows)
    profiler.stop()
    # show_regex matching every path: ReportLab's and qrcode's frames are the point.
    options = {"filter_threshold": THRESHOLD, "show_regex": ".*"}
    text = profiler.output_text(time="percent_of_total", processor_options=options)
    lines = [line for line in text.splitlines() if "- " in line]  # past pyinstrument's banner
    start = next((k for k, line in enumerate(lines) if "render_rows" in line), 0)
    top = [line for line in lines[start:] if _depth(line) <= DEPTH][:LINES]
    flat = profiler.output_text(time="percent_of_total", flat=True, processor_options=options)
    own = [line for line in flat.splitlines() if "%" in line and "render_rows" not in line][:FLAT]
    return "\n".join([*top, f"  by own time (top {FLAT}):", *own])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a fifth of the renders")
    args = parser.parse_args()
    documents = {
        "certificate": (samples.certificate(), samples.certificate_row),
        "invoice": (samples.invoice(), samples.invoice_row),
    }
    for name, (tree, make_row) in documents.items():
        count = RENDERS[name] // (5 if args.quick else 1)
        cut = f"frames under {THRESHOLD:.0%} left out"
        print(f"\n{name}: {count} warm renders, standard profile, % of the time ({cut})")
        print(profiled(tree, make_row, count))


if __name__ == "__main__":
    main()
