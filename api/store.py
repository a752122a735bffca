"""The store: the catalogue and the credit ledger, behind one interface with two back-ends.

`Store` is what the service sees: `transaction()` yields a cursor whose `execute(sql, params)`
returns something with `fetchone()` / `fetchall()`, `one(...)` and `all(...)` read outside a
transaction, and `lock_row(cursor, table, id)` holds a row until the transaction ends. The
service's SQL is written once, portable: `?` placeholders and types both engines accept
(VARCHAR, BIGINT/INTEGER, BOOLEAN, TIMESTAMP without a time zone, naive UTC datetimes).

`DuckDBStore` (the embedded default): one file under the data dir. One connection per
process (DuckDB admits one writer process), one cursor per thread (a DuckDB connection is
not thread-safe; its cursors are), and every write inside `transaction()`, which also
serialises writers in this process. Serialising writes costs little here (they are small)
and rules out DuckDB's optimistic-concurrency conflicts, so two debits can never both read
the same balance. `lock_row` has nothing left to do. Postings (api.postings) go to a journal
beside the file first and reach the tables in groups; every read and transaction applies the
waiting ones before it runs. `data_version` counts the transactions: what the service remembers
of the database (api.service.remembered) holds while it stays the same.

`PostgresStore` (`--database-url postgresql://...`): a psycopg 3 `ConnectionPool`, any
number of processes on any machines. The `?` placeholders are translated to psycopg's `%s`
once per statement text (`postgres_sql`), so the service keeps one SQL dialect. Writers in
several processes are kept exact with ROW LOCKS, not SERIALIZABLE: a debit first takes
`SELECT ... FOR UPDATE` on its workspace's row, then reads the balance and inserts the
ledger line (and moves the balance kept in the workspace's row, migration 9: the ledger is
the record, its sum kept beside it so that reading a balance is one row), so two debits of one
workspace queue behind each other (READ COMMITTED: the second one's balance read, a new
statement, sees the first one's committed line) and two
workspaces never wait for each other. SERIALIZABLE would need every write path to be
retried on a serialization failure, including those that have written blobs or rendered a
PDF before committing; a row lock makes the conflict a short wait instead and needs no retry
loop. A tree patch locks its design's row for its read-apply-write the same way. A generate's
debit (a posting, api.postings) needs no read first: its one statement moves the balance only
if it stays at or above zero, and the UPDATE takes the row's lock itself.
Migrations are applied in one transaction under `pg_advisory_xact_lock`, so two processes
starting at once apply them once.

A PostgreSQL outage fails fast: once a pooled connection is found broken (or the pool could
not hand one out), every use first tries one connection of its own, at most one attempt a
second, and answers the error at once while the database cannot be reached, instead of
waiting for the pool's 30 s timeout while its reconnections back off. The attempt that gets
through ends the outage; the pool then replaces its stale connections (`check`), and its own
reconnection attempts give up within seconds so that none is left waiting minutes for its
next try.
"""

from __future__ import annotations

import errno
import functools
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from .blocking import may_wait
from .errors import ApiError, disk_write_failed, says_disk_full
from .postings import POSTED_TABLES, BalanceShort, GroupCommit, Journal, JournalDamaged, Posting, write_postings

if TYPE_CHECKING:
    from .settings import Settings

