"""What an analyst imports: open designs, build them in code, preview, and make PDFs from data.

    import workbench
    wb = workbench.connect()                                    # embedded, on ./data
    wb = workbench.connect("http://127.0.0.1:5006", api_key=…)  # a running server
    design = wb.design("Certificate")
    design.generate_many(df, columns={"recipient": "name"}, out="certificates/")

Everything goes through a `workbench.client.Client`, so both transports behave alike and
raise `ApiError` with the same codes; the rules (credits, plans, limits, values) are the
service's. Results are the API's own pydantic models (`api.models`).
"""

from __future__ import annotations

import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotated_types import Le

import engine
from api import models as m
from api.errors import ApiError
from api.operations import UploadedFile
from api.service import Service, Settings, Workspace
from api.store import DatabaseLocked

from . import rows
from .authoring import Authoring
from .batches import BatchResult, generate_many
from .client import Client, LocalClient, RestClient

DEFAULT_URL = "http://127.0.0.1:5006"


def connect(
    url: str | None = None,
    api_key: str | None = None,
    *,
    data_dir: str | Path | None = None,
    workspace: str | None = None,
) -> Workbench:
    """A running server's API (`url`, `api_key`), or the embedded service on a data dir.

    `url` and `api_key` default to `DOCBENCH_URL` and `DOCBENCH_API_KEY`. Without a URL the
    service runs in this process on `data_dir` (`DOCBENCH_DATA_DIR`, else `./data`), as the
    workspace with the name or id `workspace` (by default the `default` one, created when the
    data dir has none). Close the workbench (or use `with`) to stop its batch workers.
    """
    if url is None and data_dir is None:
        url = os.environ.get("DOCBENCH_URL") or None
    if url is not None:
        if data_dir is not None or workspace is not None:
            raise ValueError("with a server URL the API key picks the workspace: leave out data_dir and workspace")
        key = api_key or os.environ.get("DOCBENCH_API_KEY")
        if not key:
            raise ValueError(f"connecting to {url} needs an API key: pass api_key=… or set DOCBENCH_API_KEY")
        return Workbench(RestClient(url, key))
    if api_key is not None:
        raise ValueError("an API key goes with a server URL: pass the URL too, or leave the key out")
    return _embedded(Settings() if data_dir is None else Settings(data_dir=Path(data_dir)), workspace)


def _embedded(settings: Settings, workspace: str | None) -> Workbench:
    try:
        service = Service(settings)
    except DatabaseLocked:
        raise DatabaseLocked(
            f"The data dir {settings.data_dir} is in use by a running docbench server, so connect to that server "
            f'instead with its URL and API key: workbench.connect("{DEFAULT_URL}", api_key="dbk_live_…").'
        ) from None
    try:
        chosen = _workspace(service, workspace)
        service.start_jobs()  # batches run in a process pool of this process, as under `docbench serve`
        return Workbench(LocalClient(service, chosen.id), service)
    except BaseException:
        service.close()
        raise


def _workspace(service: Service, wanted: str | None) -> Workspace:
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


def _image_file(image: str | Path | bytes, name: str | None) -> UploadedFile:
    if isinstance(image, bytes):
        return UploadedFile(image, name)
    path = Path(image)
    return UploadedFile(path.read_bytes(), path.name)


