"""Signatures (extensions.md 9): engine.finishing.signing's PAdES B-B signatures, validated by pyHanko
under a test CA made here with `cryptography`, in every profile (the tagged ones through
their own gates), and the signing certificate kept by a real `docbench serve` on each store:
uploaded over real HTTP and MCP, answered, refused, removed, and found in no answer, log,
blob or database row."""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import io
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pikepdf
import pytest
from asn1crypto import algos as asn1_algos
from asn1crypto import cms as asn1_cms
from asn1crypto import core as asn1_core
from asn1crypto import pkcs12 as asn1_pkcs12
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign import fields, signers
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko.sign.validation.status import PdfSignatureStatus

from engine import Finishing, render_pdf
from engine.errors import EngineError
from engine.finishing.signing import (
    FIELD_DESCRIPTION,
    MAX_KDF_ITERATIONS,
    MAX_TOTAL_KDF_ITERATIONS,
    KeyCache,
    SigningKey,
    SigningKeyError,
    sign_pdf,
)
from tests.mcp_calls import failed, ok, run
from tests.pdf_probes import pdf_text
from tests.signing_pki import PASSWORD, Pki
from workbench import samples

from ..conftest import store_database_url
from ..pdf_checker import problems
from ..server import Server
from ..validators import assert_passes_outloud, assert_valid_signed_pdf_a, outloud, signed_pdf_a_problems

RUN_ON_BOTH_STORES = True
DER = serialization.Encoding.DER


@dataclass
class Credential:
    key: rsa.RSAPrivateKey
    certificate: x509.Certificate
    p12: bytes


@pytest.fixture(scope="module")
def pki() -> Pki:
    return Pki.make()


@pytest.fixture(scope="module")
def credential(pki) -> Credential:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    certificate = pki.issue(key)
    return Credential(key, certificate, pki.pkcs12(key, certificate))


@pytest.fixture(scope="module")
def signing_key(credential) -> SigningKey:
    return SigningKey.from_pkcs12(credential.p12, PASSWORD, at=dt.datetime.now(dt.UTC))


def invoice(profile: str, row: int = 1) -> bytes:
    return render_pdf(samples.invoice(), samples.invoice_row(row), samples.resolver, profile)


def validated(signed: bytes, pki: Pki) -> PdfSignatureStatus:
    (signature,) = PdfFileReader(io.BytesIO(signed)).embedded_signatures
    assert signature.field_name == "docbench"
    return validate_pdf_signature(signature, pki.context())


def assert_intact_and_trusted(signed: bytes, pki: Pki, unsigned: bytes) -> PdfSignatureStatus:
    status = validated(signed, pki)
    assert status.intact and status.valid and status.trusted, status.pretty_print_details()
    assert status.coverage.name == "ENTIRE_FILE" and status.modification_level.name == "NONE"
    # An incremental update: every byte of the profile's PDF is still there, first.
    assert signed[: len(unsigned)] == unsigned
    assert pdf_text(signed) == pdf_text(unsigned)
    return status


# The engine: sign_pdf


def test_a_signed_pdf_is_pades_intact_and_trusted_under_the_test_ca(pki, signing_key):
    unsigned = invoice("standard")
    signed = sign_pdf(unsigned, signing_key, "standard")
    status = assert_intact_and_trusted(signed, pki, unsigned)
    assert "Signer of docbench" in status.signing_cert.subject.human_friendly
    with pikepdf.open(io.BytesIO(signed)) as pdf:
        (field,) = pdf.Root.AcroForm.Fields
        assert field.FT == "/Sig" and str(field.T) == "docbench"
        assert [float(v) for v in field.Rect] == [0, 0, 0, 0]  # invisible
        # PAdES B-B: a CAdES signature (ETSI.CAdES.detached), no timestamp or revocation data.
        assert field.V.SubFilter == "/ETSI.CAdES.detached" and field.V.Filter == "/Adobe.PPKLite"
        assert "/DSS" not in pdf.Root


def test_a_signature_covers_the_pages_appended_before_it(pki, signing_key):
    # extensions.md 12: appended PDFs are added in the engine's pass, the signature after it.
    terms = render_pdf(samples.invoice(), samples.invoice_row(2), samples.resolver)

    def resolver(ref: str) -> bytes:
        return terms if ref == "uploads:upl_terms" else samples.resolver(ref)

    appended = Finishing(append=["uploads:upl_terms"])
    unsigned = render_pdf(samples.invoice(), samples.invoice_row(1), resolver, finishing=appended)
    signed = sign_pdf(unsigned, signing_key, "standard")
    assert_intact_and_trusted(signed, pki, unsigned)
    assert pdf_text(signed)[-len(pdf_text(terms)) :] == pdf_text(terms)


def test_a_verifier_that_does_not_trust_the_ca_sees_an_intact_but_untrusted_signature(pki, signing_key):
    signed = sign_pdf(invoice("standard"), signing_key, "standard")
    (signature,) = PdfFileReader(io.BytesIO(signed)).embedded_signatures
    status = validate_pdf_signature(signature, Pki.make("Another CA").context())
    assert status.intact and not status.trusted


def test_a_changed_byte_makes_the_signature_broken(pki, signing_key):
    signed = bytearray(sign_pdf(invoice("standard"), signing_key, "standard"))
    at = signed.index(b"/Title")  # inside the signed range
    signed[at + 1 : at + 6] = b"Tytle"
    assert not validated(bytes(signed), pki).intact


