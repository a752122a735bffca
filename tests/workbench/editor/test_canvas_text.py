"""Text typed on the canvas and where new elements land, without a browser: the element
types' `inline_text` declarations, what the canvas's boxes carry of them, the edit_text
gesture, and the landing spot of a new element (tests/workbench/editor/test_canvas_text_browser.py has the page)."""

from __future__ import annotations

import pytest

import engine.fonts
from api.service import Service, Settings
from engine import apply, new_design
from engine.elements import ELEMENT_TYPES, ElementType, InlineText
from engine.elements.base import BoxPosition, EditorHints, StrictModel, box_size
from workbench.client.api import LocalClient
from workbench.editor import geometry
from workbench.editor.editor import Editor

from ...conftest import add

A4 = (595.28, 841.89)


@pytest.fixture
def editor(tmp_path):
    service = Service(Settings(data_dir=tmp_path))
    workspace, _ = service.accounts.create_workspace("editor", "pro", 3)
    client = LocalClient(service, workspace.id)
    design = client.call("create_design", body={"name": "Inline text", "size": "A4"})
    editor = Editor(client, design["designId"], poll=False)
    yield editor
    editor.stop()
    service.close()


def box_named(editor: Editor, name: str) -> dict:
    return next(b for b in geometry.boxes(editor.session.tree, 0) if b["name"] == name)


# -- the declarations ------------------------------------------------------------------


def test_the_text_type_declares_its_content_as_inline_text_and_the_others_declare_none():
    assert ELEMENT_TYPES["text"].editor.inline_text.field == "data.content"
    # A barcode's or a QR code's value is not typed as text on the page; a table has cells.
    assert [name for name, element in ELEMENT_TYPES.items() if element.editor.inline_text] == ["text"]


def test_an_inline_text_field_that_is_not_a_field_is_refused_at_declaration():
    class LabelData(StrictModel):
        label: str = "PAID"

    with pytest.raises(KeyError, match="no field 'caption'"):
        ElementType(
            name="stamp",
            summary="a stamp",
            Position=BoxPosition,
            Data=LabelData,
            Styles=StrictModel,
            measure=box_size,
            draw=lambda *args: None,
            variable=None,
            editor=EditorHints(inline_text=InlineText(field="data.caption", look=lambda node: None)),
        )


def test_a_boxs_inline_text_carries_the_raw_text_and_how_it_is_set():
    tree, _ = apply(
        new_design(),
        [
            add(
                "text",
                "Greeting",
                {"x": 10, "y": 10, "maxWidth": 200},
                {"content": "Dear {name}, **welcome**"},
                {"fontFamily": "Great Vibes", "fontSize": 24, "fontWeight": 700, "italic": True, "color": "#ffffff"},
            ),
            add("text", "Plain", {"x": 10, "y": 80}, {"content": "hugs its text"}, {"align": "center"}),
            add("text", "Frozen", {"x": 10, "y": 120}, {"content": "locked"}, isLocked=True),
            add("shape", "Box", {"x": 10, "y": 160, "w": 40, "h": 40}),
        ],
    )
    shown = {b["name"]: b["inline_text"] for b in geometry.boxes(tree, 0)}
    assert shown["Greeting"] == {
        "text": "Dear {name}, **welcome**",  # placeholders and markup as written, to round-trip
        "family": "Great Vibes",
        "font_family": '"Great Vibes", cursive',  # the generic family of its class, if the face is not loaded
        "font_size": 24,
        "font_weight": 700,
        "italic": True,
        "underline": False,
        "color": "#ffffff",
        "align": "left",
        "line_height": 1.2,
        "wraps": True,
        "direction": "auto",
        "markdown": False,  # its markup is "none": the stars print as typed
        "formats": True,  # Ctrl+B on a selected part may turn it Markdown
    }
    assert shown["Plain"]["wraps"] is False and shown["Plain"]["align"] == "center"
    assert shown["Plain"]["font_family"] == '"Inter", sans-serif'
    assert shown["Frozen"] is None  # a locked element is not edited
    assert shown["Box"] is None  # a shape has no text


def test_a_boxs_inline_text_carries_its_direction_and_logical_align():
    styles = {"direction": "rtl", "align": "start"}
    tree, _ = apply(new_design(), [add("text", "Hebrew", {"x": 10, "y": 10}, {"content": "שלום"}, styles)])
    shown = geometry.inline_text(tree.node_by_name("Hebrew"))
    assert shown["direction"] == "rtl" and shown["align"] == "start" and shown["text"] == "שלום"


def test_a_list_is_typed_one_item_per_line_and_stays_a_list():
    tree, _ = apply(
        new_design(),
        [add("text", "Steps", {"x": 10, "y": 10}, {"content": ["one", "two"], "listFormat": "ordered"})],
    )
    node = tree.node_by_name("Steps")
    assert geometry.inline_text(node)["text"] == "one\ntwo"
    edited, _ = apply(tree, [geometry.text_typed(node, "one\ntwo\nthree")])
    assert edited.node_by_name("Steps").data.content == ["one", "two", "three"]


