"""Upload bodies (issue 48): a large file is written to disk as it arrives, never held in the
web process's memory, and the bytes of upload bodies received at once are bounded."""

from __future__ import annotations

import http.client
import io
import json
import os
import re
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pikepdf
import pytest

from api.spool import Spool
from tests.server import Server, create_workspace, wait_until
from tests.small_disk import small_disk
from tests.uploads import BOUNDARY, MB, MultipartFile, padded_pdf, send


class HeldUpload:
    """An upload sent by hand over a socket: its headers and the first `first` bytes of its body
    at once, the rest on `finish()` (or never: `abandon()` closes the connection)."""

    def __init__(self, server: Server, key: str, body: MultipartFile, first: int):
        self.pieces = b"".join(body)  # small files only
        self.socket = socket.create_connection(("127.0.0.1", server.port), timeout=60)
        headers = {"Host": f"127.0.0.1:{server.port}", "X-API-Key": key, **body.headers()}
        request = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        self.socket.sendall(f"POST /api/v1/uploads HTTP/1.1\r\n{request}\r\n".encode() + self.pieces[:first])
        self.sent = first

    def finish(self) -> tuple[int, dict]:
        self.socket.sendall(self.pieces[self.sent :])
        status, body = self.answer()
        self.socket.close()
        return status, body

    def answer(self) -> tuple[int, dict]:
        """The server's answer, whatever was sent (waiting for it at most the socket's timeout)."""
        answer = http.client.HTTPResponse(self.socket)
        answer.begin()
        return answer.status, json.loads(answer.read())

    def abandon(self) -> None:
        self.socket.close()


def in_flight(server: Server) -> tuple[int, int]:
    """This server's upload bodies in flight, and their bytes, as GET /metrics shows them."""
    text = httpx.get(f"{server.url}/metrics").text
    count = re.search(r"^docbench_upload_bodies_in_flight (\S+)$", text, re.M)
    size = re.search(r"^docbench_upload_body_bytes_in_flight (\S+)$", text, re.M)
    assert count and size, text
    return int(float(count.group(1))), int(float(size.group(1)))


def spool_files(data_dir: Path) -> list[Path]:
    return sorted((data_dir / "spool").glob("*"))


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


@pytest.fixture(scope="module")
def raised(tmp_path_factory):
    """A server taking uploads of up to 16 MB (a 6 MB file is spooled), with a workspace's key."""
    data_dir = tmp_path_factory.mktemp("raised")
    _, key = create_workspace(data_dir, "spooled", credits=20)
    server = Server(data_dir, args=("--max-upload-mb", "16")).start()
    yield server, key
    server.stop()


def test_a_spooled_upload_is_stored_under_its_hash_once_and_replayed_by_its_key(raised, tmp_path):
    server, key = raised
    first, other = tmp_path / "first.pdf", tmp_path / "other.pdf"
    digest = padded_pdf(first, 6 * MB, 1)
    padded_pdf(other, 6 * MB, 2)
    blob = server.data_dir / "blobs" / digest[:2] / f"{digest}.pdf"
    idempotency = {"Idempotency-Key": str(uuid.uuid4())}

    # The name field after the file part: fields are read wherever they come in the body.
    answer = send(server, key, MultipartFile(first, after={"name": "  Terms  "}), **idempotency)
    upload = server.client(key).data(answer, 201)
    assert upload["name"] == "Terms" and upload["fileSize"] == first.stat().st_size and upload["pages"] == 1
    assert blob.read_bytes() == first.read_bytes()

    again = send(server, key, MultipartFile(first, after={"name": "  Terms  "}), **idempotency)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == answer.json()
    # The key with another file: the fingerprint holds the file's hash, counted as it arrived.
    refused = send(server, key, MultipartFile(other, after={"name": "  Terms  "}), **idempotency)
    server.client(key).error(refused, 422, "IDEMPOTENCY_KEY_REUSED")

    # The same bytes again without the key: another upload, the same blob.
    copy = server.client(key).data(send(server, key, MultipartFile(first)), 201)
    assert copy["uploadId"] != upload["uploadId"] and copy["name"] == "first.pdf"
    assert sorted(path.name for path in (server.data_dir / "blobs").glob("??/*.pdf")) == [blob.name]

    # What was stored is the PDF: appended to a generation, its page follows ours.
    client = server.client(key)
    design_id = client.data(client.post("/designs", json={"name": "Cover"}), 201)["designId"]
    generated = client.data(client.post(f"/designs/{design_id}/generate", json={"append": [upload["ref"]]}), 201)
    with pikepdf.open(io.BytesIO(httpx.get(generated["downloadUrl"]).content)) as pdf:
        assert len(pdf.pages) == 2
    assert spool_files(server.data_dir) == []


