"""A page open across a restart of the docbench server (issue 35, point 3), in a real headless
Chromium: it says it is reconnecting, loads again by itself once the server is back, and then
works, showing what the store holds now."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ...browser import new_design, open_design, sign_in, tree, wait_for
from ...conftest import add
from ...server import Server

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

RESTART_SECONDS = 90  # a start takes a minute on a machine whose cores are shared


@pytest.fixture
def own_server(tmp_path):
    """A server of this test's own, on a fixed data dir and port: restarted by the test."""
    from api.service import Service, Settings

    service = Service(Settings(data_dir=tmp_path))
    workspace, key = service.accounts.create_workspace("restart", "pro", 100)
    service.close()
    server = Server(tmp_path).start()
    server.workspace_id, server.key = workspace.id, key
    yield server
    server.stop()


def add_credits(server: Server, amount: int) -> None:
    """Credits granted straight in the store, while the server is down (its data dir is free)."""
    from api.service import Service, Settings

    service = Service(Settings(data_dir=server.data_dir))
    service.accounts.add_credits(server.workspace_id, amount)
    service.close()


def test_the_editor_reconnects_by_itself_after_a_server_restart(own_server, page):
    page.set_viewport_size({"width": 1440, "height": 900})
    with own_server.client(own_server.key) as api:
        design_id = new_design(api, "Restart", [add("text", "Title", {"x": 60, "y": 80}, {"content": "Before"})])
    sign_in(page, own_server, own_server.key)
    open_design(page, own_server, design_id)
    expect(page.locator(".dbk-credits")).to_contain_text("100")
    canvas = page.locator(".dbk-canvas").bounding_box()
    page.evaluate("window.dbkBeforeRestart = true")  # gone once the page has loaded again

    own_server.stop()
    notice = page.locator(".dbk-connection-lost")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Reconnecting")
    # The notice floats over the page: the canvas stays where it was.
    assert page.locator(".dbk-canvas").bounding_box() == canvas
    add_credits(own_server, 7)

    with page.expect_event("load", timeout=RESTART_SECONDS * 1000):
        own_server.start()  # the same port and data dir
    page.wait_for_function("window.dbkBeforeRestart === undefined")
    page.locator(".dbk-canvas .dbk-preview[src^='data:image/png']").wait_for(timeout=RESTART_SECONDS * 1000)
    expect(page.locator(".dbk-connection-lost")).to_have_count(0)
    expect(page.locator(".dbk-credits")).to_contain_text("107")  # the store's balance now, not the stale one
    # The page works again: "+ Text" saves an element.
    page.locator(".dbk-add-text button").click()
    with own_server.client(own_server.key) as api:
        wait_for(lambda: len(tree(api, design_id)["nodes"]) == 2, "the added text")
    # While the server was down, the health checks could not connect: the browser logs each one.
    page.recorder.errors[:] = [e for e in page.recorder.errors if not re.search(r"ERR_CONNECTION_REFUSED", e)]
