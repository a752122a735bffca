"""Designs over real HTTP: create, list, read, metadata and atomic tree patches (spec 4.2-4.3)."""

import base64
import threading

import pytest

from ..conftest import add, png

TEXT = {
    "type": "add_element",
    "args": {"type": "text", "name": "title", "position": {"x": 40, "y": 40}, "data": {"content": "Hello"}},
}


def create(client, **body):
    return client.data(client.post("/designs", json={"name": "Test design", **body}), 201)


def test_create_answers_201_with_the_new_design(alpha):
    data = create(alpha, name="Certificate", description="for winners")
    assert set(data) == {"designId", "name", "description", "createdAt"}
    assert data["designId"].startswith("dsg_") and data["name"] == "Certificate"
    assert data["createdAt"].endswith("Z")


@pytest.mark.parametrize(
    "body,size",
    [
        ({}, (595.276, 841.89)),
        ({"size": "A5", "orientation": "landscape"}, (595.276, 419.528)),
        ({"width": 300, "height": 200, "orientation": "portrait"}, (300, 200)),
    ],
)
def test_first_page_is_created_at_the_requested_format(alpha, body, size):
    design_id = create(alpha, **body)["designId"]
    tree = alpha.get(f"/designs/{design_id}/tree").json()
    page = tree["pages"][0]
    assert (page["width"], page["height"]) == pytest.approx(size, abs=0.01)


@pytest.mark.parametrize(
    "body,fragment",
    [
        ({"name": "x", "actions": []}, "actions"),
        ({"name": "x", "colour": "red"}, "colour"),
        ({"name": "x", "size": "A4", "width": 100, "height": 100}, "not both"),
        ({"name": "x", "width": 100}, "go together"),
        ({"name": "x", "size": "B7"}, "size"),
        ({}, "name"),
        ({"name": ""}, "name"),
    ],
)
def test_create_is_strict(alpha, body, fragment):
    assert fragment in alpha.error(alpha.post("/designs", json=body), 400, "VALIDATION_ERROR")


def test_get_returns_metadata_only(alpha):
    design_id = create(alpha, name="Meta", description="d")["designId"]
    data = alpha.data(alpha.get(f"/designs/{design_id}"), 200)
    assert set(data) == {"designId", "name", "description", "fileSize", "createdAt", "modifiedAt"}
    assert data["fileSize"] > 0 and data["description"] == "d"


def test_tree_is_raw_json_with_the_spec_keys(alpha):
    design_id = create(alpha)["designId"]
    response = alpha.get(f"/designs/{design_id}/tree")
    assert response.status_code == 200
    tree = response.json()
    assert "status" not in tree and tree["metadata"]["schemaVersion"] == "v1"
    assert {"metadata", "pages", "nodes", "variables"} <= set(tree)


def test_metadata_patch_renames_without_touching_the_tree(alpha):
    design_id = create(alpha)["designId"]
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [TEXT]}), 200)
    tree_before = alpha.get(f"/designs/{design_id}/tree").text
    data = alpha.data(alpha.patch(f"/designs/{design_id}", json={"name": "Renamed", "description": "new"}), 200)
    assert set(data) == {"designId", "name", "description", "fileSize", "modifiedAt"}
    assert data["name"] == "Renamed" and alpha.get(f"/designs/{design_id}/tree").text == tree_before


@pytest.mark.parametrize("body", [{"actions": [TEXT]}, {}, {"name": None}, {"name": "x", "extra": 1}])
def test_metadata_patch_refusals(alpha, body):
    design_id = create(alpha)["designId"]
    alpha.error(alpha.patch(f"/designs/{design_id}", json=body), 400, "VALIDATION_ERROR")


