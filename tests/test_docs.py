"""The manual (docs/, built by `make docs`): it builds without a warning, the README stays a
front page, and the reference pages are the code's own routes, tools and actions."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-4000:]
    return out


def test_the_readme_is_a_front_page_whose_links_resolve():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    assert targets, "the README links into the manual"
    missing = [t for t in targets if "://" not in t and not (ROOT / t).exists()]
    assert missing == []


def test_every_page_in_docs_is_in_the_navigation(site: Path):
    pages = {
        p.relative_to(ROOT / "docs").with_suffix(".html").as_posix()
        for p in (ROOT / "docs").rglob("*.md")
        if "hooks" not in p.parts
    }
    built = {p.relative_to(site).as_posix() for p in site.rglob("*.html")}
    assert pages <= built


def test_the_route_reference_lists_every_operation(site: Path):
    from api.operations import OPERATIONS

    routes = (site / "reference" / "routes.html").read_text()
    for op in OPERATIONS:
        path = op.path
        assert f"{op.method} {path}" in routes, (op.method, path)


def test_the_mcp_reference_lists_every_tool_and_the_action_reference_every_action(site: Path):
    import engine.actions
    from api.mcp.tools import ToolSet

    tools = (site / "reference" / "mcp-tools.html").read_text()
    assert all(tool["name"] in tools for tool in ToolSet().tools)
    actions = (site / "reference" / "actions.html").read_text()
    assert all(action["name"] in actions for action in engine.actions.catalog())
    # a field of a nested model is explained on the page that names the model
    assert "listFormat" in actions
