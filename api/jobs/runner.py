"""Rendering a batch's rows and packing its ZIP: the work both back-ends share.

Runs in worker processes (in-process pool or `docbench worker`), so it touches only
the engine and the blob store, never DuckDB: a job carries everything it needs.
"""

from __future__ import annotations

import gc
import hashlib
import io
import json
import logging
import signal
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.exceptions import InvalidTag
from pydantic import BaseModel, field_serializer

import engine
from engine.design.names import STORED
from engine.errors import EngineError, LimitExceeded, RenderError
from engine.finishing.label_sheets import LabelSheet
from engine.render.pictures import EXTENSIONS as PICTURE_EXTENSIONS
from engine.render.pictures import PageOutput, page_pictures, pictures_file

from ..blobs import copy_to, open_blobs
from ..errors import ApiError
from ..models import RowOptions
from ..renderers import RenderLimits, check_pdf_size, generation_date
from ..sealing import PasswordSeal, SealedCertificate, SigningMaterial, open_sealed

if TYPE_CHECKING:
    from engine.finishing.signing import KeyCache

log = logging.getLogger("docbench.jobs")


def tune_for_rendering() -> None:
    """Process setting for processes that render all day (server, workers, pool).

    ReportLab allocates many short-lived objects per page, so CPython's default
    thresholds run a collection every few hundred allocations, each rescanning the
    large heap of a process that has imported everything; raising them measured
    11.0 -> 9.8 ms per certificate. Reference counting still frees almost everything
    at once; cycles are collected, only less often.
    """
    gc.collect()
    gc.set_threshold(20_000, 20, 20)


