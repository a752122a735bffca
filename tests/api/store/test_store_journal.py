"""The postings journal (api.postings.Journal) with real files: lines written whole or not at
all on a full disk, a checksum per line, a refusal to start on a damaged line that is not the
last, and applied files kept aside rather than deleted."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from api.postings import Journal, JournalDamaged, journal_line, read_journal_line
from api.service import Service, Settings
from api.store import DuckDBStore
from tests.postings import a_debit, a_workspace, books

from ...small_disk import fill, small_disk

ROOT = Path(__file__).resolve().parents[3]


def _lines(folder: Path) -> list[bytes]:
    """Every line of the journal's files, oldest first, with its line end."""
    return [line for path in sorted(folder.glob("*.postings")) for line in path.read_bytes().splitlines(True)]


def _journal_of(tmp_path: Path, postings: int) -> Path:
    """A journal folder holding `postings` postings in one file, as a process that stopped left it."""
    folder = tmp_path / "journal"
    journal = Journal(folder)
    for _ in range(postings):
        journal.sync(journal.write(a_debit("ws_journal")))
    journal.close()
    return folder


def _edit_line(folder: Path, number: int, edit) -> Path:  # noqa: ANN001
    (path,) = sorted(folder.glob("*.postings"))
    lines = path.read_bytes().splitlines(True)
    lines[number - 1] = edit(lines[number - 1])
    path.write_bytes(b"".join(lines))
    return path


def _checksum_broken(line: bytes) -> bytes:
    """The line with one letter of its JSON changed: still a posting, no longer what was written."""
    return line.replace(b'"generate"', b'"generatf"', 1)


def test_a_line_the_full_disk_cannot_take_is_refused_and_the_file_keeps_only_whole_lines(tmp_path):
    with small_disk(tmp_path / "disk", "64k") as disk:
        journal = Journal(disk / "journal")
        written, refusals = [a_debit("ws_full")], 0
        journal.sync(journal.write(written[0]))  # the file's last page, part used
        filler = fill(disk)
        # What the file's last page still holds is taken line by line; then one reaches past it.
        for _ in range(100):
            posting = a_debit("ws_full")
            try:
                journal.sync(journal.write(posting))
                written.append(posting)
            except OSError:
                refusals += 1
                if refusals == 5:
                    break
        assert refusals == 5, "the full disk took every line"
        assert len(written) > 1, "the file's last page took no line: nothing was tried at its end"
        for line in _lines(disk / "journal"):  # nothing cut short is left in the file
            assert line.endswith(b"\n")
            read_journal_line(line[:-1])
        assert [p.ledger_id for p in journal.recorded()] == [p.ledger_id for p in written]
        filler.unlink()  # space freed: the next line goes in whole after the last one
        again = a_debit("ws_full")
        journal.sync(journal.write(again))
        assert [p.ledger_id for p in journal.recorded()] == [p.ledger_id for p in [*written, again]]
        journal.close()


def test_lines_refused_by_a_full_disk_leave_no_empty_files(tmp_path):
    with small_disk(tmp_path / "disk", "64k") as disk:
        folder = disk / "journal"
        journal = Journal(folder)
        fill(disk)
        descriptors = len(os.listdir("/proc/self/fd"))
        for attempt in range(20):  # as requests make them, with a background apply now and then
            with pytest.raises(OSError):
                journal.write(a_debit("ws_full"))
            if attempt % 5 == 4:
                journal.rotate()
        assert list(folder.glob("*.postings")) == []
        assert len(os.listdir("/proc/self/fd")) == descriptors  # nor an open file per attempt
        journal.close()


def test_a_checksum_that_does_not_match_is_noticed():
    line = a_debit("ws_sum").to_json().encode()
    whole = journal_line(a_debit("ws_sum"))[:-1]
    assert read_journal_line(whole).workspace_id == "ws_sum"
    with pytest.raises(ValueError, match="checksum does not match"):
        read_journal_line(_checksum_broken(whole))
    assert read_journal_line(line).workspace_id == "ws_sum"  # a line written before checksums: read as then


def test_a_damaged_line_that_is_not_the_last_refuses_the_start_and_names_the_file_and_line(tmp_path):
    folder = _journal_of(tmp_path, 3)
    path = _edit_line(folder, 2, _checksum_broken)
    before = path.read_bytes()
    with pytest.raises(JournalDamaged) as refused:
        list(Journal(folder).recorded())
    message = str(refused.value)
    assert str(path) in message and "line 2 of 3" in message and "checksum does not match" in message
    assert "Restore the journal folder from a backup" in message
    assert path.read_bytes() == before  # left as found: nothing dropped, nothing moved


