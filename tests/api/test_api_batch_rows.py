"""GET /batches/:jobId/rows over real HTTP, on both stores (extensions.md 8, "Row results"):
each finished row's number, status, filename and, for a failed row, why."""

from __future__ import annotations

import pytest

from tests.batch_jobs import MISSING, design, rows, wait_for_end, zip_of

from ..conftest import png, store_database_url
from ..server import Server, wait_until


class RowsEnv:
    def __init__(self, tmp_path_factory, database_url: str | None):
        from api.service import Service, Settings

        self.data_dir = tmp_path_factory.mktemp("batch-rows")
        service = Service(Settings(data_dir=self.data_dir, database_url=database_url))
        self.keys = {name: service.accounts.create_workspace(name, "pro", 1000)[1] for name in ("pro", "other")}
        service.close()
        self.server = Server(self.data_dir, env={"DOCBENCH_DATABASE_URL": database_url or ""}).start()

    def client(self, name: str = "pro"):
        return self.server.client(self.keys[name])


@pytest.fixture(scope="module")
def env(request, tmp_path_factory, store):
    rows_env = RowsEnv(tmp_path_factory, store_database_url(request, store))
    yield rows_env
    rows_env.server.stop()


@pytest.fixture(scope="module")
def finished_job(env) -> str:
    """Seven rows; rows 2, 5 and 6 (1-based) name an image no workspace has, and fail alone."""
    with env.client() as client:
        design_id = design(client)
        good = client.data(client.post("/uploads", files={"file": ("a.png", png(), "image/png")}), 201)["ref"]
        refs = [good, MISSING, good, good, MISSING, MISSING, good]
        batch = [dict(r, photo=ref) for r, ref in zip(rows(7), refs, strict=True)]
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": batch}), 202)["jobId"]
        job = wait_for_end(client, job_id)
        assert (job["status"], job["completed"], job["failed"]) == ("completed", 4, 3)
        return job_id


def all_pages(client, job_id: str, limit: int, status: str | None = None) -> list[list[dict]]:
    pages, cursor = [], None
    while True:
        params = {"limit": limit, **({"status": status} if status else {}), **({"cursor": cursor} if cursor else {})}
        page = client.data(client.get(f"/batches/{job_id}/rows", params=params), 200)
        assert set(page) == {"items", "nextCursor"}
        pages.append(page["items"])
        cursor = page["nextCursor"]
        if cursor is None:
            return pages


def test_every_row_is_listed_in_order_with_its_outcome(env, finished_job):
    with env.client() as client:
        [items] = all_pages(client, finished_job, limit=50)
        assert [(i["row"], i["status"]) for i in items] == [
            (1, "completed"),
            (2, "failed"),
            (3, "completed"),
            (4, "completed"),
            (5, "failed"),
            (6, "failed"),
            (7, "completed"),
        ]
        assert [i["filename"] for i in items] == [f"row-{n:04d}.pdf" for n in range(1, 8)]
        for item in items:
            assert set(item) == {"row", "status", "filename", "error"}
            if item["status"] == "completed":
                assert item["error"] is None
            else:
                assert item["error"]["code"] == "ROW_FAILED"
                assert MISSING in item["error"]["message"] and "variable 'photo'" in item["error"]["message"]
        # The same files as the ZIP: completed rows' PDFs are in it, failed ones are not.
        names = set(zip_of(client, finished_job).namelist())
        assert {i["filename"] for i in items if i["status"] == "completed"} == names - {"errors.json"}


def test_pages_follow_the_cursor_without_gaps_or_repeats(env, finished_job):
    with env.client() as client:
        pages = all_pages(client, finished_job, limit=2)
        assert [[i["row"] for i in page] for page in pages] == [[1, 2], [3, 4], [5, 6], [7]]
        exact = all_pages(client, finished_job, limit=7)  # a full last page has no next cursor
        assert len(exact) == 1 and len(exact[0]) == 7


@pytest.mark.parametrize(("status", "expected"), [("failed", [2, 5, 6]), ("completed", [1, 3, 4, 7])])
def test_the_status_filter_pages_too(env, finished_job, status, expected):
    with env.client() as client:
        pages = all_pages(client, finished_job, limit=2, status=status)
        assert [i["row"] for page in pages for i in page] == expected
        assert all(len(page) <= 2 for page in pages) and len(pages) == (len(expected) + 1) // 2
        assert {i["status"] for page in pages for i in page} == {status}


