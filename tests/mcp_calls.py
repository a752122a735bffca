"""Calling the MCP endpoint of a test server: sessions, tool calls and their results."""

from __future__ import annotations

import json

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from tests.conftest import run_async


def run(api_server, key: str, script):
    """Run `script(session)` in an initialized MCP session; return what it returns."""

    async def main():
        async with create_mcp_http_client(headers={"X-API-Key": key}) as http:
            async with streamable_http_client(f"{api_server.url}/mcp", http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    return await script(session)

    return run_async(main)


def ok(result) -> dict:
    assert result.is_error is False, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def failed(result, code: str) -> str:
    assert result.is_error is True
    assert result.structured_content["code"] == code, result.structured_content
    return result.structured_content["message"]


ACCEPT = {"Accept": "application/json, text/event-stream"}


INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}}


def post(url: str, key: str, body, session: str | None = None, origin: str | None = None) -> httpx.Response:
    headers = {**ACCEPT, "X-API-Key": key}
    if session:
        headers["Mcp-Session-Id"] = session
    if origin:
        headers["Origin"] = origin
    response = httpx.post(f"{url}/mcp", json=body, headers=headers, timeout=60)
    assert response.status_code != 500 and "Traceback" not in response.text, response.text
    return response


def open_session(url: str, key: str) -> str:
    response = post(url, key, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE})
    assert response.status_code == 200, response.text
    return response.headers["Mcp-Session-Id"]
