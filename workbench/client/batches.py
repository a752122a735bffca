"""Many PDFs from many rows: batches of at most the API's limit, followed to the end, written out.

Rows go to `submit_batch` in chunks (the API takes 1-100 rows a batch), every chunk is
submitted before any is awaited, so the back-end works on them together; each chunk's
ZIP is fetched when it ends and its PDFs renamed into one numbering for the whole run
(`row-0001.pdf` is the data's first row, whatever chunk it went in). Failed rows are
read from each ZIP's `errors.json` and reported by their position in the data.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotated_types import MaxLen

import engine
from api.errors import ApiError
from api.jobs.runner import ERRORS_FILE, errors_document, row_name
from api.models import JOB_ENDED, BatchBody, DesignInfo

from . import rows as row_values
from .api import Client
from .progress import follow

if TYPE_CHECKING:
    import pandas

CHUNK_ROWS = next(m.max_length for m in BatchBody.model_fields["rows"].metadata if isinstance(m, MaxLen))


@dataclass
class BatchResult:
    """What a run produced: `failures` is a DataFrame of row position -> file, reason."""

    total: int
    failures: pandas.DataFrame
    out: Path | None = None
    files: list[Path] = field(default_factory=list)  # PDFs written to a folder
    pdfs: dict[int, bytes] = field(default_factory=dict)  # row position -> PDF, when there was no `out`
    jobs: list[str] = field(default_factory=list)
    # merge=True (extensions.md 12): one PDF of every successful row, an outline entry per row;
    # None when no row succeeded. Also written to `merged_path` when there was an `out`.
    merged: bytes | None = None
    merged_path: Path | None = None
    # sheet=… (extensions.md 14): the PDF of label sheets, one label per successful row; None when
    # no row succeeded. Also written to `sheets_path` when there was an `out`.
    sheets: bytes | None = None
    sheets_path: Path | None = None

    @property
    def completed(self) -> int:
        return self.total - len(self.failures)

    @property
    def ok(self) -> bool:
        return self.failures.empty

    def __repr__(self) -> str:
        where = f" in {self.out}" if self.out else ""
        failed = f"; {len(self.failures)} failed (see .failures)" if len(self.failures) else ""
        return f"<BatchResult {self.completed} of {self.total} PDFs{where}{failed}>"


class _Output:
    """Where PDFs go: a folder, one ZIP, or memory. Names run over the whole data."""

    def __init__(self, out: str | Path | None, total: int):
        self.width = max(4, len(str(total)))
        self.path = Path(out) if out is not None else None
        self.is_zip = self.path is not None and self.path.suffix.lower() == ".zip"
        self.files: list[Path] = []
        self.pdfs: dict[int, bytes] = {}
        self._archive: zipfile.ZipFile | None = None
        if self.path is not None:
            target = self.path.parent if self.is_zip else self.path
            target.mkdir(parents=True, exist_ok=True)
            if self.is_zip:
                # PDFs are compressed already: storing them is as small and much faster.
                self._archive = zipfile.ZipFile(self.path, "w", compression=zipfile.ZIP_STORED)

    def name(self, position: int) -> str:
        return row_name(position, self.width)

    def write(self, position: int, pdf: bytes) -> None:
        if self._archive is not None:
            self._archive.writestr(self.name(position), pdf)
        elif self.path is not None:
            target = self.path / self.name(position)
            target.write_bytes(pdf)
            self.files.append(target)
        else:
            self.pdfs[position] = pdf

    def close(self, failures: dict[int, str]) -> None:
        """errors.json, in the API's shape, beside the PDFs when rows failed."""
        listing = [{"row": p + 1, "file": self.name(p), "error": failures[p]} for p in sorted(failures)]
        errors = errors_document(listing)
        if self._archive is not None:
            if failures:
                self._archive.writestr(ERRORS_FILE, errors)
            self._archive.close()
        elif self.path is not None:
            stale = self.path / ERRORS_FILE
            if failures:
                stale.write_text(errors, encoding="utf-8")
            elif stale.exists():
                stale.unlink()  # from an earlier run into the same folder


@dataclass
class _Job:
    id: str
    start: int  # the data's position of the chunk's first row
    size: int
    done: int = 0  # rows finished, as last polled
    collected: bool = False
    rows_kept: bool = True  # its download is the ZIP of rows (false: a label-sheet batch without keepRows)
    sheet: bool = False  # a label-sheet batch: its ZIP of rows is download?rows=true


def _progress_bar(total: int, label: str, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=label, unit="row", disable=not enabled, leave=True)


