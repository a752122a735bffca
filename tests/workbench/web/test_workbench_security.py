"""The workbench against a hostile page and a hostile site (issue 12).

In a real headless Chromium: user text (a design id in the URL, an asset name, a design
and element name) is shown as text and never runs; nothing in the page (its HTML, its
cookies as scripts see them, Bokeh's session token) holds the API key. Over HTTP: the
sign-in and sign-out forms refuse other sites, the headers are sent, sign-ins end when
their key is revoked or with "sign out everywhere".
"""

from __future__ import annotations

import re
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import expect

from api.errors import ApiError
from api.service import Service, Settings

from ...browser import LoopbackListener, cookie_readable_key, open_design, session_token_payloads, sign_in
from ...conftest import add, png
from ...server import Server, docbench

RUN_ON_BOTH_STORES = True  # the tests that ask for `store` (the service rule on a real database)

pytestmark = pytest.mark.slow  # browser: `pytest -m "not slow"` skips them

FLAG = "__dbk_pwned"


def payload(listener: LoopbackListener) -> str:
    """Markup that, if ever parsed as HTML, sets a flag and calls the listener."""
    return f"<img src=x onerror=\"window.{FLAG}=1;new Image().src='{listener.url}'\">"


@pytest.fixture(scope="module")
def listener():
    with LoopbackListener() as running:
        yield running


def new_server(tmp_path, names: tuple[str, ...], **kwargs) -> tuple[Server, dict[str, tuple[str, str]]]:
    """A server of our own (these tests sign people out), with workspaces made before it starts."""
    service = Service(Settings(data_dir=tmp_path))
    workspaces = {}
    for name in names:
        workspace, key = service.accounts.create_workspace(name, "pro", 100)
        workspaces[name] = (workspace.id, key)
    service.close()
    return Server(tmp_path, **kwargs).start(), workspaces


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    server, workspaces = new_server(tmp_path_factory.mktemp("web-security"), ("victim", "roamer"))
    server.workspaces = workspaces
    yield server
    server.stop()


@pytest.fixture
def victim(web):
    with web.client(web.workspaces["victim"][1]) as client:
        yield client


def not_run(page, listener: LoopbackListener) -> None:
    page.wait_for_timeout(300)  # give an injected handler its chance; what follows must still hold
    assert page.evaluate(f"window.{FLAG}") is None, "injected markup ran in the page"
    assert listener.hits == 0


def test_a_design_id_in_the_url_is_shown_as_text(web, page, listener):
    sign_in(page, web, web.workspaces["victim"][1])
    hostile = payload(listener)
    page.goto(f"{web.url}/?design={quote(hostile)}")
    alert = page.locator(".alert-danger", has_text="no design")
    alert.wait_for()
    not_run(page, listener)
    expect(alert).to_contain_text("<img src=x onerror=")  # the id, shown as the characters typed


def test_an_asset_name_is_shown_as_text(web, page, listener, victim):
    hostile = payload(listener)
    files = {"file": ("a.png", png(), "image/png")}
    victim.data(victim.post("/assets", files=files, data={"name": hostile}), 201)
    design_id = victim.data(victim.post("/designs", json={"name": "Assets"}), 201)["designId"]
    sign_in(page, web, web.workspaces["victim"][1])
    open_design(page, web, design_id)
    page.locator(".bk-tab", has_text="Images").click()
    page.locator(".dbk-asset").first.wait_for()
    not_run(page, listener)
    expect(page.locator(".dbk-asset").first).to_contain_text("<img src=x onerror=")


