"""The deploy/ folder stays true to the code (docs/operations/scale.md): the Procfile's
command lines parse with the real CLI, the environment template names only variables the
service reads and every one a scaled deployment needs, and the nginx example keeps the
editor's page and websocket on one process while everything else goes to any."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from bokeh.server.urls import per_app_patterns
from bokeh.server.views.ws import WSHandler

from api.errors import STATUS_BY_CODE
from api.http import error_envelope
from api.operations import OPERATIONS, Operation
from api.renderers import RenderLimits
from api.rest import PREFIX, max_body_size
from api.rest.operation import MULTIPART_SLACK
from api.settings import JSON_LIMIT, Settings
from workbench.cli.commands import build_parser, serve, worker
from workbench.web.signin import COOKIE

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
PROCFILE = DEPLOY / "Procfile"
ENV_TEMPLATE = DEPLOY / "docbench.env.example"
NGINX = DEPLOY / "nginx.conf.example"
SOURCES = [ROOT / "engine", ROOT / "api", ROOT / "workbench"]

# What several processes need in common (extensions.md section 7) and what the proxy needs
# (the public URL for signed links and the Origin checks): the settings field each one sets.
SCALED_SETTINGS = {
    "DOCBENCH_DATABASE_URL": "database_url",
    "DOCBENCH_BLOB_URL": "blob_url",
    "DOCBENCH_SECRET": "secret",
    "DOCBENCH_REDIS_URL": "redis_url",
    "DOCBENCH_BASE_URL": "base_url",
}
# The bucket's endpoint and credentials: the standard AWS variables api/blobs.py reads.
AWS_VARIABLES = {"AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"}
FIRST_PORT = 5000  # honcho's and foreman's default base port: web.1 gets it, web.2 the next


def procfile_entries() -> dict[str, str]:
    entries = {}
    for line in PROCFILE.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, sep, command = line.partition(":")
            assert sep and re.fullmatch(r"[A-Za-z0-9_]+", name), f"not a Procfile line: {line!r}"
            entries[name] = command.strip()
    return entries


ASSIGNMENT = re.compile(r'^(#\s*)?([A-Z][A-Z0-9_]*)=("[^"]*"|[^\s"\'#]*)\s*$')


def env_template() -> tuple[dict[str, str], set[str]]:
    """The template's assignments (name -> value without quotes) and the names it only
    mentions in commented-out assignments."""
    assigned: dict[str, str] = {}
    commented: set[str] = set()
    for line in ENV_TEMPLATE.read_text().splitlines():
        match = ASSIGNMENT.match(line.strip())
        if match is None:
            assert not line.strip() or line.lstrip().startswith("#"), f"neither a comment nor NAME=value: {line!r}"
            continue
        comment, name, value = match.groups()
        if comment:
            commented.add(name)
        else:
            assigned[name] = value.strip('"')
    return assigned, commented


def variables_the_code_reads() -> set[str]:
    """Every DOCBENCH_/AWS_ name the source reads as a string, and the AWS credentials, which
    boto3 reads itself and api/blobs.py names for the S3 store."""
    names: set[str] = set()
    for folder in SOURCES:
        for path in folder.rglob("*.py"):
            names |= set(re.findall(r"[\"'](DOCBENCH_[A-Z0-9_]+|AWS_[A-Z0-9_]+)[\"']", path.read_text()))
    return names | set(re.findall(r"\b(AWS_[A-Z0-9_]+)", (ROOT / "api" / "blobs.py").read_text()))


def expanded(command: str, environment: dict[str, str]) -> list[str]:
    """The command's argv as the runner's shell gives it (`$NAME` and `${NAME}` expanded)."""
    words = shlex.split(command)

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        assert name in environment, f"{command!r} uses ${name}, which neither the runner nor the template sets"
        return environment[name]

    return [re.sub(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)", value, word) for word in words]


def test_every_procfile_command_parses_with_the_real_cli():
    assigned, _ = env_template()
    environment = {**assigned, "PORT": str(FIRST_PORT)}  # the runner sets PORT for each process
    entries = procfile_entries()
    assert set(entries) == {"web", "worker"}
    for name, command in entries.items():
        assert shlex.split(command)[0] == "docbench", f"{name}: {command!r} is not a docbench command"
    commands = {
        name: build_parser().parse_args(expanded(command, environment)[1:]) for name, command in entries.items()
    }
    assert commands["web"].func is serve
    assert commands["web"].port == FIRST_PORT  # each web process on the port its runner gave it
    assert commands["worker"].func is worker


def test_the_procfile_and_the_template_name_only_variables_the_code_reads():
    read = variables_the_code_reads()
    assigned, commented = env_template()
    named = set(assigned) | commented | set(re.findall(r"\b(DOCBENCH_[A-Z0-9_]+)", PROCFILE.read_text()))
    assert named - read == set(), "named in deploy/ but read nowhere in engine/, api/ or workbench/"


def test_the_template_sets_everything_several_processes_need():
    assigned, _ = env_template()
    assert set(SCALED_SETTINGS) | AWS_VARIABLES <= set(assigned)
    # A PORT in the file would move the runner's base port away from the proxy's upstreams.
    assert "PORT" not in assigned


def test_the_settings_take_the_template_values(monkeypatch):
    assigned, _ = env_template()
    for name, value in assigned.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    for name, attribute in SCALED_SETTINGS.items():
        assert getattr(settings, attribute) == assigned[name], name
    assert settings.render_processes == int(assigned["DOCBENCH_RENDER_PROCESSES"])
    assert settings.data_dir == Path(assigned["DOCBENCH_DATA_DIR"])


# --- nginx -------------------------------------------------------------------------------------


@dataclass
class Directive:
    name: str
    args: list[str]
    block: list[Directive] | None = None

    def find(self, name: str, *args: str) -> list[Directive]:
        return [d for d in self.block or [] if d.name == name and tuple(d.args[: len(args)]) == args]

    def one(self, name: str, *args: str) -> Directive:
        found = self.find(name, *args)
        assert len(found) == 1, f"expected one `{name} {' '.join(args)}`, found {len(found)}"
        return found[0]

    def value(self, name: str) -> list[str] | None:
        found = self.find(name)
        return found[-1].args if found else None


def parse_nginx(text: str) -> Directive:
    """nginx's syntax, enough for the example: directives end with `;`, blocks are `{ … }`."""
    text = re.sub(r"#[^\n]*", "", text)
    tokens = re.findall(r"\"[^\"]*\"|'[^']*'|[{};]|[^\s{};]+", text)
    root = Directive("", [], [])
    stack = [root]
    words: list[str] = []
    for token in tokens:
        if token == ";":
            stack[-1].block.append(Directive(words[0], words[1:]))
            words = []
        elif token == "{":
            block = Directive(words[0], words[1:], [])
            stack[-1].block.append(block)
            stack.append(block)
            words = []
        elif token == "}":
            assert not words, f"unterminated directive {words}"
            stack.pop()
        else:
            words.append(token)
    assert len(stack) == 1 and not words, "unbalanced braces"
    return root


