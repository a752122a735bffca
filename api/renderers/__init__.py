"""Render processes (architecture: "renderers"): generations, previews and uploaded SVGs
are drawn in a pool of worker processes, each task bounded and killable.

The limits are the service's, stated once here and in the manual (docs/operations/limits.md):

- a document has at most `max_pages` pages (continuation sheets of growing tables
  included), checked after layout and before drawing;
- a PDF is at most `max_pdf_bytes`;
- a render (PDF or preview) gets `render_seconds` of wall-clock time and about as much
  CPU time, an uploaded image `image_seconds`, an uploaded signing certificate
  `certificate_seconds`; past either its process is killed and the request answered 400
  with the limit;
- each render process may use `memory_bytes` of address space.

A render nobody waits for any more (the client disconnected, the browser tab closed) is
dropped from the queue, or its process killed if it had started.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ApiError, validation
from .pool import (
    Cancellation,
    PoolClosed,
    ProcessPool,
    TaskCancelled,
    TaskFailed,
    TaskLimitExceeded,
    TaskProcessDied,
    TaskRefused,
    TaskUnavailable,
)

# What to do past a limit: (past the time, past the memory).
RENDER_ADVICE = (
    "simplify it (fewer or shorter table rows, smaller images) or split the data over several documents",
    "use fewer or smaller images, or split the data over several documents",
)
_REEXPORT = (
    "re-export the PKCS#12 with fewer key-derivation iterations (`openssl pkcs12 -export -iter 2048 …`, "
    "OpenSSL's default) and only the certificate, its key and its chain"
)
CERTIFICATE_ADVICE = (_REEXPORT, _REEXPORT)


def generation_date() -> dt.date:
    """What an expression's today() reads (extensions.md 11): the day a document is rendered, in UTC."""
    return dt.datetime.now(dt.UTC).date()