def test_design_and_element_names_are_shown_as_text(web, page, listener, victim):
    hostile = payload(listener)
    design_id = victim.data(victim.post("/designs", json={"name": hostile}), 201)["designId"]
    element = add("text", "Field " + hostile, {"x": 60, "y": 60}, {"content": "Hi"})
    victim.data(victim.patch(f"/designs/{design_id}/tree", json={"actions": [element]}), 200)
    sign_in(page, web, web.workspaces["victim"][1])
    expect(page.locator(".dbk-card-name input").first).to_have_value(hostile)  # the gallery
    open_design(page, web, design_id)
    expect(page.locator(".dbk-box .dbk-label").first).to_contain_text("<img src=x")  # the canvas
    expect(page.locator(".dbk-layer").first).to_contain_text("<img src=x")  # the layer list
    page.locator(".bk-tab", has_text="Variables").click()
    expect(page.locator(".dbk-variable-label").first).to_contain_text("<img src=x")
    with page.expect_download():
        page.locator(".dbk-generate button").click()  # "Generated <file name from the design's>.pdf"
    expect(page.locator(".alert-success", has_text="Generated")).to_contain_text("img src=x onerror=")
    not_run(page, listener)


def test_no_api_key_is_readable_from_the_page(web, page):
    key = web.workspaces["victim"][1]
    sign_in(page, web, key)
    # A proxy in front may add credentials of its own: none of them may reach the page either.
    page.set_extra_http_headers({"Authorization": "Basic cHJveHk6c2VjcmV0", "X-Forwarded-User": "proxy-user-7c1e"})
    response = page.goto(web.url + "/")
    html = response.text()
    assert key not in html and "cHJveHk6c2VjcmV0" not in html and "proxy-user-7c1e" not in html
    tokens = session_token_payloads(html)
    assert tokens, "Bokeh's session token was not found in the page"
    for token in tokens:
        assert key not in str(token)
        assert token.get("cookies") == {}, "Bokeh copied cookies into the page"
        assert set(token.get("headers", {})) <= {"User-Agent", "Accept-Language"}, token.get("headers")
    assert "dbk" not in page.evaluate("document.cookie")  # HttpOnly
    (cookie,) = [c for c in page.context.cookies() if c["name"] == "dbk"]
    assert not cookie_readable_key(cookie["value"], key), "the cookie carries the API key"
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"


def test_the_workbench_page_sends_the_security_headers(web, page):
    sign_in(page, web, web.workspaces["victim"][1])
    headers = page.goto(web.url + "/").headers
    policy = headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert f"connect-src 'self' ws://127.0.0.1:{web.port}" in policy
    assert "http:" not in policy.replace(f"ws://127.0.0.1:{web.port}", "")  # own origin only, no third party
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    sign_in_page = httpx.get(web.url + "/signin")
    assert sign_in_page.headers["content-security-policy"].startswith("default-src 'none'")
    assert "script-src" not in sign_in_page.headers["content-security-policy"]
    assert sign_in_page.headers["x-frame-options"] == "DENY"
    assert httpx.get(web.api + "/health").headers["x-content-type-options"] == "nosniff"


def xsrf_of(client: httpx.Client, base: str) -> str:
    form = client.get(base + "/signin").text
    return re.search(r'name="_xsrf" value="([^"]+)"', form).group(1)


def test_a_sign_in_posted_from_another_site_is_refused(web):
    key = web.workspaces["victim"][1]
    with httpx.Client() as attacker:  # a cross-site form: no XSRF token of ours
        refused = attacker.post(web.url + "/signin", data={"api_key": key}, headers={"Origin": "http://evil.example"})
        assert refused.status_code == 403 and "dbk" not in refused.cookies
    with httpx.Client() as browser:  # even with this browser's token, another Origin is refused
        token = xsrf_of(browser, web.url)
        refused = browser.post(
            web.url + "/signin", data={"api_key": key, "_xsrf": token}, headers={"Origin": "http://evil.example"}
        )
        assert refused.status_code == 403 and "dbk" not in refused.cookies
        accepted = browser.post(web.url + "/signin", data={"api_key": key, "_xsrf": token})
        assert accepted.status_code == 302 and "dbk" in accepted.cookies


