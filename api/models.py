"""Request bodies and response data of the REST API (spec 2, 4), as pydantic models.

These are the single source of the API's shapes: handlers validate with them, the
OpenAPI document and the MCP tool schemas are generated from them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictInt,
    Tag,
    create_model,
    model_validator,
)

from engine.actions import MAX_ACTIONS, Action
from engine.design.names import check_visible
from engine.design.paper import MAX_PAGE_SIDE, MIN_PAGE_SIDE, Orientation, PaperSize
from engine.elements.base import VariableKind
from engine.finishing.added_pages import AddedPdf
from engine.finishing.attachments import Attachments
from engine.finishing.einvoice import EInvoice
from engine.finishing.encryption import Encryption
from engine.finishing.label_sheets import LabelSheet
from engine.finishing.options import Finishing
from engine.finishing.watermark import Watermark
from engine.render.document import Profile
from engine.render.pictures import PageOutput

from .plans import FEATURES

PdfProfile = Profile  # the engine renders them; it owns the list
DEFAULT_PDF_PROFILE: PdfProfile = "standard"
JobStatus = Literal["queued", "processing", "completed", "failed"]
JOB_ENDED: tuple[JobStatus, ...] = ("completed", "failed")  # a batch job's final states


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# Requests


# Optional fields are left out rather than sent as null: `field: T = None` keeps null out of
# the schema and refuses it. Constraints live on the types, so they never meet the default.
# engine.design.names: no control, bidi or invisible characters in names people give.
NAME_MAX_LENGTH = 200  # names people give: designs, assets, uploads, workspaces
Name = Annotated[str, Field(min_length=1, max_length=NAME_MAX_LENGTH), AfterValidator(check_visible)]
# A name sent as a multipart form field (OpenAPI) or a tool argument (MCP), which no model parses.
NAME_FIELD_SCHEMA = {"type": "string", "minLength": 1, "maxLength": NAME_MAX_LENGTH}
Description = Annotated[str, Field(max_length=2000)]
Label = Annotated[str, Field(max_length=40), AfterValidator(check_visible)]
PageSide = Annotated[float, Field(ge=MIN_PAGE_SIDE, le=MAX_PAGE_SIDE)]


class BasePdf(Strict):
    ref: str = Field(description="uploads:<id> or assets:<id> of an uploaded PDF")


class CreateDesignBody(Strict):
    # The cross-field rules, for generated clients and schema-driven tests too.
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "dependentRequired": {"width": ["height"], "height": ["width"]},
            "not": {"anyOf": [{"required": ["size", "width"]}, {"required": ["size", "height"]}]},
        },
    )

    name: Name
    description: Description = None
    size: PaperSize = Field(None, description="A4 (default), A3, A5, Letter or Legal")
    orientation: Orientation = Field(None, description="portrait (default) or landscape")
    width: PageSide = Field(None, description="Custom width in points; with height, not with size")
    height: PageSide = Field(None, description="Custom height in points; with width")
    basePdf: BasePdf | None = Field(
        None,
        description="Make the design of an uploaded PDF: a page per PDF page at its size with "
        "that page as background, its form fields as bound text elements; not with size, orientation, width, height",
    )

    @model_validator(mode="after")
    def _one_format(self) -> CreateDesignBody:
        if self.basePdf is not None and {"size", "orientation", "width", "height"} & self.model_fields_set:
            raise ValueError("basePdf sizes each page as the PDF's: send it without size, orientation, width, height")
        if self.size is not None and (self.width is not None or self.height is not None):
            raise ValueError("send either size or width/height, not both")
        if (self.width is None) != (self.height is None):
            raise ValueError("width and height go together: send both")
        return self


class UpdateDesignBody(Strict):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"anyOf": [{"required": ["name"]}, {"required": ["description"]}]}
    )

    name: Name = None
    description: Description | None = None

    @model_validator(mode="after")
    def _something(self) -> UpdateDesignBody:
        if not self.model_fields_set & {"name", "description"}:
            raise ValueError("send name and/or description")
        return self


class DuplicateDesignBody(Strict):
    name: Name = Field(None, description='The copy\'s name; "<name> (copy)" by default')


class PatchTreeBody(Strict):
    actions: list[Action] = Field(min_length=1, max_length=MAX_ACTIONS)


ADDED_DESCRIPTION = (
    'uploaded PDFs (refs, or {{"ref", "pages": "1-3,5"}} for some of their pages, 1-based) put {where} the '
    "generated pages, kept as they are: under pdfProfile accessible only tagged PDFs, added whole; under pdf-a "
    "with their fonts embedded"
)


# An append/prepend entry: a ref (every page), or {ref, pages}; the schema says both, and a
# refusal names only the form that was sent.
AddedPdfEntry = Annotated[
    Annotated[Annotated[str, Field(max_length=200)], Tag("ref")] | Annotated[AddedPdf, Tag("entry")],
    Discriminator(lambda value: "ref" if isinstance(value, str) else "entry"),
]


class FinishingOptions(Strict):
    """What a render may add beyond the design (extensions.md 9), in this order: attachments
    and e-invoice, watermark, encryption, signature last. The engine owns each shape."""

    attachments: Attachments = Field(None, description="Files to embed: at most 10, 5 MB together")
    eInvoice: EInvoice = Field(None, description='A Factur-X / ZUGFeRD 2 invoice XML (needs pdfProfile "pdf-a")')
    watermark: Watermark = Field(None, description="Text drawn over every page (an artifact in tagged profiles)")
    encryption: Encryption = Field(None, description="AES-256 with a password and permissions (not with pdf-a)")
    sign: bool = Field(None, description="Sign with the workspace's signing certificate (PAdES B-B), last")
    append: list[AddedPdfEntry] = Field(
        None, max_length=20, description=ADDED_DESCRIPTION.format(where="after") + ", e.g. terms and conditions"
    )
    prepend: list[AddedPdfEntry] = Field(None, max_length=20, description=ADDED_DESCRIPTION.format(where="before"))
    flatten: bool = Field(
        None, description="Draw the form fields' values as plain page content: no fillable form remains"
    )

    def finishing(self) -> Finishing | None:
        """The engine's Finishing, or None when nothing beyond the design was asked for."""
        options = (self.attachments, self.eInvoice, self.watermark, self.encryption, self.sign, self.flatten)
        if not any(options) and not (self.append or self.prepend):
            return None
        return Finishing(
            attachments=self.attachments or [],
            e_invoice=self.eInvoice,
            watermark=self.watermark,
            encryption=self.encryption,
            sign=bool(self.sign),
            append=[AddedPdf.model_validate(entry) for entry in self.append or []],
            prepend=[AddedPdf.model_validate(entry) for entry in self.prepend or []],
            flatten=bool(self.flatten),
        )


