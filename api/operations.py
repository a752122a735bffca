"""Every operation of the API, declared once: REST routes, OpenAPI and MCP tools come from here.

An operation names its input models and its result model and calls the service;
the faces (REST handlers, MCP tools) only parse, call and wrap.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

import engine
from engine.actions.errors import describe

from . import models as m
from .errors import validation
from .renderers import Cancellation
from .service import Service, Workspace
from .service.signing import PASSWORD_MAX_LENGTH
from .settings import ASSET_LIMIT, CERTIFICATE_LIMIT, UPLOAD_LIMIT
from .spool import SpooledFile


@dataclass
class UploadedFile:
    """A file a caller sent (a multipart part, base64 in an MCP argument, bytes in the notebook).
    A large multipart part arrives on disk instead (api.spool, issue 48): `spooled`, `data` empty."""

    data: bytes
    filename: str | None
    spooled: SpooledFile | None = None
    sha256: str | None = None  # of the bytes, when counted as they arrived (hex)

    @property
    def content(self) -> bytes | SpooledFile:
        """The bytes, or the spool file holding them: what the media service takes."""
        return self.spooled if self.spooled is not None else self.data

    def digest(self) -> str:
        """The SHA-256 of the file (hex): counted as it arrived, or now."""
        return self.sha256 or hashlib.sha256(self.data).hexdigest()


@dataclass
class Call:
    """One parsed request: path parameters, validated body/query, an uploaded file."""

    params: dict[str, str] = field(default_factory=dict)
    body: Any = None
    query: Any = None
    file: UploadedFile | None = None
    form: dict[str, str] = field(default_factory=dict)
    cancel: Cancellation | None = None  # set when the caller is gone: a render for nobody stops
    # Which face calls (extensions.md 16: a revision's source): REST "api", MCP "mcp", the
    # workbench's pages "editor"; the notebook and the CLI are API clients.
    source: Literal["api", "editor", "mcp"] = "api"


@dataclass(frozen=True)
class Multipart:
    limit: int
    fields: tuple[str, ...] = ("name",)
    file: str = "image"  # what the file part holds, in refusals and schemas
    # Fields kept exactly as sent (a password: spaces at its ends are part of it) and marked
    # writeOnly in the schemas; the others are names (NAME_FIELD_SCHEMA), trimmed.
    secrets: tuple[str, ...] = ()
    # Whether --max-upload-mb raises `limit` (images and PDFs; not a signing certificate).
    raisable: bool = True

    def field_schema(self, name: str) -> dict[str, Any]:
        if name in self.secrets:
            return {
                "type": "string",
                "maxLength": PASSWORD_MAX_LENGTH,
                "format": "password",
                "writeOnly": True,
                "description": f"The password that opens the {self.file}",
            }
        return dict(m.NAME_FIELD_SCHEMA)


@dataclass(frozen=True)
class Operation:
    name: str  # snake_case; also the MCP tool's name (decisions.md)
    method: str
    path: str  # OpenAPI style: /designs/{designId}
    summary: str
    run: Callable[[Service, Workspace, Call], Any]
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    multipart: Multipart | None = None
    response: type[BaseModel] | None = None
    status: int = 200
    errors: tuple[str, ...] = ()
    raw: bool = False  # the success body is not enveloped (GET /designs/:id/tree)
    description: str = ""
    renders: bool = False  # waits on a render process (the manual, "Limits"): runs on the render threads
    # Reads and checks a whole design tree here (up to 5 MB of texts to parse): runs on the
    # tree threads, so it never holds a thread that authenticates requests (issue 31, item 3).
    checks_tree: bool = False
    # Usually answered from what this process remembers (GET /me): tried on the event loop
    # first, on a thread only when it would wait (api.blocking). Read-only calls alone.
    from_memory: bool = False


@dataclass(frozen=True)
class Executors:
    """Threads for API calls. Calls that wait on a render process get threads of their own,
    and so do calls that check a whole design tree in this process (a few: the work is CPU
    and holds the interpreter), so neither a flood of renders (or hostile SVGs) nor big
    designs delay a call that only reads or writes the database: another workspace's
    `GET /me` answers at once."""

    light: Executor
    render: Executor
    trees: Executor

    def pick(self, operation: Operation) -> Executor:
        if operation.renders:
            return self.render
        return self.trees if operation.checks_tree else self.light


def parse_model(model: type[BaseModel], raw: Any, root: str, prefix: str | None = None) -> BaseModel:
    """A query, body or arguments object validated by its model, or VALIDATION_ERROR in one
    readable sentence: every face (REST, MCP, the local client) parses through here.
    Locations are prefixed by `root` ("query.limit"), except for a body, whose fields are
    named bare, as the spec's examples do; `prefix` overrides that."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        if prefix is None:
            prefix = root if root != "body" else ""
        raise validation(describe(exc, {"": model}, prefix=prefix, root=root)) from None


