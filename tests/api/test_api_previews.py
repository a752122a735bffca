"""Previews are cached per page content: an edit re-renders only the pages it changed
(the editor's page thumbnails and the gallery ask for every page after each edit)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from api.service import Service, Settings
from workbench.client.api import LocalClient

from ..conftest import action, add, store_database_url


@pytest.fixture(scope="module")
def service(tmp_path_factory, request, store):
    database_url = store_database_url(request, store)
    service = Service(Settings(data_dir=tmp_path_factory.mktemp("preview-data"), database_url=database_url))
    yield service
    service.close()


@pytest.fixture
def client(service):
    workspace, _ = service.accounts.create_workspace("previews", "pro", 5)
    return LocalClient(service, workspace.id)


def test_an_edit_re_renders_only_the_pages_it_changed(service, client):
    design_id = client.call("create_design", body={"name": "Two pages"})["designId"]

    def patch(*actions: dict) -> None:
        client.call("patch_design_tree", {"designId": design_id}, {"actions": list(actions)})

    def previews() -> tuple[list[str], int]:
        """Each page's preview file, and how many renders asking for them took."""
        before = service.renderers.tasks["render_png"]
        paths = [
            urlparse(client.call("preview_page", {"designId": design_id}, query={"page": page})["previewUrl"]).path
            for page in (0, 1)
        ]
        return paths, service.renderers.tasks["render_png"] - before

    patch(
        action("add_page"),
        add("text", "Front", {"x": 40, "y": 40}, {"content": "Front page"}, page=0),
        add("text", "Back", {"x": 40, "y": 40}, {"content": "Back page"}, page=1),
    )
    first, rendered = previews()
    assert rendered == 2 and first[0] != first[1]
    assert previews() == (first, 0)  # asked again, nothing changed: both cached

    patch(action("update_element", name="Back", data={"content": "Back page, edited"}))
    second, rendered = previews()
    assert rendered == 1, "an edit on page 2 re-rendered page 1 too"
    assert second[0] == first[0] and second[1] != first[1]

    patch(action("set_metadata", title="Metadata never reaches a page's pixels"))
    assert previews() == (second, 0)

    patch(action("set_page_background", page=0, backgroundColor="#ffeeaa"))
    third, rendered = previews()
    assert rendered == 1 and third[0] != second[0] and third[1] == second[1]

    # The document background shows on every page that does not set its own field.
    patch(action("set_document_background", backgroundColor="#ddeeff"))
    fourth, rendered = previews()
    assert rendered == 2 and fourth[1] != third[1]
