"""Postings: a move of a workspace's credits and the rows it pays for, committed together.

A generate's debit and its generation row are the hottest write of the service: one per PDF,
from every request thread at once. Writing each in a transaction of its own cost more than the
render on the embedded DuckDB (a statement costs it about half a millisecond, however small),
and on PostgreSQL one commit's disk flush per PDF. So postings are committed in groups:

- `GroupCommit` (PostgreSQL): whoever finds no commit running takes every posting waiting and
  commits them in one transaction, sent in one round trip; the others wait for it, and the first
  of them still waiting afterwards leads the next group. One posting alone is committed at once
  (no timer, no thread hop); eight at once share one transaction and one flush to disk. Each
  posting is one statement that moves the balance only if it stays at or above zero, under the
  workspace's row lock, so balances stay exact with any number of processes.
- `Journal` (DuckDB): a posting is checked against the balance this process keeps (it is the
  database's only writer), appended to a journal file and flushed to disk (a fraction of a
  millisecond; postings made at once share a flush), which makes it durable before the answer.
  The journal's postings reach the tables in groups, in the background and before anything
  else reads or writes the database (`DuckDBStore`), so every read still sees every posting
  answered. After a crash the postings not yet in the tables are read back from the journal
  when the database is opened; each carries its ledger line's id, so none is applied twice.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# The tables a posting may add rows to: append-only records of what was paid for, with their
# columns' types (PostgreSQL's single-statement posting names them: api.store).
POSTED_TABLES = {"generations": ("varchar",) * 6 + ("timestamp",) * 2}


class BalanceShort(Exception):
    """A posting would take the workspace's balance below zero; nothing was written."""

    def __init__(self, available: int):
        super().__init__(f"the balance is {available}")
        self.available = available


@dataclass(frozen=True)
class Posting:
    """`delta` credits for `workspace_id` (negative: a debit), its ledger line, and `rows` of
    POSTED_TABLES inserted in the same transaction (table name, values in column order)."""

    workspace_id: str
    delta: int
    ledger_id: str
    reason: str
    reference: str | None
    at: dt.datetime
    rows: tuple[tuple[str, tuple[Any, ...]], ...] = ()

    def __post_init__(self) -> None:
        for table, values in self.rows:
            if len(POSTED_TABLES.get(table, ())) != len(values):
                raise ValueError(f"a posting cannot insert {len(values)} values into {table}")

    def to_json(self) -> str:
        return json.dumps(
            [self.workspace_id, self.delta, self.ledger_id, self.reason, self.reference, self.at.isoformat(),
             [[table, [_encoded(v) for v in values]] for table, values in self.rows]],
            separators=(",", ":"),
        )  # fmt: skip

    @classmethod
    def from_json(cls, text: str) -> Posting:
        workspace_id, delta, ledger_id, reason, reference, at, rows = json.loads(text)
        decoded = tuple((table, tuple(_decoded(v) for v in values)) for table, values in rows)
        return cls(workspace_id, delta, ledger_id, reason, reference, dt.datetime.fromisoformat(at), decoded)


def _encoded(value: Any) -> Any:
    return {"t": value.isoformat()} if isinstance(value, dt.datetime) else value


def _decoded(value: Any) -> Any:
    return dt.datetime.fromisoformat(value["t"]) if isinstance(value, dict) else value


def write_postings(cursor: Any, postings: list[Posting]) -> None:
    """Insert postings already checked against the balance (DuckDB's journal: api.store) inside
    the caller's transaction: their ledger lines, rows and the balances kept in the workspaces' rows."""
    if not postings:
        return
    lines = [(p.ledger_id, p.workspace_id, p.delta, p.reason, p.reference, p.at) for p in postings]
    _insert(cursor, "credit_ledger", lines)
    for table in POSTED_TABLES:
        _insert(cursor, table, [values for p in postings for name, values in p.rows if name == table])
    moved: dict[str, int] = {}
    for posting in postings:
        moved[posting.workspace_id] = moved.get(posting.workspace_id, 0) + posting.delta
    for workspace_id, delta in sorted(moved.items()):
        if delta:
            cursor.execute("UPDATE workspaces SET credits = credits + ? WHERE id = ?", [delta, workspace_id])


# Rows per INSERT: one statement of many rows costs DuckDB about what two rows cost it apart.
ROWS_PER_INSERT = 200


