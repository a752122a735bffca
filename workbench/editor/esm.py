"""One ES module joined from several: a browser component split into a module per concern.

Panel loads a JSComponent's `_esm` from a `blob:` URL, where a relative `import` resolves
to nothing, and the workbench fetches nothing from elsewhere (it works offline, under the
page's CSP). So a component kept as several files (`workbench/editor/canvas/`) is served as
one module: each file's imports of its siblings are dropped and its `export` keywords
stripped, the files following their imports (a file after those it imports), the entry
last, keeping its exports. Each file stays a valid ES module on its own, which
`scripts/check_js.sh` checks, as Node would run them.

The files keep to a small form, so that joining is a text operation and never a guess:
imports only of siblings, as `import { a, b } from "./file.js";` at the start of a line, and
exports only as `export function|const|let|class name` at the start of a line. Anything else,
a name imported that its file does not export, two files declaring one top-level name, or
files importing each other round a cycle, is refused with a ValueError at import time.
"""

from __future__ import annotations

import re
from pathlib import Path

SIBLING_IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"\./([\w-]+\.js)";[ \t]*\n', re.M)
EXPORT = re.compile(r"^export (?=(?:async )?function\b|const\b|let\b|class\b)", re.M)
EXPORTED = re.compile(r"^export (?:async )?(?:function\*?|const|let|class)\s+([\w$]+)", re.M)
# A declaration at the module's top level: the form is one per line, at column 0.
TOP_LEVEL = re.compile(r"^(?:export )?(?:async )?(?:function\*?|const|let|var|class)\s+([\w$]+)", re.M)
OTHER_MODULE_SYNTAX = re.compile(r"^[ \t]*(?:import|export)\b.*$", re.M)


def joined_module(entry: Path) -> str:
    """The module made of `entry` and the sibling files it imports, directly or not."""
    order = _import_order(entry)
    parts: list[str] = []
    declared: dict[str, str] = {}
    for path in order:
        source = path.read_text(encoding="utf-8")
        for name in TOP_LEVEL.findall(source):
            if name in declared:
                raise ValueError(f"{path.name} and {declared[name]} both declare {name!r}: rename one")
            declared[name] = path.name
        body = SIBLING_IMPORT.sub("", source)
        if path != entry:
            body = EXPORT.sub("", body)
        for line in OTHER_MODULE_SYNTAX.findall(body):
            if path != entry or not EXPORT.match(line):
                raise ValueError(f"{path.name}: {line.strip()!r} is not of the form joined_module joins")
        parts.append(f"// ---- {path.parent.name}/{path.name} ----\n{body}")
    return "\n".join(parts)


def _import_order(entry: Path) -> list[Path]:
    """The files `entry` imports, each after those it imports, and `entry` last."""
    order: list[Path] = []
    visiting: list[Path] = []

    def visit(path: Path) -> None:
        if path in order:
            return
        if path in visiting:
            cycle = " -> ".join(p.name for p in [*visiting[visiting.index(path) :], path])
            raise ValueError(f"the modules import each other round a cycle: {cycle}")
        visiting.append(path)
        source = path.read_text(encoding="utf-8")
        for names, file in SIBLING_IMPORT.findall(source):
            imported = path.with_name(file)
            exported = set(EXPORTED.findall(imported.read_text(encoding="utf-8")))
            missing = [n.strip() for n in names.split(",") if n.strip() and n.strip() not in exported]
            if missing:
                raise ValueError(f"{path.name} imports {', '.join(missing)} from {file}, which does not export it")
            visit(imported)
        visiting.pop()
        order.append(path)

    visit(entry)
    return order
