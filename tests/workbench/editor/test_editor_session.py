"""The editor's design session without a browser: action batches, undo and redo."""

from __future__ import annotations

from functools import partial

import pytest

from api.service import Service, Settings
from engine.design.diff import changes
from workbench.client.api import LocalClient
from workbench.editor.geometry import boxes, new_element, placement_patch, resize_mode
from workbench.editor.session import DesignSession

from ...conftest import add, store_database_url

RUN_ON_BOTH_STORES = True  # the editor's saves go through the service: on DuckDB and PostgreSQL


@pytest.fixture
def session(tmp_path, request, store):
    service = Service(Settings(data_dir=tmp_path, database_url=store_database_url(request, store)))
    workspace, _ = service.accounts.create_workspace("editor", "pro", 3)
    client = LocalClient(service, workspace.id)
    design = client.call("create_design", body={"name": "Session", "size": "A4"})
    yield DesignSession(client, design["designId"])
    service.close()


def test_sixty_edits_undo_to_the_start_and_redo_to_the_end(session):
    session.apply([add("shape", "Box", {"x": 10, "y": 10, "w": 50, "h": 50})])
    start = session.tree
    for step in range(60):
        session.apply([{"type": "update_element", "args": {"name": "Box", "position": {"x": 20 + step}}}])
    end = session.tree
    for _ in range(60):
        assert session.undo()
    assert changes(session.tree, start) == []
    for _ in range(60):
        assert session.redo()
    assert changes(session.tree, end) == []
    assert not session.redo()


def test_a_new_edit_after_undo_clears_redo(session):
    session.apply([add("text", "T", {"x": 10, "y": 10}, {"content": "a"})])
    session.apply([{"type": "update_element", "args": {"name": "T", "data": {"content": "b"}}}])
    session.undo()
    session.apply([{"type": "update_element", "args": {"name": "T", "data": {"content": "c"}}}])
    assert not session.redo()
    assert session.tree.node_by_name("T").data.content == "c"


def test_a_refused_batch_saves_nothing_and_keeps_the_history(session):
    from api.errors import ApiError

    session.apply([add("text", "T", {"x": 10, "y": 10}, {"content": "a"})])
    before = session.tree
    with pytest.raises(ApiError) as refused:
        session.apply(
            [
                {"type": "update_element", "args": {"name": "T", "data": {"content": "b"}}},
                {"type": "remove_element", "args": {"name": "missing"}},
            ]
        )
    assert "actions[1]" in refused.value.message
    assert changes(session.tree, before) == [] and len(session.undo_stack) == 1


def test_a_change_saved_elsewhere_is_picked_up(session):
    session.client.call(
        "patch_design_tree",
        {"designId": session.design_id},
        {"actions": [add("qr", "Code", {"x": 10, "y": 10, "size": 60}, {"content": "x"})]},
    )
    assert session.changed_elsewhere()
    assert session.tree.node_by_name("Code") is not None
    assert not session.changed_elsewhere()


def test_resize_rules_follow_each_types_position_model(session):
    session.apply([add("text", "T", {"x": 10, "y": 10}, {"content": "a"})])
    assert resize_mode("text") == "width" and resize_mode("qr") == "square" and resize_mode("shape") == "free"
    assert resize_mode("table") == "width"
    session.apply([new_element(session.tree, "table", 0, (40, 40))])
    table = next(n for n in session.tree.nodes.values() if n.type == "table")
    width = boxes(session.tree, 0)[-1]["w"]
    patch = placement_patch(table, {"x": 40, "y": 40, "w": width * 2, "h": 10}, resized=True)
    session.apply([patch])
    grown = session.tree.nodes[table.id]
    assert sum(grown.data.columnWidths) == pytest.approx(width * 2, rel=0.01)
    text = session.tree.node_by_name("T")
    assert placement_patch(text, {"x": 5, "y": 6, "w": 99, "h": 300}, resized=True)["args"]["position"] == {
        "x": 5,
        "y": 6,
        "maxWidth": 99,
    }


def test_toolbar_names_are_unique(session):
    for _ in range(3):
        session.apply([new_element(session.tree, "shape", 0, (10, 10))])
    assert sorted(n.name for n in session.tree.nodes.values()) == ["shape_1", "shape_2", "shape_3"]


@pytest.fixture
def lanes():
    """Panel's pool with one lane per page, as `docbench serve` installs it; Panel's default after."""
    import panel as pn

    from workbench.editor import lanes as ui_threads

    ui_threads.install(4)
    yield
    pn.config.nthreads = None  # shuts the pool down


