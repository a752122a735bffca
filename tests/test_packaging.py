"""Honest packaging: what `pip install docbench` (no extras) gives is a docbench that runs.

Two halves. Every third-party module that engine/, api/ or workbench/ imports at run time,
module-level or inside a function, is a distribution named in `[project.dependencies]`,
or in an extra when the import is guarded by an `except ImportError` whose message names
`pip install 'docbench[extra]'` (imports under `if TYPE_CHECKING:` never run, so they don't
count). And the real thing: the wheel is built, installed without extras into a fresh venv,
and the installed `docbench serve` answers health checks, renders a PDF with the bundled
fonts, icons and ICC profile, serves the workbench page to a browser, and the notebook API
makes PDFs over it.
"""

from __future__ import annotations

import ast
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import packages_distributions
from pathlib import Path

import httpx
import pikepdf
import pytest

from tests.pdf_probes import crop_points, font_report, ink_ratio, page_image

from .browser import open_design, sign_in
from .server import Client, free_port, wait_until

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# The packages the wheel ships, as `[tool.setuptools.packages.find]` includes them ("engine*").
RUNTIME_PACKAGES = tuple(p.rstrip("*") for p in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"])
GUARD = re.compile(r"pip install 'docbench\[([a-z0-9-]+)\]'")


def distribution(requirement: str) -> str:
    """A requirement's distribution name, normalised as PEP 503 does (`Pillow>=10` -> `pillow`)."""
    name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert name, f"not a requirement: {requirement!r}"
    return normalise(name.group(0))


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Import:
    module: str  # the top-level name: `PIL` for `from PIL import Image`
    where: str  # path:line
    extra: str | None  # the extra a guard names, None for an unguarded import


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _guarded_extra(node: ast.Try) -> str | None:
    """The extra an `except ImportError` handler tells the user to install, if it does."""
    for handler in node.handlers:
        caught = handler.type
        names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        if not any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError") for n in names):
            continue
        for part in ast.walk(handler):
            if isinstance(part, ast.Constant) and isinstance(part.value, str) and (match := GUARD.search(part.value)):
                return match.group(1)
    return None


def imports_in(source: str, path: str) -> Iterator[Import]:
    """Every absolute import the module can run, with the extra its guard names."""

    def visit(node: ast.AST, extra: str | None) -> Iterator[Import]:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from visit(child, extra)
            return
        if isinstance(node, ast.Try) and (guarded := _guarded_extra(node)):
            for child in node.body:
                yield from visit(child, guarded)
            for child in [*node.handlers, *node.orelse, *node.finalbody]:
                yield from visit(child, extra)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(alias.name.split(".")[0], f"{path}:{node.lineno}", extra)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield Import(node.module.split(".")[0], f"{path}:{node.lineno}", extra)
        for child in ast.iter_child_nodes(node):
            yield from visit(child, extra)

    yield from visit(ast.parse(source, path), None)


def third_party_imports() -> list[Import]:
    found = []
    for package in RUNTIME_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = str(path.relative_to(ROOT))
            for imported in imports_in(path.read_text(encoding="utf-8"), relative):
                if imported.module not in sys.stdlib_module_names and imported.module not in RUNTIME_PACKAGES:
                    found.append(imported)
    return found


def test_every_runtime_import_is_a_declared_dependency():
    project = PYPROJECT["project"]
    required = {distribution(r) for r in project["dependencies"]}
    extras = {name: {distribution(r) for r in reqs} for name, reqs in project["optional-dependencies"].items()}
    providers = packages_distributions()
    uncovered = []
    for imported in third_party_imports():
        dists = {normalise(d) for d in providers.get(imported.module, [])}
        if not dists:
            uncovered.append(f"{imported.module} ({imported.where}): no installed distribution provides it")
            continue
        allowed = required | (extras.get(imported.extra, set()) if imported.extra else set())
        if not dists & allowed:
            where = f"[project.optional-dependencies] {imported.extra}" if imported.extra else "[project.dependencies]"
            uncovered.append(f"{imported.module} ({imported.where}): {' or '.join(sorted(dists))} is not in {where}")
    assert uncovered == [], "imported at run time but not declared:\n" + "\n".join(sorted(set(uncovered)))


def test_an_import_counts_as_an_extra_only_behind_a_guard_naming_it():
    source = """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    import polars
import pandas
def widget():
    try:
        import ipywidgets
    except ImportError:
        raise RuntimeError("progress widgets need pip install 'docbench[notebook]'") from None
    try:
        import jupyterlab
    except ImportError:
        raise RuntimeError("install Jupyter") from None
    import tqdm.auto
"""
    found = {(i.module, i.extra) for i in imports_in(source, "sample.py")}
    assert found == {
        ("typing", None),
        ("pandas", None),
        ("ipywidgets", "notebook"),
        ("jupyterlab", None),
        ("tqdm", None),
    }


# The installed wheel, end to end.


def clean_env() -> dict[str, str]:
    """This environment without what would import the checkout instead of the installed copy
    (PYTHONPATH, the outer venv) or change the server's defaults (DOCBENCH_*)."""
    dropped = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
    return {k: v for k, v in os.environ.items() if k not in dropped and not k.startswith("DOCBENCH_")}


def run(command: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(command)} exited with {done.returncode}:\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Iterator[tuple[Path, Path]]:
    """(the wheel, the source it was built from): a copy of the checkout's packages, so the
    build's own files (build/, *.egg-info) never land in the checkout. Removed afterwards
    (some 200 MB)."""
    work = tmp_path_factory.mktemp("packaging")
    source = work / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):  # the README is the package's long description
        shutil.copy2(ROOT / name, source / name)
    for package in RUNTIME_PACKAGES:
        shutil.copytree(ROOT / package, source / package, ignore=ignore)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work / "dist"), str(source)], work, 300)
    (wheel,) = (work / "dist").glob("docbench-*.whl")
    yield wheel, source
    shutil.rmtree(work)


