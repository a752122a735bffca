"""Upload bodies (issue 48): a large file is written to disk as it arrives, never held in the
web process's memory, and the bytes of upload bodies received at once are bounded."""

from __future__ import annotations

import hashlib
import os
import random
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.server import Server, create_workspace, wait_until

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
    """A multipart/form-data body holding `path` as its 'file' part, sent a chunk at a time with
    its Content-Length declared; `hold` (if given) stops it after `sent_before_hold` bytes until set."""

    def __init__(
        self, path: Path, fields: dict[str, str] | None = None, hold: threading.Event | None = None, sent_before_hold=0
    ):
        self.path = path
        self.head = b"".join(
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
            for name, value in (fields or {}).items()
        )
        self.head += (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{path.name}"\r\n'
            "Content-Type: application/pdf\r\n\r\n"
        ).encode()
        self.tail = f"\r\n--{BOUNDARY}--\r\n".encode()
        self.length = len(self.head) + path.stat().st_size + len(self.tail)
        self.hold = hold
        self.sent_before_hold = sent_before_hold

    def headers(self, **extra: str) -> dict[str, str]:
        return {
            "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
            "Content-Length": str(self.length),
            **extra,
        }

    def __iter__(self) -> Iterator[bytes]:
        yield self.head
        sent = len(self.head)
        with self.path.open("rb") as file:
            while chunk := file.read(256 * 1024):
                if self.hold is not None and sent >= self.sent_before_hold:
                    self.hold.wait(120)
                    self.hold = None
                yield chunk
                sent += len(chunk)
        yield self.tail


def send(server: Server, key: str, body: MultipartFile, path: str = "/uploads", **headers: str) -> httpx.Response:
    with httpx.Client(base_url=server.api, headers={"X-API-Key": key}, timeout=300) as client:
        return client.post(path, content=iter(body), headers=body.headers(**headers))


def memory(pid: int, field: str) -> int:
    """A field of /proc/<pid>/status in bytes (VmRSS, VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} for process {pid}")


def reset_peak(pid: int) -> None:
    """Start VmHWM again from the process's resident size now (proc(5): clear_refs, 5)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


@pytest.mark.slow
@pytest.mark.alone
def test_three_concurrent_200_mb_uploads_stay_out_of_the_web_process_memory(tmp_path):
    sources = tmp_path / "sources"
    sources.mkdir()
    digests = [padded_pdf(sources / f"big-{n}.pdf", 200 * MB, n) for n in range(3)]
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    _, key = create_workspace(data_dir, "big", credits=5)
    server = Server(data_dir, args=("--max-upload-mb", "256")).start()
    try:
        pid = server.process.pid
        idle = memory(pid, "VmRSS")
        reset_peak(pid)
        with ThreadPoolExecutor(3) as pool:
            answers = list(pool.map(lambda n: send(server, key, MultipartFile(sources / f"big-{n}.pdf")), range(3)))
        peak = memory(pid, "VmHWM")
        for n, answer in enumerate(answers):
            assert answer.status_code == 201, answer.text
            upload = answer.json()["data"]
            assert upload["mimeType"] == "application/pdf" and upload["pages"] == 1
            assert upload["fileSize"] == (sources / f"big-{n}.pdf").stat().st_size
            # Stored whole, under the hash of what was sent.
            assert (data_dir / "blobs" / digests[n][:2] / f"{digests[n]}.pdf").stat().st_size == upload["fileSize"]
        print(f"web process: idle {idle / MB:.0f} MB, peak {peak / MB:.0f} MB (+{(peak - idle) / MB:.0f} MB)")
        assert peak - idle < 150 * MB, f"the web process grew by {(peak - idle) / MB:.0f} MB"
    finally:
        server.stop()