def test_a_get_of_signout_signs_nobody_out(web):
    key = web.workspaces["victim"][1]
    with httpx.Client() as browser:
        signed_in = browser.post(web.url + "/signin", data={"api_key": key, "_xsrf": xsrf_of(browser, web.url)})
        assert signed_in.status_code == 302
        assert browser.get(web.url + "/signout").status_code == 200  # a confirmation form, nothing more
        assert browser.get(web.url + "/").status_code == 200  # still signed in: the page, not a redirect
        refused = browser.post(web.url + "/signout", data={}, headers={"Origin": "http://evil.example"})
        assert refused.status_code == 403
        assert browser.get(web.url + "/").status_code == 200


def test_sign_out_everywhere_ends_the_other_browsers_sessions(web, page, browser):
    key = web.workspaces["roamer"][1]
    sign_in(page, web, key)
    other = browser.new_context()
    try:
        elsewhere = other.new_page()
        sign_in(elsewhere, web, key)
        elsewhere.locator(".dbk-signout-all button").click()
        elsewhere.locator("input[name=api_key]").wait_for()
    finally:
        other.close()
    # The first browser's open page notices on its next check, without a reload.
    page.locator(".dbk-signed-out").wait_for(timeout=15_000)
    page.goto(web.url + "/")
    assert "/signin" in page.url


@pytest.mark.usefixtures("database_url")  # on DuckDB, then on a fresh PostgreSQL database
def test_browser_sessions_end_with_their_key(tmp_path):
    """The service rule, against a real database: revoking a key ends the sign-ins made with it."""
    service = Service(Settings(data_dir=tmp_path))
    try:
        workspace, key = service.accounts.create_workspace("w", "pro", 0)
        other_key = service.accounts.create_key(workspace.id)
        with_key = service.accounts.start_browser_session(workspace.id, key)
        with_other = service.accounts.start_browser_session(workspace.id, other_key)
        by_link = service.accounts.start_browser_session(workspace.id)
        assert key not in with_key
        service.accounts.revoke_key(key)
        with pytest.raises(ApiError) as ended:
            service.accounts.browser_session(with_key)
        assert ended.value.code == "UNAUTHORIZED"
        assert service.accounts.browser_session(with_other).workspace_id == workspace.id
        assert service.accounts.browser_session(by_link).key_id is None
        assert service.accounts.end_browser_sessions(workspace.id) == 2
        with pytest.raises(ApiError):
            service.accounts.browser_session(by_link)
    finally:
        service.close()


def test_a_revoked_keys_browser_is_signed_out(tmp_path, page):
    server, workspaces = new_server(tmp_path, ("revoked",))
    key = workspaces["revoked"][1]
    try:
        sign_in(page, server, key)
        # Leave the page before the server stops: Bokeh answers a live page's messages with
        # errors while it shuts down, which is not what this test is about.
        page.goto("about:blank")
    finally:
        server.stop()
    assert docbench("key", "revoke", key, data_dir=tmp_path).returncode == 0
    server.start()
    try:
        page.goto(server.url + "/")
        page.locator("input[name=api_key]").wait_for()
        assert "/signin" in page.url
    finally:
        server.stop()


def test_the_cookies_are_secure_behind_an_https_base_url(tmp_path):
    server, workspaces = new_server(tmp_path, ("secure",), args=("--base-url", "https://docs.example"))
    try:
        form = httpx.get(server.url + "/signin")
        xsrf_cookie = form.headers["set-cookie"]
        assert "Secure" in xsrf_cookie and "SameSite=Strict" in xsrf_cookie
        token = re.search(r'name="_xsrf" value="([^"]+)"', form.text).group(1)
        signed_in = httpx.post(
            server.url + "/signin",
            data={"api_key": workspaces["secure"][1], "_xsrf": token},
            headers={"Cookie": xsrf_cookie.split(";")[0]},
        )
        assert signed_in.status_code == 302
        assert "Secure" in signed_in.headers["set-cookie"] and "HttpOnly" in signed_in.headers["set-cookie"]
    finally:
        server.stop()