OUTPUT_DESCRIPTION = (
    '{"format": "png" | "jpeg", "dpi"?: 72-600 (150)} for pictures of the pages instead of a '
    "PDF (one page: the picture; more: a ZIP of page-001.png…), at the same credit; not with the PDF-only options "
    "(pdfProfile other than standard, attachments, eInvoice, encryption, sign)"
)


# extensions.md 16: which revision of the tree generate and batch render. Strict: a JSON
# string "3" or true is not a revision number.
RevisionChoice = Annotated[StrictInt, Field(ge=1)] | Literal["latest"]
REVISION_CHOICE_DESCRIPTION = (
    'A revision number, or "latest" for the saved tree; by default the published revision, '
    "or the latest when the design was never published"
)


class GenerateBody(FinishingOptions):
    data: dict[str, Any] = Field(None, description="Variable name to value")
    revision: RevisionChoice = Field(None, description=REVISION_CHOICE_DESCRIPTION)
    pdfProfile: PdfProfile = Field(None, description="standard (default), accessible or pdf-a")
    output: PageOutput = Field(None, description=OUTPUT_DESCRIPTION)


class RowOptions(Strict):
    """A batch row's own files or e-invoice, added to the batch's (rowOptions[i] for rows[i])."""

    attachments: Attachments = Field(None, description="Added to the batch's attachments (the limits apply to both)")
    eInvoice: EInvoice = Field(None, description="This row's invoice XML, in place of the batch's")


