"""The notebook API: certificates from a pandas DataFrame with `design.generate_many`.

    .venv/bin/python -m benchmarks.notebook [--quick] [--json]

300 rows (three batches of 100) into one ZIP, over REST against `docbench serve` and
embedded in this process. Baselines from the same run: the same batches sent straight to
the REST API (submit all, poll, download: what generate_many adds is DataFrame to rows,
the progress bar and writing the ZIP), and the single-process engine rate.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import httpx
import pandas as pd

import workbench
from workbench import samples

from .api import Server, author_certificate, engine_rate
from .batch import REPEATS

ROWS = 300


def frame(rows: int, first: int) -> pd.DataFrame:
    return pd.DataFrame([samples.certificate_row(first + i) for i in range(rows)])


def through_notebook_api(wb: workbench.Workbench, design_id: str, rows: int, first: int) -> float:
    design = wb.design(design_id)
    out = Path(tempfile.mkdtemp(prefix="docbench-nb-")) / "certificates.zip"
    started = time.perf_counter()
    result = design.generate_many(frame(rows, first), out=out, progress=False)
    elapsed = time.perf_counter() - started
    assert result.failures.empty and out.stat().st_size > 0, result.failures
    return elapsed


def through_raw_api(server: Server, design_id: str, rows: int, first: int) -> float:
    """The same batches of 100 over plain HTTP: all submitted, then polled and downloaded."""
    started = time.perf_counter()
    with server.client() as client:
        jobs = []
        for start in range(0, rows, 100):
            body = {"rows": [samples.certificate_row(first + i) for i in range(start, min(start + 100, rows))]}
            jobs.append(client.post(f"/designs/{design_id}/batch", json=body).json()["data"]["jobId"])
        for job_id in jobs:
            while client.get(f"/batches/{job_id}").json()["data"]["status"] not in ("completed", "failed"):
                time.sleep(0.05)  # polling, as generate_many does
            url = client.get(f"/batches/{job_id}/download").json()["data"]["downloadUrl"]
            assert len(httpx.get(url).content) > 0
    return time.perf_counter() - started


def embedded_workbench() -> tuple[workbench.Workbench, str]:
    from api.service import Service, Settings

    data_dir = Path(tempfile.mkdtemp(prefix="docbench-bench-nb-"))
    service = Service(Settings(data_dir=data_dir))
    service.accounts.create_workspace("bench", "pro", 100_000)
    service.close()
    wb = workbench.connect(data_dir=data_dir, workspace="bench")
    logo = wb.upload_image(samples.logo_png(), "logo.png")
    design = wb.create_design("Certificate", size="A4", orientation="landscape")
    design.apply(samples.certificate_actions(logo.ref))
    return wb, design.id


def best(run, rows: int) -> float:
    run(8, 700_000)  # warm-up: pool workers started, fonts registered
    return min(run(rows, run_index * rows) for run_index in range(REPEATS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="60 rows")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = 60 if args.quick else ROWS
    results: dict[str, float] = {}
    server = Server()
    try:
        design_id = author_certificate(server)
        results["raw REST batches"] = best(lambda n, first: through_raw_api(server, design_id, n, first), rows)
        with workbench.connect(server.api.removesuffix("/api/v1"), api_key=server.key) as wb:
            results["generate_many over REST"] = best(
                lambda n, first: through_notebook_api(wb, design_id, n, first + 100_000), rows
            )
    finally:
        server.stop()
    wb, design_id = embedded_workbench()
    with wb:
        results["generate_many embedded"] = best(
            lambda n, first: through_notebook_api(wb, design_id, n, first + 200_000), rows
        )
    engine = max(engine_rate(rows, 300_000 + run * rows) for run in range(REPEATS))
    raw = rows / results["raw REST batches"]
    print(f"{rows} certificates from a DataFrame into one ZIP (batches of 100)")
    print(f"{'path':26} {'seconds':>8} {'rows/s':>8} {'× raw API':>10} {'× engine':>9}")
    table = []
    for label, seconds in results.items():
        rate = rows / seconds
        table.append({"path": label, "seconds": seconds, "rows_per_s": rate, "vs_raw": rate / raw})
        print(f"{label:26} {seconds:>8.2f} {rate:>8.1f} {rate / raw:>10.2f} {rate / engine:>9.2f}")
    print(f"single-process engine rate: {engine:.1f} PDFs/s")
    if args.json:
        print(json.dumps({"notebook": table, "engine_pdfs_per_s": engine}))


if __name__ == "__main__":
    main()
