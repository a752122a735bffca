"""Issue 39 in the editor: a chart's panel (extensions.md 15). Its sample rows are a grid whose
first line holds the keys, x is chosen from the columns, each series has its key, label,
colour and format, and the axis and palette are edited by their types. Each edit is one
update_element action applied as the editor applies it."""

from __future__ import annotations

from engine import apply, new_design
from engine.elements import ELEMENT_TYPES
from engine.errors import ActionError
from tests.panel_widgets import by_label, widgets_of
from workbench.editor.properties import element_form

from ...conftest import add

ROWS = [{"month": "Jan", "revenue": 12}, {"month": "Feb", "revenue": 15}, {"month": "Mar", "revenue": 11}]


def designed(**data):
    chart = {"kind": "bar", "x": "month", "series": [{"key": "revenue", "label": "Revenue"}], "rows": ROWS, **data}
    tree, _ = apply(new_design(), [add("chart", "sales", {"x": 20, "y": 20, "w": 300, "h": 200}, chart)])
    return tree


def parts_of(panel):
    """Every layout and widget inside a Panel layout, depth first."""
    found = []
    for child in getattr(panel, "objects", None) or []:
        found += [child, *parts_of(child)]
    return found


class Form:
    """A node's properties form wired as the editor wires it: edits are applied to the tree, and
    the form then shows the saved node in place (as Editor.refresh does)."""

    def __init__(self, tree, name):
        self.tree, self.name, self.sent, self.refusals = tree, name, [], []
        self.form = element_form(self.node, self.send, variables=list(tree.variables))

    @property
    def node(self):
        return self.tree.node_by_name(self.name)

    @property
    def data(self):
        return self.node.data.model_dump(mode="json", exclude_none=True)

    def send(self, actions):
        self.sent.append(actions)
        try:
            self.tree, _ = apply(self.tree, actions)
        except ActionError as error:  # the editor shows a refusal as a message; nothing is saved
            self.refusals.append(str(error))
            return
        self.form.show_node(self.node, (), list(self.tree.variables))

    def by_class(self, css):
        return [w for w in parts_of(self.form) if css in (getattr(w, "css_classes", None) or [])]

    def grid(self):
        return self.by_class("dbk-rows-grid")[0]

    def edit_cell(self, row, column, text):
        self.grid()._handle_msg({"row": row, "col": column, "text": text})  # as the browser sends one cell


def test_a_chart_shows_its_rows_as_a_grid_headed_by_its_keys():
    form = Form(designed(), "sales")
    assert form.grid().cells == [["month", "revenue"], ["Jan", "12"], ["Feb", "15"], ["Mar", "11"]]
    assert form.by_class("dbk-rows-label")[0].options == ["month", "revenue"]
    assert form.by_class("dbk-series-key")[0].value == "revenue"
    assert by_label(form.by_class("dbk-series-0")[0])["Label"].value == "Revenue"


def test_an_edited_cell_of_a_series_is_saved_as_a_number():
    form = Form(designed(), "sales")
    form.edit_cell(2, 1, "30.5")
    assert form.data["rows"][1] == {"month": "Feb", "revenue": 30.5}
    assert len(form.sent) == 1
    form.edit_cell(3, 1, "")
    assert form.data["rows"][2] == {"month": "Mar", "revenue": None}
    assert form.grid().cells[3] == ["Mar", ""]


def test_a_refused_cell_is_shown_again_as_saved():
    form = Form(designed(), "sales")
    pushed = []
    form.grid().param.watch(lambda e: pushed.append(e.new), "cells")
    form.edit_cell(2, 1, "lots")
    assert "row 2, 'revenue' must be a number" in form.refusals[0]
    assert form.data["rows"][1]["revenue"] == 15
    assert pushed and pushed[-1][2] == ["Feb", "15"]  # the browser's grid is sent the saved rows again


