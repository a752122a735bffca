"""What computing an invoice in the design costs (issue 34): a 100-row invoice whose amounts,
VAT and totals are computed columns and footer expressions, against the same invoice given as
strings the caller computed and formatted (workbench.samples), rendered interleaved in one
process. The target: at most 1.2 times the precomputed invoice's time.

    .venv/bin/python -m benchmarks.computed [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from engine import apply, new_design, render_pdf
from workbench import samples

TARGET = 1.2
LINES = 100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    args = parser.parse_args()
    computed = apply(new_design(size="A4", title="Invoice"), samples.computed_invoice_actions())[0]
    precomputed = apply(new_design(size="A4", title="Invoice"), samples.precomputed_invoice_actions())[0]
    sides = {
        "computed": (computed, samples.computed_invoice_row),
        "precomputed": (precomputed, samples.precomputed_invoice_row),
    }
    times: dict[str, list[float]] = {name: [] for name in sides}
    for run in range(-3, args.runs):  # three warm-up rounds, then timed ones; each row new
        for side, (name, (tree, row)) in enumerate(sides.items()):
            # Each side its own invoice numbers: a word one side shaped (its descriptions carry
            # the number) would be a cache hit for the other.
            values = row(1000 + 4000 * side + run, LINES)
            started = time.perf_counter()
            render_pdf(tree, values, samples.resolver)
            if run >= 0:
                times[name].append(time.perf_counter() - started)
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    ratio = medians["computed"] / medians["precomputed"]
    print(f"A {LINES}-row invoice over 3 sheets, {args.runs} runs each, interleaved (median ms)")
    print(f"  computed in the design   {medians['computed']:8.2f} ms")
    print(f"  precomputed strings      {medians['precomputed']:8.2f} ms")
    flag = "" if ratio <= TARGET else f"  <- above the {TARGET}x target"
    print(f"  computed / precomputed   {ratio:8.2f}x (target <= {TARGET}x){flag}")


if __name__ == "__main__":
    main()
