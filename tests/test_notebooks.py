"""Every notebook in notebooks/ runs top to bottom in a real ipykernel, and makes what it says.

The kernel is this interpreter (the venv's), through a kernelspec written for the test
run, so the notebooks import the docbench under test. Each runs in a fresh folder, and
opens its own fresh data dir.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.pdf_probes import pdf_text

from .server import ROOT

pytestmark = pytest.mark.slow  # Jupyter kernels: `pytest -m "not slow"` skips them

NOTEBOOKS = ROOT / "notebooks"
KERNEL = "docbench-tests"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """A kernelspec for this interpreter, found through JUPYTER_PATH."""
    spec = tmp_path_factory.mktemp("jupyter") / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": KERNEL, "language": "python"}))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(spec.parent.parent))
        patch.delenv("DOCBENCH_URL", raising=False)
        patch.delenv("DOCBENCH_API_KEY", raising=False)
        yield KERNEL


def run(name: str, workdir: Path, kernel: str) -> nbformat.NotebookNode:
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = NotebookClient(notebook, kernel_name=kernel, timeout=120, resources={"metadata": {"path": str(workdir)}})
    client.execute()
    return notebook


def outputs(notebook: nbformat.NotebookNode, kind: str) -> list:
    return [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs if kind in o.get("data", {})]


def text(pdf: bytes) -> str:
    return "\n".join(pdf_text(pdf))


def test_every_notebook_is_tested_and_committed_without_outputs():
    committed = sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))
    tested = sorted({"engine-quickstart.ipynb", *(name for name, _ in CHECKS)})
    assert committed == tested
    for path in NOTEBOOKS.glob("*.ipynb"):
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        assert all(
            not c.get("outputs") and not c.get("execution_count") for c in notebook.cells if c.cell_type == "code"
        )


def test_the_engine_quickstart_notebook_writes_its_certificates(kernel, tmp_path):
    notebook = run("engine-quickstart.ipynb", tmp_path, kernel)
    assert outputs(notebook, "image/png")
    assert "Alan Turing" in text((tmp_path / "certificate-2.pdf").read_bytes())


def check_certificates(notebook: nbformat.NotebookNode, workdir: Path) -> None:
    folder = workdir / "out" / "certificates"
    assert sorted(p.name for p in folder.iterdir()) == [f"row-000{i}.pdf" for i in range(1, 5)]
    first, fourth = text((folder / "row-0001.pdf").read_bytes()), text((folder / "row-0004.pdf").read_bytes())
    assert "Ada Lovelace" in first and "8 March 2026" in first and "CERT-0001" in first
    assert "Alan Turing" in fourth and "23 June 2026" in fourth
    assert outputs(notebook, "image/png")  # the preview, inline
    assert any("4 of 4 PDFs" in o["data"]["text/plain"] for o in outputs(notebook, "text/plain"))
    assert any("96 credits left" in o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))


def check_invoices(notebook: nbformat.NotebookNode, workdir: Path) -> None:
    with zipfile.ZipFile(workdir / "out" / "invoices.zip") as archive:
        assert archive.namelist() == ["row-0001.pdf", "row-0002.pdf", "row-0003.pdf"]
        first, second = text(archive.read("row-0001.pdf")), text(archive.read("row-0002.pdf"))
    assert "No. INV-0101" in first and "Acme Ltd" in first and "Template set" in first and "360.00" in first
    assert "Total: 1,660.00" in first and "Certificate run" not in first
    assert "No. INV-0102" in second and "Certificate run" in second and "Line item" not in second
    assert outputs(notebook, "image/png")


def check_design_in_code(notebook: nbformat.NotebookNode, workdir: Path) -> None:
    badge = text((workdir / "out" / "badge.pdf").read_bytes())
    assert "Grace Hopper" in badge and "Keynote" in badge and "PyData Springfield 2026" in badge
    assert "TICKET-0002" in badge
    assert outputs(notebook, "image/png")
    # The inline editor: Panel's model for the front-end to render (JupyterLab renders it in
    # tests/workbench/notebook/test_notebook_editor.py), with the badge's name in its state.
    (editor,) = [c for c in notebook.cells if c.source == "badge.editor()"]
    bundles = [o["data"] for o in editor.outputs if "data" in o]
    assert any("application/vnd.holoviews_exec.v0+json" in b for b in bundles)
    assert "Conference badge" in json.dumps(bundles)


def check_charts(notebook: nbformat.NotebookNode, workdir: Path) -> None:
    north = text((workdir / "out" / "report-north.pdf").read_bytes())
    south = text((workdir / "out" / "report-south.pdf").read_bytes())
    assert "North" in north and "Revenue and cost by month" in north and "Jun" in north and "EUR thousands" in north
    assert "South" in south and "Jun" in south
    assert outputs(notebook, "image/png")  # the preview, inline


CHECKS = [
    ("certificates-from-a-dataframe.ipynb", check_certificates),
    ("invoices-from-grouped-data.ipynb", check_invoices),
    ("design-in-code.ipynb", check_design_in_code),
    ("charts-from-a-dataframe.ipynb", check_charts),
]


@pytest.mark.parametrize("name,check", CHECKS, ids=[name.removesuffix(".ipynb") for name, _ in CHECKS])
def test_each_example_notebook_runs_on_a_fresh_data_dir_and_makes_its_pdfs(kernel, tmp_path, name, check):
    check(run(name, tmp_path, kernel), tmp_path)
