"""`docbench key revoke` while the server runs: the running server revokes the key (api/service/revocations.py)."""

from __future__ import annotations

import json
import time

import pytest

from api.service import Service, Settings
from api.service.accounts import hash_key

from ..server import Server, docbench

pytestmark = pytest.mark.slow  # servers started and stopped: `pytest -m "not slow"` skips them


def test_revoking_a_key_while_the_server_runs_takes_effect_at_once(tmp_path) -> None:
    server = Server(tmp_path).start()
    try:
        key = server.read_key()
        with server.client(key) as client:
            client.data(client.get("/me"), 200)
            started = time.monotonic()
            result = docbench("key", "revoke", key, data_dir=tmp_path, check=False)
            assert (result.returncode, json.loads(result.stdout)) == (0, {"revoked": True}), result.stderr
            assert time.monotonic() - started < 10
            # The server's own auth cache is dropped too: the very next request is refused.
            assert "revoked" in client.error(client.get("/me"), 401, "UNAUTHORIZED")
        again = docbench("key", "revoke", key, data_dir=tmp_path, check=False)
        assert (again.returncode, json.loads(again.stdout)) == (2, {"revoked": False})
        assert sorted(p.name for p in (tmp_path / "revocations").iterdir()) == []  # nothing left behind
    finally:
        server.stop()
    server.start()  # the revocation was written to the database, not just to memory
    try:
        with server.client(key) as client:
            client.error(client.get("/me"), 401, "UNAUTHORIZED")
    finally:
        server.stop()


def test_when_nobody_answers_the_command_says_what_to_do_and_revokes_nothing(tmp_path) -> None:
    service = Service(Settings(data_dir=tmp_path))  # holds the database without answering requests
    try:
        _, key = service.accounts.create_workspace("quiet")
        result = docbench("key", "revoke", key, "--wait", "0.5", data_dir=tmp_path, check=False)
        assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr
        assert "did not answer the revocation within 0.5 s" in result.stderr
        assert "stop the server, run this command, and start the server again" in result.stderr
        assert "Nothing was revoked" in result.stderr
        assert list((tmp_path / "revocations").glob("*.request")) == []  # withdrawn
        assert service.revocations.process() == 0  # a server started later finds nothing to do
        assert service.accounts.authenticate(key).name == "quiet"
    finally:
        service.close()


def test_requests_left_by_a_crash_or_malformed_are_answered_without_stopping_the_inbox(tmp_path) -> None:
    service = Service(Settings(data_dir=tmp_path))
    try:
        _, key = service.accounts.create_workspace("crashed")
        folder = tmp_path / "revocations"
        folder.mkdir()
        # Claimed by a server that died before answering; and two requests nobody should trust.
        (folder / "a.claimed").write_text(json.dumps({"keyHash": hash_key(key)}))
        (folder / "b.request").write_text("not json")
        (folder / "c.request").write_text(json.dumps({"keyHash": "' OR 1=1 --"}))
        assert service.revocations.process() == 3
        answers = {p.name: json.loads(p.read_text()) for p in folder.iterdir()}
        assert answers == {n: {"revoked": r} for n, r in [("a.answer", True), ("b.answer", False), ("c.answer", False)]}
        assert not service.accounts.revoke_key(key)  # already revoked by the leftover request
    finally:
        service.close()