def test_a_spooled_svg_is_drawn_from_its_rasterised_copy(raised, tmp_path):
    server, key = raised
    client = server.client(key)
    picture = tmp_path / "mark.svg"
    with picture.open("wb") as out:  # 5 MB of comment around one red square
        out.write(b'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><!--')
        out.write(b"x" * (5 * MB))
        out.write(b'--><rect width="40" height="40" fill="#d00"/></svg>')
    asset = client.data(send(server, key, MultipartFile(picture), path="/assets"), 201)
    # Its dimensions are the PNG it is drawn from (rasterised at twice its size).
    assert asset["mimeType"] == "image/svg+xml" and asset["dimensions"] == {"width": 80, "height": 80}
    assert asset["fileSize"] == picture.stat().st_size
    design_id = client.data(client.post("/designs", json={"name": "Mark"}), 201)["designId"]
    element = {"type": "image", "name": "mark", "position": {"x": 60, "y": 60, "w": 80, "h": 80}}
    element["data"] = {"src": asset["ref"]}
    client.data(
        client.patch(f"/designs/{design_id}/tree", json={"actions": [{"type": "add_element", "args": element}]}), 200
    )
    generated = client.data(client.post(f"/designs/{design_id}/generate", json={}), 201)
    with pikepdf.open(io.BytesIO(httpx.get(generated["downloadUrl"]).content)) as pdf:
        assert pdf.pages[0].get_images(), "the SVG's PNG was not drawn"


def test_a_spooled_upload_refused_after_its_file_leaves_no_spool_file(raised, tmp_path):
    server, key = raised
    big = tmp_path / "big.pdf"
    padded_pdf(big, 6 * MB, 3)
    refused = send(server, key, MultipartFile(big, after={"colour": "red"}))
    message = server.client(key).error(refused, 400, "VALIDATION_ERROR")
    assert message == "unknown form field 'colour': this endpoint takes the form fields 'file', 'name'"
    assert spool_files(server.data_dir) == []


