"""A render process: `python -m api.renderers.worker FD PARENT_PID [MEMORY_BYTES]`.

Reads `(task, args, seconds)` from the pipe on FD, answers `(status, value)`:
`ok` with the task's result, `refused` with a message for the client (the input was
refused: an EngineError, an image we do not accept), `memory` when the task ran out of
the address space it may use (the process then exits: its heap may be in any state),
`unavailable` when the server cannot do it now (its disk is full: a 503 the client may send
again), `error` for a bug (logged here with its traceback, never sent to a client).

It touches only the engine and the blob store, never the database.
"""

from __future__ import annotations

import logging
import math
import os
import resource
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from ..errors import ApiError
from .pool import MEMORY_EXIT, STARTED

log = logging.getLogger("docbench.renderers")
RENDER_NICENESS = 5  # added to the server's: below the web process when a core is contended


def render_pdf(
    tree_json: str,
    values: dict,
    profile: str,
    images: dict[str, str],
    blob_root: str,
    max_pages: int,
    max_bytes: int,
    finishing=None,  # noqa: ANN001 (an engine.Finishing, imported with the engine)
    signing=None,  # noqa: ANN001 (an api.sealing.SigningMaterial)
    output=None,  # noqa: ANN001 (an engine.render.pictures.PageOutput)
) -> tuple[str, int]:
    """A generation's PDF, or the pictures of its pages (`output`), written to the blob store:
    (blob key, bytes)."""
    import engine

    from ..blobs import open_blobs
    from ..jobs.runner import delivered, parsed_tree, signed
    from . import check_pdf_size, generation_date

    blobs = open_blobs(blob_root)
    tree = parsed_tree(tree_json)
    resolver = _resolver(blobs, images)
    pdf = engine.render_pdf(
        tree,
        values,
        resolver,
        profile,
        max_sheets=max_pages,
        finishing=finishing,
        today=generation_date(),  # type: ignore[arg-type]
    )
    pdf = signed(pdf, profile, finishing, signing)
    check_pdf_size(pdf, max_bytes)
    data, content_type = delivered(pdf, output, max_bytes)
    # On disk before the answer: a power cut must not keep the record and charge and lose the file.
    return blobs.put(data, content_type, durable=True), len(data)


def render_png(
    tree_json: str,
    page: int,
    dpi: float,
    images: dict[str, str],
    blob_root: str,
    values: dict | None = None,
    watermark: dict | None = None,
    sheet: int = 0,
) -> tuple[str, int]:
    """A preview of one sheet of a page (with values and a watermark, if given), written to the blob
    store: (its blob key, how many sheets the page lays out as)."""
    import engine

    from ..blobs import open_blobs
    from ..jobs.runner import parsed_tree
    from . import generation_date

    blobs = open_blobs(blob_root)
    mark = engine.Watermark.model_validate(watermark) if watermark is not None else None
    tree = parsed_tree(tree_json)
    png, sheets = engine.render_sheet_png(
        tree,
        page,
        _resolver(blobs, images),
        dpi=dpi,
        values=values,
        watermark=mark,
        today=generation_date(),
        sheet=sheet,
    )
    return blobs.put(png, "image/png"), sheets


def render_label_sheet_png(tree_json: str, images: dict[str, str], blob_root: str, sheet, dpi: float):  # noqa: ANN001, ANN201
    """One label sheet (extensions.md 14) filled with the design drawn with its design-time
    content, as a PNG in the blob store: what a batch on that sheet prints, at a glance."""
    import math

    import engine
    from engine.finishing.label_sheets import label_sheets
    from engine.render.document import rasterize

    from ..blobs import open_blobs
    from ..jobs.runner import parsed_tree
    from . import generation_date

    blobs = open_blobs(blob_root)
    tree = parsed_tree(tree_json)
    pdf = engine.render_pdf(tree, {}, _resolver(blobs, images), today=generation_date())
    geometry = sheet.geometry()
    copies = math.ceil(geometry.cells / max(1, len(tree.pages)))  # a label a cell, the first sheet full
    sheets = label_sheets([pdf] * copies, geometry, bool(sheet.cutMarks))
    return blobs.put(rasterize(sheets, 0, dpi), "image/png")


def process_image(data: bytes, max_bytes: int):  # noqa: ANN201
    """An uploaded image checked, rasterised (SVG) and thumbnailed: an api.images.processing.ProcessedImage."""
    from ..images.processing import process_image as process

    return process(data, max_bytes)


def process_image_file(path: str, max_bytes: int):  # noqa: ANN201
    """An upload spooled to disk checked as process_image checks bytes. The file is read here,
    once (the engine's checks take bytes), and none of it goes back through the pipe: the
    web process stores the original from the file (api.service.media)."""
    from dataclasses import replace
    from pathlib import Path

    from ..images.processing import process_image as process

    image = process(Path(path).read_bytes(), max_bytes)
    return replace(image, original=b"", render=b"" if image.render is image.original else image.render)


def design_from_pdf(key: str, ref: str, title: str, blob_root: str) -> tuple[str, list[str]]:
    """The design (its tree as JSON) of an uploaded PDF (extensions.md 12, basePdf), and what of
    its form was left out: read here, not in the web process, as every upload is (its bytes were
    checked here when uploaded, but its form is read only now)."""
    from engine.design.base_pdf import import_pdf
    from engine.media.pdf_pages import PdfPageError

    from ..blobs import open_blobs

    try:
        made = import_pdf(open_blobs(blob_root).get(key), ref, title)
        return made.tree.model_dump_json(), made.notes
    except PdfPageError as exc:
        from engine.errors import EngineError

        raise EngineError(f"basePdf: {exc}") from None