def test_a_signed_pdf_a_render_stays_pdf_a_3b(pki, signing_key, tmp_path):
    unsigned = invoice("pdf-a")
    signed = sign_pdf(unsigned, signing_key, "pdf-a")
    assert_intact_and_trusted(signed, pki, unsigned)
    path = tmp_path / "signed-pdf-a.pdf"
    path.write_bytes(signed)
    assert_valid_signed_pdf_a(path)
    assert problems(signed) == []
    with pikepdf.open(io.BytesIO(signed)) as pdf, pdf.open_metadata() as meta:
        assert meta.get("pdfaid:part") == "3" and meta.get("pdfaid:conformance") == "B"
        assert "/OutputIntents" in pdf.Root


def test_the_pdf_a_gate_refuses_a_hidden_signature_widget(pki, credential, signing_key):
    """What the gate above is worth: pyHanko's PDF/UA setting for an untagged invisible field
    (the Hidden flag) breaks ISO 19005-3 6.3.2, and the gate says so."""
    writer = IncrementalPdfFileWriter(io.BytesIO(invoice("pdf-a")))
    spec = fields.SigFieldSpec("docbench", invis_sig_settings=fields.InvisSigSettings(set_hidden_flag=True))
    signed = signers.sign_pdf(
        writer,
        signers.PdfSignatureMetadata(field_name="docbench", subfilter=fields.SigSeedSubFilter.PADES),
        signer=signing_key.signer,
        new_field_spec=spec,
    ).getvalue()
    assert any(found.startswith("6.3.2-2") and "Hidden" in found for found in signed_pdf_a_problems(signed))


def test_a_signed_factur_x_invoice_stays_pdf_a_3b_and_readable(pki, signing_key, tmp_path):
    # pyHanko rewrites the XMP as it signs: the Factur-X properties keep their declared prefix.
    import facturx

    from engine import Finishing
    from tests.einvoices import INVOICE
    from workbench.notebook.einvoice import factur_x_xml

    xml = factur_x_xml(INVOICE, level="en16931")
    finishing = Finishing(e_invoice={"standard": "factur-x", "xml": base64.b64encode(xml).decode()})
    unsigned = render_pdf(samples.invoice(), samples.invoice_row(3), samples.resolver, "pdf-a", finishing=finishing)
    signed = sign_pdf(unsigned, signing_key, "pdf-a")
    assert_intact_and_trusted(signed, pki, unsigned)
    assert facturx.get_facturx_xml_from_pdf(signed, check_xsd=True) == ("factur-x.xml", xml)
    with pikepdf.open(io.BytesIO(signed)) as pdf:
        xmp = pdf.Root.Metadata.read_bytes().decode()
    assert 'fx:ConformanceLevel="EN 16931"' in xmp or "<fx:ConformanceLevel>EN 16931<" in xmp
    path = tmp_path / "signed-factur-x.pdf"
    path.write_bytes(signed)
    assert_valid_signed_pdf_a(path)


def test_a_signed_accessible_render_has_its_field_in_the_structure(pki, signing_key, tmp_path):
    unsigned = invoice("accessible")
    signed = sign_pdf(unsigned, signing_key, "accessible")
    assert_intact_and_trusted(signed, pki, unsigned)
    assert problems(signed) == []
    path = tmp_path / "signed-accessible.pdf"
    path.write_bytes(signed)
    assert_passes_outloud(path)
    with pikepdf.open(io.BytesIO(signed)) as pdf:
        (widget,) = pdf.Root.AcroForm.Fields
        assert str(widget.TU) == FIELD_DESCRIPTION  # PDF/UA-1 7.18.1
        page = pdf.pages[0].obj
        assert page.Tabs == "/S" and any(a.objgen == widget.objgen for a in page.Annots)  # 7.18.3
        root = pdf.Root.StructTreeRoot
        nums = list(root.ParentTree.Nums)
        form = dict(zip(nums[::2], nums[1::2], strict=True))[int(widget.StructParent)]
        assert form.S == "/Form" and form.K.Type == "/OBJR" and form.K.Obj.objgen == widget.objgen  # 7.18.4
        assert form.P.objgen == root.K.objgen and int(root.ParentTreeNextKey) == int(widget.StructParent) + 1
        with pdf.open_metadata() as meta:
            assert meta.get("pdfuaid:part") == "1"


def test_the_field_takes_the_next_structure_key_after_the_links_of_a_longer_document(signing_key, pki):
    """A letter over two sheets with a link: the link keeps its key, the widget takes the next."""
    unsigned = render_pdf(samples.flowing_letter(), samples.flowing_letter_row(), samples.resolver, "accessible")
    with pikepdf.open(io.BytesIO(unsigned)) as pdf:
        next_key = int(pdf.Root.StructTreeRoot.ParentTreeNextKey)
        links = {int(a.StructParent) for page in pdf.pages for a in page.obj.get("/Annots", [])}
    assert links and max(links) == next_key - 1
    signed = sign_pdf(unsigned, signing_key, "accessible")
    assert_intact_and_trusted(signed, pki, unsigned)
    assert problems(signed) == []
    with pikepdf.open(io.BytesIO(signed)) as pdf:
        (widget,) = pdf.Root.AcroForm.Fields
        assert int(widget.StructParent) == next_key
        nums = list(pdf.Root.StructTreeRoot.ParentTree.Nums)
        keys = [int(k) for k in nums[::2]]
        assert len(keys) == len(set(keys)) and next_key in keys and links <= set(keys)
        assert {
            int(a.StructParent) for page in pdf.pages for a in page.obj.get("/Annots", []) if a.Subtype == "/Link"
        } == links


