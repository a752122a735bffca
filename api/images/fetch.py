"""Fetch an `https://` image once, safely (no SSRF, no DNS rebinding, bounded size and time).

The host name is resolved once; every address it resolves to must be public (unless
`allow_private`), and the connection goes to a vetted address itself, with TLS SNI and
certificate verification against the host name. Redirects (at most 3) are vetted the
same way. Every refusal is a `FetchRefused` whose message is meant for API clients.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import quote, urljoin, urlsplit

from engine.media.images import sniff

MAX_REDIRECTS = 3
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "docbench-image-fetch/1"
_CHUNK = 64 * 1024
_MB = 1024 * 1024
# Cloud instance metadata: refused even when private addresses are allowed.
METADATA_ADDRESSES = frozenset({ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")})
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_PRINTABLE_ASCII = "".join(chr(c) for c in range(0x21, 0x7F))

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class FetchRefused(ValueError):
    """A URL we will not fetch, or a fetch that failed; the message is meant for API clients."""


class ResolverUnavailable(FetchRefused):
    """The host's name could not be looked up right now (a temporary DNS failure, EAI_AGAIN):
    not the URL's fault, so a caller that keeps answers (idempotency) should answer 503, not
    400. A name that does not exist stays a plain FetchRefused."""


@dataclass(frozen=True)
class _Target:
    url: str
    host: str  # as in the URL, lowercased, without brackets: used for SNI, certificate check and Host
    port: int
    path: str  # path and query, never empty


def fetch_image(
    url: str,
    *,
    max_bytes: int = 10 * 1024 * 1024,
    timeout: float = 10.0,
    allow_private: bool = False,
    cafile: str | None = None,
) -> bytes:
    """The bytes of the PNG/JPEG/WebP/SVG image at `url`; FetchRefused otherwise.

    `timeout` bounds the whole fetch (connects, TLS handshakes, reads, redirects).
    `cafile` replaces the system trust store (tests use a self-signed certificate).
    """
    deadline = time.monotonic() + timeout
    context: ssl.SSLContext | None = None
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        target = _parse(current)
        addresses = _resolve(target, allow_private)
        if context is None:  # built once the URL is vetted: loading the trust store takes a while
            context = ssl.create_default_context(cafile=cafile)
            context.minimum_version = ssl.TLSVersion.TLSv1_2
        location = _get(target, addresses, context, deadline, max_bytes)
        if isinstance(location, bytes):
            return _check_image(location)
        current = urljoin(target.url, location)
    raise FetchRefused(f"too many redirects: at most {MAX_REDIRECTS} are followed; use the image's final URL")


# --- URL and address vetting -------------------------------------------------------


def _parse(
    url: str,
    noun: str = "image URL",
    schemes: tuple[str, ...] = ("https",),
    fix: str = "host the image on HTTPS or upload it",
) -> _Target:
    """`url` vetted; `noun`, `schemes` and `fix` let the webhooks (api/service/webhooks.py) reuse it."""
    if not isinstance(url, str) or not url.strip():
        raise FetchRefused(f"the {noun} is empty")
    url = url.strip()
    if any(ord(c) <= 0x20 or ord(c) == 0x7F for c in url):
        raise FetchRefused(f"the {noun} contains spaces or control characters: percent-encode them")
    try:
        parts = urlsplit(url)
        port = parts.port or (80 if parts.scheme.lower() == "http" else 443)
    except ValueError:
        raise FetchRefused(f"the {noun} is malformed") from None
    scheme = parts.scheme.lower()
    if scheme not in schemes:
        shown = f"{scheme}:" if scheme else "a URL without a scheme"
        accepted = " or ".join(f"{s}://" for s in schemes)
        raise FetchRefused(f"only {accepted} {noun}s are accepted (got {shown}); {fix}")
    if "@" in parts.netloc or parts.username is not None or parts.password is not None:
        raise FetchRefused(f"{noun}s may not contain a user name or password")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise FetchRefused(f"the {noun} has no host")
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise FetchRefused(f"the {noun}'s host name is not valid") from None
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    path = quote(path, safe=_PRINTABLE_ASCII)  # non-ASCII characters travel percent-encoded (UTF-8)
    return _Target(url=url, host=host, port=port, path=path)


def _resolve(
    target: _Target,
    allow_private: bool,
    fix: str = "only public addresses are fetched: host the image publicly or upload it",
) -> list[IPAddress]:
    """Every address the host resolves to, each vetted; an IP literal is not looked up."""
    try:
        literal: IPAddress | None = ipaddress.ip_address(target.host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [literal]
    else:
        try:
            infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
        except socket.gaierror as exc:
            if exc.errno == socket.EAI_AGAIN:
                raise ResolverUnavailable(
                    f"could not resolve the host {target.host[:100]} right now (a temporary DNS failure); try again"
                ) from None
            raise FetchRefused(_unresolved(target.host)) from None
        except (OSError, UnicodeError):
            raise FetchRefused(_unresolved(target.host)) from None
        addresses = []
        for info in infos:
            try:
                address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
            except ValueError:
                continue
            if address not in addresses:
                addresses.append(address)
        if not addresses:
            raise FetchRefused(_unresolved(target.host))
    for address in addresses:
        reason = _forbidden(address, allow_private)
        if reason is not None:
            # The category, never the address: echoing what a name resolves to would make
            # this a DNS oracle for hosts the client cannot resolve itself (internal zones).
            raise FetchRefused(f"the host {target.host[:100]} resolves to {reason} address; {fix}")
    return addresses


def _unresolved(host: str) -> str:
    return f"the host {host[:100]} could not be resolved; check the URL's host name"


def _forbidden(address: IPAddress, allow_private: bool) -> str | None:
    """Why an address may not be fetched from, or None."""
    candidates = [address]
    if isinstance(address, ipaddress.IPv6Address):
        embedded = [address.ipv4_mapped, address.sixtofour, address.teredo[1] if address.teredo else None]
        if address in _NAT64:
            embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
        candidates = [a for a in embedded if a is not None] + candidates  # the IPv4 inside says most
    for candidate in candidates:
        if candidate in METADATA_ADDRESSES:
            return "the cloud metadata"
        if allow_private:
            continue
        for reason, flag in (
            ("an unspecified", candidate.is_unspecified),
            ("a loopback", candidate.is_loopback),
            ("a link-local", candidate.is_link_local),
            ("a multicast", candidate.is_multicast),
            ("a reserved", candidate.is_reserved),
            ("a private", candidate.is_private),
            ("a site-local", getattr(candidate, "is_site_local", False)),
            ("a non-public", not candidate.is_global),
        ):
            if flag:
                return reason
    return None


# --- the request -------------------------------------------------------------------


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a given, already vetted IP; SNI and certificate checks use the host name."""

    def __init__(self, target: _Target, address: IPAddress, context: ssl.SSLContext, timeout: float):
        super().__init__(target.host, target.port, timeout=timeout, context=context)
        self._address = address
        self._tls = context

    def connect(self) -> None:
        # Straight to the address: socket.create_connection would look the address up again.
        family = socket.AF_INET6 if self._address.version == 6 else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(self.timeout)
            sock.connect((str(self._address), self.port))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise


