"""`design.editor()` inline in a real JupyterLab and Notebook 7, driven by headless Chromium:
the editor renders in the output cell, an edit made there reaches the kernel and is saved in
the data dir, and a change made in code shows in the editor.

Jupyter runs from this venv with its own config, data, runtime and settings dirs, on a free
loopback port; the kernel is this interpreter's ipykernel.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import httpx
import nbformat
import pytest
from playwright.sync_api import expect

import workbench

from ...browser import ARTIFACTS, box, painted, select, wait_for
from ...server import free_port, wait_until

# Jupyter and a browser: `pytest -m "not slow"` skips them. Alone: Jupyter's front end loading
# the widget beside another worker's browsers failed one run in two ("reading 'schema'").
pytestmark = [pytest.mark.slow, pytest.mark.alone]

NOTEBOOK = "inline-editor.ipynb"
JUPYTER_TIMEOUT_MS = 90_000  # the first cell imports Panel and the service
SHORTCUTS_RACE = "Cannot read properties of undefined (reading 'schema')"
KERNEL_NAME = "Python 3 (ipykernel)"  # the kernelspec ipykernel installs in this venv


# The Jupyter front-ends: the module to run and the page that opens a notebook.
APPS = {"jupyterlab": "lab/tree", "notebook": "notebooks"}


class Jupyter:
    def __init__(self, app: str, root: Path):
        self.app = app
        self.root = root
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = root.parent / f"{app}.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> Jupyter:
        home = self.root.parent
        settings = home / "lab-settings" / "@jupyterlab" / "apputils-extension"
        settings.mkdir(parents=True)
        # No "news" and "update" prompts over the output cell (and no request for them).
        (settings / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False})
        )
        env = {
            **os.environ,
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_DATA_DIR": str(home / "data"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "JUPYTERLAB_SETTINGS_DIR": str(home / "lab-settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
            "IPYTHONDIR": str(home / "ipython"),
        }
        command = [
            *[sys.executable, "-m", self.app, "--no-browser", "--allow-root", "--ip=127.0.0.1"],
            f"--port={self.port}",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
        ]
        if self.app == "jupyterlab":
            command.append("--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate")
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(command, cwd=self.root, env=env, stdout=log, stderr=log)
        wait_until(self._ready, timeout=60, what=self.app)
        return self

    def _ready(self) -> bool:
        if self.process.poll() is not None:
            raise RuntimeError(f"{self.app} exited with {self.process.returncode}: {self.log_path.read_text()[-3000:]}")
        try:
            return httpx.get(f"{self.url}/api/status", params={"token": self.token}, timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def write_notebook(path: Path, data_dir: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell(
            "import workbench\n"
            f"wb = workbench.connect(data_dir={str(data_dir)!r})\n"
            'design = wb.create_design("Inline", size="A5")\n'
            'design.add_text("Hello", "Hello from the kernel", x=40, y=40)\n'
            "design.editor()"
        ),
        nbformat.v4.new_code_cell(
            'hello = next(n for n in design.tree.nodes.values() if n.name == "Hello")\n'
            'print(f"Hello is at y={hello.position.y:g}")'
        ),
        nbformat.v4.new_code_cell('design.update_element("Hello", position={"x": 200})'),
    ]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)


@pytest.fixture(params=list(APPS))
def jupyter(request, tmp_path):
    root = tmp_path / "notebooks"
    root.mkdir()
    write_notebook(root / NOTEBOOK, tmp_path / "docbench-data")
    server = Jupyter(request.param, root).start()
    yield server
    server.stop()


def jupyters_shortcuts_race(error) -> bool:
    """JupyterLab's shortcuts plugin (in Notebook 7 too) reads its own settings' schema whenever
    another plugin's settings load, also before its own have loaded (jupyter/notebook#7862): an
    uncaught TypeError thrown from Jupyter's core bundle while the page starts, before any cell
    runs. Every time in Notebook 7.6, in JupyterLab when its plugins load in that order; the
    shortcuts load all the same. Only that error, thrown from that bundle, is Jupyter's own."""
    frames = error.stack.splitlines()[1:2]
    return (
        error.message == SHORTCUTS_RACE
        and bool(frames)
        and re.search(r"/static/(lab|notebook)/(jlab|notebook)_core\.[0-9a-f]+\.js", frames[0]) is not None
    )


