"""What an analyst imports: open designs, build them in code, preview, and make PDFs from data.

    import workbench
    wb = workbench.connect()                                    # embedded, on ./data
    wb = workbench.connect("http://127.0.0.1:5006", api_key=…)  # a running server
    design = wb.design("Certificate")
    design.generate_many(df, columns={"recipient": "name"}, out="certificates/")

Everything goes through a `workbench.client.api.Client`, so both transports behave alike and
raise `ApiError` with the same codes; the rules (credits, plans, limits, values) are the
service's. Results are the API's own pydantic models (`api.models`).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from api import models as m
from api.operations import UploadedFile
from api.service import Service

from ..client import rows
from ..client.api import Client, LocalClient
from ..client.batches import BatchResult, generate_from_data
from ..client.connection import DEFAULT_URL as DEFAULT_URL  # where connect's docs send a held data dir
from ..client.connection import PAGE_SIZE as LARGEST_PAGE
from ..client.connection import find_design, list_designs, open_connection
from ..client.finishing import finishing_keys
from .authoring import Authoring

# A PDF put before or after a generation's pages: a ref, a path or bytes (uploaded first), or {ref, pages}.
AddedPdf = str | Path | bytes | Mapping[str, Any]


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
    connection = open_connection(url, api_key, data_dir=data_dir, workspace=workspace)
    try:
        return Workbench(connection.client, connection.service)
    except BaseException:
        connection.close()
        raise


def _image_file(image: str | Path | bytes, name: str | None) -> UploadedFile:
    if isinstance(image, bytes):
        return UploadedFile(image, name)
    path = Path(image)
    return UploadedFile(path.read_bytes(), path.name)


class Workbench:
    """One workspace's designs, over REST or in-process; `close()` when done (or `with`)."""

    PAGE_SIZE = LARGEST_PAGE  # designs() lists with the API's largest page

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
        return list_designs(self.client, self.PAGE_SIZE)

    def design(self, id_or_name: str) -> Design:
        """A design by id (`dsg_…`), or by its name when exactly one design has it."""
        return Design(self, find_design(self.client, id_or_name, self.PAGE_SIZE))

    def create_design(
        self,
        name: str,
        size: str | None = None,
        orientation: str | None = None,
        *,
        width: float | None = None,
        height: float | None = None,
        description: str | None = None,
        base_pdf: str | Path | bytes | None = None,
    ) -> Design:
        """A design with one blank page: `size` A4 (default), A3, A5, Letter or Legal, or width/height in points.

        `base_pdf` (a PDF's path or bytes, uploaded first, or the ref of one uploaded already): a
        design of that PDF instead, a page per PDF page with it as background and its form fields
        as bound text elements (extensions.md 12)."""
        fields = {"size": size, "orientation": orientation, "width": width, "height": height}
        body: dict = {"name": name, "description": description, **fields}
        if base_pdf is not None:
            is_ref = isinstance(base_pdf, str) and base_pdf.startswith(("uploads:", "assets:"))
            body["basePdf"] = {"ref": base_pdf if is_ref else self.upload_image(base_pdf).ref}
        created = self.client.call("create_design", body={k: v for k, v in body.items() if v is not None})
        return self.design(created["designId"])

    def upload_image(self, image: str | Path | bytes, name: str | None = None) -> m.Upload:
        """Upload a PNG, JPEG, WebP, SVG or PDF (a path or bytes, at most 1 MB); use its `.ref` as a src."""
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

    def duplicate(self, name: str | None = None) -> Design:
        """A new design with a copy of this one's tree (variables included), named `name`
        or "<name> (copy)"; editing either leaves the other as it is."""
        created = self._call("duplicate_design", {} if name is None else {"name": name})
        return self.workbench.design(created["designId"])

    def delete(self) -> None:
        """Delete the design: it leaves `wb.designs()` and opening it fails with DESIGN_NOT_FOUND.
        PDFs already made from it stay downloadable until their URLs expire; a batch still
        running finishes."""
        self._call("delete_design")

    @property
    def tree(self) -> engine.DesignTree:
        """The design tree as saved now."""
        return engine.DesignTree.model_validate(self._call("get_design_tree"))

    @property
    def variables(self) -> list[dict]:
        """Each variable (GET /designs/:id/variables): its name, kind (`field` for a `{name}` in
        a text), what values it takes, its design-time sample and the elements it fills."""
        listing = m.VariableList.model_validate(self._call("list_variables"))
        return [variable.model_dump() for variable in listing.variables]

    # Authoring

    def apply(self, actions: list[dict] | dict) -> m.PatchResult:
        """Apply raw actions (`GET /actions` lists them) in order, all or none."""
        batch = [actions] if isinstance(actions, Mapping) else list(actions)
        result = m.PatchResult.model_validate(self._call("patch_design_tree", {"actions": batch}))
        self.info = self.info.model_copy(update={"fileSize": result.fileSize, "modifiedAt": result.modifiedAt})
        return result

    def upload_image(self, image: str | Path | bytes, name: str | None = None) -> m.Upload:
        return self.workbench.upload_image(image, name)

    # Revisions and publishing (extensions.md 16)

    def revisions(self) -> list[m.RevisionInfo]:
        """Every kept revision, newest first: its number, time, source (api, editor, mcp or
        restore), summary and whether it is the published one. `pandas.DataFrame(r.model_dump()
        for r in design.revisions())` makes a table of them."""
        items: list[m.RevisionInfo] = []
        query: dict[str, Any] = {"limit": LARGEST_PAGE}
        while True:
            page = m.RevisionList.model_validate(self._call("list_revisions", query=query))
            items += page.items
            if page.nextCursor is None:
                return items
            query["cursor"] = page.nextCursor

    def revision_tree(self, revision: int) -> engine.DesignTree:
        """The design tree as revision `revision` saved it."""
        tree = self.workbench.client.call("get_revision_tree", {"designId": self.id, "revision": str(revision)})
        return engine.DesignTree.model_validate(tree)

    def restore(self, revision: int) -> m.RevisionRestored:
        """Make the tree revision `revision`'s again, as a new revision (the history stays)."""
        restored = self.workbench.client.call("restore_revision", {"designId": self.id, "revision": str(revision)})
        return m.RevisionRestored.model_validate(restored)

    def publish(self, revision: int | None = None) -> m.Published:
        """Make `generate` and `generate_many` (and every API client's generate and batch) render
        this revision, the latest by default, until the next publish or `unpublish()`."""
        body = {} if revision is None else {"revision": revision}
        return m.Published.model_validate(self._call("publish_design", body))

    def unpublish(self) -> m.Published:
        """Generate the latest tree again, as before the first publish."""
        return m.Published.model_validate(self._call("unpublish_design"))

    # Output

    def preview(self, page: int = 0, data: Mapping[str, Any] | None = None) -> Preview:
        """The page as a PNG that displays inline (free): with its design-time content, or with
        `data` (values for its variables, checked as `generate` checks them) watermarked
        "PREVIEW", to try values before spending a credit."""
        if data is None:
            preview = m.Preview.model_validate(self._call("preview_page", query={"page": page}))
        else:
            body = {"page": page, "data": self._values(data)}
            preview = m.Preview.model_validate(self._call("preview_with_values", body))
        return Preview(self.workbench.client.fetch(preview.previewUrl), page)

    def _values(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Values as the API takes them: a DataFrame or records for a typed table (data.columnDefs)
        as row objects keyed by their column names, for a plain table as rows with its header row."""
        values = dict(values)
        tabular = any(rows.is_tabular(v) for v in values.values())
        shape = rows.table_shapes(self.tree) if tabular else (lambda name: rows.TableShape())
        return rows.values(values, shape)

    def editor(self, height: int = 820) -> Any:
        """The workbench's canvas editor for this design, shown inline in JupyterLab or Notebook 7.

        Edits made there are saved at once through the service, as in the web workbench, and
        changes made from code (or over the API) appear in it within a second."""
        from .inline import InlineEditor  # Panel is loaded only by those who ask for the editor

        return InlineEditor(self.workbench.client, self.id, height)

    def generate(
        self,
        values: Mapping[str, Any] | None = None,
        *,
        profile: str | None = None,
        path: str | Path | None = None,
        output: str | None = None,
        dpi: int | None = None,
        append: Iterable[AddedPdf] | None = None,
        prepend: Iterable[AddedPdf] | None = None,
        revision: int | str | None = None,
        **finishing: Any,
    ) -> bytes:
        """One PDF (1 credit) with these values; also written to `path` when given. A DataFrame
        or a list of records fills a table as in `generate_many`. `output="png"` or `"jpeg"`
        (at `dpi`, 72-600, default 150) gives pictures of the pages instead, for the same credit:
        a one-page design's picture, or a ZIP of page-001.png… for more.

        `append` and `prepend`: existing PDFs put after or before the generated pages (terms and
        conditions, a cover), each a ref, a path or bytes (uploaded first), or `{"ref", "pages":
        "1-3,5"}` for some of its pages (extensions.md 12).

        It may also carry `attachments`, an `e_invoice` (Factur-X XML; with profile "pdf-a"),
        a `watermark`, a `password` (or `encryption`), `sign=True` and `flatten=True` (form fields
        drawn as plain content): see `workbench.client.finishing.finishing_keys`.

        Once the design is published (`publish()`), the published revision is rendered;
        `revision=` a number or `"latest"` picks another."""
        body: dict[str, Any] = {"data": self._values(values or {}), **finishing_keys(**finishing)}
        if revision is not None:
            body["revision"] = revision
        if profile is not None:
            body["pdfProfile"] = profile
        if output is not None or dpi is not None:
            body["output"] = {"format": output or "pdf", **({"dpi": dpi} if dpi is not None else {})}
        for key, added in (("append", append), ("prepend", prepend)):
            if added is not None:
                body[key] = [self._added_pdf(item) for item in added]
        generation = m.Generation.model_validate(self._call("generate_pdf", body))
        pdf = self.workbench.client.fetch(generation.downloadUrl)
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_bytes(pdf)
        return pdf

    def _added_pdf(self, item: AddedPdf) -> str | dict[str, Any]:
        """An append/prepend entry as the API takes it: a ref, or {ref, pages}; a PDF given by
        its path or bytes is uploaded first."""
        if isinstance(item, Mapping):
            return dict(item)
        if isinstance(item, str) and item.startswith(("uploads:", "assets:")):
            return item
        return self.upload_image(item).ref

    def generate_many(
        self,
        data: Any,
        columns: Mapping[str, Any] | None = None,
        *,
        profile: str | None = None,
        out: str | Path | None = None,
        progress: bool = True,
        timeout: float = 600,
        e_invoices: Any = None,
        merge: bool = False,
        **finishing: Any,
    ) -> BatchResult:
        """One PDF per row of a pandas or polars DataFrame or a list of dicts (1 credit each).

        Columns named after a variable fill it; `columns={variable: column}` maps others, and
        `columns={name: None}` leaves the column `name` out (and the variable `name` unfilled).
        Any other column that fills no variable is refused, as REST refuses the name, before
        anything is submitted or charged. A cell holding a DataFrame or a list of records fills
        a table: a typed table's (data.columnDefs) as row objects keyed by its column names,
        mapped with `columns={"items": {"qty": "Quantity"}}` (its key -> the nested column,
        None to leave one out) or `("lines", {...})` to take the tables from the column "lines";
        a plain table's as rows, its column names as the header row. `out` is a folder
        (`row-0001.pdf`…) or a `.zip`; without it the PDFs stay in `result.pdfs`. Rows go
        in batches of at most 100; `result.failures` lists failed rows by position.
        Every PDF gets the same `attachments`, `watermark`, `password`, `sign`, `flatten`… as `generate`;
        `e_invoices` gives each row its own Factur-X XML (a list or a column, one per row, in
        order: `df.apply(factur_x_xml, axis=1)`), with profile "pdf-a".
        `merge=True` (at most 100 rows) also gives one PDF of every successful row in order, with a
        bookmark per row: `result.merged`, and written beside `out` (a folder's `merged.pdf`, or
        the ZIP's name with `.pdf`).
        """
        return generate_from_data(
            self.workbench.client,
            self.info,
            data,
            columns,
            profile=profile,
            out=out,
            progress=progress,
            timeout=timeout,
            options=finishing_keys(**finishing),
            row_options=None if e_invoices is None else [finishing_keys(e_invoice=xml) for xml in e_invoices],
            merge=merge,
        )
