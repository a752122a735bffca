"""One contract per element type (issue 13): a type declares what the faces need of it,
and every face (catalog, OpenAPI, MCP, REST generation, the editor's toolbar and
properties, media, layout) reads that declaration — so a type registered from outside
the engine, by this test alone, is everywhere a built-in one is."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import subprocess
import sys
from typing import Annotated

import httpx
import panel as pn
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from pydantic import Field

from engine import apply, new_design
from engine.design.colors import HexColor
from engine.design.variables import image_variable_names
from engine.elements import ELEMENT_TYPES, ElementType
from engine.elements.base import EditorHints
from engine.elements.editing import COLOR, Widget, plain_type, widget_of
from engine.elements.text import ELEMENT as TEXT
from engine.elements.text import TextStyles
from tests.panel_widgets import widgets_of
from tests.pdf_probes import all_text
from workbench.editor.colour_picker import ColourPicker

from ...conftest import add, run_async
from ...server import ROOT, Server

PLUGIN_MODULE = "docbench_test_stamp"
# A throwaway element type: a coloured disc with a label, bindable, with a colour field.
STAMP_SOURCE = '''
"""A rubber stamp: a disc of ink with a label across it."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from engine.text import typeset
from engine.design.colors import HexColor, to_rl
from engine.elements.base import (
    BoxPosition, EditorHints, ElementType, Opacity, StrictModel, VariableSpec, box_size, require_string, with_data,
)


class StampData(StrictModel):
    label: str = Field("PAID", max_length=200, description="The word across the stamp")
    ink: HexColor = "#c0392b"


class StampStyles(StrictModel):
    opacity: Opacity = 1.0


def draw(node: Any, box: Any, ctx: Any, part: Any = None) -> None:
    canvas = ctx.canvas
    canvas.saveState()
    canvas.setFillColor(to_rl(node.data.ink))
    canvas.ellipse(box.x, ctx.pdf_y(box.y, box.h), box.x + box.w, ctx.pdf_y(box.y), stroke=0, fill=1)
    style = typeset.TextStyle(family="Inter", size=12, line_height=1.2, color="#ffffff", align="center")
    line = typeset.Line(node.data.label, typeset.width_of(node.data.label, style), True)
    top = box.y + box.h / 2 - 7
    typeset.draw_lines(canvas, [line], style, box.x, top, box.w, ctx.page_height, direct=ctx.options.direct_text)
    canvas.restoreState()


def bind_value(node: Any, value: Any) -> Any:
    return with_data(node, label=require_string(value))


