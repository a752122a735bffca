"""A generation's file is on disk before its answer (api.blobs, durable puts): its bytes are
flushed before the rename that names it, and its folder after, so no answer points to a file a
power cut can lose. Seen from outside, in the system calls `strace` records of a real render."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
RENDER = """
import sys
from engine import new_design
from api.renderers.worker import render_pdf
key, _ = render_pdf(new_design().model_dump_json(), {}, "standard", {}, sys.argv[1], 200, 50_000_000)
print(key)
"""


def _traced_render(tmp_path: Path) -> tuple[str, list[str]]:
    """A generation's render (the render process's task) under strace: its blob key, and the
    flushes and renames it made, in order, each descriptor shown with its path (-y)."""
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed: the flushes of a render cannot be watched")
    trace = tmp_path / "trace"
    blobs = tmp_path / "blobs"
    done = subprocess.run(
        ["strace", "-f", "-y", "-qq", "-o", str(trace), "-e", "trace=fsync,fdatasync,rename,renameat,renameat2",
         sys.executable, "-c", RENDER, str(blobs)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    if done.returncode != 0 and "ptrace" in done.stderr:
        pytest.skip(f"strace may not trace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1], trace.read_text().splitlines()


def test_a_generations_pdf_is_flushed_and_named_on_disk_before_the_render_answers(tmp_path):
    key, calls = _traced_render(tmp_path)
    folder = tmp_path / "blobs" / key[:2]
    renamed = [i for i, call in enumerate(calls) if re.search(rf'rename\w*\(.*"{re.escape(str(folder / key))}"', call)]
    assert len(renamed) == 1, calls
    temporary = re.search(rf'"({re.escape(str(folder))}/\.tmp-[^"]+)"', calls[renamed[0]])[1]
    file_flush = re.compile(rf"\d+ +fdatasync\(\d+<{re.escape(temporary)}>")
    assert any(map(file_flush.match, calls[: renamed[0]])), f"the PDF was not flushed before it was named: {calls}"
    folder_flush = re.compile(rf"\d+ +f(data)?sync\(\d+<{re.escape(str(folder))}>")
    assert any(map(folder_flush.match, calls[renamed[0] :])), f"its name was not flushed after the rename: {calls}"