def _insert(cursor: Any, table: str, rows: list[tuple[Any, ...]]) -> None:
    for start in range(0, len(rows), ROWS_PER_INSERT):
        chunk = rows[start : start + ROWS_PER_INSERT]
        marks = "(" + ", ".join("?" * len(chunk[0])) + ")"
        values = [value for row in chunk for value in row]
        cursor.execute(f"INSERT INTO {table} VALUES {', '.join([marks] * len(chunk))}", values)


@dataclass
class _Waiting:
    posting: Posting
    done: bool = False
    outcome: BaseException | None = None


@dataclass
class GroupCommit:
    """Postings committed in groups by `commit(postings) -> outcomes` (one None or exception per
    posting, or raising for all of them); `post` returns once its posting is durable."""

    commit: Callable[[list[Posting]], list[BaseException | None]]
    _queue: list[_Waiting] = field(default_factory=list)
    _busy: bool = False
    _turn: threading.Condition = field(default_factory=threading.Condition)

    def post(self, posting: Posting) -> None:
        mine = _Waiting(posting)
        with self._turn:
            self._queue.append(mine)
            while not mine.done:
                if self._busy:
                    self._turn.wait()
                    continue
                self._busy = True
                group, self._queue = self._queue, []
                self._turn.release()
                try:
                    self._commit_group(group)
                finally:
                    self._turn.acquire()
                    self._busy = False
                    self._turn.notify_all()
        if mine.outcome is not None:
            raise mine.outcome

    def _commit_group(self, group: list[_Waiting]) -> None:
        try:
            outcomes: list[BaseException | None] = list(self.commit([w.posting for w in group]))
        except BaseException as exc:  # the transaction failed: nothing of the group was written
            outcomes = [exc] * len(group)
        for waiting, outcome in zip(group, outcomes, strict=True):
            waiting.outcome, waiting.done = outcome, True


class Journal:
    """Postings made durable by an append to a file flushed to disk, before they are applied to
    the tables (module docstring). Files are numbered; `take` starts a new one and hands back
    what the older ones hold, which `applied` then deletes."""

    SUFFIX = ".postings"

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        numbers = [int(p.stem) for p in folder.glob(f"*{self.SUFFIX}") if p.stem.isdigit()]
        self.number = max(numbers, default=0) + 1  # the file appended to
        self._file = self._open()
        # Lines are numbered as written; one flush to disk makes every line before it durable,
        # so postings made at once share one (a group commit of the journal itself).
        self._written = 0
        self._synced = 0
        self._lock = threading.Lock()  # the file and the count of lines written
        self._syncing = threading.Lock()  # one flush at a time; the others wait and usually find theirs done

    def _open(self) -> Any:
        return open(self.folder / f"{self.number:08d}{self.SUFFIX}", "ab", buffering=0)  # noqa: SIM115

    def write(self, posting: Posting) -> int:
        """Append the posting (not yet durable); its line's number, for `sync`."""
        line = posting.to_json().encode() + b"\n"
        with self._lock:
            self._file.write(line)
            self._written += 1
            return self._written

    def sync(self, line: int) -> None:
        """Return once line number `line` is on disk."""
        with self._syncing:
            if self._synced >= line:
                return  # another thread's flush covered it
            with self._lock:
                upto, descriptor = self._written, self._file.fileno()
            os.fdatasync(descriptor)
            self._synced = upto

    def rotate(self) -> int:
        """Start a new file (the old one flushed first: a line waiting for `sync` is durable);
        the number of the file now closed."""
        with self._syncing, self._lock:
            os.fdatasync(self._file.fileno())
            self._synced = self._written
            self._file.close()
            closed = self.number
            self.number += 1
            self._file = self._open()
            return closed

    def applied(self, upto: int) -> None:
        """The postings of files numbered up to `upto` are in the tables: delete them."""
        for path in self.folder.glob(f"*{self.SUFFIX}"):
            if path.stem.isdigit() and int(path.stem) <= upto:
                path.unlink(missing_ok=True)

    def recorded(self) -> Iterable[Posting]:
        """Every posting of the closed and current files, oldest first. A last line cut short by
        a crash was never answered (its flush had not returned) and is left out."""
        for path in sorted(self.folder.glob(f"*{self.SUFFIX}")):
            for line in path.read_bytes().splitlines():
                try:
                    yield Posting.from_json(line.decode())
                except (ValueError, UnicodeDecodeError, TypeError):
                    log.warning("skipped an incomplete line of the postings journal %s", path.name)

    def close(self) -> None:
        with self._syncing, self._lock:
            self._file.close()
