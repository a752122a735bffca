"""The service against its engine under wrk: issue 41's goals, before and after, in one run.

    .venv/bin/python -m benchmarks.service [--quick] [--json] [--baseline REV] [--profile]

For each code tree measured (this checkout, and with `--baseline REV` also `git archive REV`
extracted into a temp dir and served from there, so that its code answers), starts
`docbench serve` on a free loopback port with a fresh data dir and a workspace of 10,000,000
credits, authors the certificate over the API, then loads it with wrk (Debian's C load
generator, so the client costs little of the machine's CPU): POST /designs/:id/generate with 1
and with 8 connections, GET /me with 8 and 1; then the two generate loads again on a server
over a durable PostgreSQL (commits fsynced, as in production). Each request body is a
certificate row of its own, as the engine's figure renders rows of their own; a 2 s warm-up
precedes each measured load, and any answer that is not 2xx or 3xx fails the run (a 402 would fake
speed). The engine's single-process `render_pdf` rate is measured in this process before and
after the servers ran (the faster of the two is the reference). Printed: a table of every
figure with its ratio to the engine, issue 41's goal and PASS/MISS, and with `--baseline` the
ratio of each figure to the baseline's. With `--profile`, py-spy samples this checkout's web
process during a 1- and an 8-connection generate load of their own (not the measured ones):
the functions with the largest shares of the samples that were not waits.
wrk and the servers share this machine's 2 cores: the figures are a floor for the server alone.
"""

from __future__ import annotations

import argparse
import json
import linecache
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from benchmarks.api import author_certificate, engine_rate, start_serve
from workbench import samples

ROOT = Path(__file__).resolve().parent.parent
CREDITS = 10_000_000  # far more than any run spends: a 402 would answer fast and fake speed
WRK = "wrk"

# Issue 41's goals. Latency goals are multiples of the engine's time per PDF (at most), rate
# goals multiples of its PDFs/s (at least); on PostgreSQL each goal is eased by a factor of 1.3.
LATENCY_GOAL = 2.0
RATE_GOAL = 1.0
POSTGRES_SLACK = 1.3
ME_GOAL = 3_000  # GET /me requests/s, 8 connections, one process, DuckDB


# --- wrk ---------------------------------------------------------------------------------------

