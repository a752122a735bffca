"""Where the service keeps its state and how it is reached."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

UPLOAD_LIMIT = 1 * 1024 * 1024  # spec 4.9
ASSET_LIMIT = 10 * 1024 * 1024  # spec 4.10
CERTIFICATE_LIMIT = 256 * 1024  # a PKCS#12 with its chain is a few kilobytes (extensions.md 9)
JSON_LIMIT = 10 * 1024 * 1024  # decisions.md: 413 past this
URL_LIFETIME = 3600  # seconds (spec 8)
UPLOAD_STALL_SECONDS = 30.0  # api.rest.uploads.BodyPace


@dataclass
class Settings:
    data_dir: Path = field(default_factory=lambda: Path(os.environ.get("DOCBENCH_DATA_DIR", "data")))
    host: str = "127.0.0.1"
    port: int = 5006
    base_url: str | None = field(default_factory=lambda: os.environ.get("DOCBENCH_BASE_URL"))
    redis_url: str | None = field(default_factory=lambda: os.environ.get("DOCBENCH_REDIS_URL"))
    # postgresql://user:password@host:port/db: PostgreSQL instead of the data dir's DuckDB file.
    database_url: str | None = field(default_factory=lambda: os.environ.get("DOCBENCH_DATABASE_URL") or None)
    api_threads: int = 4  # threads for API calls that do not render (renders have their own)
    # Processes that draw generations, previews and uploaded images (architecture: "renderers"):
    # one more than the cores, so that no core waits while the web process hands a process that
    # has just finished its next render (measured: 8 clients' generates x1.09 on 2 cores).
    render_processes: int = field(
        default_factory=lambda: int(os.environ.get("DOCBENCH_RENDER_PROCESSES") or (os.cpu_count() or 1) + 1)
    )
    # Fetching https:// image sources from private addresses is refused; tests that
    # serve images on loopback turn this on.
    fetch_allow_private: bool = field(default_factory=lambda: os.environ.get("DOCBENCH_FETCH_ALLOW_PRIVATE") == "1")
    fetch_cafile: str | None = field(default_factory=lambda: os.environ.get("DOCBENCH_FETCH_CAFILE"))
    # Batch webhooks to private addresses, and over http://, are refused (SSRF); for local use and tests.
    webhook_allow_private: bool = field(default_factory=lambda: os.environ.get("DOCBENCH_WEBHOOK_ALLOW_PRIVATE") == "1")
    # s3://bucket/prefix: blobs in S3-compatible storage instead of the data dir (extensions.md 7).
    blob_url: str | None = field(default_factory=lambda: os.environ.get("DOCBENCH_BLOB_URL") or None)
    # Signs file URLs and cookies when several processes serve; None: the data dir's files.
    secret: str | None = field(default_factory=lambda: os.environ.get("DOCBENCH_SECRET") or None)
    # Requests per second per workspace on REST and MCP (api/ratelimit.py); None: no limit.
    rate_limit: int | None = field(default_factory=lambda: rate_limit_from_env())
    # GET /metrics (api/metrics.py); --no-metrics or DOCBENCH_METRICS=0 turns it off.
    metrics: bool = field(default_factory=lambda: os.environ.get("DOCBENCH_METRICS") != "0")
    # --max-upload-mb N (DOCBENCH_MAX_UPLOAD_MB): every file upload may be N MB, where the spec's
    # limit is lower (extensions.md 12: a letterhead or a form PDF is often past 1 MB).
    max_upload_mb: int | None = field(default_factory=lambda: max_upload_mb_from_env())
    # --uploads-in-flight-mb N (DOCBENCH_UPLOADS_IN_FLIGHT_MB): the bytes of upload bodies one
    # process receives and checks at once (api.rest.uploads); None: four of the largest it accepts.
    uploads_in_flight_mb: int | None = field(default_factory=lambda: uploads_in_flight_mb_from_env())
    # DOCBENCH_UPLOAD_STALL_SECONDS: an upload body bringing less than 8 KB a second over this
    # long is cut off (api.rest.uploads.BodyPace); tests set a second rather than wait half a minute.
    upload_stall_seconds: float = field(
        default_factory=lambda: positive_seconds_from_env("DOCBENCH_UPLOAD_STALL_SECONDS", UPLOAD_STALL_SECONDS)
    )

    def file_limit(self, spec_limit: int) -> int:
        """The bytes an upload whose spec limit is `spec_limit` may have on this server."""
        raised = (self.max_upload_mb or 0) * 1024 * 1024
        return max(spec_limit, raised)

    @property
    def public_url(self) -> str:
        return (self.base_url or f"http://{self.host}:{self.port}").rstrip("/")

    @property
    def blob_location(self) -> str:
        """What `api.blobs.open_blobs` opens: the blob URL, or the data dir's `blobs/`."""
        return self.blob_url or str(self.data_dir / "blobs")

    @property
    def database_path(self) -> Path:
        return self.data_dir / "docbench.duckdb"

    def unshared(self) -> list[str]:
        """What a process on a shared PostgreSQL database would still keep to itself: the
        options that let another process serve what this one made (the manual, "Running at scale")."""
        if not self.database_url:
            return []
        missing = []
        if not self.secret:
            missing.append(
                "no --secret (DOCBENCH_SECRET): file URLs and cookies signed here are refused by other processes"
            )
        if not self.blob_url:
            missing.append(
                "no --blob-url (DOCBENCH_BLOB_URL): files are kept in this data dir, which other machines cannot read"
            )
        if self.rate_limit and not self.redis_url:
            missing.append(
                "--rate-limit without --redis-url (DOCBENCH_REDIS_URL): each process counts requests on its own, "
                "so a workspace may make the limit times the number of processes"
            )
        return missing


def positive_seconds_from_env(name: str, default: float) -> float:
    """A period an operator (or a test) may set in the environment; anything but a positive
    number of seconds is refused at start, naming the variable."""
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise ValueError(f"{name} must be a positive number of seconds, not {raw!r}")
    return value


MAX_UPLOAD_MB = 1024  # what --max-upload-mb may raise a file's limit to


def max_upload_mb_from_env() -> int | None:
    """DOCBENCH_MAX_UPLOAD_MB: a whole number of megabytes, 1 to MAX_UPLOAD_MB; blank: the spec's limits."""
    raw = os.environ.get("DOCBENCH_MAX_UPLOAD_MB")
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_UPLOAD_MB:
        raise ValueError(
            f"DOCBENCH_MAX_UPLOAD_MB must be a whole number of megabytes, 1 to {MAX_UPLOAD_MB}, not {raw!r}"
        )
    return int(raw)


def _whole_number_from_env(name: str, unit: str) -> int | None:
    """Environment variable `name`: a whole number of `unit`, at least 1; blank: None (the default)."""
    raw = os.environ.get(name)
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{name} must be a whole number of {unit} (1 or more), not {raw!r}")
    return int(raw)


def uploads_in_flight_mb_from_env() -> int | None:
    """DOCBENCH_UPLOADS_IN_FLIGHT_MB: megabytes of upload bodies in flight; blank: the default."""
    return _whole_number_from_env("DOCBENCH_UPLOADS_IN_FLIGHT_MB", "megabytes")


def rate_limit_from_env() -> int | None:
    """DOCBENCH_RATE_LIMIT: requests per second; blank: no limit."""
    return _whole_number_from_env("DOCBENCH_RATE_LIMIT", "requests per second")


def without_password(url: str) -> str:
    """The URL fit for a log or a banner: a password in it (redis://:secret@host) is masked."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}"))
