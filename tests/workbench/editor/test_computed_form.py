"""Issue 34 in the editor (extensions.md 11): the column editor of a table (typed columns,
computed values with their live check, footer and group rows), a text's expression, showIf
by expression and keepWithNext. Each result shown comes from engine.design.computed.preview."""

from __future__ import annotations

from engine import apply, new_design
from engine.design import computed
from tests.panel_widgets import by_label, widgets_of
from workbench.editor.properties import element_form

from ...conftest import add

CELLS = [["Item", "Qty", "Unit price"], ["Pen", "2", "1.50"], ["Ink", "1", "3"]]


def designed():
    tree, _ = apply(
        new_design(),
        [
            add("table", "items", {"x": 20, "y": 20}, {"cells": CELLS, "columnWidths": [100, 40, 60]}),
            add("text", "note", {"x": 20, "y": 300, "maxWidth": 200}, {"content": "Thanks"}),
        ],
    )
    return tree


class Form:
    """A node's properties form wired as the editor wires it: edits are applied to the tree, and
    the form then shows the saved node in place (as Editor.refresh does)."""

    def __init__(self, tree, name):
        self.tree, self.name, self.sent = tree, name, []
        self.form = element_form(self.node, self.send, variables=list(tree.variables), preview=self.preview)

    @property
    def node(self):
        return self.tree.node_by_name(self.name)

    def preview(self, node_id, where, text):
        return computed.preview(self.tree, node_id, where, text)

    def send(self, actions):
        self.sent.append(actions)
        self.tree, _ = apply(self.tree, actions)
        self.form.show_node(self.node, (), list(self.tree.variables))

    def widgets(self):
        return by_label(self.form)

    def by_class(self, css):
        return [w for w in widgets_of(self.form) if css in (getattr(w, "css_classes", None) or [])]


def typed(form):
    form.by_class("dbk-typed-columns")[0].clicks += 1


def test_typed_columns_are_made_from_the_header_row():
    form = Form(designed(), "items")
    typed(form)
    assert len(form.sent) == 1 and form.sent[0][0]["type"] == "update_element"
    defs = form.node.data.columnDefs
    assert [(c.key, c.header) for c in defs] == [("item", "Item"), ("qty", "Qty"), ("unit_price", "Unit price")]
    # The column editor now shows one block per column.
    assert [w.value for w in form.by_class("dbk-column-key")] == ["item", "qty", "unit_price"]


def test_keys_made_from_headers_are_unique():
    tree, _ = apply(new_design(), [add("table", "t", {"x": 0, "y": 0}, {"cells": [["A b", "a-b", ""], ["", "", ""]]})])
    form = Form(tree, "t")
    typed(form)
    assert [c.key for c in form.node.data.columnDefs] == ["a_b", "a_b_2", "column3"]


def test_a_computed_value_shows_its_sample_result_formatted_by_the_column():
    form = Form(designed(), "items")
    typed(form)
    types = form.by_class("dbk-column-type")
    types[1].value = "number"
    types[2].value = "currency"
    form.by_class("dbk-add-column")[0].clicks += 1
    node = form.node
    assert [c.key for c in node.data.columnDefs] == ["item", "qty", "unit_price", "column4"]
    assert node.data.columns == 4 and [row[3] for row in node.data.model_dump()["cells"]] == ["column4", "", ""]
    assert len(node.data.columnWidths) == 4
    form.by_class("dbk-column-type")[3].value = "currency"
    form.by_class("dbk-column-currency")[3].value = "EUR"
    form.by_class("dbk-column-locale")[3].value = "de"
    value = form.by_class("dbk-column-value")[3]
    result = form.by_class("dbk-column-value-result")[3]
    value.value_input = "qty * unit_price"
    assert result.object.count("3,00\xa0€") == 1 and "dbk-expression-ok" in result.object
    saved = len(form.sent)
    value.value = "qty * unit_price"
    assert len(form.sent) == saved + 1
    assert form.node.data.columnDefs[3].value == "qty * unit_price"


def test_a_refused_value_shows_the_engines_message_and_is_not_sent():
    form = Form(designed(), "items")
    typed(form)
    value = form.by_class("dbk-column-value")[2]
    result = form.by_class("dbk-column-value-result")[2]
    saved = len(form.sent)
    value.value_input = "round(prise, 2)"
    value.value = "round(prise, 2)"
    assert "dbk-expression-error" in result.object
    assert "unknown name &#x27;prise&#x27; at character 6" in result.object and "columnDefs[2].value" in result.object
    assert len(form.sent) == saved  # nothing sent: the design keeps its input column
    assert form.node.data.columnDefs[2].value is None


