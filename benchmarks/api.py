"""What the service costs on top of the engine: requests/s and latency over real HTTP.

    .venv/bin/python -m benchmarks.api [--quick] [--json]

Starts `docbench serve` on a free loopback port with a fresh data dir, authors the
certificate over the API, then measures GET /designs/:id and POST .../generate with 1
and 8 concurrent clients (threads with keep-alive connections), and the engine's own
render rate for the same rows in this process, so the ratio shows the service's cost.
Then the same 8-client load dealt over two servers that share one PostgreSQL and one S3
bucket (moto's standalone server), as a scaled-out deployment runs.
The clients run on the same 2-core machine as the server and take CPU from it, so the
figures are a floor for what the server alone can do.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import httpx

from engine import render_pdf
from workbench import samples

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_serve(
    data_dir: Path, args: Sequence[str], cwd: Path = ROOT, env: dict[str, str] | None = None, wait: float = 60
) -> tuple[subprocess.Popen, IO[bytes], str]:
    """`docbench serve` of the code in `cwd` on a free loopback port over `data_dir` with `args`,
    once it answers /health: its process, its log (open, in the data dir) and its API's URL.
    RuntimeError with the log's end when it stops or does not answer within `wait` seconds."""
    port = free_port()
    api = f"http://127.0.0.1:{port}/api/v1"
    log = open(data_dir / "server.log", "wb")  # noqa: SIM115 (the caller closes it)
    command = [sys.executable, "-m", "workbench.cli", "serve", "--port", str(port), "--data-dir", str(data_dir), *args]
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=log)
    deadline = time.monotonic() + wait
    while True:
        try:
            if httpx.get(f"{api}/health", timeout=1).status_code == 200:
                return process, log, api
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            if process.poll() is None:
                process.kill()
                process.wait()
            log.close()
            tail = (data_dir / "server.log").read_text(errors="replace")[-3000:]
            raise RuntimeError(f"the server of {cwd} did not start:\n{tail}")
        time.sleep(0.05)  # the server is still starting; poll again


class Server:
    def __init__(self, *args: str, key: str | None = None) -> None:
        """A server with a data dir of its own; given the `key` of a workspace already in the
        database its `args` name, it serves that one instead of making its own."""
        from api.service import Service, Settings

        self.data_dir = Path(tempfile.mkdtemp(prefix="docbench-bench-"))
        if key is None:
            service = Service(Settings(data_dir=self.data_dir))
            _, key = service.accounts.create_workspace("bench", "pro", 100_000)
            service.close()
        self.key = key
        self.process, self.log, self.api = start_serve(self.data_dir, args)

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.api, headers={"X-API-Key": self.key}, timeout=60)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=15)
        self.log.close()


def author_certificate(server: Server) -> str:
    with server.client() as client:
        logo = client.post("/assets", files={"file": ("logo.png", samples.logo_png(), "image/png")}).json()["data"]
        design_id = client.post(
            "/designs", json={"name": "Certificate", "size": "A4", "orientation": "landscape"}
        ).json()["data"]["designId"]
        response = client.patch(
            f"/designs/{design_id}/tree", json={"actions": samples.certificate_actions(logo["ref"])}
        )
        response.raise_for_status()
    return design_id


def load(servers: Server | list[Server], clients: int, total: int, request) -> dict[str, float]:
    """`total` requests split over `clients` threads (dealt round the servers); each checks its status code."""
    servers = servers if isinstance(servers, list) else [servers]
    latencies: list[float] = []
    lock = threading.Lock()
    counter = iter(range(total))

    def work(server: Server) -> None:
        with server.client() as client:
            mine: list[float] = []
            while True:
                with lock:
                    i = next(counter, None)
                if i is None:
                    break
                start = time.perf_counter()
                request(client, i)
                mine.append(time.perf_counter() - start)
            with lock:
                latencies.extend(mine)

    threads = [threading.Thread(target=work, args=(servers[n % len(servers)],)) for n in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "requests": total,
        "per_s": total / elapsed,
        "p50_ms": statistics.median(latencies) * 1000,
        "p95_ms": _percentile(latencies, 0.95),
        "p99_ms": _percentile(latencies, 0.99),
    }


