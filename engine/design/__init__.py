"""The design: what a designer authors and a generation fills.

`tree` is the design tree (pages, nodes, variables, metadata); `diff` the actions that turn
one tree into another (the editor's undo); `variables` checks a generation's values and
applies them; `placeholder_variables` makes each `{field}` of a text a variable;
`conditions` holds the rules of `repeat` and `showIf`; `names`, `paper` and `colors` are
what a name, a paper size and a colour may be.
"""
