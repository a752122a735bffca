"""Batches through the REST API of a test server: a design, rows, following a job to its end, its ZIP."""

from __future__ import annotations

import io
import zipfile

import httpx

from tests.server import wait_until

DESIGN = [
    {
        "type": "add_element",
        "args": {"type": "text", "name": "name", "position": {"x": 40, "y": 40}, "data": {"content": "Sample"}},
    },
    {
        "type": "add_element",
        "args": {"type": "qr", "name": "code", "position": {"x": 40, "y": 100, "size": 80}, "data": {"content": "x"}},
    },
    {
        "type": "add_element",
        "args": {"type": "image", "name": "photo", "position": {"x": 300, "y": 40, "w": 50, "h": 50}},
    },
    *[{"type": "bind_variable", "args": {"name": n}} for n in ("name", "code", "photo")],
]


def design(client) -> str:
    design_id = client.data(client.post("/designs", json={"name": "Badge"}), 201)["designId"]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": DESIGN}), 200)
    return design_id


def rows(count: int, **extra) -> list[dict]:
    return [{"name": f"Person {i}", "code": f"ROW-{i}", **extra} for i in range(count)]


def wait_for_end(client, job_id: str, timeout: float = 90) -> dict:
    def ended():
        job = client.data(client.get(f"/batches/{job_id}"), 200)
        return job if job["status"] in ("completed", "failed") else None

    return wait_until(ended, timeout=timeout, interval=0.1, what=f"batch {job_id} to end")


def zip_of(client, job_id: str) -> zipfile.ZipFile:
    url = client.data(client.get(f"/batches/{job_id}/download"), 200)["downloadUrl"]
    response = httpx.get(url)
    assert response.status_code == 200 and response.headers["Content-Type"] == "application/zip"
    return zipfile.ZipFile(io.BytesIO(response.content))


MISSING = "uploads:upl_nowhere"  # well formed, but in no workspace
