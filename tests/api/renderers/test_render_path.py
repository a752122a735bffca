"""The request path around the render processes (issue 17, item 1), over real HTTP to a real
`docbench serve`: the event loop answers while every render process is busy, a render process
killed mid-request costs nothing acknowledged and says so, and the validated tree a generate or
preview keeps per design revision follows every kind of change (patch, undo, rename, delete).

No timing thresholds: what is checked is order (a cheap call answered while renders are still in
flight) and outcomes (codes, credits, PDF text, preview pictures).
"""

from __future__ import annotations

import os
import signal
import threading

import httpx
import pytest

from engine import DesignTree
from engine.design.diff import changes
from tests.pdf_probes import pdf_text
from tests.render_processes import _credits, _small_design, _table_design, children, cpu_seconds, render_processes

from ...server import Server, create_workspace, wait_until

# A table of 30 rows that each wrap onto a sheet of their own: seconds of drawing, far more than
# a GET takes, and few enough that a test waiting for three of them stays short.
LONG = (30, 50, 100)


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """A server with one render process, so three generates keep it busy one after another."""
    data_dir = tmp_path_factory.mktemp("render-path")
    _, key = create_workspace(data_dir, "render-path", credits=100)
    server = Server(data_dir, args=("--render-processes", "1")).start()
    client = server.client(key)
    yield server, client, key
    client.close()
    server.stop()


def _the_render_process(server: Server) -> int:
    wait_until(lambda: len(render_processes(server)) == 1, what="the render process")
    (worker,) = render_processes(server)
    return worker


def _drawing(worker: int, since: float) -> bool:
    """The render process has used CPU since `since`: it has a render in hand."""
    return cpu_seconds(worker) > since + 0.2


def test_the_event_loop_answers_while_every_render_process_is_busy(single):
    server, client, key = single
    design_id = _table_design(client, *LONG)
    worker = _the_render_process(server)
    idle = cpu_seconds(worker)
    before = _credits(client)
    answers: list[int] = []

    def generate() -> None:
        with httpx.Client(base_url=server.api, headers={"X-API-Key": key}, timeout=300) as own:
            status = own.post(f"/designs/{design_id}/generate", json={}).status_code
        answers.append(status)

    load = [threading.Thread(target=generate) for _ in range(3)]
    for thread in load:
        thread.start()
    try:
        wait_until(lambda: _drawing(worker, idle), timeout=60, what="the first render to start")
        # The render process is drawing, two more renders wait for it: the calls that do not render
        # are answered meanwhile, each before the third render could have been drawn.
        for _ in range(5):
            me = client.data(client.get("/me"), 200)
            assert me["credits"] == before  # nothing is charged before its PDF is delivered
            client.data(client.get(f"/designs/{design_id}"), 200)
        assert len(answers) < 3, answers
    finally:
        for thread in load:
            thread.join(timeout=300)
    assert answers == [201, 201, 201]
    assert _credits(client) == before - 3


def test_a_render_process_killed_mid_request_answers_clearly_and_charges_nothing(single):
    server, client, key = single
    design_id = _table_design(client, *LONG)
    worker = _the_render_process(server)
    idle = cpu_seconds(worker)
    before = _credits(client)
    answered: list[httpx.Response] = []

    def generate() -> None:
        with httpx.Client(base_url=server.api, headers={"X-API-Key": key}, timeout=300) as own:
            answered.append(own.post(f"/designs/{design_id}/generate", json={}))

    request = threading.Thread(target=generate)
    request.start()
    wait_until(lambda: _drawing(worker, idle), timeout=60, what="the render to start")
    os.kill(worker, signal.SIGKILL)
    request.join(timeout=60)
    (response,) = answered
    message = client.error(response, 503, "SERVICE_UNAVAILABLE")
    assert "stopped before it finished" in message and "send the request again" in message, message
    assert _credits(client) == before
    # A fresh process took its place: the same request now succeeds, and is charged once.
    assert worker not in render_processes(server)
    generated = client.data(client.post(f"/designs/{_small_design(client)}/generate", json={}), 201)
    assert httpx.get(generated["downloadUrl"]).content.startswith(b"%PDF")
    assert _credits(client) == before - 1


def _tree(client, design_id: str) -> DesignTree:
    response = client.get(f"/designs/{design_id}/tree")
    assert response.status_code == 200, response.text
    return DesignTree.model_validate_json(response.content)


def _patch(client, design_id: str, actions: list[dict]) -> None:
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)


def _preview(client, design_id: str, page: int = 0) -> bytes:
    shown = client.data(client.get(f"/designs/{design_id}/preview", params={"page": page}), 200)
    return httpx.get(shown["previewUrl"]).content


