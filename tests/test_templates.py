"""The gallery's templates (workbench.templates): each makes a design through the client that
generates, and the sample logo is added to the library once."""

from __future__ import annotations

import pytest

from api.service import Service, Settings
from workbench.client import LocalClient
from workbench.samples import TEMPLATES
from workbench.templates import LOGO_NAME, create_from_template

from .conftest import pdf_text

WORDS = {
    "certificate": "Certificate of Excellence",
    "invoice": "INVOICE",
    "badge": "DocConf 2026",
    "letter": "Your order",
}


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    service = Service(Settings(data_dir=tmp_path_factory.mktemp("templates")))
    yield service
    service.close()


@pytest.fixture
def client(service):
    workspace, _ = service.accounts.create_workspace("templates", "pro", 20)
    return LocalClient(service, workspace.id)


@pytest.mark.parametrize("key", TEMPLATES)
def test_a_template_makes_a_design_that_generates(client, key):
    design_id = create_from_template(client, key)
    design = client.call("get_design", {"designId": design_id})
    assert design["name"] == TEMPLATES[key].title
    generated = client.call("generate_pdf", {"designId": design_id}, {"data": {}})
    assert WORDS[key] in " ".join(pdf_text(client.fetch(generated["downloadUrl"])))


def test_the_sample_logo_is_added_once(client):
    first = create_from_template(client, "certificate")
    second = create_from_template(client, "letter", name="My letter")
    logos = [a for a in client.call("list_assets", query={"limit": 200})["items"] if a["name"] == LOGO_NAME]
    assert len(logos) == 1
    refs = {
        node["data"]["src"]
        for design_id in (first, second)
        for node in client.call("get_design_tree", {"designId": design_id})["nodes"].values()
        if node["name"] == "logo"
    }
    assert refs == {logos[0]["ref"]}
    assert client.call("get_design", {"designId": second})["name"] == "My letter"
