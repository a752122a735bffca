"""The counters of GET /metrics that describe database writes count what committed (review
item 13): a debit, a refund or a lost row whose transaction rolls back is not counted, and the
run that commits counts once. On both stores, with real transactions that fail in the database.

Over HTTP no request makes the transaction after a debit fail (the rows it writes have fresh
ids), so these tests drive the service: the failures are real database errors."""

from __future__ import annotations

import pytest

from api.errors import ApiError

RUN_ON_BOTH_STORES = True


@pytest.fixture
def service(tmp_path, database_url):
    from api.service import Service, Settings

    started = Service(Settings(data_dir=tmp_path, database_url=database_url, render_processes=1))
    yield started
    started.close()


def sample(service, name: str, **labels: str) -> float:
    return service.metrics.registry.get_sample_value(name, labels) or 0.0


def test_a_debit_whose_transaction_rolls_back_is_not_counted(service):
    workspace, _ = service.accounts.create_workspace("spender", "pro", 10)
    debited = "docbench_credits_debited_total"
    design_id = service.designs.create(workspace, _design("Paid"))["designId"]

    def record_generation(cursor, generation_id: str) -> None:  # what a generate writes with its debit
        cursor.execute(
            "INSERT INTO generations VALUES (?, ?, ?, 'a.pdf', 'key', 'standard', now(), now())",
            [generation_id, workspace.id, design_id],
        )

    with service.accounts.spend(workspace.id, 2, "generate", "gen_first") as cursor:
        record_generation(cursor, "gen_first")
    assert sample(service, debited, reason="generate") == 2
    # The same generation id again: the INSERT fails after the debit, and both roll back.
    with pytest.raises(Exception, match="(?i)duplicate|constraint"):
        with service.accounts.spend(workspace.id, 3, "generate", "gen_first") as cursor:
            record_generation(cursor, "gen_first")
    assert service.accounts.balance(workspace.id) == 8
    assert sample(service, debited, reason="generate") == 2
    # Refused (402): nothing spent, nothing counted.
    with pytest.raises(ApiError) as refused:
        with service.accounts.spend(workspace.id, 9, "generate", "gen_third") as cursor:
            record_generation(cursor, "gen_third")
    assert refused.value.code == "INSUFFICIENT_CREDITS"
    assert sample(service, debited, reason="generate") == 2


def test_a_job_end_that_rolls_back_counts_its_lost_rows_and_refund_once_when_it_commits(service):
    # Four rows, one reported: the end records three lost rows and refunds them. Its first
    # attempt fails in the database after that (the webhook's table is missing), so nothing
    # is settled and nothing counted; the next attempt settles and counts them once.
    from api.jobs import RowResult
    from api.service.common import now

    workspace, _ = service.accounts.create_workspace("lossy", "pro", 10)
    design_id = service.designs.create(workspace, _design("Lossy"))["designId"]
    created = now()
    with service.store.transaction() as cursor:
        cursor.execute(
            "INSERT INTO batch_jobs VALUES (?, ?, ?, 'embedded', 'processing', 4, 0, 0, 'standard', '{}', NULL, "
            "false, ?, ?, NULL, NULL, ?, NULL, NULL)",  # runner, lease_until, webhook_url, delivery, revision
            ["job_lossy", workspace.id, design_id, created, created, "https://127.0.0.1:9/hook"],
        )
    service.batches.rows_done("job_lossy", [RowResult(index=0, ok=True, blob_key="k")])
    lost = ("docbench_batch_rows_total", {"outcome": "failed"})
    refunded = ("docbench_credits_refunded_total", {"reason": "batch-refund"})
    with service.store.transaction() as cursor:  # (DuckDB renames no table an index depends on)
        cursor.execute("DROP INDEX webhook_deliveries_job")
        cursor.execute("ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_away")
    with pytest.raises(Exception, match="webhook_deliveries"):
        service.batches.job_done("job_lossy", "zip-key")
    assert sample(service, lost[0], **lost[1]) == 0 and sample(service, refunded[0], **refunded[1]) == 0
    assert service.store.one("SELECT status, settled FROM batch_jobs WHERE id = 'job_lossy'") == ("processing", False)
    with service.store.transaction() as cursor:
        cursor.execute("ALTER TABLE webhook_deliveries_away RENAME TO webhook_deliveries")
        cursor.execute("CREATE INDEX webhook_deliveries_job ON webhook_deliveries (job_id)")
    service.batches.job_done("job_lossy", "zip-key")
    service.batches.job_done("job_lossy", "zip-key")  # a second report of the end: already settled
    assert service.batches.get(workspace, "job_lossy")["status"] == "completed"
    assert sample(service, lost[0], **lost[1]) == 3 and sample(service, refunded[0], **refunded[1]) == 3
    assert service.accounts.balance(workspace.id) == 13  # nothing was debited here: 10 + 3 refunded


def _design(name: str):
    from api.models import CreateDesignBody

    return CreateDesignBody(name=name)


@pytest.mark.parametrize("sealed", [True, False], ids=["sealed", "queued-before-sealing"])
def test_an_ended_job_keeps_no_sealed_certificate_nor_document_password(service, sealed):
    # DELETE /signing-certificate must leave no copy that opens, and a document's password is
    # needed only while its rows render: the stored payload loses both when the job settles.
    import engine
    from api.jobs.runner import JobPayload
    from api.sealing import SealedCertificate
    from api.service.common import now

    workspace, _ = service.accounts.create_workspace("sealed", "pro", 10)
    design_id = service.designs.create(workspace, _design("Sealed"))["designId"]
    finishing = engine.Finishing(sign=True, encryption={"ownerPassword": "owner-pass", "userPassword": "reader"})
    payload = JobPayload(
        job_id="job_sealed",
        tree="{}",
        rows=[{}],
        profile="standard",
        images={},
        finishing=finishing,
        signing=SealedCertificate(workspace.id, "v1", "SEALED-CERTIFICATE"),
    )
    if sealed:  # as a batch is queued now; a job queued by an older server kept them in clear
        payload = payload.sealed(b"the servers' secret")
        assert payload.sealed_encryption and "owner-pass" not in payload.model_dump_json()
    created = now()
    with service.store.transaction() as cursor:
        cursor.execute(
            "INSERT INTO batch_jobs VALUES (?, ?, ?, 'embedded', 'processing', 1, 0, 0, 'standard', ?, NULL, "
            "false, ?, ?, NULL, NULL, NULL, NULL, NULL)",
            ["job_sealed", workspace.id, design_id, payload.model_dump_json(), created, created],
        )
    service.batches.job_done("job_sealed", "zip-key")
    (kept,) = service.store.one("SELECT payload FROM batch_jobs WHERE id = 'job_sealed'")
    assert "SEALED-CERTIFICATE" not in kept and "owner-pass" not in kept and "reader" not in kept
    assert JobPayload.model_validate_json(kept).sealed_encryption is None
    assert JobPayload.model_validate_json(kept).finishing.sign  # what the job was asked stays readable