def _env_number(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value else default


@dataclass(frozen=True)
class RenderLimits:
    max_pages: int = 200
    max_pdf_bytes: int = 50 * 1000 * 1000
    render_seconds: float = 60.0
    image_seconds: float = 10.0
    certificate_seconds: float = 10.0
    memory_bytes: int = 2 * 1024**3

    @classmethod
    def from_environment(cls) -> RenderLimits:
        """Defaults, or what an operator set (DOCBENCH_MAX_PAGES, DOCBENCH_RENDER_SECONDS, …)."""
        defaults = cls()
        return cls(
            max_pages=int(_env_number("DOCBENCH_MAX_PAGES", defaults.max_pages)),
            max_pdf_bytes=int(_env_number("DOCBENCH_MAX_PDF_MB", defaults.max_pdf_bytes / 1e6) * 1e6),
            render_seconds=_env_number("DOCBENCH_RENDER_SECONDS", defaults.render_seconds),
            image_seconds=_env_number("DOCBENCH_IMAGE_SECONDS", defaults.image_seconds),
            certificate_seconds=_env_number("DOCBENCH_CERTIFICATE_SECONDS", defaults.certificate_seconds),
            memory_bytes=int(_env_number("DOCBENCH_RENDER_MEMORY_MB", defaults.memory_bytes / 1024**2) * 1024**2),
        )


def check_pdf_size(pdf: bytes, max_bytes: int) -> None:
    """LimitExceeded past the PDF size limit: for generations and batch rows alike."""
    from engine.errors import LimitExceeded

    if len(pdf) > max_bytes:
        raise LimitExceeded(
            f"the PDF would be {len(pdf) / 1e6:.1f} MB; documents are limited to {max_bytes / 1e6:g} MB: "
            "use smaller images or split the data over several documents"
        )


class Renderers:
    """What the service asks of the render processes; errors come back as ApiErrors."""

    def __init__(self, processes: int, blob_root: str | Path, limits: RenderLimits):
        self.limits = limits
        self.blob_root = blob_root
        self.pool = ProcessPool(processes, limits.memory_bytes)
        # Tasks handed to the processes, by task name: what the service's caches save shows here.
        self.tasks: Counter[str] = Counter()
        self._tasks_guard = threading.Lock()

    def start(self) -> None:
        self.pool.start()

    def pdf(
        self,
        owner: str,
        tree_json: str,
        values: dict[str, Any],
        profile: str,
        images: dict[str, str],
        cancel: Cancellation | None = None,
        finishing: Any = None,
        signing: Any = None,
        output: Any = None,
    ) -> tuple[str, int]:
        """Render a generation into the blob store: (blob key, size in bytes). `finishing` is an
        engine.Finishing (extensions.md 9) or None; `signing` the api.sealing.SigningMaterial
        it is signed with last (crossing the pipe in memory, never stored); `output` an
        engine PageOutput for pictures of the pages instead of the PDF (extensions.md 12)."""
        limits = self.limits
        args = (tree_json, values, profile, images, str(self.blob_root), limits.max_pages, limits.max_pdf_bytes)
        args += (finishing, signing, output)
        return self._call("render_pdf", args, owner, limits.render_seconds, cancel, "the document")

    def png(
        self,
        owner: str,
        tree_json: str,
        page: int,
        images: dict[str, str],
        cancel: Cancellation | None = None,
        values: dict[str, Any] | None = None,
        watermark: dict[str, Any] | None = None,
        sheet: int = 0,
    ) -> tuple[str, int]:
        """Render a page preview (96 dpi) into the blob store: (its blob key, how many sheets the
        page lays out as). `values` fill the variables (design-time content without them);
        `watermark` (engine.Watermark's fields) is drawn over it; `sheet`: which of the page's sheets."""
        args = (tree_json, page, 96, images, str(self.blob_root), values, watermark, sheet)
        return self._call("render_png", args, owner, self.limits.render_seconds, cancel, "the preview")

    def label_sheet_png(
        self, owner: str, tree_json: str, images: dict[str, str], sheet: Any, cancel: Cancellation | None = None
    ) -> str:
        """A preview of one label sheet (extensions.md 14, an engine LabelSheet) filled with the
        design, at 72 dpi, into the blob store: its blob key."""
        args = (tree_json, images, str(self.blob_root), sheet, 72)
        return self._call("render_label_sheet_png", args, owner, self.limits.render_seconds, cancel, "the preview")

    def image(self, owner: str, data: bytes, max_bytes: int) -> Any:
        """An upload checked and (SVG) rasterised in a render process: an api.images.processing.ProcessedImage."""
        return self._call("process_image", (data, max_bytes), owner, self.limits.image_seconds, None, "the image")

    def image_file(self, owner: str, path: Path, max_bytes: int) -> Any:
        """An upload spooled to disk (api.spool) checked as `image` checks bytes, read from its path
        by the render process: its ProcessedImage carries none of the file's bytes back (`original`
        empty, `render` empty where it is the original), which the caller stores from the file."""
        args = (str(path), max_bytes)
        return self._call("process_image_file", args, owner, self.limits.image_seconds, None, "the image")

    def design_from_pdf(self, owner: str, key: str, ref: str, title: str) -> tuple[str, list[str]]:
        """The design (tree JSON) of the uploaded PDF stored under `key`, read in a render
        process (extensions.md 12, basePdf), and the notes of what of its form was left out."""
        args = (key, ref, title, str(self.blob_root))
        return self._call("design_from_pdf", args, owner, self.limits.render_seconds, None, "the PDF")

    def certificate(self, owner: str, data: bytes, password: str | None, at: Any) -> Any:
        """An uploaded PKCS#12 opened and checked in a render process (its key derivations hold
        the interpreter lock): (engine.finishing.signing.CertificateInfo, its key's type), or 400 saying
        why it cannot sign, each message starting "file: "."""
        return self._call(
            "open_certificate",
            (data, password, at),
            owner,
            self.limits.certificate_seconds,
            None,
            "the certificate",
            prefix="file: ",
            advice=CERTIFICATE_ADVICE,
        )

    def _call(
        self,
        task: str,
        args: tuple,
        owner: str,
        seconds: float,
        cancel: Cancellation | None,
        what: str,
        prefix: str = "",
        advice: tuple[str, str] = RENDER_ADVICE,
    ) -> Any:
        with self._tasks_guard:
            self.tasks[task] += 1
        try:
            return self.pool.call(task, args, seconds=seconds, owner=owner, cancel=cancel)
        except TaskRefused as exc:
            raise validation(prefix + exc.message) from None
        except TaskLimitExceeded as exc:
            message = _limit_message(what, exc.limit, seconds, self.limits.memory_bytes, advice)
            raise validation(prefix + message) from None
        except PoolClosed:
            raise ApiError("SERVICE_UNAVAILABLE", "the server is restarting; try again shortly") from None
        except TaskUnavailable as exc:  # the disk is full (api.blobs), said in the render process
            raise ApiError("SERVICE_UNAVAILABLE", exc.message) from None
        except TaskProcessDied:
            # Killed from outside mid-render (the OOM killer, an operator): nothing was saved or
            # charged, and a fresh process already replaces it, so the same request may well succeed.
            raise ApiError(
                "SERVICE_UNAVAILABLE",
                f"the process rendering {what} stopped before it finished; nothing was saved or charged: "
                "send the request again",
            ) from None
        except TaskFailed as exc:
            raise RuntimeError(f"render process failed: {exc}") from None  # a bug: 500 with a request id

    def close(self) -> None:
        self.pool.close()


def _limit_message(what: str, limit: str, seconds: float, memory: int, advice: tuple[str, str] = RENDER_ADVICE) -> str:
    if limit == "memory":
        return f"{what} needed more than the {memory / 1024**3:g} GB of memory a render may use: {advice[1]}"
    kind = "CPU time" if limit == "cpu" else "time"
    return f"{what} took longer than the {seconds:g} s of {kind} a render may use and was stopped: {advice[0]}"


__all__ = ["Cancellation", "RenderLimits", "Renderers", "TaskCancelled"]