def test_clients_following_the_cursor_from_the_submit_on_see_every_row_once(env):
    # Over HTTP, from the 202 on, while the embedded pool renders the rows in parallel: each
    # client follows nextCursor (a short page means "come back") until null, which comes only
    # once the job has ended. Every third row names a missing image and fails.
    with env.client() as client:
        design_id = design(client)
        good = client.data(client.post("/uploads", files={"file": ("a.png", png(), "image/png")}), 201)["ref"]
        batch = [dict(r, photo=MISSING if i % 3 == 1 else good) for i, r in enumerate(rows(24))]
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json={"rows": batch}), 202)["jobId"]
        followers = [{"limit": 3}, {"limit": 2, "status": "failed"}]
        seen: list[list[tuple[int, str]]] = [[] for _ in followers]
        cursors: list[str | None] = [None] * len(followers)
        ended = [False] * len(followers)

        def one_page_each() -> bool:
            for n, params in enumerate(followers):
                if ended[n]:
                    continue
                query = {**params, **({"cursor": cursors[n]} if cursors[n] else {})}
                page = client.data(client.get(f"/batches/{job_id}/rows", params=query), 200)
                seen[n] += [(item["row"], item["status"]) for item in page["items"]]
                cursors[n], ended[n] = page["nextCursor"], page["nextCursor"] is None
                if ended[n]:  # the list ends only with the job
                    assert client.data(client.get(f"/batches/{job_id}"), 200)["status"] == "completed"
            return all(ended)

        wait_until(one_page_each, timeout=120, interval=0.05, what="both clients to reach the end of the rows")
        outcome = [(i + 1, "failed" if i % 3 == 1 else "completed") for i in range(24)]
        assert seen[0] == outcome
        assert seen[1] == [item for item in outcome if item[1] == "failed"]


def test_unknown_and_foreign_jobs_are_404(env, finished_job):
    with env.client() as client:
        client.error(client.get("/batches/job_nowhere/rows"), 404, "JOB_NOT_FOUND")
    with env.client("other") as other:
        client_message = other.error(other.get(f"/batches/{finished_job}/rows"), 404, "JOB_NOT_FOUND")
        assert finished_job in client_message


@pytest.mark.parametrize(
    ("params", "fragments"),
    [
        ({"status": "done"}, ["status", "failed", "completed"]),
        ({"limit": 0}, ["limit", "1"]),
        ({"limit": 201}, ["limit", "200"]),
        ({"cursor": "not-a-cursor"}, ["nextCursor"]),
    ],
)
def test_bad_queries_are_400_naming_what_is_allowed(env, finished_job, params, fragments):
    with env.client() as client:
        message = client.error(client.get(f"/batches/{finished_job}/rows", params=params), 400, "VALIDATION_ERROR")
        for fragment in fragments:
            assert fragment in message, message


def test_mcp_get_batch_rows_answers_the_same_data(env, finished_job):
    from tests.mcp_calls import open_session, post

    key = env.keys["pro"]
    session = open_session(env.server.url, key)
    call = {"name": "get_batch_rows", "arguments": {"jobId": finished_job, "status": "failed", "limit": 2}}
    answer = post(env.server.url, key, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, session)
    result = answer.json()["result"]
    assert result.get("isError") is not True, result
    with env.client() as client:
        rest = client.data(client.get(f"/batches/{finished_job}/rows", params={"status": "failed", "limit": 2}), 200)
    assert result["structuredContent"] == rest
    assert [item["row"] for item in rest["items"]] == [2, 5] and rest["nextCursor"]


def test_rows_whose_result_was_lost_are_listed_failed_once_the_job_ends(tmp_path, database_url):
    # The listener's calls as a back-end makes them (api/jobs): rows 1 and 3 reported, 2 and 4
    # never (their worker was lost); the end settles them as failed and lists them.
    from api.jobs import RowResult
    from api.models import BatchRowsQuery
    from api.service import Service, Settings

    service = Service(Settings(data_dir=tmp_path, database_url=database_url))
    try:
        workspace, _ = service.accounts.create_workspace("lossy", "pro", 10)
        _running_job(service, workspace, "job_lossy", total=4)
        service.batches.rows_done(
            "job_lossy",
            [RowResult(index=0, ok=True, blob_key="k"), RowResult(index=2, ok=False, error="a value was refused")],
        )
        service.batches.job_done("job_lossy", "zip-key")
        listed = service.batches.rows(workspace, "job_lossy", BatchRowsQuery())
        assert [(i["row"], i["status"]) for i in listed["items"]] == [
            (1, "completed"),
            (2, "failed"),
            (3, "failed"),
            (4, "failed"),
        ]
        assert "a value was refused" == listed["items"][2]["error"]["message"]
        for lost in (listed["items"][1], listed["items"][3]):
            assert "never came back" in lost["error"]["message"] and lost["error"]["code"] == "ROW_FAILED"
        job = service.batches.get(workspace, "job_lossy")
        assert (job["completed"], job["failed"]) == (1, 3)
    finally:
        service.close()


def _running_job(service, workspace, job_id: str, total: int) -> None:
    """A job of `total` rows as a submit leaves it, with the back-end running it: the tests call
    the listener (rows_done, job_done) as the back-ends do, in the order they choose."""
    from api.models import CreateDesignBody
    from api.service.common import now

    design_id = service.designs.create(workspace, CreateDesignBody(name="Rows"))["designId"]
    created = now()
    with service.store.transaction() as cursor:
        cursor.execute(
            "INSERT INTO batch_jobs VALUES (?, ?, ?, 'embedded', 'processing', ?, 0, 0, 'standard', '{}', NULL, "
            "false, ?, ?, NULL, NULL, NULL, NULL, NULL)",  # runner, lease_until, webhook_url, delivery, revision
            [job_id, workspace.id, design_id, total, created, created],
        )