class JobPayload(BaseModel):
    """Everything a worker needs to render a batch, with no database at hand."""

    job_id: str
    tree: str  # the design tree's JSON, as it was when the batch was submitted
    rows: list[dict[str, Any]]
    profile: str
    images: dict[str, str]  # image ref -> blob key of the bytes to draw
    finishing: engine.Finishing | None = None  # extensions.md 9: what every row's PDF gets
    # `sign: true`: the workspace's certificate as the store keeps it, sealed with the servers'
    # secret (this payload is stored and queued in clear); whoever renders opens it with --secret.
    signing: SealedCertificate | None = None
    row_options: list[RowOptions | None] | None = None  # rowOptions: a row's own files or e-invoice
    # `encryption`'s passwords, sealed like `signing` for this job (PasswordSeal) by `sealed`:
    # the stored and queued payload's `finishing` has no encryption; whoever renders opens it.
    sealed_encryption: str | None = None
    # extensions.md 12; stored beside the payload too (`delivery_json`), where reading it costs
    # neither the design nor the rows.
    output: PageOutput | None = None  # pictures of each row's pages instead of its PDF
    merge: bool = False  # also one PDF of every successful row (merged_ref names it)
    # extensions.md 14: one PDF of label sheets instead (sheets_ref names it); the rows' ZIP
    # holds their PDFs only with keep_rows (otherwise just errors.json, when a row failed).
    sheet: LabelSheet | None = None
    keep_rows: bool = False

    @field_serializer("sheet")
    def _sheet_as_given(self, sheet: LabelSheet | None) -> dict[str, Any] | None:
        # The keys given only: the request model's absent keys are None, which it does not take back.
        return sheet.model_dump(mode="json", exclude_none=True) if sheet is not None else None

    @classmethod
    def stored(cls, text: str | bytes) -> JobPayload:
        """A payload read back from the store or Redis (checked when its batch was accepted)."""
        return cls.model_validate_json(text, context=STORED)

    def sealed(self, secret: bytes) -> JobPayload:
        """This payload as it may be stored and queued: the document passwords sealed with the
        servers' secret, bound to the job (a sealed value copied to another job does not open)."""
        encryption = self.finishing.encryption if self.finishing is not None else None
        if self.finishing is None or encryption is None:
            return self
        sealed = PasswordSeal(secret).seal(encryption.model_dump_json().encode(), PasswordSeal.context(self.job_id))
        finishing = self.finishing.model_copy(update={"encryption": None})
        return self.model_copy(update={"finishing": finishing, "sealed_encryption": sealed})

    @property
    def needs_secret(self) -> bool:
        """Whether rendering its rows opens something sealed (a certificate, passwords)."""
        return self.signing is not None or self.sealed_encryption is not None

    def row_finishing(self, index: int, secret: bytes | None = None) -> engine.Finishing | None:
        """Row `index`'s options: the batch's with the row's own, the passwords opened with `secret`."""
        own = self.row_options[index] if self.row_options else None
        finishing = self.finishing
        if own is not None:
            finishing = (finishing or engine.Finishing()).for_row(own.attachments, own.eInvoice)
        if self.sealed_encryption is None:
            return finishing
        return (finishing or engine.Finishing()).model_copy(update={"encryption": self._opened_encryption(secret)})

    def _opened_encryption(self, secret: bytes | None) -> engine.Encryption:
        if secret is None:
            raise ApiError(
                "VALIDATION_ERROR",
                "encryption: this worker cannot open the batch's document passwords: start `docbench worker` "
                "with the servers' --secret (DOCBENCH_SECRET)",
            )
        try:
            opened = PasswordSeal(secret).open(self.sealed_encryption or "", PasswordSeal.context(self.job_id))
        except InvalidTag:
            raise ApiError(
                "VALIDATION_ERROR",
                "encryption: the batch's document passwords do not open with this worker's secret: start "
                "`docbench worker` with the servers' --secret (DOCBENCH_SECRET)",
            ) from None
        return engine.Encryption.model_validate_json(opened)

    def without_secrets(self) -> JobPayload:
        """This payload as an ended job keeps it: no sealed certificate (a DELETE of the
        certificate leaves no copy that opens) and no document passwords, sealed or not."""
        clear = self.finishing is not None and self.finishing.encryption is not None  # a payload from before sealing
        if self.signing is None and self.sealed_encryption is None and not clear:
            return self
        finishing = self.finishing.model_copy(update={"encryption": None}) if self.finishing else None
        return self.model_copy(update={"signing": None, "finishing": finishing, "sealed_encryption": None})

    def one_row(self, index: int) -> JobPayload:
        """This payload with only row `index` (as row 0): what crosses a pipe to render it."""
        own = [self.row_options[index]] if self.row_options else None
        return self.model_copy(update={"rows": [self.rows[index]], "row_options": own})


def delivery_json(payload: JobPayload) -> str | None:
    """What a batch delivers beyond a PDF per row, as stored beside its payload (the database's
    batch_jobs.delivery, the Redis job's `delivery` field); None when it delivers only PDFs."""
    if payload.output is None and not payload.merge and payload.sheet is None:
        return None
    output = payload.output.model_dump(mode="json") if payload.output is not None else None
    members: dict[str, Any] = {"output": output, "merge": payload.merge}
    if payload.sheet is not None:
        members |= {"sheet": payload.sheet.model_dump(mode="json", exclude_none=True), "keepRows": payload.keep_rows}
    return json.dumps(members)


def delivery(stored: str | bytes | None) -> tuple[PageOutput | None, bool]:
    """`output` and `merge` back from `delivery_json`'s text (None or empty: PDFs, no merge)."""
    if not stored:
        return None, False
    members = json.loads(stored)
    output = members.get("output")
    return (PageOutput.model_validate(output) if output else None), bool(members.get("merge"))


def delivered_sheet(stored: str | bytes | None) -> tuple[LabelSheet | None, bool]:
    """The batch's label `sheet` and `keepRows` back from `delivery_json`'s text (None: no sheet)."""
    if not stored:
        return None, False
    members = json.loads(stored)
    sheet = members.get("sheet")
    return (LabelSheet.model_validate(sheet) if sheet else None), bool(members.get("keepRows"))


class RowResult(BaseModel):
    index: int
    ok: bool
    blob_key: str | None = None
    error: str | None = None
    seconds: float | None = None  # the render's time where it ran, for the web process's metrics