ELEMENT = ElementType(
    name="stamp",
    title="Rubber stamp",
    summary="A round ink stamp with a label; position {x, y, w, h}",
    Position=BoxPosition,
    Data=StampData,
    Styles=StampStyles,
    measure=box_size,
    draw=draw,
    editor=EditorHints(defaults={"position": {"w": 90, "h": 90}, "data": {"label": "PAID"}}),
    variable=VariableSpec(kind="text", field="data.label", accepts="a string", apply=bind_value),
)
'''

# What the editor shows of the plugin type, from a fresh interpreter with the plugin's environment.
EDITOR_PROBE = """
import ast
import dataclasses
import json

import panel as pn

from engine import apply, new_design
from workbench.editor import geometry, properties
from workbench.editor.colour_picker import ColourPicker

tree = new_design()
tree, _ = apply(tree, [geometry.new_element(tree, "stamp", 0, (40, 40))])
node = next(iter(tree.nodes.values()))
form = properties.element_form(node, lambda actions: None)


def widgets(panel):
    for child in getattr(panel, "objects", None) or []:
        yield from widgets(child) if hasattr(child, "objects") else [child]


print(json.dumps({
    "toolbar": geometry.element_kinds(),
    "node": {"type": node.type, "name": node.name, "data": node.data.model_dump()},
    "box": geometry.boxes(tree, 0)[0],
    "colour_pickers": [w.caption for w in widgets(form) if isinstance(w, ColourPicker)],
    "text_inputs": [w.name for w in widgets(form) if isinstance(w, pn.widgets.TextInput)],
}))
"""


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("plugin")
    (folder / f"{PLUGIN_MODULE}.py").write_text(STAMP_SOURCE)
    path = os.pathsep.join(filter(None, [str(folder), str(ROOT), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path, "DOCBENCH_ELEMENT_MODULES": PLUGIN_MODULE}


@pytest.fixture(scope="module")
def plugin_server(tmp_path_factory, plugin_env):
    from api.service import Service, Settings

    data_dir = tmp_path_factory.mktemp("plugin-data")
    service = Service(Settings(data_dir=data_dir))
    _, key = service.accounts.create_workspace("stamps", "pro", 100)
    service.close()
    server = Server(data_dir, env=plugin_env).start()
    server.key = key
    yield server
    server.stop()


def python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **env}, cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def mcp_tools(server: Server) -> list:
    async def main():
        async with create_mcp_http_client(headers={"X-API-Key": server.key}) as http:
            async with streamable_http_client(f"{server.url}/mcp", http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    return (await session.list_tools()).tools

    return run_async(main)


# (a) A type registered from outside the engine, found by every face.


@pytest.mark.slow
def test_a_plugin_element_type_is_in_the_catalog_openapi_and_mcp(plugin_server):
    with plugin_server.client(plugin_server.key) as client:
        actions = {a["name"]: a for a in client.data(client.get("/actions"), 200)["actions"]}
    add_element = actions["add_element"]
    assert set(add_element["args"]["discriminator"]["mapping"]) == {*ELEMENT_TYPES, "stamp"}
    assert add_element["args"]["$defs"]["AddStampArgs"]["properties"]["type"]["const"] == "stamp"
    assert "StampData" in add_element["args"]["$defs"]
    assert "stamp (Rubber stamp): A round ink stamp with a label" in add_element["description"]
    assert "- stamp: data.label, a string" in actions["bind_variable"]["description"]

    schemas = httpx.get(f"{plugin_server.api}/openapi.json").json()["components"]["schemas"]
    assert schemas["StampNode"]["properties"]["type"]["const"] == "stamp"
    assert schemas["StampData"]["properties"]["label"]["description"] == "The word across the stamp"

    patch = next(tool for tool in mcp_tools(plugin_server) if tool.name == "patch_design_tree")
    assert '"stamp"' in json.dumps(patch.input_schema)


@pytest.mark.slow
def test_a_plugin_element_type_is_drawn_in_a_generated_pdf(plugin_server):
    with plugin_server.client(plugin_server.key) as client:
        design_id = client.data(client.post("/designs", json={"name": "Stamped"}), 201)["designId"]
        stamp = add("stamp", "Seal", {"x": 100, "y": 100, "w": 120, "h": 120}, {"label": "DRAFT", "ink": "#1f4e8c"})
        client.data(
            client.patch(
                f"/designs/{design_id}/tree",
                json={"actions": [stamp, {"type": "bind_variable", "args": {"name": "Seal"}}]},
            ),
            200,
        )
        tree = client.get(f"/designs/{design_id}/tree").json()
        assert tree["variables"]["Seal"]["kind"] == "text"
        result = client.data(client.post(f"/designs/{design_id}/generate", json={"data": {"Seal": "APPROVED"}}), 201)
    text = all_text(httpx.get(result["downloadUrl"]).content)
    assert "APPROVED" in text and "DRAFT" not in text


def test_a_plugin_element_type_is_in_the_editor_toolbar_and_properties(plugin_env):
    probe = python(EDITOR_PROBE, plugin_env)
    assert probe.returncode == 0, probe.stderr
    shown = json.loads(probe.stdout.strip().splitlines()[-1])
    assert ["stamp", "Rubber stamp"] in shown["toolbar"]
    assert shown["node"] == {"type": "stamp", "name": "stamp_1", "data": {"label": "PAID", "ink": "#c0392b"}}
    assert (shown["box"]["w"], shown["box"]["h"], shown["box"]["resize"]) == (90, 90, "free")
    assert shown["colour_pickers"] == ["Ink"]  # a HexColor field gets the colour picker, by its type
    assert "Label" in shown["text_inputs"]


def test_an_installed_plugin_registers_through_its_entry_point(tmp_path):
    (tmp_path / f"{PLUGIN_MODULE}.py").write_text(STAMP_SOURCE)
    # What `pip install` of a package declaring the entry point leaves on the path.
    dist = tmp_path / "docbench_stamp-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: docbench-stamp\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[docbench.elements]\nstamp = {PLUGIN_MODULE}:ELEMENT\n")
    probe = "from engine.elements import ELEMENT_TYPES; print(ELEMENT_TYPES['stamp'].title)"
    run = python(probe, {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]), "DOCBENCH_ELEMENT_MODULES": ""})
    assert run.returncode == 0 and run.stdout.strip() == "Rubber stamp", run.stderr


TEXT_AGAIN = """
from engine.elements.base import BoxPosition, EditorHints, ElementType, StrictModel, box_size


class Nothing(StrictModel):
    pass


ELEMENT = ElementType(
    name="text", summary="another text", Position=BoxPosition, Data=Nothing, Styles=Nothing,
    measure=box_size, draw=lambda *args: None, variable=None,
    editor=EditorHints(defaults={"position": {"w": 10, "h": 10}}),
)
"""


@pytest.mark.parametrize(
    "module,source,message",
    [
        (
            "docbench_no_such_module",
            None,
            "element type module 'docbench_no_such_module' (from DOCBENCH_ELEMENT_MODULES) could not be imported",
        ),
        (
            "docbench_not_a_type",
            "ELEMENT = 'a stamp'\n",
            "element type plugin 'docbench_not_a_type' has no ELEMENT = ElementType(...)",
        ),
        (
            "docbench_text_again",
            TEXT_AGAIN,
            "element type plugin 'docbench_text_again' declares type 'text', which is already taken (built-in)",
        ),
    ],
)
def test_a_plugin_that_cannot_be_registered_is_named_in_the_error(tmp_path, module, source, message):
    if source is not None:
        (tmp_path / f"{module}.py").write_text(source)
    run = python(
        "import engine", {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]), "DOCBENCH_ELEMENT_MODULES": module}
    )
    assert run.returncode != 0 and message in run.stderr, run.stderr


# (b) A style added to a type's models gets a fitting widget, with no editor code.


class OutlinedTextStyles(TextStyles):
    outlineColor: HexColor = "#ffffff"
    shadowColor: HexColor | None = None
    tracking: float = Field(0.0, ge=-5, le=50, description="Extra space between letters, in points")
    weightAxis: Annotated[int, Field(ge=1, le=1000)] = 400


def test_a_new_text_style_gets_fitting_widgets_by_its_type(monkeypatch):
    from workbench.editor.properties import element_form

    fields = {name: getattr(TEXT, name) for name in ("summary", "Position", "Data", "measure", "draw", "variable")}
    outlined = ElementType(
        name="outlined", Styles=OutlinedTextStyles, **fields, editor=EditorHints(defaults=TEXT.editor.defaults)
    )
    monkeypatch.setitem(ELEMENT_TYPES, "outlined", outlined)
    node = outlined.Node(id="o1", type="outlined", name="Title", position={"x": 0, "y": 0}, data={"content": "Hi"})
    sent: list[list[dict]] = []
    # A colour picker is labelled by its caption (issue 14: picker, hex entry, "none" when optional).
    widgets = {
        getattr(w, "caption", "") or getattr(w, "name", ""): w for w in widgets_of(element_form(node, sent.append))
    }
    assert isinstance(widgets["Outline color"], ColourPicker) and not widgets["Outline color"].optional
    assert isinstance(widgets["Shadow color"], ColourPicker) and widgets["Shadow color"].optional
    assert isinstance(widgets["Tracking"], pn.widgets.FloatInput)
    assert isinstance(widgets["Weight axis"], pn.widgets.IntInput)
    widgets["Outline color"].value = "#ff0000"
    widgets["Shadow color"].value = "#333333"
    widgets["Tracking"].value = 1.5
    assert [batch[0]["args"]["styles"] for batch in sent] == [
        {"outlineColor": "#ff0000"},
        {"shadowColor": "#333333"},
        {"tracking": 1.5},
    ]


def test_widgets_come_from_marked_types_not_field_names():
    shape, text, table = ELEMENT_TYPES["shape"], ELEMENT_TYPES["text"], ELEMENT_TYPES["table"]
    assert widget_of(shape.model_field("styles.fill")).kind == COLOR  # HexColor | None: inside Optional
    assert widget_of(text.model_field("styles.fontFamily")).kind == "font"
    assert widget_of(ELEMENT_TYPES["icon"].model_field("data.iconId")).kind == "icon"
    assert widget_of(ELEMENT_TYPES["image"].model_field("data.src")).kind == "image"
    assert widget_of(ELEMENT_TYPES["image"].model_field("data.crop")).kind == "hidden"
    assert widget_of(text.model_field("data.content")).kind == "multiline"
    assert widget_of(table.model_field("data.cells")).kind == "cells"
    # A field called "color" that is not a HexColor is edited as what it is.
    assert widget_of(text.model_field("data.locale")) is None
    assert plain_type(shape.model_field("styles.dash").annotation)[1] is True
    assert Widget("x").store(1, 2) == 2 and Widget("x").show(3) == 3


# (c) Editing a table's cells in the form keeps each cell's styles.


def styled_table():
    tree = new_design()
    bold = {"type": "text", "data": {"content": "Qty"}, "styles": {"fontWeight": 700, "backgroundColor": "#ffee00"}}
    cells = [["Item", bold], ["Pens", {"type": "text", "data": {"content": "3"}, "styles": {"align": "right"}}]]
    tree, _ = apply(tree, [add("table", "Order", {"x": 20, "y": 20}, {"cells": cells})])
    return tree, tree.node_by_name("Order")


def test_editing_a_cell_in_the_grid_keeps_the_cells_styles():
    from workbench.editor.pickers import CellGrid
    from workbench.editor.properties import element_form

    tree, node = styled_table()
    sent: list[list[dict]] = []
    grid = next(w for w in widgets_of(element_form(node, sent.append)) if isinstance(w, CellGrid))
    assert grid.cells == [["Item", "Qty"], ["Pens", "3"]]
    grid.cells = [["Item", "Quantity"], ["Pens", "4"]]
    tree, _ = apply(tree, sent[-1])
    cells = tree.node_by_name("Order").data.cells
    assert cells[0][0] == "Item"
    assert cells[0][1].data.content == "Quantity" and cells[0][1].styles.fontWeight == 700
    assert cells[0][1].styles.backgroundColor == "#ffee00"
    assert cells[1][1].data.content == "4" and cells[1][1].styles.align == "right"


def test_pasting_csv_keeps_the_styles_of_the_cells_it_replaces():
    from workbench.editor.properties import element_form

    tree, node = styled_table()
    sent: list[list[dict]] = []
    paste = next(w for w in widgets_of(element_form(node, sent.append)) if getattr(w, "name", "").startswith("Paste"))
    paste.value = "Item,Qty\nInk,1\nPaper,500"
    tree, _ = apply(tree, sent[-1])
    data = tree.node_by_name("Order").data
    assert data.rows == 3 and data.cells[0][1].styles.fontWeight == 700 and data.cells[1][1].styles.align == "right"
    assert data.cells[2] == ["Paper", "500"]


def test_the_table_type_owns_setting_cell_texts():
    tree, node = styled_table()
    patch = ELEMENT_TYPES["table"].edited(node, "data.cells", [["A", "B"], ["C", "D"]])
    tree, _ = apply(tree, [{"type": "update_element", "args": {"id": node.id, **patch}}])
    cells = tree.node_by_name("Order").data.cells
    assert [[c if isinstance(c, str) else c.data.content for c in row] for row in cells] == [["A", "B"], ["C", "D"]]
    assert cells[0][1].styles.backgroundColor == "#ffee00"


# (d) The other declarations, and the faces that read them.


def test_splitting_is_declared_by_the_types_that_paginate():
    assert {name for name, element in ELEMENT_TYPES.items() if element.splits} == {"table"}


def test_image_refs_are_read_from_the_declared_image_fields():
    image = ELEMENT_TYPES["image"]
    assert image.image_fields == ("data.src",)
    tree, _ = apply(
        new_design(),
        [
            add("image", "Photo", {"x": 0, "y": 0, "w": 10, "h": 10}, {"src": "uploads:abc"}),
            add("text", "Caption", {"x": 0, "y": 20}, {"content": "uploads:not-an-image"}),
            {"type": "bind_variable", "args": {"name": "Photo"}},
            {"type": "bind_variable", "args": {"name": "Caption"}},
        ],
    )
    refs = {ref for node in tree.nodes.values() for ref in ELEMENT_TYPES[node.type].image_refs(node)}
    assert refs == {"uploads:abc"}
    assert image_variable_names(tree) == {"Photo"}


def test_media_rewrites_sources_in_every_declared_image_field():
    from api.service.media import SOURCE_FIELDS

    declared = {tuple(p.split(".")) for e in ELEMENT_TYPES.values() for p in e.image_fields}
    assert set(SOURCE_FIELDS["add_element"]) == set(SOURCE_FIELDS["update_element"]) == declared == {("data", "src")}
    assert SOURCE_FIELDS["set_page_background"] == (("backgroundImage",),)


def test_the_toolbar_and_new_elements_come_from_the_declarations():
    from workbench.editor import geometry

    assert geometry.element_kinds() == [(name, element.title) for name, element in ELEMENT_TYPES.items()]
    assert dict(geometry.element_kinds())["qr"] == "QR code"
    tree = new_design()
    for name in ELEMENT_TYPES:
        tree, results = apply(tree, [geometry.new_element(tree, name, 0, (30, 30))])
        assert results[0]["data"]["name"] == f"{name}_1"  # a variable name and a DataFrame column (issue 14)


def test_defaults_that_do_not_make_an_element_are_refused_naming_the_type():
    text = ELEMENT_TYPES["text"]
    fields = {name: getattr(text, name) for name in ("summary", "Position", "Data", "Styles", "measure", "draw")}
    with pytest.raises(TypeError, match="element type 'broken': its defaults do not make a valid element"):
        ElementType(name="broken", variable=None, **fields, editor=EditorHints(defaults={"styles": {"fontSize": -1}}))
    with pytest.raises(KeyError, match="data has no field 'logo'"):
        ElementType(name="broken", variable=None, image_fields=("data.logo",), **fields)


def test_every_bindable_type_has_a_sample_value_widget_shapes_included():
    from workbench.editor.properties import variable_widget

    tree, _ = apply(
        new_design(), [add("shape", "Badge", {"x": 0, "y": 0, "w": 20, "h": 20}, styles={"fill": "#00ff00"})]
    )
    node = tree.node_by_name("Badge")
    sent: list[list[dict]] = []
    widget = variable_widget(node, sent.append)
    assert widget.value == "#00ff00"
    widget.value = "#123456"
    tree, _ = apply(tree, sent[-1])
    assert tree.node_by_name("Badge").styles.fill == "#123456"
    image, _ = apply(new_design(), [add("image", "Photo", {"x": 0, "y": 0, "w": 20, "h": 20})])
    assert variable_widget(image.node_by_name("Photo"), sent.append) is None  # chosen from the Images panel


def test_each_type_declares_its_editor_hints_apart_and_the_engine_never_reads_them():
    """ElementType is the engine's contract; what only the editor needs is its EditorHints,
    read by the faces that show an editor (workbench/editor) and by no stage of the engine."""
    assert all(isinstance(element.editor, EditorHints) for element in ELEMENT_TYPES.values())
    hints = {f.name for f in dataclasses.fields(EditorHints)}
    assert not hints & {f.name for f in dataclasses.fields(ElementType)}
    readers = []
    for folder in ("engine", "api"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == ROOT / "engine" / "elements" / "base.py":
                continue  # where ElementType's editor-facing methods (hit_area, resized…) read its own hints
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Attribute) and node.attr == "editor":
                    readers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert readers == []