class Follower:
    """A client following GET /batches/:jobId/rows by its cursor from the first page on: every
    call reads one page and keeps what it lists; `done` once a null nextCursor ends the list."""

    def __init__(self, service, workspace, job_id: str, limit: int, status: str | None = None):
        self.service, self.workspace, self.job_id = service, workspace, job_id
        self.limit, self.status = limit, status
        self.cursor: str | None = None
        self.seen: list[tuple[int, str]] = []
        self.done = False

    def page(self) -> list[tuple[int, str]]:
        from api.models import BatchRowsQuery

        assert not self.done, "the list had already ended"
        given = {"status": self.status, "cursor": self.cursor}  # as a query string: absent, not null
        query = BatchRowsQuery(limit=self.limit, **{name: value for name, value in given.items() if value})
        answer = self.service.batches.rows(self.workspace, self.job_id, query)
        items = [(item["row"], item["status"]) for item in answer["items"]]
        assert len(items) <= self.limit
        self.seen += items
        self.cursor = answer["nextCursor"]
        self.done = self.cursor is None
        return items

    def to_the_end(self) -> None:
        for _ in range(100):
            if self.done:
                return
            self.page()
        raise AssertionError(f"the list never ended: {self.seen}")


def test_a_row_recorded_after_a_later_one_is_not_skipped_by_the_cursor(tmp_path, database_url):
    # Rows 1, 2 and 4 (1-based) finish first; row 3 finishes after a client has paged past row 2;
    # row 5 is lost and recorded at the job's end. Each client sees every row once, in order.
    from api.jobs import RowResult
    from api.service import Service, Settings

    service = Service(Settings(data_dir=tmp_path, database_url=database_url))
    try:
        workspace, _ = service.accounts.create_workspace("parallel", "pro", 10)
        _running_job(service, workspace, "job_parallel", total=5)
        everything = Follower(service, workspace, "job_parallel", limit=2)
        failures = Follower(service, workspace, "job_parallel", limit=2, status="failed")
        service.batches.rows_done(
            "job_parallel",
            [RowResult(index=0, ok=True), RowResult(index=1, ok=True), RowResult(index=3, ok=False, error="late")],
        )
        assert everything.page() == [(1, "completed"), (2, "completed")]
        assert everything.cursor is not None  # the job runs: come back for the rest
        assert everything.page() == []  # row 4 is recorded, but row 3 before it is not yet
        assert failures.page() == [] and failures.cursor is not None
        service.batches.rows_done("job_parallel", [RowResult(index=2, ok=False, error="slow")])
        assert everything.page() == [(3, "failed"), (4, "failed")]
        assert failures.page() == [(3, "failed"), (4, "failed")]
        assert everything.page() == [] and not everything.done  # row 5 still runs
        service.batches.job_done("job_parallel", "zip-key")  # row 5's result was lost
        everything.to_the_end()
        failures.to_the_end()
        assert everything.seen == [(1, "completed"), (2, "completed"), (3, "failed"), (4, "failed"), (5, "failed")]
        assert failures.seen == [(3, "failed"), (4, "failed"), (5, "failed")]
        # A client that starts once the job has ended pages it as before; the last page ends it.
        late = Follower(service, workspace, "job_parallel", limit=5)
        assert late.page() == everything.seen and late.done
    finally:
        service.close()


@pytest.mark.parametrize(
    "order",
    [
        [4, 3, 2, 1, 0],  # last row first
        [1, 0, 3, 2, None],  # pairs swapped; row 5 lost
        [2, None],  # rows 1, 2, 4 and 5 lost
        [0, 4, 1, 3, 2],
    ],
)
def test_clients_following_a_running_job_see_every_row_once_in_any_completion_order(tmp_path, database_url, order):
    # One page per client between each recorded row (None: the job ends, the rest lost); rows
    # with an even index complete, odd ones fail.
    from api.jobs import RowResult
    from api.service import Service, Settings

    service = Service(Settings(data_dir=tmp_path, database_url=database_url))
    try:
        workspace, _ = service.accounts.create_workspace("orders", "pro", 10)
        _running_job(service, workspace, "job_orders", total=5)
        followers = [
            Follower(service, workspace, "job_orders", limit, status)
            for limit in (1, 2, 3)
            for status in (None, "failed", "completed")
        ]
        for index in order:
            if index is None:
                service.batches.job_done("job_orders", "zip-key")
            else:
                ok = index % 2 == 0
                service.batches.rows_done("job_orders", [RowResult(index=index, ok=ok, error=None if ok else "odd")])
            for follower in followers:
                follower.page()
                assert not follower.done or index is None, "a running job's list ended"
        if order[-1] is not None:
            service.batches.job_done("job_orders", "zip-key")
        recorded = {i: i % 2 == 0 for i in order if i is not None}
        outcome = [(i + 1, "completed" if recorded.get(i, False) else "failed") for i in range(5)]
        for follower in followers:
            follower.to_the_end()
            expected = [item for item in outcome if follower.status in (None, item[1])]
            assert follower.seen == expected, (follower.limit, follower.status)
    finally:
        service.close()
