"""Security headers on every response of the one server (issue 12).

A Tornado output transform sees every response (Panel's and Bokeh's pages, static files,
our API and sign-in pages), so no handler can forget them. A page that sets its own,
stricter policy (the sign-in page: no script at all) keeps it.

The workbench page's Content-Security-Policy allows this origin only; no third party.
What Panel and Bokeh need beyond `'self'`, found by running the editor in headless
Chromium with each relaxation removed in turn:
- script-src 'unsafe-inline': Bokeh writes the document and its session token into the
  page as inline scripts, different on every load (so no hash can name them).
- script-src 'unsafe-eval' and blob: (script and connect): Panel loads each JSComponent's
  ESM (our canvas, pickers, forms) from a blob: URL and compiles it with `new Function`.
- style-src 'unsafe-inline': Bokeh styles its components with inline <style> elements.
- img-src data:: the canvas preview and thumbnails are data: URLs.
"""

from __future__ import annotations

from tornado import httputil
from tornado.web import OutputTransform


def workbench_policy(host: str, https: bool) -> str:
    socket = f"{'wss' if https else 'ws'}://{host}"
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            f"connect-src 'self' {socket} blob:",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


class SecurityHeaders(OutputTransform):
    def __init__(self, request: httputil.HTTPServerRequest) -> None:
        self.host = request.host
        self.https = request.protocol == "https"

    def transform_first_chunk(
        self, status_code: int, headers: httputil.HTTPHeaders, chunk: bytes, finishing: bool
    ) -> tuple[int, httputil.HTTPHeaders, bytes]:
        headers["X-Content-Type-Options"] = "nosniff"
        headers["X-Frame-Options"] = "DENY"
        if "Referrer-Policy" not in headers:
            headers["Referrer-Policy"] = "same-origin"
        if "Content-Security-Policy" not in headers and headers.get("Content-Type", "").startswith("text/html"):
            headers["Content-Security-Policy"] = workbench_policy(self.host, self.https)
        return status_code, headers, chunk