def _fonts(service: Service, ws: Workspace, call: Call) -> dict:
    return {"fonts": [entry.public() for entry in engine.fonts.families()]}


def _sheets(service: Service, ws: Workspace, call: Call) -> dict:
    from engine.finishing.label_sheets import PRESETS

    return {"sheets": [preset.public() for preset in PRESETS.values()]}


def _upload(service: Service, ws: Workspace, call: Call) -> dict:
    assert call.file is not None
    return service.media.create_upload(ws, call.file.content, call.file.filename, call.form.get("name"))


def _asset(service: Service, ws: Workspace, call: Call) -> dict:
    assert call.file is not None
    return service.media.create_asset(ws, call.file.content, call.file.filename, call.form.get("name"))


def _replace(service: Service, ws: Workspace, call: Call) -> dict:
    assert call.file is not None
    return service.media.replace_asset_content(ws, call.params["assetId"], call.file.content)


def _signing_certificate(service: Service, ws: Workspace, call: Call) -> dict:
    assert call.file is not None and call.file.spooled is None  # 256 KB at most: never spooled (api.spool)
    return service.signing.upload(ws, call.file.data, call.form.get("password"))


DESIGN = ("DESIGN_NOT_FOUND",)
OPERATIONS: list[Operation] = [
    Operation(
        "me",
        "GET",
        "/me",
        "The workspace behind the API key: plan, features and credits",
        lambda s, ws, c: s.accounts.me(ws),
        response=m.Me,
        from_memory=True,
    ),
    Operation(
        "rotate_webhook_secret",
        "POST",
        "/me/webhook-secret",
        "Replace the workspace's webhook secret with a new one, answered once here (and in GET /me)",
        lambda s, ws, c: s.accounts.rotate_webhook_secret(ws.id),
        response=m.WebhookSecret,
        description="The previous secret stops signing at once: every webhook attempt made afterwards, retries of "
        "events from before included, is signed with the new one. No body.",
    ),
    Operation(
        "create_design",
        "POST",
        "/designs",
        "Create a design with one blank page (it does not author content), or of an uploaded PDF (basePdf)",
        lambda s, ws, c: s.designs.create(ws, c.body, c.source),
        body=m.CreateDesignBody,
        response=m.DesignCreated,
        status=201,
        renders=True,  # basePdf: the PDF's form is read in a render process
    ),
    Operation(
        "list_designs",
        "GET",
        "/designs",
        "List the workspace's designs, newest first, with cursor pagination",
        lambda s, ws, c: s.designs.list(ws, c.query),
        query=m.ListQuery,
        response=m.DesignList,
    ),
    Operation(
        "get_design",
        "GET",
        "/designs/{designId}",
        "A design's metadata (no tree)",
        lambda s, ws, c: s.designs.get(ws, c.params["designId"]),
        response=m.DesignInfo,
        errors=DESIGN,
    ),
    Operation(
        "get_design_tree",
        "GET",
        "/designs/{designId}/tree",
        "The full design tree, raw (not enveloped)",
        lambda s, ws, c: s.designs.tree_json(ws, c.params["designId"]),
        raw=True,
        errors=DESIGN,
    ),
    Operation(
        "list_variables",
        "GET",
        "/designs/{designId}/variables",
        "Every variable of a design, bound elements and text fields alike: name, kind, accepts, sample, elements",
        lambda s, ws, c: s.designs.variables(ws, c.params["designId"]),
        response=m.VariableList,
        errors=DESIGN,
        checks_tree=True,
    ),
    Operation(
        "update_design",
        "PATCH",
        "/designs/{designId}",
        "Rename or re-describe a design (never touches the tree)",
        lambda s, ws, c: s.designs.update(ws, c.params["designId"], c.body),
        body=m.UpdateDesignBody,
        response=m.DesignUpdated,
        errors=DESIGN,
    ),
    Operation(
        "delete_design",
        "DELETE",
        "/designs/{designId}",
        "Delete a design; PDFs made from it stay downloadable until their URLs expire, running batches finish",
        lambda s, ws, c: s.designs.delete(ws, c.params["designId"]),
        response=m.DesignDeleted,
        errors=DESIGN,
    ),
    Operation(
        "duplicate_design",
        "POST",
        "/designs/{designId}/duplicate",
        'Copy a design (its tree, variables included) into a new one, named "<name> (copy)" by default',
        lambda s, ws, c: s.designs.duplicate(ws, c.params["designId"], c.body, c.source),
        body=m.DuplicateDesignBody,
        response=m.DesignCreated,
        status=201,
        errors=DESIGN,
    ),
    Operation(
        "patch_design_tree",
        "PATCH",
        "/designs/{designId}/tree",
        "Apply 1-500 actions in order, atomically: all are saved or none",
        lambda s, ws, c: s.designs.patch_tree(ws, c.params["designId"], c.body, c.source),
        body=m.PatchTreeBody,
        response=m.PatchResult,
        errors=DESIGN,
        renders=True,  # data: and https:// image sources are processed like uploads
    ),
    Operation(
        "list_actions",
        "GET",
        "/actions",
        "The action catalog: every action's name, description and args schema",
        lambda s, ws, c: {"actions": engine.catalog()},
        response=m.ActionCatalog,
    ),
    Operation("list_fonts", "GET", "/fonts", "The closed font catalog", _fonts, response=m.FontList),
    Operation(
        "list_sheets",
        "GET",
        "/sheets",
        "The label-sheet presets a batch's sheet.preset takes (Avery, Herma): paper, columns, rows, label size, "
        "margins and gaps in points, and the figures as published",
        _sheets,
        response=m.SheetList,
    ),
    Operation(
        "upload_image",
        "POST",
        "/uploads",
        "Upload an image (PNG, JPEG, WebP, SVG) or a PDF (at most 200 pages); at most 1 MB",
        _upload,
        multipart=Multipart(UPLOAD_LIMIT),
        response=m.Upload,
        status=201,
        renders=True,
    ),
    Operation(
        "create_asset",
        "POST",
        "/assets",
        "Add an image or a PDF (at most 200 pages) to the asset library (at most 10 MB)",
        _asset,
        multipart=Multipart(ASSET_LIMIT),
        response=m.Asset,
        status=201,
        renders=True,
    ),
    Operation(
        "create_placeholder_asset",
        "POST",
        "/assets/placeholder",
        "Create a placeholder asset drawn with its label",
        lambda s, ws, c: s.media.create_placeholder(ws, c.body),
        body=m.PlaceholderBody,
        response=m.Asset,
        status=201,
        renders=True,
    ),
    Operation(
        "replace_asset_content",
        "PUT",
        "/assets/{assetId}/content",
        "Replace an asset's image; its ref stays",
        _replace,
        multipart=Multipart(ASSET_LIMIT, ()),
        response=m.Asset,
        errors=("ASSET_NOT_FOUND",),
        renders=True,
    ),
    Operation(
        "list_assets",
        "GET",
        "/assets",
        "List the asset library, newest first, with cursor pagination",
        lambda s, ws, c: s.media.list_assets(ws, c.query),
        query=m.ListQuery,
        response=m.AssetList,
    ),
    Operation(
        "get_asset",
        "GET",
        "/assets/{assetId}",
        "One asset",
        lambda s, ws, c: s.media.get_asset(ws, c.params["assetId"]),
        response=m.Asset,
        errors=("ASSET_NOT_FOUND",),
    ),
    Operation(
        "generate_pdf",
        "POST",
        "/designs/{designId}/generate",
        "Render one PDF with variable values (1 credit)",
        lambda s, ws, c: s.generation.generate(ws, c.params["designId"], c.body, c.cancel),
        body=m.GenerateBody,
        renders=True,
        response=m.Generation,
        status=201,
        errors=(*DESIGN, "INSUFFICIENT_CREDITS", "REVISION_NOT_FOUND"),
    ),
    Operation(
        "preview_page",
        "GET",
        "/designs/{designId}/preview",
        "Render one page to PNG with design-time content (free)",
        lambda s, ws, c: s.generation.preview(
            ws,
            c.params["designId"],
            c.query.page,
            c.cancel,
            without=c.query.left_out,
            sheet=c.query.sheet,
            revision=c.query.revision,
        ),
        query=m.PreviewQuery,
        renders=True,
        response=m.Preview,
        errors=(*DESIGN, "PAGE_NOT_FOUND", "REVISION_NOT_FOUND"),
    ),
    Operation(
        "preview_with_values",
        "POST",
        "/designs/{designId}/preview",
        'Render one page to PNG with values for its variables, watermarked "PREVIEW" (free)',
        lambda s, ws, c: s.generation.preview_with_values(ws, c.params["designId"], c.body, c.cancel),
        body=m.PreviewWithValuesBody,
        renders=True,
        response=m.Preview,
        errors=(*DESIGN, "PAGE_NOT_FOUND"),
        description="Values are checked as generate's `data` is (the same 400s); no credit is taken.",
    ),
    Operation(
        "preview_sheet",
        "POST",
        "/designs/{designId}/sheet-preview",
        "Render one label sheet to PNG, the design with its design-time content in every label (free)",
        lambda s, ws, c: s.generation.sheet_preview(ws, c.params["designId"], c.body, c.cancel),
        body=m.SheetPreviewBody,
        renders=True,
        response=m.SheetPreview,
        errors=DESIGN,
        description="What a batch with this sheet prints; refused (400) as a batch's sheet is: an unknown preset, "
        "or a page larger than a label (naming both sizes).",
    ),
]

