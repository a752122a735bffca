"""One server: the workbench (Panel) at `/`, the API at `/api/v1`, MCP at `/mcp`, files at `/files`.

Panel's server is a Tornado application; our handlers join it as extra patterns, so
everything shares one IOLoop and one port. Panel's own routes come first
(`/ws`, `/static/…`, `/autoload.js`…); ours never reuse those names.
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor

# The page must load offline: Bokeh and Panel assets from this server, never a CDN.
os.environ["BOKEH_RESOURCES"] = "server"

import panel as pn  # noqa: E402

from api.blobs import derived_secret, secret_in  # noqa: E402
from api.mcp import McpHandler, Sessions, ToolSet  # noqa: E402
from api.operations import Executors  # noqa: E402
from api.rest import max_body_size, routes  # noqa: E402
from api.service import Service  # noqa: E402

from ..editor import lanes as ui_threads  # noqa: E402
from ..editor.style import STYLESHEET as CSS  # noqa: E402
from ..web.page import workbench_app  # noqa: E402
from ..web.signin import BrowserAuth, SignInHandler, SignOutHandler  # noqa: E402
from .headers import SecurityHeaders  # noqa: E402
from .signin_links import SignInTokens  # noqa: E402

# Browser callbacks mostly wait (on render processes, the database): a gallery filling its
# thumbnails holds a thread for seconds, and a few pages doing so must not leave another
# page's click without a thread. The render processes, not these threads, bound the CPU.
UI_THREADS = 12
RENDER_THREADS = 32
# Threads for calls that check a whole design tree (GET /variables, batch submissions): CPU
# work that holds the interpreter, so more threads would not finish it sooner (issue 31).
TREE_THREADS = 2


def api_patterns(service: Service, executors: Executors, tokens: SignInTokens) -> list[tuple]:
    mcp = {"service": service, "executors": executors, "tools": ToolSet(), "sessions": Sessions(service.store)}
    specs = routes(service, executors)
    return [
        (r"/signin/?$", SignInHandler, {"service": service, "tokens": tokens}),
        (r"/signout/?$", SignOutHandler),
        (r"/mcp/?$", McpHandler, mcp),
        # Bokeh's router takes tuples, not URLSpec objects.
        *[(spec.regex.pattern, spec.handler_class, spec.kwargs) for spec in specs],
    ]


def build_server(service: Service, tokens: SignInTokens):  # noqa: ANN201
    """A Panel server (not started) with every route of docbench on it."""
    settings = service.settings
    executor = ThreadPoolExecutor(max_workers=settings.api_threads, thread_name_prefix="docbench-work")
    # Threads that mostly wait on a render process: many, since the processes bound the CPU used.
    render_threads = ThreadPoolExecutor(max_workers=RENDER_THREADS, thread_name_prefix="docbench-render")
    tree_threads = ThreadPoolExecutor(max_workers=TREE_THREADS, thread_name_prefix="docbench-trees")
    executors = Executors(light=executor, render=render_threads, trees=tree_threads)
    service.renderers.start()
    # Browser events run on a pool, so a slow callback never stalls the API (`num_threads`
    # given to pn.serve is ignored; the config value is what counts), each page's in order.
    ui_threads.install(UI_THREADS)
    pn.config.raw_css = [*pn.config.raw_css, CSS]
    # Several processes share --secret (a cookie set by one is read by another); one keeps a file.
    shared = service.settings.secret
    secret = derived_secret(shared, "cookies").hex() if shared else secret_in(settings.data_dir / "cookie-secret")
    https = (settings.base_url or "").lower().startswith("https://")
    auth = BrowserAuth(service, secure=https)
    port = settings.port
    origins = [f"127.0.0.1:{port}", f"localhost:{port}", f"{settings.host}:{port}"]
    if settings.base_url:
        from urllib.parse import urlsplit

        origins.append(urlsplit(settings.base_url).netloc)
    server = pn.serve(
        {"/": workbench_app(service)},
        port=port,
        address=settings.host,
        show=False,
        start=False,
        verbose=False,
        title="docbench",
        extra_patterns=api_patterns(service, executors, tokens),
        websocket_origin=sorted(set(origins)),
        cookie_secret=secret,
        executor=executor,
        http_server_kwargs={"max_body_size": max_body_size(settings), "xheaders": True},
        # Who is signed in is decided at the Tornado level, from the real cookie ...
        auth_provider=auth,
        # ... and Bokeh copies no cookie and only harmless headers into the session token it
        # writes into the page, where any script could read it (issue 12): an allow-list, so a
        # proxy's Authorization or forwarded credentials never reach the page either.
        include_cookies=[],
        include_headers=["User-Agent", "Accept-Language"],
    )
    application = server._tornado  # Bokeh's Tornado application (no public accessor)
    application.transforms.append(SecurityHeaders)
    # Tornado's XSRF cookie guards the sign-in and sign-out forms; scripts never need it.
    application.settings["xsrf_cookie_kwargs"] = {"httponly": True, "samesite": "Strict", "secure": https}
    return server


async def close_browser_connections(server, timeout: float = 3.0) -> None:  # noqa: ANN001
    """Close every page's websocket (1001, going away) before the server stops.

    Bokeh's stop detaches each session from its connection but leaves the socket open; when
    the loop then ends, the socket's task is cancelled and its `on_close` asks the detached
    connection for its session: an AssertionError traceback for every open tab (issue 14).
    Closed first, each socket ends as a tab closing does: its session is told, then forgotten.
    A browser that does not answer within `timeout` is cut off without that handshake."""
    server._http.stop()  # no new connections meanwhile (a page would reconnect); stopping again is a no-op
    application = server._tornado  # Bokeh's Tornado application (no public accessor)
    sockets = [connection._socket for connection in list(application._clients)]
    for socket in sockets:
        socket.close(1001, "docbench is stopping")
    deadline = asyncio.get_running_loop().time() + timeout
    while application._clients and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)  # waiting for the browsers' close frames, not synchronising threads
    for connection in list(application._clients):
        application.client_lost(connection)  # the session forgets it; its socket is gone
        connection._socket.connection = None  # so its later on_close has no session to ask for


def configure_logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Client errors (4xx) are answered in the envelope and are not the server's problem;
    # logging each one drowns what matters. Server errors are logged with their request id.
    logging.getLogger("tornado.access").setLevel(logging.ERROR)
    logging.getLogger("bokeh").setLevel(logging.WARNING)
