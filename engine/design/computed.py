"""Computed values of a design (extensions.md 11): every expression checked against the
design when it is set, and resolved for each generation.

Expressions (engine.design.expressions) appear in typed tables (computed columns, group
rows, footers), in a text's `data.expression`, in `{= expression}` placeholders and in
`showIf: {expression}`. Element types declare theirs (ElementType.computing); this module
knows the design: what each name is, its type and its value.

- `check(tree)` runs after every action: an expression naming what the design does not have,
  or of a type that cannot hold, is refused naming the element, the key, the position and
  the fix; so is one that fails on the design's own samples. A text computed by an expression
  shows its result on the samples in its stored `content` (and `{= …}` results are kept among
  its `samples`), so the design measures as it previews.
- `resolve(tree, today)` is the filled tree of a generation with every result in place:
  tables' rows computed, texts' contents, and each `showIf: {expression}` decided (an element
  whose expression is false is left out as a hidden one is). A value that makes an expression
  fail is an error naming the variable, the row and the column.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ..elements import ELEMENT_TYPES
from ..elements.base import ExpressionUse
from ..errors import EngineError, ValueBindingError
from . import expressions
from .conditions import variable_value
from .tree import DesignTree

SHOW_IF = "showIf.expression"


@dataclass(frozen=True)
class Scope:
    """What a node's expressions read: the design's names with their types, and their values."""

    names: expressions.Names
    env: expressions.Env

    def evaluate(self, text: str) -> Any:
        return expressions.check(text, self.names).evaluate(self.env)


def _uses(node: Any) -> list[ExpressionUse]:
    computing = ELEMENT_TYPES[node.type].computing
    found = list(computing.uses(node)) if computing is not None else []
    if node.showIf is not None and node.showIf.expression is not None:
        found.append(ExpressionUse(SHOW_IF, node.showIf.expression, boolean=True))
    return found


def computes(tree: DesignTree) -> bool:
    """The design has an expression somewhere (a design without one takes no extra work)."""
    return any(_uses(node) for node in tree.nodes.values())


def _value_type(node: Any) -> str:
    spec = ELEMENT_TYPES[node.type].variable
    return spec.value_type(node) if spec is not None and spec.value_type is not None else "text"


def names(tree: DesignTree) -> expressions.Names:
    """Every variable an expression may read, with its type: a typed table's as its columns."""
    variables: dict[str, str] = {}
    tables: dict[str, dict[str, str]] = {}
    for name, variable in tree.variables.items():
        if variable.nodeId is None:
            variables[name] = "any"  # a placeholder: a string or a number
            continue
        node = tree.nodes[variable.nodeId]
        computing = ELEMENT_TYPES[node.type].computing
        columns = computing.columns(node) if computing is not None else None
        if columns is not None:
            tables[name] = dict(columns)
        else:
            variables[name] = _value_type(node)
    return expressions.Names(variables=variables, tables=tables)


def _variable_values(tree: DesignTree, known: expressions.Names) -> dict[str, Any]:
    values = {}
    for name, kind in known.variables.items():
        value = variable_value(tree, name)
        if isinstance(value, list):
            value = "\n".join(str(item) for item in value)
        try:
            values[name] = expressions.as_input(value, kind, name)
        except expressions.EvaluationError as exc:
            raise ValueBindingError(name, str(exc)) from None
    return values


@dataclass
class Resolutions:
    """Nodes resolved by the earlier checks of one `apply` (engine.actions), reused while the node
    is the same object and what it reads is equal: an action replaces the nodes it changes, so a
    check after it resolves those alone. Without it a batch adding 300 computed texts resolved
    every earlier text again after each action (issue 48: 45,000 resolutions, 42 s on a server)."""

    # Per pass of `resolve` ("tables", then "nodes"): what the pass's expressions read, and each
    # node as it was given -> as it was resolved.
    _reads: dict[str, tuple] = field(default_factory=dict)
    _nodes: dict[str, dict[str, tuple[Any, Any]]] = field(default_factory=dict)

    def pass_reading(self, name: str, reads: tuple) -> dict[str, tuple[Any, Any]]:
        """The pass's remembered nodes, forgotten first if what it reads changed."""
        if self._reads.get(name) != reads:
            self._reads[name] = reads
            self._nodes[name] = {}
        return self._nodes[name]


def _exactly(value: Any) -> Any:
    """Values as they are shown, for `Resolutions` to compare: 1.50 and 1.5 are equal numbers
    but show differently, and so do 1 and true."""
    if isinstance(value, Mapping):
        return tuple((key, _exactly(item)) for key, item in value.items())
    if isinstance(value, list | tuple):
        return tuple(_exactly(item) for item in value)
    return type(value).__name__, str(value)


