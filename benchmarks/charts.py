"""What charts cost (issue 39, extensions.md 15): a page with three bound charts of 50 points
each against the same page with three bound 50-row tables, each generation with new values,
rendered interleaved in one process. The target: the charts' page renders at least half as
fast as the tables' (issue 39); extensions.md 15's "a chart of 50 points costs at most as
much as a 20-row table" is printed beside it.

    .venv/bin/python -m benchmarks.charts [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from engine import apply, new_design, render_pdf

TARGET = 0.5  # the charts' rate over the tables' rate, at least
KINDS = ("bar", "line", "stackedBar")


def charts_design():
    actions = []
    for index, kind in enumerate(KINDS):
        name = f"chart{index}"
        data = {
            "kind": kind,
            "x": "day",
            "series": [{"key": "sales", "label": "Sales"}, {"key": "returns", "label": "Returns"}],
            "title": f"Sales and returns ({kind})",
            "axis": {"x": {"title": "Day"}, "y": {"title": "Units"}},
        }
        position = {"x": 40, "y": 40 + 260 * index, "w": 515, "h": 240}
        actions.append(
            {"type": "add_element", "args": {"type": "chart", "name": name, "position": position, "data": data}}
        )
        actions.append({"type": "bind_variable", "args": {"name": name}})
    return apply(new_design(size="A4", title="Charts"), actions)[0]


def tables_design():
    actions = []
    for index in range(3):
        name = f"table{index}"
        data = {"cells": [["Day", "Sales", "Returns"]], "columnWidths": [200, 150, 150]}
        position = {"x": 40, "y": 40 + 260 * index}
        actions.append(
            {"type": "add_element", "args": {"type": "table", "name": name, "position": position, "data": data}}
        )
        actions.append({"type": "bind_variable", "args": {"name": name}})
    return apply(new_design(size="A4", title="Tables"), actions)[0]


def chart_values(run: int, points: int = 50) -> dict:
    rows = [
        {"day": f"D{day + 1}", "sales": (run * 7 + day * 13) % 97 + 3, "returns": (run + day * 5) % 23}
        for day in range(points)
    ]
    return {f"chart{index}": rows for index in range(3)}


def table_values(run: int, rows: int) -> dict:
    body = [[f"D{day + 1}", str((run * 7 + day * 13) % 97 + 3), str((run + day * 5) % 23)] for day in range(rows)]
    return {f"table{index}": [["Day", "Sales", "Returns"], *body] for index in range(3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    args = parser.parse_args()
    sides = {
        "three 50-point charts": (charts_design(), lambda run: chart_values(run)),
        "three 50-row tables": (tables_design(), lambda run: table_values(run, 50)),
        "three 20-row tables": (tables_design(), lambda run: table_values(run, 20)),
    }
    times: dict[str, list[float]] = {name: [] for name in sides}
    for run in range(-3, args.runs):  # three warm-up rounds, then timed ones
        for side, (name, (tree, values)) in enumerate(sides.items()):
            # Each side its own values: a run's numbers must not be cache hits for the next side.
            row = values(100_000 * side + run)
            # CPU time: a render is single-threaded CPU work, and on a shared machine the wall
            # clock counts other processes' turns too (the ratio moved by a third under load).
            started = time.process_time()
            render_pdf(tree, row)
            if run >= 0:
                times[name].append(time.process_time() - started)
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    rate = medians["three 50-row tables"] / medians["three 50-point charts"]
    print(f"Three bound charts against three bound tables on a page, {args.runs} runs each (median CPU ms)")
    for name, median in medians.items():
        print(f"  {name:<24} {median:8.2f} ms")
    flag = "" if rate >= TARGET else f"  <- below the {TARGET}x target"
    print(f"  charts' rate / 50-row tables'  {rate:6.2f}x (target >= {TARGET}x){flag}")
    print(f"  charts' time / 20-row tables'  {medians['three 50-point charts'] / medians['three 20-row tables']:6.2f}x")


if __name__ == "__main__":
    main()