def test_a_body_of_unknown_parts_is_refused_at_the_first_and_none_of_it_is_kept(raised):
    server, key = raised
    pid = server.process.pid
    # 15 MB of parts whose names (4 KB each, the most a part's header may hold) are all unknown.
    parts = [
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{n:05d}{"x" * 4000}"\r\n\r\nv\r\n'.encode()
        for n in range(3700)
    ]
    file_part = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.7\r\n'
        f"--{BOUNDARY}--\r\n"
    ).encode()
    body = b"".join(parts) + file_part
    headers = {"X-API-Key": key, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
    httpx.post(f"{server.api}/uploads", content=parts[0] + file_part, headers=headers)  # the code paths loaded
    reset_peak(pid)
    before = memory(pid, "VmRSS")
    refused = httpx.post(f"{server.api}/uploads", content=body, headers=headers, timeout=60)
    grown = memory(pid, "VmHWM") - before
    print(f"the web process grew by {grown / MB:.1f} MB reading {len(body) / MB:.1f} MB of unknown parts")
    assert grown < 8 * MB, f"the web process grew by {grown / MB:.1f} MB reading {len(body) / MB:.0f} MB of names"
    # The first part is named, with what the endpoint takes; the others were never gathered.
    message = server.client(key).error(refused, 400, "VALIDATION_ERROR")
    assert message.startswith("unknown form field '00000xxx") and len(message) < 300, message[:300]
    assert message.endswith("this endpoint takes the form fields 'file', 'name'")


@pytest.mark.parametrize("disk", ["read-only", "full"])
def test_a_spool_folder_that_refuses_the_file_answers_503_and_keeps_nothing(tmp_path, disk):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    _, key = create_workspace(data_dir, "spool", credits=5)
    big = tmp_path / "big.pdf"
    padded_pdf(big, 6 * MB, 6)
    with small_disk(data_dir / "spool", "1m") as spool:
        if disk == "read-only":  # the spool file cannot even be made (Spool.create, on the event loop)
            subprocess.run(["mount", "-o", "remount,ro", str(spool)], check=True)
        server = Server(data_dir, args=("--max-upload-mb", "16")).start()
        try:
            refused = send(server, key, MultipartFile(big))
            message = server.client(key).error(refused, 503, "SERVICE_UNAVAILABLE")
            reason = "could not write to its disk (Read-only file system)" if disk == "read-only" else "disk is full"
            assert reason in message and "nothing was saved" in message, message
            assert spool_files(data_dir) == [] and in_flight(server) == (0, 0)
            # A file small enough to stay in memory is taken as ever.
            small = tmp_path / "small.pdf"
            padded_pdf(small, 100_000, 7)
            server.client(key).data(send(server, key, MultipartFile(small)), 201)
            assert "Traceback" not in server.output()
        finally:
            server.stop()


def test_a_client_gone_mid_upload_leaves_no_spool_file(raised, tmp_path):
    server, key = raised
    big = tmp_path / "gone.pdf"
    padded_pdf(big, 8 * MB, 4)
    held = HeldUpload(server, key, MultipartFile(big), first=6 * MB)
    # Past 4 MB the body is on disk as it arrives, not in the server's memory ...
    wait_until(
        lambda: any(path.stat().st_size > 4 * MB for path in spool_files(server.data_dir)),
        what="the body written to the spool",
    )
    assert in_flight(server) == (1, MultipartFile(big).length)
    held.abandon()
    # ... and a client that goes away takes it with it.
    wait_until(lambda: not spool_files(server.data_dir), what="the spool file removed")
    wait_until(lambda: in_flight(server) == (0, 0), what="the body counted out")


@pytest.mark.parametrize(
    "args,size,held",
    [
        # By default four bodies of the largest size taken (16 MB and the multipart's slack):
        # of files of 14.7 MB, four fit and a fifth does not.
        (("--max-upload-mb", "16"), 15 * MB, 4),
        (("--max-upload-mb", "8", "--uploads-in-flight-mb", "12"), 5 * MB, 2),
    ],
    ids=["default", "uploads-in-flight-mb"],
)
def test_uploads_past_the_bytes_in_flight_bound_wait_for_a_retry(tmp_path, args, size, held):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    _, key = create_workspace(data_dir, "busy", credits=5)
    # The held uploads each from a workspace of its own: a workspace may hold only half the bound.
    keys = [create_workspace(data_dir, f"busy-{n}", credits=5)[1] for n in range(held)]
    server = Server(data_dir, args=args).start()
    try:
        files = [tmp_path / f"part-{n}.pdf" for n in range(held + 1)]
        for n, path in enumerate(files):
            padded_pdf(path, size, 10 + n)
        bodies = [MultipartFile(path) for path in files]
        waiting = [HeldUpload(server, keys[n], body, first=MB) for n, body in enumerate(bodies[:held])]
        wait_until(lambda: in_flight(server)[0] == held, what=f"{held} uploads in flight")
        # One more would pass the bound. Its body is read (and dropped) before the answer, so
        # the client sees the answer.
        refused = send(server, key, bodies[held])
        message = server.client(key).error(refused, 503, "SERVICE_UNAVAILABLE")
        assert "too many uploads" in message and refused.headers["Retry-After"] == "5"
        assert in_flight(server) == (held, sum(body.length for body in bodies[:held]))
        for upload in waiting:
            status, answer = upload.finish()
            assert status == 201, answer
        assert in_flight(server) == (0, 0)
        server.client(key).data(send(server, key, bodies[held]), 201)  # sent again, it is taken
        assert spool_files(data_dir) == []
    finally:
        server.stop()


def test_one_workspace_holding_slow_uploads_leaves_room_for_another(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    _, slow = create_workspace(data_dir, "slow", credits=5)
    _, other = create_workspace(data_dir, "other", credits=5)
    # Room for four bodies of 16 MB; a workspace may hold all but one of them.
    server = Server(data_dir, args=("--max-upload-mb", "16")).start()
    try:
        files = [tmp_path / f"part-{n}.pdf" for n in range(5)]
        for n, path in enumerate(files):
            padded_pdf(path, 15 * MB, 20 + n)
        bodies = [MultipartFile(path) for path in files]
        held = [HeldUpload(server, slow, body, first=MB) for body in bodies[:3]]
        wait_until(lambda: in_flight(server)[0] == 3, what="three uploads of one workspace in flight")
        # The slow workspace's fourth waits for its own to end, though the server has room for it ...
        refused = send(server, slow, bodies[3])
        message = server.client(slow).error(refused, 503, "SERVICE_UNAVAILABLE")
        assert message.startswith("this workspace is sending too many uploads at once (at most 48.1875 MB")
        assert refused.headers["Retry-After"] == "5"
        # ... which another workspace's upload is given meanwhile.
        server.client(other).data(send(server, other, bodies[4]), 201)
        for upload in held:
            status, answer = upload.finish()
            assert status == 201, answer
        assert in_flight(server) == (0, 0) and spool_files(data_dir) == []
    finally:
        server.stop()


STALL_SECONDS = 1.0  # DOCBENCH_UPLOAD_STALL_SECONDS for the tests below (30 s by default)


@pytest.fixture(scope="module")
def impatient(tmp_path_factory):
    """A server cutting off upload bodies that bring less than 8 KB/s over STALL_SECONDS."""
    data_dir = tmp_path_factory.mktemp("impatient")
    _, key = create_workspace(data_dir, "impatient", credits=20)
    server = Server(
        data_dir, env={"DOCBENCH_UPLOAD_STALL_SECONDS": str(STALL_SECONDS)}, args=("--max-upload-mb", "16")
    ).start()
    yield server, key
    server.stop()


@pytest.mark.parametrize("first", [0, 64 * 1024, 6 * MB], ids=["nothing", "in memory", "spooled"])
def test_an_upload_body_that_stops_arriving_is_answered_408_and_cut_off(impatient, tmp_path, first):
    server, key = impatient
    big = tmp_path / "stalled.pdf"
    padded_pdf(big, 8 * MB, 30)
    held = HeldUpload(server, key, MultipartFile(big), first=first)
    stalled = time.monotonic()
    held.socket.settimeout(STALL_SECONDS * 10)  # the deadline: an answer long before it
    status, answer = held.answer()
    waited = time.monotonic() - stalled
    assert status == 408 and answer["error"]["code"] == "REQUEST_TIMEOUT", answer
    assert answer["error"]["message"] == (
        "the upload body arrived at less than 8 KB/s for 1 s; send it again over a steadier connection"
    )
    # Cut off within 1.2 windows of the stall (and scheduling's slack), never before a whole one.
    assert STALL_SECONDS <= waited < STALL_SECONDS * 1.2 + 1, waited
    assert held.socket.recv(1) == b"", "the server closed the connection"
    held.abandon()
    wait_until(lambda: in_flight(server) == (0, 0), what="the body counted out")
    wait_until(lambda: spool_files(server.data_dir) == [], what="the spool file removed")
    assert "Traceback" not in server.output()


def test_an_upload_body_arriving_at_a_slow_links_pace_is_taken(impatient, tmp_path):
    server, key = impatient
    picture = tmp_path / "slow.svg"
    with picture.open("wb") as out:  # 400 KB of comment around one red square
        out.write(b'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><!--')
        out.write(b"x" * 400_000)
        out.write(b'--><rect width="40" height="40" fill="#d00"/></svg>')
    body = MultipartFile(picture)
    pieces = b"".join(body)

    def paced() -> Iterator[bytes]:
        # A 1 Mbit/s link: 125 KB/s, in pieces of 12.5 KB ten times a second (about 3.3 s in all).
        for start in range(0, len(pieces), 12_500):
            yield pieces[start : start + 12_500]
            time.sleep(0.1)  # the link's pace, not a wait for the server

    with httpx.Client(base_url=server.api, headers={"X-API-Key": key}, timeout=60) as client:
        answer = client.post("/assets", content=paced(), headers=body.headers())
    asset = server.client(key).data(answer, 201)
    assert asset["fileSize"] == picture.stat().st_size


def test_a_spool_file_left_by_a_killed_server_is_removed_when_it_starts_again(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    _, key = create_workspace(data_dir, "killed", credits=5)
    big = tmp_path / "big.pdf"
    padded_pdf(big, 8 * MB, 5)
    server = Server(data_dir, args=("--max-upload-mb", "16")).start()
    try:
        held = HeldUpload(server, key, MultipartFile(big), first=6 * MB)
        wait_until(lambda: spool_files(data_dir), what="the body written to the spool")
        server.kill()  # kill -9: nothing of the server runs to remove it
        held.abandon()
        assert spool_files(data_dir)
        # Another live server's file on the same data dir is left alone: it holds it (its lock).
        descriptor, other = Spool(data_dir / "spool").create()
        try:
            server.start()
            assert spool_files(data_dir) == [other]
        finally:
            os.close(descriptor)
    finally:
        server.stop()


def test_a_spool_file_of_a_live_server_in_another_pid_namespace_is_left_alone(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    # A server in another container on the same volume: the PID its file is named after means
    # nothing here (one past the highest PID this kernel gives, so no process here has it), and
    # the server holds its file as every server does.
    spool = Spool(data_dir / "spool")
    descriptor, path = spool.create()
    foreign = path.with_name(f"upload-{int(Path('/proc/sys/kernel/pid_max').read_text()) + 1}-{path.name[-8:]}")
    path.rename(foreign)
    left = data_dir / "spool" / f"upload-{os.getpid()}-left"  # nobody holds this one, whatever its name says
    left.write_bytes(b"%PDF-")
    server = Server(data_dir).start()
    try:
        assert spool_files(data_dir) == [foreign]
    finally:
        server.stop()
        os.close(descriptor)  # that server stops: the next start removes what it left
    assert spool.sweep() == 1 and spool_files(data_dir) == []