def test_the_accessible_gate_refuses_the_field_pyhanko_leaves_untagged(signing_key, tmp_path):
    """Signed as if untagged (what pyHanko writes on its own), the same render fails outloud."""
    path = tmp_path / "untagged-field.pdf"
    path.write_bytes(sign_pdf(invoice("accessible"), signing_key, "standard"))
    result = outloud(path, "--fail-on", "warning")
    assert result.returncode != 0 and "FRM-003" in result.stdout, result.stdout


def test_an_encrypted_pdf_is_signed_with_its_password_and_stays_encrypted(pki, signing_key):
    """extensions.md 9 encrypts before it signs: the signature is added inside the encryption."""
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(invoice("accessible"))) as pdf:
        pdf.save(out, encryption=pikepdf.Encryption(owner="owner secret", user="reader", R=6))
    encrypted = out.getvalue()
    with pytest.raises(EngineError, match="needs its owner password"):
        sign_pdf(encrypted, signing_key, "accessible")
    with pytest.raises(EngineError, match="does not open"):
        sign_pdf(encrypted, signing_key, "accessible", password="a guess")
    signed = sign_pdf(encrypted, signing_key, "accessible", password="owner secret")
    assert signed[: len(encrypted)] == encrypted
    reader = PdfFileReader(io.BytesIO(signed))
    reader.decrypt(b"reader")
    status = validate_pdf_signature(reader.embedded_signatures[0], pki.context())
    assert status.intact and status.trusted and status.coverage.name == "ENTIRE_FILE"
    with pikepdf.open(io.BytesIO(signed), password="reader") as pdf:
        assert pdf.encryption.R == 6 and str(pdf.Root.AcroForm.Fields[0].TU) == FIELD_DESCRIPTION
        clear = io.BytesIO()
        pdf.save(clear, encryption=False)
    assert problems(clear.getvalue()) == []


def test_one_key_signs_many_documents_each_with_its_own_signature(pki, signing_key):
    documents = [invoice("standard", row) for row in (1, 2, 3)]
    signed = [sign_pdf(document, signing_key, "standard") for document in documents]
    for unsigned, result in zip(documents, signed, strict=True):
        assert_intact_and_trusted(result, pki, unsigned)
    assert len({bytes(PdfFileReader(io.BytesIO(s)).embedded_signatures[0].pkcs7_content) for s in signed}) == 3


