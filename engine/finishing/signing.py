"""PAdES B-B signatures (extensions.md 9, `sign: true`), applied last, with pyHanko.

`SigningKey.from_pkcs12` opens a PKCS#12 once (a batch signs every row with one key);
`sign_pdf` adds an invisible signature in field `docbench` as an incremental update, so
every byte the profile wrote stays as it was and a verifier sees the signature cover it.

The tagged profiles need the field in the structure (PDF/UA-1 7.18.4: a widget sits in a
Form structure element, through an OBJR; 7.18.1: it has a description, the field's /TU;
7.18.3: its page tabs in structure order), which pyHanko does not write: it leaves an
invisible signature untagged. So for them the empty field is made first, in the same
incremental update, and tagged; pyHanko then fills that field. The widget keeps what
PDF/A-3b wants of it (ISO 19005-3 6.3.2: the Print flag and no Hidden flag; 6.3.3: a zero
Rect needs no appearance).

Signatures are the one output of the engine that is not deterministic: the signing time
is in the signature (and in the document's /ModDate, which pyHanko updates with the
XMP's), and the file's second /ID is random, as an incremental update's must differ.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import threading
from collections import OrderedDict
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from asn1crypto import algos as asn1_algos
from asn1crypto import keys as asn1_keys
from asn1crypto import pkcs12 as asn1_pkcs12
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, padding, rsa
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat, pkcs12
from lxml import etree
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.crypt import AuthStatus
from pyhanko.pdf_utils.generic import pdf_name
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign import fields, signers
from pyhanko.sign.general import get_pyca_cryptography_hash
from pyhanko.sign.signers.pdf_cms import PdfCMSSignedAttributes, select_suitable_signing_md
from pyhanko.sign.validation.utils import DEFAULT_ALGORITHM_USAGE_POLICY
from pyhanko_certvalidator.registry import SimpleCertificateStore

from ..errors import EngineError
from .einvoice import FACTURX_XMP_NAMESPACE

# pyHanko rewrites the XMP as it signs (lxml), naming a namespace it does not know `ns0`; the
# Factur-X properties must keep the prefix their PDF/A extension schema declares (`fx`).
etree.register_namespace("fx", FACTURX_XMP_NAMESPACE)

FIELD_NAME = "docbench"  # extensions.md 9: the signature's field
# The field's /TU: what assistive technology announces for it (PDF/UA-1 7.18.1).
FIELD_DESCRIPTION = "Digital signature of this document"
TAGGED_PROFILES = ("accessible", "pdf-a")
_DER = Encoding.DER
# Any time will do for the trial signature that measures the room a signature needs: the
# real one's time takes the same bytes (until 2050, and the margin covers a GeneralizedTime).
_TRIAL_TIME = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
_SPKI = PublicFormat.SubjectPublicKeyInfo
# Key types pyHanko's in-memory signer signs with (pdf_cms.SimpleSigner.sign_raw); their sizes
# are then held to what pyHanko's validation accepts (DEFAULT_ALGORITHM_USAGE_POLICY). Each
# has the name SigningKey.key_type answers.
SIGNING_KEY_TYPES = {
    rsa.RSAPrivateKey: "rsa",
    dsa.DSAPrivateKey: "dsa",
    ec.EllipticCurvePrivateKey: "ec",
    ed25519.Ed25519PrivateKey: "ed25519",
    ed448.Ed448PrivateKey: "ed448",
}


# The work a PKCS#12 may ask of whoever opens it (issue 31: one whose MAC asked for 200,000,000
# iterations held a server for 12.8 s). Each key derivation (the MAC's, each encrypted safe's,
# each shrouded key's) runs its iteration count; opening costs 0.13-0.18 s per million iterations
# (measured: a file at 1,000,000 for MAC, certificates and key opens in 0.31 s with PBKDF2 and
# SHA-256, 0.54 s with PKCS#12's own KDF and 3DES, which derives key and IV apart). Real exports
# ask for 2,048 (OpenSSL), 2,000-10,000 (Windows, Java's keytool), 20,000 (cryptography).
MAX_KDF_ITERATIONS = 1_000_000
MAX_TOTAL_KDF_ITERATIONS = 3_000_000
# Safe contents inside safe contents (a safeContentsBag): real exports have none.
MAX_BAG_NESTING = 8
_REEXPORT = "re-export it with fewer: `openssl pkcs12 -export -iter 2048 …` (OpenSSL's default, for its MAC too)"
_KDF_NAMES = {"1.3.6.1.4.1.11591.4.11": "scrypt"}
_PBMAC1 = "1.2.840.113549.1.5.14"  # RFC 9579: a MAC keyed by PBKDF2 (OpenSSL 3.4's -pbmac1_pbkdf2)


class SigningKeyError(EngineError):
    """A PKCS#12 that cannot sign: the message says what is wrong and how to fix it."""


