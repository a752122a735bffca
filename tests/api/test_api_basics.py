"""Envelope, routing, auth and plans over real HTTP (spec 2.1, 5, 7; decisions.md)."""

import httpx
import pytest

from ..server import Client

API_KEY_ROUTES = [
    ("GET", "/me"),
    ("POST", "/me/webhook-secret"),
    ("GET", "/designs"),
    ("POST", "/designs"),
    ("GET", "/designs/dsg_x"),
    ("PATCH", "/designs/dsg_x"),
    ("DELETE", "/designs/dsg_x"),
    ("POST", "/designs/dsg_x/duplicate"),
    ("GET", "/designs/dsg_x/tree"),
    ("GET", "/designs/dsg_x/variables"),
    ("PATCH", "/designs/dsg_x/tree"),
    ("GET", "/designs/dsg_x/revisions"),
    ("GET", "/designs/dsg_x/revisions/1/tree"),
    ("POST", "/designs/dsg_x/revisions/1/restore"),
    ("GET", "/designs/dsg_x/publish"),
    ("POST", "/designs/dsg_x/publish"),
    ("DELETE", "/designs/dsg_x/publish"),
    ("GET", "/actions"),
    ("GET", "/fonts"),
    ("GET", "/sheets"),
    ("POST", "/uploads"),
    ("GET", "/assets"),
    ("POST", "/assets"),
    ("POST", "/assets/placeholder"),
    ("GET", "/assets/ast_x"),
    ("PUT", "/assets/ast_x/content"),
    ("POST", "/designs/dsg_x/generate"),
    ("GET", "/designs/dsg_x/preview"),
    ("POST", "/designs/dsg_x/preview"),
    ("POST", "/designs/dsg_x/sheet-preview"),
    ("POST", "/designs/dsg_x/batch"),
    ("GET", "/batches/job_x"),
    ("GET", "/batches/job_x/rows"),
    ("GET", "/batches/job_x/download"),
    ("PUT", "/signing-certificate"),
    ("GET", "/signing-certificate"),
    ("DELETE", "/signing-certificate"),
]


def test_health_needs_no_key(api_server):
    response = httpx.get(f"{api_server.api}/health")
    assert response.status_code == 200
    # 15 migrations: the first schema, batch jobs, browser sessions (issue 12), deleted designs (issue 14),
    # MCP sessions, sign-in links, the workspaces' images version, batch leases and balances (issue 17),
    # idempotency keys and batch webhooks (issue 18), signing certificates (issue 19),
    # PDFs' page counts and what a batch delivers (issue 36), design revisions (issue 40)
    assert response.json() == {"status": "success", "data": {"status": "ok", "schemaVersion": 15}, "error": None}


@pytest.mark.parametrize("method,path", API_KEY_ROUTES)
def test_every_api_route_refuses_a_missing_key(api_server, method, path):
    with Client(api_server.api, None) as client:
        message = client.error(client.request(method, path), 401, "UNAUTHORIZED")
        assert "X-API-Key" in message


@pytest.mark.parametrize("method,path", API_KEY_ROUTES)
def test_every_api_route_refuses_an_unknown_key(api_server, method, path):
    with Client(api_server.api, "dbk_live_not-a-real-key") as client:
        client.error(client.request(method, path), 401, "UNAUTHORIZED")


@pytest.mark.parametrize("method,path", API_KEY_ROUTES)
def test_free_plan_is_refused_on_every_api_route(api_server, method, path):
    with Client(api_server.api, api_server.workspaces["free"][1]) as client:
        message = client.error(client.request(method, path), 403, "INSUFFICIENT_PERMISSIONS")
        assert "useApiKeys" in message


def test_me_describes_the_workspace(api_server):
    for name, plan, credits, batch in [("alpha", "pro", None, True), ("starter", "starter", 100, False)]:
        with Client(api_server.api, api_server.workspaces[name][1]) as client:
            me = client.data(client.get("/me"), 200)
            assert me["workspaceId"] == api_server.workspaces[name][0] and me["workspaceName"] == name
            assert me["plan"] == plan
            assert me["features"] == {"useApiKeys": True, "batchGenerate": batch}
            assert isinstance(me["credits"], int) and (credits is None or me["credits"] == credits)


def test_unknown_route_is_enveloped_404(alpha):
    alpha.error(alpha.get("/nothing/here"), 404, "NOT_FOUND")
    alpha.error(alpha.post("/designs/x/explode"), 404, "NOT_FOUND")


