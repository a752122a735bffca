"""New designs from the bundled templates (workbench.samples.TEMPLATES), made through a
`Client` with the same operations an API client would send: create the design with the
template's paper, then author it in one action batch.

The templates draw the sample logo: it is added to the workspace's asset library once (as
"Sample logo") and reused, so each new design does not add another copy.
"""

from __future__ import annotations

from api.operations import UploadedFile

from .client.api import Client
from .samples import TEMPLATES, logo_png

LOGO_NAME = "Sample logo"


def template_choices() -> dict[str, str]:
    """Each template's title -> its key, in the gallery's order."""
    return {template.title: key for key, template in TEMPLATES.items()}


def sample_logo_ref(client: Client) -> str:
    """The workspace's copy of the sample logo, added to its library the first time."""
    for asset in client.call("list_assets", query={"limit": 200})["items"]:
        if asset["name"] == LOGO_NAME and not asset["isPlaceholder"]:
            return asset["ref"]
    created = client.call("create_asset", file=UploadedFile(logo_png(), "sample-logo.png"), form={"name": LOGO_NAME})
    return created["ref"]


def create_from_template(client: Client, key: str, name: str | None = None) -> str:
    """A new design authored as the template `key`; its designId. If authoring is refused, the
    half-made design is deleted again, so a failure leaves nothing behind."""
    template = TEMPLATES[key]
    created = client.call("create_design", body={"name": name or template.title, **template.paper})
    design_id = created["designId"]
    try:
        actions = template.actions(sample_logo_ref(client))
        client.call("patch_design_tree", {"designId": design_id}, {"actions": actions})
    except Exception:
        client.call("delete_design", {"designId": design_id})
        raise
    return design_id


__all__ = ["create_from_template", "sample_logo_ref", "template_choices"]
