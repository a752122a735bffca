"""The REST client's retries (workbench/client/api.py): an Idempotency-Key on every write, the same on
each attempt, so a generate whose answer was lost is replayed by the server and charged once;
429 waits for Retry-After; 5xx and lost connections back off exponentially, a bounded number of times.

Between the client and a real server sits a small forwarding proxy on loopback (`FaultyProxy`) that
loses answers, drops connections or answers 429 on cue, as a flaky network or a busy server would.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from api.errors import ApiError
from workbench.client.api import RestClient

from ...conftest import add

FORWARD = "forward"
LOST = "lost"  # forwarded (it runs), but the answer is replaced by a 502 as a failing gateway would
DROPPED = "dropped"  # forwarded (it runs), then the connection is closed without an answer
BUSY = "busy"  # not forwarded: 429 with Retry-After: 3


class FaultyProxy:
    def __init__(self, target: str):
        self.target = target
        self.faults: list[str] = []  # applied to the next requests in order, then FORWARD
        self.seen: list[tuple[str, str, str | None]] = []  # method, path, Idempotency-Key
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                proxy.seen.append((self.command, self.path, self.headers.get("Idempotency-Key")))
                fault = proxy.faults.pop(0) if proxy.faults else FORWARD
                if fault == BUSY:
                    return self._answer(429, {"Retry-After": "3"}, b'{"status":"error"}')
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                answer = httpx.request(
                    self.command, proxy.target + self.path, headers=headers, content=body, timeout=60
                )
                if fault == DROPPED:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return None
                if fault == LOST:
                    return self._answer(502, {}, b"bad gateway")
                kept = {k: v for k, v in answer.headers.items() if k.lower() in ("content-type", "idempotent-replayed")}
                return self._answer(answer.status_code, kept, answer.content)

            def _answer(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def proxy(api_server) -> Iterator[FaultyProxy]:
    proxy = FaultyProxy(api_server.url)
    yield proxy
    proxy.stop()


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def client(proxy, api_server, waits) -> RestClient:
    client = RestClient(proxy.url, api_server.workspaces["analyst"][1], backoff=0.5)
    client.sleep = waits.append  # the waits are what is checked here; nobody needs to sit through them
    return client


def credits(client: RestClient) -> int:
    return client.call("me")["credits"]


def ready_design(client: RestClient) -> str:
    design_id = client.call("create_design", body={"name": "Retried"})["designId"]
    actions = [add("text", "Title", {"x": 40, "y": 40}, {"content": "Hello"})]
    client.call("patch_design_tree", {"designId": design_id}, body={"actions": actions})
    return design_id


@pytest.mark.parametrize("fault", [LOST, DROPPED])
def test_a_generate_whose_answer_is_lost_is_retried_with_its_key_and_charged_once(client, proxy, fault):
    design_id = ready_design(client)
    before = credits(client)
    proxy.seen.clear()
    proxy.faults = [fault]
    generated = client.call("generate_pdf", {"designId": design_id}, body={})
    (first, second) = proxy.seen
    assert first == second and first[0] == "POST" and first[2]  # the same request, the same key
    assert credits(client) == before - 1  # the retry was the server's replay, not a second render
    assert client.fetch(generated["downloadUrl"]).startswith(b"%PDF-")


def test_each_call_has_a_key_of_its_own_and_reads_have_none(client, proxy):
    client.call("create_design", body={"name": "One"})
    client.call("create_design", body={"name": "Two"})
    client.call("me")
    (one, two, me) = proxy.seen
    assert one[2] and two[2] and one[2] != two[2] and me[2] is None


def test_429_is_retried_after_its_retry_after(client, proxy, waits):
    proxy.faults = [BUSY, BUSY]
    assert credits(client) >= 0
    assert waits == [3.0, 3.0] and len(proxy.seen) == 3


def test_retries_back_off_exponentially_and_stop(client, proxy, waits):
    proxy.faults = [LOST] * 10
    with pytest.raises(ApiError) as failed:
        client.call("me")
    assert failed.value.code == "INTERNAL_ERROR" and "502" in failed.value.message
    assert len(proxy.seen) == 4 and len(waits) == 3  # three retries after the first attempt
    for attempt, wait in enumerate(waits):
        assert 0.5 * 2**attempt * 0.5 <= wait <= 0.5 * 2**attempt  # jittered below each doubling


def test_a_delete_is_not_retried_after_a_lost_answer(client, proxy, waits):
    design_id = client.call("create_design", body={"name": "Deleted once"})["designId"]
    proxy.seen.clear()
    proxy.faults = [LOST]
    with pytest.raises(ApiError):
        client.call("delete_design", {"designId": design_id})
    assert len(proxy.seen) == 1 and waits == []
