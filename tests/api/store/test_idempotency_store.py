"""The idempotency keys' rules in the service (api/service/idempotency.py) on a real store:
24 hours of replays, then the key is free; a claim left running by a process that died is
taken over; the expired rows are purged. On DuckDB and PostgreSQL."""

from __future__ import annotations

import datetime as dt

import pytest

from api.errors import ApiError
from api.service import Service, Settings
from api.service.idempotency import STALE_SECONDS, Answer, Idempotency, fingerprint

from ...conftest import store_database_url

RUN_ON_BOTH_STORES = True
START = dt.datetime(2026, 11, 24, 12, 0, 0)


class Clock:
    def __init__(self) -> None:
        self.moment = START

    def __call__(self) -> dt.datetime:
        return self.moment

    def advance(self, seconds: float) -> None:
        self.moment += dt.timedelta(seconds=seconds)


@pytest.fixture
def service(tmp_path, request, store):
    service = Service(Settings(data_dir=tmp_path, database_url=store_database_url(request, store)))
    yield service
    service.close()


@pytest.fixture
def workspace(service):
    return service.accounts.create_workspace("keys", "pro", 10)[0]


def rows(service: Service) -> int:
    return service.store.one("SELECT count(*) FROM idempotency_keys")[0]


def test_an_answer_is_replayed_for_24_hours_then_the_key_runs_again(service, workspace):
    clock = Clock()
    keys = Idempotency(service.store, clock)
    request = fingerprint("POST", "/api/v1/designs", b'{"name":"x"}')
    claim = keys.claim(workspace, "k", request)
    assert claim.replay is None
    keys.record(claim, Answer(201, '{"data":1}', {"Location": "/x"}))
    clock.advance(24 * 3600 - 1)
    assert keys.claim(workspace, "k", request).replay == Answer(201, '{"data":1}', {"Location": "/x"})
    clock.advance(1)
    assert keys.claim(workspace, "k", request).replay is None  # expired: a new first request


def test_a_claim_left_running_is_in_use_until_it_is_stale(service, workspace):
    clock = Clock()
    keys = Idempotency(service.store, clock)
    request = fingerprint("POST", "/api/v1/designs/d/generate", b"{}")
    keys.claim(workspace, "k", request)
    clock.advance(STALE_SECONDS - 1)
    with pytest.raises(ApiError) as in_use:
        keys.claim(workspace, "k", request)
    assert in_use.value.code == "IDEMPOTENCY_KEY_IN_USE" and in_use.value.status == 409
    clock.advance(1)
    assert keys.claim(workspace, "k", request).replay is None  # its process died: taken over


def test_a_request_that_outlived_its_claim_does_not_touch_the_one_that_took_over(service, workspace):
    clock = Clock()
    keys = Idempotency(service.store, clock)
    request = fingerprint("POST", "/api/v1/designs/d/generate", b"{}")
    late = keys.claim(workspace, "k", request)
    clock.advance(STALE_SECONDS)
    current = keys.claim(workspace, "k", request)
    assert current.replay is None
    keys.release(late)  # the first request, alive after all, fails: the new claim stays
    keys.record(late, Answer(201, '{"from":"late"}'))  # nor does its answer replace the new one's
    keys.record(current, Answer(201, '{"from":"current"}'))
    assert keys.claim(workspace, "k", request).replay == Answer(201, '{"from":"current"}')


def test_run_keeps_the_answer_before_returning_it_and_releases_on_an_exception(service, workspace):
    keys = Idempotency(service.store, Clock())
    request = fingerprint("POST", "/a", b"{}")

    def broken() -> Answer:
        raise RuntimeError("the operation broke")

    with pytest.raises(RuntimeError):
        keys.run(workspace, "k", request, broken)
    assert rows(service) == 0  # released: the client may retry
    answer, replayed = keys.run(workspace, "k", request, lambda: Answer(201, '{"data":2}'))
    assert (answer, replayed) == (Answer(201, '{"data":2}'), False)
    assert service.store.one("SELECT state, status FROM idempotency_keys") == ("done", 201)
    assert keys.run(workspace, "k", request, lambda: Answer(500, "never run")) == (answer, True)


def test_a_5xx_releases_the_key_and_another_request_is_refused(service, workspace):
    keys = Idempotency(service.store, Clock())
    request = fingerprint("POST", "/a", b"{}")
    keys.record(keys.claim(workspace, "k", request), Answer(503, "{}"))
    assert rows(service) == 0
    keys.record(keys.claim(workspace, "k", request), Answer(402, "{}"))
    with pytest.raises(ApiError) as reused:
        keys.claim(workspace, "k", fingerprint("POST", "/b", b"{}"))
    assert reused.value.code == "IDEMPOTENCY_KEY_REUSED" and reused.value.status == 422


def test_expired_rows_are_purged(service, workspace):
    clock = Clock()
    keys = Idempotency(service.store, clock)
    for number in range(3):
        keys.record(keys.claim(workspace, f"old-{number}", fingerprint("POST", "/a", b"")), Answer(200, "{}"))
    assert rows(service) == 3
    clock.advance(24 * 3600 + 3600)  # a day and an hour: past the purge period too
    keys.claim(workspace, "new", fingerprint("POST", "/a", b""))
    assert service.store.all("SELECT idem_key FROM idempotency_keys") == [("new",)]


def test_fingerprints_tell_method_path_and_body_apart():
    same = fingerprint("POST", "/a", b"{}")
    assert same == fingerprint("post", "/a", b"{}")
    assert (
        len({same, fingerprint("PUT", "/a", b"{}"), fingerprint("POST", "/b", b"{}"), fingerprint("POST", "/a", b"")})
        == 4
    )
    assert fingerprint("POST", "/ab", b"") != fingerprint("POST", "/a", b"b")  # no two splits collide