log = logging.getLogger(__name__)

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
    # 5: MCP sessions (api/mcp/sessions.py) live here, not in one process's memory, so any
    # of several web processes answers a session another one opened.
    """
    CREATE TABLE mcp_sessions (
        id VARCHAR PRIMARY KEY, workspace_id VARCHAR NOT NULL, last_used TIMESTAMP NOT NULL
    );
    """,
    # 6: the one-time sign-in links `docbench serve` prints (workbench/server/signin_links.py), so
    # any web process redeems a link another printed. Only the token's SHA-256 is kept.
    """
    CREATE TABLE signin_links (
        token_hash VARCHAR PRIMARY KEY, workspace_id VARCHAR NOT NULL, expires_at TIMESTAMP NOT NULL
    );
    """,
    # 7: a workspace's images version, bumped in the transaction that replaces an asset's
    # bytes and read with the design row a preview renders from: each web process's preview
    # cache is keyed by it, so none serves a picture drawn with bytes another one replaced.
    """
    ALTER TABLE workspaces ADD COLUMN media_version BIGINT NOT NULL DEFAULT 0;
    """,
    # 8: a lease on each unsettled batch job (api/service/batches.py): the web process that
    # runs or follows it (`runner`, a random id per process) renews `lease_until` while it
    # does; another process takes over a job whose lease lapsed (its process died).
    """
    ALTER TABLE batch_jobs ADD COLUMN runner VARCHAR;
    ALTER TABLE batch_jobs ADD COLUMN lease_until TIMESTAMP;
    """,
    # 9: each workspace's balance kept beside its ledger, changed in the transaction of every
    # ledger entry (api/service/accounts.py): reading it is one row, where summing the ledger
    # grew with every generation a workspace ever made. The ledger stays the record to audit.
    """
    ALTER TABLE workspaces ADD COLUMN credits BIGINT NOT NULL DEFAULT 0;
    UPDATE workspaces SET credits = (
        SELECT coalesce(sum(delta), 0) FROM credit_ledger WHERE credit_ledger.workspace_id = workspaces.id
    );
    """,
    # 10: Idempotency-Key (extensions.md 8, api/service/idempotency.py): the first answer to
    # each key of a workspace, kept 24 hours so a retry gets it again instead of a second run.
    # The primary key makes claiming a key one atomic INSERT ... ON CONFLICT DO NOTHING in
    # every process. `fingerprint` is the SHA-256 of method, path and body; `state` is
    # 'running' until the answer is recorded ('done'), with its status, body and headers;
    # `claim_token` names the request that holds the key, so a request that outlived its claim
    # never writes over the one that took the key over.
    """
    CREATE TABLE idempotency_keys (
        workspace_id VARCHAR NOT NULL, idem_key VARCHAR NOT NULL, fingerprint VARCHAR NOT NULL,
        state VARCHAR NOT NULL, claim_token VARCHAR NOT NULL, status INTEGER, body VARCHAR, headers VARCHAR,
        created_at TIMESTAMP NOT NULL, PRIMARY KEY (workspace_id, idem_key)
    );
    """,
    # 11: batch webhooks (extensions.md 8, api/service/webhooks.py). Each workspace's signing
    # secret (made with `secrets` by Python, so the rows this finds get theirs on first use:
    # SQL has no portable strong random), the job's webhook URL, and one row per delivery
    # attempt, kept here so that retries survive a restart and several processes share them.
    """
    ALTER TABLE workspaces ADD COLUMN webhook_secret VARCHAR;
    ALTER TABLE batch_jobs ADD COLUMN webhook_url VARCHAR;
    CREATE TABLE webhook_deliveries (
        id VARCHAR PRIMARY KEY, event_id VARCHAR NOT NULL, job_id VARCHAR NOT NULL, workspace_id VARCHAR NOT NULL,
        url VARCHAR NOT NULL, body VARCHAR NOT NULL, attempt INTEGER NOT NULL, due_at TIMESTAMP NOT NULL,
        state VARCHAR NOT NULL, claimed_by VARCHAR, claim_until TIMESTAMP,
        attempted_at TIMESTAMP, status INTEGER, error VARCHAR, created_at TIMESTAMP NOT NULL
    );
    CREATE INDEX webhook_deliveries_job ON webhook_deliveries (job_id);
    """,
    # 12: each workspace's signing certificate (extensions.md 9, api/service/signing.py): the
    # PKCS#12 and its password sealed together with AES-GCM under a key derived from the
    # server's secret (base64 text: one column type both engines read alike), and what GET
    # shows of the certificate, which is public. `version` is new at each upload: each
    # process keeps the opened key under it, so none signs with a certificate replaced since.
    """
    CREATE TABLE signing_certificates (
        workspace_id VARCHAR PRIMARY KEY, version VARCHAR NOT NULL, sealed VARCHAR NOT NULL,
        subject VARCHAR NOT NULL, issuer VARCHAR NOT NULL, not_before TIMESTAMP NOT NULL,
        not_after TIMESTAMP NOT NULL, created_at TIMESTAMP NOT NULL
    );
    """,
    # 13: PDF uploads and assets (extensions.md 12): their page count (NULL for an image);
    # width and height hold page 1's size in points, rounded.
    """
    ALTER TABLE media ADD COLUMN page_count INTEGER;
    """,
    # 14: what a batch delivers (extensions.md 12): its `output` and `merge` as JSON
    # (api.jobs.runner.delivery), NULL for PDFs alone; read without the whole payload.
    """
    ALTER TABLE batch_jobs ADD COLUMN delivery VARCHAR;
    """,
    # 15: revisions (extensions.md 16, api/service/revisions.py). Every saved tree is a row here,
    # numbered from 1 per design (`designs.revision` is the latest, read and bumped under the
    # design's row lock, so two processes never take one number); `tree` is the tree's JSON
    # compressed (revisions.packed), or plain JSON for the rows this migration copies.
    # `published_revision` is what generate and batch render (NULL: the latest); each batch job
    # keeps the revision it rendered. Every live design gets its current tree as revision 1.
    """
    CREATE TABLE design_revisions (
        design_id VARCHAR NOT NULL, revision INTEGER NOT NULL, created_at TIMESTAMP NOT NULL,
        source VARCHAR NOT NULL, summary VARCHAR NOT NULL, tree VARCHAR NOT NULL,
        PRIMARY KEY (design_id, revision)
    );
    ALTER TABLE designs ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE designs ADD COLUMN published_revision INTEGER;
    ALTER TABLE batch_jobs ADD COLUMN revision INTEGER;
    INSERT INTO design_revisions (design_id, revision, created_at, source, summary, tree)
        SELECT id, 1, modified_at, 'api', 'the design as saved before revisions were kept', tree
        FROM designs WHERE NOT is_folder AND deleted_at IS NULL;
    UPDATE designs SET revision = 1 WHERE NOT is_folder AND deleted_at IS NULL;
    """,
]