class BatchBody(FinishingOptions):
    rows: list[dict[str, Any]] = Field(min_length=1, max_length=100, description="One object of values per PDF")
    revision: RevisionChoice = Field(None, description=REVISION_CHOICE_DESCRIPTION)
    rowOptions: list[RowOptions] = Field(
        None, max_length=100, description="One entry per row, as long as rows: a row's own attachments or e-invoice"
    )
    pdfProfile: PdfProfile = Field(None, description="Applies to every row")
    webhookUrl: str = Field(
        None,
        max_length=2000,
        description="https URL POSTed a signed batch.completed or batch.failed event when the job ends",
    )
    output: PageOutput = Field(None, description=OUTPUT_DESCRIPTION + "; applies to every row")
    merge: bool = Field(
        None,
        description="Also one PDF of every successful row in row order, with an outline entry "
        "per row (GET /batches/:jobId/download?merged=true); not with pictures, encryption or sign",
    )
    sheet: LabelSheet = Field(
        None,
        description='Print on label sheets: {"preset": "L7160"} (GET /sheets lists them) or {paper, columns, rows, '
        "marginTop, marginLeft, gapX, gapY} in points, with cutMarks?; each row's page goes in the next cell, left "
        "to right, top to bottom, and the download is one PDF of sheets. The design's page must fit a label; not "
        "with pictures, merge, encryption, sign, append or prepend",
    )
    keepRows: bool = Field(
        None, description="With sheet: also the ZIP of every row's PDF (GET /batches/:jobId/download?rows=true)"
    )

    @model_validator(mode="after")
    def _one_option_per_row(self) -> BatchBody:
        if self.rowOptions is not None and len(self.rowOptions) != len(self.rows):
            raise ValueError(
                f"rowOptions has {len(self.rowOptions)} entries for {len(self.rows)} rows: "
                "give one per row ({} for a row with none)"
            )
        return self


class BatchRowsQuery(Strict):
    status: Literal["failed", "completed"] = Field(None, description="Only the rows that failed, or that completed")
    cursor: str = Field(None, description="nextCursor of the previous page")
    limit: int = Field(50, ge=1, le=200)


class RevisionListQuery(Strict):
    cursor: str = Field(None, description="nextCursor of the previous page")
    limit: int = Field(50, ge=1, le=200)


class PublishBody(Strict):
    revision: Annotated[StrictInt, Field(ge=1)] = Field(
        None, description="The revision to publish; the latest by default"
    )


class BatchDownloadQuery(Strict):
    merged: bool = Field(False, description="The merged PDF of a batch submitted with merge: true, not the ZIP")
    rows: bool = Field(
        False, description="A label-sheet batch's ZIP of its rows' PDFs (submitted with keepRows: true), not its sheets"
    )


class PlaceholderBody(Strict):
    name: Name
    label: Label = Field(None, description="Defaults to name")
    width: int = Field(400, ge=16, le=2000)
    height: int = Field(300, ge=16, le=2000)


class ListQuery(Strict):
    cursor: str = Field(None, description="nextCursor of the previous page")
    limit: int = Field(50, ge=1, le=200)
    parentId: str = Field(None, description="Only the children of this folder")


# Fits a URL whatever the characters (a GET's query; the editor's lift sends about 100 ids at most).
PREVIEW_WITHOUT_MAX_LENGTH = 2000


class PreviewQuery(Strict):
    page: int = Field(0, ge=0)
    sheet: int = Field(
        0,
        ge=0,
        description="Zero-based sheet of the page: a page whose tables or flowing texts grow lays out as several "
        "(the answer's `sheets`)",
    )
    revision: int = Field(
        None,
        ge=1,
        description="A kept revision to draw (the editor's history); the saved tree by default",
    )
    without: str = Field(
        "",
        max_length=PREVIEW_WITHOUT_MAX_LENGTH,
        description="Comma-separated element ids left out of the picture (the editor's page under a drag); "
        "ids not on the page change nothing",
    )

    @property
    def left_out(self) -> tuple[str, ...]:
        return tuple(i for i in (part.strip() for part in self.without.split(",")) if i)


class PreviewWithValuesBody(Strict):
    page: int = Field(0, ge=0, description="Zero-based page index")
    sheet: int = Field(0, ge=0, description="Zero-based sheet of the page, as the query's `sheet`")
    data: dict[str, Any] = Field(description="Variable name to value, checked as generate's data")


class SheetPreviewBody(Strict):
    sheet: LabelSheet = Field(description="As a batch's sheet: a preset from GET /sheets, or the geometry")


# Responses (the `data` of the envelope)


class Dimensions(BaseModel):
    width: int
    height: int


class DesignCreated(BaseModel):
    designId: str
    name: str
    description: str | None = None
    createdAt: str
    importNotes: list[str] | None = Field(
        None, description="basePdf: what of the PDF's form was left out or changed, and why (absent: nothing)"
    )


