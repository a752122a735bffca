"""Uploading files to a test server: images in one request, and large files streamed from disk
as multipart bodies (never whole in the test's memory)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.server import Server


def upload(client, data, filename="image.png", content_type="image/png", **form):
    return client.post("/uploads", files={"file": (filename, data, content_type)}, data=form)


MB = 1024 * 1024
BOUNDARY = "docbench-test-boundary-7f3a"


def padded_pdf(path: Path, size: int, seed: int) -> str:
    """A valid one-page PDF of about `size` bytes (a stream of noise no page uses makes up the
    rest), written to `path` a megabyte at a time, never whole in this process; its SHA-256."""
    noise = random.Random(seed).randbytes(MB)
    digest = hashlib.sha256()
    offsets: list[int] = []
    with path.open("wb") as out:

        def write(data: bytes) -> None:
            digest.update(data)
            out.write(data)

        def obj(body: bytes) -> None:
            offsets.append(out.tell())
            write(f"{len(offsets)} 0 obj\n".encode() + body + b"\nendobj\n")

        write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        obj(b"<< /Type /Catalog /Pages 2 0 R >>")
        obj(b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        obj(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << >> >>")
        drawing = b"0 0 1 rg 20 20 260 160 re f"
        obj(b"<< /Length %d >>\nstream\n" % len(drawing) + drawing + b"\nendstream")
        padding = max(0, size - 1024) // MB * MB
        offsets.append(out.tell())
        write(b"5 0 obj\n<< /Length %d >>\nstream\n" % padding)
        for index in range(padding // MB):
            write(index.to_bytes(8, "big") + noise[8:])  # no two megabytes alike
        write(b"\nendstream\nendobj\n")
        xref = out.tell()
        write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
        for offset in offsets:
            write(b"%010d 00000 n \n" % offset)
        write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(offsets) + 1, xref))
    return digest.hexdigest()


class MultipartFile:
    """A multipart/form-data body holding `path` as its 'file' part (after `fields`, and before
    `after`), read from disk a chunk at a time as it is sent."""

    def __init__(self, path: Path, fields: dict[str, str] | None = None, after: dict[str, str] | None = None):
        self.path = path
        self.head = (
            _fields(fields)
            + (
                f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{path.name}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n"
            ).encode()
        )
        self.tail = b"\r\n" + _fields(after) + f"--{BOUNDARY}--\r\n".encode()
        self.length = len(self.head) + path.stat().st_size + len(self.tail)

    def headers(self, **extra: str) -> dict[str, str]:
        return {
            "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
            "Content-Length": str(self.length),
            **extra,
        }

    def __iter__(self) -> Iterator[bytes]:
        yield self.head
        with self.path.open("rb") as file:
            while chunk := file.read(256 * 1024):
                yield chunk
        yield self.tail


def _fields(fields: dict[str, str] | None) -> bytes:
    return b"".join(
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in (fields or {}).items()
    )


def send(server: Server, key: str, body: MultipartFile, path: str = "/uploads", **headers: str) -> httpx.Response:
    with httpx.Client(base_url=server.api, headers={"X-API-Key": key}, timeout=300) as client:
        return client.post(path, content=iter(body), headers=body.headers(**headers))
