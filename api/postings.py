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
import errno
import json
import logging
import os
import re
import shutil
import threading
import zlib
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


class JournalDamaged(RuntimeError):
    """A line of the postings journal that is not its last does not read back as written: the
    store will not open (what it holds was answered, so it can be neither dropped nor guessed)."""


def journal_line(posting: Posting) -> bytes:
    """A posting as one journal line: the CRC-32 of its JSON (8 hex digits), a space, the JSON."""
    payload = posting.to_json().encode()
    return b"%08x " % zlib.crc32(payload) + payload + b"\n"


def read_journal_line(line: bytes) -> Posting:
    """The posting of one journal line (without its line end); ValueError if it is damaged. A line
    that starts with "[" was written before lines carried a checksum: read as it was then."""
    if line.startswith(b"["):
        payload = line
    else:
        checksum, space, payload = line[:8], line[8:9], line[9:]
        if space != b" " or not re.fullmatch(rb"[0-9a-f]{8}", checksum):
            raise ValueError("no checksum at its start")
        if int(checksum, 16) != zlib.crc32(payload):
            raise ValueError("its checksum does not match its content")
    try:
        return Posting.from_json(payload.decode())
    except (ValueError, UnicodeDecodeError, TypeError) as exc:
        raise ValueError(f"it is not a posting ({exc})") from None


def _write_whole(descriptor: int, data: bytes) -> None:
    """Every byte of `data`, or OSError: a write may take only part (a disk filling up)."""
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        if written == 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