def check_key_signs(key_type: str, profile: str) -> None:
    """SigningKeyError unless a key of `key_type` (SigningKey.key_type) signs `profile`.
    PDF/A-3b keeps PDF 1.7; pyHanko marks an EC or EdDSA signature (ISO 32002) by raising
    the file to PDF 2.0, which PDF/A-3 forbids (6.1.2): only RSA keys sign pdf-a."""
    if profile == "pdf-a" and key_type != "rsa":
        raise SigningKeyError(
            "sign with pdfProfile pdf-a needs a certificate with an RSA key (an EC or EdDSA signature makes "
            "the file PDF 2.0, which PDF/A-3b forbids): upload one with an RSA key of 2048 bits or more, "
            'or sign with pdfProfile "standard" or "accessible"'
        )


def _key_type(private_key: Any) -> str:
    return next(name for kind, name in SIGNING_KEY_TYPES.items() if isinstance(private_key, kind))


@dataclass(frozen=True)
class CertificateInfo:
    """What the API shows of a signing certificate (extensions.md 9)."""

    subject: str
    issuer: str
    not_before: dt.datetime  # aware, UTC
    not_after: dt.datetime


def _iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class _KeptKeySigner(signers.SimpleSigner):
    """pyHanko's in-memory signer, holding the parsed private key: its own `sign_raw` parses
    the key from DER on every signature, which an RSA key's checks make the dearest step of
    signing a small document. The padding and hash choices are the ones pyHanko makes."""

    def __init__(self, private_key: Any, **kwargs: Any):
        super().__init__(**kwargs)
        self._private_key = private_key

    def sign_raw(self, data: bytes, digest_algorithm: str) -> bytes:
        key = self._private_key
        try:
            mechanism = self.get_signature_mechanism_for_digest(digest_algorithm).signature_algo
        except ValueError:  # a mechanism asn1crypto has no name for: pyHanko's path knows it
            return super().sign_raw(data, digest_algorithm)
        if mechanism == "rsassa_pkcs1v15":
            return key.sign(data, padding.PKCS1v15(), get_pyca_cryptography_hash(digest_algorithm))
        if mechanism == "ecdsa":
            return key.sign(data, ec.ECDSA(get_pyca_cryptography_hash(digest_algorithm)))
        if mechanism == "dsa":
            return key.sign(data, get_pyca_cryptography_hash(digest_algorithm))
        if mechanism in ("ed25519", "ed448"):
            return key.sign(data)
        return super().sign_raw(data, digest_algorithm)  # PSS and the rest: pyHanko's own path


