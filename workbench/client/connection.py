"""Reaching a workspace from Python: a running server over REST, or the service embedded here.

Shared by the notebook API (`workbench.connect`) and the CLI (`docbench generate`), which are
faces and so may not import each other. Both transports are a `workbench.client.api.Client`, so
what follows (finding a design, generating) behaves alike and raises the same `ApiError`s.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotated_types import Le

from api import models as m
from api.errors import ApiError
from api.service import Service, Settings, Workspace
from api.store import DatabaseLocked

from .api import Client, LocalClient, RestClient

DEFAULT_URL = "http://127.0.0.1:5006"  # where `docbench serve` listens unless told otherwise
PAGE_SIZE = next(c.le for c in m.ListQuery.model_fields["limit"].metadata if isinstance(c, Le))  # largest page


@dataclass
class Connection:
    """A client, and the embedded service behind it when there is one (`close()` stops it)."""

    client: Client
    service: Service | None = None

    def close(self) -> None:
        """Stop the embedded service's batch workers and release its data dir."""
        if self.service is not None:
            self.service.close()
            self.service = None

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_connection(
    url: str | None = None,
    api_key: str | None = None,
    *,
    data_dir: str | Path | None = None,
    workspace: str | None = None,
) -> Connection:
    """A running server's API (`url`, `api_key`), or the embedded service on a data dir.

    `url` and `api_key` default to `DOCBENCH_URL` and `DOCBENCH_API_KEY`. Without a URL the
    service runs in this process on `data_dir` (`DOCBENCH_DATA_DIR`, else `./data`), as the
    workspace with the name or id `workspace` (by default the `default` one, created when the
    data dir has none).
    """
    if url is None and data_dir is None:
        url = os.environ.get("DOCBENCH_URL") or None
    if url is not None:
        if data_dir is not None or workspace is not None:
            raise ValueError("with a server URL the API key picks the workspace: leave out data_dir and workspace")
        key = api_key or os.environ.get("DOCBENCH_API_KEY")
        if not key:
            raise ValueError(f"connecting to {url} needs an API key: pass api_key=… or set DOCBENCH_API_KEY")
        return Connection(RestClient(url, key))
    if api_key is not None:
        raise ValueError("an API key goes with a server URL: pass the URL too, or leave the key out")
    return embedded(Settings() if data_dir is None else Settings(data_dir=Path(data_dir)), workspace)


def embedded(settings: Settings, workspace: str | None) -> Connection:
    """The service on `settings.data_dir`, in this process, as one of its workspaces."""
    try:
        service = Service(settings)
    except DatabaseLocked:
        raise DatabaseLocked(
            f"The data dir {settings.data_dir} is in use by a running docbench server, so connect to that server "
            f'instead with its URL and API key: workbench.connect("{DEFAULT_URL}", api_key="dbk_live_…").'
        ) from None
    try:
        chosen = choose_workspace(service, workspace)
        service.start_jobs()  # batches run in a process pool of this process, as under `docbench serve`
        return Connection(LocalClient(service, chosen.id), service)
    except BaseException:
        service.close()
        raise


def choose_workspace(service: Service, wanted: str | None) -> Workspace:
    """The workspace named or with the id `wanted`; without one, `default` (created if none exists)."""
    workspaces = service.accounts.list_workspaces()
    if wanted is None:
        if not workspaces:
            service.ensure_default_workspace()
            workspaces = service.accounts.list_workspaces()
        matches = [w for w in workspaces if w.name == "default"] or (workspaces if len(workspaces) == 1 else [])
        if not matches:
            names = ", ".join(w.name for w in workspaces)
            raise ValueError(f"this data dir has several workspaces and none is 'default': pass workspace= ({names})")
        return matches[0]
    matches = [w for w in workspaces if wanted in (w.id, w.name)]
    if len(matches) != 1:
        names = ", ".join(f"{w.name} ({w.id})" for w in workspaces) or "none"
        problem = "several workspaces are named" if matches else "no workspace has the name or id"
        raise ValueError(f"{problem} {wanted!r} in {service.settings.data_dir}; its workspaces: {names}")
    return matches[0]


def list_designs(client: Client, page_size: int = PAGE_SIZE) -> list[m.DesignInfo]:
    """Every design of the workspace, newest first (all pages)."""
    items: list[m.DesignInfo] = []
    query: dict[str, Any] = {"limit": page_size}
    while True:
        page = m.DesignList.model_validate(client.call("list_designs", query=query))
        items += page.items
        if not page.nextCursor:
            return items
        query["cursor"] = page.nextCursor


def find_design(client: Client, id_or_name: str, page_size: int = PAGE_SIZE) -> m.DesignInfo:
    """A design by id (`dsg_…`), or by its name when exactly one design has it."""
    if id_or_name.startswith("dsg_"):
        try:
            return m.DesignInfo.model_validate(client.call("get_design", {"designId": id_or_name}))
        except ApiError as exc:
            if exc.code != "DESIGN_NOT_FOUND":
                raise
    matches = [d for d in list_designs(client, page_size) if d.name == id_or_name]
    if not matches:
        raise ApiError("DESIGN_NOT_FOUND", f"no design has the name or id {id_or_name!r} in this workspace")
    if len(matches) > 1:
        ids = ", ".join(d.designId for d in matches)
        raise ValueError(f"{len(matches)} designs are named {id_or_name!r} ({ids}): open one by its id")
    return matches[0]
