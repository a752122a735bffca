"""Postings (api.postings): a debit and the rows it pays for, committed in groups; on DuckDB
made durable by the journal before they reach the tables. What this process remembers of the
database (api.service.remembered) and what the event loop may answer itself (api.blocking)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from api.blocking import WouldWait, without_waiting
from api.postings import BalanceShort
from api.service import Service, Settings
from api.service.remembered import Remembered
from api.store import DuckDBStore
from tests.postings import a_debit, a_workspace, books

RUN_ON_BOTH_STORES = True
ROOT = Path(__file__).resolve().parents[3]


def test_postings_answered_before_a_crash_are_in_the_tables_when_the_database_is_opened_again(tmp_path):
    workspace_id = a_workspace(tmp_path, 20)
    database = tmp_path / "docbench.duckdb"
    assert database.exists()
    # Another process posts 5 and dies without closing the store (no background apply in time).
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from api.store import DuckDBStore\n"
        "from tests.postings import a_debit\n"
        f"store = DuckDBStore(Path({str(database)!r}), apply_seconds=3600)\n"
        f"for _ in range(5): store.post(a_debit({workspace_id!r}))\n"
        "print('posted', flush=True)\n"
        "os._exit(0)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "posted", done.stderr
    journal = database.with_name(f"{database.name}.journal")
    assert sum(len(p.read_bytes().splitlines()) for p in journal.glob("*.postings")) == 5  # only there so far
    store = DuckDBStore(database)
    try:
        assert books(store, workspace_id) == (15, 15, 5)
        assert not list(journal.glob("*.postings"))  # applied, so let go of (a copy kept in recovered/)
    finally:
        store.close()


def test_a_journal_whose_postings_reached_the_tables_is_not_applied_twice(tmp_path):
    workspace_id = a_workspace(tmp_path, 10)
    database = tmp_path / "docbench.duckdb"
    journal = database.with_name(f"{database.name}.journal")
    store = DuckDBStore(database, apply_seconds=3600)
    for _ in range(3):
        store.post(a_debit(workspace_id))
    kept = {p.name: p.read_bytes() for p in journal.glob("*.postings")}
    store.close()  # applies them and moves the journal's files aside (applied/)
    # A crash between the commit and the deletion leaves the journal behind, and one more line
    # cut short by the crash (never answered: its flush had not returned).
    for name, content in kept.items():
        (journal / name).write_bytes(content)
    with open(journal / sorted(kept)[-1], "ab") as cut:
        cut.write(b'["ws_cut", -1, "cr_cut"')
    store = DuckDBStore(database)
    try:
        assert books(store, workspace_id) == (7, 7, 3)
    finally:
        store.close()


def test_every_read_and_transaction_sees_the_postings_still_in_the_journal(tmp_path):
    workspace_id = a_workspace(tmp_path, 10)
    store = DuckDBStore(tmp_path / "docbench.duckdb", apply_seconds=3600)
    try:
        store.post(a_debit(workspace_id))
        store.post(a_debit(workspace_id))
        assert store.balance(workspace_id) == 8
        assert books(store, workspace_id) == (8, 8, 2)  # a read applies them first
        store.post(a_debit(workspace_id))
        with store.transaction() as cursor:  # so does a write: a grant adds to what the postings left
            cursor.execute("UPDATE workspaces SET credits = credits + 5 WHERE id = ?", [workspace_id])
            assert cursor.execute("SELECT count(*) FROM generations").fetchone()[0] == 3
        assert store.balance(workspace_id) == 12  # read again after the transaction, not kept from before
    finally:
        store.close()


def test_a_posting_that_would_take_the_balance_below_zero_is_refused_and_writes_nothing(tmp_path, database_url):
    service = Service(Settings(data_dir=tmp_path, database_url=database_url, render_processes=1))
    try:
        store = service.store
        workspace, _ = service.accounts.create_workspace("short", "pro", 2)
        store.post(a_debit(workspace.id))
        store.post(a_debit(workspace.id))
        with pytest.raises(BalanceShort) as refused:
            store.post(a_debit(workspace.id))
        assert refused.value.available == 0
        assert books(store, workspace.id) == (0, 0, 2)
        with pytest.raises(BalanceShort):  # an unknown workspace has nothing to spend
            store.post(a_debit("ws_nobody"))
    finally:
        service.close()


def test_postings_made_at_once_keep_the_balance_exact_and_share_commits(tmp_path, database_url, store):
    service = Service(Settings(data_dir=tmp_path, database_url=database_url, render_processes=1))
    try:
        workspace, _ = service.accounts.create_workspace("contended", "pro", 100)
        other, _ = service.accounts.create_workspace("bystander", "pro", 50)
        commits_before = _commits(service.store) if store == "postgres" else 0
        outcomes: list[str] = []
        start = threading.Barrier(16)

        def post_ten(workspace_id: str) -> None:
            start.wait()
            for _ in range(10):
                try:
                    service.store.post(a_debit(workspace_id))
                    outcomes.append(workspace_id)
                except BalanceShort:
                    outcomes.append("short")

        threads = [threading.Thread(target=post_ten, args=(workspace.id if n < 12 else other.id,)) for n in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert outcomes.count(workspace.id) == 100 and outcomes.count("short") == 20
        assert outcomes.count(other.id) == 40
        assert books(service.store, workspace.id) == (0, 0, 100)
        assert books(service.store, other.id) == (10, 10, 40)
        if store == "postgres":  # 160 postings, far fewer transactions: they were grouped
            assert _commits(service.store) - commits_before < 120
    finally:
        service.close()


def _commits(store) -> int:  # noqa: ANN001
    return store.one("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")[0]


def test_what_is_remembered_is_loaded_again_after_any_write_and_never_on_a_shared_store(tmp_path, database_url, store):
    service = Service(Settings(data_dir=tmp_path, database_url=database_url, render_processes=1))
    try:
        workspace, _ = service.accounts.create_workspace("remembering", "pro", 5)
        names: Remembered[str] = Remembered(service.store)

        def name() -> str:
            return names.get(workspace.id, lambda: service.store.one(
                "SELECT name FROM workspaces WHERE id = ?", [workspace.id])[0])  # fmt: skip

        assert name() == name() == "remembering"
        service.store.post(a_debit(workspace.id))  # a posting changes nothing remembered
        assert name() == "remembering"
        with service.store.transaction() as cursor:
            cursor.execute("UPDATE workspaces SET name = 'renamed' WHERE id = ?", [workspace.id])
        assert name() == "renamed"
        assert names.loads == (2 if store == "duckdb" else 4)
    finally:
        service.close()


def test_the_event_loop_is_answered_from_memory_or_told_to_use_a_thread(tmp_path, database_url, store):
    service = Service(Settings(data_dir=tmp_path, database_url=database_url, render_processes=1))
    try:
        workspace, key = service.accounts.create_workspace("loop", "pro", 5)
        with without_waiting(), pytest.raises(WouldWait):
            service.store.one("SELECT 1")
        with without_waiting(), pytest.raises(WouldWait):
            service.admit(key)  # not yet remembered: the key is a query
        service.admit(key)
        service.accounts.me(workspace)
        if store == "duckdb":  # the one writer: its key, balance and secret are remembered exactly
            with without_waiting():
                assert service.admit(key)[0].id == workspace.id
                assert service.accounts.me(workspace)["credits"] == 5
            service.store.post(a_debit(workspace.id))
            with without_waiting():
                assert service.accounts.me(workspace)["credits"] == 4
        else:  # other processes write too: every call reads
            with without_waiting(), pytest.raises(WouldWait):
                service.accounts.me(workspace)
    finally:
        service.close()