OPERATIONS += [
    Operation(
        "submit_batch",
        "POST",
        "/designs/{designId}/batch",
        "Queue 1-100 PDFs from rows of values (1 credit per row, taken now; failed rows are refunded)",
        lambda s, ws, c: s.batches.submit(ws, c.params["designId"], c.body),
        body=m.BatchBody,
        response=m.BatchSubmitted,
        status=202,
        errors=(*DESIGN, "INSUFFICIENT_CREDITS", "REVISION_NOT_FOUND", "SERVICE_UNAVAILABLE"),
        checks_tree=True,  # the rows' values are checked against the tree
    ),
    Operation(
        "get_batch",
        "GET",
        "/batches/{jobId}",
        "A batch job's state and its completed/failed counts",
        lambda s, ws, c: s.batches.get(ws, c.params["jobId"]),
        response=m.BatchJob,
        errors=("JOB_NOT_FOUND",),
    ),
    Operation(
        "get_batch_rows",
        "GET",
        "/batches/{jobId}/rows",
        "A batch's finished rows in order, each with its PDF's filename and, for a failed row, why "
        "(filter by status; cursor pagination)",
        lambda s, ws, c: s.batches.rows(ws, c.params["jobId"], c.query),
        query=m.BatchRowsQuery,
        response=m.BatchRowList,
        errors=("JOB_NOT_FOUND",),
    ),
    Operation(
        "get_batch_download",
        "GET",
        "/batches/{jobId}/download",
        "A signed URL to the ZIP of a finished batch (row-0001.pdf…, errors.json when rows failed), or with "
        "merged=true to the one PDF of its rows (a batch submitted with merge: true); a label-sheet batch's is its "
        "PDF of sheets, and with rows=true the ZIP of its rows (submitted with keepRows: true)",
        lambda s, ws, c: s.batches.download(ws, c.params["jobId"], c.query),
        query=m.BatchDownloadQuery,
        response=m.BatchDownload,
        errors=("JOB_NOT_FOUND", "JOB_NOT_COMPLETED", "NOT_FOUND"),
    ),
]