def _resolved_once(
    remembered: dict[str, tuple[Any, Any]] | None, tree: DesignTree, node: Any, resolve_node: Any, scope: Scope
) -> Any:
    hit = remembered.get(node.id) if remembered is not None else None
    if hit is not None and hit[0] is node:
        return hit[1]
    resolved = _resolved(tree, node, resolve_node, scope)
    if remembered is not None:
        remembered[node.id] = (node, resolved)
    return resolved


def resolve(tree: DesignTree, today: dt.date | None = None, memo: Resolutions | None = None) -> DesignTree:
    """The tree with every computed value in place (see the module's docstring). `memo`: the
    resolutions of earlier calls to reuse (`check`'s, within one apply)."""
    if not computes(tree):
        return tree
    known = names(tree)
    variables = _variable_values(tree, known)
    scope = Scope(known, expressions.Env(variables=variables, today=today))
    remembered = memo.pass_reading("tables", (known, _exactly(variables), today)) if memo is not None else None
    nodes = dict(tree.nodes)
    tables: dict[str, Any] = {}
    # Tables first: texts and conditions elsewhere read their columns (items.amount).
    for name, variable in tree.variables.items():
        node = nodes.get(variable.nodeId or "")
        computing = ELEMENT_TYPES[node.type].computing if node is not None else None
        if computing is not None and computing.column_values is not None and name in known.tables:
            nodes[node.id] = _resolved_once(remembered, tree, nodes[node.id], computing.resolve, scope)
            tables[name] = computing.column_values(nodes[node.id])
    scope = Scope(known, dataclasses.replace(scope.env, tables=tables))
    # The tables' columns come from their resolved nodes: the same nodes, the same columns.
    table_nodes = tuple(nodes[tree.variables[name].nodeId] for name in tables)
    reads = (known, _exactly(variables), table_nodes, today)
    remembered = memo.pass_reading("nodes", reads) if memo is not None else None
    for node_id, node in tree.nodes.items():
        computing = ELEMENT_TYPES[node.type].computing
        if computing is not None and nodes[node_id] is node and computing.uses(node):
            nodes[node_id] = _resolved_once(remembered, tree, node, computing.resolve, scope)
        condition = node.showIf
        if condition is not None and condition.expression is not None:
            shown = _evaluated(tree, node, SHOW_IF, condition.expression, scope)
            nodes[node_id] = nodes[node_id].model_copy(
                update={"showIf": None, "isHidden": node.isHidden or shown is not True}
            )
    return tree.model_copy(update={"nodes": nodes})


def _resolved(tree: DesignTree, node: Any, resolve_node: Any, scope: Scope) -> Any:
    """The node resolved; a failure names the variable it is bound to (a table's rows: "row 3,
    column 'price': …"), else the variable whose value made it fail, else the element."""
    try:
        return resolve_node(node, scope)
    except ValueError as exc:  # EvaluationError, a table's RowError, a result its type cannot show
        if tree.variable_of(node) is not None:  # its variable has the element's name
            raise ValueBindingError(node.name, str(exc)) from None
        failing = getattr(exc, "name", None)
        if failing in tree.variables:
            raise ValueBindingError(failing, f"'{node.name}' cannot be computed from it: {exc}") from None
        raise EngineError(f"element '{node.name}': {exc}") from None


def _evaluated(tree: DesignTree, node: Any, where: str, text: str, scope: Scope) -> Any:
    try:
        return scope.evaluate(text)
    except (expressions.EvaluationError, expressions.ExpressionError) as exc:
        raise EngineError(f"element '{node.name}', {where}: {exc}") from None


def _checked_uses(
    tree: DesignTree, known: expressions.Names
) -> Iterator[tuple[Any, ExpressionUse, expressions.Checked]]:
    """Every expression of the design checked against its names; ValueError naming the element,
    the key, the position and the fix for one that cannot be."""
    for node in tree.nodes.values():
        for use in _uses(node):
            scope = known  # a text's or a condition's: the design's names
            if use.row is not None:  # a table's expressions read its own columns
                scope = dataclasses.replace(known, row=use.row, aggregates_only=use.aggregates_only, tables={})
            elif use.aggregates_only:
                scope = dataclasses.replace(known, aggregates_only=True)
            try:
                checked = expressions.check(use.text, scope)
            except expressions.ExpressionError as exc:
                raise ValueError(f"'{node.name}' {use.where}: {exc}") from None
            if use.boolean and checked.type not in ("boolean", "any"):
                raise ValueError(
                    f"'{node.name}' {use.where}: '{use.text}' gives a {checked.type}, not true or false: "
                    f"compare it, e.g. {use.text} > 0"
                )
            yield node, use, checked


