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


def _traced(tmp_path: Path, script: str, *args: str) -> tuple[str, list[str]]:
    """`script` run under strace with the blob folder `tmp_path/blobs` (and `args`): the last line
    it printed (a blob key), and the flushes and renames it made, in order, each descriptor shown
    with its path (-y)."""
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed: the flushes of a write cannot be watched")
    trace = tmp_path / "trace"
    blobs = tmp_path / "blobs"
    done = subprocess.run(
        ["strace", "-f", "-y", "-qq", "-o", str(trace), "-e", "trace=fsync,fdatasync,rename,renameat,renameat2",
         sys.executable, "-c", script, str(blobs), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    if done.returncode != 0 and "ptrace" in done.stderr:
        pytest.skip(f"strace may not trace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1], trace.read_text().splitlines()


def test_a_generations_pdf_is_flushed_and_named_on_disk_before_the_render_answers(tmp_path):
    key, calls = _traced(tmp_path, RENDER)
    _assert_flushed_then_named(tmp_path, key, calls)


def _assert_flushed_then_named(tmp_path: Path, key: str, calls: list[str]) -> None:
    """The blob's bytes flushed before the rename that names it, and its folder after it."""
    folder = tmp_path / "blobs" / key[:2]
    renamed = [i for i, call in enumerate(calls) if re.search(rf'rename\w*\(.*"{re.escape(str(folder / key))}"', call)]
    assert len(renamed) == 1, calls
    temporary = re.search(rf'"({re.escape(str(folder))}/\.tmp-[^"]+)"', calls[renamed[0]])[1]
    file_flush = re.compile(rf"\d+ +fdatasync\(\d+<{re.escape(temporary)}>")
    assert any(map(file_flush.match, calls[: renamed[0]])), f"the PDF was not flushed before it was named: {calls}"
    folder_flush = re.compile(rf"\d+ +f(data)?sync\(\d+<{re.escape(str(folder))}>")
    assert any(map(folder_flush.match, calls[renamed[0] :])), f"its name was not flushed after the rename: {calls}"


PUT_PATH = """
import hashlib, sys
from pathlib import Path
from api.blobs import LocalBlobs
source = Path(sys.argv[2])
blobs = LocalBlobs(Path(sys.argv[1]))
digest = hashlib.sha256(source.read_bytes()).hexdigest()
if sys.argv[3] == "stored before":
    blobs.put_path(source, "application/pdf", digest)
print(blobs.put_path(source, "application/pdf", digest, durable=True))
"""


def test_an_upload_stored_from_its_spool_file_is_flushed_and_named_on_disk(tmp_path):
    # An uploaded original (api.service.media) is stored from its spool file, as durably as `put` stores.
    source = tmp_path / "upload-spooled"
    source.write_bytes(b"%PDF-1.7\n" + b"x" * 100_000)
    key, calls = _traced(tmp_path, PUT_PATH, str(source), "new")
    _assert_flushed_then_named(tmp_path, key, calls)


def test_an_upload_whose_bytes_were_stored_before_without_flushing_is_flushed_now(tmp_path):
    source = tmp_path / "upload-spooled"
    source.write_bytes(b"%PDF-1.7\n" + b"y" * 100_000)
    key, calls = _traced(tmp_path, PUT_PATH, str(source), "stored before")
    blob, folder = tmp_path / "blobs" / key[:2] / key, tmp_path / "blobs" / key[:2]
    renamed = [i for i, call in enumerate(calls) if re.search(rf'rename\w*\(.*"{re.escape(str(blob))}"', call)]
    assert len(renamed) == 1, calls  # the first, plain store; the durable one finds the blob there
    after = calls[renamed[0] :]
    assert any(re.match(rf"\d+ +fdatasync\(\d+<{re.escape(str(blob))}>", call) for call in after), calls
    assert any(re.match(rf"\d+ +f(data)?sync\(\d+<{re.escape(str(folder))}>", call) for call in after), calls


RENDER_TWICE = """
import sys
from engine import new_design
from api.renderers.worker import render_pdf
for _ in range(2):
    key, _ = render_pdf(new_design().model_dump_json(), {}, "standard", {}, sys.argv[1], 200, 50_000_000)
print(key)
"""


def test_the_same_pdf_made_again_by_a_process_is_not_flushed_again(tmp_path):
    # Content-addressed: the second render's PDF is the first's file, which this process flushed.
    key, calls = _traced(tmp_path, RENDER_TWICE)
    blob, folder = tmp_path / "blobs" / key[:2] / key, tmp_path / "blobs" / key[:2]
    flushes = [
        call for call in calls if re.match(rf"\d+ +f(data)?sync\(\d+<({re.escape(str(folder))}|\S+\.tmp-)", call)
    ]
    assert len([call for call in flushes if ".tmp-" in call]) == 1, calls  # its bytes, once
    assert len([call for call in flushes if f"<{folder}>" in call]) == 1, calls  # its name, once
    assert not any(f"<{blob}>" in call for call in calls), calls
