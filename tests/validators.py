"""The outside validators a tagged document must pass: pikepdf's PDF/A-3b check for the
pdf-a profile and outloud's accessibility check for the accessible one.

outloud (and PyMuPDF, AGPL, under it) is a test-only tool: it never ships with docbench."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pikepdf.pdfa


def outloud(path: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(Path(sys.executable).parent / "outloud"), *options, str(path)], capture_output=True, text=True, timeout=120
    )


def assert_passes_outloud(path: Path) -> None:
    result = outloud(path, "--fail-on", "warning")
    assert result.returncode == 0, result.stdout + result.stderr


def assert_valid_pdf_a(path: Path) -> None:
    report = pikepdf.pdfa.validate_written(path, "3b")
    assert report.passed, report.summary()


def assert_passes_its_profiles_validator(path: Path, profile: str) -> None:
    """pdf-a goes to the PDF/A validator, accessible to outloud."""
    if profile == "pdf-a":
        assert_valid_pdf_a(path)
    else:
        assert profile == "accessible", profile
        assert_passes_outloud(path)