def _remaining(deadline: float, timeout_message: str) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise FetchRefused(timeout_message)
    return left


def _get(
    target: _Target, addresses: list[IPAddress], context: ssl.SSLContext, deadline: float, max_bytes: int
) -> bytes | str:
    """The body of a 200 answer, or the Location of a redirect."""
    timed_out = f"fetching the image from {target.host[:100]} timed out"
    last_error: str | None = None
    for address in addresses:
        conn = _PinnedHTTPSConnection(target, address, context, _remaining(deadline, timed_out))
        try:
            try:
                conn.connect()
            except ssl.SSLCertVerificationError:
                raise FetchRefused(
                    f"the TLS certificate of {target.host[:100]} could not be verified; "
                    "the image must be served with a valid certificate"
                ) from None
            except ssl.SSLError:
                raise FetchRefused(f"the TLS handshake with {target.host[:100]} failed") from None
            except TimeoutError:
                raise FetchRefused(timed_out) from None
            except OSError:
                last_error = f"could not connect to {target.host[:100]}"
                continue  # try the host's next address
            # Per-operation timeouts alone let a server drip bytes forever: the watchdog
            # shuts the socket down at the deadline, whatever read is in progress.
            sock = conn.sock  # http.client drops conn.sock once a "Connection: close" answer starts
            watchdog = threading.Timer(_remaining(deadline, timed_out), _shut, (sock,))
            watchdog.daemon = True
            watchdog.start()
            try:
                return _exchange(conn, sock, target, deadline, max_bytes, timed_out)
            finally:
                watchdog.cancel()
                sock.close()
        finally:
            conn.close()
    raise FetchRefused(last_error or f"could not connect to {target.host[:100]}")


