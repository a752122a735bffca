"""Batch generation over real HTTP, on both back-ends (spec 4.13; decisions.md "Batches").

The same tests run against the in-process pool and against RQ with a real
redis-server and real `docbench worker` processes.
"""

from __future__ import annotations

import io
import json
import threading
import time
import zipfile

import httpx
import pytest
from PIL import Image

from tests.batch_jobs import MISSING, design, rows, wait_for_end, zip_of
from tests.pdf_probes import outline, page_count, pdf_text

from ..conftest import png, store_database_url
from ..server import RedisServer, Server, Worker, wait_until


class BatchEnv:
    def __init__(self, backend: str, tmp_path_factory, database_url: str | None = None):
        from api.service import Service, Settings

        self.backend = backend
        self.data_dir = tmp_path_factory.mktemp(f"batch-{backend}")
        service = Service(Settings(data_dir=self.data_dir, database_url=database_url))
        self.keys = {
            name: service.accounts.create_workspace(name, plan, credits)[1]
            for name, plan, credits in [
                ("pro", "pro", 10_000),
                ("starter", "starter", 100),
                ("tiny", "pro", 3),
                ("other", "pro", 100),
            ]
        }
        service.close()
        self.redis = RedisServer(self.data_dir) if backend == "rq" else None
        args = ("--redis-url", self.redis.url) if self.redis else ()
        # On PostgreSQL a killed server's job waits for its lease to lapse before a restart takes
        # it over (api/service/batches.py): a short lease keeps the restart test quick.
        env = {"DOCBENCH_DATABASE_URL": database_url or "", "DOCBENCH_BATCH_LEASE_SECONDS": "6"}
        self.server = Server(self.data_dir, env=env, args=args).start()
        self.workers = [Worker(self.redis.url, self.data_dir) for _ in range(2)] if self.redis else []

    def client(self, name: str = "pro"):
        return self.server.client(self.keys[name])

    def close(self) -> None:
        for worker in self.workers:
            worker.stop()
        self.server.stop()
        if self.redis:
            self.redis.stop()


@pytest.fixture(scope="module", params=["embedded", "rq"])
def env(request, tmp_path_factory, store):
    batch_env = BatchEnv(request.param, tmp_path_factory, store_database_url(request, store))
    yield batch_env
    batch_env.close()


def credits(client) -> int:
    return client.data(client.get("/me"), 200)["credits"]


def test_a_batch_renders_one_pdf_per_row_and_charges_each_row(env):
    with env.client() as client:
        design_id = design(client)
        before = credits(client)
        submitted = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": rows(12)}), 202)
        # revision 2: created (1), then authored by one patch (extensions.md 16)
        expected = {"jobId": submitted["jobId"], "status": "queued", "total": 12, "designId": design_id, "revision": 2}
        assert submitted == expected
        assert credits(client) == before - 12  # taken at acceptance
        job = wait_for_end(client, submitted["jobId"])
        assert (job["status"], job["total"], job["completed"], job["failed"]) == ("completed", 12, 12, 0)
        assert set(job) == {"jobId", "status", "total", "completed", "failed", "createdAt", "updatedAt", "revision"}
        assert job["revision"] == 2
        archive = zip_of(client, submitted["jobId"])
        assert sorted(archive.namelist()) == [f"row-{i:04d}.pdf" for i in range(1, 13)]
        for i in range(12):
            assert f"Person {i}" in pdf_text(archive.read(f"row-{i + 1:04d}.pdf"))[0]
        assert credits(client) == before - 12


