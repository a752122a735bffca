"""The tests' own house rules: a PDF is read through tests/pdf_probes.py, so that two tests never
read one two ways; a test that needs PDFium's document object itself says why here."""

from __future__ import annotations

import ast

from tests.paths import TESTS

# Modules of tests/ that open a PDF with PDFium, or run poppler's pdftotext/pdftoppm, outside
# tests/pdf_probes.py, each with the reason a probe cannot serve it. None today: a test that
# needs PDFium's document adds the probe it needs to tests/pdf_probes.py instead.
OPENS_DOCUMENTS_ITSELF: dict[str, str] = {}
PDF_READERS = ("pdftotext", "pdftoppm", "mutool")


def _opens_a_pdf(tree: ast.AST) -> bool:
    """Whether a module reaches pypdfium2's PdfDocument (by any import or alias) or names one
    of poppler's readers, as a subprocess would."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "PdfDocument":
            return True
        if isinstance(node, ast.Name) and node.id == "PdfDocument":
            return True
        if isinstance(node, ast.alias) and node.name.rsplit(".", 1)[-1] == "PdfDocument":
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and any(r in node.value for r in PDF_READERS):
            return True
    return False


def test_pdfs_are_opened_by_the_probes_or_say_why():
    opening = {
        path.relative_to(TESTS).as_posix()
        for path in TESTS.rglob("*.py")
        if path.name not in ("pdf_probes.py", "test_harness.py") and _opens_a_pdf(ast.parse(path.read_text()))
    }
    assert opening == set(OPENS_DOCUMENTS_ITSELF), "read PDFs through tests/pdf_probes.py, or say why here"


def test_the_harness_sees_each_way_of_opening_a_pdf():
    """The check above is not blind: each way a module could open a PDF is seen, a probe's call is not."""
    opening = [
        "import pypdfium2 as pdfium\npdfium.PdfDocument(pdf)",
        "from pypdfium2 import PdfDocument\nPdfDocument(pdf)",
        "import subprocess\nsubprocess.run(['pdftotext', path, '-'])",
    ]
    assert all(_opens_a_pdf(ast.parse(source)) for source in opening)
    assert not _opens_a_pdf(ast.parse("from tests.pdf_probes import pdf_text\npdf_text(pdf)"))


def test_no_test_file_imports_another():
    """What two test files share is a harness module at the top of tests/ (mcp_calls,
    batch_jobs, pdf_probes…), never one test file's helpers imported by another."""
    importing = []
    for path in TESTS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            for module in _modules_imported(node):
                if module.rsplit(".", 1)[-1].startswith("test_"):
                    importing.append(f"{path.relative_to(TESTS)}:{node.lineno} imports {module}")
    assert importing == []


def _modules_imported(node: ast.AST) -> list[str]:
    """The modules an import statement names: `from .test_a import x`, `import tests.test_a`,
    and `from . import test_a` / `from tests import test_a` (where the names are modules)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.module is None or node.module == "tests":
        return [alias.name for alias in node.names]
    return [node.module]


def test_the_harness_sees_each_way_of_importing_a_test_file():
    statements = ["from .test_mcp import ok", "from tests.api.test_mcp import ok", "from . import test_mcp"]
    statements += ["import tests.api.test_mcp", "from tests import test_mcp", "from ..test_mcp import ok"]
    for statement in statements:
        (node,) = ast.parse(statement).body
        assert any(m.rsplit(".", 1)[-1].startswith("test_") for m in _modules_imported(node)), statement
    (harness,) = ast.parse("from tests.mcp_calls import ok").body
    assert _modules_imported(harness) == ["tests.mcp_calls"]
