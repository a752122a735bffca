"""api.images.fetch: https-only image fetching with SSRF and DNS-rebinding protection.

Refusals are checked with every socket connection (and name lookup) patched to fail,
so they prove nothing is contacted. The success path uses a real HTTPS server on
127.0.0.1 with a self-signed certificate made by the openssl command line.
"""

from __future__ import annotations

import io
import socket
import ssl
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from PIL import Image

from api.images import fetch as fetch_module
from api.images.fetch import FetchRefused, fetch_image

from ...https_images import make_certificate, serve_https


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 6), (10, 200, 30)).save(out, "PNG")
    return out.getvalue()


PNG = _png()
REAL_GETADDRINFO = socket.getaddrinfo


# --- refusals before any connection ------------------------------------------------------


def _fake_addrinfo(address: str, port: int) -> list[tuple]:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sockaddr = (address, port, 0, 0) if family == socket.AF_INET6 else (address, port)
    return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr)]


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """A fake resolver: host -> addresses; unknown hosts do not resolve. Lookups are counted."""
    table: dict[str, list[str]] = {"localhost": ["127.0.0.1", "::1"], "2130706433": ["127.0.0.1"]}
    table["__lookups__"] = []

    def getaddrinfo(host: str, port: int, *args: object, **kwargs: object) -> list[tuple]:
        table["__lookups__"].append(host)
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [info for address in table[host] for info in _fake_addrinfo(address, port)]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return table


@pytest.fixture
def no_connections(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    attempts: list[object] = []

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(args)
        raise AssertionError(f"a connection was attempted: {args}")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    return attempts


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://example.com/x.png", "only https://"),
        ("HTTP://example.com/x.png", "only https://"),
        ("file:///etc/passwd", "only https://"),
        ("data:image/png;base64,iVBORw0KGgo=", "only https://"),
        ("ftp://example.com/x.png", "only https://"),
        ("gopher://127.0.0.1:6379/_INFO", "only https://"),
        ("//example.com/x.png", "only https://"),
        ("example.com/x.png", "only https://"),
        ("", "empty"),
        ("https://", "no host"),
        ("https://user:secret@example.com/x.png", "user name or password"),
        ("https://user@example.com/x.png", "user name or password"),
        ("https://example.com@127.0.0.1/x.png", "user name or password"),
        ("https://example.com/a b.png", "spaces or control characters"),
        ("https://example.com/x.png\r\nHost: evil", "spaces or control characters"),
        ("https://example.com:99999/x.png", "malformed"),
        ("https://[::1/x.png", "malformed"),
    ],
)
def test_malformed_or_non_https_urls_are_refused(url: str, expected: str, dns: dict, no_connections: list) -> None:
    with pytest.raises(FetchRefused, match=expected):
        fetch_image(url)
    assert no_connections == []
    assert dns["__lookups__"] == []


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("https://127.0.0.1/x.png", "loopback"),
        ("https://127.0.0.1:8443/x.png", "loopback"),
        ("https://localhost/x.png", "loopback"),
        ("https://LOCALHOST./x.png", "loopback"),
        ("https://2130706433/x.png", "loopback"),
        ("https://10.0.0.5/", "private"),
        ("https://192.168.1.1/", "private"),
        ("https://172.16.0.1/", "private"),
        ("https://100.64.0.1/", "non-public"),
        ("https://0.0.0.0/", "unspecified"),
        ("https://169.254.169.254/latest/meta-data", "cloud metadata"),
        ("https://169.254.10.1/", "link-local"),
        ("https://224.0.0.1/", "multicast"),
        ("https://240.0.0.1/", "reserved"),
        ("https://[::1]/", "loopback"),
        ("https://[::]/", "unspecified"),
        ("https://[::ffff:127.0.0.1]/x.png", "loopback"),
        ("https://[::ffff:7f00:1]/x.png", "loopback"),
        ("https://[::ffff:10.0.0.5]/x.png", "private"),
        ("https://[fe80::1]/", "link-local"),
        ("https://[fd00:ec2::254]/", "cloud metadata"),
        ("https://[fc00::1]/", "private"),
        ("https://[2002:7f00:1::]/", "loopback"),  # 6to4 wrapping 127.0.0.1
        ("https://[64:ff9b::a9fe:a9fe]/", "cloud metadata"),  # NAT64 of 169.254.169.254
    ],
)
def test_non_public_addresses_are_refused_before_connecting(
    url: str, kind: str, dns: dict, no_connections: list
) -> None:
    started = time.monotonic()
    with pytest.raises(FetchRefused) as caught:
        fetch_image(url)
    assert kind in str(caught.value)
    assert "only public addresses" in str(caught.value) or kind == "cloud metadata"
    assert no_connections == []
    assert time.monotonic() - started < 0.5