def check(tree: DesignTree, memo: Resolutions | None = None) -> list[str]:
    """Refuse a design whose expressions cannot be computed (after every action), and show
    computed texts' results on the design's samples (see the module's docstring). In place;
    the ids of the nodes whose shown results changed. `memo`: the earlier checks' resolutions,
    kept by the caller across the actions of one batch."""
    if not computes(tree):
        return []
    known = names(tree)
    for node, _, _ in _checked_uses(tree, known):
        if getattr(node.data, "expression", None) is not None and tree.variable_of(node) is not None:
            raise ValueError(
                f"'{node.name}' is bound to a variable and has data.expression: a computed text takes no "
                "value; unbind it, or remove data.expression"
            )
    try:
        resolved = resolve(tree, memo=memo)
    except EngineError as exc:
        raise ValueError(f"{exc.message} (on the design's samples: fix the sample, or the expression)") from None
    changed = []
    for node_id, node in tree.nodes.items():
        computing = ELEMENT_TYPES[node.type].computing
        if computing is None or computing.column_values is not None or not computing.uses(node):
            continue
        shown = resolved.nodes[node_id]
        if shown.data != node.data:
            tree.nodes[node_id] = node.model_copy(update={"data": shown.data})
            changed.append(node_id)
    return changed


def read_by(tree: DesignTree) -> dict[str, list[str]]:
    """Each variable -> the names of the elements whose expressions read it."""
    if not computes(tree):
        return {}
    readers: dict[str, list[str]] = {}
    for node, _, checked in _checked_uses(tree, names(tree)):
        for name in sorted(checked.variables):
            if node.name not in readers.setdefault(name, []):
                readers[name].append(node.name)
    return readers


_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _set_path(target: Any, where: str, value: Any) -> None:
    """Set `value` at `where` ("data.columnDefs[2].value", "data.footer[0].amount") of a node's
    JSON dump; a missing key on the way is made (a footer row not yet stored)."""
    steps: list[str | int] = [int(index) if index else key for key, index in _STEP.findall(where)]
    for step, after in zip(steps, steps[1:], strict=False):
        if isinstance(step, int):
            while len(target) <= step:
                target.append({})
            target = target[step]
        else:
            if target.get(step) is None:
                target[step] = [] if isinstance(after, int) else {}
            target = target[step]
    last = steps[-1]
    if isinstance(last, int):
        while len(target) <= last:
            target.append({})
    target[last] = value


def preview(tree: DesignTree, node_id: str, where: str, text: str) -> str:
    """What the expression `text`, set at `where` of the node, shows on the design's samples
    (for an editor's live check; nothing is saved): a text's content, "true"/"false" for
    `showIf.expression`, a computed column's cell in the first body row, the first group row,
    a footer cell (the first group's for a group footer), each formatted as drawn. Raises
    ValueError with the message an update_element setting it would be refused with (the
    element, the key, the position and the fix)."""
    node = tree.nodes[node_id]
    element = ELEMENT_TYPES[node.type]
    candidate = node.model_dump()
    if where == SHOW_IF:
        candidate["showIf"] = {"expression": text}
        candidate["isHidden"] = False  # the expression decides alone here
    else:
        _set_path(candidate, where, text)
    try:
        changed = element.Node.model_validate(candidate, context={"element": node.name})
    except ValidationError as exc:
        first = exc.errors()[0]
        message = str(first.get("ctx", {}).get("error") or first["msg"])
        raise ValueError(f"'{node.name}' {where}: {message}") from None
    trial = tree.model_copy(update={"nodes": {**tree.nodes, node_id: changed}})
    check(trial)  # ValueError naming the element, the key, the position and the fix
    shown_node = resolve(trial).nodes[node_id]
    if where == SHOW_IF:
        return "true" if not shown_node.isHidden else "false"
    if where == "data.expression":
        return str(shown_node.data.content)
    # A table's rows as resolved (engine.elements.table: TableData keeps them for drawing).
    rows = getattr(shown_node.data, "_shown", None)
    if rows is None:
        # Nothing of the element computes (a footer cell of literal text): shown as it is.
        if _uses(changed):
            raise ValueError(f"'{node.name}' {where}: not a computed key of this element")
        return text
    return _table_cell(changed.data, rows.rows, where)


def _table_cell(data: Any, rows: Any, where: str) -> str:
    keys = [column.key for column in data.columnDefs or []]
    steps = [int(index) if index else key for key, index in _STEP.findall(where)]
    if steps[:2] == ["data", "columnDefs"]:
        body = [row for row in rows if row.kind == "body"]
        return body[0].texts[int(steps[2])] if body else ""
    if steps[1] == "groupHeader":
        group = next((row for row in rows if row.kind == "group"), None)
        return group.texts[0] if group is not None else ""
    kind, number, key = steps[1], int(steps[2]), str(steps[3])
    found = [row for row in rows if row.kind == kind]
    return found[number].texts[keys.index(key)] if number < len(found) and key in keys else ""