class SigningKey:
    """A certificate and its private key, opened once from a PKCS#12 and kept for every
    document it signs (thread-safe: signing reads it only)."""

    def __init__(self, private_key: Any, certificate: x509.Certificate, chain: list[x509.Certificate]):
        self.certificate = certificate
        self.info = CertificateInfo(
            subject=certificate.subject.rfc4514_string(),
            issuer=certificate.issuer.rfc4514_string(),
            not_before=certificate.not_valid_before_utc,
            not_after=certificate.not_valid_after_utc,
        )
        signing_cert = asn1_x509.Certificate.load(certificate.public_bytes(_DER))
        registry = SimpleCertificateStore()
        registry.register_multiple(asn1_x509.Certificate.load(c.public_bytes(_DER)) for c in chain)
        self._signer = _KeptKeySigner(
            private_key,
            signing_cert=signing_cert,
            signing_key=asn1_keys.PrivateKeyInfo.load(
                private_key.private_bytes(_DER, PrivateFormat.PKCS8, NoEncryption())
            ),
            cert_registry=registry,
        )
        self._md_algorithm = select_suitable_signing_md(signing_cert.public_key)
        self._bytes_reserved: int | None = None
        self._private_key = private_key

    @property
    def key_type(self) -> str:
        """The key's type, "rsa", "dsa", "ec", "ed25519" or "ed448": what `check_key_signs` needs, kept by the
        service beside the sealed certificate so that it checks without opening it."""
        return _key_type(self._private_key)

    def check_profile(self, profile: str) -> None:
        check_key_signs(self.key_type, profile)

    @classmethod
    def from_pkcs12(cls, data: bytes, password: str | bytes | None, at: dt.datetime | None = None) -> SigningKey:
        """Open a PKCS#12 (a .p12 / .pfx), or SigningKeyError saying why it cannot sign.

        `at` (aware) is when the certificate must be valid; None skips that check (a key
        kept by the service was checked when it was uploaded)."""
        secret = password.encode() if isinstance(password, str) else password
        if secret and b"\x00" in secret:
            # cryptography panics on it (a BaseException that ends the thread, not a ValueError).
            raise SigningKeyError(
                "the password holds a NUL character (U+0000), which no PKCS#12 password can; "
                "send the password the file was exported with"
            )
        check_pkcs12_work(data)
        try:
            private_key, certificate, chain = pkcs12.load_key_and_certificates(data, secret or None)
        except ValueError as exc:
            raise SigningKeyError(_pkcs12_problem(secret, exc)) from None
        if private_key is None:
            raise SigningKeyError(
                "the PKCS#12 holds no private key (certificates only); "
                "export the certificate together with its private key"
            )
        if certificate is None:
            raise SigningKeyError("the PKCS#12 holds no certificate; export the certificate with its private key")
        if not isinstance(private_key, tuple(SIGNING_KEY_TYPES)):
            raise SigningKeyError(
                f"the private key is {type(private_key).__name__.removeprefix('_')}, which cannot sign PDFs here; "
                "use an RSA, EC, Ed25519, Ed448 or DSA key"
            )
        if certificate.public_key().public_bytes(_DER, _SPKI) != private_key.public_key().public_bytes(_DER, _SPKI):
            raise SigningKeyError("the private key does not belong to the certificate; export them together")
        _check_key_usage(certificate)
        key = cls(private_key, certificate, [c for c in chain if c != certificate])
        key._check_strength()
        if at is not None:
            key.check_valid_at(at)
        return key

    def check_valid_at(self, at: dt.datetime) -> None:
        """SigningKeyError unless the certificate is valid at `at` (naming its dates)."""
        info = self.info
        if at < info.not_before:
            raise SigningKeyError(
                f"the certificate is not valid yet: it is valid from {_iso(info.not_before)} "
                f"to {_iso(info.not_after)}; upload it once it is valid, or one valid now"
            )
        if at > info.not_after:
            raise SigningKeyError(
                f"the certificate expired on {_iso(info.not_after)} (valid from {_iso(info.not_before)}); "
                "upload a renewed certificate"
            )

    def _check_strength(self) -> None:
        """A key verifiers refuse as too weak (RSA under 2048 bits, DSA under 3192: the policy pyHanko
        validates with, after ETSI's) would make signatures nobody trusts: refused when uploaded."""
        mechanism = self._signer.get_signature_mechanism_for_digest(self._md_algorithm)
        verdict = DEFAULT_ALGORITHM_USAGE_POLICY.signature_algorithm_allowed(
            mechanism, None, self._signer.signing_cert.public_key
        )
        if not verdict.allowed:
            raise SigningKeyError(
                f"verifiers refuse this key: {verdict.failure_reason}; use an RSA key of 2048 bits or more, "
                "or an EC, Ed25519 or Ed448 key"
            )

    @property
    def signer(self) -> signers.Signer:
        return self._signer

    @property
    def md_algorithm(self) -> str:
        return self._md_algorithm

    async def bytes_reserved(self) -> int:
        """Room for the signature in the file, measured once per key: pyHanko otherwise builds
        and signs a trial signature for every document (a third of the time signing takes).
        The CMS of a key without timestamps is the same size each time, save an ECDSA
        signature's byte or two; pyHanko's margin (half again the hex) is kept."""
        if self._bytes_reserved is None:
            trial = await self._signer.async_sign(
                hashes.Hash(get_pyca_cryptography_hash(self._md_algorithm)).finalize(),
                self._md_algorithm,
                dry_run=True,
                use_pades=True,
                signed_attr_settings=PdfCMSSignedAttributes(signing_time=_TRIAL_TIME),
            )
            hex_length = len(trial.dump()) * 2
            self._bytes_reserved = hex_length + 2 * (hex_length // 4)
        return self._bytes_reserved


class KeyCache:
    """Opened keys by version (a certificate's upload), so that each process opens a PKCS#12
    once however many documents it signs: each render process and batch worker keeps one
    (a web process opens none). Bounded: the least recently used key is let go."""

    def __init__(self, size: int = 64):
        self._size = size
        self._keys: OrderedDict[str, SigningKey] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, version: str, pkcs12_data: bytes, password: str | None) -> SigningKey:
        with self._lock:
            key = self._keys.get(version)
            if key is not None:
                self._keys.move_to_end(version)
                return key
        key = SigningKey.from_pkcs12(pkcs12_data, password)  # outside the lock: another version waits for none
        self.put(version, key)
        return key

    def lookup(self, version: str) -> SigningKey | None:
        with self._lock:
            key = self._keys.get(version)
            if key is not None:
                self._keys.move_to_end(version)
            return key

    def put(self, version: str, key: SigningKey) -> None:
        with self._lock:
            self._keys[version] = key
            self._keys.move_to_end(version)
            while len(self._keys) > self._size:
                self._keys.popitem(last=False)

    def forget(self, version: str) -> None:
        with self._lock:
            self._keys.pop(version, None)