def test_ip_literals_are_not_looked_up(dns: dict, no_connections: list) -> None:
    with pytest.raises(FetchRefused):
        fetch_image("https://10.0.0.5/x.png")
    assert dns["__lookups__"] == []


def test_a_host_with_any_private_address_is_refused(dns: dict, no_connections: list) -> None:
    dns["mixed.example"] = ["93.184.216.34", "10.1.2.3"]
    with pytest.raises(FetchRefused, match="mixed.example resolves to a private address; only public"):
        fetch_image("https://mixed.example/x.png")
    assert no_connections == []


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("10.1.2.3", "private"),
        ("192.168.77.21", "private"),
        ("127.0.0.9", "loopback"),
        ("169.254.3.4", "link-local"),
        ("169.254.169.254", "cloud metadata"),
        ("100.64.9.9", "non-public"),
        ("fd12:3456::7", "private"),
        ("::ffff:10.9.8.7", "private"),
    ],
)
def test_refusals_name_the_kind_of_address_never_the_address(
    address: str, kind: str, dns: dict, no_connections: list
) -> None:
    """Echoing what a name resolves to would be a DNS oracle for internal zones."""
    dns["internal.example"] = [address]
    with pytest.raises(FetchRefused) as caught:
        fetch_image("https://internal.example/x.png")
    message = str(caught.value)
    assert f"resolves to {'the' if kind == 'cloud metadata' else 'a'} {kind} address" in message
    for shown in {address, address.removeprefix("::ffff:"), address.split(":")[0]} - {""}:
        assert shown not in message


def test_the_metadata_address_is_refused_even_when_private_addresses_are_allowed(
    dns: dict, no_connections: list
) -> None:
    dns["metadata.example"] = ["169.254.169.254"]
    with pytest.raises(FetchRefused, match="cloud metadata"):
        fetch_image("https://metadata.example/latest/meta-data", allow_private=True)
    assert no_connections == []


def test_unresolvable_host_is_refused(dns: dict, no_connections: list) -> None:
    with pytest.raises(FetchRefused, match="could not be resolved"):
        fetch_image("https://nowhere.invalid/x.png")