def test_a_category_typed_as_a_number_keeps_its_type():
    form = Form(designed(kind="scatter", rows=[{"month": 1, "revenue": 2}, {"month": 2, "revenue": 3}]), "sales")
    form.edit_cell(2, 0, "2.5")
    assert form.data["rows"][1]["month"] == 2.5
    form = Form(designed(), "sales")
    form.edit_cell(1, 0, "2024")
    assert form.data["rows"][0]["month"] == "2024"


def test_a_key_typed_over_in_the_first_line_is_renamed_everywhere():
    form = Form(designed(), "sales")
    form.edit_cell(0, 1, "sales")
    data = form.data
    assert data["series"][0]["key"] == "sales" and data["series"][0]["label"] == "Revenue"
    assert [row["sales"] for row in data["rows"]] == [12, 15, 11]
    form.edit_cell(0, 0, "quarter")
    assert form.data["x"] == "quarter" and form.data["rows"][0] == {"quarter": "Jan", "sales": 12}
    assert form.by_class("dbk-rows-label")[0].options == ["quarter", "sales"]
    before = len(form.sent)
    form.edit_cell(0, 0, "sales")  # another column's key: not a rename
    assert len(form.sent) == before and form.grid().cells[0] == ["quarter", "sales"]


def test_a_series_is_added_coloured_and_removed_with_its_column():
    form = Form(designed(), "sales")
    form.by_class("dbk-add-series")[0].clicks += 1
    assert [s["key"] for s in form.data["series"]] == ["revenue", "series2"]
    assert form.grid().cells[0] == ["month", "revenue", "series2"]
    form.edit_cell(1, 2, "7")
    assert form.data["rows"][0] == {"month": "Jan", "revenue": 12, "series2": 7}
    picker = next(w for w in widgets_of(form.by_class("dbk-series-1")[0]) if getattr(w, "caption", "") == "Color")
    picker.value = "#d62728"
    assert form.data["series"][1]["color"] == "#d62728"
    form.by_class("dbk-remove-series")[0].clicks += 1
    assert [s["key"] for s in form.data["series"]] == ["series2"]
    assert form.data["rows"][0] == {"month": "Jan", "series2": 7}
    assert form.by_class("dbk-remove-series")[0].disabled  # a chart plots one series at least


def test_choosing_x_among_the_columns_swaps_it_with_that_series():
    rows = [{"t": 1, "a": 2}, {"t": 2, "a": 5}]
    form = Form(designed(kind="scatter", x="t", series=[{"key": "a"}], rows=rows), "sales")
    form.by_class("dbk-rows-label")[0].value = "a"
    assert form.data["x"] == "a" and form.data["series"][0]["key"] == "t"
    assert form.data["rows"] == rows


def test_rows_are_added_and_removed_at_the_end():
    form = Form(designed(), "sales")
    form.by_class("dbk-add-row")[0].clicks += 1
    assert form.data["rows"][-1] == {"month": "Item 4"}
    form.by_class("dbk-remove-row")[0].clicks += 1
    form.by_class("dbk-remove-row")[0].clicks += 1
    assert [row["month"] for row in form.data["rows"]] == ["Jan", "Feb"]


def test_the_axis_and_the_palette_are_edited_by_their_types():
    form = Form(designed(axis={"x": {"title": "Month"}}), "sales")
    y = by_label(form.by_class("dbk-model-y")[0])
    y["Max"].value = 40.0
    assert form.data["axis"] == {"x": {"title": "Month"}, "y": {"max": 40.0}}
    by_label(form.by_class("dbk-model-y")[0])["Title"].value = "EUR"
    assert form.data["axis"]["y"] == {"title": "EUR", "max": 40.0}
    palette = by_label(form.form)["Palette (comma-separated)"]
    palette.value = "#111111, #222222"
    assert form.node.styles.palette == ["#111111", "#222222"]


def test_the_chart_type_declares_its_keyed_rows_for_the_editor():
    keyed = ELEMENT_TYPES["chart"].editor.keyed_rows
    assert keyed is not None and (keyed.rows, keyed.label, keyed.series) == ("data.rows", "data.x", "data.series")