class DesignInfo(BaseModel):
    """A design's metadata (get_design, list_designs): everything but its tree."""

    designId: str
    name: str
    description: str | None = None
    fileSize: int
    createdAt: str
    modifiedAt: str


class DesignUpdated(BaseModel):
    designId: str
    name: str
    description: str | None = None
    fileSize: int
    modifiedAt: str


class DesignDeleted(BaseModel):
    designId: str
    deleted: Literal[True]


class DesignList(BaseModel):
    items: list[DesignInfo]
    nextCursor: str | None


class ActionResult(BaseModel):
    type: str
    status: Literal["success"]
    data: dict[str, Any]


class PatchResult(BaseModel):
    designId: str
    name: str | None = None
    fileSize: int
    modifiedAt: str
    revision: int = Field(description="The revision this save made")
    results: list[ActionResult]


class RevisionInfo(BaseModel):
    """One saved version of a design's tree (extensions.md 16)."""

    revision: int = Field(description="Numbered from 1 per design, rising with every saved change")
    createdAt: str
    source: Literal["api", "editor", "mcp", "restore"] = Field(description="Which face saved it")
    summary: str = Field(description="What changed, from the actions (cut to about 200 characters)")
    published: bool = Field(description="Whether generate and batch render this revision")


class RevisionList(BaseModel):
    items: list[RevisionInfo] = Field(description="Newest first")
    nextCursor: str | None


class RevisionRestored(BaseModel):
    designId: str
    revision: int = Field(description="The new revision, whose tree equals restoredFrom's")
    restoredFrom: int
    fileSize: int
    modifiedAt: str


class Published(BaseModel):
    designId: str
    publishedRevision: int | None = Field(
        description="The revision generate and batch render; null: the latest (never published, or unpublished)"
    )


class ElementDifference(BaseModel):
    id: str
    name: str
    type: str
    page: int
    parts: list[str] = Field(None, description="For a changed element: what differs (position, data, styles, name, …)")


class TreeDifferences(BaseModel):
    added: list[ElementDifference]
    removed: list[ElementDifference]
    changed: list[ElementDifference]
    other: list[str] = Field(description="The rest in words: pages, paint order, variables, backgrounds, metadata")


class PublishState(BaseModel):
    designId: str
    publishedRevision: int | None = Field(description="The revision generate and batch render; null: the latest")
    latestRevision: int
    differs: bool = Field(description="Whether the latest tree (the draft) differs from the published one")
    changes: TreeDifferences | None = Field(
        description="What publishing the latest would change: the draft against the published revision "
        "(null while nothing is published)"
    )


class Upload(BaseModel):
    uploadId: str
    ref: str
    name: str
    mimeType: str
    fileSize: int
    dimensions: Dimensions
    thumbnailUrl: str
    createdAt: str
    pages: int | None = Field(None, description="A PDF's page count (dimensions: its page 1 in points)")


class Asset(BaseModel):
    id: str
    ref: str
    name: str
    mimeType: str
    fileSize: int
    dimensions: Dimensions
    thumbnailUrl: str
    isPlaceholder: bool
    createdAt: str
    pages: int | None = Field(None, description="A PDF's page count (dimensions: its page 1 in points)")


class AssetList(BaseModel):
    items: list[Asset]
    nextCursor: str | None


class Generation(BaseModel):
    generationId: str
    designId: str
    filename: str
    downloadUrl: str
    expiresIn: int
    status: Literal["completed"]
    revision: int = Field(description="The revision of the design's tree that was rendered")


class BatchSubmitted(BaseModel):
    jobId: str
    status: Literal["queued"]
    total: int
    designId: str
    revision: int = Field(description="The revision of the design's tree its rows render")


class WebhookDelivery(BaseModel):
    attempt: int = Field(description="1 for the first POST, then one more per retry")
    at: str
    status: int | None = Field(description="The receiver's HTTP status; null when none came")
    error: str | None = Field(description="Why the attempt failed; null when it was delivered (2xx)")


class BatchWebhook(BaseModel):
    url: str
    deliveries: list[WebhookDelivery]


class BatchJob(BaseModel):
    jobId: str
    status: JobStatus
    total: int
    completed: int
    failed: int
    createdAt: str
    updatedAt: str
    revision: int | None = Field(
        description="The revision of the design's tree its rows render (null for a job from before revisions)"
    )
    webhook: BatchWebhook = Field(None, description="Only for a job submitted with a webhookUrl")


class RowError(BaseModel):
    code: str
    message: str


