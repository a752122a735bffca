"""A real `docbench serve` process on a free loopback port with its own data dir."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout: float = 20.0, interval: float = 0.05, what: str = "condition"):
    """Poll until predicate() is truthy; no sleeping as synchronisation."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout}s waiting for {what}")


def docbench(*args: str, data_dir: Path, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "workbench.cli", *args, "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=check,
        timeout=60,
    )


class Server:
    def __init__(self, data_dir: Path, env: dict[str, str] | None = None, args: tuple[str, ...] = ()):
        self.data_dir = data_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.api = f"{self.url}/api/v1"
        self.env = {**os.environ, **(env or {})}
        self.args = list(args)
        self.process: subprocess.Popen | None = None
        # Output goes to a file: a pipe nobody drains fills up and blocks the server.
        self.log_path = data_dir / f"server-{self.port}.log"
        self._log_offset = 0

    def start(self) -> Server:
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        command = [sys.executable, "-m", "workbench.cli", "serve", "--port", str(self.port), *self.args]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [*command, "--data-dir", str(self.data_dir)], cwd=ROOT, env=self.env, stdout=log, stderr=log
            )
        # A start takes seconds, but a minute on a machine whose cores are shared with other test runs.
        try:
            wait_until(self._ready, timeout=60, what=f"docbench serve on port {self.port}")
        except TimeoutError:
            self.kill()  # not left running for nobody
            raise
        return self

    def _ready(self) -> bool:
        if self.process and self.process.poll() is not None:
            raise RuntimeError(f"server exited with {self.process.returncode}: {self.output()}")
        try:
            return httpx.get(f"{self.api}/health", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def output(self) -> str:
        """What this run of the server has printed so far."""
        with open(self.log_path, "rb") as log:
            log.seek(self._log_offset)
            return log.read().decode(errors="replace")

    def read_key(self) -> str:
        """The default workspace's key, printed once on first start."""
        printed = wait_until(
            lambda: (lambda out: out if "dbk_live_" in out or "API keys were shown" in out else "")(self.output()),
            what="the first-start message",
        )
        match = re.search(r"(dbk_live_\S+)", printed)
        if not match:
            raise AssertionError("no key was printed: " + printed)
        return match.group(1)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def client(self, key: str | None) -> Client:
        return Client(self.api, key)


class Client(httpx.Client):
    """An API client: the key header set, JSON helpers that keep the raw response."""

    def __init__(self, base: str, key: str | None):
        headers = {"X-API-Key": key} if key else {}
        super().__init__(base_url=base, headers=headers, timeout=60)

    def data(self, response: httpx.Response, status: int) -> Any:
        assert response.status_code == status, (response.status_code, response.text)
        body = response.json()
        assert body["status"] == "success" and body["error"] is None, body
        return body["data"]

    def ended_batch(self, job_id: str, timeout: float = 120, what: str = "the batch to end") -> dict:
        """The batch job as GET /batches/:jobId answers once it has ended, polled with a deadline."""

        def ended() -> dict | None:
            job = self.data(self.get(f"/batches/{job_id}"), 200)
            return job if job["status"] in ("completed", "failed") else None

        return wait_until(ended, timeout=timeout, interval=0.1, what=what)

    def error(self, response: httpx.Response, status: int, code: str) -> str:
        assert response.status_code == status, (response.status_code, response.text)
        body = response.json()
        assert body == {"status": "error", "data": None, "error": {"code": code, "message": body["error"]["message"]}}
        assert "Traceback" not in response.text
        return body["error"]["message"]


def create_workspace(data_dir: Path, name: str, plan: str = "pro", credits: int = 100) -> tuple[str, str]:
    out = json.loads(
        docbench("workspace", "create", name, "--plan", plan, "--credits", str(credits), data_dir=data_dir).stdout
    )
    return out["workspaceId"], out["apiKey"]


class RedisServer:
    """A real redis-server on a free loopback port, no persistence, for one test session."""

    def __init__(self, directory: Path, port: int | None = None):
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(directory),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

        def ready() -> bool:
            import redis

            try:
                return redis.Redis.from_url(self.url).ping()
            except redis.RedisError:
                return False

        wait_until(ready, what="redis-server")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


class Worker:
    """A real `docbench worker` process."""

    def __init__(self, redis_url: str, data_dir: Path, blob_url: str | None = None):
        """With `blob_url` the worker gets only the bucket (no --data-dir); `data_dir` then holds its log."""
        self.log_path = data_dir / f"worker-{free_port()}.log"
        where = ["--blob-url", blob_url] if blob_url else ["--data-dir", str(data_dir)]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "workbench.cli",
                    "worker",
                    "--redis-url",
                    redis_url,
                    *where,
                ],
                cwd=ROOT,
                stdout=log,
                stderr=log,
            )

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


class MotoS3Server:
    """moto's standalone S3 server in a process of its own, on a free loopback port, over real HTTP.

    `env` holds the standard AWS variables that point boto3 (ours and any child process's) at it.
    """

    def __init__(self, directory: Path):
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.env = {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_REGION": "us-east-1",
        }
        self.log_path = directory / f"moto-{self.port}.log"
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                stdout=log,
                stderr=log,
            )

        def ready() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(f"moto server exited with {self.process.returncode}: {self.log_path.read_text()}")
            try:
                return httpx.get(f"{self.endpoint}/moto-api/", timeout=1).status_code < 500
            except httpx.HTTPError:
                return False

        wait_until(ready, timeout=60, what="moto's S3 server")

    def client(self):  # noqa: ANN201
        import boto3

        return boto3.session.Session().client(
            "s3",
            endpoint_url=self.endpoint,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def create_bucket(self, name: str) -> str:
        self.client().create_bucket(Bucket=name)
        return name

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextmanager
def servers_on_one_database(database_url: str, data_dir: Path, count: int = 2) -> Iterator[tuple[list[Server], str]]:
    """`count` `docbench serve` processes on one PostgreSQL database and one data dir (its blobs
    and URL secret), with the key of a `shared` pro workspace holding 10 credits."""
    from api.service import Service, Settings

    service = Service(Settings(data_dir=data_dir, database_url=database_url, render_processes=1))
    try:
        _, key = service.accounts.create_workspace("shared", "pro", 10)
    finally:
        service.close()
    servers = [Server(data_dir, args=("--database-url", database_url, "--render-processes", "1")) for _ in range(count)]
    try:
        for server in servers:
            server.start()
        yield servers, key
    finally:
        for server in servers:
            server.stop()