# Every thread of wrk runs the script in a Lua state of its own; `done` runs once, with the
# figures of all threads, and prints them on one line this module reads back.
_DONE = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRKFIGURES {\\"requests\\": %d, \\"duration_us\\": %d, \\"p50_us\\": %d, \\"p99_us\\": %d, "
      .. "\\"status_errors\\": %d, \\"connect\\": %d, \\"read\\": %d, \\"write\\": %d, \\"timeout\\": %d}\\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect, e.read, e.write, e.timeout))
end
"""


def _lua_string(text: str) -> str:
    """`text` as a Lua long string, whose brackets no byte of it can close."""
    level = 0
    while f"]{'=' * level}]" in text:
        level += 1
    return f"[{'=' * level}[{text}]{'=' * level}]"


def generate_script(key: str, rows: range) -> str:
    """A wrk script that POSTs one body per row of `rows` in turn, the second wrk thread starting
    half way through, and starting over only when all were sent."""
    bodies = ",\n".join(_lua_string(json.dumps({"data": samples.certificate_row(i)})) for i in rows)
    return f"""
wrk.method = "POST"
wrk.headers["X-API-Key"] = {_lua_string(key)}
wrk.headers["Content-Type"] = "application/json"
local bodies = {{
{bodies}
}}
local threads = 0
setup = function(thread)
  thread:set("start", threads)
  threads = threads + 1
end
local i = nil
request = function()
  if i == nil then i = start * math.floor(#bodies / 2) end
  i = i + 1
  return wrk.format(nil, nil, nil, bodies[i % #bodies + 1])
end
{_DONE}"""


def get_script(key: str) -> str:
    return f'wrk.headers["X-API-Key"] = {_lua_string(key)}\n{_DONE}'


@dataclass
class Load:
    """One wrk run's figures."""

    requests: int
    per_s: float
    p50_ms: float
    p99_ms: float


def wrk(url: str, script: Path, connections: int, seconds: int) -> Load:
    """Run wrk against `url` and read its figures; any non-2xx/3xx answer or socket error fails."""
    threads = 1 if connections == 1 else 2
    done = subprocess.run(
        [
            WRK,
            f"-t{threads}",
            f"-c{connections}",
            f"-d{seconds}s",
            "--timeout",
            "10s",
            "--latency",
            "-s",
            str(script),
            url,
        ],
        capture_output=True,
        text=True,
        timeout=seconds + 60,
    )
    output = done.stdout + done.stderr
    match = re.search(r"^WRKFIGURES (\{.*\})$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or match is None:
        raise RuntimeError(f"wrk failed ({done.returncode}):\n{output}")
    figures = json.loads(match.group(1))
    refused = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = {name: figures[name] for name in ("connect", "read", "write", "timeout") if figures[name]}
    if refused or figures["status_errors"] or errors:
        raise WrongAnswers(f"{url}: {refused.group(0) if refused else ''} socket errors {errors}\n{output}")
    return Load(
        requests=figures["requests"],
        per_s=figures["requests"] / (figures["duration_us"] / 1e6),
        p50_ms=figures["p50_us"] / 1000,
        p99_ms=figures["p99_us"] / 1000,
    )


class WrongAnswers(RuntimeError):
    """wrk saw answers that were not 2xx (or sockets that failed): the figures would lie."""


# --- servers -----------------------------------------------------------------------------------


@dataclass
class Tree:
    """A code tree to serve: its directory goes first on the servers' PYTHONPATH and is their cwd."""

    label: str
    path: Path

    def env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(self.path)}

    def python(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [sys.executable, *args], cwd=self.path, env=self.env(), capture_output=True, text=True, timeout=timeout
        )
        if done.returncode != 0:
            raise RuntimeError(f"{self.label}: python {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return done

    def check_imports(self) -> None:
        """The tree's own modules are the ones its servers import (not the venv's editable install)."""
        found = self.python(
            "-c", "import api, engine, workbench; print(api.__file__, engine.__file__, workbench.__file__)"
        )
        for module in found.stdout.split():
            if not Path(module).resolve().is_relative_to(self.path.resolve()):
                raise RuntimeError(f"{self.label}: {module} is imported from outside {self.path}")


@contextmanager
def baseline_tree(revision: str) -> Iterator[Tree]:
    directory = Path(tempfile.mkdtemp(prefix="docbench-bench-baseline-"))
    try:
        archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(directory)], input=archive, check=True)
        yield Tree(f"baseline {revision}", directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


class TreeServer:
    """`docbench serve` of `tree`'s code with a data dir of its own (and `database_url`'s store);
    its workspace is made by the tree's own `docbench workspace create`."""

    def __init__(self, tree: Tree, database_url: str | None = None) -> None:
        self.data_dir = Path(tempfile.mkdtemp(prefix="docbench-bench-service-"))
        try:
            self._start(tree, database_url)
        except BaseException:
            shutil.rmtree(self.data_dir, ignore_errors=True)
            raise

    def _start(self, tree: Tree, database_url: str | None) -> None:
        store = ["--database-url", database_url] if database_url else []
        made = tree.python(
            "-m",
            "workbench.cli",
            "workspace",
            "create",
            "bench",
            "--plan",
            "pro",
            "--credits",
            str(CREDITS),
            "--data-dir",
            str(self.data_dir),
            *store,
        )
        self.key = json.loads(made.stdout)["apiKey"]
        try:
            self.process, self.log, self.api = start_serve(self.data_dir, store, cwd=tree.path, env=tree.env())
        except RuntimeError as exc:
            raise RuntimeError(f"{tree.label}: {exc}") from None

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.api, headers={"X-API-Key": self.key}, timeout=60)

    def _end(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:  # it stops within seconds; one that does not is killed
                self.process.kill()
                self.process.wait()
        self.log.close()

    def stop(self) -> None:
        self._end()
        shutil.rmtree(self.data_dir, ignore_errors=True)


# --- the measurements --------------------------------------------------------------------------


class Bench:
    """The loads of one run: their scripts in one temp dir, a row number that only goes up (every
    generate request of the run renders a row of its own), the durations."""

    def __init__(self, directory: Path, seconds: int, expected_per_s: float) -> None:
        self.directory = directory
        self.seconds = seconds
        self.warm_up = 2
        self.next_row = 0
        self.scripts = 0
        # Enough bodies that a measured load never sends one twice at the rate the engine makes.
        self.bodies = int(expected_per_s * seconds * 1.5) + 100

    def script(self, text: str) -> Path:
        self.scripts += 1
        path = self.directory / f"load{self.scripts}.lua"
        path.write_text(text)
        return path

    def rows(self, count: int) -> range:
        rows = range(self.next_row, self.next_row + count)
        self.next_row += count
        return rows

    def generate(self, server: TreeServer, design_id: str, connections: int) -> Load:
        url = f"{server.api}/designs/{design_id}/generate"
        warm = self.script(generate_script(server.key, self.rows(self.bodies // 3)))
        measured = self.script(generate_script(server.key, self.rows(self.bodies)))
        try:
            wrk(url, warm, connections, self.warm_up)
            return wrk(url, measured, connections, self.seconds)
        except WrongAnswers:
            with server.client() as client:
                answer = client.post(f"/designs/{design_id}/generate", json={"data": samples.certificate_row(1)})
            print(f"one generate request now answers {answer.status_code}: {answer.text[:500]}", file=sys.stderr)
            raise

    def get(self, server: TreeServer, path: str, connections: int) -> Load:
        script = self.script(get_script(server.key))
        wrk(f"{server.api}{path}", script, connections, self.warm_up)
        return wrk(f"{server.api}{path}", script, connections, self.seconds)


# What is measured on each store, in this order: (name, request, connections).
MEASUREMENTS = {
    "duckdb": [
        ("generate c1", "generate", 1),
        ("generate c8", "generate", 8),
        ("GET /me c8", "/me", 8),
        ("GET /me c1", "/me", 1),
    ],
    "postgresql": [("generate c1", "generate", 1), ("generate c8", "generate", 8)],
}


def measure(trees: list[Tree], bench: Bench, postgres, profile: Profiler | None) -> dict[str, dict]:  # noqa: ANN001
    """Each tree's figures by store (or why PostgreSQL was not measured). On each store every
    tree's server runs at once, and each measurement is taken of one tree after the other: the
    load that the machine's other work puts on the cores changes by the minute, and would
    otherwise fall on one tree's figures more than on the other's."""
    for tree in trees:
        tree.check_imports()
    figures: dict[str, dict] = {tree.label: {} for tree in trees}
    for store, measurements in MEASUREMENTS.items():
        if store == "postgresql" and isinstance(postgres, str):
            for tree in trees:
                figures[tree.label][store] = postgres
            continue
        with ExitStack() as stack:
            served = []
            for tree in trees:
                database_url = None
                if store == "postgresql":
                    database_url = postgres.fresh_database(migrated=False)  # the tree's own code makes its schema
                    stack.callback(postgres.drop_database, database_url)
                server = TreeServer(tree, database_url)
                stack.callback(server.stop)
                served.append((tree, server, author_certificate(server)))
            for name, request, connections in measurements:
                for tree, server, design_id in served:
                    print(f"{tree.label}, {store}: {name} ...", file=sys.stderr, flush=True)
                    if request == "generate":
                        load = bench.generate(server, design_id, connections)
                    else:
                        load = bench.get(server, request, connections)
                    figures[tree.label].setdefault(store, {})[name] = load
            if profile is not None and store == "duckdb":
                _, server, design_id = next(entry for entry in served if entry[0].path == ROOT)
                for connections in (1, 8):
                    with profile.recording(server.process.pid, f"generate c{connections}"):
                        url = f"{server.api}/designs/{design_id}/generate"
                        script = bench.script(generate_script(server.key, bench.rows(bench.bodies)))
                        wrk(url, script, connections, profile.seconds + 2)
    return figures


# --- py-spy ------------------------------------------------------------------------------------

# A thread waits rather than works when its leaf frame is one of these (method, file): the
# event loop's select, a thread pool's idle workers (the queue's get is C, so the leaf is
# `_worker`), threading waits (a request waiting on its render, the background loops), a pipe
# to a render process; or when the leaf's line is a blocking call made in C (a lock taken by
# `with`, an acquire, a sleep), which py-spy shows as the Python line that called it.
IDLE_LEAVES = {
    ("select", "selectors.py"),
    ("poll", "selectors.py"),
    ("_worker", "thread.py"),
    ("get", "queue.py"),
    ("wait", "threading.py"),
    ("_wait_for_tstate_lock", "threading.py"),
    ("wait", "connection.py"),
    ("poll", "connection.py"),
    ("_poll", "connection.py"),
    ("_recv", "connection.py"),
}
BLOCKING_LINE = re.compile(r"^\s*with\b[^:]*lock\b|\.acquire\(|\bsleep\(")
# Frames every stack of a thread passes through (thread and event loop start-up, the CLI's
# entry): in the stack of nearly every sample, they would crowd the table saying nothing.
ENTRY_FRAMES = {
    ("Thread._bootstrap", "threading.py"),
    ("Thread._bootstrap_inner", "threading.py"),
    ("Thread.run", "threading.py"),
    ("_worker", "concurrent/futures/thread.py"),
    ("_WorkItem.run", "concurrent/futures/thread.py"),
    ("_run_module_as_main", "<frozen runpy>"),
    ("_run_code", "<frozen runpy>"),
    ("<module>", "workbench/cli/__main__.py"),
    ("main", "workbench/cli/commands.py"),
    ("serve", "workbench/cli/commands.py"),
    ("run", "asyncio/runners.py"),
    ("Runner.run", "asyncio/runners.py"),
    ("BaseEventLoop.run_until_complete", "asyncio/base_events.py"),
    ("BaseEventLoop.run_forever", "asyncio/base_events.py"),
}
SAMPLES_PER_S = 500
_FRAME = re.compile(r"^(?P<function>.*) \((?P<file>[^():]*)(?::(?P<line>\d+))?\)$")


@dataclass(frozen=True)
class Frame:
    """One of py-spy's `function (path:line)` frames."""

    function: str  # a method as Class.method
    path: str  # as py-spy gave it
    line: int

    @classmethod
    def parse(cls, text: str) -> Frame:
        match = _FRAME.match(text)
        if match is None:
            return cls(text, "", 0)
        return cls(match.group("function"), match.group("file"), int(match.group("line") or 0))

    @property
    def short_path(self) -> str:
        """The path from the project's root, a site-packages dir or the standard library's."""
        path = self.path
        if path.startswith(str(ROOT) + "/"):
            return path[len(str(ROOT)) + 1 :]
        if "site-packages/" in path:
            return path.split("site-packages/", 1)[1]
        stdlib = re.search(r"/lib/python3[.\d]*/(.*)$", path)
        return stdlib.group(1) if stdlib else path

    @property
    def key(self) -> tuple[str, str]:
        return self.function, self.short_path

    def label(self) -> str:
        """`Class.method (file.py)`, with the line's code when that is what blocks."""
        code = linecache.getline(self.path, self.line).strip() if self.line else ""
        where = f"{Path(self.path).name}:{self.line} `{code}`" if BLOCKING_LINE.search(code) else Path(self.path).name
        return f"{self.function} ({where})"

    def waits(self) -> bool:
        if (self.function.rsplit(".", 1)[-1], Path(self.path).name) in IDLE_LEAVES:
            return True
        return bool(self.line and BLOCKING_LINE.search(linecache.getline(self.path, self.line)))


class Profiler:
    """py-spy at 500 samples/s on a running server's web process (not its render processes),
    without stopping it; each recording read back into shares of the samples."""

    def __init__(self, directory: Path, seconds: int) -> None:
        self.directory = directory
        self.seconds = seconds
        self.reports: dict[str, dict] = {}
        venv_spy = Path(sys.executable).parent / "py-spy"
        self.binary = str(venv_spy) if venv_spy.exists() else shutil.which("py-spy")

    @contextmanager
    def recording(self, pid: int, name: str) -> Iterator[None]:
        if self.binary is None:
            self.reports[name] = {"skipped": "py-spy is not installed (pip install -e '.[bench]')"}
            yield
            return
        raw = self.directory / f"{name.replace(' ', '-')}.txt"
        spy = subprocess.Popen(
            [
                self.binary,
                "record",
                "-r",
                str(SAMPLES_PER_S),
                "-f",
                "raw",
                "--nonblocking",
                "--idle",
                "-d",
                f"{self.seconds:g}",
                "-o",
                str(raw),
                "-p",
                str(pid),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        try:
            yield
        finally:
            output, _ = spy.communicate(timeout=self.seconds + 60)
        if spy.returncode != 0 or not raw.exists():
            self.reports[name] = {"skipped": f"py-spy failed: {output.decode(errors='replace').strip()[-300:]}"}
            return
        self.reports[name] = {**shares(raw.read_text()), "seconds": self.seconds}


def shares(raw: str) -> dict:
    """py-spy's raw stacks (`root;...;leaf count` a line) as each function's share of the samples
    that were not waits: inclusive (in the stack at all) and own (the leaf), highest first."""
    idle: Counter[str] = Counter()
    inclusive: Counter[tuple[str, str]] = Counter()
    own: Counter[tuple[str, str]] = Counter()
    working = 0
    for line in raw.splitlines():
        stack, _, counted = line.rpartition(" ")
        if not stack or not counted.isdigit():
            continue
        count = int(counted)
        frames = [Frame.parse(text) for text in stack.split(";")]
        leaf = frames[-1]
        if leaf.waits():
            idle[leaf.label()] += count
            continue
        working += count
        own[leaf.key] += count
        for key in {frame.key for frame in frames}:
            inclusive[key] += count
    ranked = [(key, n) for key, n in inclusive.most_common() if key not in ENTRY_FRAMES][:25]
    top = [
        {"function": function, "file": path, "inclusive": n / working, "own": own[(function, path)] / working}
        for (function, path), n in ranked
    ]
    return {"samples": working, "idle_samples": sum(idle.values()), "idle": dict(idle.most_common(4)), "top": top}


def print_profile(reports: dict[str, dict]) -> None:
    for name, report in reports.items():
        print(f"\npy-spy, this checkout's web process, {name} (DuckDB):", end=" ")
        if "skipped" in report:
            print(f"not recorded: {report['skipped']}")
            continue
        idle = ", ".join(f"{leaf} {n}" for leaf, n in report["idle"].items())
        busy = report["samples"] / (SAMPLES_PER_S * report["seconds"])
        print(
            f"{report['samples']} samples of work ({busy:.2f} threads at a time); "
            f"{report['idle_samples']} of waits left out (most: {idle})"
        )
        print(f"  {'incl':>6} {'own':>6}  function")
        for row in report["top"]:
            print(f"  {row['inclusive']:>6.1%} {row['own']:>6.1%}  {row['function']}  ({row['file']})")


# --- the table ---------------------------------------------------------------------------------


@dataclass
class Row:
    tree: str
    store: str
    measurement: str
    unit: str
    figure: float
    ratio: float | None  # to the engine
    goal: str
    met: bool | None


def rows_of(tree: str, figures: dict, engine_ms: float, engine_per_s: float) -> list[Row]:
    rows: list[Row] = []
    for store, loads in figures.items():
        if isinstance(loads, str):
            continue
        for name, load in loads.items():
            if name == "generate c1":
                ratio = load.p50_ms / engine_ms
                limit = LATENCY_GOAL * (POSTGRES_SLACK if store == "postgresql" else 1.0)
                rows.append(
                    Row(tree, store, f"{name} median", "ms", load.p50_ms, ratio, f"<= {limit:.2f} x", ratio <= limit)
                )
                rows.append(Row(tree, store, f"{name} rate", "/s", load.per_s, load.per_s / engine_per_s, "", None))
            elif name == "generate c8":
                ratio = load.per_s / engine_per_s
                floor = RATE_GOAL / (POSTGRES_SLACK if store == "postgresql" else 1.0)
                rows.append(
                    Row(tree, store, f"{name} rate", "/s", load.per_s, ratio, f">= {floor:.2f} x", ratio >= floor)
                )
                rows.append(Row(tree, store, f"{name} median", "ms", load.p50_ms, load.p50_ms / engine_ms, "", None))
            elif name == "GET /me c8":
                rows.append(
                    Row(tree, store, f"{name} rate", "/s", load.per_s, None, f">= {ME_GOAL:,}/s", load.per_s >= ME_GOAL)
                )
            else:
                rows.append(Row(tree, store, f"{name} rate", "/s", load.per_s, None, "", None))
    return rows


def print_table(rows: list[Row], baseline: str | None) -> None:
    before = {(row.store, row.measurement): row.figure for row in rows if baseline and row.tree == baseline}
    header = f"{'tree':17} {'store':10} {'measurement':22} {'figure':>12} {'x engine':>9} {'goal':>11} {'':5}"
    print(header + (f" {'after/before':>12}" if baseline else ""))
    for row in rows:
        figure = f"{row.figure:,.1f} {row.unit}"
        ratio = f"{row.ratio:.2f}" if row.ratio is not None else "-"
        verdict = "" if row.met is None else ("PASS" if row.met else "MISS")
        line = f"{row.tree:17} {row.store:10} {row.measurement:22} {figure:>12} {ratio:>9} {row.goal:>11} {verdict:5}"
        if baseline and row.tree != baseline and (row.store, row.measurement) in before:
            line += f" {row.figure / before[(row.store, row.measurement)]:>12.2f}"
        print(line)


# --- main --------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 s loads instead of 8 s")
    parser.add_argument("--json", action="store_true", help="also print every figure as one JSON object, last")
    parser.add_argument("--baseline", metavar="REV", help="also measure this git revision's code, first")
    parser.add_argument("--profile", action="store_true", help="py-spy on this checkout's web process under load")
    args = parser.parse_args()
    if shutil.which(WRK) is None:
        sys.exit("benchmarks.service needs wrk (Debian's `wrk` package: scripts/provision.sh wrk)")
    from tests.postgres import PostgresServer, missing_reason

    runs = 150 if args.quick else 400
    engine_before = engine_rate(runs, first=500_000)
    with ExitStack() as stack:
        directory = Path(tempfile.mkdtemp(prefix="docbench-bench-wrk-"))
        stack.callback(shutil.rmtree, directory, ignore_errors=True)
        bench = Bench(directory, 3 if args.quick else 8, engine_before)
        profile = Profiler(directory, 6) if args.profile else None
        reason = missing_reason()
        postgres: PostgresServer | str = reason if reason else PostgresServer(durable=True)
        if not isinstance(postgres, str):
            stack.callback(postgres.stop)
        trees = [Tree("this checkout", ROOT)]
        if args.baseline:
            trees.insert(0, stack.enter_context(baseline_tree(args.baseline)))
        measured = measure(trees, bench, postgres, profile)
    engine_after = engine_rate(runs, first=600_000)
    engine_per_s = max(engine_before, engine_after)
    engine_ms = 1000 / engine_per_s
    print(
        f"engine render_pdf(certificate), single process, rows of their own: {engine_before:.1f} PDFs/s before the "
        f"servers, {engine_after:.1f} after; the reference: {engine_per_s:.1f} PDFs/s = {engine_ms:.2f} ms per PDF"
    )
    print(
        f"wrk, {bench.seconds:g} s per load after a {bench.warm_up:g} s warm-up; c1 = 1 connection, "
        "c8 = 8 connections; x engine: a median over the engine's ms per PDF, a rate over its PDFs/s\n"
    )
    rows = [row for label, figures in measured.items() for row in rows_of(label, figures, engine_ms, engine_per_s)]
    print_table(rows, trees[0].label if args.baseline else None)
    for label, figures in measured.items():
        if isinstance(figures.get("postgresql"), str):
            print(f"{label}, PostgreSQL: not measured ({figures['postgresql']})")
    if profile is not None:
        print_profile(profile.reports)
    if args.json:
        print(
            json.dumps(
                {
                    "engine": {
                        "pdfs_per_s_before": engine_before,
                        "pdfs_per_s_after": engine_after,
                        "pdfs_per_s": engine_per_s,
                        "ms_per_pdf": engine_ms,
                    },
                    "seconds": bench.seconds,
                    "trees": {
                        label: {
                            store: loads
                            if isinstance(loads, str)
                            else {name: vars(load) for name, load in loads.items()}
                            for store, loads in figures.items()
                        }
                        for label, figures in measured.items()
                    },
                    "table": [vars(row) for row in rows],
                    "profile": profile.reports if profile is not None else None,
                }
            )
        )


if __name__ == "__main__":
    main()
