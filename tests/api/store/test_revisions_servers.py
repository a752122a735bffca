"""Revisions (extensions.md 16) made by two `docbench serve` processes on one PostgreSQL store:
concurrent edits of one design get distinct, rising numbers with no gap, each revision holding
the tree its own save left."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from ...conftest import add
from ...server import servers_on_one_database

PATCHES_EACH = 15


def test_concurrent_edits_on_two_servers_make_distinct_ordered_revisions(postgres_server, tmp_path):
    url = postgres_server.fresh_database()
    with servers_on_one_database(url, tmp_path) as (servers, key):
        clients = [server.client(key) for server in servers]
        try:
            created = clients[0].post("/designs", json={"name": "Shared"})
            design_id = clients[0].data(created, 201)["designId"]

            def edit(which: int) -> list[int]:
                client, numbers = clients[which], []
                for number in range(PATCHES_EACH):
                    element = add("text", f"s{which}-{number}", {"x": 10, "y": 10 + number}, data={"content": "x"})
                    saved = client.patch(f"/designs/{design_id}/tree", json={"actions": [element]})
                    numbers.append(client.data(saved, 200)["revision"])
                return numbers

            with ThreadPoolExecutor(2) as pool:
                first, second = pool.map(edit, [0, 1])
            # each server's own saves rise, and no number was given twice
            assert first == sorted(first) and second == sorted(second)
            assert sorted(first + second) == list(range(2, 2 + 2 * PATCHES_EACH))

            listed = clients[1].data(clients[1].get(f"/designs/{design_id}/revisions", params={"limit": 200}), 200)
            numbers = [r["revision"] for r in listed["items"]]
            assert numbers == list(range(1 + 2 * PATCHES_EACH, 0, -1))  # newest first, no gap, no duplicate
            # Revision n holds n - 1 elements: each save's tree is the one before plus its element,
            # the element its summary names.
            before: set[str] = set()
            for item in reversed(listed["items"][:-1]):
                tree = clients[0].get(f"/designs/{design_id}/revisions/{item['revision']}/tree").json()
                names = {node["name"] for node in tree["nodes"].values()}
                (added,) = names - before
                assert names >= before and len(names) == item["revision"] - 1
                assert item["summary"] == f"add_element text '{added}'"
                before = names
        finally:
            for client in clients:
                client.close()