class DatabaseLocked(RuntimeError):
    """Another process (usually a running server) holds the database."""


class DatabaseUnavailable(RuntimeError):
    """The PostgreSQL database named by --database-url cannot be reached or refuses us."""


class Store:
    """What the service needs of a database; `open_store` picks the back-end."""

    # True when no other process can write while this one has the store open (DuckDB): what
    # this process remembers of the database (the API keys' cache) then stays true.
    single_writer_process = True

    def cursor(self) -> Any:
        """A cursor for reads outside a transaction (DuckDB: this thread's own)."""
        raise NotImplementedError

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        raise NotImplementedError
        yield

    def all(self, sql: str, params: list[Any] | tuple = ()) -> list[tuple]:
        raise NotImplementedError

    def one(self, sql: str, params: list[Any] | tuple = ()) -> tuple | None:
        raise NotImplementedError

    def post(self, posting: Posting) -> None:
        """Commit a move of credits with the rows it pays for (api.postings), durably before it
        returns; BalanceShort (nothing written) when it would take the balance below zero.
        Postings made at once are committed in groups."""
        raise NotImplementedError

    def balance(self, workspace_id: str, as_read: int | None = None) -> int:
        """The workspace's credits as every posting answered so far left them (0 when unknown).
        `as_read`: the balance the caller read a moment ago with another row (a design's, for a
        render): answered as it is, rather than asked again, by a store that keeps no balances."""
        if as_read is not None:
            return as_read
        row = self.one("SELECT credits FROM workspaces WHERE id = ?", [workspace_id])
        return int(row[0]) if row else 0

    def data_version(self) -> int | None:
        """A number that changes whenever anything but a posting is written, or None when other
        processes write too (PostgreSQL): what this process remembers of the database stays
        true while the number stays the same (api.service.remembered)."""
        return None

    def lock_row(self, cursor: Any, table: str, row_id: str) -> None:
        """Hold `table`'s row `row_id` until the transaction of `cursor` ends."""

    def lock_name(self, cursor: Any, name: str) -> None:
        """Hold a lock named `name` until the transaction of `cursor` ends (for a check and an
        insert that no row protects yet)."""

    @property
    def schema_version(self) -> int:
        row = self.one("SELECT max(version) FROM schema_version")
        return int(row[0]) if row and row[0] is not None else 0

    def close(self) -> None:
        raise NotImplementedError


