"""HTTPS image servers on loopback for tests, with a self-signed certificate made by the openssl CLI.

The certificate names localhost, images.example and 127.0.0.1; a server process fetches
from it when started with DOCBENCH_FETCH_ALLOW_PRIVATE=1 and DOCBENCH_FETCH_CAFILE=<cert>.
"""

from __future__ import annotations

import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """(certificate, key) files in folder; skips the test when openssl is missing."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make a test certificate")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,DNS:images.example,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@contextmanager
def serve_https(handler: type[BaseHTTPRequestHandler], cert: Path, key: Path) -> Iterator[ThreadingHTTPServer]:
    """A threading HTTPS server on 127.0.0.1 (a free port) until the block ends."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