def test_progress_rises_while_rows_finish(env):
    with env.client() as client:
        design_id = design(client)
        # Progress is written every 0.2 s (api/jobs/embedded.py): on a fast machine 100 small rows
        # finish inside one interval, so each row carries a long QR code (about 60 ms to encode).
        slow_rows = [{**row, "code": f"{row['code']}-" + "x" * 1200} for row in rows(100)]
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": slow_rows}), 202)["jobId"]
        message = client.error(client.get(f"/batches/{job_id}/download"), 409, "JOB_NOT_COMPLETED")
        assert "of 100 rows" in message
        seen: list[tuple[str, int]] = []

        def ended():
            job = client.data(client.get(f"/batches/{job_id}"), 200)
            seen.append((job["status"], job["completed"] + job["failed"]))
            return job["status"] in ("completed", "failed")

        wait_until(ended, timeout=120, interval=0.02, what="the 100-row batch")
        done = [count for _, count in seen]
        assert done == sorted(done) and done[-1] == 100
        assert any(status == "processing" and 0 < count < 100 for status, count in seen), seen[:20]


def lose_blob(env, ref: str) -> None:
    """Storage fault: the upload's record stays, its bytes vanish (a real render failure)."""
    for path in (env.data_dir / "blobs").rglob("*.png"):
        if path.read_bytes() == LOST_IMAGE:
            path.unlink()


LOST_IMAGE = png((1, 2, 3, 255), size=(33, 17))


def test_failed_rows_are_listed_and_refunded(env):
    with env.client() as client:
        design_id = design(client)
        good = client.data(client.post("/uploads", files={"file": ("a.png", png(), "image/png")}), 201)["ref"]
        lost = client.data(client.post("/uploads", files={"file": ("b.png", LOST_IMAGE, "image/png")}), 201)["ref"]
        lose_blob(env, lost)
        before = credits(client)
        batch = [dict(r, photo=good if i % 3 else lost) for i, r in enumerate(rows(9))]
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": batch}), 202)["jobId"]
        job = wait_for_end(client, job_id)
        assert (job["status"], job["completed"], job["failed"]) == ("completed", 6, 3)
        archive = zip_of(client, job_id)
        errors = json.loads(archive.read("errors.json"))["failed"]
        assert [e["row"] for e in errors] == [1, 4, 7] and all(lost in e["error"] for e in errors)
        assert sorted(n for n in archive.namelist() if n.endswith(".pdf")) == [
            "row-0002.pdf",
            "row-0003.pdf",
            "row-0005.pdf",
            "row-0006.pdf",
            "row-0008.pdf",
            "row-0009.pdf",
        ]
        assert credits(client) == before - 6


def test_a_batch_whose_every_row_fails_ends_failed_and_refunds_everything(env):
    with env.client() as client:
        design_id = design(client)
        lost = client.data(client.post("/uploads", files={"file": ("b.png", LOST_IMAGE, "image/png")}), 201)["ref"]
        lose_blob(env, lost)
        before = credits(client)
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": rows(4, photo=lost)}), 202)[
            "jobId"
        ]
        job = wait_for_end(client, job_id)
        assert (job["status"], job["completed"], job["failed"]) == ("failed", 0, 4)
        assert zip_of(client, job_id).namelist() == ["errors.json"]
        assert credits(client) == before


def test_a_row_whose_image_is_not_in_the_workspace_fails_alone(env):
    with env.client() as client:
        design_id = design(client)
        good = client.data(client.post("/uploads", files={"file": ("a.png", png(), "image/png")}), 201)["ref"]
        before = credits(client)
        batch = [dict(r, photo=ref) for r, ref in zip(rows(3), [good, MISSING, good], strict=True)]
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": batch}), 202)["jobId"]
        accepted, state = credits(client), client.data(client.get(f"/batches/{job_id}"), 200)["status"]
        if state not in ("completed", "failed"):  # the refund comes with the end, in one transaction
            assert accepted == before - 3  # every row is paid for at acceptance
        job = wait_for_end(client, job_id)
        assert (job["status"], job["completed"], job["failed"]) == ("completed", 2, 1)
        archive = zip_of(client, job_id)
        assert sorted(archive.namelist()) == ["errors.json", "row-0001.pdf", "row-0003.pdf"]
        assert "Person 2" in pdf_text(archive.read("row-0003.pdf"))[0]
        [error] = json.loads(archive.read("errors.json"))["failed"]
        assert (error["row"], error["file"]) == (2, "row-0002.pdf")
        assert MISSING in error["error"] and "variable 'photo'" in error["error"]
        assert "in this workspace" in error["error"] and "Traceback" not in error["error"]
        assert credits(client) == before - 2  # 3 taken, the failed row's 1 given back