def _apply_migrations(cursor: Any) -> None:
    """The versions after the recorded one, inside the caller's transaction."""
    cursor.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = cursor.execute("SELECT max(version) FROM schema_version").fetchone()
    current = row[0] if row and row[0] is not None else 0
    for version, script in enumerate(MIGRATIONS[current:], start=current + 1):
        for statement in filter(str.strip, script.split(";")):
            cursor.execute(statement)
        cursor.execute("INSERT INTO schema_version VALUES (?)", [version])


def open_store(settings: Settings) -> Store:
    """PostgreSQL when the settings name a database URL, else the data dir's DuckDB file."""
    if settings.database_url:
        return PostgresStore(settings.database_url)
    return DuckDBStore(settings.database_path)


class DuckDBStore(Store):
    # How many postings may wait in the journal before they are applied to the tables at once;
    # `apply_seconds`: how long one may wait (any read or other write applies them first anyway).
    APPLY_AT = 256

    def __init__(self, path: Path, apply_seconds: float = 0.2):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # One thread per statement: the service's statements are small, and DuckDB's
            # scheduling across threads cost more than they take (a quarter of each one's time).
            self._connection = duckdb.connect(str(path), config={"threads": 1})
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
        # Postings (api.postings) take this one only, never the write lock: a group being written
        # into the tables (milliseconds) must not hold up a posting (a fraction of one).
        self._post_lock = threading.RLock()
        self._version = 0  # data_version: bumped after every transaction
        # Postings (api.postings): durable in the journal, then applied to the tables in groups.
        # This process is the database's only writer, so the balances it keeps are exact.
        self._journal = Journal(path.with_name(f"{path.name}.journal"))
        self._pending: list[Posting] = []
        self._balances: dict[str, int] = {}
        self._applier: threading.Thread | None = None
        self._apply_seconds = apply_seconds
        self._wake = threading.Event()
        self._closing = False
        self._disk_full_logged = False  # the background apply says so once, not every try
        try:
            with self.transaction() as cursor:
                _apply_migrations(cursor)
            self._recover()
        except JournalDamaged:
            self._connection.close()  # refused to start: the journal is left as found
            raise

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self._local.cursor = self._connection.cursor()
        return cursor

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        may_wait("a database transaction")
        # No posting meanwhile either: a transaction may read and move a balance (a grant, a batch's debit).
        with self._write_lock, self._post_lock:
            self._apply_pending()  # a transaction reads and writes after every posting answered
            cursor = self.cursor()
            cursor.execute("BEGIN TRANSACTION")
            try:
                yield cursor
                cursor.execute("COMMIT")
            except BaseException as failure:
                _roll_back(cursor)
                if isinstance(failure, duckdb.Error) and says_disk_full(failure):  # a 503, not a 500
                    full = OSError(errno.ENOSPC, str(failure))
                    raise disk_write_failed(full, "nothing was saved") from None
                raise
            finally:
                # It may have moved credits (a grant, a batch's debit or refund): the balances
                # kept for postings are read again.
                self._balances.clear()
            self._version += 1

    def all(self, sql: str, params: list[Any] | tuple = ()) -> list[tuple]:
        self._settle()
        return self.cursor().execute(sql, params).fetchall()

    def one(self, sql: str, params: list[Any] | tuple = ()) -> tuple | None:
        self._settle()
        return self.cursor().execute(sql, params).fetchone()

    def data_version(self) -> int | None:
        return self._version

    def balance(self, workspace_id: str, as_read: int | None = None) -> int:
        # Its own, exact and at hand: a balance read with a remembered row may be an old one.
        kept = self._balances.get(workspace_id)  # one dict read: no lock needed to look
        if kept is not None:
            return kept
        may_wait("a database read")
        with self._post_lock:
            return self._kept_balance(workspace_id)

    def _kept_balance(self, workspace_id: str) -> int:
        """The balance this process keeps for postings, read once (the posting lock held): the
        table's, which holds the postings written so far, and those still waiting."""
        kept = self._balances.get(workspace_id)
        if kept is None:
            row = self.cursor().execute("SELECT credits FROM workspaces WHERE id = ?", [workspace_id]).fetchone()
            waiting = sum(p.delta for p in self._pending if p.workspace_id == workspace_id)
            kept = self._balances[workspace_id] = (int(row[0]) if row else 0) + waiting
        return kept

    def post(self, posting: Posting) -> None:
        may_wait("a posting")
        with self._post_lock:
            available = self._kept_balance(posting.workspace_id)
            if available + posting.delta < 0:
                raise BalanceShort(available)
            try:
                line = self._journal.write(posting)
            except OSError as failure:  # a full disk: the line was not written (api.postings.Journal)
                log.error("the postings journal %s did not take a posting: %s", self._journal.folder, failure)
                raise disk_write_failed(failure, "nothing was recorded or charged") from None
            self._balances[posting.workspace_id] = available + posting.delta
            self._pending.append(posting)
            waiting = len(self._pending)
        # Durable once on disk: flushed outside the write lock, so postings made meanwhile share
        # the flush. Until it returns, nobody is answered for this posting.
        try:
            self._journal.sync(line)
        except OSError as failure:
            # Written whole but not known to be on disk: it is applied like the others (the
            # books agree), and its client is told it may have been recorded.
            log.error("the postings journal %s could not be flushed to disk: %s", self._journal.folder, failure)
            raise disk_write_failed(failure, "it may or may not have been recorded and charged") from None
        if self._applier is None:
            self._start_applier()
        if waiting >= self.APPLY_AT:
            self._wake.set()

    def _settle(self) -> None:
        """Apply the postings still only in the journal, so that a read sees them."""
        may_wait("a database read")
        if self._pending:
            with self._write_lock:
                self._apply_pending()

    def _apply_pending(self) -> None:
        """The journal's postings into the tables, in one transaction (the write lock held).
        Postings go on meanwhile; the commit and their leaving the waiting list are one step
        for a balance read (`_kept_balance`). On failure they stay waiting (and in the journal):
        the next read or start tries again."""
        try:
            with self._post_lock:
                if not self._pending:
                    return
                group, upto = list(self._pending), self._journal.rotate()
            self._write_postings(group, lambda: self._applied(group))
        except (OSError, duckdb.Error) as failure:
            if isinstance(failure, duckdb.Error) and not says_disk_full(failure):
                raise  # not the disk: a bug, answered 500 with its traceback logged
            # The disk is full (or failing): the postings stay waiting, and in the journal.
            error = failure if isinstance(failure, OSError) else OSError(errno.ENOSPC, str(failure))
            raise disk_write_failed(error, "the database cannot take the latest writes, so this request was not "
                                           "carried out") from failure  # fmt: skip
        try:
            self._journal.applied(upto)
        except OSError as failure:  # applied already: moved aside next time (a start skips them by ledger id)
            log.warning("the applied postings journal files could not be moved to %s: %s", Journal.APPLIED, failure)

    def _applied(self, group: list[Posting]) -> None:
        del self._pending[: len(group)]

    def _write_postings(self, postings: list[Posting], committed: Callable[[], None] = lambda: None) -> None:
        cursor = self.cursor()
        cursor.execute("BEGIN TRANSACTION")
        try:
            write_postings(cursor, postings)  # each was checked against the balance it posted on
        except BaseException:
            cursor.execute("ROLLBACK")
            raise
        with self._post_lock:
            cursor.execute("COMMIT")
            committed()

    def _recover(self) -> None:
        """Postings a crash left in the journal only, into the tables (once: by ledger id)."""
        recorded = list(self._journal.recorded())
        if recorded:
            ids = [p.ledger_id for p in recorded]
            found = {row[0] for row in self.cursor().execute(
                "SELECT id FROM credit_ledger WHERE id IN (SELECT unnest(?))", [ids]).fetchall()}  # fmt: skip
            missing = [p for p in recorded if p.ledger_id not in found]
            if missing:
                log.warning("applied %d posting(s) left in the journal by a process that stopped", len(missing))
                self._write_postings(missing)
        self._journal.recovered(self._journal.rotate())

    def _start_applier(self) -> None:
        with self._post_lock:
            if self._applier is not None or self._closing:
                return
            self._applier = threading.Thread(target=self._apply_in_background, name="postings", daemon=True)
            self._applier.start()

    def _apply_in_background(self) -> None:
        while not self._closing:
            self._wake.wait(self._apply_seconds)
            self._wake.clear()
            if not self._pending:
                continue
            try:
                with self._write_lock:
                    self._apply_pending()
                self._disk_full_logged = False
            except ApiError as full:  # the postings wait in the journal for the next try
                if not self._disk_full_logged:
                    log.error("applying postings to the database failed (%s); they are kept in its journal "
                              "and applied once space is freed", full.__cause__)  # fmt: skip
                    self._disk_full_logged = True
            except Exception:
                log.exception("applying postings to the database failed; they are kept in its journal")

    def close(self) -> None:
        self._closing = True
        self._wake.set()
        if self._applier is not None:
            self._applier.join(timeout=10)
        with self._write_lock, self._post_lock:
            try:
                self._apply_pending()
            except ApiError as full:  # they stay in the journal: the next start applies them
                log.error("postings could not be applied before stopping (%s); kept in %s", full.__cause__,
                          self._journal.folder)  # fmt: skip
            self._journal.close()
            if not self._pending:
                self._journal.applied(self._journal.number)
        self._connection.close()


