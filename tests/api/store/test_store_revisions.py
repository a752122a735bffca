"""Revisions in the store (migration 15, api/service/revision_rows.py): a database from before
them gives each live design its tree as revision 1, and the next save is revision 2."""

from __future__ import annotations

import duckdb

import engine
from api.models import PatchTreeBody, RevisionListQuery
from api.service import Service, Settings, Workspace
from api.store import MIGRATIONS

from ...conftest import add

BEFORE_REVISIONS = 14


def test_a_database_from_before_revisions_gets_each_live_design_as_revision_1(tmp_path):
    connection = duckdb.connect(str(tmp_path / "docbench.duckdb"))
    connection.execute("CREATE TABLE schema_version (version INTEGER)")
    for version, script in enumerate(MIGRATIONS[:BEFORE_REVISIONS], start=1):
        for statement in filter(str.strip, script.split(";")):
            connection.execute(statement)
        connection.execute("INSERT INTO schema_version VALUES (?)", [version])
    connection.execute("INSERT INTO workspaces (id, name, plan, created_at) VALUES ('ws_a', 'a', 'pro', now())")
    tree = engine.new_design("A4", "portrait", None, None, title="Old").model_dump_json()
    for design_id, deleted in (("dsg_live", None), ("dsg_gone", "2026-01-01")):
        connection.execute(
            "INSERT INTO designs (id, workspace_id, name, tree, file_size, created_at, modified_at, deleted_at) "
            "VALUES (?, 'ws_a', 'Old', ?, ?, now(), now(), ?)",
            [design_id, tree, len(tree), deleted],
        )
    connection.close()
    service = Service(Settings(data_dir=tmp_path, render_processes=1))
    try:
        ws = Workspace("ws_a", "a", "pro")
        assert service.store.all("SELECT design_id, revision FROM design_revisions") == [("dsg_live", 1)]
        listed = service.revisions.list(ws, "dsg_live", RevisionListQuery())["items"]
        assert [(r["revision"], r["source"]) for r in listed] == [(1, "api")]
        assert service.revisions.tree_json(ws, "dsg_live", "1") == tree  # stored as it was, read back
        element = add("text", "title", {"x": 10, "y": 10}, data={"content": "New"})
        saved = service.designs.patch_tree(ws, "dsg_live", PatchTreeBody.model_validate({"actions": [element]}))
        assert saved["revision"] == 2
        assert service.revisions.tree_json(ws, "dsg_live", "2") == service.designs.tree_json(ws, "dsg_live")
        stored = service.store.one("SELECT tree FROM design_revisions WHERE revision = 2")[0]
        assert stored.startswith("z:") and len(stored) < len(service.designs.tree_json(ws, "dsg_live"))
    finally:
        service.close()
