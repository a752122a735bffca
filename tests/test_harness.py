"""The tests' own house rules: a PDF is read through tests/pdf_probes.py, so that two tests never
read one two ways; a test that needs PDFium's document object itself says why here."""

from __future__ import annotations

import ast

from tests.paths import TESTS

# Tests that work on PDFium's document or page objects beyond what a probe returns.
OPENS_DOCUMENTS_ITSELF = {
    "api/test_api_scripts.py": "compares the editor's raster with the PDF's, pixel for pixel, at 96 dpi",
    "engine/design/test_repeat_and_conditions.py": "reads the text inside bands of a page (get_text_bounded)",
    "engine/elements/test_cross_sections.py": "walks a banded table's sheets and their line boxes together",
    "engine/elements/test_table_drawing.py": "every character with its box, across pages",
    "engine/finishing/test_finishing.py": "text objects with the marked content around them (PDFium's C API)",
    "engine/media/test_icons.py": "renders on a chosen fill colour",
    "engine/render/test_compiled.py": "text and pixels of each page at once, to compare two documents",
    "engine/text/test_scripts.py": "counts the characters PDFium reads against the shaped content",
    "engine/text/test_udhr.py": "reads each language's row by its bounds on the page",
    "workbench/web/test_templates.py": "the font size PDFium reports for a drawn line (its C API)",
}


def test_pdfs_are_opened_by_the_probes_or_say_why():
    opening = {
        path.relative_to(TESTS).as_posix()
        for path in TESTS.rglob("test_*.py")
        if path.name != "test_harness.py" and "pdfium.PdfDocument(" in path.read_text()
    }
    assert opening == set(OPENS_DOCUMENTS_ITSELF), "read PDFs through tests/pdf_probes.py, or say why here"


def test_no_test_file_imports_another():
    """What two test files share is a harness module at the top of tests/ (mcp_calls,
    batch_jobs, pdf_probes…), never one test file's helpers imported by another."""
    importing = []
    for path in TESTS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").rsplit(".", 1)[-1].startswith("test_"):
                importing.append(f"{path.relative_to(TESTS)}:{node.lineno} imports {node.module}")
    assert importing == []