def test_one_key_signs_on_several_threads_at_once(pki, credential):
    """The API's render threads share a workspace's key: each thread signs with its own loop."""
    key = SigningKey.from_pkcs12(credential.p12, PASSWORD)  # fresh: its first signatures measure the room
    documents = [invoice("standard", row) for row in range(4)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        signed = list(pool.map(lambda document: sign_pdf(document, key, "standard"), documents))
    for unsigned, result in zip(documents, signed, strict=True):
        assert_intact_and_trusted(result, pki, unsigned)


def test_signing_works_where_an_event_loop_already_runs(pki, signing_key):
    """A notebook's cell runs inside an event loop, where pyHanko's own sign_pdf cannot start one."""
    unsigned = invoice("standard")

    async def in_a_notebook() -> bytes:
        return sign_pdf(unsigned, signing_key, "standard")

    assert_intact_and_trusted(asyncio.run(in_a_notebook()), pki, unsigned)


def test_a_key_cache_opens_each_version_once(credential, pki):
    cache = KeyCache(size=2)
    first = cache.get("crt_1", credential.p12, PASSWORD)
    assert cache.get("crt_1", b"not read again", PASSWORD) is first
    other_key = ec.generate_private_key(ec.SECP256R1())
    second = cache.get("crt_2", pki.pkcs12(other_key, pki.issue(other_key, "Second signer")), PASSWORD)
    assert second is not first and "Second signer" in second.info.subject
    cache.get("crt_3", pki.pkcs12(other_key, pki.issue(other_key, "Third signer")), PASSWORD)
    assert cache.lookup("crt_1") is None and cache.lookup("crt_2") is second  # the least recently used went


def test_ec_keys_sign_too(pki):
    key = ec.generate_private_key(ec.SECP384R1())
    signing_key = SigningKey.from_pkcs12(pki.pkcs12(key, pki.issue(key)), PASSWORD)
    unsigned = invoice("standard")
    assert_intact_and_trusted(sign_pdf(unsigned, signing_key, "standard"), pki, unsigned)


def test_an_ec_key_does_not_sign_pdf_a_which_its_signature_would_make_pdf_2(pki, tmp_path):
    # pyHanko marks an EC signature (ISO 32002) by raising the file to PDF 2.0: PDF/A-3b
    # (6.1.2) forbids that, so pdf-a is signed with RSA keys only, and says so.
    key = ec.generate_private_key(ec.SECP256R1())
    signing_key = SigningKey.from_pkcs12(pki.pkcs12(key, pki.issue(key)), PASSWORD)
    with pytest.raises(SigningKeyError) as refused:
        sign_pdf(invoice("pdf-a"), signing_key, "pdf-a")
    assert "RSA key" in refused.value.message and 'pdfProfile "standard"' in refused.value.message
    signed = sign_pdf(invoice("accessible"), signing_key, "accessible")  # PDF/UA-1 does not mind
    assert validated(signed, pki).intact


def _refusals(pki: Pki, credential: Credential) -> dict[str, tuple[bytes, str | None, list[str]]]:
    """Each bad upload: the file, its password and what the refusal must say."""
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    rsa_key = credential.key
    expired = pki.issue(rsa_key, starts=dt.timedelta(days=-60), ends=dt.timedelta(days=-30))
    early = pki.issue(rsa_key, starts=dt.timedelta(days=10), ends=dt.timedelta(days=40))
    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    certificate_only = pkcs12.serialize_key_and_certificates(
        b"no key", None, credential.certificate, None, serialization.BestAvailableEncryption(PASSWORD.encode())
    )
    return {
        "not a PKCS#12": (b"%PDF-1.7 this is not a certificate", PASSWORD, ["not a PKCS#12"]),
        "wrong password": (credential.p12, "not the password", ["password does not open"]),
        "trimmed password": (credential.p12, PASSWORD.strip(), ["password does not open"]),
        "no password": (credential.p12, None, ["protected by a password"]),
        "no private key": (certificate_only, PASSWORD, ["no private key"]),
        "expired": (
            pki.pkcs12(rsa_key, expired),
            PASSWORD,
            ["expired on", (now - dt.timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%S")],
        ),
        "not valid yet": (
            pki.pkcs12(rsa_key, early),
            PASSWORD,
            ["not valid yet", (now + dt.timedelta(days=10)).strftime("%Y-%m-%dT%H:%M:%S")],
        ),
        "weak key": (pki.pkcs12(weak, pki.issue(weak)), PASSWORD, ["Key size 1024", "2048 bits or more"]),
        "no signing usage": (
            pki.pkcs12(rsa_key, pki.issue(rsa_key, signing=False)),
            PASSWORD,
            ["key usage allows neither digitalSignature nor nonRepudiation"],
        ),
    }


REFUSALS = [
    "not a PKCS#12",
    "wrong password",
    "trimmed password",
    "no password",
    "no private key",
    "expired",
    "not valid yet",
    "weak key",
    "no signing usage",
]


@pytest.mark.parametrize("case", REFUSALS)
def test_a_pkcs12_that_cannot_sign_is_refused_saying_why(case, pki, credential):
    data, password, phrases = _refusals(pki, credential)[case]
    with pytest.raises(SigningKeyError) as refused:
        SigningKey.from_pkcs12(data, password, at=dt.datetime.now(dt.UTC))
    for phrase in phrases:
        assert phrase in refused.value.message, refused.value.message


# The work a PKCS#12 asks of whoever opens it (issue 31), read from its DER before any is done

SCRYPT = "1.3.6.1.4.1.11591.4.11"


def exported(credential: Credential, rounds: int, scheme: pkcs12.PBES = pkcs12.PBES.PBESv2SHA256AndAES256CBC) -> bytes:
    """The credential exported with `rounds` iterations for its certificates and its key (the MAC keeps 2,048)."""
    protection = (
        serialization.PrivateFormat.PKCS12.encryption_builder()
        .kdf_rounds(rounds)
        .key_cert_algorithm(scheme)
        .build(PASSWORD.encode())
    )
    return pkcs12.serialize_key_and_certificates(b"signer", credential.key, credential.certificate, None, protection)


def reworked(
    data: bytes,
    mac_iterations: int | None = None,
    drop_mac: bool = False,
    repeat_safes: int = 1,
    safe_kdf: str | None = None,
) -> bytes:
    """`data` with its MAC's iteration count changed, or its MAC left out, its encrypted safes
    repeated, or their key derivation changed. A MAC left stale does not matter: the work is
    refused before the MAC is checked. Without a MAC, the file opens with nothing to check."""
    pfx = asn1_pkcs12.Pfx.load(data)
    safes = []
    for safe in pfx.authenticated_safe:
        if safe["content_type"].native == "encrypted_data":
            safe = safe.copy()
            if safe_kdf is not None:
                algorithm = safe["content"]["encrypted_content_info"]["content_encryption_algorithm"]
                algorithm["parameters"]["key_derivation_func"] = asn1_algos.KdfAlgorithm(
                    {"algorithm": safe_kdf, "parameters": asn1_core.Sequence.load(b"\x30\x00")}
                )
            safes += [safe] * repeat_safes
        else:
            safes.append(safe)
    content = asn1_cms.ContentInfo({"content_type": "data", "content": asn1_pkcs12.AuthenticatedSafe(safes).dump()})
    fields = {"version": "v3", "auth_safe": content}
    if not drop_mac:
        mac_data = pfx["mac_data"].copy()
        if mac_iterations is not None:
            mac_data["iterations"] = mac_iterations
        fields["mac_data"] = mac_data
    return asn1_pkcs12.Pfx(fields).dump(force=True)


def _too_much_work(credential: Credential, case: str) -> tuple[bytes, list[str]]:
    """A PKCS#12 that asks for more work than is allowed, and what its refusal must say."""
    over = MAX_KDF_ITERATIONS + 1
    if case == "MAC":
        return reworked(exported(credential, 2048), mac_iterations=200_000_000), [
            "MAC asks for 200,000,000 key-derivation iterations",
            f"at most {MAX_KDF_ITERATIONS:,}",
            "-iter 2048",
        ]
    if case == "encrypted safe and key bag":
        return exported(credential, over), [f"encrypted safe asks for {over:,} key-derivation iterations", "-iter 2048"]
    if case == "in all":
        return reworked(exported(credential, MAX_KDF_ITERATIONS), repeat_safes=2), [
            f"4 key derivations ask for {3 * MAX_KDF_ITERATIONS + 2048:,} iterations in all",
            f"at most {MAX_TOTAL_KDF_ITERATIONS:,}",
            "-iter 2048",
        ]
    assert case == "scrypt"
    return reworked(exported(credential, 2048), safe_kdf=SCRYPT), ["with scrypt, not PBKDF2"]


@pytest.mark.parametrize("case", ["MAC", "encrypted safe and key bag", "in all", "scrypt"])
def test_a_pkcs12_asking_for_more_key_derivation_than_allowed_is_refused_before_any_runs(case, credential):
    data, phrases = _too_much_work(credential, case)
    started = time.process_time()
    with pytest.raises(SigningKeyError) as refused:
        SigningKey.from_pkcs12(data, PASSWORD, at=dt.datetime.now(dt.UTC))
    # CPU time, which other processes do not inflate: opening the lightest of these runs over 2M iterations (≥ 0.2 s).
    assert time.process_time() - started < 0.1
    for phrase in phrases:
        assert phrase in refused.value.message, refused.value.message


def test_a_pkcs12_at_the_bound_opens(credential):
    key = SigningKey.from_pkcs12(exported(credential, MAX_KDF_ITERATIONS), PASSWORD)
    assert key.info.subject == credential.certificate.subject.rfc4514_string()


def test_a_nul_in_the_password_is_refused_saying_so(credential):
    # cryptography panics on it (PanicException, a BaseException): the request it served never answered.
    with pytest.raises(SigningKeyError) as refused:
        SigningKey.from_pkcs12(credential.p12, "Tr0ub\x00dor")
    assert "NUL character (U+0000)" in refused.value.message


# The certificate store, over real HTTP on each store


class SigningServer:
    """A real `docbench serve` with a pro and a starter workspace; every answer it gives is kept."""

    def __init__(self, tmp_path_factory, database_url: str | None, env: dict[str, str] | None = None):
        from api.service import Service, Settings

        self.data_dir = tmp_path_factory.mktemp("signing")
        self.database_url = database_url
        service = Service(Settings(data_dir=self.data_dir, database_url=database_url))
        self.workspace, self.key = service.accounts.create_workspace("signs", "pro", 100)
        self.starter_key = service.accounts.create_workspace("starts", "starter", 100)[1]
        service.close()
        self.server = Server(self.data_dir, env={"DOCBENCH_DATABASE_URL": database_url or "", **(env or {})}).start()
        self.answers: list[bytes] = []

    def client(self, key: str | None = None):
        client = self.server.client(key or self.key)
        client.event_hooks["response"].append(lambda response: self.answers.append(response.read()))
        return client


@pytest.fixture(scope="module")
def signing(request, tmp_path_factory, store):
    env = SigningServer(tmp_path_factory, store_database_url(request, store))
    yield env
    env.server.stop()


def upload(client, data: bytes, password: str | None = PASSWORD):
    return client.put(
        "/signing-certificate",
        files={"file": ("signer.p12", data, "application/x-pkcs12")},
        data={} if password is None else {"password": password},
    )


def certificate_fields(certificate: x509.Certificate) -> dict:
    def iso(moment: dt.datetime) -> str:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")

    return {
        "subject": certificate.subject.rfc4514_string(),
        "issuer": certificate.issuer.rfc4514_string(),
        "notBefore": iso(certificate.not_valid_before_utc),
        "notAfter": iso(certificate.not_valid_after_utc),
    }


def test_an_uploaded_certificate_is_answered_by_put_and_get(signing, credential):
    expected = certificate_fields(credential.certificate)
    assert expected["subject"] == "O=docbench tests,CN=Signer of docbench"
    with signing.client() as client:
        assert client.data(upload(client, credential.p12), 200) == expected
        assert client.data(client.get("/signing-certificate"), 200) == expected


@pytest.mark.parametrize("case", ["not a PKCS#12", "wrong password", "no private key", "expired", "weak key"])
def test_a_bad_upload_is_a_400_naming_the_fix(case, signing, pki, credential):
    data, password, phrases = _refusals(pki, credential)[case]
    with signing.client() as client:
        message = client.error(upload(client, data, password), 400, "VALIDATION_ERROR")
    assert message.startswith("file: ")
    for phrase in phrases:
        assert phrase in message, message


def test_an_upload_without_the_file_part_is_refused(signing):
    with signing.client() as client:
        response = client.put("/signing-certificate", files={"password": (None, PASSWORD)})
        message = client.error(response, 400, "VALIDATION_ERROR")
    assert "PKCS#12" in message and "'file'" in message


def test_any_plan_with_api_access_keeps_a_certificate(signing, credential):
    # Signing is not a plan feature (decisions.md's plans are unchanged): a starter workspace
    # keeps its own certificate; its certificate is not the pro workspace's.
    with signing.client(signing.starter_key) as client:
        client.data(upload(client, credential.p12), 200)
        assert "CN=" in client.data(client.get("/signing-certificate"), 200)["subject"]
        client.data(client.delete("/signing-certificate"), 200)


def test_mcp_tools_upload_and_answer_the_same_certificate(signing, credential):
    encoded = base64.b64encode(credential.p12).decode()

    async def script(session):
        wrong = await session.call_tool("upload_signing_certificate", {"file": encoded, "password": "not the password"})
        kept = await session.call_tool("upload_signing_certificate", {"file": encoded, "password": PASSWORD})
        answered = await session.call_tool("get_signing_certificate", {})
        return wrong, kept, answered

    wrong, kept, answered = run(signing.server, signing.key, script)
    assert "password does not open" in failed(wrong, "VALIDATION_ERROR")
    assert ok(kept) == ok(answered) == certificate_fields(credential.certificate)
    for result in (wrong, kept, answered):
        signing.answers.append(json.dumps([c.model_dump() for c in result.content]).encode())


def test_a_pkcs12_asking_for_200_million_iterations_is_a_prompt_400_over_rest_and_mcp(signing, credential):
    """Issue 31: its MAC held the server for 12.8 s, and every other workspace with it."""
    data, phrases = _too_much_work(credential, "MAC")
    started = time.monotonic()
    with signing.client() as client:
        message = client.error(upload(client, data), 400, "VALIDATION_ERROR")
    assert time.monotonic() - started < 10  # a render process's round trip; the KDF alone took 12.8 s
    assert message.startswith("file: the PKCS#12's MAC")
    for phrase in phrases:
        assert phrase in message, message

    async def script(session):
        arguments = {"file": base64.b64encode(data).decode(), "password": PASSWORD}
        return await session.call_tool("upload_signing_certificate", arguments)

    message = failed(run(signing.server, signing.key, script), "VALIDATION_ERROR")
    assert message.startswith("file: the PKCS#12's MAC") and "-iter 2048" in message


def test_a_nul_in_the_password_is_a_400_saying_so(signing, credential):
    with signing.client() as client:
        message = client.error(upload(client, credential.p12, "Tr0ub\x00dor"), 400, "VALIDATION_ERROR")
    assert message.startswith("password: ") and "NUL character (U+0000)" in message


def test_a_pkcs12_over_256_kb_is_refused_over_rest_and_mcp(signing, pki, credential):
    # A real one, its chain padded with copies of the CA to 280 KB: under the body limit's slack
    # for the multipart framing, so the service's own check is the one that answers.
    protection = serialization.BestAvailableEncryption(PASSWORD.encode())

    def exported_with(copies: int) -> bytes:
        chain = [pki.ca] * copies
        return pkcs12.serialize_key_and_certificates(b"big", credential.key, credential.certificate, chain, protection)

    one = len(exported_with(1))
    data = exported_with((280 * 1024 - one) // (len(exported_with(2)) - one) + 1)
    assert 256 * 1024 < len(data) < 310 * 1024
    with signing.client() as client:
        message = client.error(upload(client, data), 400, "VALIDATION_ERROR")
    assert message == f"file: the file is {len(data):,} bytes; a PKCS#12 may be at most 256 KB " + (
        "(a certificate, its key and its chain take a few): export only those"
    )

    async def script(session):
        arguments = {"file": base64.b64encode(data).decode(), "password": PASSWORD}
        return await session.call_tool("upload_signing_certificate", arguments)

    assert "at most 256 KB" in failed(run(signing.server, signing.key, script), "VALIDATION_ERROR")


def test_an_upload_is_opened_in_a_render_process_under_its_time_limit(tmp_path_factory, credential):
    """Opened on a web thread, a PKCS#12's key derivations held every request behind them
    (issue 31). In a render process, the certificate time limit stops one that takes longer:
    this one asks for 2,000,000 iterations (allowed; ≥ 0.25 s of CPU), the limit is 0.1 s."""
    env = SigningServer(tmp_path_factory, None, env={"DOCBENCH_CERTIFICATE_SECONDS": "0.1"})
    try:
        slow = reworked(
            exported(credential, MAX_KDF_ITERATIONS, pkcs12.PBES.PBESv1SHA1And3KeyTripleDESCBC), drop_mac=True
        )
        assert SigningKey.from_pkcs12(slow, PASSWORD).info.subject == credential.certificate.subject.rfc4514_string()
        with env.client() as client:
            message = client.error(upload(client, slow), 400, "VALIDATION_ERROR")
            assert message.startswith("file: the certificate took longer than the 0.1 s of time")
            assert "re-export the PKCS#12 with fewer key-derivation iterations" in message
            client.error(client.get("/signing-certificate"), 404, "SIGNING_CERTIFICATE_NOT_FOUND")
    finally:
        env.server.stop()


def test_delete_removes_the_certificate_then_get_is_404(signing, credential):
    with signing.client() as client:
        client.data(upload(client, credential.p12), 200)
        assert client.data(client.delete("/signing-certificate"), 200) == {"deleted": True}
        message = client.error(client.get("/signing-certificate"), 404, "SIGNING_CERTIFICATE_NOT_FOUND")
        assert "PUT /signing-certificate" in message
        client.error(client.delete("/signing-certificate"), 404, "SIGNING_CERTIFICATE_NOT_FOUND")


# sign: true on generate and batch (extensions.md 9), signed in the render processes


def signing_design(client) -> str:
    design_id = client.data(client.post("/designs", json={"name": "Contract"}), 201)["designId"]
    text = {"type": "text", "name": "party", "position": {"x": 60, "y": 60}, "data": {"content": "Party"}}
    actions = [{"type": "add_element", "args": text}, {"type": "bind_variable", "args": {"name": "party"}}]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    return design_id


@pytest.mark.parametrize("profile", ["standard", "accessible", "pdf-a"])
def test_generate_with_sign_is_signed_last_and_keeps_its_profile(signing, credential, pki, profile, tmp_path):
    import httpx

    with signing.client() as client:
        client.data(upload(client, credential.p12), 200)
        design_id = signing_design(client)
        body = {"data": {"party": "Globex"}, "pdfProfile": profile, "sign": True}
        url = client.data(client.post(f"/designs/{design_id}/generate", json=body), 201)["downloadUrl"]
    signed = httpx.get(url).content
    status = validated(signed, pki)
    assert status.intact and status.valid and status.trusted, status.pretty_print_details()
    assert "Globex" in pdf_text(signed)[0]
    path = tmp_path / f"signed-{profile}.pdf"
    path.write_bytes(signed)
    if profile == "pdf-a":
        assert_valid_signed_pdf_a(path)
    elif profile == "accessible":
        assert_passes_outloud(path)


def test_every_row_of_a_batch_with_sign_is_signed(signing, credential, pki):
    import zipfile

    import httpx

    from tests.batch_jobs import wait_for_end

    with signing.client() as client:
        client.data(upload(client, credential.p12), 200)
        design_id = signing_design(client)
        body = {"rows": [{"party": f"Party {n}"} for n in range(3)], "sign": True, "watermark": {"text": "COPY"}}
        job_id = client.data(client.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
        assert wait_for_end(client, job_id)["completed"] == 3
        url = client.data(client.get(f"/batches/{job_id}/download"), 200)["downloadUrl"]
    archive = zipfile.ZipFile(io.BytesIO(httpx.get(url).content))
    for number in range(3):
        signed = archive.read(f"row-{number + 1:04d}.pdf")
        status = validated(signed, pki)
        assert status.intact and status.trusted, status.pretty_print_details()
        assert f"Party {number}" in pdf_text(signed)[0] and "COPY" in pdf_text(signed)[0]


def test_sign_without_a_certificate_is_a_400_before_anything_is_charged(signing, credential):
    with signing.client() as client:
        design_id = signing_design(client)
        client.data(upload(client, credential.p12), 200)
        client.data(client.delete("/signing-certificate"), 200)
        credits = client.data(client.get("/me"), 200)["credits"]
        for path, body in [("generate", {"sign": True}), ("batch", {"rows": [{}], "sign": True})]:
            message = client.error(client.post(f"/designs/{design_id}/{path}", json=body), 400, "VALIDATION_ERROR")
            assert "no signing certificate" in message and "PUT /signing-certificate" in message
        assert client.data(client.get("/me"), 200)["credits"] == credits


def test_the_certificate_and_its_password_are_in_no_answer_log_blob_or_row(signing, credential):
    """Last of the HTTP tests: it reads every answer the others were given too, then stops the
    server to read the database row itself, and starts it again."""
    with signing.client() as client:
        client.data(upload(client, credential.p12), 200)
        client.data(client.get("/signing-certificate"), 200)
    secrets = _forms_of(credential.p12, PASSWORD)
    assert signing.answers
    for answer in signing.answers:
        assert not any(secret in answer for secret in secrets)
    log = signing.server.log_path.read_bytes()  # everything the server printed
    assert not any(secret in log for secret in secrets)
    blobs = [path for path in (signing.data_dir / "blobs").rglob("*") if path.is_file()]
    for path in blobs:
        assert not any(secret in path.read_bytes() for secret in secrets), path
    signing.server.stop()
    try:
        row = _certificate_row(signing)
    finally:
        signing.server.start()
    assert row is not None
    version, sealed, subject = row
    assert subject == credential.certificate.subject.rfc4514_string()
    assert not any(secret in sealed.encode() for secret in secrets)
    assert not any(secret in base64.b64decode(sealed) for secret in secrets)
    if signing.database_url is None:  # the database file, its write-ahead log and postings journal if left
        for path in [*signing.data_dir.glob("docbench.duckdb*"), *signing.data_dir.glob("docbench.duckdb.*/*")]:
            if path.is_dir():
                continue
            assert not any(secret in path.read_bytes() for secret in secrets), path


def _forms_of(p12: bytes, password: str) -> list[bytes]:
    """The ways a secret could be written out: as is, base64, hex; the password alone and
    trimmed (a long enough slice of the PKCS#12 stands for all of it)."""
    middle = p12[len(p12) // 3 : len(p12) // 3 + 48]
    return [
        middle,
        base64.b64encode(p12)[64:160],
        middle.hex().encode(),
        password.encode(),
        password.strip().encode(),
    ]


def _certificate_row(signing: SigningServer):
    from api.service import Settings
    from api.store import open_store

    store = open_store(Settings(data_dir=signing.data_dir, database_url=signing.database_url))
    try:
        return store.one(
            "SELECT version, sealed, subject FROM signing_certificates WHERE workspace_id = ?", [signing.workspace.id]
        )
    finally:
        store.close()


# The service: material_for, what a render process signs with


@pytest.fixture
def service_settings(tmp_path, database_url):
    from api.service import Settings

    return Settings(data_dir=tmp_path / "data", database_url=database_url, secret="the servers' shared secret")


def opened(material) -> SigningKey:  # noqa: ANN001 (an api.sealing.SigningMaterial)
    """The key as a render process opens it from what the service hands it."""
    return KeyCache().get(material.version, material.pkcs12, material.password)


def test_material_for_is_the_kept_certificate_by_version_with_its_key_type(service_settings, pki, credential):
    from api.service import Service

    service = Service(service_settings)
    try:
        ws, _ = service.accounts.create_workspace("signs", "pro", 10)
        service.signing.upload(ws, credential.p12, PASSWORD)
        material = service.signing.material_for(ws, "pdf-a")
        assert material.key_type == "rsa"
        unsigned = invoice("standard")
        assert_intact_and_trusted(sign_pdf(unsigned, opened(material), "standard"), pki, unsigned)
        other_key = ec.generate_private_key(ec.SECP256R1())
        service.signing.upload(ws, pki.pkcs12(other_key, pki.issue(other_key, "Renewed signer")), PASSWORD)
        renewed = service.signing.material_for(ws, "standard")
        assert renewed.version != material.version and renewed.key_type == "ec"
        assert "Renewed signer" in opened(renewed).info.subject
        # An EC key cannot sign pdf-a: refused from the kept type, before anything renders or is queued.
        for ask in (lambda: service.signing.material_for(ws, "pdf-a"), lambda: service.signing.sealed_for(ws, "pdf-a")):
            with pytest.raises(Exception) as refused:
                ask()
            assert (
                refused.value.code == "VALIDATION_ERROR"
                and "needs a certificate with an RSA key" in refused.value.message
            )
        service.signing.delete(ws)
        with pytest.raises(Exception) as refused:
            service.signing.material_for(ws, "standard")
        assert refused.value.code == "VALIDATION_ERROR" and "no signing certificate" in refused.value.message
    finally:
        service.close()


def test_a_certificate_sealed_under_another_secret_is_refused_until_uploaded_again(service_settings, credential):
    from api.service import Service, Settings

    service = Service(service_settings)
    try:
        ws, _ = service.accounts.create_workspace("signs", "pro", 10)
        service.signing.upload(ws, credential.p12, PASSWORD)
    finally:
        service.close()
    other = Service(
        Settings(data_dir=service_settings.data_dir, database_url=service_settings.database_url, secret="another one")
    )
    try:
        with pytest.raises(Exception) as refused:
            other.signing.material_for(ws, "standard")
        assert (
            refused.value.code == "VALIDATION_ERROR"
            and "does not open with this server's secret" in refused.value.message
        )
        other.signing.upload(ws, credential.p12, PASSWORD)
        material = other.signing.material_for(ws, "standard")
        assert opened(material).info.subject == credential.certificate.subject.rfc4514_string()
    finally:
        other.close()


def test_a_worker_with_the_servers_secret_opens_the_sealed_certificate_of_a_queued_job(
    service_settings, pki, credential
):
    """What a batch queued to Redis can carry: the sealed value (JSON-safe), opened by a worker
    that has --secret and signs with it; a worker with another secret is refused."""
    from dataclasses import asdict

    from api.sealing import SealedCertificate, open_sealed, server_secret
    from api.service import Service

    service = Service(service_settings)
    try:
        ws, _ = service.accounts.create_workspace("signs", "pro", 10)
        service.signing.upload(ws, credential.p12, PASSWORD)
        queued = json.dumps(asdict(service.signing.sealed_for(ws)))
    finally:
        service.close()
    assert not any(secret in queued.encode() for secret in _forms_of(credential.p12, PASSWORD))
    sealed = SealedCertificate(**json.loads(queued))
    material = open_sealed(server_secret(service_settings), sealed)
    key = KeyCache().get(material.version, material.pkcs12, material.password)
    unsigned = invoice("standard")
    assert_intact_and_trusted(sign_pdf(unsigned, key, "standard"), pki, unsigned)
    assert PASSWORD not in repr(material)
    with pytest.raises(Exception) as refused:
        open_sealed(b"another secret", sealed)
    assert "does not open with this server's secret" in refused.value.message


def test_the_sealed_value_does_not_open_in_another_workspaces_row(service_settings, credential):
    """The workspace id is sealed in with it: a row copied to another workspace does not open."""
    from api.service import Service

    service = Service(service_settings)
    try:
        owner, _ = service.accounts.create_workspace("owner", "pro", 10)
        thief, _ = service.accounts.create_workspace("thief", "pro", 10)
        service.signing.upload(owner, credential.p12, PASSWORD)
        with service.store.transaction() as cursor:
            cursor.execute(
                "INSERT INTO signing_certificates SELECT ?, version, sealed, subject, issuer, not_before, not_after, "
                "created_at FROM signing_certificates WHERE workspace_id = ?",
                [thief.id, owner.id],
            )
        with pytest.raises(Exception) as refused:
            service.signing.material_for(thief, "standard")
        assert "does not open with this server's secret" in refused.value.message
        material = service.signing.material_for(owner, "standard")
        assert opened(material).info.subject == credential.certificate.subject.rfc4514_string()
    finally:
        service.close()


def test_a_certificate_sealed_before_key_types_were_kept_is_still_handed_to_sign(service_settings, credential):
    """Sealed without its key's type (uploaded before issue 31): no profile is refused ahead,
    and the render process that opens it to sign decides (engine.finishing.signing.sign_pdf)."""
    from api.sealing import CertificateSeal, seal_context, server_secret
    from api.service import Service

    service = Service(service_settings)
    try:
        ws, _ = service.accounts.create_workspace("signs", "pro", 10)
        service.signing.upload(ws, credential.p12, PASSWORD)
        version = service.store.one("SELECT version FROM signing_certificates WHERE workspace_id = ?", [ws.id])[0]
        secret = json.dumps({"pkcs12": base64.b64encode(credential.p12).decode(), "password": PASSWORD}).encode()
        sealed = CertificateSeal(server_secret(service_settings)).seal(secret, seal_context(ws.id, version))
        with service.store.transaction() as cursor:
            cursor.execute("UPDATE signing_certificates SET sealed = ? WHERE workspace_id = ?", [sealed, ws.id])
        material = service.signing.material_for(ws, "pdf-a")
        assert material.key_type is None and opened(material).key_type == "rsa"
    finally:
        service.close()