def open_certificate(data: bytes, password: str | None, at):  # noqa: ANN001, ANN201 (an aware datetime)
    """An uploaded PKCS#12 opened and checked as signing will open it (engine.finishing.signing, its work
    bounded first): (engine.finishing.signing.CertificateInfo, the key's type). Opened here, not in the
    web process: OpenSSL's key derivations hold the interpreter lock while they run."""
    from engine.finishing.signing import SigningKey

    key = SigningKey.from_pkcs12(data, password, at=at)
    return key.info, key.key_type


def render_row(payload, blob_root: str, secret: bytes | None = None):  # noqa: ANN001, ANN201
    """A batch's row (a JobPayload holding that one row) into the blob store: an api.jobs.runner.RowResult
    (a row that fails is a result, not an error; the caller puts its index back). `secret` opens
    the sealed certificate of a batch that signs."""
    from ..jobs.runner import render_row as render

    return render(payload, 0, blob_root, secret)  # a location: a directory or s3://bucket/prefix


def merge_rows(blob_root: str, job_id: str, rows, max_bytes: int) -> str | None:  # noqa: ANN001
    """A `merge: true` batch's one PDF from its rows' (api.jobs.runner.RowResult), into the blob store."""
    from ..jobs.runner import assemble_merged

    return assemble_merged(blob_root, job_id, rows, max_bytes)


def sheet_rows(blob_root: str, job_id: str, rows, sheet, max_bytes: int) -> str | None:  # noqa: ANN001
    """A `sheet` batch's PDF of label sheets from its rows' (api.jobs.runner.RowResult), into the blob store."""
    from ..jobs.runner import assemble_sheets

    return assemble_sheets(blob_root, job_id, rows, sheet, max_bytes)


TASKS = {
    "render_pdf": render_pdf,
    "render_png": render_png,
    "process_image": process_image,
    "process_image_file": process_image_file,
    "design_from_pdf": design_from_pdf,
    "open_certificate": open_certificate,
    "render_row": render_row,
    "merge_rows": merge_rows,
    "sheet_rows": sheet_rows,
    "render_label_sheet_png": render_label_sheet_png,
}


def _resolver(blobs, images: dict[str, str]):  # noqa: ANN001, ANN202
    def resolve(ref: str) -> bytes:
        if ref not in images:
            raise KeyError(f"no image {ref} in this workspace")
        return blobs.get(images[ref])

    return resolve


def _refusal(exc: BaseException) -> str | None:
    """The client-facing message of an exception that means "this input is refused"."""
    from engine.errors import EngineError

    from ..images.processing import ImageRejected

    if isinstance(exc, EngineError):
        return exc.message
    if isinstance(exc, ImageRejected):
        return str(exc)
    return None


def _limit_cpu(seconds: float) -> None:
    """Allow this task `seconds` more CPU time than used so far; past it the kernel sends SIGXCPU."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = math.ceil(used + seconds) + 1
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _watch_parent(parent: int) -> None:
    """Exit if the server that owns us dies (a SIGKILLed server cannot stop its workers)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)  # a liveness check, not synchronisation
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def serve(connection: Connection) -> None:
    while True:
        try:
            task, args, seconds = connection.recv()
        except (EOFError, OSError):
            return  # the parent closed the pipe: it is stopping
        try:
            connection.send((STARTED, None))  # the task is ours now: a death from here on is its failure
        except OSError:
            return
        _limit_cpu(seconds)
        try:
            answer: tuple[str, Any] = ("ok", TASKS[task](*args))
        except MemoryError:
            answer = ("memory", None)
        except Exception as exc:  # every failure is an answer; a bug is logged with its traceback here
            message = _refusal(exc)
            if isinstance(exc, ApiError) and exc.code == "SERVICE_UNAVAILABLE":
                answer = ("unavailable", exc.message)  # the disk is full (api.blobs): not a bug
            elif message is None:
                log.exception("render task %s failed", task)
                answer = ("error", f"{type(exc).__name__} in {task}")
            else:
                answer = ("refused", message)
        try:
            connection.send(answer)
        except (BrokenPipeError, OSError):
            return
        if answer[0] == "memory":
            os._exit(MEMORY_EXIT)


def main(argv: list[str]) -> None:
    fd, parent = int(argv[0]), int(argv[1])
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU would otherwise dump a core
    if len(argv) > 2:
        # Address space, not resident memory: the only limit the kernel enforces at allocation,
        # so a runaway render gets a MemoryError (or dies) instead of pushing the server to swap.
        limit = int(argv[2])
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    _watch_parent(parent)
    # Renders yield the CPU to the web process: its event loop and request threads (a GET /me,
    # a debit's transaction) are short and run first, and renders still take every idle cycle.
    os.nice(RENDER_NICENESS)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    import engine  # import and warm up before the first task, not during it

    from ..jobs.runner import tune_for_rendering

    engine.fonts.install_defaults()
    tune_for_rendering()
    connection = Connection(fd)
    connection.send(("ready", None))  # the pool starts a task's deadline from here
    serve(connection)


if __name__ == "__main__":
    main(sys.argv[1:])
