"""`docbench`: serve, manage workspaces and credits, generate PDFs from data (decisions.md, "Running it")."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import get_args

from api.errors import ApiError
from api.plans import PLANS
from api.postings import JournalDamaged
from api.service import Service
from api.service.revocations import ANSWER_WAIT, request_revocation
from api.settings import MAX_UPLOAD_MB, Settings, without_password
from api.store import DatabaseLocked, DatabaseUnavailable
from engine.render.document import Profile

PROFILES = list(get_args(Profile))  # engine.render.document's, as the API's pdfProfile


def _revision(text: str) -> int | str:
    """A revision number, or "latest" (extensions.md 16)."""
    if text == "latest" or (text.isdigit() and int(text) >= 1):
        return text if text == "latest" else int(text)
    raise argparse.ArgumentTypeError(f"{text!r} is not a revision number (1, 2, …) or 'latest'")


def _revision_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--revision",
        type=_revision,
        default=None,
        help="render this revision of the design, or 'latest' (default: the published one, else the latest)",
    )


def _options(args: argparse.Namespace) -> dict | None:
    """Body keys every batch of `docbench generate` carries."""
    options: dict = {}
    if args.flatten:
        options["flatten"] = True
    if args.revision is not None:
        options["revision"] = args.revision
    return options or None


def _data_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=Path, default=None, help="where the database and files live (./data)")


def _blob_url(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--blob-url",
        default=None,
        help="s3://bucket/prefix: blobs in S3-compatible storage, endpoint and credentials from the AWS_* "
        "variables (DOCBENCH_BLOB_URL; default: the data dir's blobs/)",
    )


def _database_url(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database-url",
        default=None,
        help="postgresql://user:password@host:port/db instead of the data dir's DuckDB (DOCBENCH_DATABASE_URL)",
    )


def _settings(args: argparse.Namespace, **extra) -> Settings:
    settings = Settings(**extra)
    if args.data_dir is not None:
        settings.data_dir = args.data_dir
    if getattr(args, "database_url", None):
        settings.database_url = args.database_url
    return settings


@contextmanager
def _service(args: argparse.Namespace) -> Iterator[Service]:
    service = Service(_settings(args))
    try:
        yield service
    finally:
        service.close()


def serve(args: argparse.Namespace) -> int:
    from ..server.app import configure_logging

    configure_logging()
    settings = _settings(args, host=args.host, port=args.port)
    if args.base_url:
        settings.base_url = args.base_url
    if args.redis_url:
        settings.redis_url = args.redis_url
    if args.blob_url:
        settings.blob_url = args.blob_url
    if args.secret:
        settings.secret = args.secret
    if args.webhook_allow_private:
        settings.webhook_allow_private = True
    if args.render_processes is not None:
        if args.render_processes < 1:
            print("docbench: --render-processes must be at least 1", file=sys.stderr)
            return 2
        settings.render_processes = args.render_processes
    if args.rate_limit is not None:
        if args.rate_limit < 1:
            print("docbench: --rate-limit must be at least 1 request per second", file=sys.stderr)
            return 2
        settings.rate_limit = args.rate_limit
    if args.no_metrics:
        settings.metrics = False
    if args.max_upload_mb is not None:
        if not 1 <= args.max_upload_mb <= MAX_UPLOAD_MB:
            print(f"docbench: --max-upload-mb must be 1 to {MAX_UPLOAD_MB} (megabytes)", file=sys.stderr)
            return 2
        settings.max_upload_mb = args.max_upload_mb
    if args.uploads_in_flight_mb is not None:
        if args.uploads_in_flight_mb < 1:
            print("docbench: --uploads-in-flight-mb must be at least 1 (megabytes)", file=sys.stderr)
            return 2
        settings.uploads_in_flight_mb = args.uploads_in_flight_mb
    for gap in settings.unshared():  # works alone, but not beside the other processes on the database
        print(f"docbench: warning: {gap}; see README, Running at scale", file=sys.stderr, flush=True)
    service = Service(settings)
    try:
        service.blobs.check()  # a wrong bucket or credentials refuse the start, not the first upload
    except OSError:
        service.close()
        raise
    first_key = service.ensure_default_workspace()
    service.start_jobs()
    from concurrent.futures import ThreadPoolExecutor

    from api.jobs.runner import tune_for_rendering

    from ..editor import lanes as ui_threads
    from ..server.app import build_server, close_browser_connections
    from ..server.signin_links import SignInTokens

    tune_for_rendering()
    tokens = SignInTokens(service.store)
    workspaces = service.accounts.list_workspaces()
    default = next((w for w in workspaces if w.name == "default"), workspaces[0])

    async def run() -> None:
        server = build_server(service, tokens)
        server.start()
        print(f"docbench is serving on {settings.public_url}/  (API: {settings.public_url}/api/v1)", flush=True)
        link = f"{settings.public_url}/signin?token={tokens.issue(default.id)}"
        print(f"Open the workbench, signed in as '{default.name}' (the link works once):\n    {link}", flush=True)
        where = "in-process"
        if settings.redis_url:
            where = f"RQ on {without_password(settings.redis_url)} (run `docbench worker`)"
        print(f"Batches run {where}.", flush=True)
        if first_key:
            print("A 'default' workspace was created (plan pro, 100 credits). Its API key, shown only once:")
            print(f"    {first_key}", flush=True)
        else:
            print("API keys were shown when created; make another with: docbench key create WORKSPACE_ID", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        # Stop within seconds (issue: SIGTERM used to wait minutes for running renders): renders
        # are killed, not waited for; a request waiting on one answers 503; batches resume on the
        # next start, as after a crash.
        print("docbench is stopping", flush=True)
        await close_browser_connections(server)
        service.renderers.close()
        if service.batches.backend is not None:
            service.batches.backend.close()
        await server.stop_async()
        # The pages' callbacks still running (an editor's poll, a thumbnail) finish before the
        # service closes under them. Waited for on a thread of its own: one may need this loop
        # to end, and the loop's default executor is that very pool.
        with ThreadPoolExecutor(max_workers=1) as waiter:
            await loop.run_in_executor(waiter, ui_threads.settle)

    try:
        asyncio.run(run())
    finally:
        service.close()
    return 0


def worker(args: argparse.Namespace) -> int:
    from api.jobs.redis_backend import worker_main

    from ..server.app import configure_logging

    configure_logging()
    redis_url = args.redis_url or Settings().redis_url
    if not redis_url:
        print("docbench: worker needs --redis-url (or DOCBENCH_REDIS_URL)", file=sys.stderr)
        return 2
    # Workers never open the database, only the blobs: the bucket (no shared directory), a
    # directory given here, or else the directory each job's web process named.
    blob_url = args.blob_url or Settings().blob_url
    blobs = blob_url or (str(args.data_dir / "blobs") if args.data_dir is not None else None)
    if blob_url:
        from api.blobs import open_blobs

        open_blobs(blob_url).check()
    worker_main(redis_url, blobs, burst=args.burst, secret=_worker_secret(args))
    return 0


def _worker_secret(args: argparse.Namespace) -> bytes | None:
    """What opens the sealed certificate and passwords of a batch that signs or encrypts: the servers' --secret, or
    (one server, no --secret) the secret of the data dir the worker shares with it."""
    from api.sealing import server_secret

    secret = args.secret or Settings().secret
    shared_dir = args.data_dir is not None and (args.data_dir / "url-secret").exists()
    if not secret and not shared_dir:
        return None
    return server_secret(Settings(data_dir=args.data_dir or Path("."), secret=secret))


def _read_rows(path: Path) -> list[dict]:
    """Rows from a JSON list of objects, or a CSV file whose header names the variables."""
    if path.suffix.lower() == ".csv":
        import csv

        with path.open(newline="", encoding="utf-8-sig") as handle:
            return [dict(row) for row in csv.DictReader(handle)]
    rows = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(rows, list):
        raise ValueError("the rows file must hold a JSON list of objects")
    return rows


def batch(args: argparse.Namespace) -> int:
    """Submit one batch (at most 100 rows) over the API, show its progress, and download the ZIP."""
    from ..client.api import RestClient
    from ..client.progress import follow, terminal

    key = args.key or os.environ.get("DOCBENCH_API_KEY")
    if not key:
        print("docbench: pass --key or set DOCBENCH_API_KEY", file=sys.stderr)
        return 2
    client = RestClient(args.url, key)
    body: dict = {"rows": _read_rows(args.rows)}
    if args.profile:
        body["pdfProfile"] = args.profile
    if args.webhook_url:
        body["webhookUrl"] = args.webhook_url
    if args.output or args.dpi:
        body["output"] = {"format": args.output or "pdf", **({"dpi": args.dpi} if args.dpi else {})}
    if args.merge:
        body["merge"] = True
    if args.flatten:
        body["flatten"] = True
    if args.sheet:
        body["sheet"] = {"preset": args.sheet, **({"cutMarks": True} if args.cut_marks else {})}
        if args.keep_rows:
            body["keepRows"] = True
    if args.revision is not None:
        body["revision"] = args.revision
    job = client.call("submit_batch", {"designId": args.design_id}, body)
    print(f"batch {job['jobId']}: {job['total']} rows queued", file=sys.stderr)
    if args.no_wait:
        print(job["jobId"])  # for a script: the webhook, or `GET /batches/<jobId>`, tells the end
        return 0
    state = follow(client, [job["jobId"]], terminal())[job["jobId"]]
    out = args.out or Path(f"{job['jobId']}.zip")
    if args.sheet:  # a label-sheet batch's download is its PDF of sheets; its rows' ZIP is rows=true
        if state["completed"]:
            sheets = client.call("get_batch_download", {"jobId": job["jobId"]})["downloadUrl"]
            out.with_suffix(".pdf").write_bytes(client.fetch(sheets))
            print(f"label sheets of the {state['completed']} rows: {out.with_suffix('.pdf')}", file=sys.stderr)
        query = {"rows": True} if args.keep_rows else None
    else:
        query = None
    if not args.sheet or args.keep_rows:
        url = client.call("get_batch_download", {"jobId": job["jobId"]}, query=query)["downloadUrl"]
        out.write_bytes(client.fetch(url))
    made = "documents" if args.output in ("png", "jpeg") else "PDFs"
    where = f": {out}" if not args.sheet or args.keep_rows else ""
    print(f"{state['completed']} {made}, {state['failed']} failed{where}", file=sys.stderr)
    if args.merge and state["completed"]:
        merged = client.call("get_batch_download", {"jobId": job["jobId"]}, query={"merged": True})["downloadUrl"]
        out.with_suffix(".pdf").write_bytes(client.fetch(merged))
        print(f"merged PDF of the {state['completed']} rows: {out.with_suffix('.pdf')}", file=sys.stderr)
    if state["failed"]:
        failed = client.call("get_batch_rows", {"jobId": job["jobId"]}, query={"status": "failed", "limit": 10})
        for row in failed["items"]:
            print(f"  row {row['row']}: {row['error']['message']}", file=sys.stderr)
        if failed["nextCursor"]:
            print(f"  … the rest: GET /api/v1/batches/{job['jobId']}/rows?status=failed", file=sys.stderr)
    return 0 if state["status"] == "completed" else 1


def _column_map(pairs: list[str]) -> dict[str, str | None]:
    """--map VARIABLE=COLUMN; VARIABLE= (no column) leaves the column VARIABLE out on purpose,
    as columns={name: None} does (a column that fills no variable is refused)."""
    mapping: dict[str, str | None] = {}
    for pair in pairs:
        variable, sep, column = pair.partition("=")
        if not sep or not variable:
            raise ValueError(f"--map takes VARIABLE=COLUMN, or NAME= to leave a column out (got {pair!r})")
        mapping[variable] = column or None
    return mapping


def generate(args: argparse.Namespace) -> int:
    """PDFs for every row of a CSV or JSON file, in batches of 100, into a ZIP or a folder."""
    from ..client.batches import generate_from_data
    from ..client.connection import DEFAULT_URL, find_design, open_connection

    rows = _read_rows(args.data)
    url = args.url or (None if args.data_dir else os.environ.get("DOCBENCH_URL"))
    try:
        connection = open_connection(url, args.key, data_dir=args.data_dir, workspace=args.workspace)
    except DatabaseLocked:
        where = args.data_dir or Settings().data_dir
        print(
            f"docbench: the data dir {where} is in use by a running docbench server; "
            f"pass its URL and key instead: --url {DEFAULT_URL} --key dbk_live_…",
            file=sys.stderr,
        )
        return 2
    with connection:
        design = find_design(connection.client, args.design)
        result = generate_from_data(
            connection.client,
            design,
            rows,
            _column_map(args.map),
            profile=args.profile,
            out=args.out,
            merge=args.merge,
            options=_options(args),
        )
    print(f"{result.completed} PDFs, {len(result.failures)} failed: {args.out}", file=sys.stderr)
    if result.merged_path is not None:
        print(f"merged PDF: {result.merged_path}", file=sys.stderr)
    for _, failure in result.failures.head(20).iterrows():
        print(f"  {failure['file']}: {failure['reason']}", file=sys.stderr)
    if len(result.failures) > 20:
        print(f"  … and {len(result.failures) - 20} more (errors.json)", file=sys.stderr)
    return 0 if result.ok else 1


def workspace_create(args: argparse.Namespace) -> int:
    with _service(args) as service:
        workspace, key = service.accounts.create_workspace(args.name, args.plan, args.credits)
    print(json.dumps({"workspaceId": workspace.id, "apiKey": key}))
    return 0


def workspace_set_plan(args: argparse.Namespace) -> int:
    with _service(args) as service:
        workspace = service.accounts.set_plan(args.workspace_id, args.plan)
    print(json.dumps({"workspaceId": workspace.id, "plan": workspace.plan}))
    return 0


def workspace_list(args: argparse.Namespace) -> int:
    with _service(args) as service:
        rows = [
            {"workspaceId": w.id, "name": w.name, "plan": w.plan, "credits": service.accounts.balance(w.id)}
            for w in service.accounts.list_workspaces()
        ]
    print(json.dumps(rows, indent=2))
    return 0


def credits_add(args: argparse.Namespace) -> int:
    with _service(args) as service:
        balance = service.accounts.add_credits(args.workspace_id, args.amount)
    print(json.dumps({"workspaceId": args.workspace_id, "credits": balance}))
    return 0


def key_create(args: argparse.Namespace) -> int:
    with _service(args) as service:
        key = service.accounts.create_key(args.workspace_id)
    print(json.dumps({"workspaceId": args.workspace_id, "apiKey": key}))
    return 0


def webhook_secret_rotate(args: argparse.Namespace) -> int:
    try:
        with _service(args) as service:
            rotated = service.accounts.rotate_webhook_secret(args.workspace_id)
    except DatabaseLocked as exc:
        # No need to stop the server: it rotates the secret itself, asked with the workspace's key.
        print(
            f"docbench: {exc}; or, with the server running, rotate with the workspace's API key: "
            "POST /api/v1/me/webhook-secret",
            file=sys.stderr,
        )
        return 2
    print(json.dumps({"workspaceId": args.workspace_id, **rotated}))
    return 0


def key_revoke(args: argparse.Namespace) -> int:
    try:
        with _service(args) as service:
            revoked: bool | None = service.accounts.revoke_key(args.key)
    except DatabaseLocked:
        # A leaked key must stop working now, not at the next restart: the process that
        # holds the database (DuckDB admits one) revokes it for us (api/service/revocations.py).
        data_dir = _settings(args).data_dir
        revoked = request_revocation(data_dir, args.key, wait=args.wait)
        if revoked is None:
            print(
                f"docbench: the data dir {data_dir} is in use by another process, and it did not answer "
                f"the revocation within {args.wait:g} s (a running `docbench serve`, `docbench generate` or "
                "notebook answers within a second; another docbench command holds it only briefly: run this "
                "again). If that does not help, stop the server, run this command, and start the server "
                "again. Nothing was revoked.",
                file=sys.stderr,
            )
            return 2
    print(json.dumps({"revoked": revoked}))
    return 0 if revoked else 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="docbench", description="Document-generation workbench and API.")
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("serve", help="run the workbench, the API and file downloads on one server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=5006)
    p.add_argument("--base-url", default=None, help="public URL that signed links start with (DOCBENCH_BASE_URL)")
    p.add_argument("--redis-url", default=None, help="send batches to RQ on this Redis (DOCBENCH_REDIS_URL)")
    p.add_argument(
        "--render-processes",
        type=int,
        default=None,
        help="processes that render generations, previews and uploads "
        "(DOCBENCH_RENDER_PROCESSES; one more than the cores)",
    )
    p.add_argument(
        "--rate-limit",
        type=int,
        default=None,
        metavar="N",
        help="at most N requests per second per workspace on the API and MCP, shared through --redis-url "
        "(DOCBENCH_RATE_LIMIT; default: no limit)",
    )
    p.add_argument(
        "--max-upload-mb",
        type=int,
        default=None,
        metavar="N",
        help="every uploaded image or PDF may be N MB, where the spec's limit (uploads 1 MB, assets 10 MB) is lower "
        "(DOCBENCH_MAX_UPLOAD_MB)",
    )
    p.add_argument(
        "--uploads-in-flight-mb",
        type=int,
        default=None,
        metavar="N",
        help="receive and check at most N MB of upload bodies at once, one workspace all but room for the largest "
        "upload; past it an upload answers 503 with Retry-After (DOCBENCH_UPLOADS_IN_FLIGHT_MB; default: four of "
        "the largest upload this server accepts)",
    )
    p.add_argument(
        "--no-metrics", action="store_true", help="no GET /metrics (Prometheus) on this server (DOCBENCH_METRICS=0)"
    )
    _blob_url(p)
    p.add_argument(
        "--secret",
        default=None,
        help="signs file URLs, sign-in links and cookies; the same on every process that serves (DOCBENCH_SECRET)",
    )
    p.add_argument(
        "--webhook-allow-private",
        action="store_true",
        help="let batch webhooks go to private and loopback addresses, and over http:// "
        "(local use and tests; DOCBENCH_WEBHOOK_ALLOW_PRIVATE=1)",
    )
    _data_dir(p)
    _database_url(p)
    p.set_defaults(func=serve)

    p = commands.add_parser("worker", help="run batch jobs from the RQ queue (with --blob-url, no shared directory)")
    p.add_argument("--redis-url", default=None, help="the Redis the server sends batches to (DOCBENCH_REDIS_URL)")
    p.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    p.add_argument(
        "--secret", default=None, help="the servers' --secret: batches that sign or encrypt need it (DOCBENCH_SECRET)"
    )
    _blob_url(p)
    _data_dir(p)
    p.set_defaults(func=worker)

    p = commands.add_parser("batch", help="submit one batch (at most 100 rows) over the API, with a progress bar")
    p.add_argument("design_id")
    p.add_argument("rows", type=Path, help="a JSON list of objects, or a CSV with one column per variable")
    p.add_argument("--url", default=os.environ.get("DOCBENCH_URL", "http://127.0.0.1:5006"))
    p.add_argument("--key", default=None, help="the workspace API key (DOCBENCH_API_KEY)")
    p.add_argument("--profile", choices=PROFILES, default=None)
    p.add_argument("--out", type=Path, default=None, help="where to write the ZIP (<jobId>.zip)")
    p.add_argument("--webhook-url", default=None, help="also POST the job's end to this https URL (signed)")
    p.add_argument("--no-wait", action="store_true", help="print the job id and exit instead of following it")
    p.add_argument(
        "--flatten", action="store_true", help="draw the design's form fields as plain content: no fillable form"
    )
    p.add_argument(
        "--output", choices=("pdf", "png", "jpeg"), default=None, help="pictures of each row's pages instead of PDFs"
    )
    p.add_argument("--dpi", type=int, default=None, help="the pictures' resolution, 72-600 (150)")
    p.add_argument("--merge", action="store_true", help="also one PDF of every row, written as <out>.pdf")
    p.add_argument(
        "--sheet",
        default=None,
        metavar="PRESET",
        help="print the rows on label sheets of this preset (GET /sheets: L7160, 5160, …), written as <out>.pdf",
    )
    p.add_argument("--cut-marks", action="store_true", help="with --sheet: crop marks at the labels' corners")
    p.add_argument("--keep-rows", action="store_true", help="with --sheet: also the ZIP of every row's PDF (<out>)")
    _revision_argument(p)
    p.set_defaults(func=batch)

    p = commands.add_parser(
        "generate",
        help="PDFs for every row of a CSV or JSON file (any number of rows), into a ZIP or a folder",
        description="Runs on a server (--url and --key, or DOCBENCH_URL and DOCBENCH_API_KEY) "
        "or, without a URL, on the data dir itself (the server must not be running on it).",
    )
    p.add_argument("design", help="the design's id, or its name")
    p.add_argument("--data", type=Path, required=True, help="a CSV with one column per variable, or a JSON list")
    p.add_argument("--out", type=Path, required=True, help="a .zip file, or a folder for row-0001.pdf…")
    p.add_argument("--profile", choices=PROFILES, default=None)
    p.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="VARIABLE=COLUMN",
        help="fill a variable from a column; NAME= leaves the column NAME out",
    )
    p.add_argument("--url", default=None, help="a running server (DOCBENCH_URL)")
    p.add_argument("--key", default=None, help="the workspace API key (DOCBENCH_API_KEY)")
    p.add_argument("--workspace", default=None, help="without --url: the workspace's name or id (default)")
    p.add_argument(
        "--merge", action="store_true", help="also one PDF of every row (at most 100), beside --out (merged.pdf)"
    )
    p.add_argument(
        "--flatten", action="store_true", help="draw the design's form fields as plain content: no fillable form"
    )
    _revision_argument(p)
    _data_dir(p)
    p.set_defaults(func=generate)

    workspace = commands.add_parser("workspace", help="create and manage workspaces").add_subparsers(
        dest="action", required=True
    )
    p = workspace.add_parser("create", help="create a workspace and print its first API key as JSON")
    p.add_argument("name")
    p.add_argument("--plan", choices=list(PLANS), default="pro")
    p.add_argument("--credits", type=int, default=100)
    _data_dir(p)
    _database_url(p)
    p.set_defaults(func=workspace_create)
    p = workspace.add_parser("set-plan", help="change a workspace's plan")
    p.add_argument("workspace_id")
    p.add_argument("plan", choices=list(PLANS))
    _data_dir(p)
    _database_url(p)
    p.set_defaults(func=workspace_set_plan)
    p = workspace.add_parser("list", help="list workspaces with their plans and credits")
    _data_dir(p)
    _database_url(p)
    p.set_defaults(func=workspace_list)

    credits = commands.add_parser("credits", help="manage credits").add_subparsers(dest="action", required=True)
    p = credits.add_parser("add", help="grant credits to a workspace (negative to remove)")
    p.add_argument("workspace_id")
    p.add_argument("amount", type=int)
    _data_dir(p)
    _database_url(p)
    p.set_defaults(func=credits_add)

    key = commands.add_parser("key", help="manage API keys").add_subparsers(dest="action", required=True)
    p = key.add_parser("create", help="issue another API key for a workspace (printed once)")
    p.add_argument("workspace_id")
    _data_dir(p)
    _database_url(p)
    p.set_defaults(func=key_create)
    p = key.add_parser(
        "revoke",
        help="revoke an API key; requests with it then answer 401 (works while the server runs)",
        description="Revokes the key in the data dir; while `docbench serve` holds the data dir, "
        "the running server revokes it (within a second) and this command waits for its answer.",
    )
    p.add_argument("key")
    p.add_argument("--wait", type=float, default=ANSWER_WAIT, help="seconds to wait for a running server's answer (10)")
    _data_dir(p)
    _database_url(p)
    p.set_defaults(func=key_revoke)

    webhook_secret = commands.add_parser("webhook-secret", help="manage the key that signs webhooks").add_subparsers(
        dest="action", required=True
    )
    p = webhook_secret.add_parser(
        "rotate",
        help="give a workspace a new webhook secret (printed); the old one stops signing at once",
        description="Every webhook sent afterwards, retries of earlier events included, is signed with the new "
        "secret. While `docbench serve` holds a DuckDB data dir, rotate with the workspace's key instead: "
        "POST /api/v1/me/webhook-secret.",
    )
    p.add_argument("workspace_id")
    _data_dir(p)
    _database_url(p)
    p.set_defaults(func=webhook_secret_rotate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (DatabaseLocked, DatabaseUnavailable, JournalDamaged) as exc:
        print(f"docbench: {exc}", file=sys.stderr)
        return 2
    except ApiError as exc:
        print(f"docbench: {exc.status} {exc.code}: {exc.message}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:  # unreadable rows file, server not reachable
        print(f"docbench: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
