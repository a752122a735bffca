"""Errors the service raises: a stable code (spec 7, decisions.md) and an HTTP status.

Raised anywhere in the service, mapped to the response envelope in exactly one place
(`api.http`). Messages may change; codes are stable.
"""

from __future__ import annotations

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