def test_a_burst_of_gestures_in_a_pages_lane_is_saved_in_order_and_the_poll_never_runs_beside_one(session, lanes):
    """docs/editor-state.md: every callback of a page, the poll included, runs in its lane."""
    import threading
    import time

    import panel as pn
    from bokeh.document import Document
    from panel.io.state import set_curdoc

    from workbench.editor import Editor

    session.apply([add("shape", "Box", {"x": 10, "y": 10, "w": 50, "h": 50})])
    session.apply([add("shape", "Other", {"x": 300, "y": 10, "w": 50, "h": 50})])
    editor = Editor(session.client, session.design_id, poll=False)
    box_id = editor.session.tree.node_by_name("Box").id
    page, spans, done = Document(), [], threading.Event()

    def tick(coroutine):
        # Run the tick to its end here, in this context (the page current): it awaits nothing.
        # (Not asyncio.run: another test may have left this thread's loop running.)
        with pytest.raises(StopIteration):
            coroutine.send(None)

    def timed(what, run):
        def task(*args):
            start = time.perf_counter()
            run(*args)
            spans.append((start, time.perf_counter(), what))

        return task

    editor.poll = timed("poll", editor.poll)  # the editor's own poll, its start and end noted
    gestures = [
        {"kind": "move", "changes": [{"id": box_id, "x": 100 + i, "y": 20, "w": 50, "h": 50}]} for i in range(8)
    ]
    gestures += [{"kind": "nudge", "ids": [box_id], "dx": 10, "dy": 0}] * 5
    with set_curdoc(page):  # as Panel runs a page's callbacks
        for index, message in enumerate(gestures):
            # A browser message: Panel hands the page's document with it.
            pn.state.execute(partial(timed("gesture", editor.canvas._handle_msg), message), schedule="thread")
            tick(editor._poll_in_lane())  # the periodic callback's tick
            if index == 4:  # another client saves meanwhile; a poll picks it up
                update = {"type": "update_element", "args": {"name": "Other", "position": {"x": 400}}}
                session.client.call("patch_design_tree", {"designId": session.design_id}, {"actions": [update]})
        pn.state.execute(done.set, schedule="thread")  # last in the lane
    assert done.wait(60)
    spans.sort()
    assert [what for *_, what in spans].count("gesture") == len(gestures) and len(spans) == 2 * len(gestures)
    assert all(later[0] >= earlier[1] for earlier, later in zip(spans, spans[1:], strict=False)), "callbacks overlapped"
    saved = DesignSession(session.client, session.design_id).tree
    assert saved.node_by_name("Box").position.x == 107 + 50  # the last drop, then five nudges of 10
    assert saved.node_by_name("Other").position.x == 400
    shown = {b["name"]: b["x"] for b in editor.canvas.boxes}
    assert shown == {"Box": 157, "Other": 400}


def test_a_batch_that_changes_nothing_is_not_saved(session):
    session.apply([add("shape", "Box", {"x": 10, "y": 10, "w": 50, "h": 50})])
    saved_at = session.info["modifiedAt"]
    same = {"type": "update_element", "args": {"name": "Box", "position": {"x": 10}}}
    assert session.apply([same]) == []  # what a position field set by the editor itself sends back
    assert len(session.undo_stack) == 1 and session.info["modifiedAt"] == saved_at


def test_an_edit_fetches_again_only_the_preview_of_the_page_it_changed(session):
    session.apply([{"type": "add_page", "args": {}}])
    session.apply([add("shape", "Box", {"x": 10, "y": 10, "w": 50, "h": 50})])
    first, second = session.preview_png(0), session.preview_png(1)
    session.apply([{"type": "update_element", "args": {"name": "Box", "position": {"x": 200}}}])  # on page 1
    assert session.preview_png(1) is second  # untouched: not fetched (nor rendered) again
    assert session.preview_png(0) != first