def test_the_kept_tree_follows_every_change_of_its_design(single):
    server, client, key = single
    design_id = client.data(client.post("/designs", json={"name": "Letter", "size": "A5"}), 201)["designId"]
    text = {"type": "text", "name": "line", "position": {"x": 20, "y": 20}, "data": {"content": "First words"}}
    _patch(client, design_id, [{"type": "add_element", "args": text}])
    first = _preview(client, design_id)
    generated = client.data(client.post(f"/designs/{design_id}/generate", json={}), 201)
    assert "First words" in " ".join(pdf_text(httpx.get(generated["downloadUrl"]).content))

    # A patch: the page's picture and the PDF show the new text (a kept digest would show the old picture).
    update = {"type": "update_element", "args": {"name": "line", "data": {"content": "Second words"}}}
    _patch(client, design_id, [update])
    second = _preview(client, design_id)
    assert second != first
    generated = client.data(client.post(f"/designs/{design_id}/generate", json={}), 201)
    assert "Second words" in " ".join(pdf_text(httpx.get(generated["downloadUrl"]).content))

    # A page added, then the editor's undo of it: page 1 exists, then no longer does.
    before_page = _tree(client, design_id)
    _patch(client, design_id, [{"type": "add_page", "args": {}}])
    assert _preview(client, design_id, 1).startswith(b"\x89PNG")
    undo = changes(_tree(client, design_id), before_page)
    assert undo, "undoing the new page takes actions"
    _patch(client, design_id, undo)
    client.error(client.get(f"/designs/{design_id}/preview", params={"page": 1}), 404, "PAGE_NOT_FOUND")
    assert _preview(client, design_id) == second

    # A variable bound by a patch: a generate's values are checked against the new tree.
    client.error(
        client.post(f"/designs/{design_id}/generate", json={"data": {"line": "Third words"}}), 400, "VALIDATION_ERROR"
    )
    _patch(client, design_id, [{"type": "bind_variable", "args": {"name": "line"}}])
    generated = client.data(client.post(f"/designs/{design_id}/generate", json={"data": {"line": "Third words"}}), 201)
    assert "Third words" in " ".join(pdf_text(httpx.get(generated["downloadUrl"]).content))

    # A rename (an update): the next PDF is named after the new name.
    client.data(client.patch(f"/designs/{design_id}", json={"name": "Renamed letter"}), 200)
    generated = client.data(client.post(f"/designs/{design_id}/generate", json={}), 201)
    assert generated["filename"] == "Renamed letter.pdf"

    # A delete: neither a generate nor a preview finds the design any more.
    credits = _credits(client)
    client.data(client.delete(f"/designs/{design_id}"), 200)
    client.error(client.post(f"/designs/{design_id}/generate", json={}), 404, "DESIGN_NOT_FOUND")
    client.error(client.get(f"/designs/{design_id}/preview"), 404, "DESIGN_NOT_FOUND")
    assert _credits(client) == credits


def test_batch_rows_take_turns_with_generations_in_the_same_render_processes(single):
    server, client, key = single
    design = client.data(client.post("/designs", json={"name": "Statements", "size": "A4"}), 201)
    design_id = design["designId"]
    rows, columns, chars = LONG
    cell = ("lorem ipsum dolor sit amet " * 20)[:chars]
    table = {"cells": [["x"] * columns], "width": 555}  # the rows' tables have as many columns
    actions = [
        {
            "type": "add_element",
            "args": {"type": "table", "name": "lines", "position": {"x": 20, "y": 20}, "data": table},
        },
        {"type": "bind_variable", "args": {"name": "lines"}},
    ]
    _patch(client, design_id, actions)
    long_rows = [{"lines": [[cell] * columns for _ in range(rows)]} for _ in range(4)]
    job = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": long_rows}), 202)
    worker = _the_render_process(server)
    wait_until(
        lambda: client.data(client.get(f"/batches/{job['jobId']}"), 200)["status"] == "processing",
        what="the batch to start",
    )
    # The batch's rows wait their turn in the one render process like any render: a generate
    # sent meanwhile is drawn after at most the row in hand, while the batch still runs.
    generated = client.data(client.post(f"/designs/{_small_design(client)}/generate", json={}), 201)
    assert httpx.get(generated["downloadUrl"]).content.startswith(b"%PDF")
    state = client.data(client.get(f"/batches/{job['jobId']}"), 200)
    assert state["status"] == "processing" and state["completed"] < 4, state
    # No second set of processes for batches: the server's only children are its render processes.
    assert children(server) == {worker}
    final = wait_until(
        lambda: (lambda s: s if s["status"] in ("completed", "failed") else None)(
            client.data(client.get(f"/batches/{job['jobId']}"), 200)
        ),
        timeout=300,
        what="the batch to end",
    )
    assert final["status"] == "completed" and final["completed"] == 4 and final["failed"] == 0, final


def test_the_validated_tree_cache_is_bounded_by_the_text_it_holds():
    from api.service.generation import _Revisions
    from workbench import samples

    text = samples.certificate().model_dump_json()
    revisions = _Revisions()
    revisions.TEXT_BUDGET = 3 * len(text)  # room for three such trees
    for number in range(5):
        revisions.of(f"dsg_{number}", {"modified_at": number, "tree": text})
    kept = [design for design in (f"dsg_{n}" for n in range(5)) if design in revisions._entries]
    assert kept == ["dsg_2", "dsg_3", "dsg_4"]  # the least recently used went first
    revisions.of("dsg_4", {"modified_at": 99, "tree": text})  # a new revision replaces, not adds
    assert list(revisions._entries) == ["dsg_2", "dsg_3", "dsg_4"] and revisions._text == 3 * len(text)