def check_pkcs12_work(data: bytes) -> None:
    """SigningKeyError when opening `data` would run more key-derivation iterations than
    MAX_KDF_ITERATIONS in one derivation or MAX_TOTAL_KDF_ITERATIONS in all, or a key derivation
    other than PBKDF2 and PKCS#12's own, read from its DER before any is run. The bags inside an
    encrypted safe are out of sight until it is decrypted: their work is bounded by the time
    limit of the process that opens the file (a render process, api.renderers)."""
    try:
        counts = _kdf_iterations(data)
    except SigningKeyError:
        raise
    except Exception:  # asn1crypto parses lazily and raises ValueError, TypeError, KeyError… on bad DER
        raise SigningKeyError(_NOT_PKCS12) from None
    for what, count in counts:
        if count > MAX_KDF_ITERATIONS:
            raise SigningKeyError(
                f"the PKCS#12's {what} asks for {count:,} key-derivation iterations; at most "
                f"{MAX_KDF_ITERATIONS:,} are accepted: {_REEXPORT}"
            )
    total = sum(count for _, count in counts)
    if total > MAX_TOTAL_KDF_ITERATIONS:
        raise SigningKeyError(
            f"the PKCS#12's {len(counts)} key derivations ask for {total:,} iterations in all; at most "
            f"{MAX_TOTAL_KDF_ITERATIONS:,} are accepted: {_REEXPORT}"
        )


def _kdf_iterations(data: bytes) -> list[tuple[str, int]]:
    """(what, iteration count) of each key derivation opening `data` runs that its DER shows."""
    pfx = asn1_pkcs12.Pfx.load(data)  # trailing bytes are ignored, as OpenSSL does
    counts: list[tuple[str, int]] = []
    mac_data = pfx["mac_data"]
    if mac_data.native is not None:
        algorithm = mac_data["mac"]["digest_algorithm"]
        if algorithm["algorithm"].dotted == _PBMAC1:  # its MacData iterations are not used
            params = asn1_algos.Pbmac1Params.load(algorithm["parameters"].dump())
            counts.append(("MAC", _pbkdf2_iterations(params["key_derivation_func"], "MAC")))
        else:
            counts.append(("MAC", mac_data["iterations"].native))
    for content in pfx.authenticated_safe:
        kind = content["content_type"].native
        if kind == "data":
            counts += _bag_iterations(asn1_pkcs12.SafeContents.load(content["content"].native), 1)
        elif kind == "encrypted_data":
            algorithm = content["content"]["encrypted_content_info"]["content_encryption_algorithm"]
            counts.append(("encrypted safe", _encryption_iterations(algorithm, "encrypted safe")))
        # envelopedData (public-key encryption) runs no password KDF
    return counts