def run_cell(page, index: int) -> None:
    """Run one cell with one Shift+Enter, once the notebook has its kernel and the kernel is idle.

    A Shift+Enter before the notebook has a kernel (its toolbar says "No Kernel") is lost; once
    it has one, JupyterLab queues the request until the kernel's connection is up. The toolbar's
    execution indicator also says "idle" before there is a kernel, hence both. Never a second
    press: a first one that was slow to show would run the cell twice."""
    timeout = JUPYTER_TIMEOUT_MS  # expect() keeps its own default, not the page's
    expect(page.locator(".jp-KernelName")).to_have_text(KERNEL_NAME, timeout=timeout)
    expect(page.locator(".jp-Notebook-ExecutionIndicator")).to_have_attribute("data-status", "idle", timeout=timeout)
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    expect(cell.locator(".jp-InputArea-prompt")).not_to_have_text(re.compile(r"\[\s*\]"), timeout=timeout)


def test_the_inline_editor_renders_in_jupyter_and_an_edit_reaches_the_kernel(jupyter, page, tmp_path):
    page.set_default_timeout(JUPYTER_TIMEOUT_MS)
    page.recorder.known_page_errors.append(jupyters_shortcuts_race)
    page.goto(f"{jupyter.url}/{APPS[jupyter.app]}/{NOTEBOOK}?token={jupyter.token}")
    run_cell(page, 0)
    hello = box(page, "Hello")
    hello.wait_for()
    wait_for(lambda: painted(page) >= 1, "the first preview in the notebook")

    before = painted(page)
    select(page, "Hello")
    # The canvas takes its keys inside JupyterLab (Shift+Down also extends the cell selection there).
    page.keyboard.press("Shift+ArrowDown")
    # The kernel saved the move and sent back a new preview of the page.
    wait_for(lambda: painted(page) > before, "a new preview from the kernel", timeout=30)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"editor-in-{jupyter.app}.png"))  # docs/editor-jupyterlab.png

    run_cell(page, 1)
    expect(page.locator(".jp-OutputArea-output", has_text="Hello is at")).to_have_text("Hello is at y=50")

    # A change made in code shows in the editor (its poll runs in the kernel once the cell is done).
    left = hello.bounding_box()["x"]
    run_cell(page, 2)
    wait_for(lambda: hello.bounding_box()["x"] > left + 50, "the change from code in the editor", timeout=30)

    # Generate: the embedded service serves no /files URL, so the PDF comes as a data: URL.
    with page.expect_download() as download:
        page.locator(".dbk-generate button").click()
    assert download.value.url.startswith("data:application/pdf;base64,")
    assert Path(download.value.path()).read_bytes().startswith(b"%PDF")

    page.close()  # before Jupyter stops, so its page logs no lost connection
    jupyter.stop()  # the kernel goes with it, and lets go of the data dir
    with workbench.connect(data_dir=tmp_path / "docbench-data") as wb:
        (design,) = wb.designs()
        saved = next(n for n in wb.design(design.designId).tree.nodes.values() if n.name == "Hello")
        assert (saved.position.x, saved.position.y) == (200, 50)


def test_the_inline_editor_says_when_its_kernel_does_not_answer_and_never_reloads_the_notebook(jupyter, page):
    """Issue 35: in Jupyter the kernel is the editor's server. Restarted, it answers the editor no
    more: the output says so, and the notebook page is not reloaded (its marker stays)."""
    page.set_default_timeout(JUPYTER_TIMEOUT_MS)
    page.recorder.known_page_errors.append(jupyters_shortcuts_race)
    page.goto(f"{jupyter.url}/{APPS[jupyter.app]}/{NOTEBOOK}?token={jupyter.token}")
    run_cell(page, 0)
    box(page, "Hello").wait_for()
    wait_for(lambda: painted(page) >= 1, "the first preview in the notebook")
    page.evaluate("window.dbkNotebookPage = true")
    notice = page.locator(".dbk-connection-lost")
    expect(notice).to_have_count(0)
    auth = {"Authorization": f"token {jupyter.token}"}
    (kernel,) = httpx.get(f"{jupyter.url}/api/kernels", headers=auth, timeout=10).json()
    restart = httpx.post(f"{jupyter.url}/api/kernels/{kernel['id']}/restart", headers=auth, timeout=60)
    assert restart.status_code == 200, restart.text
    expect(notice).to_contain_text("The notebook's kernel is not answering", timeout=JUPYTER_TIMEOUT_MS)
    assert page.evaluate("window.dbkNotebookPage") is True
    page.close()  # before Jupyter stops, so its page logs no lost connection