def _shut(sock: socket.socket | None) -> None:
    if sock is not None:
        try:
            socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the raw socket: safe from another thread
        except OSError:
            pass


def _exchange(
    conn: _PinnedHTTPSConnection, sock: ssl.SSLSocket, target: _Target, deadline: float, max_bytes: int, timed_out: str
) -> bytes | str:
    response: http.client.HTTPResponse | None = None
    try:
        sock.settimeout(_remaining(deadline, timed_out))
        conn.request(
            "GET",
            target.path,
            headers={
                "User-Agent": USER_AGENT,
                "Accept": "image/png,image/jpeg,image/webp,image/svg+xml;q=0.9,*/*;q=0.1",
                "Accept-Encoding": "identity",
                "Connection": "close",
            },
        )
        response = conn.getresponse()
        if response.status in REDIRECT_STATUSES:
            location = response.getheader("Location")
            if not location:
                raise FetchRefused(f"the server answered {response.status} without a Location to redirect to")
            return location.strip()
        if response.status != 200:
            reason = " ".join(str(response.reason or "").split())[:60]
            raise FetchRefused(f"the server answered {response.status} {reason}".rstrip() + " for the image URL")
        length = response.getheader("Content-Length")
        if length is not None and length.strip().isdigit() and int(length) > max_bytes:
            raise FetchRefused(_too_big(int(length), max_bytes))
        chunks: list[bytes] = []
        received = 0
        while True:
            sock.settimeout(_remaining(deadline, timed_out))
            chunk = response.read1(min(_CHUNK, max_bytes + 1 - received))  # one recv at most
            if not chunk:
                break
            chunks.append(chunk)
            received += len(chunk)
            if received > max_bytes:
                raise FetchRefused(_too_big(None, max_bytes))
        if time.monotonic() >= deadline:  # the watchdog ended the read: the body may be cut short
            raise FetchRefused(timed_out)
        return b"".join(chunks)
    except FetchRefused:
        raise
    except (http.client.HTTPException, OSError, ValueError) as exc:
        if isinstance(exc, TimeoutError) or time.monotonic() >= deadline:
            raise FetchRefused(timed_out) from None
        raise FetchRefused(f"the server at {target.host[:100]} sent an invalid or incomplete HTTP answer") from None
    finally:
        if response is not None:
            response.close()


def _check_image(body: bytes) -> bytes:
    if not body:
        raise FetchRefused("the image URL returned an empty body")
    if sniff(body) is None:
        raise FetchRefused("the URL did not return a PNG, JPEG, WebP or SVG image")
    return body


def _too_big(size: int | None, max_bytes: int) -> str:
    def shown(n: int) -> str:
        return f"{round(n / _MB, 1):g} MB" if n >= _MB else f"{n:,} bytes"

    if size is None:
        return f"the image is larger than {shown(max_bytes)}, the limit for images fetched from a URL"
    return f"the image is {shown(size)}; images fetched from a URL are limited to {shown(max_bytes)}"