AFFINITY = {"ip_hash", "hash", "sticky"}


def upstream_of(location: Directive) -> str:
    (target,) = location.value("proxy_pass") or [""]
    assert target.startswith("http://"), target
    return target.removeprefix("http://")


def location_for(site: Directive, path: str) -> Directive:
    """The location nginx picks for a path: an exact match, else the first regular expression
    that matches, else the longest prefix."""
    locations = site.find("location")
    for location in locations:
        if location.args[0] == "=" and location.args[1] == path:
            return location
    for location in locations:
        if location.args[0] in ("~", "~*"):
            if re.search(location.args[1], path, re.IGNORECASE if location.args[0] == "~*" else 0):
                return location
    prefixes = [location for location in locations if len(location.args) == 1 and path.startswith(location.args[0])]
    return max(prefixes, key=lambda location: len(location.args[0]))


def effective(site: Directive, location: Directive, name: str, default: str) -> str:
    """A directive's value in a location: its own, else the server's, else nginx's default."""
    value = location.value(name) or site.value(name)
    return value[0] if value else default


def body_limit(operation: Operation) -> int:
    """What OperationHandler accepts: the file's limit plus the multipart headers, or JSON's."""
    return operation.multipart.limit + MULTIPART_SLACK if operation.multipart else JSON_LIMIT


