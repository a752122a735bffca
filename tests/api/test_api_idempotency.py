"""Idempotency-Key on POST, PUT and PATCH (extensions.md 8) over real HTTP, on both stores."""

import threading
import uuid

import httpx
import pytest

from ..server import RedisServer, Server, create_workspace, servers_on_one_database

TEXT = {
    "type": "add_element",
    "args": {"type": "text", "name": "title", "position": {"x": 60, "y": 60}, "data": {"content": "Hello"}},
}


def design(client) -> str:
    design_id = client.data(client.post("/designs", json={"name": "Receipt"}), 201)["designId"]
    actions = [TEXT, {"type": "bind_variable", "args": {"name": "title"}}]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    return design_id


def credits(client) -> int:
    return client.data(client.get("/me"), 200)["credits"]


def keyed(key: str) -> dict[str, str]:
    return {"Idempotency-Key": key}


def test_the_same_key_twice_generates_once_charges_once_and_replays_the_answer(alpha):
    design_id = design(alpha)
    before = credits(alpha)
    key = str(uuid.uuid4())
    first = alpha.post(f"/designs/{design_id}/generate", json={}, headers=keyed(key))
    second = alpha.post(f"/designs/{design_id}/generate", json={}, headers=keyed(key))
    assert first.status_code == second.status_code == 201
    assert "Idempotent-Replayed" not in first.headers
    assert second.headers["Idempotent-Replayed"] == "true"
    assert second.json() == first.json()  # the same generationId and download URL
    assert httpx.get(second.json()["data"]["downloadUrl"]).content.startswith(b"%PDF-")
    assert credits(alpha) == before - 1
    # Without a key every request runs: the key is what made the second one a replay.
    third = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={}), 201)
    assert third["generationId"] != first.json()["data"]["generationId"]
    assert credits(alpha) == before - 2


def test_a_retry_sent_the_moment_the_answer_arrives_is_a_replay(alpha):
    # The answer is kept before it is sent: a client that retries at once never finds its
    # own finished request still "in use".
    for _ in range(20):
        key = str(uuid.uuid4())
        first = alpha.data(alpha.post("/designs", json={"name": "At once"}, headers=keyed(key)), 201)
        retry = alpha.post("/designs", json={"name": "At once"}, headers=keyed(key))
        assert alpha.data(retry, 201) == first and retry.headers["Idempotent-Replayed"] == "true"


def test_the_query_string_is_not_part_of_the_request(alpha):
    # extensions.md 8 compares method, path and body: a proxy's cache-buster changes nothing.
    key = str(uuid.uuid4())
    first = alpha.data(alpha.post("/designs", json={"name": "Query"}, headers=keyed(key)), 201)
    retry = alpha.post("/designs", params={"_": "123"}, json={"name": "Query"}, headers=keyed(key))
    assert alpha.data(retry, 201) == first and retry.headers["Idempotent-Replayed"] == "true"


def test_a_created_design_is_replayed_with_its_id_not_created_twice(alpha):
    key = str(uuid.uuid4())
    count = len(alpha.data(alpha.get("/designs"), 200)["items"])
    first = alpha.data(alpha.post("/designs", json={"name": "Once"}, headers=keyed(key)), 201)
    replay = alpha.post("/designs", json={"name": "Once"}, headers=keyed(key))
    assert alpha.data(replay, 201) == first and replay.headers["Idempotent-Replayed"] == "true"
    assert len(alpha.data(alpha.get("/designs"), 200)["items"]) == count + 1


def test_the_same_key_with_another_body_or_path_is_422(alpha):
    design_id = design(alpha)
    key = str(uuid.uuid4())
    alpha.data(alpha.post(f"/designs/{design_id}/generate", json={}, headers=keyed(key)), 201)
    before = credits(alpha)
    message = alpha.error(
        alpha.post(f"/designs/{design_id}/generate", json={"data": {"title": "Other"}}, headers=keyed(key)),
        422,
        "IDEMPOTENCY_KEY_REUSED",
    )
    assert "new key" in message
    alpha.error(alpha.post("/designs", json={"name": "Other"}, headers=keyed(key)), 422, "IDEMPOTENCY_KEY_REUSED")
    assert credits(alpha) == before


