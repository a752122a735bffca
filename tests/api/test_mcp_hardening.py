"""MCP hardening (issue 12, item 4), over raw HTTP to a real server: wrongly shaped messages
are JSON-RPC errors with a reason, never a 500; a session is its workspace's own and ends
when idle (404, so the client initialises again); `/mcp` refuses other sites' Origin."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import time

import httpx
import pytest

from api.mcp import Sessions
from api.service import Settings
from api.store import open_store
from tests.mcp_calls import ACCEPT, INITIALIZE, open_session, post

from ..conftest import png, store_database_url
from ..server import Server

IDLE_SECONDS = 2  # the short idle period of the `short_idle` server
BASE_URL = "https://docs.example.test"
# The sessions live in the store (api/mcp/sessions.py): these tests run on DuckDB and PostgreSQL.
RUN_ON_BOTH_STORES = True


def ping(url: str, key: str, session: str) -> httpx.Response:
    return post(url, key, {"jsonrpc": "2.0", "id": 7, "method": "ping"}, session)


def delete(url: str, key: str, session: str) -> httpx.Response:
    headers = {"X-API-Key": key, "Mcp-Session-Id": session}
    return httpx.delete(f"{url}/mcp", headers=headers, timeout=60)


def rpc_error(response: httpx.Response, status: int, code: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["error"]["code"] == code and "result" not in body, body
    return body["error"]["message"]


@pytest.fixture
def alpha_key(api_server):
    return api_server.workspaces["alpha"][1]


@pytest.fixture(scope="module")
def short_idle(request, tmp_path_factory, store):
    """A server of its own: sessions idle out after IDLE_SECONDS, and it has a public --base-url."""
    database_url = store_database_url(request, store)
    server = Server(
        tmp_path_factory.mktemp("mcp-short-idle"),
        env={"DOCBENCH_MCP_SESSION_IDLE": str(IDLE_SECONDS), "DOCBENCH_DATABASE_URL": database_url or ""},
        args=("--base-url", BASE_URL),
    ).start()
    server.key = server.read_key()
    yield server
    server.stop()


IMAGE = base64.b64encode(png(colour=(12, 34, 56, 255), size=(9, 7))).decode()


def call(tool: str, **arguments) -> dict:
    return {"name": tool, "arguments": arguments}


# (what is wrong, method, params, a word the reason must name)
BAD_PARAMS = [
    ("params a list", "tools/list", [], "params"),
    ("params a string", "tools/list", "all", "params"),
    ("params a number", "ping", 5, "params"),
    ("params a boolean", "resources/list", True, "params"),
    ("initialize's params a list", "initialize", [INITIALIZE], "params"),
    ("initialize's protocolVersion a number", "initialize", {**INITIALIZE, "protocolVersion": 20250618}, "protocol"),
    ("initialize's capabilities a list", "initialize", {**INITIALIZE, "capabilities": []}, "capabilities"),
    ("initialize's clientInfo a string", "initialize", {**INITIALIZE, "clientInfo": "me"}, "clientInfo"),
    ("tools/list's cursor a number", "tools/list", {"cursor": 3}, "cursor"),
    ("_meta a string", "tools/list", {"_meta": "x"}, "_meta"),
    ("the tool name a list", "tools/call", {"name": ["me"], "arguments": {}}, "name"),
    ("the tool name a number", "tools/call", {"name": 12, "arguments": {}}, "name"),
    ("the tool name null", "tools/call", {"name": None, "arguments": {}}, "name"),
    ("the tool name missing", "tools/call", {"arguments": {}}, "name"),
    ("an unknown tool", "tools/call", {"name": "drop_everything", "arguments": {}}, "tools/list"),
    ("arguments a list", "tools/call", {"name": "me", "arguments": []}, "arguments"),
    ("arguments a string", "tools/call", {"name": "list_designs", "arguments": "limit=5"}, "arguments"),
    ("a number as a design's name", "tools/call", call("create_design", name=5), "name"),
    ("an object as a designId", "tools/call", call("get_design", designId={}), "designId"),
    ("a string as a limit", "tools/call", call("list_designs", limit="10"), "limit"),
    ("a list as generate's data", "tools/call", call("generate_pdf", designId="dsg_x", data=[]), "data"),
    ("a number as the file", "tools/call", call("upload_image", file=1234), "file"),
    ("a number as upload_image's filename", "tools/call", call("upload_image", file=IMAGE, filename=5), "filename"),
    ("a list as upload_image's name", "tools/call", call("upload_image", file=IMAGE, name=["a"]), "name"),
    ("a resource uri a number", "resources/read", {"uri": 5}, "uri"),
    ("a resource uri missing", "resources/read", {}, "uri"),
    ("a prompt name a list", "prompts/get", {"name": ["make_certificate"]}, "name"),
    ("prompt arguments a list", "prompts/get", {"name": "make_certificate", "arguments": ["Ada"]}, "arguments"),
]


@pytest.mark.parametrize("case,method,params,named", BAD_PARAMS, ids=[case[0] for case in BAD_PARAMS])
def test_wrongly_typed_params_are_invalid_params(api_server, alpha_key, case, method, params, named):
    session = open_session(api_server.url, alpha_key)
    body = {"jsonrpc": "2.0", "id": 41, "method": method, "params": params}
    response = post(api_server.url, alpha_key, body, session)
    message = rpc_error(response, 200, -32602)
    assert response.json()["id"] == 41
    assert named in message, message


# (what is wrong, the message, the id the error answers with)
BAD_ENVELOPES = [
    ("method a number", {"jsonrpc": "2.0", "id": 3, "method": 5}, 3),
    ("method null", {"jsonrpc": "2.0", "id": 3, "method": None}, 3),
    ("method a list", {"jsonrpc": "2.0", "id": 3, "method": ["ping"]}, 3),
    ("id an object", {"jsonrpc": "2.0", "id": {"n": 1}, "method": "ping"}, None),
    ("id a list", {"jsonrpc": "2.0", "id": [1], "method": "ping"}, None),
    ("id a boolean", {"jsonrpc": "2.0", "id": True, "method": "ping"}, None),
    ("id null", {"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
    ("id a fraction", {"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None),
    ("not JSON-RPC 2.0", {"jsonrpc": "1.0", "id": 3, "method": "ping"}, 3),
    ("a batch", [{"jsonrpc": "2.0", "id": 3, "method": "ping"}], None),
]


@pytest.mark.parametrize("case,body,answer_id", BAD_ENVELOPES, ids=[case[0] for case in BAD_ENVELOPES])
def test_malformed_envelopes_are_invalid_requests(api_server, alpha_key, case, body, answer_id):
    session = open_session(api_server.url, alpha_key)
    response = post(api_server.url, alpha_key, body, session)
    assert "invalid request" in rpc_error(response, 400, -32600)
    assert response.json()["id"] == answer_id


def test_a_refused_upload_stores_nothing(api_server, alpha_key):
    image = png(colour=(201, 7, 99, 255), size=(13, 11))  # bytes no other test uploads
    key = f"{hashlib.sha256(image).hexdigest()}.png"
    blob = api_server.data_dir / "blobs" / key[:2] / key
    arguments = {"file": base64.b64encode(image).decode(), "filename": 5}
    session = open_session(api_server.url, alpha_key)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call("upload_image", **arguments)}

    assert "filename" in rpc_error(post(api_server.url, alpha_key, body, session), 200, -32602)
    assert not blob.exists()

    body["params"]["arguments"]["filename"] = "fine.png"  # the same bytes, sent right, are stored where we looked
    result = post(api_server.url, alpha_key, body, session).json()["result"]
    assert result["isError"] is False and blob.exists()


def test_another_workspaces_session_cannot_be_closed(api_server, alpha_key):
    beta_key = api_server.workspaces["beta"][1]
    session = open_session(api_server.url, alpha_key)

    response = delete(api_server.url, beta_key, session)
    rpc_error(response, 404, -32001)
    assert ping(api_server.url, alpha_key, session).status_code == 200  # still alpha's, still open
    rpc_error(ping(api_server.url, beta_key, session), 404, -32001)  # and never beta's

    assert delete(api_server.url, alpha_key, session).status_code == 200
    rpc_error(ping(api_server.url, alpha_key, session), 404, -32001)
    rpc_error(delete(api_server.url, alpha_key, session), 404, -32001)


def test_delete_without_a_session_id_is_a_bad_request(api_server, alpha_key):
    response = httpx.delete(f"{api_server.url}/mcp", headers={"X-API-Key": alpha_key})
    assert "Mcp-Session-Id" in rpc_error(response, 400, -32600)


def test_an_idle_session_expires_and_a_used_one_lives(short_idle):
    idle = open_session(short_idle.url, short_idle.key)
    busy = open_session(short_idle.url, short_idle.key)
    started = time.monotonic()
    while time.monotonic() - started < 2 * IDLE_SECONDS:
        assert ping(short_idle.url, short_idle.key, busy).status_code == 200
        # Pacing the calls of an agent that is still at work; the idle period itself is
        # what is under test, so time has to pass here (nothing to poll for).
        time.sleep(IDLE_SECONDS / 4)

    assert "initialize again" in rpc_error(ping(short_idle.url, short_idle.key, idle), 404, -32001)
    rpc_error(delete(short_idle.url, short_idle.key, idle), 404, -32001)
    fresh = open_session(short_idle.url, short_idle.key)  # what the client does on 404
    assert ping(short_idle.url, short_idle.key, fresh).status_code == 200
    assert ping(short_idle.url, short_idle.key, busy).status_code == 200


def test_sessions_expire_after_the_idle_period_since_their_last_use(database_url, tmp_path):
    store = open_store(Settings(data_dir=tmp_path, database_url=database_url))
    now = [dt.datetime(2026, 1, 1)]
    seconds = dt.timedelta(seconds=1)
    try:
        sessions = Sessions(store, idle_seconds=60, clock=lambda: now[0])
        first, second = sessions.open("ws_a"), sessions.open("ws_a")
        now[0] += 59 * seconds
        assert sessions.belongs(first, "ws_a")
        now[0] += 59 * seconds  # 118 s after opening, 59 s after its last use
        assert sessions.belongs(first, "ws_a") and not sessions.belongs(second, "ws_a")
        assert not sessions.close(second, "ws_a")
        now[0] += 60 * seconds
        assert not sessions.belongs(first, "ws_a")
        assert not sessions.belongs(sessions.open("ws_b"), "ws_a")
        # Opening a session deletes the expired ones (first, second) now and then.
        assert store.one("SELECT count(*) FROM mcp_sessions WHERE workspace_id = 'ws_a'") == (0,)
    finally:
        store.close()


@pytest.mark.parametrize(
    "origin",
    [
        "http://attacker.example",
        "http://attacker.example:{port}",  # a rebound name: same port, another site
        "http://127.0.0.1:1",  # another local app
        "https://127.0.0.1:{port}",
        "null",  # sandboxed frames and file:// pages
        "not an origin",
    ],
)
def test_a_foreign_origin_is_refused(api_server, alpha_key, origin):
    origin = origin.format(port=api_server.port)
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}
    headers = {**ACCEPT, "X-API-Key": alpha_key, "Origin": origin, "Host": f"attacker.example:{api_server.port}"}
    response = httpx.post(f"{api_server.url}/mcp", json=body, headers=headers)
    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert error["code"] == "INSUFFICIENT_PERMISSIONS" and "Mcp-Session-Id" not in response.headers
    assert "Origin" in error["message"] and "--base-url" in error["message"]
    session = open_session(api_server.url, alpha_key)
    assert delete_with_origin(api_server.url, alpha_key, session, origin).status_code == 403
    assert ping(api_server.url, alpha_key, session).status_code == 200  # the refused DELETE closed nothing


def delete_with_origin(url: str, key: str, session: str, origin: str) -> httpx.Response:
    return httpx.delete(f"{url}/mcp", headers={"X-API-Key": key, "Mcp-Session-Id": session, "Origin": origin})


@pytest.mark.parametrize("origin", [None, "http://127.0.0.1:{port}", "http://localhost:{port}", "HTTP://LOCALHOST:{port}"])
def test_the_servers_own_origin_and_no_origin_are_served(api_server, alpha_key, origin):
    origin = origin.format(port=api_server.port) if origin else None
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}
    response = post(api_server.url, alpha_key, body, origin=origin)
    assert response.status_code == 200 and response.json()["result"]["serverInfo"]["name"] == "docbench"


@pytest.mark.parametrize("origin,status", [(BASE_URL, 200), (BASE_URL + ":443", 200), ("https://example.test", 403)])
def test_the_base_urls_origin_is_served(short_idle, origin, status):
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}
    assert post(short_idle.url, short_idle.key, body, origin=origin).status_code == status
