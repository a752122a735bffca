"""https:// image sources in tree patches, over real HTTP to a real server fetching from a real HTTPS server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest

from ..conftest import add, png
from ..https_images import make_certificate, serve_https
from ..server import Server, wait_until

PNG = png((10, 120, 200, 255), size=(12, 9))
TEXT = add("text", "title", {"x": 40, "y": 40}, {"content": "Hello"})


class ImageHost:
    """Serves /logo.png at once and /gated.png only once the test opens the gate."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.gated_requests = 0

    def handler(self) -> type[BaseHTTPRequestHandler]:
        host = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/gated.png":
                    host.gated_requests += 1
                    host.gate.wait(30)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(PNG)))
                self.end_headers()
                self.wfile.write(PNG)

        return Handler


@pytest.fixture(scope="module")
def image_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ImageHost, str, Path]]:
    cert, key = make_certificate(tmp_path_factory.mktemp("tls"))
    host = ImageHost()
    with serve_https(host.handler(), cert, key) as httpd:
        yield host, f"https://127.0.0.1:{httpd.server_address[1]}", cert
        host.gate.set()  # a handler still waiting must not outlive the test


@pytest.fixture(scope="module")
def fetching_server(
    image_host: tuple[ImageHost, str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, str]]:
    """A server that may fetch from loopback, trusting the test certificate."""
    cert = image_host[2]
    env = {"DOCBENCH_FETCH_ALLOW_PRIVATE": "1", "DOCBENCH_FETCH_CAFILE": str(cert)}
    server = Server(tmp_path_factory.mktemp("fetch-data"), env=env).start()
    try:
        yield server, server.read_key()
    finally:
        server.stop()


def _create(client: httpx.Client) -> str:
    return client.data(client.post("/designs", json={"name": "fetching"}), 201)["designId"]


def test_an_https_source_becomes_an_upload(image_host, fetching_server) -> None:
    _, base, _ = image_host
    server, key = fetching_server
    with server.client(key) as client:
        design_id = _create(client)
        image = add("image", "logo", {"x": 0, "y": 0, "w": 40, "h": 30}, {"src": f"{base}/logo.png"})
        node_id = client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": [image]}), 200)["results"][
            0
        ]["data"]["id"]
        src = client.get(f"/designs/{design_id}/tree").json()["nodes"][node_id]["data"]["src"]
        assert src.startswith("uploads:upl_")


def test_a_refused_batch_with_a_fetched_image_saves_no_upload(image_host, fetching_server) -> None:
    _, base, _ = image_host
    server, key = fetching_server
    blobs = server.data_dir / "blobs"
    with server.client(key) as client:
        design_id = _create(client)
        before_tree = client.get(f"/designs/{design_id}/tree").text
        before_blobs = sorted(p.name for p in blobs.rglob("*.*"))
        image = add("image", "logo", {"x": 0, "y": 0, "w": 40, "h": 30}, {"src": f"{base}/logo.png?refused"})
        refused = {"type": "remove_page", "args": {"page": 0}}
        response = client.patch(f"/designs/{design_id}/tree", json={"actions": [image, refused]})
        assert "actions[1] (remove_page)" in client.error(response, 400, "VALIDATION_ERROR")
        assert client.get(f"/designs/{design_id}/tree").text == before_tree
        assert sorted(p.name for p in blobs.rglob("*.*")) == before_blobs


def test_a_patch_fetching_an_image_does_not_hold_up_other_patches_of_the_design(image_host, fetching_server) -> None:
    """The fetch happens before the design's lock: a patch without URLs goes through meanwhile."""
    host, base, _ = image_host
    server, key = fetching_server
    with server.client(key) as client:
        design_id = _create(client)
    host.gate.clear()
    slow_answer: list[httpx.Response] = []
    image = add("image", "logo", {"x": 0, "y": 0, "w": 40, "h": 30}, {"src": f"{base}/gated.png"})

    def slow_patch() -> None:
        with server.client(key) as slow_client:
            slow_answer.append(slow_client.patch(f"/designs/{design_id}/tree", json={"actions": [image]}))

    requests_before = host.gated_requests
    slow = threading.Thread(target=slow_patch)
    slow.start()
    try:
        wait_until(lambda: host.gated_requests > requests_before, timeout=10, what="the server to start fetching")
        # Under 10 s: the server's fetch deadline, after which the first patch would let go anyway.
        with server.client(key) as client:
            client.timeout = httpx.Timeout(7.0)
            fast = client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": [TEXT]}), 200)
        assert fast["results"][0]["data"]["name"] == "title"
        assert slow.is_alive() and not slow_answer  # the first patch is still waiting for its image
    finally:
        host.gate.set()
        slow.join(30)
    assert slow_answer and slow_answer[0].status_code == 200, slow_answer and slow_answer[0].text
    with server.client(key) as client:
        names = {node["name"] for node in client.get(f"/designs/{design_id}/tree").json()["nodes"].values()}
    assert names == {"title", "logo"}  # neither patch was lost
