"""What a tree patch costs, now that every save is a revision (extensions.md 16).

    .venv/bin/python -m benchmarks.revisions [--quick] [--json]

The service's own `Designs.patch_tree` (no HTTP: the revision's cost is a larger share of
it than of a request), in this process, on the embedded DuckDB store and on a PostgreSQL
whose commits reach the disk (fsync, as in production; skipped when its binaries are
missing). Each design is authored first (the certificate, or the 21-row invoice), then
moved by one `update_element` per patch: the editor's commonest save. Printed: the median,
90th percentile and mean time per patch, and the bytes a revision takes against its tree's
JSON. The issue's budget (issue 40): at most 1.1 x the patch time before revisions, measured
by running this module on the commit before them and on this one (it runs on both: the
revision figures are left out where the table does not exist).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from api.models import CreateDesignBody, PatchTreeBody
from api.service import Service, Settings
from workbench import samples

PATCHES = 300
WARM_UP = 20
DESIGNS: dict[str, tuple[Callable[[str], list[dict]], str]] = {
    "certificate": (samples.certificate_actions, "recipient"),
    "invoice": (samples.invoice_actions, "customer"),
}


def measure(service: Service, design: str, patches: int) -> dict[str, float]:
    ws, _ = service.accounts.create_workspace(f"bench-{design}", "pro", 0)
    logo = service.media.create_asset(ws, samples.logo_png(), "logo.png", "logo")
    authoring, moved = DESIGNS[design]
    design_id = service.designs.create(ws, CreateDesignBody(name=design))["designId"]
    service.designs.patch_tree(ws, design_id, PatchTreeBody.model_validate({"actions": authoring(logo["ref"])}))
    record = revision_writer(service, design_id)
    times, writes = [], []
    for i in range(WARM_UP + patches):
        move = {"type": "update_element", "args": {"name": moved, "position": {"x": 60 + i % 40}}}
        body = PatchTreeBody.model_validate({"actions": [move]})
        start = time.perf_counter()
        service.designs.patch_tree(ws, design_id, body)
        took = (time.perf_counter() - start) * 1000
        written = record(i) if record else None  # right after, under the same load
        if i >= WARM_UP:
            times.append(took)
            if written is not None:
                writes.append(written)
    times.sort()
    figures = {
        "median_ms": statistics.median(times),
        "p10_ms": times[int(0.1 * (len(times) - 1))],
        "p90_ms": times[int(0.9 * (len(times) - 1))],
        "mean_ms": statistics.fmean(times),
        "tree_bytes": len(service.designs.tree_json(ws, design_id).encode()),
    }
    if writes:
        figures["revision_write_median_ms"] = statistics.median(writes)
    try:
        row = service.store.one(
            "SELECT avg(length(tree)), count(*) FROM design_revisions WHERE design_id = ?", [design_id]
        )
    except Exception:  # noqa: BLE001 (the commit before revisions has no such table)
        return figures
    figures["revision_bytes"] = float(row[0])
    figures["revisions_kept"] = row[1]
    return figures


def revision_writer(service: Service, design_id: str) -> Callable[[int], float] | None:
    """What a revision adds to a patch, timed alone: the tree compressed, its row written and
    the window pruned (`revisions.record`), inside a transaction of their own on a design of
    their own (the commit is left out: the patch commits anyway). None before revisions."""
    try:
        from api.service.revision_rows import record
    except ImportError:
        return None
    tree_json = service.designs.store.one("SELECT tree FROM designs WHERE id = ?", [design_id])[0]
    scratch = f"{design_id}-bench"

    def write(i: int) -> float:
        with service.store.transaction() as cursor:
            start = time.perf_counter()
            record(cursor, scratch, i + 1, "api", "update_element 'bench'", tree_json, None)
            return (time.perf_counter() - start) * 1000

    return write


def on_store(database_url: str | None, patches: int) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory(prefix="docbench-bench-revisions-") as data_dir:
        service = Service(Settings(data_dir=Path(data_dir), database_url=database_url, render_processes=1))
        try:
            return {design: measure(service, design, patches) for design in DESIGNS}
        finally:
            service.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the patches")
    parser.add_argument("--json", action="store_true", help="also every figure as one JSON object, last line")
    args = parser.parse_args()
    patches = PATCHES // 10 if args.quick else PATCHES
    results: dict[str, object] = {"duckdb": on_store(None, patches)}
    from tests.postgres import PostgresServer, missing_reason

    reason = missing_reason()
    if reason:
        results["postgres"] = reason
    else:
        postgres = PostgresServer(durable=True)
        try:
            results["postgres"] = on_store(postgres.fresh_database(), patches)
        finally:
            postgres.stop()
    print(f"Tree patch, one update_element, {patches} patches after {WARM_UP} warm-up (Designs.patch_tree):")
    for store, figures in results.items():
        if isinstance(figures, str):
            print(f"  {store}: not measured ({figures})")
            continue
        for design, f in figures.items():
            size = ""
            if "revision_bytes" in f:
                size = (
                    f"; a revision {f['revision_bytes'] / 1024:.1f} KB for a {f['tree_bytes'] / 1024:.1f} KB tree "
                    f"({f['tree_bytes'] / f['revision_bytes']:.1f}x smaller), {f['revisions_kept']} kept"
                )
            print(
                f"  {store:8} {design:12} median {f['median_ms']:.2f} ms (p10 {f['p10_ms']:.2f}, "
                f"p90 {f['p90_ms']:.2f}), mean {f['mean_ms']:.2f} ms{size}"
            )
            if "revision_write_median_ms" in f:
                write = f["revision_write_median_ms"]
                print(
                    f"  {'':8} {'':12} of which the revision: {write:.2f} ms, so a patch costs "
                    f"{f['median_ms'] / max(f['median_ms'] - write, 1e-9):.3f}x what it would without"
                )
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