def test_a_damaged_line_between_two_files_refuses_the_start_too(tmp_path):
    folder = _journal_of(tmp_path, 2)
    _edit_line(folder, 2, _checksum_broken)  # the last line of its file, but not of the journal
    later = Journal(folder)
    later.sync(later.write(a_debit("ws_journal")))
    later.close()
    with pytest.raises(JournalDamaged, match="line 2 of 2"):
        list(Journal(folder).recorded())


def test_a_cut_last_line_is_skipped_with_a_warning(tmp_path, caplog):
    folder = _journal_of(tmp_path, 3)
    _edit_line(folder, 3, lambda line: line[: len(line) // 2])  # a write cut short by a crash
    with caplog.at_level(logging.WARNING, logger="api.postings"):
        assert len(list(Journal(folder).recorded())) == 2
    assert "skipped the last line" in caplog.text
    # A power cut may leave the last line whole in length but not in content: skipped too.
    folder = _journal_of(tmp_path / "torn", 3)
    _edit_line(folder, 3, _checksum_broken)
    assert len(list(Journal(folder).recorded())) == 2


def test_lines_written_before_checksums_are_applied_at_the_next_start(tmp_path):
    workspace_id = a_workspace(tmp_path, 10)
    database = tmp_path / "docbench.duckdb"
    folder = database.with_name(f"{database.name}.journal")
    folder.mkdir(exist_ok=True)
    (folder / "00000001.postings").write_bytes(b"".join(a_debit(workspace_id).to_json().encode() + b"\n"
                                                        for _ in range(2)))  # fmt: skip
    assert _books_once_opened(database, workspace_id) == (8, 8, 2)


def test_the_store_and_the_cli_refuse_to_open_on_a_damaged_journal(tmp_path):
    workspace_id = a_workspace(tmp_path, 10)
    database = tmp_path / "docbench.duckdb"
    folder = database.with_name(f"{database.name}.journal")
    journal = Journal(folder)
    for _ in range(3):
        journal.sync(journal.write(a_debit(workspace_id)))
    journal.close()
    _edit_line(folder, 1, _checksum_broken)
    with pytest.raises(JournalDamaged, match="line 1 of 3"):
        DuckDBStore(database)
    refused = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "workspace", "list", "--data-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "docbench: the postings journal" in refused.stderr and "damaged at line 1 of 3" in refused.stderr
    # Repaired by deleting the line, as the message says: the two others are applied.
    _edit_line(folder, 1, lambda line: b"")
    assert _books_once_opened(database, workspace_id) == (8, 8, 2)


def test_applied_journal_files_are_kept_aside_the_newest_few(tmp_path):
    workspace_id = a_workspace(tmp_path, 100)
    database = tmp_path / "docbench.duckdb"
    folder = database.with_name(f"{database.name}.journal")
    store = DuckDBStore(database, apply_seconds=3600)
    try:
        store.post(a_debit(workspace_id))
        store.post(a_debit(workspace_id))
        assert books(store, workspace_id) == (98, 98, 2)  # a read applies them
        assert list(folder.glob("*.postings")) == []
        (kept,) = (folder / Journal.APPLIED).glob("*.postings")
        assert [p.delta for p in map(read_journal_line, kept.read_bytes().splitlines())] == [-1, -1]
        for _ in range(Journal.APPLIED_KEPT + 3):
            store.post(a_debit(workspace_id))
            books(store, workspace_id)
        assert len(list((folder / Journal.APPLIED).glob("*.postings"))) == Journal.APPLIED_KEPT
    finally:
        store.close()


def test_a_journal_left_by_a_process_that_stopped_is_kept_as_found_once_applied(tmp_path):
    workspace_id = a_workspace(tmp_path, 20)
    database = tmp_path / "docbench.duckdb"
    script = (
        "import os\n"
        "from pathlib import Path\n"
        "from api.store import DuckDBStore\n"
        "from tests.postings import a_debit\n"
        f"store = DuckDBStore(Path({str(database)!r}), apply_seconds=3600)\n"
        f"for _ in range(3): store.post(a_debit({workspace_id!r}))\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True, timeout=60)
    folder = database.with_name(f"{database.name}.journal")
    left = {p.name: p.read_bytes() for p in folder.glob("*.postings")}
    service = Service(Settings(data_dir=tmp_path, render_processes=1))
    try:
        assert books(service.store, workspace_id) == (17, 17, 3)
    finally:
        service.close()
    (recovery,) = (folder / Journal.RECOVERED).iterdir()
    assert {p.name: p.read_bytes() for p in recovery.iterdir()} == left


def _books_once_opened(database: Path, workspace_id: str) -> tuple[int, int, int]:
    """The workspace's books as the store reads them once it has opened (and applied its journal)."""
    store = DuckDBStore(database)
    try:
        return books(store, workspace_id)
    finally:
        store.close()