def test_the_variables_panel_binds_every_bindable_type_and_edits_the_field_a_value_fills(session):
    import panel as pn

    from workbench.editor import Editor
    from workbench.editor.colour_picker import ColourPicker
    from workbench.editor.panels import variables_panel

    session.apply([add("shape", "Badge", {"x": 10, "y": 10, "w": 50, "h": 50}, styles={"fill": "#112233"})])
    session.apply([add("text", "Greeting", {"x": 10, "y": 100}, {"content": "Hi"})])
    editor = Editor(session.client, session.design_id, poll=False)

    def widgets():  # the panel as built after the last save
        return variables_panel(editor.panel_context()).select(pn.widgets.Widget)

    def binding(name: str):  # the checkbox in the row the element's name labels
        rows = variables_panel(editor.panel_context()).select(pn.Row)
        row = next(r for r in rows if any(getattr(w, "label", "").startswith(name) for w in r.objects))
        return next(w for w in row.objects if isinstance(w, pn.widgets.Checkbox))

    bind = binding("Badge")
    bind.value = True
    assert "Badge" in DesignSession(session.client, session.design_id).tree.variables  # shapes bind (styles.fill)
    fill = next(w for w in variables_panel(editor.panel_context()).select(ColourPicker) if w.value == "#112233")
    fill.value = "#aa0000"
    assert DesignSession(session.client, session.design_id).tree.node_by_name("Badge").styles.fill == "#aa0000"
    # A sample shows once its element is bound (issue 14: an unbound element's would be noise).
    bind = binding("Greeting")
    bind.value = True
    content = next(w for w in widgets() if isinstance(w, pn.widgets.TextAreaInput) and w.value == "Hi")
    content.value = "Hello"
    assert DesignSession(session.client, session.design_id).tree.node_by_name("Greeting").data.content == "Hello"


def test_restore_shows_the_revision_and_undo_takes_it_back(session):
    """extensions.md 16: Restore is one undoable step; the saves it and its undo make are
    revisions of their own, the restore's marked as such."""
    session.apply([add("text", "T", {"x": 10, "y": 10}, {"content": "first"})])  # revision 2
    session.apply([{"type": "update_element", "args": {"name": "T", "data": {"content": "second"}}}])  # 3
    restored = session.restore(2)
    assert (restored["revision"], restored["restoredFrom"]) == (4, 2)
    assert session.tree.node_by_name("T").data.content == "first"
    assert session.undo()
    assert session.tree.node_by_name("T").data.content == "second"
    assert session.redo()
    assert session.tree.node_by_name("T").data.content == "first"
    listed = [(r["revision"], r["source"]) for r in session.revisions(10)["items"]]
    assert listed[:3] == [(6, "api"), (5, "api"), (4, "restore")]  # a LocalClient's saves are the API's


def test_the_editors_generate_renders_the_draft_once_published(session):
    """Generate in the editor proofs what the canvas shows; API clients get the published revision."""
    session.apply([add("text", "T", {"x": 10, "y": 10}, {"content": "first"})])  # revision 2
    assert session.publish(2)["publishedRevision"] == 2
    session.apply([{"type": "update_element", "args": {"name": "T", "data": {"content": "second"}}}])  # 3
    assert session.generate()["revision"] == 3
    state = session.publish_state()
    assert (state["publishedRevision"], state["latestRevision"], state["differs"]) == (2, 3, True)
    assert [(e["name"], e["parts"]) for e in state["changes"]["changed"]] == [("T", ["data"])]


def test_the_workbench_pages_saves_are_revisions_marked_editor(tmp_path):
    from workbench.web.page import SignedInClient

    service = Service(Settings(data_dir=tmp_path))
    try:
        workspace, _ = service.accounts.create_workspace("editor", "pro", 3)
        token = service.accounts.start_browser_session(workspace.id)
        client = SignedInClient(service, service.accounts.browser_session(token))
        design_id = client.call("create_design", body={"name": "Edited"})["designId"]
        DesignSession(client, design_id).apply([add("shape", "Box", {"x": 10, "y": 10, "w": 50, "h": 50})])
        listed = client.call("list_revisions", {"designId": design_id})["items"]
        assert [(r["revision"], r["source"]) for r in listed] == [(2, "editor"), (1, "editor")]
        # the notebook's embedded client is an API client, its inline editor the editor
        LocalClient(service, workspace.id).call(
            "patch_design_tree",
            {"designId": design_id},
            {"actions": [{"type": "update_element", "args": {"name": "Box", "position": {"x": 20}}}]},
        )
        LocalClient(service, workspace.id).for_editor().call(
            "patch_design_tree",
            {"designId": design_id},
            {"actions": [{"type": "update_element", "args": {"name": "Box", "position": {"x": 30}}}]},
        )
        listed = client.call("list_revisions", {"designId": design_id}, query={"limit": 2})["items"]
        assert [r["source"] for r in listed] == ["editor", "api"]
    finally:
        service.close()