def test_removing_a_column_removes_its_cells_width_and_footer_cells():
    form = Form(designed(), "items")
    typed(form)
    form.by_class("dbk-column-type")[1].value = "number"
    form.by_class("dbk-add-footer")[0].clicks += 1
    form.by_class("dbk-footer-cell")[0].value = "Total"
    form.by_class("dbk-footer-cell")[1].value = "=sum(qty)"
    assert form.node.data.footer == [{"item": "Total", "qty": "=sum(qty)"}]
    form.by_class("dbk-remove-column")[1].clicks += 1
    data = form.node.data
    assert [c.key for c in data.columnDefs] == ["item", "unit_price"] and data.columns == 2
    assert data.columnWidths == [100, 60] and data.footer == [{"item": "Total"}]
    assert len(form.sent[-1]) == 1  # one update_element: one undo step


def test_a_footer_cell_shows_its_total_on_the_samples():
    form = Form(designed(), "items")
    typed(form)
    form.by_class("dbk-column-type")[1].value = "number"
    form.by_class("dbk-add-footer")[0].clicks += 1
    cell = form.by_class("dbk-footer-cell")[1]
    cell.value_input = "=sum(qty)"
    assert "= 3" in form.by_class("dbk-footer-cell-result")[1].object
    cell.value_input = "=sum(item)"
    assert "dbk-expression-error" in form.by_class("dbk-footer-cell-result")[1].object
    cell.value_input = "Total"  # literal text: no result line
    assert form.by_class("dbk-footer-cell-result")[1].object == ""


def test_renaming_a_key_carries_the_footer_and_grouping_along():
    form = Form(designed(), "items")
    typed(form)
    form.widgets()["Group rows by"].value = "item"
    form.by_class("dbk-add-footer")[0].clicks += 1
    form.by_class("dbk-footer-cell")[0].value = "Total"
    form.by_class("dbk-column-key")[0].value = "product"
    data = form.node.data
    assert [c.key for c in data.columnDefs][0] == "product"
    assert data.groupBy == "product" and data.footer == [{"product": "Total"}]


def test_groups_are_chosen_and_their_rows_show_results():
    form = Form(designed(), "items")
    typed(form)
    form.widgets()["Group rows by"].value = "item"
    assert form.node.data.groupBy == "item"
    header = form.by_class("dbk-group-header")[0]
    header.value_input = "upper(item)"
    assert "= PEN" in form.by_class("dbk-group-header-result")[0].object
    header.value = "upper(item)"
    assert form.node.data.groupHeader == "upper(item)"
    form.by_class("dbk-add-groupFooter")[0].clicks += 1
    cell = form.by_class("dbk-groupFooter-cell")[0]
    cell.value_input = "=count(item)"
    assert "= 1" in form.by_class("dbk-groupFooter-cell-result")[0].object
    cell.value = "=count(item)"
    assert form.node.data.groupFooter == [{"item": "=count(item)"}]
    form.widgets()["Group rows by"].value = "(no groups)"
    data = form.node.data
    assert (data.groupBy, data.groupHeader, data.groupFooter) == (None, None, None)


def test_a_texts_expression_shows_its_result_and_is_saved():
    form = Form(designed(), "note")
    expression = form.by_class("dbk-data-expression")[0]
    result = form.by_class("dbk-data-expression-result")[0]
    expression.value_input = "0.1 + 0.2"
    assert "= 0.3" in result.object
    expression.value_input = "1 +"
    assert "ends too early at character 3" in result.object
    expression.value = "round(10 / 3, 2)"
    assert form.node.data.expression == "round(10 / 3, 2)" and form.node.data.content == "3.33"


def test_show_if_takes_an_expression_with_its_truth_on_the_samples():
    form = Form(designed(), "note")
    choice = form.by_class("dbk-showif-variable")[0]
    assert "(an expression)" in choice.options
    choice.value = "(an expression)"
    expression = form.by_class("dbk-showif-expression")[0]
    result = form.by_class("dbk-showif-expression-result")[0]
    assert not form.sent  # nothing saved until an expression is typed
    expression.value_input = "2 > 1"
    assert "= true" in result.object
    expression.value_input = "len('ab') > 5"
    assert "= false" in result.object
    expression.value = "2 > 1"
    assert form.node.showIf.expression == "2 > 1"
    assert choice.value == "(an expression)"
    choice.value = "(always)"
    assert form.node.showIf is None


def test_keep_with_next_is_a_toggle_of_the_node():
    form = Form(designed(), "note")
    keep = form.by_class("dbk-keep-with-next")[0]
    assert keep.value is False
    keep.value = True
    assert form.node.keepWithNext is True
    assert form.sent[-1] == [{"type": "update_element", "args": {"id": form.node.id, "keepWithNext": True}}]
    keep.value = False
    assert form.node.keepWithNext is False
