"""Design housekeeping over real HTTP (extensions.md 10): delete and duplicate a design."""

import io
import zipfile

import httpx

from tests.pdf_probes import pdf_text

from ..conftest import add
from ..server import wait_until

WHO = [
    add("text", "who", {"x": 40, "y": 40}, {"content": "Someone"}),
    {"type": "bind_variable", "args": {"name": "who"}},
]
COPY = " (copy)"
FLAG_OF_ENGLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"


def create(client, name="Housekeeping", actions=None, **body) -> str:
    design_id = client.data(client.post("/designs", json={"name": name, **body}), 201)["designId"]
    if actions:
        client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    return design_id


def listed(client) -> set[str]:
    ids, cursor = set(), None
    while True:
        page = client.data(client.get("/designs", params={"limit": 200, **({"cursor": cursor} if cursor else {})}), 200)
        ids |= {item["designId"] for item in page["items"]}
        cursor = page["nextCursor"]
        if cursor is None:
            return ids


# Delete


def test_delete_answers_200_then_the_design_is_gone_everywhere(alpha):
    design_id = create(alpha, actions=WHO)
    assert alpha.data(alpha.delete(f"/designs/{design_id}"), 200) == {"designId": design_id, "deleted": True}
    for path in ("", "/tree", "/preview"):
        assert design_id in alpha.error(alpha.get(f"/designs/{design_id}{path}"), 404, "DESIGN_NOT_FOUND")
    alpha.error(alpha.patch(f"/designs/{design_id}", json={"name": "back"}), 404, "DESIGN_NOT_FOUND")
    alpha.error(alpha.patch(f"/designs/{design_id}/tree", json={"actions": WHO[:1]}), 404, "DESIGN_NOT_FOUND")
    alpha.error(alpha.post(f"/designs/{design_id}/generate", json={}), 404, "DESIGN_NOT_FOUND")
    alpha.error(alpha.post(f"/designs/{design_id}/batch", json={"rows": [{}]}), 404, "DESIGN_NOT_FOUND")
    alpha.error(alpha.post(f"/designs/{design_id}/duplicate", json={}), 404, "DESIGN_NOT_FOUND")
    assert design_id not in listed(alpha)
    alpha.error(alpha.delete(f"/designs/{design_id}"), 404, "DESIGN_NOT_FOUND")


def test_deleting_an_unknown_design_is_404(alpha):
    assert "dsg_nothing" in alpha.error(alpha.delete("/designs/dsg_nothing"), 404, "DESIGN_NOT_FOUND")


def test_another_workspaces_design_cannot_be_deleted_and_stays_as_it_was(alpha, beta):
    design_id = create(alpha, name="Alpha's own", actions=WHO)
    tree = alpha.get(f"/designs/{design_id}/tree").text
    unknown = beta.error(beta.delete("/designs/dsg_nothing"), 404, "DESIGN_NOT_FOUND")
    foreign = beta.error(beta.delete(f"/designs/{design_id}"), 404, "DESIGN_NOT_FOUND")
    assert foreign == unknown.replace("dsg_nothing", design_id)  # nothing tells it exists
    assert alpha.data(alpha.get(f"/designs/{design_id}"), 200)["name"] == "Alpha's own"
    assert alpha.get(f"/designs/{design_id}/tree").text == tree and design_id in listed(alpha)


def test_a_pdf_made_before_the_delete_stays_downloadable_and_images_stay(alpha):
    asset = alpha.data(alpha.post("/assets/placeholder", json={"name": "kept logo"}), 201)
    logo = add("image", "logo", {"x": 300, "y": 40, "w": 80, "h": 60}, {"src": asset["ref"]})
    design_id = create(alpha, actions=[*WHO, logo])
    generation = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={"data": {"who": "Ada"}}), 201)
    alpha.data(alpha.delete(f"/designs/{design_id}"), 200)
    pdf = httpx.get(generation["downloadUrl"])
    assert pdf.status_code == 200 and "Ada" in pdf_text(pdf.content)[0]
    assert alpha.data(alpha.get(f"/assets/{asset['id']}"), 200)["ref"] == asset["ref"]
    assert httpx.get(asset["thumbnailUrl"]).status_code == 200


def test_a_batch_submitted_before_the_delete_finishes_and_its_zip_downloads(alpha):
    design_id = create(alpha, actions=WHO)
    rows = [{"who": f"Person {i}"} for i in range(12)]
    job = alpha.data(alpha.post(f"/designs/{design_id}/batch", json={"rows": rows}), 202)
    alpha.data(alpha.delete(f"/designs/{design_id}"), 200)  # at once: the batch is queued or rendering
    state = wait_until(
        lambda: (lambda s: s if s["status"] in ("completed", "failed") else None)(
            alpha.data(alpha.get(f"/batches/{job['jobId']}"), 200)
        ),
        timeout=120,
        what="the batch to end",
    )
    assert (state["status"], state["completed"], state["failed"]) == ("completed", 12, 0)
    download = alpha.data(alpha.get(f"/batches/{job['jobId']}/download"), 200)
    with zipfile.ZipFile(io.BytesIO(httpx.get(download["downloadUrl"]).content)) as archive:
        names = sorted(archive.namelist())
        assert names == [f"row-{i:04d}.pdf" for i in range(1, 13)]
        assert "Person 11" in pdf_text(archive.read("row-0012.pdf"))[0]


