"""A small real disk for tests of what a full one does: a tmpfs of a given size mounted under the
test's folder (root, or CAP_SYS_ADMIN: skipped with the reason where mounting is not permitted)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_disk(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` (mount's syntax: "1m", "256k") mounted at `where`, unmounted afterwards."""
    where.mkdir(parents=True, exist_ok=True)
    if shutil.which("mount") is None:
        pytest.skip("no `mount` command here: a small disk (tmpfs) cannot be made")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"mounting a small disk (tmpfs) is not permitted here: {mounted.stderr.strip()} (needs root)")
    try:
        yield where
    finally:
        if subprocess.run(["umount", str(where)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(where)], check=False)  # a file still open: detached now, freed later


def fill(disk: Path) -> Path:
    """Take every byte the disk has left with one file (written in smaller and smaller pieces, down
    to one byte); its path, to delete to free the space again."""
    filler = disk / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for piece in (1 << 20, 1 << 16, 1 << 12, 1):
            chunk = b"\0" * piece
            while True:
                try:
                    if os.write(descriptor, chunk) < piece:
                        break
                except OSError:
                    break
    finally:
        os.close(descriptor)
    return filler