@lru_cache(maxsize=8)
def parsed_tree(tree_json: str) -> engine.DesignTree:
    """Parsed trees of the last few designs: a batch's rows and a design's previews come in runs."""
    return engine.DesignTree.model_validate_json(tree_json)


def render_row(payload: JobPayload, index: int, blob_root: str | Path, secret: bytes | None = None) -> RowResult:
    """Render one row into the blob store (`blob_root`: its location, a directory or s3://…);
    a failing row is a result, not an exception. The result carries the time it took here.
    `secret` (the servers' --secret) opens the sealed certificate and passwords of a batch
    that signs or encrypts."""
    started = time.perf_counter()
    result = _render_row(payload, index, blob_root, secret)
    result.seconds = time.perf_counter() - started
    return result


def _render_row(payload: JobPayload, index: int, blob_root: str | Path, secret: bytes | None) -> RowResult:
    blobs = open_blobs(str(blob_root))

    def resolve(ref: str) -> bytes:
        if ref not in payload.images:
            # The service leaves out row refs it did not find in the workspace: this row fails alone.
            names = ", ".join(f"'{name}'" for name, value in payload.rows[index].items() if value == ref)
            where = f"variable {names}: " if names else ""
            raise RenderError(f"{where}no image {ref} in this workspace (upload it first, then pass its ref)")
        return blobs.get(payload.images[ref])

    limits = RenderLimits.from_environment()
    try:
        material = _opened(payload.signing, secret) if payload.signing is not None else None
        finishing = payload.row_finishing(index, secret)
        with _cpu_deadline(limits.render_seconds):
            pdf = engine.render_pdf(
                parsed_tree(payload.tree),
                payload.rows[index],
                resolve,
                payload.profile,  # type: ignore[arg-type]
                max_sheets=limits.max_pages,
                finishing=finishing,
                today=generation_date(),
            )
            pdf = signed(pdf, payload.profile, finishing, material)
            check_pdf_size(pdf, limits.max_pdf_bytes)
            data, content_type = delivered(pdf, payload.output, limits.max_pdf_bytes)
    except _RowDeadline:
        return RowResult(
            index=index,
            ok=False,
            error=f"this row took longer than the {limits.render_seconds:g} s of CPU time a render may use",
        )
    except EngineError as exc:
        return RowResult(index=index, ok=False, error=exc.message)
    except ApiError as exc:  # the sealed certificate or passwords did not open here
        return RowResult(index=index, ok=False, error=exc.message)
    except Exception:  # a bug must not take the batch down with it
        log.exception("batch %s row %d failed unexpectedly", payload.job_id, index)
        return RowResult(index=index, ok=False, error="internal error while rendering this row")
    return RowResult(index=index, ok=True, blob_key=blobs.put(data, content_type))


def delivered(pdf: bytes, output: PageOutput | None, max_bytes: int) -> tuple[bytes, str]:
    """What a render delivers (extensions.md 12): the PDF, or its pages' pictures (one page: the
    picture; more: a ZIP of page-001.png…), bounded as a PDF is. (bytes, content type)."""
    if output is None or not output.pictures:
        return pdf, "application/pdf"
    data, content_type = pictures_file(page_pictures(pdf, output), output.format)
    if len(data) > max_bytes:
        raise LimitExceeded(
            f"the pictures would be {len(data) / 1e6:.1f} MB; a document is limited to {max_bytes / 1e6:g} MB: "
            'use a lower dpi, format "jpeg", or split the data over several documents'
        )
    return data, content_type


def _opened(sealed: SealedCertificate, secret: bytes | None) -> SigningMaterial:
    if secret is None:
        raise ApiError(
            "VALIDATION_ERROR",
            "sign: this worker cannot open the signing certificate: start `docbench worker` with the servers' "
            "--secret (DOCBENCH_SECRET)",
        )
    return open_sealed(secret, sealed)