def _bag_iterations(bags: asn1_pkcs12.SafeContents, depth: int) -> list[tuple[str, int]]:
    if depth > MAX_BAG_NESTING:
        raise SigningKeyError(
            f"the PKCS#12 nests its bags more than {MAX_BAG_NESTING} deep; export the certificate with its key again"
        )
    counts: list[tuple[str, int]] = []
    for bag in bags:
        kind = bag["bag_id"].native
        if kind == "pkcs8_shrouded_key_bag":
            algorithm = bag["bag_value"]["encryption_algorithm"]
            counts.append(("key bag", _encryption_iterations(algorithm, "key bag")))
        elif kind == "safe_contents":
            counts += _bag_iterations(bag["bag_value"], depth + 1)
    return counts


def _encryption_iterations(algorithm: asn1_algos.EncryptionAlgorithm, what: str) -> int:
    name = algorithm["algorithm"].native
    if name == "pbes2":
        return _pbkdf2_iterations(algorithm["parameters"]["key_derivation_func"], what)
    if name.startswith(("pbes1_", "pkcs12_")):  # PKCS#5 v1 and PKCS#12's own PBE schemes
        return algorithm["parameters"]["iterations"].native
    raise SigningKeyError(
        f"the PKCS#12's {what} is encrypted with {name}, not a password-based scheme it can be opened with; "
        "export it with PBES2 (OpenSSL's default)"
    )


def _pbkdf2_iterations(kdf: asn1_algos.KdfAlgorithm, what: str) -> int:
    name = kdf["algorithm"].native
    if name != "pbkdf2":  # scrypt's cost is memory as well as time: no real export uses it
        raise SigningKeyError(
            f"the PKCS#12's {what} derives its key with {_KDF_NAMES.get(name, name)}, not PBKDF2; "
            "export it with PBES2 and PBKDF2 (OpenSSL's default)"
        )
    return kdf["parameters"]["iteration_count"].native


_NOT_PKCS12 = (
    "the file is not a PKCS#12 (.p12 / .pfx) holding a certificate and its private key; "
    "export one from your certificate store"
)


def _pkcs12_problem(secret: bytes | None, exc: ValueError) -> str:
    """Why cryptography refused a PKCS#12: not one at all, or the wrong password."""
    text = str(exc).lower()
    if "password" in text or "mac" in text or "decrypt" in text:
        if not secret:
            return "the PKCS#12 is protected by a password; send it as the password field"
        return "the password does not open this PKCS#12; check the password it was exported with"
    return _NOT_PKCS12


def _check_key_usage(certificate: x509.Certificate) -> None:
    """A certificate whose key usage leaves out signing (a TLS key-encipherment-only one, say)
    makes signatures every verifier refuses: refused here instead."""
    try:
        usage = certificate.extensions.get_extension_for_class(x509.KeyUsage).value
    except x509.ExtensionNotFound:
        return
    if not (usage.digital_signature or usage.content_commitment):
        raise SigningKeyError(
            "the certificate's key usage allows neither digitalSignature nor nonRepudiation, so verifiers "
            "would refuse its signatures; use a document-signing certificate"
        )