class Workbench:
    """One workspace's designs, over REST or in-process; `close()` when done (or `with`)."""

    PAGE_SIZE = next(c.le for c in m.ListQuery.model_fields["limit"].metadata if isinstance(c, Le))  # largest page

    def __init__(self, client: Client, service: Service | None = None):
        self.client = client
        self._service = service
        self.workspace = self.me()  # fails here, not later, on a wrong key or plan

    @property
    def transport(self) -> str:
        return "embedded" if isinstance(self.client, LocalClient) else "rest"

    def me(self) -> m.Me:
        return m.Me.model_validate(self.client.call("me"))

    @property
    def credits(self) -> int:
        return self.me().credits

    def designs(self) -> list[m.DesignInfo]:
        """Every design of the workspace, newest first (all pages)."""
        items: list[m.DesignInfo] = []
        query: dict[str, Any] = {"limit": self.PAGE_SIZE}
        while True:
            page = m.DesignList.model_validate(self.client.call("list_designs", query=query))
            items += page.items
            if not page.nextCursor:
                return items
            query["cursor"] = page.nextCursor

    def design(self, id_or_name: str) -> Design:
        """A design by id (`dsg_…`), or by its name when exactly one design has it."""
        if id_or_name.startswith("dsg_"):
            try:
                return Design(
                    self, m.DesignInfo.model_validate(self.client.call("get_design", {"designId": id_or_name}))
                )
            except ApiError as exc:
                if exc.code != "DESIGN_NOT_FOUND":
                    raise
        matches = [d for d in self.designs() if d.name == id_or_name]
        if not matches:
            raise ApiError("DESIGN_NOT_FOUND", f"no design has the name or id {id_or_name!r} in this workspace")
        if len(matches) > 1:
            ids = ", ".join(d.designId for d in matches)
            raise ValueError(f"{len(matches)} designs are named {id_or_name!r} ({ids}): open one by its id")
        return Design(self, matches[0])

    def create_design(
        self,
        name: str,
        size: str | None = None,
        orientation: str | None = None,
        *,
        width: float | None = None,
        height: float | None = None,
        description: str | None = None,
    ) -> Design:
        """A design with one blank page: `size` A4 (default), A3, A5, Letter or Legal, or width/height in points."""
        fields = {"size": size, "orientation": orientation, "width": width, "height": height}
        body = {"name": name, "description": description, **fields}
        created = self.client.call("create_design", body={k: v for k, v in body.items() if v is not None})
        return self.design(created["designId"])

    def upload_image(self, image: str | Path | bytes, name: str | None = None) -> m.Upload:
        """Upload a PNG, JPEG, WebP or SVG (a path or bytes, at most 1 MB); use its `.ref` as a src."""
        form = {"name": name} if name else {}
        return m.Upload.model_validate(self.client.call("upload_image", file=_image_file(image, name), form=form))

    def fonts(self) -> list[m.FontEntry]:
        return m.FontList.model_validate(self.client.call("list_fonts")).fonts

    def actions(self) -> list[m.ActionCatalogEntry]:
        """The action catalog: every action's name, description and args schema."""
        return m.ActionCatalog.model_validate(self.client.call("list_actions")).actions

    def close(self) -> None:
        """Stop the embedded service's batch workers and release its data dir."""
        if self._service is not None:
            self._service.close()
            self._service = None

    def __enter__(self) -> Workbench:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Workbench {self.client.label}, workspace {self.workspace.workspaceName!r} ({self.workspace.plan})>"


@dataclass(frozen=True)
class Preview:
    """One page as a PNG (96 dpi); shows itself inline in Jupyter."""

    data: bytes
    page: int

    def _repr_png_(self) -> bytes:
        return self.data

    @property
    def size(self) -> tuple[int, int]:
        """Width and height in pixels, from the PNG header."""
        return struct.unpack(">II", self.data[16:24])

    def __repr__(self) -> str:
        width, height = self.size
        return f"<Preview of page {self.page}: {width}×{height} px PNG, {len(self.data):,} bytes>"

    def save(self, path: str | Path) -> Path:
        target = Path(path)
        target.write_bytes(self.data)
        return target