def test_the_face_the_canvas_is_sent_is_the_file_the_engine_draws_with():
    for family, weight, italic in [("Lora", 600, True), ("Inter", 700, True), ("Great Vibes", 700, False)]:
        sent = engine.fonts.face_file(family, weight, italic)
        drawn = engine.fonts.face(family, weight, italic)
        assert sent.path.is_file() and (sent.weight, sent.italic) == (drawn.weight, drawn.italic)
    assert engine.fonts.face_file("Inter", 700, True).italic  # Inter has a bold italic file
    assert engine.fonts.face_file("Great Vibes", 700, False).weight == 400  # its only weight


# -- the edit_text gesture --------------------------------------------------------------


def test_text_typed_on_the_canvas_is_one_edit_and_one_undo_step(editor):
    editor.session.apply([add("text", "Title", {"x": 40, "y": 40}, {"content": "Certificate of {name}"})])
    title = box_named(editor, "Title")
    editor.gesture({"kind": "edit_text", "id": title["id"], "text": "Award for {name}\nwith honours"})
    assert editor.session.tree.node_by_name("Title").data.content == "Award for {name}\nwith honours"
    assert box_named(editor, "Title")["h"] > title["h"] * 1.8  # two lines now
    assert len(editor.session.undo_stack) == 2  # the add, then the whole edit
    editor.gesture({"kind": "undo"})
    assert editor.session.tree.node_by_name("Title").data.content == "Certificate of {name}"


def test_a_part_formatted_on_the_canvas_turns_a_plain_text_markdown_in_the_same_edit(editor):
    editor.session.apply([add("text", "Note", {"x": 40, "y": 40}, {"content": "Hello brave world"})])
    note = box_named(editor, "Note")
    assert note["inline_text"]["markdown"] is False
    editor.gesture({"kind": "edit_text", "id": note["id"], "text": "Hello **brave** world", "markdown": True})
    saved = editor.session.tree.node_by_name("Note")
    assert (saved.data.content, saved.data.markup) == ("Hello **brave** world", "markdown")
    assert box_named(editor, "Note")["inline_text"]["markdown"] is True
    assert len(editor.session.undo_stack) == 2  # the add, then text and markup as one edit
    # Typing alone leaves the markup as it is.
    editor.gesture({"kind": "edit_text", "id": note["id"], "text": "Hello *brave* world"})
    assert editor.session.tree.node_by_name("Note").data.markup == "markdown"


def test_text_typed_on_a_locked_element_or_a_shape_saves_nothing(editor):
    editor.session.apply(
        [
            add("text", "Fixed", {"x": 40, "y": 40}, {"content": "Locked"}, isLocked=True),
            add("shape", "Box", {"x": 40, "y": 100, "w": 40, "h": 40}),
        ]
    )
    before = editor.session.tree
    for name in ("Fixed", "Box"):
        editor.gesture({"kind": "edit_text", "id": box_named(editor, name)["id"], "text": "typed"})
    editor.gesture({"kind": "edit_text", "id": "gone", "text": "typed"})
    assert editor.session.tree is before


# -- where new elements land -------------------------------------------------------------


def test_a_new_element_is_centred_on_the_visible_part():
    assert geometry.landing_spot(A4, (100, 40), (300, 500), []) == (250, 480)


def test_without_a_known_view_a_new_element_lands_in_the_middle_of_the_page():
    assert geometry.landing_spot((600, 800), (100, 40), None, []) == (250, 380)


def test_a_taken_spot_moves_the_new_element_a_step_past_the_last_one():
    first = geometry.landing_spot(A4, (100, 40), (300, 500), [])
    second = geometry.landing_spot(A4, (100, 40), (300, 500), [first])
    third = geometry.landing_spot(A4, (100, 40), (300, 500), [first, second])
    assert second == (first[0] + 12, first[1] + 12)
    assert third == (first[0] + 24, first[1] + 24)


def test_a_new_element_stays_inside_the_page():
    assert geometry.landing_spot(A4, (100, 40), (590, 835), []) == (495.28, 801.89)
    assert geometry.landing_spot(A4, (100, 40), (-50, -50), []) == (0, 0)
    # Pressed into the corner, the steps go back up and left rather than onto the first.
    corner = geometry.landing_spot(A4, (100, 40), (590, 835), [(495.28, 801.89)])
    assert corner == (483.28, 789.89)


def test_the_editor_adds_elements_where_the_canvas_shows_and_not_on_each_other(editor):
    editor.canvas.view_centre = [400, 600]
    editor.add("shape")
    editor.add("shape")
    first, second = (b for b in geometry.boxes(editor.session.tree, 0))
    assert (first["x"] + first["w"] / 2, first["y"] + first["h"] / 2) == (400, 600)
    assert (second["x"], second["y"]) == (first["x"] + 12, first["y"] + 12)
    editor.add("text")  # measured from its content: centred too
    text = geometry.boxes(editor.session.tree, 0)[-1]
    assert abs(text["x"] + text["w"] / 2 - 400) < 0.01 and abs(text["y"] + text["h"] / 2 - 600) < 0.01