def test_the_same_key_sent_concurrently_runs_once(alpha, api_server):
    design_id = design(alpha)
    before = credits(alpha)
    key = str(uuid.uuid4())
    barrier = threading.Barrier(4)
    answers: list[httpx.Response] = []

    def send() -> None:
        with api_server.client(api_server.workspaces["alpha"][1]) as own:
            barrier.wait()
            answers.append(own.post(f"/designs/{design_id}/generate", json={}, headers=keyed(key)))

    threads = [threading.Thread(target=send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(answers) == 4
    ran = [answer for answer in answers if answer.status_code == 201 and "Idempotent-Replayed" not in answer.headers]
    assert len(ran) == 1, [(answer.status_code, answer.text) for answer in answers]
    generation_id = ran[0].json()["data"]["generationId"]
    for answer in answers:
        if answer is ran[0]:
            continue
        if answer.status_code == 409:
            alpha.error(answer, 409, "IDEMPOTENCY_KEY_IN_USE")
        else:
            assert answer.headers["Idempotent-Replayed"] == "true"
            assert answer.json()["data"]["generationId"] == generation_id
    assert credits(alpha) == before - 1
    # Once it ended, the key replays for everyone.
    replay = alpha.post(f"/designs/{design_id}/generate", json={}, headers=keyed(key))
    assert replay.headers["Idempotent-Replayed"] == "true" and replay.json()["data"]["generationId"] == generation_id


def test_a_4xx_answer_is_replayed_too(api_server, alpha):
    with api_server.client(api_server.workspaces["broke"][1]) as broke:
        broke_design = design(broke)
        key = str(uuid.uuid4())
        first = broke.post(f"/designs/{broke_design}/generate", json={}, headers=keyed(key))
        broke.error(first, 402, "INSUFFICIENT_CREDITS")
        replay = broke.post(f"/designs/{broke_design}/generate", json={}, headers=keyed(key))
        broke.error(replay, 402, "INSUFFICIENT_CREDITS")
        assert replay.headers["Idempotent-Replayed"] == "true" and replay.json() == first.json()
    missing = str(uuid.uuid4())
    first = alpha.post("/designs/dsg_nothere/generate", json={}, headers=keyed(missing))
    replay = alpha.post("/designs/dsg_nothere/generate", json={}, headers=keyed(missing))
    assert first.status_code == replay.status_code == 404 and replay.headers["Idempotent-Replayed"] == "true"


@pytest.mark.parametrize("bad", ["", "with space", "é-accent", "x" * 256, "tab\there"])
def test_an_invalid_key_is_400_naming_the_rule(alpha, bad):
    response = alpha.post("/designs", json={"name": "Never"}, headers={"Idempotency-Key": bad.encode("utf-8")})
    message = alpha.error(response, 400, "VALIDATION_ERROR")
    assert "Idempotency-Key" in message and "255 visible ASCII" in message


def test_a_key_of_255_characters_is_accepted(alpha):
    key = "k" * 255
    first = alpha.data(alpha.post("/designs", json={"name": "Long key"}, headers=keyed(key)), 201)
    assert alpha.data(alpha.post("/designs", json={"name": "Long key"}, headers=keyed(key)), 201) == first


def test_keys_are_per_workspace(alpha, beta):
    key = str(uuid.uuid4())
    mine = alpha.data(alpha.post("/designs", json={"name": "Mine"}, headers=keyed(key)), 201)
    theirs = beta.post("/designs", json={"name": "Mine"}, headers=keyed(key))
    assert beta.data(theirs, 201)["designId"] != mine["designId"]
    assert "Idempotent-Replayed" not in theirs.headers


def test_get_and_delete_ignore_the_key(alpha):
    key = str(uuid.uuid4())
    design_id = alpha.data(alpha.post("/designs", json={"name": "Gone"}), 201)["designId"]
    for _ in range(2):
        response = alpha.get(f"/designs/{design_id}", headers=keyed(key))
        assert response.status_code == 200 and "Idempotent-Replayed" not in response.headers


# --- a 5xx, a restart, two processes: servers of their own ------------------------------


def test_a_5xx_is_not_kept_and_the_same_key_runs_again(tmp_path):
    """Redis down at submit is a 503: the key is released, so the retry after Redis is back runs."""
    workspace_dir = tmp_path / "data"
    _, key = create_workspace(workspace_dir, "w", "pro", 50)
    redis = RedisServer(tmp_path)
    server = Server(workspace_dir, args=("--redis-url", redis.url)).start()
    try:
        with server.client(key) as client:
            design_id = design(client)
            idempotency_key = str(uuid.uuid4())
            body = {"rows": [{"title": "a"}, {"title": "b"}]}
            redis.stop()
            failed = client.post(f"/designs/{design_id}/batch", json=body, headers=keyed(idempotency_key))
            client.error(failed, 503, "SERVICE_UNAVAILABLE")
            redis = RedisServer(tmp_path, port=redis.port)
            retried = client.post(f"/designs/{design_id}/batch", json=body, headers=keyed(idempotency_key))
            job_id = client.data(retried, 202)["jobId"]
            assert "Idempotent-Replayed" not in retried.headers
            again = client.post(f"/designs/{design_id}/batch", json=body, headers=keyed(idempotency_key))
            assert client.data(again, 202)["jobId"] == job_id and again.headers["Idempotent-Replayed"] == "true"
    finally:
        server.stop()
        redis.stop()


def test_a_replay_survives_a_restart(tmp_path):
    data_dir = tmp_path / "data"
    _, key = create_workspace(data_dir, "w", "pro", 10)
    server = Server(data_dir).start()
    idempotency_key = str(uuid.uuid4())
    try:
        with server.client(key) as client:
            design_id = design(client)
            first = client.post(f"/designs/{design_id}/generate", json={}, headers=keyed(idempotency_key))
            assert first.status_code == 201
        server.stop()
        server.start()
        with server.client(key) as client:
            replay = client.post(f"/designs/{design_id}/generate", json={}, headers=keyed(idempotency_key))
            assert replay.headers["Idempotent-Replayed"] == "true" and replay.json() == first.json()
            assert credits(client) == 9
    finally:
        server.stop()


@pytest.fixture
def two_servers(postgres_server, request, tmp_path):
    """Two `docbench serve` processes on one PostgreSQL database."""
    url = postgres_server.fresh_database()
    request.addfinalizer(lambda: postgres_server.drop_database(url))
    with servers_on_one_database(url, tmp_path) as servers_and_key:
        yield servers_and_key


@pytest.mark.slow
def test_two_servers_on_one_database_run_a_key_once(two_servers):
    (first, second), key = two_servers
    with first.client(key) as one, second.client(key) as other:
        design_id = design(one)
        idempotency_key = str(uuid.uuid4())
        barrier = threading.Barrier(6)
        answers: list[httpx.Response] = []

        def send(client) -> None:
            barrier.wait()
            answers.append(client.post(f"/designs/{design_id}/generate", json={}, headers=keyed(idempotency_key)))

        threads = [threading.Thread(target=send, args=(client,)) for client in [one, other] * 3]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        ran = [
            answer for answer in answers if answer.status_code == 201 and "Idempotent-Replayed" not in answer.headers
        ]
        assert len(answers) == 6 and len(ran) == 1, [(answer.status_code, answer.text) for answer in answers]
        assert {answer.status_code for answer in answers} <= {201, 409}
        generation_id = ran[0].json()["data"]["generationId"]
        for client in (one, other):  # either process replays what the other ran
            replay = client.post(f"/designs/{design_id}/generate", json={}, headers=keyed(idempotency_key))
            assert replay.headers["Idempotent-Replayed"] == "true"
            assert replay.json()["data"]["generationId"] == generation_id
        assert credits(one) == 9 == credits(other)
