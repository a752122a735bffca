"""The balance kept in each workspace's row (migration 9): always the sum of its ledger, on
both stores, and filled from the ledger when an older database is migrated."""

from __future__ import annotations

import duckdb

from api.service import Service, Settings
from api.store import MIGRATIONS, DuckDBStore

RUN_ON_BOTH_STORES = True


def test_the_balance_is_the_sum_of_the_ledger_after_grants_debits_and_refunds(tmp_path, database_url):
    service = Service(Settings(data_dir=tmp_path, database_url=database_url, render_processes=1))
    try:
        accounts, store = service.accounts, service.store
        workspace, _ = accounts.create_workspace("ledger", "pro", 7)
        accounts.add_credits(workspace.id, 5)
        with store.transaction() as cursor:
            accounts.debit(cursor, workspace.id, 3, "generate", "gen_a")
            accounts.refund(cursor, workspace.id, 1, "batch-refund", "job_a")
        other, _ = accounts.create_workspace("other", "pro", 2)
        assert accounts.balance(workspace.id) == 10 and accounts.balance(other.id) == 2
        for ws in (workspace, other):
            summed = store.one("SELECT sum(delta) FROM credit_ledger WHERE workspace_id = ?", [ws.id])[0]
            assert store.one("SELECT credits FROM workspaces WHERE id = ?", [ws.id])[0] == summed
    finally:
        service.close()


def test_a_database_from_before_the_balance_column_gets_each_workspaces_sum(tmp_path):
    path = tmp_path / "old.duckdb"
    connection = duckdb.connect(str(path))
    connection.execute("CREATE TABLE schema_version (version INTEGER)")
    for version, script in enumerate(MIGRATIONS[:8], start=1):
        for statement in filter(str.strip, script.split(";")):
            connection.execute(statement)
        connection.execute("INSERT INTO schema_version VALUES (?)", [version])
    for workspace in ("ws_a", "ws_b"):
        connection.execute(
            "INSERT INTO workspaces (id, name, plan, created_at) VALUES (?, ?, 'pro', now())", [workspace, workspace]
        )
    entries = [("ws_a", 10), ("ws_a", -3), ("ws_a", -1), ("ws_b", 4)]
    for number, (workspace, delta) in enumerate(entries):
        connection.execute(
            "INSERT INTO credit_ledger VALUES (?, ?, ?, 'grant', NULL, now())", [f"cr_{number}", workspace, delta]
        )
    connection.close()
    store = DuckDBStore(path)
    try:
        assert dict(store.all("SELECT id, credits FROM workspaces")) == {"ws_a": 6, "ws_b": 4}
        assert store.one("SELECT max(version) FROM schema_version") == (len(MIGRATIONS),)
    finally:
        store.close()
