"""Errors the service raises: a stable code (spec 7, decisions.md) and an HTTP status.

Raised anywhere in the service, mapped to the response envelope in exactly one place
(`api.http`). Messages may change; codes are stable.
"""

from __future__ import annotations

import errno
import functools

STATUS_BY_CODE = {
    "VALIDATION_ERROR": 400,
    "UNAUTHORIZED": 401,
    "INSUFFICIENT_CREDITS": 402,
    "INSUFFICIENT_PERMISSIONS": 403,
    "URL_EXPIRED": 403,
    "URL_INVALID": 403,
    "NOT_FOUND": 404,
    "DESIGN_NOT_FOUND": 404,
    "ASSET_NOT_FOUND": 404,
    "JOB_NOT_FOUND": 404,
    "PAGE_NOT_FOUND": 404,
    "REVISION_NOT_FOUND": 404,
    "SIGNING_CERTIFICATE_NOT_FOUND": 404,
    "METHOD_NOT_ALLOWED": 405,
    "REQUEST_TIMEOUT": 408,
    "JOB_NOT_COMPLETED": 409,
    "IDEMPOTENCY_KEY_IN_USE": 409,
    "PAYLOAD_TOO_LARGE": 413,
    "UNSUPPORTED_MEDIA_TYPE": 415,
    "IDEMPOTENCY_KEY_REUSED": 422,
    "RATE_LIMITED": 429,
    "INTERNAL_ERROR": 500,
    "SERVICE_UNAVAILABLE": 503,
}


class ApiError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = STATUS_BY_CODE[code]


def validation(message: str) -> ApiError:
    return ApiError("VALIDATION_ERROR", message)


def design_not_found(design_id: str) -> ApiError:
    return ApiError("DESIGN_NOT_FOUND", f"no design '{design_id}' in this workspace")


# What a write into a full file system, or past the user's quota, fails with.
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
# How the embedded DuckDB words the same two (its errors carry text, not an errno).
DISK_FULL_WORDS = ("No space left on device", "Disk quota exceeded")


def disk_write_failed(error: OSError, outcome: str) -> ApiError:
    """A write to the server's own disk failed (a blob, the postings journal): a 503 the client
    may send again once space is freed, never a 500. `outcome` says what happened to the
    request ("nothing was saved or charged"); the path stays in the server's log."""
    if error.errno in DISK_FULL_ERRNOS:
        return ApiError("SERVICE_UNAVAILABLE", f"the server's disk is full: {outcome}; try again once space is freed")
    reason = error.strerror or type(error).__name__
    return ApiError("SERVICE_UNAVAILABLE", f"the server could not write to its disk ({reason}): {outcome}; try again")


def says_disk_full(error: BaseException) -> bool:
    """Whether an error (an OSError, or DuckDB's own, which carries only text) means a full disk."""
    if isinstance(error, OSError) and error.errno in DISK_FULL_ERRNOS:
        return True
    return any(words in str(error) for words in DISK_FULL_WORDS)


class BlobStoreUnavailable(OSError):
    """The blob store cannot be reached or used (checked when a server or worker starts)."""


@functools.cache
def unreachable() -> tuple[type[BaseException], ...]:
    """Errors that mean a store the service stands on cannot be reached (PostgreSQL, the bucket):
    the client may try again (503), and it is not a bug of ours (500). Imported on the first
    error, not at start: a server on the embedded defaults never loads either driver."""
    kinds: list[type[BaseException]] = [BlobStoreUnavailable]
    try:
        import psycopg
        import psycopg_pool

        kinds += [psycopg.OperationalError, psycopg_pool.PoolTimeout]
    except ImportError:  # pragma: no cover (both are dependencies)
        pass
    try:
        from botocore.exceptions import ConnectionError as BucketConnectionError

        kinds.append(BucketConnectionError)
    except ImportError:  # pragma: no cover
        pass
    return tuple(kinds)