def _roll_back(cursor: duckdb.DuckDBPyConnection) -> None:
    """End the transaction unsaved; a COMMIT that failed may have ended it already."""
    try:
        cursor.execute("ROLLBACK")
    except duckdb.TransactionException:
        pass  # no transaction was active: the failed COMMIT rolled it back


# --- PostgreSQL -------------------------------------------------------------------------

# An arbitrary constant: the key of the advisory lock that serialises migrations.
MIGRATION_LOCK = 0x646F6362  # "docb"
# During an outage: seconds between attempts to reach the database again (the answers in
# between fail at once), and how long one attempt (or one pooled connection) may take to
# connect; a host that drops packets would otherwise hold each attempt for minutes.
OUTAGE_PROBE_INTERVAL = 1.0
CONNECT_TIMEOUT = 5
# The pool gives up a reconnection after this many seconds and grows again when asked: its
# attempts back off (1, 2, 4 ... s), so a longer span leaves it minutes from its next try
# once the database is back.
RECONNECT_TIMEOUT = 10.0
_LOCKABLE = {"workspaces", "designs", "batch_jobs"}
_PLACEHOLDER = re.compile(r"'(?:[^']|'')*'|\?|%")


@functools.lru_cache(maxsize=512)
def postgres_sql(sql: str) -> str:
    """The service's SQL for psycopg: `?` becomes `%s` and a literal `%` becomes `%%`
    (a `?` inside a string literal stays a question mark)."""
    return _PLACEHOLDER.sub(lambda m: "%s" if m[0] == "?" else m[0].replace("%", "%%"), sql)