def test_a_missing_image_row_is_charged_at_acceptance_like_any_other(env):
    # 'tiny' has 3 credits: 4 rows are refused whole even when one of them will fail.
    with env.client("tiny") as client:
        design_id = design(client)
        batch = [*rows(3), {"name": "x", "photo": MISSING}]
        response = client.post(f"/designs/{design_id}/batch", json={"rows": batch})
        message = client.error(response, 402, "INSUFFICIENT_CREDITS")
        assert "needs 4 credits" in message and credits(client) == 3


def test_a_batch_whose_every_image_is_missing_ends_failed_and_refunds_everything(env):
    with env.client() as client:
        design_id = design(client)
        before = credits(client)
        batch = [dict(r, photo=f"{MISSING}{i}") for i, r in enumerate(rows(3))]
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": batch}), 202)["jobId"]
        job = wait_for_end(client, job_id)
        assert (job["status"], job["completed"], job["failed"]) == ("failed", 0, 3)
        archive = zip_of(client, job_id)
        assert archive.namelist() == ["errors.json"]
        errors = json.loads(archive.read("errors.json"))["failed"]
        assert [e["row"] for e in errors] == [1, 2, 3]
        assert all(f"{MISSING}{e['row'] - 1}" in e["error"] for e in errors)
        assert credits(client) == before


def test_a_single_generate_with_a_missing_image_is_still_refused(env):
    if env.backend != "embedded":
        pytest.skip("single generation does not touch the batch back-end")
    with env.client() as client:
        design_id = design(client)
        before = credits(client)
        response = client.post(f"/designs/{design_id}/generate", json={"data": {"photo": MISSING}})
        message = client.error(response, 400, "VALIDATION_ERROR")
        assert "variable 'photo'" in message and MISSING in message and credits(client) == before


def test_a_batch_that_credits_cannot_cover_is_refused_whole(env):
    with env.client("tiny") as client:
        design_id = design(client)
        message = client.error(
            client.post(f"/designs/{design_id}/batch", json={"rows": rows(5)}), 402, "INSUFFICIENT_CREDITS"
        )
        assert "needs 5 credits" in message and credits(client) == 3


@pytest.mark.parametrize(
    "body,fragment",
    [
        ({"rows": []}, "rows"),
        ({"rows": rows(101)}, "rows"),
        ({}, "rows"),
        ({"rows": [{"nobody": "x"}]}, "rows[0]: variable 'nobody'"),
        ({"rows": [{"name": "ok"}, {"code": 5}]}, "rows[1]: variable 'code'"),
        ({"rows": [{"name": "ok"}, {"photo": "photo.png"}]}, "rows[1]: variable 'photo'"),
        ({"rows": [{"photo": 42}]}, "rows[0]: variable 'photo'"),
        ({"rows": [{"photo": "uploads:"}]}, "rows[0]: variable 'photo'"),
        ({"rows": [{}], "pdfProfile": "glossy"}, "pdfProfile"),
    ],
)
def test_bad_batches_are_refused_and_cost_nothing(env, body, fragment):
    with env.client() as client:
        design_id = design(client)
        before = credits(client)
        assert fragment in client.error(client.post(f"/designs/{design_id}/batch", json=body), 400, "VALIDATION_ERROR")
        assert credits(client) == before


def test_batches_need_the_batch_plan_feature(env):
    with env.client("starter") as client:
        design_id = design(client)
        for response in (
            client.post(f"/designs/{design_id}/batch", json={"rows": rows(1)}),
            client.get("/batches/job_x"),
            client.get("/batches/job_x/download"),
        ):
            assert "batchGenerate" in client.error(response, 403, "INSUFFICIENT_PERMISSIONS")


