"""Shared fixtures and helpers: designs built from actions, the session's real servers and stores,
PNG images. Reading a PDF back is tests/pdf_probes.py's."""

from __future__ import annotations

import io
import itertools
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import pytest
from PIL import Image

from engine import DesignTree, apply, new_design


def add(
    kind: str, name: str, position: dict, data: dict | None = None, styles: dict | None = None, **extra: Any
) -> dict:
    args: dict[str, Any] = {"type": kind, "name": name, "position": position, **extra}
    if data is not None:
        args["data"] = data
    if styles is not None:
        args["styles"] = styles
    return {"type": "add_element", "args": args}


def run_async[T](main: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine function to its end on its own thread: a test before may have left this
    thread's event loop marked running (Playwright's sync API does), where anyio.run refuses."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, main).result()


def action(kind: str, **args: Any) -> dict:
    return {"type": kind, "args": args}


def counter_ids():
    """Deterministic ids, so two runs of the same actions give the same tree."""
    numbers = itertools.count(1)
    return lambda prefix: f"{prefix}_{next(numbers):04d}"


def build(actions: list[dict], tree: DesignTree | None = None, **design: Any) -> DesignTree:
    tree = tree or new_design(**design)
    if actions:
        tree, _ = apply(tree, actions, mint_id=counter_ids())
    return tree


from .browser import alpha_api, browser, key, page  # noqa: E402,F401  (fixtures for the workbench tests)


@pytest.fixture
def a4() -> DesignTree:
    return new_design()


# The API: one real server for the session, with workspaces of every kind.


class Workspaces(dict):
    """name -> (workspace id, api key)."""


# The stores (api/store.py). The service and REST suites (test_api_*.py, and modules that set
# RUN_ON_BOTH_STORES = True) run over both: every test that uses `store` (directly, or through
# api_server / database_url) is parametrised by pytest_generate_tests, with one session-scoped
# instance per store; other modules run on DuckDB alone, and so does a test marked duckdb_only
# (one about DuckDB's single-process lock).

BOTH_STORES = ("duckdb", "postgres")


def pytest_configure(config):
    config.addinivalue_line("markers", "duckdb_only: a test about the embedded DuckDB store alone")


def pytest_collection_modifyitems(config, items):
    """In xdist workers (`make test`), the files holding slow tests first: each worker takes a
    whole file at a time, and a long file taken last keeps one worker busy while the other idles."""
    if not getattr(config.option, "numprocesses", None):
        return
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: each file's order is kept


def pytest_generate_tests(metafunc):
    if "store" not in metafunc.fixturenames:
        return
    module = metafunc.module.__name__.rsplit(".", 1)[-1]
    both = module.startswith("test_api_") or getattr(metafunc.module, "RUN_ON_BOTH_STORES", False)
    both = both and metafunc.definition.get_closest_marker("duckdb_only") is None
    metafunc.parametrize("store", BOTH_STORES if both else ("duckdb",), indirect=True, scope="session")


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """moto's standalone S3 server for the session, with a bucket `docbench-test`; the AWS_*
    variables point at it for the whole session (this process and the servers it starts)."""
    from .server import MotoS3Server

    server = MotoS3Server(tmp_path_factory.mktemp("moto"))
    server.bucket = server.create_bucket("docbench-test")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in server.env.items():
            patch.setenv(name, value)
        yield server
    server.stop()


def s3_blob_url(s3_server, name: str) -> str:
    """A blob URL of its own (a fresh prefix) in the session's bucket."""
    import uuid

    return f"s3://{s3_server.bucket}/{name}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
def store(request) -> str:
    """The store this test runs on, "duckdb" or "postgres". DuckDB for a fixture reached only
    through request.getfixturevalue (pytest_generate_tests does not see it)."""
    return getattr(request, "param", "duckdb")


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL for the session (tests/postgres.py); skipped only without its binaries."""
    from .postgres import PostgresServer, missing_reason

    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    server = PostgresServer()
    yield server
    server.stop()


def store_database_url(request, store: str) -> str | None:
    """A fresh migrated PostgreSQL database's URL for the postgres store, None for DuckDB."""
    if store != "postgres":
        return None
    server = request.getfixturevalue("postgres_server")
    url = server.fresh_database()
    request.addfinalizer(lambda: server.drop_database(url))
    return url


@pytest.fixture
def database_url(request, store, monkeypatch) -> str | None:
    """This test's database: a fresh PostgreSQL database (DOCBENCH_DATABASE_URL is set, so the
    Services, servers and CLI commands the test starts use it), or None for the data dir's DuckDB."""
    url = store_database_url(request, store)
    if url:
        monkeypatch.setenv("DOCBENCH_DATABASE_URL", url)
    else:
        monkeypatch.delenv("DOCBENCH_DATABASE_URL", raising=False)
    return url


@pytest.fixture(scope="session")
def api_server(request, tmp_path_factory, store):
    """The session's server on `store` (pytest_generate_tests); its blobs in the data dir, or in S3
    for modules that parametrise it indirectly: `pytestmark = pytest.mark.parametrize("api_server",
    ["local", "s3"], indirect=True)`."""
    from api.service import Service, Settings

    from .server import Server

    blobs = getattr(request, "param", "local")
    data_dir = tmp_path_factory.mktemp(f"api-data-{store}-{blobs}")
    blob_url = s3_blob_url(request.getfixturevalue("s3_server"), "api") if blobs == "s3" else None
    database_url = store_database_url(request, store)
    service = Service(Settings(data_dir=data_dir, blob_url=blob_url, database_url=database_url))
    workspaces = Workspaces()
    for name, plan, credits in [
        ("alpha", "pro", 1000),
        ("beta", "pro", 1000),
        ("starter", "starter", 100),
        ("free", "free", 100),
        ("broke", "pro", 0),
        ("metered", "pro", 10),
        ("analyst", "pro", 1000),  # the notebook API's tests
    ]:
        workspace, api_key = service.accounts.create_workspace(name, plan, credits)
        workspaces[name] = (workspace.id, api_key)
    service.close()
    server = Server(
        data_dir,
        args=("--blob-url", blob_url) if blob_url else (),
        env={"DOCBENCH_DATABASE_URL": database_url or ""},
    ).start()
    server.store = store
    server.workspaces = workspaces
    server.blob_url = blob_url
    yield server
    server.stop()


@pytest.fixture
def alpha(api_server):
    with api_server.client(api_server.workspaces["alpha"][1]) as client:
        yield client


@pytest.fixture
def beta(api_server):
    with api_server.client(api_server.workspaces["beta"][1]) as client:
        yield client


def png(colour=(200, 30, 30, 255), size=(80, 40), fmt="PNG") -> bytes:

    out = io.BytesIO()
    image = Image.new("RGBA" if fmt == "PNG" else "RGB", size, colour if fmt == "PNG" else colour[:3])
    image.save(out, format=fmt)
    return out.getvalue()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so fixtures can tell a failed test (browser.py)."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report