REVISION = (*DESIGN, "REVISION_NOT_FOUND")
OPERATIONS += [  # extensions.md 16
    Operation(
        "list_revisions",
        "GET",
        "/designs/{designId}/revisions",
        "A design's revisions, newest first (cursor pagination): number, time, source, summary, published",
        lambda s, ws, c: s.revisions.list(ws, c.params["designId"], c.query),
        query=m.RevisionListQuery,
        response=m.RevisionList,
        errors=DESIGN,
        description="Every saved change of the tree is a revision, numbered from 1 and rising. The last 100 and "
        "the published one are kept.",
    ),
    Operation(
        "get_revision_tree",
        "GET",
        "/designs/{designId}/revisions/{revision}/tree",
        "The design tree as revision n saved it, raw (not enveloped)",
        lambda s, ws, c: s.revisions.tree_json(ws, c.params["designId"], c.params["revision"]),
        raw=True,
        errors=REVISION,
    ),
    Operation(
        "restore_revision",
        "POST",
        "/designs/{designId}/revisions/{revision}/restore",
        "Make a new revision whose tree equals revision n's (later revisions stay in the history)",
        lambda s, ws, c: s.revisions.restore(ws, c.params["designId"], c.params["revision"]),
        response=m.RevisionRestored,
        errors=REVISION,
    ),
    Operation(
        "publish_design",
        "POST",
        "/designs/{designId}/publish",
        "Mark the revision generate and batch render (the latest by default)",
        lambda s, ws, c: s.revisions.publish(ws, c.params["designId"], c.body),
        body=m.PublishBody,
        response=m.Published,
        errors=REVISION,
        description="Until a design is first published, generate and batch render its latest tree; once it is, "
        'they render the published revision unless their body says `revision: <n>` or `"latest"`. Edits '
        "after publishing make new revisions without changing what is generated.",
    ),
    Operation(
        "get_publish_state",
        "GET",
        "/designs/{designId}/publish",
        "Which revision is published, and what differs between the latest tree (the draft) and it",
        lambda s, ws, c: s.revisions.publish_state(ws, c.params["designId"]),
        response=m.PublishState,
        errors=DESIGN,
        description="The elements the draft adds, removes and changes against the published revision, and the "
        "rest in words: what publishing the latest would change (the editor's Publish dialog).",
    ),
    Operation(
        "unpublish_design",
        "DELETE",
        "/designs/{designId}/publish",
        "Stop publishing: generate and batch render the latest tree again",
        lambda s, ws, c: s.revisions.unpublish(ws, c.params["designId"]),
        response=m.Published,
        errors=DESIGN,
    ),
]