class PostgresCursor:
    """A psycopg cursor that takes the service's `?` SQL; `execute` returns itself, as DuckDB's does."""

    def __init__(self, cursor: Any):
        self._cursor = cursor

    def execute(self, sql: str, params: list[Any] | tuple = ()) -> PostgresCursor:
        self._cursor.execute(postgres_sql(sql), params)
        return self

    def executemany(self, sql: str, params_seq: Any) -> None:
        self._cursor.executemany(postgres_sql(sql), params_seq)

    def fetchone(self) -> tuple | None:
        return self._cursor.fetchone()

    def fetchall(self) -> list[tuple]:
        return self._cursor.fetchall()

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount


class PostgresStore(Store):
    single_writer_process = False

    def __init__(self, url: str, min_size: int = 1, max_size: int = 10):
        import psycopg
        from psycopg_pool import ConnectionPool

        self.url = url
        try:  # one connection first: its error says what is wrong (the pool's would only time out)
            psycopg.connect(url, connect_timeout=10).close()
        except psycopg.Error as exc:
            where = psycopg.conninfo.conninfo_to_dict(url)
            raise DatabaseUnavailable(
                f"cannot open the PostgreSQL database {where.get('dbname', '')!r} on "
                f"{where.get('host', 'localhost')}:{where.get('port', 5432)}: {str(exc).strip()}; "
                "check --database-url (DOCBENCH_DATABASE_URL) and that the server is running"
            ) from None
        # Reads outside a transaction commit at once (autocommit): no connection is left idle
        # in a transaction holding a snapshot.
        self._pool = ConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT},
            reconnect_timeout=RECONNECT_TIMEOUT,
            open=True,
            name="docbench",
        )
        self._pool.wait(timeout=30)
        # An outage seen (module docstring): when, and when the database was last tried.
        self._outage_lock = threading.Lock()
        self._down = False
        self._last_try = 0.0
        with self.transaction() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(?)", [MIGRATION_LOCK])
            _apply_migrations(cursor)
        self._postings = GroupCommit(self._commit_postings)

    def post(self, posting: Posting) -> None:
        may_wait("a posting")
        self._postings.post(posting)

    def _commit_postings(self, postings: list[Posting]) -> list[BaseException | None]:
        """A group of postings in one transaction sent in one round trip (psycopg's pipeline):
        each posting is one statement that moves its workspace's balance only if it stays at or
        above zero, taking the row's lock, and inserts its ledger line and rows only if it did.
        The statements go in the order of the workspaces' ids, as in every group, so two groups
        (in two processes) never wait on each other's locks in a circle."""
        order = sorted(range(len(postings)), key=lambda i: postings[i].workspace_id)
        outcomes: list[BaseException | None] = [None] * len(postings)
        with self._connection() as connection, connection.transaction():
            with connection.pipeline():
                sent = []
                for i in order:
                    cursor = connection.cursor()
                    cursor.execute(*_posting_statement(postings[i]))
                    sent.append((i, cursor))
            refused = [i for i, cursor in sent if cursor.fetchone() is None]
            if refused:  # the balances they found, for the answer's message
                ids = sorted({postings[i].workspace_id for i in refused})
                found = connection.execute("SELECT id, credits FROM workspaces WHERE id = ANY(%s)", [ids]).fetchall()
                balances = {row[0]: int(row[1]) for row in found}
                for i in refused:
                    outcomes[i] = BalanceShort(balances.get(postings[i].workspace_id, 0))
        return outcomes

    def cursor(self) -> Any:
        return _PooledReader(self)

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """A pooled connection; during an outage, the error at once (module docstring)."""
        import psycopg
        from psycopg_pool import PoolTimeout

        self._reachable()
        try:
            with self._pool.connection() as connection:
                try:
                    yield connection
                except psycopg.OperationalError:
                    # A broken connection is an outage (or a restart); a cancelled or
                    # deadlocked statement on a working one is not.
                    if connection.broken:
                        self._down = True
                    raise
        except PoolTimeout:
            self._down = True
            raise

    def _reachable(self) -> None:
        """Return at once unless an outage was seen; then one thread tries a connection of
        its own (at most one attempt a second) and the others fail with its outcome."""
        import psycopg

        if not self._down:
            return
        with self._outage_lock:
            if not self._down:
                return
            if time.monotonic() - self._last_try < OUTAGE_PROBE_INTERVAL:
                raise psycopg.OperationalError("the database cannot be reached (tried again within the second)")
            self._last_try = time.monotonic()
            try:
                psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT).close()
            except psycopg.Error as exc:
                raise psycopg.OperationalError(f"the database cannot be reached: {str(exc).strip()}") from None
            self._down = False
        # Back: the idle connections from before the outage are dropped and replaced now
        # rather than failing one request each.
        self._pool.check()

    @contextmanager
    def transaction(self) -> Iterator[PostgresCursor]:
        may_wait("a database transaction")
        with self._connection() as connection, connection.transaction(), connection.cursor() as cursor:
            yield PostgresCursor(cursor)

    def all(self, sql: str, params: list[Any] | tuple = ()) -> list[tuple]:
        may_wait("a database read")
        with self._connection() as connection:
            return connection.execute(postgres_sql(sql), params).fetchall()

    def one(self, sql: str, params: list[Any] | tuple = ()) -> tuple | None:
        may_wait("a database read")
        with self._connection() as connection:
            return connection.execute(postgres_sql(sql), params).fetchone()

    def lock_row(self, cursor: Any, table: str, row_id: str) -> None:
        if table not in _LOCKABLE:
            raise ValueError(f"no row lock is taken on {table}")
        cursor.execute(f"SELECT id FROM {table} WHERE id = ? FOR UPDATE", [row_id])

    def lock_name(self, cursor: Any, name: str) -> None:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext(?))", [f"docbench:{name}"])

    def close(self) -> None:
        self._pool.close()


