"""The History tab without a browser (extensions.md 16): a long history lists a page of
revisions and draws only their thumbnails; "Show older" lists more."""

from __future__ import annotations

import pytest

from api.service import Service, Settings
from workbench.client.api import LocalClient
from workbench.editor.history import HISTORY_PAGE, history_panel
from workbench.editor.panel_context import PanelContext
from workbench.editor.session import DesignSession

from ...conftest import add


@pytest.fixture
def session(tmp_path):
    service = Service(Settings(data_dir=tmp_path))
    workspace, _ = service.accounts.create_workspace("editor", "pro", 3)
    client = LocalClient(service, workspace.id)
    design = client.call("create_design", body={"name": "History", "size": "A4"})
    yield DesignSession(client, design["designId"])
    service.close()


def revisions_shown(panel) -> list[int]:
    return [
        int(css.rsplit("-", 1)[1])
        for row in panel.objects
        for css in getattr(row, "css_classes", [])
        if css.startswith("dbk-revision-")
    ]


def test_a_long_history_lists_a_page_and_draws_only_its_thumbnails(session):
    session.apply([add("text", "T", {"x": 10, "y": 10}, {"content": "0"})])
    for step in range(1, 12):
        session.apply([{"type": "update_element", "args": {"name": "T", "data": {"content": str(step)}}}])
    drawn: list[int] = []
    kept: dict = {}

    def thumbnail(revision: int) -> bytes:
        drawn.append(revision)
        return session.revision_preview(revision)

    rebuilt = []
    ctx = PanelContext(
        tree=session.tree,
        page=0,
        selection=(),
        client=session.client,
        apply=session.apply,
        run=lambda action: (action(), rebuilt.append(history_panel(ctx))),
        add=lambda *a, **k: None,
        show_page=lambda index: None,
        thumbnail=lambda index: b"",
        kept=kept,
        revisions=session.revisions,
        revision_thumbnail=thumbnail,
    )
    panel = history_panel(ctx)
    assert revisions_shown(panel) == list(range(13, 13 - HISTORY_PAGE, -1))  # 13 revisions: the newest 8
    assert drawn == revisions_shown(panel)
    older = next(o for o in panel.objects if "dbk-history-older" in getattr(o, "css_classes", []))
    older.clicks += 1
    assert revisions_shown(rebuilt[-1]) == list(range(13, 0, -1))
    assert not any("dbk-history-older" in getattr(o, "css_classes", []) for o in rebuilt[-1].objects)
