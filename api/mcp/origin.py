"""DNS-rebinding protection for `/mcp` (MCP transport, "Security Warning": servers MUST
validate the Origin header; revision 2025-11-25 adds: present and invalid → 403).

A page on another site whose name was rebound to this machine sends its own Origin, so
only the server's own origins are accepted. The Host header is never consulted: under
rebinding it names the attacker's site too. Requests without Origin (non-browser MCP
clients) are not affected.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..settings import Settings

DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def normalise(origin: str) -> str | None:
    """`scheme://host[:port]`, lower-cased, default port dropped; None if it is no http(s) origin."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), parts.hostname
    if scheme not in DEFAULT_PORTS or not host or parts.path or parts.query or parts.fragment:
        return None
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + ("" if port in (None, DEFAULT_PORTS[scheme]) else f":{port}")


def own_origins(settings: Settings) -> frozenset[str]:
    """The origins of pages this server serves: its host and loopback names on its port, and --base-url's."""
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    candidates = [f"http://{name}:{settings.port}" for name in (*LOOPBACK, host)]
    if settings.base_url:
        candidates.append(settings.base_url)
    return frozenset(found for found in map(normalise, candidates) if found)


def refusal(origin: str, settings: Settings) -> str | None:
    """Why a request with this Origin may not use /mcp, or None if it may."""
    if normalise(origin) in own_origins(settings):
        return None
    return (
        f"Origin {origin[:200]!r} may not call /mcp (DNS-rebinding protection): call it from a non-browser client, "
        "which sends no Origin, or from a page served by this server; if the server is reached under another "
        "address, start it with --base-url set to that address"
    )
