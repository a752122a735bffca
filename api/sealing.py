"""Secrets sealed with the servers' secret, so that what is stored or queued in clear holds
none: AES-256-GCM under a key derived from the servers' secret for one purpose, bound by
associated data to whose secret it is. Two purposes (extensions.md 9):

- A workspace's signing certificate, bound to the workspace and the upload's version. The
  service keeps certificates sealed (api.service.signing); a batch's queued job carries one
  sealed, and the process that renders its rows opens it with the same secret (render
  processes get it from their server, `docbench worker` from --secret or the shared data dir).
- A batch's document passwords (`encryption`), bound to the job's id: sealed when the batch
  is accepted, opened by the process that encrypts a row's PDF, the same way.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .blobs import secret_in
from .errors import validation
from .settings import Settings

UPLOAD_HINT = "upload one with PUT /signing-certificate (the upload_signing_certificate tool)"
_NONCE_BYTES = 12  # AES-GCM's standard nonce


def server_secret(settings: Settings) -> bytes:
    """The secret every process that serves shares (`--secret`), or this data dir's own."""
    if settings.secret:
        return settings.secret.encode()
    return bytes.fromhex(secret_in(Path(settings.data_dir) / "url-secret"))


class Seal:
    """AES-256-GCM under a key derived from the server's secret for `purpose` alone: what is
    sealed for one purpose never opens as another's, nor with other associated data (`context`)."""

    def __init__(self, secret: bytes, purpose: bytes):
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(secret)
        self._aead = AESGCM(key)

    def seal(self, plaintext: bytes, context: bytes) -> str:
        nonce = os.urandom(_NONCE_BYTES)
        return base64.b64encode(nonce + self._aead.encrypt(nonce, plaintext, context)).decode()

    def open(self, sealed: str, context: bytes) -> bytes:
        """The plaintext, or InvalidTag if it was sealed under another secret, purpose or context."""
        raw = base64.b64decode(sealed)
        return self._aead.decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], context)


class CertificateSeal(Seal):
    """The seal of signing certificates (its purpose string is what sealed every stored one)."""

    def __init__(self, secret: bytes):
        super().__init__(secret, b"docbench signing certificates")


class PasswordSeal(Seal):
    """The seal of a batch's document passwords, bound to the job."""

    def __init__(self, secret: bytes):
        super().__init__(secret, b"docbench document passwords")

    @staticmethod
    def context(job_id: str) -> bytes:
        return f"docbench batch encryption\n{job_id}".encode()


@dataclass(frozen=True)
class SigningMaterial:
    """What a render process needs to open the workspace's key itself (in memory, never
    stored): the version keys its `KeyCache`. The PKCS#12 and password stay out of repr.
    `key_type` (engine.finishing.signing.SigningKey.key_type) is what the upload found; None in one
    sealed before uploads kept it."""

    version: str
    pkcs12: bytes = field(repr=False)
    password: str | None = field(repr=False)
    key_type: str | None = None


@dataclass(frozen=True)
class SealedCertificate:
    """The certificate as the store keeps it: safe to put in a queued job (it opens only with
    the servers' secret, for this workspace and version), for a worker elsewhere to open
    with `open_sealed` when the workers are given `--secret` too."""

    workspace_id: str
    version: str
    sealed: str


def open_sealed(secret: bytes, certificate: SealedCertificate) -> SigningMaterial:
    """The PKCS#12 and password inside, or 400 when `secret` is not the one that sealed it."""
    context = seal_context(certificate.workspace_id, certificate.version)
    try:
        opened: dict[str, Any] = json.loads(CertificateSeal(secret).open(certificate.sealed, context))
    except InvalidTag:
        raise validation(
            "sign: the workspace's signing certificate does not open with this server's secret (was it kept "
            f"by a server with another --secret?); {UPLOAD_HINT} again"
        ) from None
    return SigningMaterial(
        certificate.version, base64.b64decode(opened["pkcs12"]), opened["password"], opened.get("keyType")
    )


def seal_context(workspace_id: str, version: str) -> bytes:
    return f"docbench signing certificate\n{workspace_id}\n{version}".encode()