class Design(Authoring):
    """A design of the workspace: its tree, actions, previews and PDFs."""

    def __init__(self, workbench: Workbench, info: m.DesignInfo):
        self.workbench = workbench
        self.info = info

    @property
    def id(self) -> str:
        return self.info.designId

    @property
    def name(self) -> str:
        return self.info.name

    def __repr__(self) -> str:
        return f"<Design {self.id} {self.name!r}>"

    def _call(self, name: str, body: dict | None = None, query: dict | None = None) -> Any:
        return self.workbench.client.call(name, {"designId": self.id}, body, query)

    def refresh(self) -> Design:
        self.info = m.DesignInfo.model_validate(self._call("get_design"))
        return self

    @property
    def tree(self) -> engine.DesignTree:
        """The design tree as saved now."""
        return engine.DesignTree.model_validate(self._call("get_design_tree"))

    @property
    def variables(self) -> list[dict]:
        """Each variable's name, kind and what values it takes."""
        return engine.describe_variables(self.tree)

    # Authoring

    def apply(self, actions: list[dict] | dict) -> m.PatchResult:
        """Apply raw actions (`GET /actions` lists them) in order, all or none."""
        batch = [actions] if isinstance(actions, Mapping) else list(actions)
        result = m.PatchResult.model_validate(self._call("patch_design_tree", {"actions": batch}))
        self.info = self.info.model_copy(update={"fileSize": result.fileSize, "modifiedAt": result.modifiedAt})
        return result

    def upload_image(self, image: str | Path | bytes, name: str | None = None) -> m.Upload:
        return self.workbench.upload_image(image, name)

    # Output

    def preview(self, page: int = 0) -> Preview:
        """The page with its design-time content, as a PNG that displays inline (free)."""
        preview = m.Preview.model_validate(self._call("preview_page", query={"page": page}))
        return Preview(self.workbench.client.fetch(preview.previewUrl), page)

    def editor(self, height: int = 820) -> Any:
        """The workbench's canvas editor for this design, shown inline in JupyterLab or Notebook 7.

        Edits made there are saved at once through the service, as in the web workbench, and
        changes made from code (or over the API) appear in it within a second."""
        from .inline import InlineEditor  # Panel is loaded only by those who ask for the editor

        return InlineEditor(self.workbench.client, self.id, height)

    @staticmethod
    def _headers(tree: engine.DesignTree) -> dict[str, bool]:
        """Whether each variable's table value starts with a header row (its table has one)."""
        nodes = {name: tree.nodes[variable.nodeId] for name, variable in tree.variables.items()}
        return {name: bool(getattr(node.data, "headerRow", True)) for name, node in nodes.items()}

    def generate(
        self, values: Mapping[str, Any] | None = None, *, profile: str | None = None, path: str | Path | None = None
    ) -> bytes:
        """One PDF (1 credit) with these values; also written to `path` when given."""
        values = dict(values or {})
        headers = self._headers(self.tree) if any(rows.is_tabular(v) for v in values.values()) else {}
        body: dict[str, Any] = {"data": rows.values(values, lambda name: headers.get(name, True))}
        if profile is not None:
            body["pdfProfile"] = profile
        generation = m.Generation.model_validate(self._call("generate_pdf", body))
        pdf = self.workbench.client.fetch(generation.downloadUrl)
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_bytes(pdf)
        return pdf

    def generate_many(
        self,
        data: Any,
        columns: Mapping[str, Any] | None = None,
        *,
        profile: str | None = None,
        out: str | Path | None = None,
        progress: bool = True,
        timeout: float = 600,
    ) -> BatchResult:
        """One PDF per row of a pandas or polars DataFrame or a list of dicts (1 credit each).

        Columns named after a variable fill it; `columns={variable: column}` maps others.
        A cell holding a DataFrame or a list of records fills a table. `out` is a folder
        (`row-0001.pdf`…) or a `.zip`; without it the PDFs stay in `result.pdfs`. Rows go
        in batches of at most 100; `result.failures` lists failed rows by position.
        """
        tree = self.tree
        headers = self._headers(tree)
        values = rows.rows_for(data, list(tree.variables), lambda name: headers.get(name, True), columns)
        return generate_many(
            self.workbench.client,
            self.id,
            values,
            profile=profile,
            out=out,
            progress=progress,
            label=self.name,
            timeout=timeout,
        )