class BatchRefused(ApiError):
    """A chunk was refused at submission (a bad value, too few credits): the service's code
    and message, its `rows[i]` turned into the data's positions. The chunks before it were
    accepted and have run: `result` holds what they made."""

    def __init__(self, error: ApiError, start: int, result: BatchResult):
        message = re.sub(r"\brows\[(\d+)\]", lambda m: f"row {start + int(m.group(1))}", error.message)
        if start:
            where = f" (in {result.out})" if result.out else " (in this error's .result)"
            message += f"; rows 0-{start - 1} were generated{where}, nothing from row {start} on was submitted"
        super().__init__(error.code, message)
        self.result = result


def generate_from_data(
    client: Client,
    design: DesignInfo,
    data: Any,
    columns: Mapping[str, Any] | None = None,
    *,
    profile: str | None = None,
    out: str | Path | None = None,
    progress: bool = True,
    timeout: float = 600,
    options: Mapping[str, Any] | None = None,
    row_options: list[dict[str, Any]] | None = None,
    merge: bool = False,
    sheet: str | Mapping[str, Any] | None = None,
    keep_rows: bool = False,
) -> BatchResult:
    """One PDF per row of a DataFrame or list of dicts, its columns filling the design's variables
    (`workbench.client.rows.rows_for`), in batches of at most the API's limit (`generate_many`)."""
    tree = engine.DesignTree.model_validate(client.call("get_design_tree", {"designId": design.designId}))
    values = row_values.rows_for(data, tree, columns)  # refuses before anything is submitted
    return generate_many(
        client,
        design.designId,
        values,
        profile=profile,
        out=out,
        progress=progress,
        label=design.name,
        timeout=timeout,
        options=options,
        row_options=row_options,
        merge=merge,
        sheet=sheet,
        keep_rows=keep_rows,
    )


def generate_many(
    client: Client,
    design_id: str,
    rows: list[dict[str, Any]],
    *,
    profile: str | None = None,
    out: str | Path | None = None,
    progress: bool = True,
    label: str | None = None,
    timeout: float = 600,
    interval: float = 0.2,
    options: Mapping[str, Any] | None = None,
    row_options: list[dict[str, Any]] | None = None,
    merge: bool = False,
    sheet: str | Mapping[str, Any] | None = None,
    keep_rows: bool = False,
) -> BatchResult:
    """Generate one PDF per row; `timeout` is how long to wait without any row finishing.
    `options` are body keys every batch carries (extensions.md 9: attachments, watermark…),
    `row_options` one entry per row (its own e-invoice or files: the API's rowOptions).
    `merge`: also the server's one merged PDF of the rows (`result.merged`, and beside `out`:
    a folder's `merged.pdf`, a ZIP's name with `.pdf`); the server merges one batch, so at most
    100 rows. `sheet` (a preset's name, "L7160", or the API's sheet object) prints the rows on
    label sheets instead (`result.sheets`, and beside `out`: a folder's `sheets.pdf`, a ZIP's name
    with `.pdf`), at most 100 rows; `keep_rows=True` also gives each row's PDF as without it."""
    if row_options is not None and len(row_options) != len(rows):
        raise ValueError(f"{len(row_options)} per-row options for {len(rows)} rows: give one per row")
    if merge and len(rows) > CHUNK_ROWS:
        raise ValueError(
            f"merge=True makes the server's merged PDF of one batch, at most {CHUNK_ROWS} rows ({len(rows)} given): "
            "split the data, or merge the PDFs of result.pdfs yourself"
        )
    sheet_body = {"preset": sheet} if isinstance(sheet, str) else dict(sheet) if sheet is not None else None
    if sheet_body is not None and len(rows) > CHUNK_ROWS:
        raise ValueError(
            f"sheet= prints one batch on label sheets, at most {CHUNK_ROWS} rows ({len(rows)} given): split the data"
        )
    output = _Output(out, len(rows))
    failures: dict[int, str] = {}
    jobs: list[_Job] = []
    refused: tuple[ApiError, int] | None = None
    bar = _progress_bar(len(rows), label or design_id, progress)
    try:
        for start in range(0, len(rows), CHUNK_ROWS):
            body: dict[str, Any] = {"rows": rows[start : start + CHUNK_ROWS], **(options or {})}
            if row_options is not None:
                body["rowOptions"] = row_options[start : start + CHUNK_ROWS]
            if profile is not None:
                body["pdfProfile"] = profile
            if merge:
                body["merge"] = True
            if sheet_body is not None:
                body["sheet"] = sheet_body
                if keep_rows:
                    body["keepRows"] = True
            try:
                submitted = client.call("submit_batch", {"designId": design_id}, body)
            except ApiError as exc:
                refused = (exc, start)
                break
            job = _Job(submitted["jobId"], start, len(body["rows"]))
            job.sheet, job.rows_kept = sheet_body is not None, sheet_body is None or keep_rows
            jobs.append(job)
        _follow(client, jobs, output, failures, bar, timeout, interval)
    finally:
        bar.close()
        output.close(failures)
    result = BatchResult(
        total=sum(job.size for job in jobs),
        failures=_failures_frame(failures, output),
        out=output.path,
        files=output.files,
        pdfs=output.pdfs,
        jobs=[job.id for job in jobs],
    )
    if merge and jobs:
        _collect_merged(client, jobs[0].id, result)
    if sheet_body is not None and jobs:
        _collect_sheets(client, jobs[0].id, result)
    if refused is not None:
        raise BatchRefused(*refused, result)
    return result