# Duplicate


def test_duplicate_answers_201_with_a_new_design_named_copy(alpha):
    design_id = create(alpha, name="Invoice", description="monthly")
    data = alpha.data(alpha.post(f"/designs/{design_id}/duplicate", json={}), 201)
    assert set(data) == {"designId", "name", "description", "createdAt"}
    assert data["designId"].startswith("dsg_") and data["designId"] != design_id
    assert (data["name"], data["description"]) == ("Invoice (copy)", "monthly")
    assert data["createdAt"].endswith("Z") and data["designId"] in listed(alpha)
    assert alpha.data(alpha.get(f"/designs/{data['designId']}"), 200)["name"] == "Invoice (copy)"


def test_duplicate_takes_a_name(alpha):
    design_id = create(alpha, name="Letter")
    data = alpha.data(alpha.post(f"/designs/{design_id}/duplicate", json={"name": "Letter, second draft"}), 201)
    assert data["name"] == "Letter, second draft" and "description" not in data


def test_the_copy_has_an_equal_tree_that_changes_on_its_own(alpha):
    actions = [
        *WHO,
        add("qr", "code", {"x": 40, "y": 200, "size": 60}, {"content": "x"}),
        {"type": "add_page", "args": {"size": "A5"}},
    ]
    design_id = create(alpha, actions=actions)
    original = alpha.get(f"/designs/{design_id}/tree").json()
    copy_id = alpha.data(alpha.post(f"/designs/{design_id}/duplicate", json={}), 201)["designId"]
    copy = alpha.get(f"/designs/{copy_id}/tree").json()
    assert copy == original and len(copy["pages"]) == 2 and list(copy["variables"]) == ["who"]
    edit = {"type": "update_element", "args": {"name": "who", "data": {"content": "Changed"}}}
    alpha.data(alpha.patch(f"/designs/{copy_id}/tree", json={"actions": [edit]}), 200)
    alpha.data(alpha.patch(f"/designs/{copy_id}", json={"name": "Renamed copy"}), 200)
    assert alpha.get(f"/designs/{design_id}/tree").json() == original
    assert alpha.data(alpha.get(f"/designs/{design_id}"), 200)["name"] == "Housekeeping"
    assert alpha.get(f"/designs/{copy_id}/tree").json() != original
    alpha.data(alpha.delete(f"/designs/{design_id}"), 200)  # and deleting the original leaves the copy
    assert alpha.get(f"/designs/{copy_id}/tree").status_code == 200


def test_the_default_name_of_a_long_name_is_cut_to_stay_valid(alpha):
    longest = create(alpha, name="n" * 200)
    name = alpha.data(alpha.post(f"/designs/{longest}/duplicate", json={}), 201)["name"]
    assert name == "n" * (200 - len(COPY)) + COPY
    # A cut through an emoji flag would leave its tag characters, invisible, before " (copy)".
    flagged = create(alpha, name="a" * 190 + FLAG_OF_ENGLAND)
    name = alpha.data(alpha.post(f"/designs/{flagged}/duplicate", json={}), 201)["name"]
    assert name == "a" * 190 + "\U0001f3f4" + COPY
    # The copy's name is itself a valid name: it can be copied again.
    copied = alpha.data(alpha.post(f"/designs/{flagged}/duplicate", json={"name": name}), 201)["designId"]
    assert alpha.data(alpha.post(f"/designs/{copied}/duplicate", json={}), 201)["name"].endswith(COPY)


def test_duplicate_refusals(alpha, beta):
    design_id = create(alpha)
    assert "colour" in alpha.error(
        alpha.post(f"/designs/{design_id}/duplicate", json={"colour": "red"}), 400, "VALIDATION_ERROR"
    )
    assert "name" in alpha.error(
        alpha.post(f"/designs/{design_id}/duplicate", json={"name": "x" * 201}), 400, "VALIDATION_ERROR"
    )
    for name in ("", None, "bad\u202ename"):
        alpha.error(alpha.post(f"/designs/{design_id}/duplicate", json={"name": name}), 400, "VALIDATION_ERROR")
    alpha.error(alpha.post("/designs/dsg_nothing/duplicate", json={}), 404, "DESIGN_NOT_FOUND")
    before = listed(beta)
    beta.error(beta.post(f"/designs/{design_id}/duplicate", json={}), 404, "DESIGN_NOT_FOUND")
    assert listed(beta) == before
