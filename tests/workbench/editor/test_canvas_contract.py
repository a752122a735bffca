"""What the canvas reads of each element type for clicks and resizes (ElementType.hit_area,
keeps_aspect), and the picture a drag shows under the dragged elements: the page without them,
a free preview that saves nothing (GET /designs/:id/preview?without=)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from api.service import Service, Settings
from engine import apply, new_design
from engine.elements import ELEMENT_TYPES
from engine.render.layout import page_digest, page_without
from workbench import samples
from workbench.client.api import LocalClient
from workbench.editor import geometry
from workbench.editor.session import DesignSession, page_content

from ...conftest import action, add


def shape(**styles) -> object:
    tree, _ = apply(new_design(), [add("shape", "S", {"x": 10, "y": 10, "w": 100, "h": 50}, {}, styles)])
    return tree.node_by_name("S")


def with_kind(kind: str, **styles) -> object:
    node = shape(**styles)
    return node.model_copy(update={"data": node.data.model_copy(update={"shapeType": kind})})


def test_an_unfilled_shape_is_hit_only_near_its_outline_and_a_filled_one_anywhere():
    shapes = ELEMENT_TYPES["shape"]
    assert shapes.hit_area(shape(fill=None)) == "stroke"
    assert shapes.hit_area(shape(fill="#ffeecc")) == "box"
    assert shapes.hit_area(with_kind("circle", fill=None)) == "ellipse"
    assert shapes.hit_area(with_kind("circle", fill="#ffeecc")) == "box"
    assert shapes.hit_area(with_kind("line")) == "line"
    assert shapes.hit_area(with_kind("arrow", fill="#ffeecc")) == "line"  # a line ignores its fill


def test_types_that_declare_no_hit_area_are_hit_anywhere_in_their_box():
    tree = samples.certificate()
    for name in ("title", "paragraph", "logo", "verify", "serial"):
        node = tree.node_by_name(name)
        assert ELEMENT_TYPES[node.type].hit_area(node) == "box", name


def test_images_keep_their_aspect_ratio_by_default_and_the_other_built_in_types_do_not():
    assert ELEMENT_TYPES["image"].editor.keeps_aspect is True
    assert [name for name, element in ELEMENT_TYPES.items() if element.editor.keeps_aspect] == ["image"]


def test_the_canvas_boxes_carry_each_elements_hit_area_and_aspect_rule():
    shown = {box["name"]: box for box in geometry.boxes(samples.certificate(), 0)}
    assert shown["border"]["hit"] == "stroke"  # the certificate's border has no fill
    assert shown["title"]["hit"] == "box"
    assert shown["logo"]["keeps_aspect"] is True and shown["border"]["keeps_aspect"] is False


def test_a_page_without_elements_lists_the_others_and_keeps_every_node():
    tree = samples.certificate().model_dump(mode="json")
    logo = next(i for i, n in tree["nodes"].items() if n["name"] == "logo")
    left = page_without(tree, 0, [logo, "not-an-element"])
    assert left["pages"][0]["elements"] == [i for i in tree["pages"][0]["elements"] if i != logo]
    assert left["nodes"] == tree["nodes"] and logo in tree["pages"][0]["elements"]  # the tree is not changed
    # Where the left-out element is does not matter to the picture.
    moved = {**tree, "nodes": {**tree["nodes"], logo: {**tree["nodes"][logo], "position": {"x": 0, "y": 0}}}}
    assert page_digest(page_without(moved, 0, [logo]), 0) == page_digest(left, 0)
    assert page_digest(page_without(tree, 0, ["not-an-element"]), 0) == page_digest(tree, 0)


@pytest.fixture
def service(tmp_path):
    service = Service(Settings(data_dir=tmp_path))
    yield service
    service.close()


@pytest.fixture
def session(service):
    workspace, _ = service.accounts.create_workspace("lift", "pro", 5)
    client = LocalClient(service, workspace.id)
    design = client.call("create_design", body={"name": "Lift", "size": "A4"})
    session = DesignSession(client, design["designId"])
    session.apply(
        [
            add("shape", "Back", {"x": 40, "y": 40, "w": 200, "h": 120}, styles={"fill": "#224488"}),
            add("shape", "Dragged", {"x": 100, "y": 100, "w": 80, "h": 80}, styles={"fill": "#cc3322"}),
        ]
    )
    return session


def renders(service) -> int:
    return service.renderers.tasks["render_png"]


def test_a_preview_without_elements_leaves_them_out_saves_nothing_and_is_cached_by_what_it_shows(service, session):
    dragged = session.tree.node_by_name("Dragged").id
    saved_at, credits = session.info["modifiedAt"], session.credits()
    full = session.preview_png(0)
    before = renders(service)
    lifted = session.preview_png(0, without=(dragged,))
    assert renders(service) == before + 1 and lifted != full
    assert session.info["modifiedAt"] == saved_at and session.credits() == credits
    assert DesignSession(session.client, session.design_id).tree == session.tree  # nothing saved
    assert not session.undo_stack[1:]  # the two adds were one batch: still one step, no more

    # Dragged elsewhere: the page without it is the same picture, from the cache.
    session.apply([action("update_element", name="Dragged", position={"x": 300})])
    assert session.preview_png(0, without=(dragged,)) == lifted and renders(service) == before + 1
    # Deleted: the page is the one the drag showed, the service's render included.
    session.apply([action("remove_element", name="Dragged")])
    assert page_content(session.tree, 0) == page_content(session.tree, 0, without=(dragged,))
    url = session.client.call("preview_page", {"designId": session.design_id}, query={"page": 0})["previewUrl"]
    assert session.client.fetch(url) == lifted and renders(service) == before + 1


def test_the_editors_lift_sends_the_page_without_the_dragged_elements_and_saves_nothing(service, session):
    from workbench.editor import Editor

    editor = Editor(session.client, session.design_id, poll=False)
    dragged = editor.session.tree.node_by_name("Dragged").id
    saved_at, history = editor.session.info["modifiedAt"], len(editor.session.undo_stack)
    before = renders(service)
    editor.gesture({"kind": "lift", "ids": [dragged, "gone-meanwhile"]})
    assert renders(service) == before + 1  # the picture under the drag was rendered
    assert editor.session.info["modifiedAt"] == saved_at and len(editor.session.undo_stack) == history
    editor.session.preview_png(0, without=(dragged,))
    assert renders(service) == before + 1  # ... and kept: the drop's own preview path finds it


def test_the_rest_preview_takes_the_elements_to_leave_out(alpha):
    design_id = alpha.data(alpha.post("/designs", json={"name": "Preview without"}), 201)["designId"]
    box = add("shape", "Box", {"x": 50, "y": 50, "w": 100, "h": 60}, styles={"fill": "#336699"})
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [box]}), 200)
    box_id = next(iter(alpha.get(f"/designs/{design_id}/tree").json()["nodes"]))  # the tree comes bare
    credits = alpha.data(alpha.get("/me"), 200)["credits"]
    modified = alpha.data(alpha.get(f"/designs/{design_id}"), 200)["modifiedAt"]

    def preview(**query) -> str:
        return urlparse(alpha.data(alpha.get(f"/designs/{design_id}/preview", params=query), 200)["previewUrl"]).path

    full, without = preview(page=0), preview(page=0, without=box_id)
    assert without != full
    assert preview(page=0, without="not-on-the-page") == full
    assert preview(page=0, without=f" {box_id} ,") == without
    assert alpha.data(alpha.get("/me"), 200)["credits"] == credits
    assert alpha.data(alpha.get(f"/designs/{design_id}"), 200)["modifiedAt"] == modified