def _percentile(latencies: list[float], fraction: float) -> float:
    """The latency `fraction` of the (sorted) requests stay under, in ms."""
    return latencies[min(len(latencies) - 1, int(len(latencies) * fraction))] * 1000


def during(server: Server, probes: dict, background) -> tuple[dict[str, dict[str, float]], dict[str, float]]:  # noqa: ANN001
    """`background()` (a load of renders) and, for as long as it runs, each of `probes` one
    request at a time on a client of its own: how long a call waits while the server renders.
    Returns the probes' figures by name, and the background's own."""
    done = threading.Event()
    loaded: dict[str, float] = {}
    runner = threading.Thread(target=lambda: (loaded.update(background()), done.set()))
    latencies: dict[str, list[float]] = {name: [] for name in probes}

    def probing(name: str) -> None:
        with server.client() as client:
            while not done.is_set():
                start = time.perf_counter()
                probes[name](client)
                latencies[name].append(time.perf_counter() - start)

    threads = [threading.Thread(target=probing, args=(name,)) for name in probes]
    runner.start()
    for thread in threads:
        thread.start()
    runner.join()
    for thread in threads:
        thread.join()
    figures = {}
    for name, mine in latencies.items():
        mine.sort()
        figures[name] = {
            "requests": len(mine),
            "per_s": float("nan"),
            "p50_ms": statistics.median(mine) * 1000,
            "p95_ms": _percentile(mine, 0.95),
            "p99_ms": _percentile(mine, 0.99),
        }
    return figures, loaded


def engine_rate(runs: int, first: int = 0) -> float:
    """Single-process render rate, with the same process settings the server and workers use."""
    from api.jobs.runner import tune_for_rendering

    tune_for_rendering()
    tree = samples.certificate()
    for i in range(3):
        render_pdf(tree, samples.certificate_row(900_000 + i), samples.resolver)
    started = time.perf_counter()
    for i in range(first, first + runs):
        render_pdf(tree, samples.certificate_row(i), samples.resolver)
    return runs / (time.perf_counter() - started)


def generating(design_id: str):  # noqa: ANN201
    """A request that generates the certificate for row `i` and checks it was made."""

    def generate(client: httpx.Client, i: int) -> None:
        response = client.post(f"/designs/{design_id}/generate", json={"data": samples.certificate_row(i)})
        assert response.status_code == 201, response.text

    return generate


