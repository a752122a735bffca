"""A real headless Chromium (Debian's, never a downloaded one) driven by Playwright.

Every page records its console errors and every request it makes; the `page` fixture
fails a test whose page logged an error or reached anything but the loopback server.
"""

from __future__ import annotations

import base64
import re
import shutil
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from .server import wait_until

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
TIMEOUT_MS = 15_000
# Shapes the tests click inside are filled: an unfilled one is hit only near its outline (shape.hit_area).
FILLED = {"fill": "#dbe7f7"}


def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.fail("Debian's chromium is not installed: `make test` installs it (apt-get install chromium)")
    return path


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Recorder:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.requests: list[str] = []
        # Uncaught errors of the application the page runs that a test knows are not ours: a
        # predicate on Playwright's Error (its message and stack).
        self.known_page_errors: list[Callable] = []

    def page_error(self, error) -> None:
        if not any(known(error) for known in self.known_page_errors):
            self.errors.append(str(error))

    def outside(self) -> list[str]:
        return [
            u
            for u in self.requests
            if urlparse(u).scheme in ("http", "https", "ws", "wss")
            and urlparse(u).hostname not in ("127.0.0.1", "localhost")
        ]


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1500, "height": 950}, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    recorder = Recorder()
    page.on("console", lambda message: message.type == "error" and recorder.errors.append(message.text))
    page.on("pageerror", recorder.page_error)
    page.on("request", lambda request: recorder.requests.append(request.url))
    page.on("websocket", lambda socket: recorder.requests.append(socket.url))
    page.recorder = recorder
    yield page
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed and not page.is_closed():
        describe_failure(page, request.node.name)
    context.close()
    assert recorder.errors == [], f"console errors: {recorder.errors}"
    assert recorder.outside() == [], f"requests left loopback: {recorder.outside()}"
    assert recorder.requests, "the page made no requests at all"


def describe_failure(page, name: str) -> None:
    """What the page showed when a test failed: a screenshot, and the editor's messages (printed,
    so CI's log has them)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"failed-{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}.png"
    try:
        page.screenshot(path=str(path))
        alerts = [text for text in page.locator(".alert").all_inner_texts() if text.strip()]
    except Exception as error:  # the page may be gone with the failure; the test's own error matters more
        print(f"no screenshot of the failed page: {error}")
        return
    print(f"page at failure: {page.url}; screenshot {path}; messages shown: {alerts or 'none'}")


def sign_in(page, server, key: str) -> None:
    page.goto(server.url + "/")
    page.locator("input[name=api_key]").fill(key)
    page.locator(".dbk-signin button").click()
    page.locator(".dbk-create button").wait_for()


def open_design(page, server, design_id: str) -> None:
    page.goto(f"{server.url}/?design={design_id}")
    page.locator(".dbk-canvas .dbk-preview[src^='data:image/png']").wait_for()


def box(page, name: str):
    return page.locator(f".dbk-box[data-name='{name}']")


def select(page, name: str) -> None:
    """Click an element and wait until the editor shows *its* properties (the name field comes first).

    Waiting for any properties form is not enough once another element was selected: a drag that starts
    before the selection has made its round trip through Python can be lost.
    """
    box(page, name).click()
    expect(page.locator(".dbk-properties input[type=text]").first).to_have_value(name, timeout=15_000)


def scale(page, page_width_pt: float) -> float:
    """Screen pixels per point at the canvas's current zoom."""
    return page.locator(".dbk-sheet").bounding_box()["width"] / page_width_pt


def drag(page, locator, dx: float, dy: float) -> None:
    area = locator.bounding_box()
    x, y = area["x"] + area["width"] / 2, area["y"] + area["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y + dy, steps=8)
    page.mouse.up()


@pytest.fixture
def key(api_server):
    """The API key of the "alpha" workspace, the one the editor tests sign in with."""
    return api_server.workspaces["alpha"][1]


@pytest.fixture
def alpha_api(api_server, key):
    with api_server.client(key) as client:
        yield client


def new_design(api, name: str, actions: list[dict] | None = None, **paper) -> str:
    design_id = api.data(api.post("/designs", json={"name": name, **paper}), 201)["designId"]
    if actions:
        api.data(api.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    return design_id


def tree(api, design_id: str) -> dict:
    response = api.get(f"/designs/{design_id}/tree")
    assert response.status_code == 200
    return response.json()


def node(api, design_id: str, name: str) -> dict:
    return next(n for n in tree(api, design_id)["nodes"].values() if n["name"] == name)


def paint_order(api, design_id: str, page: int = 0) -> list[str]:
    """The page's element names, back to front, as saved."""
    saved = tree(api, design_id)
    return [saved["nodes"][node_id]["name"] for node_id in saved["pages"][page]["elements"]]


def painted(page) -> int:
    return int(page.locator(".dbk-canvas").get_attribute("data-painted") or 0)


def wait_for(predicate, what: str, timeout: float = 15):
    return wait_until(predicate, timeout=timeout, interval=0.1, what=what)


class LoopbackListener:
    """A loopback HTTP server that counts the requests it gets: injected script that
    phones home shows up here (and must not)."""

    def __init__(self) -> None:
        listener = self

        class Count(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                listener.hits += 1
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args) -> None:  # noqa: ANN002
                pass

        self.hits = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Count)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hit"

    def __enter__(self) -> LoopbackListener:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:  # noqa: ANN002
        self._server.shutdown()
        self._server.server_close()


def session_token_payloads(html: str) -> list[dict]:
    """Every Bokeh session token written into a page, decoded as a script in the page could."""
    from bokeh.util.token import get_token_payload

    return [get_token_payload(token) for token in re.findall(r'"token":\s*"([A-Za-z0-9_\-.]+)"', html)]


def cookie_readable_key(value: str, key: str) -> bool:
    """Whether a cookie value gives the key away, as is or in any base64 part of it (Tornado's
    signed cookies are `2|1:0|10:<time>|3:<name>|<len>:<base64 value>|<signature>`)."""
    if key in value:
        return True
    for part in re.split(r"[|:]", value):
        try:
            if key in base64.b64decode(part + "=" * (-len(part) % 4)).decode(errors="ignore"):
                return True
        except ValueError:
            continue
    return False
