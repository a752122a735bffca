"""DuckDB storage: one file under the data dir, schema migrated by this code.

Discipline: one connection per process (DuckDB admits one writer process), one
cursor per thread (a DuckDB connection is not thread-safe; its cursors are), and
every write inside `transaction()`, which also serialises writers in this process.
Serialising writes costs little here (they are small) and rules out DuckDB's
optimistic-concurrency conflicts, so two debits can never both read the same balance.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

MIGRATIONS: list[str] = [
    # 1: the first schema
    """
    CREATE TABLE workspaces (
        id VARCHAR PRIMARY KEY, name VARCHAR NOT NULL, plan VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL
    );
    CREATE TABLE api_keys (
        id VARCHAR PRIMARY KEY, workspace_id VARCHAR NOT NULL, key_hash VARCHAR NOT NULL,
        prefix VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL, revoked_at TIMESTAMP
    );
    CREATE TABLE credit_ledger (
        id VARCHAR PRIMARY KEY, workspace_id VARCHAR NOT NULL, delta INTEGER NOT NULL,
        reason VARCHAR NOT NULL, reference VARCHAR, created_at TIMESTAMP NOT NULL
    );
    CREATE TABLE designs (
        id VARCHAR PRIMARY KEY, workspace_id VARCHAR NOT NULL, parent_id VARCHAR,
        is_folder BOOLEAN NOT NULL DEFAULT false, name VARCHAR NOT NULL, description VARCHAR,
        tree VARCHAR NOT NULL, file_size BIGINT NOT NULL,
        created_at TIMESTAMP NOT NULL, modified_at TIMESTAMP NOT NULL
    );
    CREATE TABLE media (
        id VARCHAR PRIMARY KEY, workspace_id VARCHAR NOT NULL, kind VARCHAR NOT NULL, name VARCHAR NOT NULL,
        mime_type VARCHAR NOT NULL, file_size BIGINT NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,
        original_key VARCHAR NOT NULL, render_key VARCHAR NOT NULL, thumbnail_key VARCHAR NOT NULL,
        is_placeholder BOOLEAN NOT NULL DEFAULT false, created_at TIMESTAMP NOT NULL, modified_at TIMESTAMP NOT NULL
    );
    CREATE TABLE generations (
        id VARCHAR PRIMARY KEY, workspace_id VARCHAR NOT NULL, design_id VARCHAR NOT NULL,
        filename VARCHAR NOT NULL, blob_key VARCHAR NOT NULL, profile VARCHAR NOT NULL,
        created_at TIMESTAMP NOT NULL, expires_at TIMESTAMP NOT NULL
    );
    """,
    # 2: batch jobs (spec 4.13) and the result of each of their rows
    """
    CREATE TABLE batch_jobs (
        id VARCHAR PRIMARY KEY, workspace_id VARCHAR NOT NULL, design_id VARCHAR NOT NULL,
        backend VARCHAR NOT NULL, status VARCHAR NOT NULL, total INTEGER NOT NULL,
        completed INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0, profile VARCHAR NOT NULL,
        payload VARCHAR NOT NULL, zip_key VARCHAR, settled BOOLEAN NOT NULL DEFAULT false,
        created_at TIMESTAMP NOT NULL, updated_at TIMESTAMP NOT NULL
    );
    CREATE TABLE batch_rows (
        job_id VARCHAR NOT NULL, row_index INTEGER NOT NULL, ok BOOLEAN NOT NULL,
        blob_key VARCHAR, error VARCHAR, PRIMARY KEY (job_id, row_index)
    );
    """,
    # 3: workbench sign-ins. The browser's cookie holds a random token; only its hash is
    # stored, with the key it was made from (NULL for the console's one-time link), so
    # revoking that key or "sign out everywhere" ends it.
    """
    CREATE TABLE browser_sessions (
        id VARCHAR PRIMARY KEY, token_hash VARCHAR NOT NULL UNIQUE, workspace_id VARCHAR NOT NULL, key_id VARCHAR,
        created_at TIMESTAMP NOT NULL, last_seen_at TIMESTAMP NOT NULL, expires_at TIMESTAMP NOT NULL,
        ended_at TIMESTAMP
    );
    """,
    # 4: deleting a design (extensions.md 10) marks it instead of removing its row, so the
    # generations and batch jobs made from it keep pointing at a design that exists; every
    # read of designs skips the marked ones.
    """
    ALTER TABLE designs ADD COLUMN deleted_at TIMESTAMP;
    """,
]


class DatabaseLocked(RuntimeError):
    """Another process (usually a running server) holds the database."""


class Store:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._connection = duckdb.connect(str(path))
        except duckdb.IOException as exc:
            if "lock" in str(exc).lower():
                raise DatabaseLocked(
                    f"the database {path} is in use by another process (a running `docbench serve`?); "
                    "stop it first, then run this command again"
                ) from None
            raise
        self.path = path
        self._local = threading.local()
        self._write_lock = threading.RLock()
        self._migrate()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self._local.cursor = self._connection.cursor()
        return cursor

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self._write_lock:
            cursor = self.cursor()
            cursor.execute("BEGIN TRANSACTION")
            try:
                yield cursor
            except BaseException:
                cursor.execute("ROLLBACK")
                raise
            cursor.execute("COMMIT")

    def all(self, sql: str, params: list[Any] | tuple = ()) -> list[tuple]:
        return self.cursor().execute(sql, params).fetchall()

    def one(self, sql: str, params: list[Any] | tuple = ()) -> tuple | None:
        return self.cursor().execute(sql, params).fetchone()

    def _migrate(self) -> None:
        with self.transaction() as cursor:
            cursor.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = cursor.execute("SELECT max(version) FROM schema_version").fetchone()
            current = row[0] if row and row[0] is not None else 0
            for version, script in enumerate(MIGRATIONS[current:], start=current + 1):
                for statement in filter(str.strip, script.split(";")):
                    cursor.execute(statement)
                cursor.execute("INSERT INTO schema_version VALUES (?)", [version])

    @property
    def schema_version(self) -> int:
        row = self.one("SELECT max(version) FROM schema_version")
        return int(row[0]) if row and row[0] is not None else 0

    def close(self) -> None:
        self._connection.close()