def test_the_connection_goes_to_the_vetted_address(dns: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    dns["public.example"] = ["93.184.216.34"]
    connected: list[tuple] = []

    def connect(sock: socket.socket, address: tuple) -> None:
        connected.append(address)
        raise ConnectionRefusedError("refused")

    monkeypatch.setattr(socket.socket, "connect", connect)
    with pytest.raises(FetchRefused, match="could not connect to public.example"):
        fetch_image("https://public.example/x.png")
    assert connected == [("93.184.216.34", 443)]
    assert dns["__lookups__"] == ["public.example"]  # resolved once, never again


# --- a real local HTTPS server -------------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_certificate(tmp_path_factory.mktemp("tls"))


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str = "image/png", length: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.server.paths.append(self.path)  # type: ignore[attr-defined]
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        try:
            if url.path == "/ok.png":
                self._send(200, PNG)
            elif url.path.startswith("/hops/"):
                left = int(url.path.rsplit("/", 1)[1])
                if left == 0:
                    self._send(200, PNG)
                else:
                    self.send_response(302)
                    self.send_header("Location", f"/hops/{left - 1}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
            elif url.path == "/redirect":
                self.send_response(302)
                self.send_header("Location", query["to"][0])
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif url.path == "/big.png":
                self._send(200, PNG + b"\0" * 50_000)
            elif url.path == "/stream.png":  # no Content-Length: the body runs until the server closes
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.end_headers()
                self.wfile.write(PNG)
                for _ in range(200):
                    self.wfile.write(b"\0" * 65_536)
            elif url.path == "/page.html":
                self._send(200, b"<!doctype html><title>not an image</title>", "text/html")
            elif url.path == "/empty.png":
                self._send(200, b"")
            elif url.path == "/slow.png":
                time.sleep(1.5)
                self._send(200, PNG)
            elif url.path == "/drip.png":  # each byte arrives well within a read timeout, the whole never does
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.end_headers()
                for _ in range(40):
                    self.wfile.write(b"\0")
                    self.wfile.flush()
                    time.sleep(0.05)
            elif url.path == "/drip-headers.png":  # the headers themselves never end in time
                self.wfile.write(b"HTTP/1.0 200 OK\r\nX-Slow: ")
                for _ in range(40):
                    self.wfile.write(b"z")
                    self.wfile.flush()
                    time.sleep(0.05)
            else:
                self._send(404, b"not found", "text/plain")
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass  # the client stopped reading, as it should


@pytest.fixture(scope="module")
def server(certificate: tuple[Path, Path]) -> Iterator[tuple[str, ThreadingHTTPServer]]:
    with serve_https(_Handler, *certificate) as httpd:
        httpd.paths = []  # type: ignore[attr-defined]
        yield f"https://127.0.0.1:{httpd.server_address[1]}", httpd


@pytest.fixture
def base(server: tuple[str, ThreadingHTTPServer]) -> str:
    return server[0]


@pytest.fixture
def cafile(certificate: tuple[Path, Path]) -> str:
    return str(certificate[0])


def test_fetches_a_png_over_https(base: str, cafile: str) -> None:
    assert fetch_image(f"{base}/ok.png", allow_private=True, cafile=cafile) == PNG


def test_the_certificate_is_checked_against_the_host_name(
    base: str, cafile: str, server: tuple[str, ThreadingHTTPServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    port = server[1].server_address[1]
    names = {"images.example": "127.0.0.1", "wrong.example": "127.0.0.1"}
    lookups: list[str] = []

    def getaddrinfo(host: str, *args: object, **kwargs: object) -> list[tuple]:
        lookups.append(host)
        return _fake_addrinfo(names[host], port)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    # A name on the certificate, pinned to the address it resolved to: accepted.
    assert fetch_image(f"https://images.example:{port}/ok.png", allow_private=True, cafile=cafile) == PNG
    assert lookups == ["images.example"]
    # The same server under a name its certificate does not carry: refused.
    with pytest.raises(FetchRefused, match="certificate of wrong.example could not be verified"):
        fetch_image(f"https://wrong.example:{port}/ok.png", allow_private=True, cafile=cafile)


def test_an_untrusted_certificate_is_refused(base: str) -> None:
    with pytest.raises(FetchRefused, match="could not be verified"):
        fetch_image(f"{base}/ok.png", allow_private=True)  # system trust store: the self-signed cert is unknown


def test_loopback_server_is_refused_without_allow_private(base: str, no_connections: list) -> None:
    with pytest.raises(FetchRefused, match="loopback"):
        fetch_image(f"{base}/ok.png")
    assert no_connections == []


def test_a_body_over_the_limit_is_refused_from_its_content_length(base: str, cafile: str) -> None:
    with pytest.raises(
        FetchRefused, match=r"the image is 50,\d{3} bytes; images fetched from a URL are limited to 1,000"
    ):
        fetch_image(f"{base}/big.png", allow_private=True, cafile=cafile, max_bytes=1_000)


def test_a_body_without_length_stops_being_read_past_the_limit(base: str, cafile: str) -> None:
    started = time.monotonic()
    with pytest.raises(FetchRefused, match="larger than 100,000 bytes, the limit for images fetched from a URL"):
        fetch_image(f"{base}/stream.png", allow_private=True, cafile=cafile, max_bytes=100_000)
    assert time.monotonic() - started < 2


def test_a_body_within_the_limit_is_accepted(base: str, cafile: str) -> None:
    assert fetch_image(f"{base}/ok.png", allow_private=True, cafile=cafile, max_bytes=len(PNG)) == PNG


def test_non_images_are_refused(base: str, cafile: str) -> None:
    with pytest.raises(FetchRefused, match="did not return a PNG, JPEG, WebP or SVG image"):
        fetch_image(f"{base}/page.html", allow_private=True, cafile=cafile)
    with pytest.raises(FetchRefused, match="empty body"):
        fetch_image(f"{base}/empty.png", allow_private=True, cafile=cafile)


def test_a_404_is_refused_with_its_status(base: str, cafile: str) -> None:
    with pytest.raises(FetchRefused, match="the server answered 404 Not Found"):
        fetch_image(f"{base}/nothing-here.png", allow_private=True, cafile=cafile)


def test_redirects_are_followed_up_to_three(base: str, cafile: str) -> None:
    assert fetch_image(f"{base}/hops/3", allow_private=True, cafile=cafile) == PNG
    with pytest.raises(FetchRefused, match="too many redirects"):
        fetch_image(f"{base}/hops/4", allow_private=True, cafile=cafile)


def test_a_redirect_to_a_loopback_url_is_refused(
    cafile: str, server: tuple[str, ThreadingHTTPServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first hop is treated as public; its redirect to another loopback address is vetted and refused."""
    port = server[1].server_address[1]
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: _fake_addrinfo("127.0.0.1", port))
    original = fetch_module._forbidden
    monkeypatch.setattr(
        fetch_module,
        "_forbidden",
        lambda address, allow_private: None if str(address) == "127.0.0.1" else original(address, allow_private),
    )
    assert fetch_image(f"https://images.example:{port}/ok.png", cafile=cafile) == PNG  # the first hop is "public"

    server[1].paths.clear()  # type: ignore[attr-defined]
    for target in (f"https://127.0.0.2:{port}/ok.png", "https://[::1]/ok.png", "https://169.254.169.254/"):
        with pytest.raises(FetchRefused, match="loopback|cloud metadata"):
            fetch_image(f"https://images.example:{port}/redirect?to={target}", cafile=cafile)
    assert all(path.startswith("/redirect") for path in server[1].paths)  # type: ignore[attr-defined]
    with pytest.raises(FetchRefused, match="only https://"):
        fetch_image(f"https://images.example:{port}/redirect?to=http://example.com/x.png", cafile=cafile)


def test_a_slow_server_times_out(base: str, cafile: str) -> None:
    started = time.monotonic()
    with pytest.raises(FetchRefused, match="timed out"):
        fetch_image(f"{base}/slow.png", allow_private=True, cafile=cafile, timeout=0.3)
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize("path", ["/drip.png", "/drip-headers.png"])
def test_a_dripping_server_is_cut_off_at_the_overall_deadline(base: str, cafile: str, path: str) -> None:
    started = time.monotonic()
    with pytest.raises(FetchRefused, match="timed out"):
        fetch_image(f"{base}{path}", allow_private=True, cafile=cafile, timeout=0.4)
    assert time.monotonic() - started < 1.0


def test_non_ascii_paths_are_sent_percent_encoded(base: str, cafile: str, server: tuple) -> None:
    server[1].paths.clear()
    with pytest.raises(FetchRefused, match="404"):
        fetch_image(f"{base}/bilder/größe.png?q=ü", allow_private=True, cafile=cafile)
    assert server[1].paths == ["/bilder/gr%C3%B6%C3%9Fe.png?q=%C3%BC"]


def test_a_temporary_dns_failure_on_an_image_url_is_a_503_not_a_kept_400(tmp_path, monkeypatch) -> None:
    # A resolver that cannot answer right now is not the URL's fault: 503 (a retry may work, and
    # an idempotency key keeps nothing), where a name that does not exist is the action's 400.
    from api.errors import ApiError
    from api.models import CreateDesignBody, PatchTreeBody
    from api.service import Service, Settings

    def getaddrinfo(host: str, port: int, *args: object, **kwargs: object) -> list[tuple]:
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    service = Service(Settings(data_dir=tmp_path))
    try:
        workspace = service.accounts.create_workspace("dns", "pro", 10)[0]
        design_id = service.designs.create(workspace, CreateDesignBody(name="Photo"))["designId"]
        image = {"type": "image", "name": "photo", "position": {"x": 10, "y": 10}}
        image["data"] = {"src": "https://images.example.com/a.png"}
        body = PatchTreeBody.model_validate({"actions": [{"type": "add_element", "args": image}]})
        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
        with pytest.raises(ApiError) as unavailable:
            service.designs.patch_tree(workspace, design_id, body)
        assert unavailable.value.code == "SERVICE_UNAVAILABLE"
        assert "images.example.com" in unavailable.value.message and "try again" in unavailable.value.message
    finally:
        service.close()
