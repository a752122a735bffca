"""The import graph of engine/, api/ and workbench/ keeps the architecture's shape (the manual,
"Project layout"): engine → api → workbench, no cycles, faces independent of each other.

Every import counts, module-level, inside a function (a lazy import is still a dependency)
or under `if TYPE_CHECKING:` (a type-only import is still a dependency of the reader, and a
cycle through one is a type living on the wrong side). `from pkg import name` is an
edge to `pkg.name` when that is a module, else to `pkg`. Importing `a.b.c` also runs `a` and
`a.b`'s `__init__`, but that implicit import is not an edge of the importer: otherwise every
package whose `__init__` re-exports a submodule would be a cycle.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("engine", "api", "workbench")  # each may import only the ones before it

# A face is what a caller reaches: REST, MCP, the web workbench, the notebook API, the CLI.
# Each is a thin layer over shared modules (api.service, api.operations, workbench.client,
# the canvas editor that both the web page and the notebook show, the connection (embedded or
# REST), design lookup, batch runner and progress bar that the notebook and the CLI both use, …)
# and imports no other face.
# `pkg.*` is a package and everything in it; a plain name is that one module.
FACES = {
    "REST": ("api.rest.*",),
    "MCP": ("api.mcp.*",),
    "web workbench": ("workbench.web.*",),
    # `import workbench` is the notebook API (workbench/__init__.py re-exports it).
    "notebook": ("workbench", "workbench.notebook.*"),
    "CLI": ("workbench.cli.*",),
}
# Where the faces are composed into one server: the only module that may import a face
# without being one.
COMPOSITION_ROOTS = {"workbench.server.app"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for layer in LAYERS for path in sorted((ROOT / layer).rglob("*.py"))}


def is_package(name: str) -> bool:
    return modules()[name].name == "__init__.py"


def known(name: str) -> str | None:
    """The module `name` names, or the closest package above it that is ours (`engine.fonts.X`
    names engine.fonts' attribute X); None outside our code."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules():
            return candidate
        parts.pop()
    return None


class Imports(ast.NodeVisitor):
    """Every module of ours that one module imports, with the line of the import."""

    def __init__(self, importer: str):
        self.importer = importer
        self.found: dict[str, int] = {}

    def visit_Import(self, node: ast.Import) -> None:  # noqa: N802
        for alias in node.names:
            self.add(known(alias.name), node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:  # noqa: N802
        base = self.resolve(node.module, node.level)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            self.add(submodule if submodule in modules() else known(base), node.lineno)

    def resolve(self, module: str | None, level: int) -> str:
        if level == 0:
            return module or ""
        package = self.importer if is_package(self.importer) else self.importer.rpartition(".")[0]
        for _ in range(level - 1):
            package = package.rpartition(".")[0]
        return f"{package}.{module}" if module else package

    def add(self, target: str | None, line: int) -> None:
        if target is not None and target != self.importer:
            self.found.setdefault(target, line)


@cache
def graph() -> dict[str, dict[str, int]]:
    """module → {imported module: line of the first such import}."""
    edges = {}
    for name, path in modules().items():
        visitor = Imports(name)
        visitor.visit(ast.parse(path.read_text(), str(path)))
        edges[name] = visitor.found
    return edges


def where(importer: str, imported: str) -> str:
    path = modules()[importer].relative_to(ROOT)
    return f"{path}:{graph()[importer][imported]} imports {imported}"


def strongly_connected() -> list[list[str]]:
    """Tarjan's algorithm: the groups of modules that reach each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph()[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            groups.append(sorted(group))

    for node in sorted(graph()):
        if node not in index:
            visit(node)
    return [group for group in groups if len(group) > 1]


def shortest_cycle_through(start: str, group: set[str]) -> list[str]:
    """The shortest chain start → … → start inside one strongly connected group."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph()[node]):
                if target not in group:
                    continue
                if target == start:
                    chain = [node]
                    while chain[-1] != start:
                        chain.append(previous[chain[-1]])
                    return [start, *reversed(chain[:-1]), start]
                if target not in previous:
                    previous[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"{start} is in a cycle but none was found")


def import_cycles() -> list[str]:
    """Each cycle as a readable chain, one per module of each group (repeats dropped)."""
    chains: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for group in strongly_connected():
        for start in group:
            cycle = shortest_cycle_through(start, set(group))
            turn = min(range(len(cycle) - 1), key=lambda i: cycle[i])
            key = tuple(cycle[turn:-1] + cycle[:turn])
            if key not in seen:
                seen.add(key)
                chains.append(" -> ".join([*key, key[0]]))
    return chains


def in_pattern(name: str, pattern: str) -> bool:
    package = pattern.removesuffix(".*")
    return name == pattern or (pattern.endswith(".*") and (name == package or name.startswith(package + ".")))


def face_of(name: str) -> str | None:
    for face, patterns in FACES.items():
        if any(in_pattern(name, pattern) for pattern in patterns):
            return face
    return None


def test_every_layer_and_face_has_modules():
    """The rules below mean nothing if a name in them no longer matches any module."""
    for pattern in [*(p for patterns in FACES.values() for p in patterns), *COMPOSITION_ROOTS]:
        assert any(in_pattern(name, pattern) for name in modules()), pattern
    assert all(any(name.startswith(layer + ".") for name in modules()) for layer in LAYERS)


def test_the_graph_sees_lazy_and_type_only_imports():
    """The collector itself: a function-level import is an edge, and so is a TYPE_CHECKING one."""
    visitor = Imports("workbench.notebook.workspace")
    visitor.visit(
        ast.parse(
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from api.rest import base\n"
            "def later():\n    from . import inline\n    import engine.fonts\n"
            "from ..editor import Editor\n"
        )
    )
    assert set(visitor.found) == {"api.rest", "workbench.notebook.inline", "engine.fonts", "workbench.editor"}


def test_no_import_cycles():
    cycles = import_cycles()
    assert cycles == [], "import cycles:\n  " + "\n  ".join(cycles)


def test_each_layer_imports_only_the_layers_below_it():
    wrong = []
    for importer, imported in sorted(graph().items()):
        layer = LAYERS.index(importer.split(".")[0])
        wrong += [where(importer, target) for target in imported if LAYERS.index(target.split(".")[0]) > layer]
    assert wrong == [], "imports from a layer above:\n  " + "\n  ".join(wrong)


def test_no_face_imports_another_face():
    wrong = []
    for importer, imported in sorted(graph().items()):
        face = face_of(importer)
        if face is None:
            continue
        wrong += [where(importer, t) for t in imported if face_of(t) not in (None, face)]
    assert wrong == [], "faces importing another face:\n  " + "\n  ".join(wrong)


def test_shared_modules_import_no_face():
    """A shared module (the service, the client, the editor…) that imported a face would let
    one face reach another through it; only the server, which mounts them all, imports faces."""
    wrong = []
    for importer, imported in sorted(graph().items()):
        if face_of(importer) is not None or importer in COMPOSITION_ROOTS:
            continue
        wrong += [where(importer, t) for t in imported if face_of(t) is not None]
    assert wrong == [], "shared modules importing a face:\n  " + "\n  ".join(wrong)


# engine.pdf.reportlab_internals is the one module that reaches into ReportLab (issue 32).
REPORTLAB_SEAM = "engine.pdf.reportlab_internals"
REPORTLAB_INTERNAL_MODULES = ("reportlab.pdfbase.pdfdoc", "reportlab.pdfbase.ttfonts")
# The tables and methods of ReportLab's document and TrueType fonts that the seam reaches
# (no underscore, but no public API either: the user guide never mentions them).
REPORTLAB_TABLES = {
    "idToObject",
    "idToObjectNumberAndVersion",
    "fontMapping",
    "delayedFonts",
    "charToGlyph",
    "glyphToChar",
    "charWidths",
    "splitString",
    "getSubsetInternalName",
    "addObjects",
    "getXObjectName",
    "addForm",
    "Catalog",
    "Pages",
}
# Private-looking names that are other libraries' public API: namedtuple's _replace, lxml's
# element type.
PUBLIC_UNDERSCORE_NAMES = {"_replace", "_Element"}


def _own_attributes(tree: ast.Module) -> set[str]:
    """The attributes a module defines on its own objects: names in its class bodies and
    anything it assigns to an attribute of self or cls."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(statement.name)
                targets = statement.targets if isinstance(statement, ast.Assign) else []
                if isinstance(statement, ast.AnnAssign):
                    targets = [statement.target]
                names.update(target.id for target in targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                names.add(node.attr)
    return names


def reaches_into_reportlab(name: str) -> list[str]:
    """Where an engine module imports ReportLab's internal modules or reads a private
    attribute of an object that is not its own (self, cls, or of a class it defines)."""
    path = modules()[name]
    tree = ast.parse(path.read_text(), str(path))
    own = _own_attributes(tree)
    # Names bound to modules of ours: their private functions are ours too (engine.caches lists them).
    ours = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("engine"))
        for alias in node.names
    }
    found = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
        imported: list[str] = []
        if isinstance(node, ast.Import):
            imported = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        found += [
            f"{path.relative_to(ROOT)}:{node.lineno} imports {m}" for m in imported if m in REPORTLAB_INTERNAL_MODULES
        ]
        if isinstance(node, ast.Attribute) and node.attr in REPORTLAB_TABLES:
            found.append(f"{where} reads {ast.unparse(node)}")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            receiver = node.value
            if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls", *ours):
                continue
            if node.attr not in own and node.attr not in PUBLIC_UNDERSCORE_NAMES:
                found.append(f"{where} reads {ast.unparse(node)}")
    return found


def test_only_the_reportlab_seam_reaches_into_reportlab():
    """ReportLab's internals (private attributes, its document model and TrueType modules) are
    reached through engine.pdf.reportlab_internals only, whose assumptions
    tests/engine/pdf/test_reportlab_contract.py pins."""
    engine = [name for name in modules() if in_pattern(name, "engine.*") and name != REPORTLAB_SEAM]
    assert [line for name in engine for line in reaches_into_reportlab(name)] == []
    assert reaches_into_reportlab(REPORTLAB_SEAM)  # the check sees what the seam does
