"""Each workspace's signing certificate (extensions.md 9): kept sealed, never shown, opened to sign.

`PUT /signing-certificate` takes a PKCS#12 (at most 256 KB) and its password, checks in a
render process that it can sign now (engine.finishing.signing says why not: more key-derivation work
than it allows, not a PKCS#12, the wrong password, no private key, a key type pyHanko
cannot sign with, a certificate expired or not valid yet) and keeps the two
sealed together in the workspace's row of `signing_certificates` (migration 12): AES-GCM
under a key derived with HKDF-SHA256 from the server's secret (the one that signs file
URLs: `--secret`, or the data dir's `url-secret` file), a fresh nonce per upload, and the
workspace's id and the upload's version as associated data, so a sealed value copied to
another row does not open. What GET answers (subject, issuer, the validity dates) is the
certificate's public part, kept beside it in clear.

The PKCS#12 and its password are never answered, logged or written as a blob; they are
opened only in the processes that render (never on a web process's threads), each keeping
the opened key by version (engine.finishing.signing.KeyCache; a new upload is a new version), so a
batch opens it once, not per row. The key's type is sealed with them: the web process
checks a profile against it (pdf-a signs with RSA only) without opening anything.
"""

from __future__ import annotations

import base64
import datetime as dt
import json

from ..errors import ApiError, validation
from ..renderers import Renderers
from ..sealing import (
    UPLOAD_HINT,
    CertificateSeal,
    SealedCertificate,
    SigningMaterial,
    open_sealed,
    seal_context,
    server_secret,
)
from ..settings import CERTIFICATE_LIMIT, Settings
from ..store import Store
from .common import Workspace, iso, new_id, now

PASSWORD_MAX_LENGTH = 1024


def _aware(moment: dt.datetime) -> dt.datetime:
    return moment.replace(tzinfo=dt.UTC)


