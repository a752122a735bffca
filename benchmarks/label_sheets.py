"""What printing a batch on label sheets costs (issue 38, extensions.md 14): 210 address labels
(ten Avery L7160 sheets) through a batch's own steps in one process, each row rendered into a
blob store as a batch worker renders it (api.jobs.runner.render_row), then either

- as separate PDFs: the batch's ZIP of every row's PDF (assemble_zip), or
- on sheets: the PDF of label sheets (assemble_sheets) and the ZIP without the rows' PDFs,

interleaved round by round. The target: sheets at most 1.2 times the separate PDFs.

    .venv/bin/python -m benchmarks.label_sheets [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from api.jobs.runner import JobPayload, assemble_sheets, assemble_zip, render_row
from engine import apply, new_design
from engine.finishing.label_sheets import LabelSheet

TARGET = 1.2
LABELS = 210
MM = 72 / 25.4


def label_tree() -> str:
    """An address label of an L7160 (63.5 × 38.1 mm): a name line in bold and three address lines."""
    actions = [
        {"type": "update_page", "args": {"page": 0, "width": 63.5 * MM, "height": 38.1 * MM}},
        {
            "type": "add_element",
            "args": {
                "type": "text",
                "name": "name",
                "position": {"x": 12, "y": 14, "maxWidth": 156},
                "styles": {"fontSize": 11, "fontWeight": 700},
            },
        },
        {
            "type": "add_element",
            "args": {
                "type": "text",
                "name": "address",
                "position": {"x": 12, "y": 34, "maxWidth": 156},
                "styles": {"fontSize": 9},
            },
        },
        {"type": "bind_variable", "args": {"name": "name"}},
        {"type": "bind_variable", "args": {"name": "address"}},
    ]
    return apply(new_design(title="Address label"), actions)[0].model_dump_json()


def rows(round_: int) -> list[dict[str, str]]:
    return [
        {
            "name": f"Customer {round_}-{i}",
            "address": f"{i} Market Street\nLeeds LS{i % 30} {i % 9}AB\nUnited Kingdom",
        }
        for i in range(LABELS)
    ]


def batch(tree: str, values: list[dict], sheet: LabelSheet | None, blob_root: str) -> float:
    """Seconds for one batch's rows and what it delivers."""
    payload = JobPayload(
        job_id=f"job_bench{time.monotonic_ns()}", tree=tree, rows=values, profile="standard", images={}
    )
    started = time.perf_counter()
    results = [render_row(payload, index, blob_root) for index in range(len(values))]
    assert all(result.ok for result in results), [r.error for r in results if not r.ok][:3]
    if sheet is not None:
        assert assemble_sheets(blob_root, payload.job_id, results, sheet, 50_000_000) is not None
    assemble_zip(blob_root, results, rows=sheet is None)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tree = label_tree()
    sheet = LabelSheet(preset="L7160", cutMarks=True)
    times: dict[str, list[float]] = {"separate PDFs": [], "sheets": []}
    with tempfile.TemporaryDirectory() as blob_root:
        for run in range(-1, args.runs):  # one warm-up round, then timed ones
            for side, name in enumerate(times):
                seconds = batch(tree, rows(2 * run + side), sheet if name == "sheets" else None, blob_root)
                if run >= 0:
                    times[name].append(seconds)
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    ratio = medians["sheets"] / medians["separate PDFs"]
    print(f"{LABELS} address labels (L7160, {LABELS // 21} sheets), {args.runs} runs each, interleaved (median ms)")
    print(f"  as separate PDFs (rows + ZIP)        {medians['separate PDFs']:8.1f} ms")
    print(f"  on label sheets (rows + sheets PDF)  {medians['sheets']:8.1f} ms")
    flag = "" if ratio <= TARGET else f"  <- above the {TARGET}x target"
    print(f"  sheets / separate PDFs               {ratio:8.2f}x (target <= {TARGET}x){flag}")


if __name__ == "__main__":
    main()