def test_jobs_are_private_to_their_workspace(env):
    with env.client() as client, env.client("other") as other:
        job_id = client.data(client.post(f"/designs/{design(client)}/batch", json={"rows": rows(1)}), 202)["jobId"]
        other.error(other.get(f"/batches/{job_id}"), 404, "JOB_NOT_FOUND")
        other.error(other.get(f"/batches/{job_id}/download"), 404, "JOB_NOT_FOUND")
        other.error(other.post(f"/designs/{design(client)}/batch", json={"rows": rows(1)}), 404, "DESIGN_NOT_FOUND")
        wait_for_end(client, job_id)


def submit_and_wait_for(client, design_id: str, count: int, done: int) -> str:
    """Submit `count` rows and return once at least `done` of them have finished."""
    job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": rows(count)}), 202)["jobId"]
    wait_until(
        lambda: client.data(client.get(f"/batches/{job_id}"), 200)["completed"] >= done,
        timeout=60,
        interval=0.02,
        what=f"{done} rows of the batch",
    )
    return job_id


def test_a_web_restart_mid_job_loses_nothing(env):
    with env.client() as client:
        design_id = design(client)
        before = credits(client)
        job_id = submit_and_wait_for(client, design_id, 60, 3)
    env.server.kill()
    env.server.start()
    with env.client() as client:
        job = wait_for_end(client, job_id)
        assert (job["status"], job["completed"], job["failed"]) == ("completed", 60, 0)
        assert len(zip_of(client, job_id).namelist()) == 60
        assert credits(client) == before - 60


def test_a_killed_worker_does_not_leave_the_job_processing(env):
    if env.backend != "rq":
        pytest.skip("worker processes are the RQ back-end's")
    with env.client() as client:
        design_id = design(client)
        before = credits(client)
        job_id = submit_and_wait_for(client, design_id, 80, 8)
        victim = env.workers.pop(0)
        victim.kill()  # SIGKILL mid-job: its chunk's lease lapses and the chunk runs again
        started = time.monotonic()
        job = wait_for_end(client, job_id, timeout=60)
        assert (job["status"], job["completed"], job["failed"]) == ("completed", 80, 0)
        assert time.monotonic() - started < 40
        assert credits(client) == before - 80
    env.workers.append(Worker(env.redis.url, env.data_dir))


def pro_workspace(tmp_path_factory, name: str):
    """A fresh data dir with one pro workspace of 50 credits, for tests that run their own Redis."""
    from api.service import Service, Settings

    data_dir = tmp_path_factory.mktemp(name)
    service = Service(Settings(data_dir=data_dir))
    key = service.accounts.create_workspace("w", "pro", 50)[1]
    service.close()
    return data_dir, key


def test_redis_unreachable_at_submit_is_503_and_charges_nothing(tmp_path_factory):
    data_dir, key = pro_workspace(tmp_path_factory, "batch-down")
    redis = RedisServer(data_dir)
    server = Server(data_dir, args=("--redis-url", redis.url)).start()
    try:
        with server.client(key) as client:
            design_id = design(client)
            redis.stop()
            message = client.error(
                client.post(f"/designs/{design_id}/batch", json={"rows": rows(3)}), 503, "SERVICE_UNAVAILABLE"
            )
            assert "Redis" in message and credits(client) == 50
    finally:
        server.stop()


