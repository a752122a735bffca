"""A test PKI for signatures: a CA made with `cryptography`, the certificates it issues, PKCS#12
files of them, and what a verifier trusting the CA (and nothing else) validates with."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID
from pyhanko_certvalidator import ValidationContext

# Spaces at both ends: a password is kept exactly as sent (a name would be trimmed).
PASSWORD = "  Tr0ub4dor&3 signing pass  "
DER = serialization.Encoding.DER


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "docbench tests"),
        ]
    )


def _usage(signing: bool, ca: bool = False) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=signing,
        content_commitment=signing,
        key_encipherment=not signing and not ca,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=ca,
        crl_sign=ca,
        encipher_only=False,
        decipher_only=False,
    )


@dataclass
class Pki:
    ca_key: ec.EllipticCurvePrivateKey
    ca: x509.Certificate

    @classmethod
    def make(cls, name: str = "docbench Test CA") -> Pki:
        key = ec.generate_private_key(ec.SECP256R1())
        now = dt.datetime.now(dt.UTC)
        ca = (
            x509.CertificateBuilder()
            .subject_name(_name(name))
            .issuer_name(_name(name))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(_usage(False, ca=True), critical=True)
            .sign(key, hashes.SHA256())
        )
        return cls(key, ca)

    def issue(
        self,
        key,  # noqa: ANN001 (any private key type)
        name: str = "Signer of docbench",
        starts: dt.timedelta = dt.timedelta(days=-1),
        ends: dt.timedelta = dt.timedelta(days=30),
        signing: bool = True,
    ) -> x509.Certificate:
        now = dt.datetime.now(dt.UTC).replace(microsecond=0)
        return (
            x509.CertificateBuilder()
            .subject_name(_name(name))
            .issuer_name(self.ca.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now + starts)
            .not_valid_after(now + ends)
            .add_extension(_usage(signing), critical=True)
            .sign(self.ca_key, hashes.SHA256())
        )

    def pkcs12(self, key, certificate: x509.Certificate, password: str | None = PASSWORD) -> bytes:  # noqa: ANN001
        protection = (
            serialization.BestAvailableEncryption(password.encode()) if password else serialization.NoEncryption()
        )
        return pkcs12.serialize_key_and_certificates(b"docbench signer", key, certificate, [self.ca], protection)

    def context(self) -> ValidationContext:
        """What a verifier trusting this CA (and nothing else) validates with."""
        return ValidationContext(trust_roots=[asn1_x509.Certificate.load(self.ca.public_bytes(DER))])