class BatchRow(BaseModel):
    row: int = Field(description="1-based, in the order of the submitted rows")
    status: Literal["completed", "failed"]
    filename: str = Field(description="The row's PDF in the batch's ZIP (for a failed row: the one it would have been)")
    error: RowError | None


class BatchRowList(BaseModel):
    items: list[BatchRow]
    nextCursor: str | None = Field(
        description="Send it as `cursor` for the next rows. While the job runs it is never null "
        "(a short page means: no more rows yet, ask again later); null on an ended job's last page."
    )


class BatchDownload(BaseModel):
    downloadUrl: str
    expiresIn: int


class Preview(BaseModel):
    previewUrl: str
    expiresIn: int
    page: int
    sheet: int = Field(description="Zero-based sheet of the page shown")
    sheets: int = Field(description="How many sheets the page lays out as (its tables and flowing texts grown)")


class SheetPreview(BaseModel):
    previewUrl: str
    expiresIn: int
    labelsPerSheet: int
    labelWidth: float = Field(description="Points")
    labelHeight: float = Field(description="Points")


# One boolean per feature of api.plans, so a feature added there is documented here too.
Features = create_model("Features", **{feature: (bool, ...) for feature in FEATURES})


class Me(BaseModel):
    workspaceId: str
    workspaceName: str
    plan: str
    features: Features
    credits: int
    webhookSecret: str = Field(description="Keys the HMAC-SHA256 in Docbench-Signature of this workspace's webhooks")


class WebhookSecret(BaseModel):
    webhookSecret: str = Field(
        description="The workspace's new webhook secret: every webhook sent from now on is signed with it, retries "
        "of earlier events included; the previous secret signs nothing any more"
    )


class SigningCertificate(BaseModel):
    """The public part of a workspace's signing certificate (extensions.md 9)."""

    subject: str = Field(description="The certificate's subject, as an RFC 4514 string")
    issuer: str = Field(description="Who issued it, as an RFC 4514 string")
    notBefore: str = Field(description="Valid from (UTC)")
    notAfter: str = Field(description="Valid until (UTC); signing is refused afterwards")


class SigningCertificateDeleted(BaseModel):
    deleted: Literal[True]


class FontEntry(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    id: str
    font_class: Literal["sans", "serif", "display", "handwriting"] = Field(alias="class")
    source: Literal["google", "bundled"]
    weights: list[int]
    tags: list[str] = []
    scripts: list[str] = Field(default=[], description="ISO 15924 codes the family covers (Latn, Arab, Hans, …)")


class FontList(BaseModel):
    fonts: list[FontEntry]


class SheetPublished(BaseModel):
    """A preset's figures as its manufacturer publishes them, in their unit."""

    unit: Literal["mm", "in"]
    labelWidth: float
    labelHeight: float
    marginTop: float
    marginLeft: float
    pitchX: float = Field(description="Label width plus the gap between columns")
    pitchY: float = Field(description="Label height plus the gap between rows")


class SheetEntry(BaseModel):
    """A label-sheet preset (extensions.md 14); the lengths outside `published` are in points."""

    name: str = Field(description="What a batch's sheet.preset takes")
    brand: str
    description: str
    paper: PaperSize
    columns: int
    rows: int
    labelsPerSheet: int
    published: SheetPublished
    paperWidth: float
    paperHeight: float
    labelWidth: float
    labelHeight: float
    marginTop: float
    marginLeft: float
    gapX: float
    gapY: float


class SheetList(BaseModel):
    sheets: list[SheetEntry]


class VariableInfo(BaseModel):
    """One variable of a design (extensions.md 5): a bound element's or a text field's."""

    name: str
    kind: VariableKind
    accepts: str = Field(description="What a value must be")
    sample: Any = Field(description="The design-time value: the bound element's content, or the field's sample")
    elements: list[str] = Field(description="The names of the elements the variable fills")
    readBy: list[str] = Field(
        default_factory=list,
        description="The names of the elements whose expressions read it: computed columns, "
        "footers, texts, {= …} fields and showIf expressions",
    )


class VariableList(BaseModel):
    variables: list[VariableInfo]


class ActionCatalogEntry(BaseModel):
    name: str
    description: str
    args: dict[str, Any]


class ActionCatalog(BaseModel):
    actions: list[ActionCatalogEntry]


class Health(BaseModel):
    status: Literal["ok"]
    schemaVersion: int


class ErrorBody(BaseModel):
    code: str
    message: str