def size_in_bytes(value: str) -> int:
    number, unit = re.fullmatch(r"(\d+)([kKmMgG]?)", value).groups()
    return int(number) * {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[unit.lower()]


def seconds(value: str) -> float:
    number, unit = re.fullmatch(r"(\d+)(ms|s|m|h|d)?", value).groups()
    return int(number) * {"ms": 0.001, "s": 1, None: 1, "m": 60, "h": 3600, "d": 86400}[unit]


@pytest.fixture(scope="module")
def nginx() -> Directive:
    return parse_nginx(NGINX.read_text())


@pytest.fixture(scope="module")
def site(nginx) -> Directive:
    (server,) = [s for s in nginx.find("server") if s.find("location")]
    return server


def bokeh_websocket_path() -> str:
    """Bokeh's websocket route under Panel's app at `/` (workbench/server/app.py serves it there).
    Once Panel is imported the route's handler is Panel's subclass of Bokeh's."""
    (path,) = [pattern for pattern, handler in per_app_patterns if issubclass(handler, WSHandler)]
    return path


def test_the_editor_websocket_and_its_page_go_to_one_sticky_upstream(nginx, site):
    websocket = site.one("location", "=", bokeh_websocket_path())
    page = site.one("location", "=", "/")
    # The page's request makes the Bokeh session that its websocket then joins, in one process.
    assert upstream_of(websocket) == upstream_of(page)
    sticky = nginx.one("upstream", upstream_of(websocket))
    assert {d.name for d in sticky.block} & AFFINITY, "the editor's upstream has no affinity"
    for key in sticky.value("hash") or []:
        if key.startswith("$cookie_"):  # the sign-in cookie, which the page and its socket both carry
            assert key == f"$cookie_{COOKIE}"
    headers = {tuple(d.args[:1]): d.args[1:] for d in websocket.find("proxy_set_header")}
    assert headers[("Upgrade",)] == ["$http_upgrade"]
    assert headers[("Connection",)] == ["$connection_upgrade"]
    # A location's own proxy_set_header drops the server's: the websocket keeps the public host
    # and scheme, which the page's Content-Security-Policy names for its websocket.
    assert headers[("Host",)] == ["$http_host"]
    assert headers[("X-Forwarded-Proto",)] == ["$scheme"]
    assert seconds(websocket.value("proxy_read_timeout")[0]) >= 600


def test_everything_else_goes_to_any_process(nginx, site):
    for path in (("/api/v1/",), ("=", "/mcp"), ("/files/",), ("/",)):
        location = site.one("location", *path)
        upstream = nginx.one("upstream", upstream_of(location))
        assert not {d.name for d in upstream.block} & AFFINITY, f"location {path} has affinity"


def test_both_upstreams_list_the_web_processes_the_procfile_runner_starts(nginx):
    servers = [[d.args[0] for d in upstream.find("server")] for upstream in nginx.find("upstream")]
    assert len(servers) == 2 and servers[0] == servers[1]
    ports = [int(address.rpartition(":")[2]) for address in servers[0]]
    assert ports == list(range(FIRST_PORT, FIRST_PORT + len(ports)))


def test_each_endpoint_takes_exactly_the_bodies_the_service_takes(site):
    """Past its limit the service refuses a body without reading it, and nginx, still sending
    it, would answer 502: so nginx stops each body at exactly its endpoint's limit."""
    with_bodies = [operation for operation in OPERATIONS if operation.body or operation.multipart]
    assert any(operation.multipart for operation in with_bodies)
    for operation in with_bodies:
        path = PREFIX + re.sub(r"{\w+}", "x1", operation.path)
        location = location_for(site, path)
        assert upstream_of(location) == "docbench", path
        limit = size_in_bytes(effective(site, location, "client_max_body_size", "1m"))
        assert limit == body_limit(operation), (
            f"{operation.method} {path}: nginx {limit}, service {body_limit(operation)}"
        )
    # MCP carries files as base64 in its JSON: up to the server-wide ceiling.
    mcp = location_for(site, "/mcp")
    assert size_in_bytes(effective(site, mcp, "client_max_body_size", "1m")) == max_body_size(Settings())


def test_nginx_refuses_a_body_in_the_service_error_envelope(site):
    (named,) = [d.args[-1] for d in site.find("error_page") if "413" in d.args]
    answer = site.one("location", named).one("return")
    assert answer.args[0] == "413" == str(STATUS_BY_CODE["PAYLOAD_TOO_LARGE"])
    body = json.loads(answer.args[1].strip("'"))
    assert body["error"]["code"] == "PAYLOAD_TOO_LARGE"
    assert json.loads(error_envelope("PAYLOAD_TOO_LARGE", body["error"]["message"])) == body
    assert site.one("location", named).value("default_type") == ["application/json"]


def test_generations_have_time_to_render(site):
    render_seconds = RenderLimits.from_environment().render_seconds
    for path in ("/api/v1/designs/x1/generate", "/mcp", "/files/x1"):
        timeout = effective(site, location_for(site, path), "proxy_read_timeout", "60s")
        assert seconds(timeout) > render_seconds, path


def test_the_service_learns_the_public_host_and_scheme(site):
    # Tornado's xheaders: the page's Content-Security-Policy names its websocket from these.
    forwarded = {d.args[0]: d.args[1:] for d in site.find("proxy_set_header")}
    assert forwarded["Host"] == ["$http_host"]
    assert forwarded["X-Forwarded-Proto"] == ["$scheme"]
    assert "X-Forwarded-For" in forwarded


def test_the_manual_names_only_deploy_files_that_exist():
    manual = (ROOT / "docs" / "operations" / "scale.md").read_text()
    named = set(re.findall(r"deploy/[\w.\-]+", manual)) - {"deploy/docbench.env"}  # the copy one makes
    assert named, "the manual's 'Running at scale' points at nothing in deploy/"
    assert {path for path in named if not (ROOT / path).exists()} == set()
    assert (ROOT / "deploy" / "README.md").exists()


def test_the_template_holds_placeholders_not_credentials():
    assigned, _ = env_template()
    for name in ("DOCBENCH_SECRET", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        assert "CHANGE-ME" in assigned[name], name
    password = re.match(r"postgresql://[^:]+:([^@]+)@", assigned["DOCBENCH_DATABASE_URL"]).group(1)
    assert password == "CHANGE-ME"


def test_a_password_in_a_url_is_masked_before_it_is_printed():
    from api.settings import without_password

    assert without_password("redis://:s3cret@cache.internal:6379/0") == "redis://:***@cache.internal:6379/0"
    assert without_password("redis://app:s3cret@cache.internal/1") == "redis://app:***@cache.internal/1"
    assert without_password("redis://cache.internal:6379/0") == "redis://cache.internal:6379/0"


def test_a_process_on_a_shared_database_is_told_what_it_keeps_to_itself(tmp_path):
    from api.settings import Settings

    alone = Settings(data_dir=tmp_path, database_url=None, secret=None, blob_url=None)
    assert alone.unshared() == []  # the embedded defaults: one process, nothing to share
    shared = Settings(data_dir=tmp_path, database_url="postgresql://db/docbench", secret=None, blob_url=None)
    assert [gap.split(" (")[0] for gap in shared.unshared()] == ["no --secret", "no --blob-url"]
    complete = Settings(data_dir=tmp_path, database_url="postgresql://db/x", secret="s", blob_url="s3://b/p")
    assert complete.unshared() == []
    complete.rate_limit = 10  # buckets in each process's memory: the limit multiplies
    assert [gap.split(" (")[0] for gap in complete.unshared()] == ["--rate-limit without --redis-url"]
    complete.redis_url = "redis://cache:6379/0"
    assert complete.unshared() == []