def test_concurrent_batches_settle_exactly(env):
    with env.client() as client:
        design_id = design(client)
        before = credits(client)
    jobs: list[str] = []

    def submit() -> None:
        with env.client() as client:
            jobs.append(client.data(client.post(f"/designs/{design_id}/batch", json={"rows": rows(7)}), 202)["jobId"])

    threads = [threading.Thread(target=submit) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with env.client() as client:
        for job_id in jobs:
            assert wait_for_end(client, job_id)["completed"] == 7
        assert credits(client) == before - 28


def test_the_cli_runs_a_batch_from_a_csv_with_a_progress_bar(env, tmp_path):
    import subprocess
    import sys

    from ..server import ROOT

    if env.backend != "embedded":
        pytest.skip("the CLI talks to the API the same way on either back-end")
    with env.client() as client:
        design_id = design(client)
    rows_file = tmp_path / "rows.csv"
    rows_file.write_text("name,code\n" + "".join(f"Person {i},ROW-{i}\n" for i in range(15)))
    out = tmp_path / "out.zip"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench.cli",
            "batch",
            design_id,
            str(rows_file),
            "--url",
            env.server.url,
            "--key",
            env.keys["pro"],
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "15 rows queued" in result.stderr and "[" + "#" * 30 + "]" in result.stderr
    assert "15 PDFs, 0 failed" in result.stderr
    assert len(zipfile.ZipFile(out).namelist()) == 15


def test_the_cli_names_each_failed_row_and_can_leave_a_job_to_run(env, tmp_path):
    import subprocess
    import sys

    from ..server import ROOT

    if env.backend != "embedded":
        pytest.skip("the CLI talks to the API the same way on either back-end")
    with env.client() as client:
        design_id = design(client)
        good = client.data(client.post("/uploads", files={"file": ("a.png", png(), "image/png")}), 201)["ref"]
    rows_file = tmp_path / "rows.json"
    batch = [dict(r, photo=ref) for r, ref in zip(rows(3), [good, MISSING, good], strict=True)]
    rows_file.write_text(json.dumps(batch))
    command = [sys.executable, "-m", "workbench.cli", "batch", design_id, str(rows_file), "--url", env.server.url]
    command += ["--key", env.keys["pro"], "--out", str(tmp_path / "out.zip")]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "2 PDFs, 1 failed" in result.stderr
    assert "row 2: variable 'photo'" in result.stderr and MISSING in result.stderr  # why, without opening the ZIP
    left = subprocess.run([*command, "--no-wait"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    job_id = left.stdout.strip()
    assert left.returncode == 0 and job_id.startswith("job_") and "PDFs" not in left.stderr
    with env.client() as client:
        assert wait_for_end(client, job_id)["failed"] == 1


def test_the_cli_explains_a_refused_batch(env, tmp_path):
    import subprocess
    import sys

    from ..server import ROOT

    if env.backend != "embedded":
        pytest.skip("the CLI talks to the API the same way on either back-end")
    rows_file = tmp_path / "rows.json"
    rows_file.write_text(json.dumps([{"name": "x"}]))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench.cli",
            "batch",
            "dsg_missing",
            str(rows_file),
            "--url",
            env.server.url,
            "--key",
            env.keys["pro"],
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 2 and "404 DESIGN_NOT_FOUND" in result.stderr and "Traceback" not in result.stderr


def test_a_batch_profile_applies_to_every_row(env):
    import pikepdf

    with env.client() as client:
        design_id = design(client)
        body = {"rows": rows(3), "pdfProfile": "pdf-a"}
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
        wait_for_end(client, job_id)
        archive = zip_of(client, job_id)
        for name in archive.namelist():
            with pikepdf.open(io.BytesIO(archive.read(name))) as pdf:
                assert "/OutputIntents" in pdf.Root and "/StructTreeRoot" in pdf.Root


def test_a_job_redis_lost_is_queued_again(tmp_path_factory):
    data_dir, key = pro_workspace(tmp_path_factory, "batch-lost")
    redis = RedisServer(data_dir)
    port = redis.port
    server = Server(data_dir, args=("--redis-url", redis.url)).start()
    worker = None
    try:
        with server.client(key) as client:
            design_id = design(client)
            job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": rows(5)}), 202)["jobId"]
            redis.stop()  # no worker ran yet; the new Redis knows nothing of the job
            redis = RedisServer(data_dir, port=port)
            worker = Worker(redis.url, data_dir)
            job = wait_for_end(client, job_id, timeout=60)
            assert (job["status"], job["completed"]) == ("completed", 5) and credits(client) == 45
    finally:
        if worker:
            worker.stop()
        server.stop()
        redis.stop()


def test_a_chunk_taken_off_the_queue_by_a_worker_killed_before_it_started_runs_again(tmp_path_factory):
    """RQ pops a job from its queue and only then marks it started: a worker killed in
    between leaves the job "queued" in no queue (seen in a full run). No worker runs here until the
    job id is gone from the queue, as such a worker leaves it."""
    from redis import Redis
    from rq import Queue

    from api.jobs.redis_backend import QUEUE, chunks

    data_dir, key = pro_workspace(tmp_path_factory, "batch-orphan")
    redis = RedisServer(data_dir)
    server = Server(data_dir, args=("--redis-url", redis.url)).start()
    worker = None
    try:
        with server.client(key) as client:
            design_id = design(client)
            job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": rows(25)}), 202)["jobId"]
            queue = Queue(QUEUE, connection=Redis.from_url(redis.url))
            wait_until(lambda: len(queue.job_ids) == len(chunks(25)), what="every chunk queued")
            orphan = queue.job_ids[0]
            queue.remove(orphan)  # taken by a worker that died before it said so
            assert queue.fetch_job(orphan).get_status() == "queued" and orphan not in queue.job_ids
            worker = Worker(redis.url, data_dir)
            job = wait_for_end(client, job_id, timeout=60)
            assert (job["status"], job["completed"], job["failed"]) == ("completed", 25, 0)
            assert len(zip_of(client, job_id).namelist()) == 25
    finally:
        if worker:
            worker.stop()
        server.stop()
        redis.stop()


# extensions.md 12: pictures of each row, and one merged PDF of the rows


def merged_pdf_of(client, job_id: str) -> bytes:
    url = client.data(client.get(f"/batches/{job_id}/download", params={"merged": "true"}), 200)["downloadUrl"]
    response = httpx.get(url)
    assert response.status_code == 200 and response.headers["Content-Type"] == "application/pdf"
    return response.content


def test_a_merged_batch_is_one_pdf_of_its_successful_rows_in_order_with_an_outline(env):
    with env.client() as client:
        design_id = design(client)
        client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": TABLE}), 200)
        before = credits(client)
        # Row 3 fails (an image not in the workspace); row 2's long table takes two pages.
        batch = [dict(r, items=ITEMS[:2]) for r in rows(4)]
        batch[1]["items"] = ITEMS
        batch[2]["photo"] = MISSING
        body = {"rows": batch, "merge": True}
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
        job = wait_for_end(client, job_id)
        assert (job["completed"], job["failed"]) == (3, 1)
        assert credits(client) == before - 3  # the merged PDF costs nothing more
        archive = zip_of(client, job_id)
        pages = [page_count(archive.read(f"row-{i:04d}.pdf")) for i in (1, 2, 4)]
        assert pages[1] > 1
        merged = merged_pdf_of(client, job_id)
        assert page_count(merged) == sum(pages)
        assert outline(merged) == [("row-0001.pdf", 0), ("row-0002.pdf", 1), ("row-0004.pdf", 1 + pages[1])]
        texts = pdf_text(merged)
        assert "Person 0" in texts[0] and "Person 1" in texts[1] and "Person 3" in texts[-1]
        assert not any("Person 2" in text for text in texts)


def test_merged_download_is_refused_before_the_end_without_merge_and_to_another_workspace(env):
    with env.client() as client, env.client("other") as other:
        design_id = design(client)
        # Slow rows (a long QR code each), so the job is still running when asked at once.
        slow_rows = [{**row, "code": f"{row['code']}-" + "x" * 1200} for row in rows(40)]
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": slow_rows, "merge": True}), 202)[
            "jobId"
        ]
        message = client.error(client.get(f"/batches/{job_id}/download?merged=true"), 409, "JOB_NOT_COMPLETED")
        assert "poll GET /batches/:jobId" in message
        other.error(other.get(f"/batches/{job_id}/download?merged=true"), 404, "JOB_NOT_FOUND")
        wait_for_end(client, job_id, timeout=120)
        assert page_count(merged_pdf_of(client, job_id)) == 40
        other.error(other.get(f"/batches/{job_id}/download?merged=true"), 404, "JOB_NOT_FOUND")
        plain = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": rows(2)}), 202)["jobId"]
        wait_for_end(client, plain)
        message = client.error(client.get(f"/batches/{plain}/download?merged=true"), 404, "NOT_FOUND")
        assert "without merge: true" in message
        assert zip_of(client, plain).namelist() == ["row-0001.pdf", "row-0002.pdf"]  # the ZIP as ever


def test_a_merged_batch_whose_every_row_failed_says_why_there_is_no_merged_pdf(env):
    with env.client() as client:
        design_id = design(client)
        body = {"rows": rows(2, photo=MISSING), "merge": True}
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
        assert wait_for_end(client, job_id)["status"] == "failed"
        message = client.error(client.get(f"/batches/{job_id}/download?merged=true"), 404, "NOT_FOUND")
        assert "no row succeeded" in message


def test_merge_is_refused_with_pictures_encryption_or_signing(env):
    with env.client() as client:
        design_id = design(client)
        before = credits(client)
        for extra, named in [
            ({"output": {"format": "png"}}, 'format "png"'),
            ({"encryption": {"ownerPassword": "o" * 12}}, "encryption"),
        ]:
            body = {"rows": rows(2), "merge": True, **extra}
            message = client.error(client.post(f"/designs/{design_id}/batch", json=body), 400, "VALIDATION_ERROR")
            assert message.startswith("merge: ") and named in message, message
        assert credits(client) == before


def test_a_picture_batch_has_a_picture_per_row_or_a_folder_for_a_row_of_several_pages(env):
    with env.client() as client:
        design_id = design(client)
        client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": TABLE}), 200)
        before = credits(client)
        batch = [dict(r, items=ITEMS[:2]) for r in rows(3)]
        batch[1]["items"] = ITEMS  # several pages: a folder of pictures
        batch[2]["photo"] = MISSING
        body = {"rows": batch, "output": {"format": "png", "dpi": 72}}
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
        wait_for_end(client, job_id)
        assert credits(client) == before - 2
        archive = zip_of(client, job_id)
        names = sorted(archive.namelist())
        folder = [name for name in names if name.startswith("row-0002/")]
        assert len(folder) > 1 and folder == [f"row-0002/page-{i:03d}.png" for i in range(1, len(folder) + 1)]
        assert names == ["errors.json", "row-0001.png", *folder]
        picture = Image.open(io.BytesIO(archive.read("row-0001.png")))
        assert picture.format == "PNG" and abs(picture.width - 595) <= 1 and abs(picture.height - 842) <= 1
        [error] = json.loads(archive.read("errors.json"))["failed"]
        assert error["file"] == "row-0003.png"
        listed = client.data(client.get(f"/batches/{job_id}/rows"), 200)["items"]
        assert [row["filename"] for row in listed] == ["row-0001.png", "row-0002/", "row-0003.png"]


def test_a_picture_batch_refuses_pdf_only_options(env):
    with env.client() as client:
        design_id = design(client)
        body = {"rows": rows(2), "output": {"format": "jpeg"}, "pdfProfile": "pdf-a"}
        message = client.error(client.post(f"/designs/{design_id}/batch", json=body), 400, "VALIDATION_ERROR")
        assert 'pdfProfile "pdf-a"' in message and 'format "pdf"' in message


TABLE = [
    {
        "type": "add_element",
        "args": {
            "type": "table",
            "name": "items",
            "position": {"x": 40, "y": 200},
            "data": {"cells": [["Item", "Qty"], ["a", "1"]], "width": 300},
        },
    },
    {"type": "bind_variable", "args": {"name": "items"}},
]
ITEMS = [["Item", "Qty"], *[[f"line {i}", str(i)] for i in range(80)]]