_signing_keys: KeyCache | None = None  # this process's opened keys, by certificate version


def signed(pdf: bytes, profile: str, finishing: engine.Finishing | None, material: SigningMaterial | None) -> bytes:
    """The PDF signed last (extensions.md 9: PAdES B-B) when `material` is given, inside its
    encryption if it has one; the key is opened once per process and certificate version."""
    global _signing_keys
    if material is None:
        return pdf
    from engine.finishing.signing import KeyCache, sign_pdf

    if _signing_keys is None:
        _signing_keys = KeyCache()
    key = _signing_keys.get(material.version, material.pkcs12, material.password)
    encryption = finishing.encryption if finishing is not None else None
    return sign_pdf(pdf, key, profile, password=encryption.owner_password if encryption is not None else None)


class _RowDeadline(BaseException):
    """Raised in the rendering thread when a row has used up its CPU time (not an Exception:
    nothing in the engine may catch it)."""


@contextmanager
def _cpu_deadline(seconds: float) -> Iterator[None]:
    """Stop a row after `seconds` of CPU time. Batch workers render on their main thread (pool
    processes, RQ's work horse); a virtual-time timer leaves RQ's own SIGALRM job timeout alone."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise _RowDeadline()

    previous = signal.signal(signal.SIGVTALRM, expire)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds, 1.0)  # fires again each second until cleared
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


# The batch ZIP's layout (spec 4.13), defined here and read by every client of it
# (workbench.client.batches writes the same layout for runs of any size).
ERRORS_FILE = "errors.json"


def row_name(index: int, width: int = 4, output: PageOutput | None = None) -> str:
    """The file of row `index` (from 0): row-0001.pdf…; wider numbers for longer runs; a
    picture batch's row-0001.png (or .jpg) for a row of one page (extensions.md 12)."""
    extension = PICTURE_EXTENSIONS[output.format] if output is not None and output.pictures else "pdf"
    return f"row-{index + 1:0{width}d}.{extension}"


def row_entry(index: int, blob_key: str | None, output: PageOutput | None = None) -> str:
    """Where a row is in the batch's ZIP: its file (row_name), or for a picture batch's row of
    several pages the folder of their pictures, `row-0001/` (page-001.png… inside)."""
    if blob_key is not None and blob_key.endswith(".zip"):
        return row_name(index).removesuffix(".pdf") + "/"
    return row_name(index, output=output)


def errors_document(failures: list[dict[str, Any]]) -> str:
    """errors.json: {"failed": [{"row": n from 1, "file": its would-be PDF, "error": why}, …]}."""
    return json.dumps({"failed": failures}, indent=2)


def assemble_zip(
    blob_root: str | Path, results: list[RowResult], output: PageOutput | None = None, rows: bool = True
) -> str:
    """The batch's ZIP: row-0001.pdf… for rows that succeeded, errors.json when some failed. A
    picture batch (`output`) has row-0001.png…, or a folder row-0001/ of page-001.png… for a
    row of several pages. Without `rows` (a label-sheet batch that does not keep its rows) only
    errors.json: the job still ends on a ZIP, its rows' PDFs are on the sheets.

    Written to a temporary file, each row's PDF copied in chunks, then stored from that file:
    a batch's ZIP is never whole in memory (it may be hundreds of megabytes)."""
    blobs = open_blobs(str(blob_root))
    failures = []
    with tempfile.TemporaryFile() as spool:
        # PDFs are compressed already: storing them is as small and much faster.
        with zipfile.ZipFile(spool, "w", compression=zipfile.ZIP_STORED) as archive:
            for result in sorted(results, key=lambda r: r.index):
                name = row_entry(result.index, result.blob_key if result.ok else None, output)
                if result.ok and not rows:
                    continue
                if result.ok and result.blob_key and name.endswith("/"):
                    # A row's pictures (its own ZIP, bounded as a PDF is) go in its folder.
                    with zipfile.ZipFile(io.BytesIO(blobs.get(result.blob_key))) as pages:
                        for page in pages.namelist():
                            archive.writestr(name + page, pages.read(page))
                elif result.ok and result.blob_key:
                    with archive.open(name, "w") as entry:  # a PDF is far below 2 GiB
                        copy_to(blobs, result.blob_key, entry)
                else:
                    failures.append({"row": result.index + 1, "file": name, "error": result.error})
            if failures:
                archive.writestr(ERRORS_FILE, errors_document(failures))
        spool.seek(0)
        return blobs.put_file(spool, "application/zip")