CERTIFICATE = ("SIGNING_CERTIFICATE_NOT_FOUND",)
OPERATIONS += [
    Operation(
        "upload_signing_certificate",
        "PUT",
        "/signing-certificate",
        "Keep the workspace's signing certificate for `sign: true`: a PKCS#12 with its private key, and its "
        "password (replaces the one kept before)",
        _signing_certificate,
        multipart=Multipart(
            CERTIFICATE_LIMIT, ("password",), file="PKCS#12 (.p12 / .pfx)", secrets=("password",), raisable=False
        ),
        response=m.SigningCertificate,
        description="The PKCS#12 and its password are kept encrypted with the server's secret and never returned. "
        "Refused (400) when the file is over 256 KB, asks for more than 1,000,000 key-derivation iterations (or "
        "3,000,000 in all), is not a PKCS#12, the password does not open it, it holds no private key or one that "
        "cannot sign PDFs, or the certificate has expired or is not valid yet.",
        renders=True,  # opened in a render process (the manual, "Limits")
    ),
    Operation(
        "get_signing_certificate",
        "GET",
        "/signing-certificate",
        "The workspace's signing certificate: subject, issuer and validity (never the key)",
        lambda s, ws, c: s.signing.get(ws),
        response=m.SigningCertificate,
        errors=CERTIFICATE,
    ),
    Operation(
        "delete_signing_certificate",
        "DELETE",
        "/signing-certificate",
        "Remove the workspace's signing certificate; `sign: true` is refused afterwards",
        lambda s, ws, c: s.signing.delete(ws),
        response=m.SigningCertificateDeleted,
        errors=CERTIFICATE,
    ),
]

BY_NAME = {op.name: op for op in OPERATIONS}
