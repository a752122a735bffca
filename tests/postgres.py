"""A real PostgreSQL for the tests: Debian's initdb and pg_ctl, run as the `postgres` user in a
temp dir, on a free loopback port, with its unix socket in that dir. Each test gets a fresh
database copied from a migrated template (CREATE DATABASE ... TEMPLATE is a file copy: fast)."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .server import free_port


def _newest_installed() -> Path:
    """Debian installs each major version under /usr/lib/postgresql/<version>/bin."""
    installed = [bin for bin in Path("/usr/lib/postgresql").glob("*/bin") if bin.parent.name.isdigit()]
    versions = sorted(installed, key=lambda bin: int(bin.parent.name))
    return versions[-1] if versions else Path("/usr/lib/postgresql/15/bin")


PG_BIN = Path(os.environ["DOCBENCH_PG_BIN"]) if os.environ.get("DOCBENCH_PG_BIN") else _newest_installed()
TEMPLATE = "docbench_template"


def missing_reason() -> str | None:
    """Why no PostgreSQL can be started here, or None."""
    if not (PG_BIN / "initdb").exists() or not (PG_BIN / "pg_ctl").exists():
        return f"PostgreSQL binaries not found in {PG_BIN} (install Debian's `postgresql`, or set DOCBENCH_PG_BIN)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without `runuser` to start PostgreSQL as the postgres user"
    return None


def _as_postgres(command: list[str]) -> list[str]:
    # initdb refuses to run as root: run it as the `postgres` user Debian's package creates.
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class PostgresServer:
    """initdb + pg_ctl start on a free port; `url(name)` for a database; `stop()` removes it all."""

    def __init__(self, durable: bool = False) -> None:
        """`durable`: commits reach the disk (fsync), as in production: for benchmarks. The tests
        run without, since a lost machine is not what they are about."""
        self.directory = Path(tempfile.mkdtemp(prefix="docbench-pg-"))
        self.data = self.directory / "data"
        self.port = free_port()
        self.user = "postgres" if os.geteuid() == 0 else os.environ.get("USER", "postgres")
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")
        self._numbers = itertools.count(1)
        self._run([str(PG_BIN / "initdb"), "-D", str(self.data), "-U", self.user, "-A", "trust", "-E", "UTF8"])
        self._options = f"-h 127.0.0.1 -p {self.port} -k {self.directory} -c max_connections=300"
        if not durable:
            self._options += " -F -c full_page_writes=off"
        self.resume()
        self.admin(f"CREATE DATABASE {TEMPLATE}")
        from api.store import PostgresStore

        PostgresStore(self.url(TEMPLATE), max_size=1).close()  # migrated once; copies start migrated

    def resume(self) -> None:
        """Start the server (again, after pause(): same port, same data)."""
        log = str(self.directory / "log")
        self._run([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", log, "-o", self._options, "-w", "start"])
        self._started = True

    def pause(self) -> None:
        """Stop the server, keeping its data: a database outage, until resume()."""
        self._run([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"])
        self._started = False

    def _run(self, command: list[str]) -> None:
        done = subprocess.run(_as_postgres(command), capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {done.stdout}{done.stderr}")

    def url(self, database: str) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as connection:
            connection.execute(sql)

    def fresh_database(self, migrated: bool = True) -> str:
        """A new database's URL: a copy of the migrated template, or empty."""
        name = f"docbench_{os.getpid()}_{next(self._numbers)}"
        self.admin(f"CREATE DATABASE {name}" + (f" TEMPLATE {TEMPLATE}" if migrated else ""))
        return self.url(name)

    def drop_database(self, url: str) -> None:
        self.admin(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")

    def stop(self) -> None:
        if self._started:
            self._run([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])
            self._started = False
        shutil.rmtree(self.directory, ignore_errors=True)