def sign_pdf(pdf: bytes, signer: SigningKey, profile: str, password: str | None = None) -> bytes:
    """`pdf` with an invisible PAdES B-B signature in field `docbench`, added as an
    incremental update. `profile` is the one `pdf` was rendered with: the tagged ones get
    the field tagged, as the module's docstring explains. An encrypted `pdf` (extensions.md
    9 encrypts before signing) needs a password that opens it, the owner's or the user's
    ("" when it has none): the update is encrypted as the file is."""
    signer.check_profile(profile)
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    if writer.prev.encrypted:
        if password is None:
            raise EngineError("the PDF is encrypted: signing it needs its owner password")
        if writer.encrypt(password.encode()).status == AuthStatus.FAILED:
            raise EngineError("the password given does not open the encrypted PDF, so it cannot be signed")
    field_spec = fields.SigFieldSpec(
        FIELD_NAME,
        on_page=0,
        readable_field_name=FIELD_DESCRIPTION,
        # PDF/A-3b 6.3.2: printable, not hidden; the zero rectangle keeps it invisible.
        invis_sig_settings=fields.InvisSigSettings(set_print_flag=True, set_hidden_flag=False),
    )
    if profile in TAGGED_PROFILES:
        fields.append_signature_field(writer, field_spec)
        _tag_signature_field(writer)
    pdf_signer = signers.PdfSigner(
        signers.PdfSignatureMetadata(
            field_name=FIELD_NAME,
            md_algorithm=signer.md_algorithm,
            subfilter=fields.SigSeedSubFilter.PADES,  # ETSI.CAdES.detached: PAdES B-B
        ),
        signer=signer.signer,
        new_field_spec=field_spec,
    )

    async def signed() -> io.BytesIO:
        return await pdf_signer.async_sign_pdf(
            writer, existing_fields_only=profile in TAGGED_PROFILES, bytes_reserved=await signer.bytes_reserved()
        )

    return _run(signed()).getvalue()


def _tag_signature_field(writer: IncrementalPdfFileWriter) -> None:
    """The new field's widget in a Form structure element at the end of the document, with
    its /StructParent in the ParentTree, and its page tabbing in structure order."""
    root = writer.root
    if "/StructTreeRoot" not in root:
        raise EngineError("a tagged profile's PDF has no structure tree to put its signature field in")
    widget_ref = next(ref for ref in root["/AcroForm"]["/Fields"] if ref.get_object().get("/T") == FIELD_NAME)
    widget = widget_ref.get_object()
    page_ref = widget.raw_get("/P")
    structure_ref = root.raw_get("/StructTreeRoot")
    structure = structure_ref.get_object()
    document_ref = structure.raw_get("/K")
    if isinstance(document_ref, generic.ArrayObject):
        document_ref = document_ref[0]
    document = document_ref.get_object()

    parent_tree_ref = structure.raw_get("/ParentTree")
    parent_tree = parent_tree_ref.get_object()
    if "/Nums" not in parent_tree:
        raise EngineError("the structure's ParentTree is not a flat number tree")
    nums = parent_tree["/Nums"]
    key = int(structure.get("/ParentTreeNextKey", 0)) or (max(int(n) for n in nums[::2]) + 1 if nums else 0)

    form = writer.add_object(
        generic.DictionaryObject(
            {
                pdf_name("/Type"): pdf_name("/StructElem"),
                pdf_name("/S"): pdf_name("/Form"),
                pdf_name("/P"): document_ref,
                pdf_name("/K"): generic.DictionaryObject(
                    {
                        pdf_name("/Type"): pdf_name("/OBJR"),
                        pdf_name("/Obj"): widget_ref,
                        pdf_name("/Pg"): page_ref,
                    }
                ),
            }
        )
    )
    kids = document.get("/K")
    if kids is None:
        document[pdf_name("/K")] = generic.ArrayObject([form])
    elif isinstance(kids, generic.ArrayObject):
        kids.append(form)
    else:
        document[pdf_name("/K")] = generic.ArrayObject([document.raw_get("/K"), form])
    widget[pdf_name("/StructParent")] = generic.NumberObject(key)
    nums.extend([generic.NumberObject(key), form])
    structure[pdf_name("/ParentTreeNextKey")] = generic.NumberObject(key + 1)
    page = page_ref.get_object()
    page[pdf_name("/Tabs")] = pdf_name("/S")  # PDF/UA-1 7.18.3
    for ref in (document_ref, parent_tree_ref, structure_ref, page_ref, widget_ref):
        if isinstance(ref, generic.IndirectObject):
            writer.mark_update(ref)


_loops = threading.local()


def _run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run pyHanko's signing coroutine to its end. pyHanko's own `sign_pdf` makes and closes
    an event loop per document; each thread keeps one here instead. Where a loop already
    runs (a notebook's), the signature is made on a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        loop = getattr(_loops, "loop", None)
        if loop is None:
            loop = _loops.loop = asyncio.new_event_loop()
        return loop.run_until_complete(coroutine)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_run, coroutine).result()
