"""Stateless web processes (issue 17, point 4): two real `docbench serve` processes on one real
PostgreSQL, one S3 bucket (moto's server) and one --secret answer any request, whichever of them
began the conversation: nothing a request needs lives only in one process's memory."""

from __future__ import annotations

import httpx
import pytest

from api.service import Service, Settings

from .conftest import s3_blob_url
from .server import Server

SECRET = "the secret every web process of this deployment shares"
ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}}


def shared_args(database_url: str, blob_url: str) -> tuple[str, ...]:
    return ("--database-url", database_url, "--blob-url", blob_url, "--secret", SECRET, "--render-processes", "1")


@pytest.fixture(scope="module")
def pair(postgres_server, s3_server, tmp_path_factory):
    """Two servers, each with a data dir of its own, sharing the database, the bucket and the
    secret; a workspace (pro, 100 credits) and its key."""
    database_url = postgres_server.fresh_database()
    blob_url = s3_blob_url(s3_server, "stateless")
    root = tmp_path_factory.mktemp("stateless")
    service = Service(Settings(data_dir=root / "setup", database_url=database_url, blob_url=blob_url))
    try:
        workspace, key = service.accounts.create_workspace("shared", "pro", 100)
    finally:
        service.close()
    servers = []
    try:
        for name in ("a", "b"):
            (root / name).mkdir()
            servers.append(Server(root / name, args=shared_args(database_url, blob_url)).start())
        yield servers[0], servers[1], key, workspace, database_url
    finally:
        for server in servers:
            server.stop()


def mcp(server: Server, key: str, body: dict, session: str | None = None) -> httpx.Response:
    headers = {**ACCEPT, "X-API-Key": key, **({"Mcp-Session-Id": session} if session else {})}
    return httpx.post(f"{server.url}/mcp", json=body, headers=headers, timeout=60)


@pytest.mark.slow
def test_an_mcp_session_opened_on_one_server_is_used_and_closed_on_the_other(pair):
    first, second, key, _, _ = pair
    opened = mcp(first, key, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE})
    assert opened.status_code == 200, opened.text
    session = opened.headers["Mcp-Session-Id"]
    assert mcp(second, key, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session).status_code == 202
    listed = mcp(second, key, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
    assert listed.status_code == 200, listed.text
    assert "create_design" in {tool["name"] for tool in listed.json()["result"]["tools"]}
    call = {"name": "create_design", "arguments": {"name": "Made over MCP on B"}}
    made = mcp(second, key, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}, session)
    assert made.status_code == 200 and made.json()["result"]["isError"] is False, made.text
    with first.client(key) as client:
        names = [d["name"] for d in client.data(client.get("/designs"), 200)["items"]]
    assert "Made over MCP on B" in names
    # Closed on B, it is gone on A too.
    closed = httpx.delete(f"{second.url}/mcp", headers={"X-API-Key": key, "Mcp-Session-Id": session}, timeout=60)
    assert closed.status_code == 200, closed.text
    after = mcp(first, key, {"jsonrpc": "2.0", "id": 4, "method": "ping"}, session)
    assert after.status_code == 404 and after.json()["error"]["code"] == -32001, after.text
