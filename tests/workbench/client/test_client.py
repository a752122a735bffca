"""The client the editor and notebooks use: the same operations over REST and in-process."""

from __future__ import annotations

import pytest

from api.errors import ApiError
from api.models import BatchBody
from api.operations import UploadedFile
from api.service import Service, Settings
from workbench.client.api import LocalClient, RestClient

from ...conftest import add, png, store_database_url

RUN_ON_BOTH_STORES = True  # the service-level client (LocalClient) on DuckDB and PostgreSQL


@pytest.fixture(scope="module")
def local(tmp_path_factory, request, store):
    database_url = store_database_url(request, store)
    service = Service(Settings(data_dir=tmp_path_factory.mktemp("client-data"), database_url=database_url))
    workspace, _ = service.accounts.create_workspace("local", "pro", 5)
    yield LocalClient(service, workspace.id)
    service.close()


@pytest.fixture(params=["rest", "local"])
def client(request, api_server, local):
    if request.param == "rest":
        return RestClient(api_server.url, api_server.workspaces["alpha"][1])
    return local


def test_a_design_is_authored_previewed_and_generated_through_either_transport(client):
    design = client.call("create_design", body={"name": "Client check"})
    upload = client.call("upload_image", file=UploadedFile(png(), "dot.png"), form={"name": "dot"})
    actions = [
        add("text", "Title", {"x": 40, "y": 40}, {"content": "Hello"}),
        add("image", "Dot", {"x": 40, "y": 100, "w": 40, "h": 20}, {"src": upload["ref"]}),
        {"type": "bind_variable", "args": {"name": "Title"}},
    ]
    patched = client.call("patch_design_tree", {"designId": design["designId"]}, {"actions": actions})
    assert len(patched["results"]) == 3
    tree = client.call("get_design_tree", {"designId": design["designId"]})
    assert {node["name"] for node in tree["nodes"].values()} == {"Title", "Dot"}
    preview = client.call("preview_page", {"designId": design["designId"]}, query={"page": 0})
    assert client.fetch(preview["previewUrl"]).startswith(b"\x89PNG")
    generated = client.call("generate_pdf", {"designId": design["designId"]}, {"data": {"Title": "Ada"}})
    assert client.fetch(generated["downloadUrl"]).startswith(b"%PDF")


def test_errors_carry_the_same_codes_through_either_transport(client):
    with pytest.raises(ApiError) as missing:
        client.call("get_design", {"designId": "dsn_nope"})
    assert missing.value.code == "DESIGN_NOT_FOUND"
    design = client.call("create_design", body={"name": "Atomic"})
    with pytest.raises(ApiError) as invalid:
        client.call("patch_design_tree", {"designId": design["designId"]}, {"actions": [{"type": "nope", "args": {}}]})
    assert invalid.value.code == "VALIDATION_ERROR"
    assert "actions[0]" in invalid.value.message


def test_a_tampered_file_url_is_refused_through_either_transport(client):
    design = client.call("create_design", body={"name": "Tamper"})
    preview = client.call("preview_page", {"designId": design["designId"]}, query={"page": 0})
    with pytest.raises(ApiError) as refused:
        client.fetch(preview["previewUrl"].replace("sig=", "sig=0"))
    assert refused.value.code == "URL_INVALID"


def test_rest_client_says_when_the_server_is_not_reachable():
    from ...server import free_port

    with pytest.raises(ApiError) as down:
        RestClient(f"http://127.0.0.1:{free_port()}", "dbk_live_x").call("me")
    assert down.value.code == "SERVICE_UNAVAILABLE"
    assert "not reachable" in down.value.message


def test_an_image_name_over_200_characters_is_refused_in_process_and_nothing_is_stored(local):
    """The notebook and the editor call in-process: the service, not REST, holds the name rule."""
    blobs = local.service.blobs.root

    def stored() -> list[str]:
        return sorted(str(path) for path in blobs.rglob("*") if path.is_file())

    def media_rows() -> int:
        return local.service.store.one("SELECT count(*) FROM media")[0]

    before, rows = stored(), media_rows()
    for operation in ("upload_image", "create_asset"):
        with pytest.raises(ApiError) as refused:
            local.call(operation, file=UploadedFile(png(), "dot.png"), form={"name": "n" * 201})
        assert refused.value.code == "VALIDATION_ERROR" and "1 to 200 characters" in refused.value.message
    assert stored() == before and media_rows() == rows
    named = local.call("upload_image", file=UploadedFile(png(), "dot.png"), form={"name": "n" * 200})
    assert named["name"] == "n" * 200 and media_rows() == rows + 1


def test_batches_need_the_plan_feature_whoever_calls_the_service(local):
    """batchGenerate is the batch service's own rule: every face meets it, and so does a caller
    of the service itself (the notebook's embedded mode, a script)."""
    service = local.service
    workspace, _ = service.accounts.create_workspace("starter", "starter", 5)
    starter = LocalClient(service, workspace.id)
    design_id = starter.call("create_design", body={"name": "Badges"})["designId"]
    calls = [
        lambda: starter.call("submit_batch", {"designId": design_id}, {"rows": [{}]}),
        lambda: starter.call("get_batch", {"jobId": "job_x"}),
        lambda: starter.call("get_batch_download", {"jobId": "job_x"}),
        lambda: service.batches.submit(workspace, design_id, BatchBody(rows=[{}])),
        lambda: service.batches.get(workspace, "job_x"),
    ]
    for call in calls:
        with pytest.raises(ApiError) as refused:
            call()
        assert refused.value.code == "INSUFFICIENT_PERMISSIONS" and "batchGenerate" in refused.value.message
    assert service.accounts.balance(workspace.id) == 5


def test_a_plan_without_api_keys_is_refused_in_process(local):
    service = local.service
    workspace, _ = service.accounts.create_workspace("free", "free", 5)
    with pytest.raises(ApiError) as refused:
        LocalClient(service, workspace.id).call("me")
    assert refused.value.code == "INSUFFICIENT_PERMISSIONS" and "useApiKeys" in refused.value.message
