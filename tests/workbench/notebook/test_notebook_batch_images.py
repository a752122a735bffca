"""The notebook API's generate_many over both transports: a row whose image ref is in no
workspace comes back as that row's failure, not as a refused batch (spec 4.13)."""

from __future__ import annotations

import pytest

import workbench
from api.service import Service, Settings
from tests.pdf_probes import pdf_text

MISSING = "assets:ast_nowhere"  # well formed, but in no workspace
PORTRAIT = [
    {"type": "add_element", "args": {"type": "text", "name": "name", "position": {"x": 40, "y": 40}}},
    {
        "type": "add_element",
        "args": {"type": "image", "name": "photo", "position": {"x": 300, "y": 40, "w": 40, "h": 40}},
    },
    *[{"type": "bind_variable", "args": {"name": n}} for n in ("name", "photo")],
]


@pytest.fixture(scope="module", params=["rest", "embedded"])
def wb(request, tmp_path_factory):
    if request.param == "rest":
        server = request.getfixturevalue("api_server")
        with workbench.connect(server.url, api_key=server.workspaces["analyst"][1]) as connected:
            yield connected
        return
    data_dir = tmp_path_factory.mktemp("notebook-missing-images")
    service = Service(Settings(data_dir=data_dir))
    service.accounts.create_workspace("analyst", "pro", 100)
    service.close()
    with workbench.connect(data_dir=data_dir, workspace="analyst") as connected:
        yield connected


def test_generate_many_reports_a_row_with_a_missing_image_as_its_failure(wb):
    design = wb.create_design("Portraits")
    design.apply(PORTRAIT)
    before = wb.credits
    result = design.generate_many(
        [{"name": "Ada"}, {"name": "Grace", "photo": MISSING}, {"name": "Edsger"}], progress=False
    )
    assert (result.total, result.completed) == (3, 2) and sorted(result.pdfs) == [0, 2]
    assert "Edsger" in "\n".join(pdf_text(result.pdfs[2]))
    assert list(result.failures.index) == [1] and list(result.failures["file"]) == ["row-0002.pdf"]
    assert MISSING in result.failures["reason"][1] and "variable 'photo'" in result.failures["reason"][1]
    assert wb.credits == before - 2