def test_known_path_with_the_wrong_method_is_405(alpha):
    alpha.error(alpha.delete("/designs"), 405, "METHOD_NOT_ALLOWED")
    alpha.error(alpha.put("/me"), 405, "METHOD_NOT_ALLOWED")


def test_json_endpoint_without_json_content_type_is_415(alpha):
    message = alpha.error(alpha.post("/designs", content=b'{"name": "x"}'), 415, "UNSUPPORTED_MEDIA_TYPE")
    assert "application/json" in message
    alpha.error(
        alpha.post("/designs", content=b"name=x", headers={"Content-Type": "text/plain"}), 415, "UNSUPPORTED_MEDIA_TYPE"
    )


def test_upload_without_multipart_is_415(alpha):
    alpha.error(alpha.post("/uploads", json={"file": "x"}), 415, "UNSUPPORTED_MEDIA_TYPE")


def test_json_body_over_10_mb_is_413(alpha):
    body = b'{"name": "' + b"x" * (10 * 1024 * 1024 + 10) + b'"}'
    alpha.error(
        alpha.post("/designs", content=body, headers={"Content-Type": "application/json"}), 413, "PAYLOAD_TOO_LARGE"
    )


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b'"text"', b""])
def test_malformed_json_is_a_validation_error(alpha, body):
    alpha.error(
        alpha.post("/designs", content=body, headers={"Content-Type": "application/json"}), 400, "VALIDATION_ERROR"
    )


def test_action_catalog_lists_twelve_actions(alpha):
    actions = alpha.data(alpha.get("/actions"), 200)["actions"]
    assert len(actions) == 12 and all({"name", "description", "args"} == set(a) for a in actions)


def test_font_catalog_entries_follow_the_spec(alpha):
    fonts = alpha.data(alpha.get("/fonts"), 200)["fonts"]
    assert 30 <= len(fonts) <= 40  # 24 design families, DejaVu Sans, one Noto family per script
    for font in fonts:
        assert set(font) == {"id", "class", "source", "weights", "tags", "scripts"}
        assert font["scripts"] and all(len(code) == 4 and code.istitle() for code in font["scripts"])
        assert font["class"] in {"sans", "serif", "display", "handwriting"} and font["source"] in {"google", "bundled"}


def test_responses_carry_a_request_id(alpha):
    response = alpha.get("/me")
    assert len(response.headers["X-Request-Id"]) == 12


def test_openapi_document_covers_every_route(api_server):
    document = httpx.get(f"{api_server.api}/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    operations = {(method.upper(), path) for path, item in document["paths"].items() for method in item}
    expected = {
        (
            m,
            p.replace("dsg_x", "{designId}")
            .replace("ast_x", "{assetId}")
            .replace("job_x", "{jobId}")
            .replace("/revisions/1/", "/revisions/{revision}/"),
        )
        for m, p in API_KEY_ROUTES
    }
    assert expected | {("GET", "/health")} == operations
    generate = document["paths"]["/designs/{designId}/generate"]["post"]
    assert {"Idempotent-Replayed", "RateLimit-Remaining"} <= set(generate["responses"]["201"]["headers"])
    assert {"Retry-After", "RateLimit-Reset"} <= set(generate["responses"]["429"]["headers"])


@pytest.mark.parametrize(
    "content_type,body",
    [
        ("multipart/form-data; boundary=", b"--\r\n"),
        ("multipart/form-data; boundary=b", b"--b\r\n\r\nno disposition\r\n--b--\r\n"),
        ("multipart/form-data; boundary=b", b"\0" * 100),
        (
            "multipart/form-data; boundary=b",
            b'--b\r\nContent-Disposition: form-data; name="file"; filename="\xff\xfe.png"\r\n\r\nx\r\n--b--\r\n',
        ),
    ],
)
def test_malformed_multipart_bodies_are_validation_errors(alpha, content_type, body):
    alpha.error(alpha.post("/uploads", content=body, headers={"Content-Type": content_type}), 400, "VALIDATION_ERROR")


@pytest.mark.parametrize("body", [b'{"name": "\\ud800"}', b"[" * 100_000])
def test_json_that_no_text_can_hold_is_a_validation_error(alpha, body):
    alpha.error(
        alpha.post("/designs", content=body, headers={"Content-Type": "application/json"}), 400, "VALIDATION_ERROR"
    )
