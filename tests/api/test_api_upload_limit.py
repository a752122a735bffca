"""`docbench serve --max-upload-mb N` (extensions.md 12): every upload may be N MB where the spec's
limit is lower; a signing certificate keeps its own."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from tests.server import Server, create_workspace


def _noisy_png(side: int) -> bytes:
    """A PNG that does not compress: about 3 bytes a pixel."""
    rng = random.Random(side)
    image = Image.frombytes("RGB", (side, side), bytes(rng.getrandbits(8) for _ in range(side * side * 3)))
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=0)
    return out.getvalue()


@pytest.fixture(scope="module")
def pictures():
    two, four = _noisy_png(830), _noisy_png(1180)  # ~2 MB and ~4 MB
    assert 1.8e6 < len(two) < 2.5e6 and 3.8e6 < len(four) < 4.5e6
    return two, four


def _upload(client, data: bytes):
    return client.post("/uploads", files={"file": ("big.png", data, "image/png")})


def test_a_server_started_with_max_upload_mb_takes_bigger_uploads(tmp_path, pictures):
    two, four = pictures
    _, key = create_workspace(tmp_path, "raised", credits=5)
    server = Server(tmp_path, args=("--max-upload-mb", "3")).start()
    try:
        client = server.client(key)
        uploaded = client.data(_upload(client, two), 201)
        assert uploaded["ref"].startswith("uploads:")
        message = client.error(_upload(client, four), 400, "VALIDATION_ERROR")
        assert "3 MB" in message, message
        # A signing certificate's own limit is not raised.
        refused = client.put(
            "/signing-certificate", files={"file": ("c.p12", two, "application/x-pkcs12")}, data={"password": "x"}
        )
        assert refused.status_code == 400 and "256 KB" in refused.json()["error"]["message"]
    finally:
        server.stop()


def test_the_spec_limit_holds_without_it(tmp_path, pictures):
    two, _ = pictures
    _, key = create_workspace(tmp_path, "plain", credits=5)
    server = Server(tmp_path).start()
    try:
        client = server.client(key)
        message = client.error(_upload(client, two), 400, "VALIDATION_ERROR")
        assert "1 MB" in message, message
    finally:
        server.stop()


def test_a_bad_max_upload_mb_is_refused_at_start(tmp_path):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "serve", "--max-upload-mb", "0", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--max-upload-mb must be 1 to 1024" in done.stderr