def _posting_statement(posting: Posting) -> tuple[str, list[Any]]:
    """One posting as one PostgreSQL statement (PostgresStore._commit_postings): its SQL and
    parameters. It returns a row when the posting was made, none when the balance was short."""
    tables = tuple(table for table, _ in posting.rows)
    params: list[Any] = [posting.delta, posting.workspace_id, posting.delta]
    params += [posting.ledger_id, posting.delta, posting.reason, posting.reference, posting.at]
    for _, values in posting.rows:
        params += values
    return _posting_sql(tables), params


@functools.lru_cache(maxsize=16)
def _posting_sql(tables: tuple[str, ...]) -> str:
    def typed(types: tuple[str, ...]) -> str:
        return ", ".join(f"%s::{kind}" for kind in types)

    parts = [
        "WITH moved AS (UPDATE workspaces SET credits = credits + %s WHERE id = %s AND credits + %s >= 0 RETURNING id)",
        ", line AS (INSERT INTO credit_ledger SELECT %s::varchar, moved.id, %s::integer, %s::varchar, %s::varchar, "
        "%s::timestamp FROM moved)",
    ]
    for number, table in enumerate(tables):
        parts.append(f", row{number} AS (INSERT INTO {table} SELECT {typed(POSTED_TABLES[table])} FROM moved)")
    return "".join(parts) + " SELECT 1 FROM moved"


class _PooledReader:
    """`store.cursor().execute(...).fetchone()` for PostgreSQL: one pooled connection per statement."""

    def __init__(self, store: PostgresStore):
        self._store = store
        self._rows: list[tuple] = []

    def execute(self, sql: str, params: list[Any] | tuple = ()) -> _PooledReader:
        self._rows = self._store.all(sql, params)
        return self

    def fetchone(self) -> tuple | None:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[tuple]:
        return self._rows
