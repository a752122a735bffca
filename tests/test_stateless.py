"""Stateless web processes (issue 17, point 4): two real `docbench serve` processes on one real
PostgreSQL, one S3 bucket (moto's server) and one --secret answer any request, whichever of them
began the conversation: nothing a request needs lives only in one process's memory."""

from __future__ import annotations

import datetime as dt
import io
import re
from urllib.parse import urlsplit

import httpx
import pytest
from PIL import Image

from api.service import Service, Settings
from api.store import open_store

from .conftest import add, png, s3_blob_url
from .server import Server

# The service-level tests here run on DuckDB and PostgreSQL (the `database_url` fixture).
RUN_ON_BOTH_STORES = True
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


def on(server: Server, url: str) -> str:
    """The same URL (path and query) asked of another server."""
    parts = urlsplit(url)
    return f"{server.url}{parts.path}?{parts.query}"


@pytest.mark.slow
def test_a_sign_in_link_printed_by_one_server_signs_in_once_on_the_other_and_its_cookie_works_on_both(pair):
    first, second, _, _, _ = pair
    link = re.search(r"(http://\S+/signin\?token=\S+)", first.output()).group(1)
    with httpx.Client() as browser:
        signed_in = browser.get(on(second, link))
        assert signed_in.status_code == 302 and "dbk" in signed_in.cookies, signed_in.text
        # The cookie the second server set (signed with the shared --secret) opens the page on both.
        for server in (second, first):
            page = browser.get(server.url + "/")
            assert page.status_code == 200 and "/signin" not in str(page.url), server.url
    with httpx.Client() as other_browser:
        for server in (first, second):  # used once: refused everywhere after
            again = other_browser.get(on(server, link))
            assert again.status_code == 200 and "dbk" not in again.cookies
            assert "already used or has expired" in again.text
        assert other_browser.get(first.url + "/").status_code == 302  # not signed in


def test_a_sign_in_link_works_once_even_when_redeemed_twice_at_once(database_url, tmp_path):
    import threading

    from workbench.signin_links import SignInTokens

    store = open_store(Settings(data_dir=tmp_path, database_url=database_url))
    try:
        links = SignInTokens(store)
        token = links.issue("ws_a")
        together = threading.Barrier(4)
        redeemed: list[str | None] = []

        def redeem() -> None:
            together.wait()
            redeemed.append(links.redeem(token))

        threads = [threading.Thread(target=redeem) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(redeemed, key=bool) == [None, None, None, "ws_a"]
        stored = store.all("SELECT token_hash FROM signin_links")
        assert stored == []  # used: gone (and a token is never stored as itself)
        expired = SignInTokens(store, lifetime=dt.timedelta(seconds=-1))
        assert expired.redeem(expired.issue("ws_a")) is None
    finally:
        store.close()


def colour_at_centre(picture: bytes) -> tuple[int, int, int]:
    image = Image.open(io.BytesIO(picture)).convert("RGB")
    return image.getpixel((image.width // 2, image.height // 2))


@pytest.mark.slow
def test_a_preview_on_one_server_shows_an_asset_whose_bytes_were_replaced_on_the_other(pair):
    first, second, key, _, _ = pair
    red, blue = (220, 20, 20, 255), (20, 20, 220, 255)
    with first.client(key) as a, second.client(key) as b:
        asset = a.data(a.post("/assets", files={"file": ("logo.png", png(red, (60, 60)), "image/png")}), 201)
        design_id = a.data(a.post("/designs", json={"name": "Logo page"}), 201)["designId"]
        # The asset fills the middle of the page.
        image = add("image", "logo", {"x": 100, "y": 200, "w": 400, "h": 400}, {"src": asset["ref"]})
        a.data(a.patch(f"/designs/{design_id}/tree", json={"actions": [image]}), 200)

        def picture(client) -> bytes:
            url = client.data(client.get(f"/designs/{design_id}/preview"), 200)["previewUrl"]
            return httpx.get(url).content

        for client in (a, b):  # each server's own preview cache now holds the red picture
            assert colour_at_centre(picture(client)) == red[:3]
        a.data(
            a.put(f"/assets/{asset['id']}/content", files={"file": ("blue.png", png(blue, (60, 60)), "image/png")}), 200
        )
        assert colour_at_centre(picture(b)) == blue[:3]  # not the picture B had cached
        assert colour_at_centre(picture(a)) == blue[:3]