def test_tree_patch_applies_actions_and_echoes_results(alpha):
    design_id = create(alpha)["designId"]
    data = alpha.data(
        alpha.patch(
            f"/designs/{design_id}/tree",
            json={
                "actions": [
                    TEXT,
                    {
                        "type": "add_element",
                        "args": {
                            "type": "qr",
                            "name": "code",
                            "position": {"x": 10, "y": 100, "size": 50},
                            "data": {"content": "x"},
                        },
                    },
                    {"type": "bind_variable", "args": {"name": "title"}},
                ]
            },
        ),
        200,
    )
    assert set(data) >= {"designId", "fileSize", "modifiedAt", "results"}
    assert [r["type"] for r in data["results"]] == ["add_element", "add_element", "bind_variable"]
    first = data["results"][0]
    assert first["status"] == "success" and first["data"]["id"].startswith("text_")
    assert {"x", "y", "w", "h"} <= set(first["data"]["position"])
    tree = alpha.get(f"/designs/{design_id}/tree").json()
    assert len(tree["nodes"]) == 2 and list(tree["variables"]) == ["title"]


def test_a_failing_tree_patch_saves_nothing_and_names_the_action(alpha):
    design_id = create(alpha)["designId"]
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [TEXT]}), 200)
    before = alpha.get(f"/designs/{design_id}/tree").text
    modified = alpha.data(alpha.get(f"/designs/{design_id}"), 200)["modifiedAt"]
    message = alpha.error(
        alpha.patch(
            f"/designs/{design_id}/tree",
            json={
                "actions": [
                    {"type": "update_element", "args": {"name": "title", "data": {"content": "changed"}}},
                    {
                        "type": "add_element",
                        "args": {"type": "text", "name": "t2", "position": {"x": 0, "y": 0, "w": 100}},
                    },
                ]
            },
        ),
        400,
        "VALIDATION_ERROR",
    )
    assert message.startswith("actions[1] (add_element) failed: ") and "maxWidth" in message
    assert alpha.get(f"/designs/{design_id}/tree").text == before
    assert alpha.data(alpha.get(f"/designs/{design_id}"), 200)["modifiedAt"] == modified


@pytest.mark.parametrize("body", [{"actions": []}, {"actions": [TEXT] * 501}, {"actions": "x"}, {"ops": [TEXT]}])
def test_tree_patch_body_refusals(alpha, body):
    design_id = create(alpha)["designId"]
    alpha.error(alpha.patch(f"/designs/{design_id}/tree", json=body), 400, "VALIDATION_ERROR")