def two_servers_on_postgres_and_s3(total: int) -> dict[str, float] | str:
    """8 clients dealt over two servers that share one PostgreSQL (commits fsynced, as in
    production) and one S3 bucket (moto's standalone server, on this same machine): their
    figures, or why they could not be measured here."""
    from api.service import Service, Settings
    from tests.postgres import PostgresServer, missing_reason
    from tests.server import MotoS3Server

    reason = missing_reason()
    if reason:
        return reason
    root = Path(tempfile.mkdtemp(prefix="docbench-bench-scaled-"))
    postgres = PostgresServer(durable=True)
    moto: MotoS3Server | None = None
    servers: list[Server] = []
    try:
        moto = MotoS3Server(root)
        os.environ.update(moto.env)  # boto3 here and in the servers reads the standard variables
        blob_url = f"s3://{moto.create_bucket('bench')}/scaled"
        database_url = postgres.fresh_database()
        service = Service(Settings(data_dir=root, database_url=database_url, blob_url=blob_url))
        _, key = service.accounts.create_workspace("bench", "pro", 100_000)
        service.close()
        # One render process each: the two servers together have one per core, as one server has.
        shared = ("--database-url", database_url, "--blob-url", blob_url, "--secret", secrets.token_urlsafe(32))
        servers = [Server(*shared, "--render-processes", "1", key=key) for _ in range(2)]
        generate = generating(author_certificate(servers[0]))
        load(servers, 2, 6, generate)  # warm-up: both servers' connections, caches, fonts
        return load(servers, 8, total, generate)
    finally:
        for server in servers:
            server.stop()
        if moto is not None:
            moto.stop()
        postgres.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the requests")
    parser.add_argument("--json", action="store_true", help="also print the figures as one JSON object")
    args = parser.parse_args()
    scale = 0.1 if args.quick else 1.0
    server = Server()
    try:
        design_id = author_certificate(server)

        def get(client: httpx.Client, i: int) -> None:
            assert client.get(f"/designs/{design_id}").status_code == 200

        generate = generating(design_id)

        def generate_and_download(client: httpx.Client, i: int) -> None:
            response = client.post(f"/designs/{design_id}/generate", json={"data": samples.certificate_row(i)})
            assert response.status_code == 201, response.text
            pdf = client.get(response.json()["data"]["downloadUrl"])
            assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF"), pdf.status_code

        def preview(client: httpx.Client) -> None:
            # With values: watermarked and never cached, so every probe is a render.
            body = {"page": 0, "data": samples.certificate_row(0)}
            assert client.post(f"/designs/{design_id}/preview", json=body).status_code == 200

        load(server, 2, 40, get)  # warm-up: connections, caches, fonts
        load(server, 2, 6, generate)
        results: dict[str, dict] = {}
        for clients in (1, 8):
            results[f"GET /designs/:id, {clients} client(s)"] = load(server, clients, int(2000 * scale), get)
            results[f"POST generate, {clients} client(s)"] = load(server, clients, int(200 * scale), generate)
        results["generate + download, 1 client"] = load(server, 1, int(200 * scale), generate_and_download)
        probes, loaded = during(
            server,
            {
                "GET /me while 8 clients generate": lambda client: client.get("/me").raise_for_status(),
                "POST preview while 8 clients generate": preview,
            },
            lambda: load(server, 8, int(200 * scale), generate),
        )
        results["POST generate, 8 clients, probed"] = loaded
        results.update(probes)
    finally:
        server.stop()
    scaled = two_servers_on_postgres_and_s3(int(200 * scale))
    engine = engine_rate(int(200 * scale))
    print("API over real HTTP (server and clients share this machine's 2 cores)")
    print(f"{'operation':38} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    for name, figures in results.items():
        print(
            f"{name:38} {figures['requests']:>9} {figures['per_s']:>8.1f} {figures['p50_ms']:>8.1f} "
            f"{figures['p95_ms']:>8.1f} {figures['p99_ms']:>8.1f}"
        )
    print(f"\nengine render_pdf(certificate) in-process: {engine:.1f} PDFs/s")
    ratios = {
        "generate + download, 1 client, sequential (target >= 0.9)": results["generate + download, 1 client"],
        "generate, 1 client": results["POST generate, 1 client(s)"],
        "generate, 8 clients (target >= 1.25)": results["POST generate, 8 client(s)"],
    }
    scaled_name = "generate, 8 clients, two servers on PostgreSQL + S3"
    if isinstance(scaled, dict):
        ratios[scaled_name] = results[scaled_name] = scaled
    for name, figures in ratios.items():
        print(f"{name:60} {figures['per_s']:7.1f} PDFs/s  {figures['per_s'] / engine:.2f} x the engine")
    if isinstance(scaled, str):
        print(f"{scaled_name}: not measured ({scaled})")
    me = results["GET /me while 8 clients generate"]
    shown = results["POST preview while 8 clients generate"]
    print(f"{'GET /me p95 while 8 clients generate':60} {me['p95_ms']:7.1f} ms")
    print(f"{'POST preview (a render each) p50 while 8 clients generate':60} {shown['p50_ms']:7.1f} ms")
    if args.json:
        print(json.dumps({"api": results, "engine_pdfs_per_s": engine}))


if __name__ == "__main__":
    main()