def merged_ref(job_id: str) -> str:
    """The blob ref (api.blobs) that names a batch's merged PDF, written by whoever writes its ZIP."""
    return hashlib.sha256(f"batch-merged:{job_id}".encode()).hexdigest()


def assemble_merged(blob_root: str | Path, job_id: str, results: list[RowResult], max_bytes: int) -> str | None:
    """A `merge: true` batch's one PDF (extensions.md 12): every successful row's pages in row
    order, an outline entry per row named by its file in the ZIP; named by merged_ref(job_id).
    None, and no merged PDF, when no row succeeded or the rows together pass the size of a
    document (`max_bytes`): a download then says why."""
    from engine.pdf.merge import merged_pdf

    blobs = open_blobs(str(blob_root))
    rows, size = [], 0
    for result in sorted(results, key=lambda r: r.index):
        if not (result.ok and result.blob_key and result.blob_key.endswith(".pdf")):
            continue
        pdf = blobs.get(result.blob_key)
        size += len(pdf)
        if size > max_bytes:  # stopped before merging: what is held stays within the limit
            log.warning("batch %s: its rows' PDFs pass %d bytes together; no merged PDF", job_id, max_bytes)
            return None
        rows.append((row_name(result.index), pdf))
    if not rows:
        return None
    try:
        merged = merged_pdf(rows, max_bytes)
    except LimitExceeded:
        log.warning("batch %s: the merged PDF would pass %d bytes; none is made", job_id, max_bytes)
        return None
    key = blobs.put(merged, "application/pdf")
    blobs.put_ref(merged_ref(job_id), key)
    return key


def sheets_ref(job_id: str) -> str:
    """The blob ref (api.blobs) that names a label-sheet batch's PDF of sheets (extensions.md 14)."""
    return hashlib.sha256(f"batch-sheets:{job_id}".encode()).hexdigest()


def assemble_sheets(
    blob_root: str | Path, job_id: str, results: list[RowResult], sheet: LabelSheet, max_bytes: int
) -> str | None:
    """A `sheet` batch's one PDF (extensions.md 14): every successful row's pages in row order,
    each in the next cell of the sheet; named by sheets_ref(job_id). None when no row succeeded
    or the sheets would pass the size of a document (`max_bytes`): a download then says why. A
    failed row leaves no gap: the next row takes its cell (GET /batches/:jobId/rows says which)."""
    from engine.finishing.label_sheets import label_sheets

    blobs = open_blobs(str(blob_root))
    pdfs, size = [], 0
    for result in sorted(results, key=lambda r: r.index):
        if not (result.ok and result.blob_key and result.blob_key.endswith(".pdf")):
            continue
        pdf = blobs.get(result.blob_key)
        size += len(pdf)
        # The sheets come out smaller than the rows together (one file's overhead, not one per
        # row): the rows are bounded at twice a document before placing, the sheets at one.
        if size > 2 * max_bytes:
            log.warning("batch %s: its rows' PDFs pass %d bytes together; no label sheets", job_id, 2 * max_bytes)
            return None
        pdfs.append(pdf)
    if not pdfs:
        return None
    try:
        data = label_sheets(pdfs, sheet.geometry(), bool(sheet.cutMarks), max_bytes)
    except LimitExceeded:
        log.warning("batch %s: the label sheets would pass %d bytes; none are made", job_id, max_bytes)
        return None
    key = blobs.put(data, "application/pdf")
    blobs.put_ref(sheets_ref(job_id), key)
    return key