def test_twenty_concurrent_patches_on_one_design_are_all_kept(alpha, api_server):
    design_id = create(alpha)["designId"]
    key = api_server.workspaces["alpha"][1]
    statuses: list[int] = []

    def patch(i: int) -> None:
        with api_server.client(key) as client:
            action = {"type": "add_element", "args": {"type": "text", "name": f"t{i}", "position": {"x": 0, "y": i}}}
            statuses.append(client.patch(f"/designs/{design_id}/tree", json={"actions": [action]}).status_code)

    threads = [threading.Thread(target=patch, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [200] * 20
    names = {node["name"] for node in alpha.get(f"/designs/{design_id}/tree").json()["nodes"].values()}
    assert names == {f"t{i}" for i in range(20)}


def test_pagination_walks_every_design_once_newest_first(api_server):
    with api_server.client(api_server.workspaces["starter"][1]) as client:
        order = [create(client, name=f"paged {i}")["designId"] for i in range(23)]
        seen: list[str] = []
        cursor = None
        while True:
            params = {"limit": 5, **({"cursor": cursor} if cursor else {})}
            page = client.data(client.get("/designs", params=params), 200)
            assert len(page["items"]) <= 5
            seen += [item["designId"] for item in page["items"]]
            cursor = page["nextCursor"]
            if cursor is None:
                break
        assert len(seen) == len(set(seen)) and set(order) <= set(seen)
        assert [d for d in seen if d in set(order)] == order[::-1]


@pytest.mark.parametrize(
    "params", [{"limit": 0}, {"limit": 201}, {"limit": "many"}, {"cursor": "garbage!"}, {"colour": "x"}]
)
def test_list_query_refusals(alpha, params):
    alpha.error(alpha.get("/designs", params=params), 400, "VALIDATION_ERROR")


def test_another_workspaces_design_answers_exactly_like_an_unknown_one(alpha, beta):
    design_id = create(alpha)["designId"]
    for client, target in ((beta, design_id), (alpha, "dsg_doesnotexist")):
        for method, path, body in [
            ("GET", f"/designs/{target}", None),
            ("GET", f"/designs/{target}/tree", None),
            ("PATCH", f"/designs/{target}", {"name": "stolen"}),
            ("PATCH", f"/designs/{target}/tree", {"actions": [TEXT]}),
            ("POST", f"/designs/{target}/generate", {}),
            ("GET", f"/designs/{target}/preview", None),
        ]:
            response = client.request(method, path, json=body)
            message = client.error(response, 404, "DESIGN_NOT_FOUND")
            assert target in message
    assert design_id not in {
        d["designId"] for d in beta.data(beta.get("/designs", params={"limit": 200}), 200)["items"]
    }


def test_data_uri_sources_become_uploads_when_the_patch_is_applied(alpha):
    design_id = create(alpha)["designId"]
    uri = "data:image/png;base64," + base64.b64encode(png()).decode()
    data = alpha.data(
        alpha.patch(
            f"/designs/{design_id}/tree",
            json={
                "actions": [
                    add("image", "logo", {"x": 0, "y": 0, "w": 50, "h": 50}, {"src": uri}),
                    {"type": "set_page_background", "args": {"page": 0, "backgroundImage": uri}},
                ]
            },
        ),
        200,
    )
    tree = alpha.get(f"/designs/{design_id}/tree").json()
    src = tree["nodes"][data["results"][0]["data"]["id"]]["data"]["src"]
    assert src.startswith("uploads:upl_") and tree["pages"][0]["backgroundImage"].startswith("uploads:upl_")
    pdf_url = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={}), 201)["downloadUrl"]
    assert alpha.get(pdf_url).content.startswith(b"%PDF")


@pytest.mark.parametrize(
    "src,fragment",
    [
        ("data:image/png;base64,!!!", "base64"),
        ("data:image/png;base64," + base64.b64encode(b"GIF89a....").decode(), "PNG, JPEG, WebP"),
        ("https://127.0.0.1/logo.png", "loopback"),
        ("https://169.254.169.254/latest/meta-data", "169.254.169.254"),
        ("http://example.com/logo.png", "https"),
        ("uploads:upl_missing", "upload it first"),
    ],
)
def test_bad_image_sources_fail_the_batch_and_save_nothing(alpha, src, fragment):
    design_id = create(alpha)["designId"]
    before = alpha.get(f"/designs/{design_id}/tree").text
    image = add("image", "img", {"x": 0, "y": 0, "w": 5, "h": 5}, {"src": src})
    response = alpha.patch(f"/designs/{design_id}/tree", json={"actions": [TEXT, image]})
    message = alpha.error(response, 400, "VALIDATION_ERROR")
    assert message.startswith("actions[1] (add_element) failed: data.src") and fragment in message, message
    assert alpha.get(f"/designs/{design_id}/tree").text == before


def test_a_refused_batch_leaves_no_image_file_behind(alpha, api_server):
    design_id = create(alpha)["designId"]
    blobs = api_server.data_dir / "blobs"
    before = sum(1 for _ in blobs.rglob("*.*"))
    uri = "data:image/png;base64," + base64.b64encode(png((9, 8, 7, 255), size=(21, 13))).decode()
    image = add("image", "img", {"x": 0, "y": 0, "w": 5, "h": 5}, {"src": uri})
    refused = {"type": "remove_page", "args": {"page": 0}}
    alpha.error(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [image, refused]}), 400, "VALIDATION_ERROR")
    assert sum(1 for _ in blobs.rglob("*.*")) == before