@pytest.fixture(scope="module")
def venv(built, tmp_path_factory) -> Iterator[Path]:
    """A fresh venv of this interpreter with the wheel installed, no extras: its directory.
    Not byte-compiled at install (half of pip's CPU time here): Python compiles what it
    imports. Removed afterwards (some 750 MB)."""
    wheel, _ = built
    where = tmp_path_factory.mktemp("fresh")
    run([sys.executable, "-m", "venv", str(where / "venv")], where, 120)
    run([str(where / "venv/bin/python"), "-m", "pip", "install", "-q", "--no-compile", str(wheel)], where, 600)
    location = run([str(where / "venv/bin/python"), "-c", "import api; print(api.__file__)"], where, 60).stdout
    assert location.startswith(str(where / "venv")), f"the venv imports docbench from {location}, not its own copy"
    yield where / "venv"
    shutil.rmtree(where)


@dataclass
class InstalledServer:
    url: str
    api: str
    key: str


@pytest.fixture(scope="module")
def installed_server(venv, tmp_path_factory) -> Iterator[InstalledServer]:
    """The venv's `docbench serve` on a free loopback port with a fresh data dir."""
    home = tmp_path_factory.mktemp("served")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = home / "server.log"
    command = [str(venv / "bin/docbench"), "serve", "--port", str(port), "--data-dir", str(home / "data")]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=home, env=clean_env(), stdout=log, stderr=log)

    def healthy() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"docbench serve exited with {process.returncode}:\n{log_path.read_text()[-3000:]}")
        try:
            return httpx.get(f"{url}/api/v1/health", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_until(healthy, timeout=120, what="the installed docbench serve's health check")
        printed = wait_until(lambda: re.search(r"dbk_live_\S+", log_path.read_text()), what="the first-start API key")
        yield InstalledServer(url, f"{url}/api/v1", printed.group(0))
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def design_id(installed_server) -> str:
    """A design using a bundled font (Lora), a bundled icon, and a variable."""
    actions = [
        {
            "type": "add_element",
            "args": {
                "type": "text",
                "name": "recipient",
                "position": {"x": 60, "y": 100},
                "data": {"content": "Ada Lovelace"},
                "styles": {"fontSize": 28, "fontFamily": "Lora"},
            },
        },
        {"type": "bind_variable", "args": {"name": "recipient"}},
        {
            "type": "add_element",
            "args": {
                "type": "icon",
                "name": "star",
                "position": {"x": 60, "y": 200, "w": 100, "h": 100},
                "data": {"iconId": "star"},
                "styles": {"strokeWidth": 3},
            },
        },
    ]
    with Client(installed_server.api, installed_server.key) as api:
        design = api.data(api.post("/designs", json={"name": "Packaged", "size": "A4"}), 201)["designId"]
        api.data(api.patch(f"/designs/{design}/tree", json={"actions": actions}), 200)
    return design


@pytest.mark.slow
def test_the_wheel_carries_every_file_of_the_packages(built):
    wheel, source = built
    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    files = {
        str(path.relative_to(source))
        for package in RUNTIME_PACKAGES
        for path in (source / package).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert any(f.endswith(".ttf") for f in files) and any(f.endswith(".js") for f in files)  # the check sees data
    assert sorted(files - shipped) == []


@pytest.mark.slow
def test_the_installed_server_renders_with_the_bundled_fonts_icons_and_icc_profile(installed_server, design_id):
    with Client(installed_server.api, installed_server.key) as api:
        body = {"data": {"recipient": "Grace Hopper"}, "pdfProfile": "pdf-a"}
        url = api.data(api.post(f"/designs/{design_id}/generate", json=body), 201)["downloadUrl"]
    pdf = httpx.get(url).content
    fonts = font_report(pdf)
    assert fonts and all(f["embedded"] for f in fonts) and any("Lora" in f["name"] for f in fonts), fonts
    with pikepdf.open(io.BytesIO(pdf)) as document:
        (intent,) = document.Root.OutputIntents
        assert intent.DestOutputProfile.read_bytes() == (ROOT / "engine/pdf/icc/sRGB.icc").read_bytes()
    icon_box = (60, 200, 160, 300)
    assert ink_ratio(crop_points(page_image(pdf), icon_box)) > 0.02, "the star icon drew nothing"


@pytest.mark.slow
def test_the_installed_workbench_page_opens_a_design(installed_server, design_id, page):
    sign_in(page, installed_server, installed_server.key)
    open_design(page, installed_server, design_id)  # waits for the canvas (its ES module) to show the page
    assert page.locator(".dbk-box[data-name='star']").count() == 1


NOTEBOOK = """
import sys, workbench
with workbench.connect(sys.argv[1], api_key=sys.argv[2]) as wb:
    result = wb.design(sys.argv[3]).generate_many([{"recipient": "Ada"}, {"recipient": "Grace"}])
    print(result.completed, sorted(len(pdf) > 1000 for pdf in result.pdfs.values()))
"""


@pytest.mark.slow
def test_the_installed_notebook_api_makes_pdfs_from_rows(installed_server, design_id, venv):
    done = run(
        [str(venv / "bin/python"), "-c", NOTEBOOK, installed_server.url, installed_server.key, design_id],
        venv.parent,
        120,
    )
    assert done.stdout.split("\n")[0] == "2 [True, True]", done.stdout + done.stderr
