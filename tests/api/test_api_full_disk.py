"""A full disk under a real `docbench serve` (its data dir on a small tmpfs): generates answer 503
and charge nothing, `GET /me` keeps answering, no empty journal files pile up, and every
generation answered before a kill -9 is recorded and charged when the server starts again."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from api.store import DuckDBStore

from ..server import Server
from ..small_disk import fill, small_disk

pytestmark = pytest.mark.slow  # servers started, killed and started again on a disk of their own

STARTING_CREDITS = 100  # the default workspace's
NAME = [
    {
        "type": "add_element",
        "args": {"type": "text", "name": "recipient", "position": {"x": 60, "y": 60}, "data": {"content": "x"}},
    },
    {"type": "bind_variable", "args": {"name": "recipient"}},
]


def _serve(disk: Path, log_folder: Path) -> Server:
    server = Server(disk / "data")
    server.log_path = log_folder / f"server-{server.port}.log"  # off the small disk: the log must not fill it
    return server


def _design(client) -> str:  # noqa: ANN001
    design_id = client.data(client.post("/designs", json={"name": "full"}), 201)["designId"]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": NAME}), 200)
    return design_id


def _generate(client, design_id: str, recipient: str):  # noqa: ANN001, ANN202
    return client.post(f"/designs/{design_id}/generate", json={"data": {"recipient": recipient}})


def _books(data_dir: Path) -> tuple[int, int, set[str], set[str]]:
    """What the database holds once the server has stopped: (the balance kept in the workspace's
    row, the sum of its ledger, the generations its debits name, the generation rows)."""
    store = DuckDBStore(data_dir / "docbench.duckdb")
    try:
        ((workspace_id,),) = store.all("SELECT id FROM workspaces")
        credits = store.one("SELECT credits FROM workspaces WHERE id = ?", [workspace_id])[0]
        summed = store.one("SELECT sum(delta) FROM credit_ledger WHERE workspace_id = ?", [workspace_id])[0]
        debits = "SELECT reference FROM credit_ledger WHERE workspace_id = ? AND reason = 'generate'"
        debited = {row[0] for row in store.all(debits, [workspace_id])}
        generations = {row[0] for row in store.all("SELECT id FROM generations WHERE workspace_id = ?", [workspace_id])}
    finally:
        store.close()
    return credits, summed, debited, generations


def _empty_journal_files(data_dir: Path) -> list[Path]:
    return [p for p in (data_dir / "docbench.duckdb.journal").glob("*.postings") if p.stat().st_size == 0]


def test_a_generate_on_a_full_disk_answers_503_charges_nothing_and_succeeds_once_space_is_freed(tmp_path):
    with small_disk(tmp_path / "disk", "64m") as disk:
        server = _serve(disk, tmp_path).start()
        data_dir = server.data_dir
        answered: list[str] = []
        try:
            with server.client(server.read_key()) as client:
                design_id = _design(client)
                answered.append(client.data(_generate(client, design_id, "Ada"), 201)["generationId"])
                client.data(client.get("/designs"), 200)  # a read: the posting is in the tables now
                client.data(client.get("/me"), 200)
                filler = fill(disk)
                # A new document: its PDF is what the disk refuses.
                message = client.error(_generate(client, design_id, "Grace"), 503, "SERVICE_UNAVAILABLE")
                assert message.startswith("the server's disk is full") and "nothing was charged" in message
                assert not list((data_dir / "blobs").rglob(".tmp-*"))  # no half-written file left
                # The same document again: its PDF is there already; the debit's journal line (or
                # the database, taking the postings waiting) is what the disk refuses, soon if not at once.
                refused = 0
                for _ in range(60):
                    response = _generate(client, design_id, "Ada")
                    if response.status_code == 201:
                        answered.append(response.json()["data"]["generationId"])
                        continue
                    assert "disk is full" in client.error(response, 503, "SERVICE_UNAVAILABLE")
                    refused += 1
                    if refused == 5:
                        break
                assert refused == 5, "the full disk took every generation"
                # GET /me answers from memory: no 500 for a full disk, and only what was answered is charged.
                assert client.data(client.get("/me"), 200)["credits"] == STARTING_CREDITS - len(answered)
                assert _empty_journal_files(data_dir) == []
                filler.unlink()
                answered.append(client.data(_generate(client, design_id, "Grace"), 201)["generationId"])
                assert client.data(client.get("/me"), 200)["credits"] == STARTING_CREDITS - len(answered)
        finally:
            server.stop()
        assert "Traceback" not in server.output()
        credits, summed, debited, generations = _books(data_dir)
        assert credits == summed == STARTING_CREDITS - len(answered)
        assert debited == generations == set(answered)


def test_every_generation_answered_on_a_filling_disk_is_kept_and_charged_after_a_kill(tmp_path):
    with small_disk(tmp_path / "disk", "64m") as disk:
        server = _serve(disk, tmp_path).start()
        data_dir = server.data_dir
        key = server.read_key()
        with server.client(key) as client:
            design_id = _design(client)
            client.data(_generate(client, design_id, "Ada"), 201)  # its PDF is on disk: the others reuse it
            client.data(client.get("/designs"), 200)
        filler = fill(disk)
        os.truncate(filler, max(0, filler.stat().st_size - 16 * 1024))  # a little room: the generates fill it
        answered: list[str] = ["first"]
        statuses: list[int] = []
        lock = threading.Lock()

        def generate_until_refused() -> None:
            refused = 0
            with server.client(key) as client:
                while refused < 3 and len(statuses) < 2000:
                    response = _generate(client, design_id, "Ada")
                    with lock:
                        statuses.append(response.status_code)
                        if response.status_code == 201:
                            answered.append(response.json()["data"]["generationId"])
                        else:
                            refused += 1

        threads = [threading.Thread(target=generate_until_refused) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        server.kill()  # SIGKILL: what was answered is only in the journal (the database's disk is full)
        assert set(statuses) <= {201, 503}, statuses
        assert statuses.count(201) >= 5, "the disk was full before any generate: nothing tested"
        filler.unlink()
        server.start()  # applies the journal left behind
        try:
            with server.client(key) as client:
                assert client.data(client.get("/me"), 200)["credits"] == STARTING_CREDITS - len(answered)
        finally:
            server.stop()
        credits, summed, debited, generations = _books(data_dir)
        assert credits == summed == STARTING_CREDITS - len(answered)
        assert debited == generations and generations >= set(answered[1:])
        assert len(generations) == len(answered)


def test_a_design_saved_on_a_full_disk_answers_503_and_keeps_its_tree(tmp_path):
    with small_disk(tmp_path / "disk", "64m") as disk:
        server = _serve(disk, tmp_path).start()
        try:
            with server.client(server.read_key()) as client:
                design_id = _design(client)
                before = client.get(f"/designs/{design_id}/tree").json()
                filler = fill(disk)
                # Each patch is a revision of its own, written to the database's log: the disk refuses one soon.
                rename = {"type": "update_element", "args": {"name": "recipient", "data": {"content": "y" * 20_000}}}
                refused = None
                for _ in range(50):
                    response = client.patch(f"/designs/{design_id}/tree", json={"actions": [rename]})
                    if response.status_code != 200:
                        refused = response
                        break
                assert refused is not None, "the full disk took every patch"
                message = client.error(refused, 503, "SERVICE_UNAVAILABLE")
                assert message.startswith("the server's disk is full") and "nothing was saved" in message
                assert client.data(client.get("/me"), 200)["credits"] == STARTING_CREDITS
                filler.unlink()
                saved = client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": [rename]}), 200)
                tree = client.get(f"/designs/{design_id}/tree").json()
                assert tree["nodes"] != before["nodes"] and saved["revision"] > 2
        finally:
            server.stop()
        assert "Traceback" not in server.output()