class Signing:
    def __init__(self, store: Store, settings: Settings, renderers: Renderers):
        self.store = store
        self.renderers = renderers
        self._secret = server_secret(settings)
        self._seal = CertificateSeal(self._secret)

    # The endpoints

    def upload(self, ws: Workspace, data: bytes, password: str | None) -> dict:
        """PUT /signing-certificate: check the PKCS#12 can sign now, keep it sealed, answer its public part."""
        if not data:
            raise validation("file: the file is empty; send the PKCS#12 (.p12 / .pfx) as multipart field 'file'")
        if len(data) > CERTIFICATE_LIMIT:
            raise validation(
                f"file: the file is {len(data):,} bytes; a PKCS#12 may be at most {CERTIFICATE_LIMIT // 1024} KB "
                "(a certificate, its key and its chain take a few): export only those"
            )
        if password is not None and len(password) > PASSWORD_MAX_LENGTH:
            raise validation(f"password: at most {PASSWORD_MAX_LENGTH} characters")
        if password is not None and "\x00" in password:
            raise validation(
                "password: it holds a NUL character (U+0000), which no PKCS#12 password can; "
                "send the password the file was exported with"
            )
        # Opened in a render process, under its time and memory limits: OpenSSL's key derivations
        # hold the interpreter lock while they run, which on a web thread stalls every request.
        info, key_type = self.renderers.certificate(ws.id, data, password, dt.datetime.now(dt.UTC))
        version = new_id("crt")
        secret = json.dumps(
            {"pkcs12": base64.b64encode(data).decode(), "password": password, "keyType": key_type}
        ).encode()
        sealed = self._seal.seal(secret, seal_context(ws.id, version))
        row = [
            version,
            sealed,
            info.subject,
            info.issuer,
            info.not_before.replace(tzinfo=None),
            info.not_after.replace(tzinfo=None),
            now(),
        ]
        with self.store.transaction() as cursor:
            # Two uploads at once: the second waits, then replaces the first (no key to collide on).
            self.store.lock_name(cursor, f"signing-certificate:{ws.id}")
            exists = cursor.execute("SELECT 1 FROM signing_certificates WHERE workspace_id = ?", [ws.id]).fetchone()
            if exists:
                cursor.execute(
                    "UPDATE signing_certificates SET version = ?, sealed = ?, subject = ?, issuer = ?, "
                    "not_before = ?, not_after = ?, created_at = ? WHERE workspace_id = ?",
                    [*row, ws.id],
                )
            else:
                cursor.execute(
                    "INSERT INTO signing_certificates (version, sealed, subject, issuer, not_before, not_after, "
                    "created_at, workspace_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [*row, ws.id],
                )
        return _public(row[2], row[3], row[4], row[5])

    def get(self, ws: Workspace) -> dict:
        """GET /signing-certificate: the public part of the kept certificate, or 404."""
        row = self.store.one(
            "SELECT subject, issuer, not_before, not_after FROM signing_certificates WHERE workspace_id = ?", [ws.id]
        )
        if row is None:
            raise _none()
        return _public(*row)

    def delete(self, ws: Workspace) -> dict:
        """DELETE /signing-certificate: the sealed PKCS#12 is gone from the store; 404 if there was none."""
        with self.store.transaction() as cursor:
            self.store.lock_name(cursor, f"signing-certificate:{ws.id}")
            row = cursor.execute("SELECT version FROM signing_certificates WHERE workspace_id = ?", [ws.id]).fetchone()
            if row is None:
                raise _none()
            cursor.execute("DELETE FROM signing_certificates WHERE workspace_id = ?", [ws.id])
        return {"deleted": True}

    # For generation (`sign: true`)

    def material_for(self, ws: Workspace, profile: str) -> SigningMaterial:
        """What a render process opens the key from (`KeyCache.get(version, pkcs12, password)`),
        for renders that sign; 400 when the workspace has none, it is no longer valid, or its key
        cannot sign `profile`, asked before anything renders. Pass it in memory, never in a stored job."""
        material = self._material(ws, self._current(ws))
        _check_profile(material, profile)
        return material

    def _current(self, ws: Workspace) -> str:
        """The version of the workspace's certificate, if it is one that signs now."""
        row = self.store.one(
            "SELECT version, not_before, not_after FROM signing_certificates WHERE workspace_id = ?", [ws.id]
        )
        if row is None:
            raise validation(f"sign: this workspace has no signing certificate; {UPLOAD_HINT}")
        version, not_before, not_after = row
        at = dt.datetime.now(dt.UTC)
        if at > _aware(not_after):
            raise validation(
                f"sign: the workspace's signing certificate expired on {iso(not_after)}; "
                f"upload a renewed one with PUT /signing-certificate"
            )
        if at < _aware(not_before):
            raise validation(f"sign: the workspace's signing certificate is valid only from {iso(not_before)}")
        return version

    def sealed_for(self, ws: Workspace, profile: str | None = None) -> SealedCertificate:
        """The certificate still sealed, for a job queued to workers on other machines (400 as
        `material_for`, and for a `profile` it cannot sign, asked before anything is queued);
        they open it with `open_sealed(server_secret(settings), ...)`."""
        sealed = self._sealed(ws, self._current(ws))
        if profile is not None:
            _check_profile(open_sealed(self._secret, sealed), profile)
        return sealed

    def _sealed(self, ws: Workspace, version: str) -> SealedCertificate:
        row = self.store.one(
            "SELECT sealed FROM signing_certificates WHERE workspace_id = ? AND version = ?", [ws.id, version]
        )
        if row is None:  # replaced or removed since it was read: what is there now
            return self.sealed_for(ws)
        return SealedCertificate(ws.id, version, row[0])

    def _material(self, ws: Workspace, version: str) -> SigningMaterial:
        return open_sealed(self._secret, self._sealed(ws, version))


def _check_profile(material: SigningMaterial, profile: str) -> None:
    """400 when the kept key cannot sign `profile` (pdf-a signs with RSA only), read from the key's
    type the upload kept: the web process never opens a certificate. One sealed before uploads
    kept it is checked where it is opened to sign, and refused there."""
    if material.key_type is None:
        return
    from engine.finishing.signing import SigningKeyError, check_key_signs

    try:
        check_key_signs(material.key_type, profile)
    except SigningKeyError as exc:
        raise validation(f"sign: {exc.message}") from None


def _none() -> ApiError:
    return ApiError("SIGNING_CERTIFICATE_NOT_FOUND", f"this workspace has no signing certificate; {UPLOAD_HINT}")


def _public(subject: str, issuer: str, not_before: dt.datetime, not_after: dt.datetime) -> dict:
    """What the API shows of a certificate (extensions.md 9), its dates as every other date it answers."""
    return {"subject": subject, "issuer": issuer, "notBefore": iso(not_before), "notAfter": iso(not_after)}
