"""A test server's render processes and what they cost: long designs, credits, CPU time."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from engine.elements.table import MAX_ROWS, MAX_TABLE_CHARACTERS
from tests.server import Server


def long_table_actions(rows: int, columns: int, chars: int) -> list[dict]:
    """Rows of `columns` cells of `chars` characters, as tables within a table's limits
    (MAX_ROWS, MAX_TABLE_CHARACTERS), one per page: each grows into sheets of its own, so the
    document is as long as one table of every row would be."""
    cell = ("lorem ipsum dolor sit amet " * 20)[:chars]
    per_table = max(1, min(MAX_ROWS, MAX_TABLE_CHARACTERS // (columns * chars)))
    actions: list[dict] = []
    for index, first in enumerate(range(0, rows, per_table)):
        if index:
            actions.append({"type": "add_page", "args": {}})
        table = {"cells": [[cell] * columns for _ in range(min(per_table, rows - first))], "width": 555}
        name = "t" if index == 0 else f"t_{index + 1}"
        args = {"type": "table", "name": name, "page": index, "position": {"x": 20, "y": 20}, "data": table}
        actions.append({"type": "add_element", "args": args})
    return actions


def _table_design(client: httpx.Client, rows: int, columns: int, chars: int) -> str:
    design = client.data(client.post("/designs", json={"name": "Long table", "size": "A4"}), 201)
    actions = long_table_actions(rows, columns, chars)
    client.data(client.patch(f"/designs/{design['designId']}/tree", json={"actions": actions}), 200)
    return design["designId"]


def _small_design(client: httpx.Client) -> str:
    design = client.data(client.post("/designs", json={"name": "Card", "size": "A5"}), 201)
    text = {"type": "text", "name": "t", "position": {"x": 20, "y": 20}, "data": {"content": "ok"}}
    action = {"type": "add_element", "args": text}
    client.data(client.patch(f"/designs/{design['designId']}/tree", json={"actions": [action]}), 200)
    return design["designId"]


def _credits(client: httpx.Client) -> int:
    return client.data(client.get("/me"), 200)["credits"]


def children(server: Server, running: bytes = b"") -> set[int]:
    """The server's child processes (those whose command line holds `running`)."""
    assert server.process is not None
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == server.process.pid and running in cmdline:
            found.add(int(entry.name))
    return found


def render_processes(server: Server) -> set[int]:
    """The server's render processes (its children running api.renderers.worker)."""
    return children(server, b"api.renderers.worker")


def cpu_seconds(pid: int) -> float:
    """CPU time the process has used so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