class Journal:
    """Postings made durable by an append to a file flushed to disk, before they are applied to
    the tables (module docstring). Files are numbered; `rotate` starts a new one, and `applied`
    moves the older ones to `applied/` once their postings are in the tables.

    A line is written whole or not at all: a write the disk cannot take (full) is cut back off
    the file, which keeps only whole lines, and raises. Each line carries a checksum, so a line
    that does not read back as written is noticed at the next start (`recorded`). A file is
    created by its first line, so failed attempts leave no empty files."""

    SUFFIX = ".postings"
    # Applied files are kept (moved, not copied: no more room taken than before) for a look
    # after the fact, the newest APPLIED_KEPT of them; those a start found left by a process that
    # stopped, as they were found (cut lines and all), in recovered/<time>/, the newest
    # RECOVERIES_KEPT starts' worth. docs/operations/limits.md.
    APPLIED = "applied"
    APPLIED_KEPT = 32
    RECOVERED = "recovered"
    RECOVERIES_KEPT = 8

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        # Numbers go on from the kept files too: a file never takes the name of one kept.
        seen = [*folder.glob(f"*{self.SUFFIX}"), *(folder / self.APPLIED).glob(f"*{self.SUFFIX}")]
        self.number = max((int(p.stem) for p in seen if p.stem.isdigit()), default=0) + 1  # the file appended to
        self._file: int | None = None  # its descriptor, once its first line is written
        self._size = 0  # bytes of whole lines in it
        # Files that take no more lines (`_close_current`), flushed and closed by the next `sync`
        # or `rotate`: closed under a flush of another thread, a descriptor could be reused.
        self._retired: list[int] = []
        # Lines are numbered as written; one flush to disk makes every line before it durable,
        # so postings made at once share one (a group commit of the journal itself).
        self._written = 0
        self._synced = 0
        # Lines after the first and up to the second whose flush failed: whether they reached the
        # disk is unknown (a flush after a failed one may succeed without them), so their `sync`
        # fails even once a later flush has succeeded.
        self._doubtful = (0, 0)
        self._lock = threading.Lock()  # the files and the count of lines written
        self._syncing = threading.Lock()  # one flush at a time; the others wait and usually find theirs done

    def _path(self, number: int) -> Path:
        return self.folder / f"{number:08d}{self.SUFFIX}"

    def write(self, posting: Posting) -> int:
        """Append the posting (not yet durable); its line's number, for `sync`. OSError if the
        disk did not take the whole line; the file then holds what it held before."""
        line = journal_line(posting)
        with self._lock:
            if self._file is None:
                self._file = os.open(self._path(self.number), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                _write_whole(self._file, line)
            except OSError:
                self._cut_back()
                raise
            self._size += len(line)
            self._written += 1
            return self._written

    def _cut_back(self) -> None:
        """After a failed write: the file back to its last whole line (the lock held)."""
        assert self._file is not None
        try:
            os.ftruncate(self._file, self._size)
        except OSError:
            # What was written of the line stays, cut short: it must stay its file's last line
            # (read back as a cut write, `recorded`), so the next line goes to a new file.
            log.exception("the postings journal %s could not be cut back after a failed write", self._path(self.number))
            self._close_current()
            return
        if self._size == 0:  # made for this line: no empty file left behind per attempt
            self._close_current(unlink=True)

    def _close_current(self, unlink: bool = False) -> None:
        """The file takes no more lines (removed, if `unlink`: it is empty); the next line
        starts the next number's. The lock held."""
        if self._file is not None:
            if unlink:
                self._path(self.number).unlink(missing_ok=True)
            if self._synced == self._written:  # no flush under way (one waits for a line not yet flushed)
                os.close(self._file)
            else:
                self._retired.append(self._file)
            self._file, self._size = None, 0
        self.number += 1

    def _flush(self, descriptors: list[int], close: list[int]) -> None:
        """Flush `descriptors` to disk and close those in `close` (however the flush went)."""
        try:
            for descriptor in descriptors:
                os.fdatasync(descriptor)
        finally:
            for descriptor in close:
                os.close(descriptor)

    def sync(self, line: int) -> None:
        """Return once line number `line` is on disk; OSError if its flush failed (the line may
        or may not be there: it is in the file, whole, and stays there)."""
        with self._syncing:
            self._check_flushed(line)
            if self._synced >= line:
                return  # another thread's flush covered it
            with self._lock:
                upto, retired, self._retired = self._written, self._retired, []
                current = [self._file] if self._file is not None else []
            self._flush_upto(upto, retired + current, retired)

    def rotate(self) -> int:
        """Start a new file (the old one flushed first: a line waiting for `sync` is durable);
        the number of the file now closed."""
        with self._syncing, self._lock:
            closed = self.number
            self._close_current()
            retired, self._retired = self._retired, []
            self._flush_upto(self._written, retired, retired)
            return closed

    def _flush_upto(self, upto: int, descriptors: list[int], close: list[int]) -> None:
        """Lines up to `upto` flushed (`_syncing` held), or OSError with them marked doubtful."""
        try:
            self._flush(descriptors, close)
        except OSError:
            start = self._synced if self._doubtful == (0, 0) else min(self._doubtful[0], self._synced)
            self._doubtful = (start, upto)
            raise
        self._synced = upto

    def _check_flushed(self, line: int) -> None:
        first, last = self._doubtful
        if first < line <= last:
            raise OSError(errno.EIO, "a flush of the postings journal to disk failed")

    def applied(self, upto: int) -> None:
        """The postings of files numbered up to `upto` are in the tables: move them to
        `applied/`, where the newest APPLIED_KEPT are kept."""
        done = [p for p in self.folder.glob(f"*{self.SUFFIX}") if p.stem.isdigit() and int(p.stem) <= upto]
        self._keep(done, self.folder / self.APPLIED)
        _keep_newest(sorted((self.folder / self.APPLIED).glob(f"*{self.SUFFIX}")), self.APPLIED_KEPT)

    def recovered(self, upto: int) -> None:
        """As `applied`, for the files a start found and applied: kept as found in
        `recovered/<time>/`, the newest RECOVERIES_KEPT starts' worth."""
        done = [p for p in self.folder.glob(f"*{self.SUFFIX}") if p.stem.isdigit() and int(p.stem) <= upto]
        if not any(p.stat().st_size for p in done):
            return self.applied(upto)
        moment = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        self._keep(done, self.folder / self.RECOVERED / moment)
        _keep_newest(sorted((self.folder / self.RECOVERED).iterdir()), self.RECOVERIES_KEPT)

    def _keep(self, paths: list[Path], into: Path) -> None:
        into.mkdir(parents=True, exist_ok=True)
        for path in paths:
            if path.stat().st_size:
                path.replace(into / path.name)
            else:  # an empty file (left by a version that made them ahead of their first line)
                path.unlink(missing_ok=True)

    def recorded(self) -> Iterable[Posting]:
        """Every posting of the closed and current files, oldest first.

        A line that does not read back as written (JournalDamaged otherwise) is skipped, with a
        warning, when it is the last line of the last file (a write cut short by a crash or a
        power cut, whose flush had not returned: never answered), or when it is cut short (no
        line end) at the end of an earlier file (a write the disk did not take and that could
        not be cut back off, `_cut_back`). Anywhere else it was answered: JournalDamaged."""
        paths = sorted(p for p in self.folder.glob(f"*{self.SUFFIX}") if p.stem.isdigit())
        for index, path in enumerate(paths):
            lines = path.read_bytes().split(b"\n")
            ended = lines[-1] == b""  # the file ends with a line end
            if ended:
                lines.pop()
            for number, line in enumerate(lines, start=1):
                try:
                    yield read_journal_line(line)
                except ValueError as damage:
                    last = number == len(lines)
                    if last and (not ended or index == len(paths) - 1):
                        log.warning("skipped the last line of the postings journal %s: a write cut short "
                                    "by a crash, never answered (%s)", path, damage)  # fmt: skip
                        continue
                    raise JournalDamaged(_damaged_message(path, number, len(lines), damage)) from None

    def close(self) -> None:
        with self._syncing, self._lock:
            self._close_current()
            retired, self._retired = self._retired, []
            self._flush(retired, retired)


def _keep_newest(paths: list[Path], count: int) -> None:
    """Delete all but the last `count` of `paths` (sorted oldest first): files or folders."""
    for path in paths[: max(0, len(paths) - count)]:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _damaged_message(path: Path, number: int, count: int, damage: ValueError) -> str:
    return (
        f"the postings journal {path} is damaged at line {number} of {count}: {damage}. It is not the "
        "journal's last line, so it was answered (a charge and a generation record), and the server "
        "will not start until the journal reads back whole; nothing has been applied or deleted. "
        "Restore the journal folder from a backup taken with the database, or repair or delete that "
        "line by hand (a line is the CRC-32 of its JSON in 8 hex digits, a space, and the posting's "
        "JSON; a line deleted is that charge and record lost), then start the server again."
    )
