"""One Tornado application: the workbench at `/`, the API at `/api/v1`, files at `/files`."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from tornado.web import Application, RequestHandler

from api.mcp import McpHandler, Sessions, ToolSet
from api.rest import routes
from api.service import Service

LANDING = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>docbench</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1b2330}
code{background:#eef2f7;padding:.1rem .3rem;border-radius:4px}a{color:#1f4e8c}</style></head>
<body><h1>docbench</h1>
<p>The document-generation service is running. The visual workbench will live on this page.</p>
<ul>
<li>REST API: <code>/api/v1</code>, described by <a href="/api/v1/openapi.json">the OpenAPI document</a></li>
<li>Readiness: <a href="/api/v1/health"><code>/api/v1/health</code></a></li>
<li>MCP (for AI agents): <code>/mcp</code>, streamable HTTP, same key</li>
<li>Authenticate with the workspace key in the <code>X-API-Key</code> header.</li>
</ul></body></html>"""


class LandingHandler(RequestHandler):
    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(LANDING)


def make_app(service: Service) -> Application:
    executor = ThreadPoolExecutor(max_workers=service.settings.render_workers, thread_name_prefix="docbench-work")
    mcp = {"service": service, "executor": executor, "tools": ToolSet(), "sessions": Sessions()}
    app = Application([(r"/", LandingHandler), (r"/mcp/?$", McpHandler, mcp), *routes(service, executor)])
    app.settings["executor"] = executor
    return app


def configure_logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # Client errors (4xx) are answered in the envelope and are not the server's problem;
    # logging each one drowns what matters. Server errors are logged with their request id.
    logging.getLogger("tornado.access").setLevel(logging.ERROR)
