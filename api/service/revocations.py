"""Key revocations handed to the process that holds the database, usually `docbench serve`.

DuckDB lets one process at a time open the database, so while the server runs,
`docbench key revoke` cannot write the revocation itself; yet a leaked key should stop
working at once, not at the next restart. The command drops a request into
`<data dir>/revocations/`; the process holding the database looks there every quarter
second, revokes the key and writes the answer next to the request; the command waits
for it. A request carries the key's SHA-256, never the key.

A request `<id>.request` is claimed by renaming it to `<id>.claimed` (atomic), so the
command can withdraw an unclaimed request when nobody answers, and knows that a claimed
one will be answered in `<id>.answer`.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import threading
import time
from pathlib import Path

from ..errors import unreachable
from .accounts import Accounts, hash_key

FOLDER = "revocations"
POLL_SECONDS = 0.25
ANSWER_WAIT = 10.0  # how long the command waits for a running server, by default
CLAIMED_WAIT = 5.0  # a claimed request is answered within milliseconds; this is slack
_DIGEST = re.compile(r"[0-9a-f]{64}")
log = logging.getLogger(__name__)


def _write_atomically(path: Path, content: str) -> None:
    """The reader never sees a half-written file."""
    partial = path.with_name(f"{path.name}.partial")
    partial.write_text(content, encoding="utf-8")
    os.replace(partial, path)


def request_revocation(data_dir: Path, key: str, wait: float = ANSWER_WAIT) -> bool | None:
    """Ask the process holding data_dir's database to revoke key.

    True or False as `Accounts.revoke_key` answers; None when nobody answered within
    `wait` seconds, in which case the request is withdrawn (nothing will be revoked).
    """
    folder = data_dir / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    request_id = secrets.token_hex(8)
    request = folder / f"{request_id}.request"
    answer = folder / f"{request_id}.answer"
    _write_atomically(request, json.dumps({"keyHash": hash_key(key)}))
    if not _wait_for(answer, wait):
        try:
            request.unlink()
            return None  # withdrawn before anyone claimed it
        except FileNotFoundError:
            pass  # claimed meanwhile: its answer is on the way
        if not _wait_for(answer, CLAIMED_WAIT):
            return None
    revoked = bool(json.loads(answer.read_text(encoding="utf-8"))["revoked"])
    answer.unlink(missing_ok=True)
    return revoked


def _wait_for(path: Path, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_SECONDS / 5)
    return True


class RevocationInbox:
    """Answers revocation requests while this process holds the database."""

    def __init__(self, data_dir: Path, accounts: Accounts):
        self.folder = data_dir / FOLDER
        self.accounts = accounts
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._thread = threading.Thread(target=self._run, name="key-revocations", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            try:
                self.process()
            except unreachable() as outage:  # not a bug: one line a try, no traceback
                log.error("answering key revocation requests failed (%s)", str(outage).strip())
            except Exception:  # the inbox must outlive one bad request or a full disk
                log.exception("answering key revocation requests failed")

    def process(self) -> int:
        """Answer every waiting request (and any claimed before a crash); how many were answered."""
        answered = 0
        for path in sorted(self.folder.glob("*.request")) + sorted(self.folder.glob("*.claimed")):
            claimed = path.with_suffix(".claimed")
            if path != claimed:
                try:
                    os.rename(path, claimed)
                except FileNotFoundError:
                    continue  # withdrawn by the command that made it
            try:
                digest = json.loads(claimed.read_text(encoding="utf-8")).get("keyHash")
            except (OSError, ValueError, AttributeError):
                digest = None
            well_formed = isinstance(digest, str) and _DIGEST.fullmatch(digest) is not None
            revoked = well_formed and self.accounts.revoke_key_hash(digest)
            _write_atomically(claimed.with_suffix(".answer"), json.dumps({"revoked": revoked}))
            claimed.unlink(missing_ok=True)
            answered += 1
        return answered
