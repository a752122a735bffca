"""The canvas's browser code is one ES module per concern (workbench/editor/canvas/), joined
into the one module Panel loads (workbench/editor/esm.py): each file is a real module on its
own, and the joined one declares each name once and exports only `render`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tests.paths import ROOT
from workbench.editor.canvas import Canvas
from workbench.editor.esm import joined_module

MODULES = ROOT / "workbench" / "editor" / "canvas"
CONCERNS = ["boxes", "hits", "snap", "gestures", "live_drag", "keys", "markdown_format", "text_overlay"]
CONCERNS += ["menus", "view", "rulers", "drop"]


def node_path() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.fail("Node is not installed: `make test` installs it (apt-get install nodejs)")
    return path


def exports_of(module: Path) -> list[str]:
    """The names a module exports, as Node links it (its imports resolved as files)."""
    script = f"const m = await import({json.dumps(module.as_uri())}); console.log(JSON.stringify(Object.keys(m)))"
    # Node 20 takes a .js outside a package marked "type": "module" as CommonJS unless told.
    done = subprocess.run(
        [node_path(), "--experimental-default-type=module", "--input-type=module", "-e", script],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_each_concern_is_a_module_of_its_own_and_all_are_in_the_canvas():
    files = {path.stem for path in MODULES.glob("*.js")}
    assert files == {*CONCERNS, "render"}  # a file missing here, or one the test does not know
    joined = Canvas._esm
    parts = re.findall(r"^// ---- canvas/(\w+)\.js ----$", joined, re.M)
    assert sorted(parts) == sorted(files) and parts[-1] == "render"  # none left out, the entry last


def test_the_joined_module_declares_each_top_level_name_once():
    # Top-level declarations are at column 0; anything nested is indented.
    names = re.findall(r"^(?:export )?(?:async )?(?:function\*?|const|let|var|class)\s+([\w$]+)", Canvas._esm, re.M)
    assert len(names) > 50  # the canvas's functions and constants, all of them read
    assert [name for name, count in Counter(names).items() if count > 1] == []


def test_the_joined_module_is_a_module_that_exports_only_render(tmp_path):
    joined = tmp_path / "canvas.mjs"
    joined.write_text(Canvas._esm, encoding="utf-8")
    assert exports_of(joined) == ["render"]
    assert not re.search(r"^\s*import\b", Canvas._esm, re.M)  # nothing for a blob: URL to resolve


def test_each_file_is_a_module_whose_imports_resolve_as_files():
    assert exports_of(MODULES / "render.js") == ["render"]
    for concern in CONCERNS:
        assert exports_of(MODULES / f"{concern}.js"), concern  # each gives the others something


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, source in files.items():
        (folder / name).write_text(source, encoding="utf-8")
    return folder / "main.js"


def test_joining_puts_each_file_after_those_it_imports_and_keeps_only_the_entrys_exports(tmp_path):
    entry = write(tmp_path, {
        "main.js": 'import { b } from "./b.js";\nimport { a } from "./a.js";\n'
        'export function render() {\n  return a() + b();\n}\n',
        "a.js": "export function a() {\n  return 1;\n}\n",
        "b.js": 'import { a } from "./a.js";\nexport const b = () => a();\n',
    })
    joined = joined_module(entry)
    assert re.findall(r"^// ---- \w+/(\w+)\.js ----$", joined, re.M) == ["a", "b", "main"]
    assert "function a()" in joined and "const b = " in joined and "export function render()" in joined
    assert not re.search(r"^(import|export (?!function render))", joined, re.M)


@pytest.mark.parametrize(
    ("files", "refusal"),
    [
        ({"main.js": 'import { a } from "./a.js";\nexport function render() {}\nfunction a() {}\n',
          "a.js": "export function a() {}\n"}, "both declare 'a'"),
        ({"main.js": 'import { b } from "./a.js";\nexport function render() {}\n',
          "a.js": "export function a() {}\n"}, "imports b from a.js, which does not export it"),
        ({"main.js": 'import { a } from "./a.js";\nexport function render() {}\n',
          "a.js": 'import { render } from "./main.js";\nexport function a() {}\n'},
         "cycle: main.js -> a.js -> main.js"),
        ({"main.js": 'import * as a from "./a.js";\nexport function render() {}\n',
          "a.js": "export function a() {}\n"}, "is not of the form"),
        ({"main.js": 'import { a } from "./a.js";\nexport function render() {}\n',
          "a.js": "function a() {}\nexport { a };\n"}, "does not export it"),
    ],
    ids=["a name declared twice", "a name not exported", "a cycle", "a namespace import", "an export list"],
)
def test_joining_refuses_what_it_cannot_join_as_text(tmp_path, files, refusal):
    with pytest.raises(ValueError, match=re.escape(refusal)):
        joined_module(write(tmp_path, files))