def _collect_merged(client: Client, job_id: str, result: BatchResult) -> None:
    """The job's merged PDF into the result (and beside its `out`); none when no row succeeded."""
    try:
        url = client.call("get_batch_download", {"jobId": job_id}, query={"merged": True})["downloadUrl"]
    except ApiError as exc:
        if exc.code != "NOT_FOUND":
            raise
        return  # no row succeeded: result.failures says why
    result.merged = client.fetch(url)
    if result.out is not None:
        is_zip = result.out.suffix.lower() == ".zip"
        result.merged_path = result.out.with_suffix(".pdf") if is_zip else result.out / "merged.pdf"
        result.merged_path.write_bytes(result.merged)


def _collect_sheets(client: Client, job_id: str, result: BatchResult) -> None:
    """The job's PDF of label sheets into the result (and beside its `out`); none when no row succeeded."""
    try:
        url = client.call("get_batch_download", {"jobId": job_id})["downloadUrl"]
    except ApiError as exc:
        if exc.code != "NOT_FOUND":
            raise
        return  # no row succeeded: result.failures says why
    result.sheets = client.fetch(url)
    if result.out is not None:
        is_zip = result.out.suffix.lower() == ".zip"
        result.sheets_path = result.out.with_suffix(".pdf") if is_zip else result.out / "sheets.pdf"
        result.sheets_path.write_bytes(result.sheets)


def _failures_frame(failures: dict[int, str], output: _Output) -> pandas.DataFrame:
    import pandas

    positions = sorted(failures)
    return pandas.DataFrame(
        {"file": [output.name(p) for p in positions], "reason": [failures[p] for p in positions]},
        index=pandas.Index(positions, name="row", dtype="int64"),
    )


def _follow(
    client: Client,
    jobs: list[_Job],
    output: _Output,
    failures: dict[int, str],
    bar: Any,
    timeout: float,
    interval: float,
) -> None:
    """Follow the jobs until every one ended (progress.follow), collecting each as it ends."""
    by_id = {job.id: job for job in jobs}

    def on_state(job_id: str, state: dict) -> None:
        job = by_id[job_id]
        done = state["completed"] + state["failed"]
        if done > job.done:
            bar.update(done - job.done)
            job.done = done
        if state["status"] in JOB_ENDED:
            _collect(client, job, output, failures)
            if failures:
                bar.set_postfix(failed=len(failures))

    follow(client, [job.id for job in jobs], on_state, interval=interval, timeout=timeout)


def _collect(client: Client, job: _Job, output: _Output, failures: dict[int, str]) -> None:
    """Fetch an ended job's ZIP: its PDFs into the output, its failed rows into `failures`. A
    label-sheet batch that kept no rows has only its failed rows to collect (GET /batches/:id/rows)."""
    if not job.rows_kept:
        cursor = None
        while True:
            query = {"status": "failed", "limit": 200, **({"cursor": cursor} if cursor else {})}
            page = client.call("get_batch_rows", {"jobId": job.id}, query=query)
            for item in page["items"]:
                failures[job.start + item["row"] - 1] = item["error"]["message"]
            cursor = page["nextCursor"]
            if cursor is None:
                break
        job.collected = True
        return
    query = {"rows": True} if job.sheet else None
    url = client.call("get_batch_download", {"jobId": job.id}, query=query)["downloadUrl"]
    with zipfile.ZipFile(io.BytesIO(client.fetch(url))) as archive:
        names = set(archive.namelist())
        reported = {}
        if ERRORS_FILE in names:
            reported = {entry["row"]: entry["error"] for entry in json.loads(archive.read(ERRORS_FILE))["failed"]}
        for index in range(job.size):
            name = row_name(index)
            if name in names:
                output.write(job.start + index, archive.read(name))
            else:
                failures[job.start + index] = reported.get(index + 1) or "no result was reported for this row"
    job.collected = True
