"""Restarts, SIGKILL, the CLI and first start (decisions.md "Running it")."""

import json
import threading

import httpx
import pytest

from ..server import Server, docbench, wait_until

pytestmark = [
    pytest.mark.slow,  # servers started and stopped: `pytest -m "not slow"` skips them
    pytest.mark.usefixtures("database_url"),  # each test on DuckDB, then on a fresh PostgreSQL database
]

TEXT = {"type": "add_element", "args": {"type": "text", "name": "t", "position": {"x": 1, "y": 1}}}


def test_first_start_creates_a_default_workspace_and_prints_its_key_once(tmp_path):
    server = Server(tmp_path).start()
    try:
        key = server.read_key()
        assert key.startswith("dbk_live_")
        with server.client(key) as client:
            me = client.data(client.get("/me"), 200)
            assert (me["workspaceName"], me["plan"], me["credits"]) == ("default", "pro", 100)
    finally:
        server.stop()
    again = Server(tmp_path).start()
    try:
        assert "API keys were shown" in wait_until(again.output, what="the start message")
        assert "dbk_live_" not in again.output()
        with again.client(key) as client:
            assert client.get("/me").status_code == 200
    finally:
        again.stop()


def test_everything_survives_a_restart(tmp_path):
    server = Server(tmp_path).start()
    key = server.read_key()
    with server.client(key) as client:
        design_id = client.data(client.post("/designs", json={"name": "kept"}), 201)["designId"]
        client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": [TEXT]}), 200)
        url = client.data(client.post(f"/designs/{design_id}/generate", json={}), 201)["downloadUrl"]
        tree = client.get(f"/designs/{design_id}/tree").text
    server.stop()
    server.start()
    try:
        with server.client(key) as client:
            assert client.get(f"/designs/{design_id}/tree").text == tree
            assert client.data(client.get("/me"), 200)["credits"] == 99
        # The signing secret lives in the data dir: links outlive the process.
        assert httpx.get(url).status_code == 200
    finally:
        server.stop()


def test_every_acknowledged_write_survives_sigkill(tmp_path):
    server = Server(tmp_path).start()
    key = server.read_key()
    acknowledged: list[str] = []
    stop = threading.Event()

    def writer() -> None:
        with server.client(key) as client:
            while not stop.is_set():
                try:
                    response = client.post("/designs", json={"name": f"w{len(acknowledged)}"})
                except httpx.HTTPError:
                    return
                if response.status_code == 201:
                    acknowledged.append(response.json()["data"]["designId"])

    threads = [threading.Thread(target=writer) for _ in range(3)]
    for thread in threads:
        thread.start()
    wait_until(lambda: len(acknowledged) >= 40, what="40 acknowledged writes")
    server.kill()  # SIGKILL, mid-stream
    stop.set()
    for thread in threads:
        thread.join()
    server.start()
    try:
        with server.client(key) as client:
            stored, cursor = set(), None
            while True:
                params = {"limit": 200, **({"cursor": cursor} if cursor else {})}
                page = client.data(client.get("/designs", params=params), 200)
                stored |= {item["designId"] for item in page["items"]}
                cursor = page["nextCursor"]
                if not cursor:
                    break
        assert set(acknowledged) <= stored
    finally:
        server.stop()


def test_cli_manages_workspaces_plans_and_credits(tmp_path):
    created = json.loads(
        docbench("workspace", "create", "acme", "--plan", "starter", "--credits", "5", data_dir=tmp_path).stdout
    )
    assert created["workspaceId"].startswith("ws_") and created["apiKey"].startswith("dbk_live_")
    workspace = created["workspaceId"]
    assert json.loads(docbench("workspace", "set-plan", workspace, "free", data_dir=tmp_path).stdout)["plan"] == "free"
    assert json.loads(docbench("credits", "add", workspace, "7", data_dir=tmp_path).stdout)["credits"] == 12
    listed = json.loads(docbench("workspace", "list", data_dir=tmp_path).stdout)
    assert listed == [{"workspaceId": workspace, "name": "acme", "plan": "free", "credits": 12}]
    refused = docbench("credits", "add", "ws_nope", "1", data_dir=tmp_path, check=False)
    assert refused.returncode == 2 and "no workspace" in refused.stderr


@pytest.mark.duckdb_only  # PostgreSQL admits every process: test_store_postgres.py runs the CLI beside a server
def test_cli_says_clearly_when_the_server_holds_the_database(tmp_path):
    server = Server(tmp_path).start()
    try:
        result = docbench("workspace", "create", "late", data_dir=tmp_path, check=False)
        assert result.returncode == 2
        assert "in use by another process" in result.stderr and "Traceback" not in result.stderr
    finally:
        server.stop()


def test_a_revoked_key_is_refused(tmp_path):
    server = Server(tmp_path).start()
    key = server.read_key()
    with server.client(key) as client:
        workspace = client.data(client.get("/me"), 200)["workspaceId"]
    server.stop()
    other = json.loads(docbench("key", "create", workspace, data_dir=tmp_path).stdout)["apiKey"]
    assert json.loads(docbench("key", "revoke", key, data_dir=tmp_path).stdout) == {"revoked": True}
    server.start()
    try:
        with server.client(key) as client:
            assert "revoked" in client.error(client.get("/me"), 401, "UNAUTHORIZED")
        with server.client(other) as client:
            assert client.data(client.get("/me"), 200)["workspaceId"] == workspace
    finally:
        server.stop()
