"""What each per-render finishing option (extensions.md 9) costs the engine, against the
plain render of the reference invoice in the same run.

    .venv/bin/python -m benchmarks.finishing [--quick] [--json]

Every case renders the invoice of workbench.samples from rows of its own (none drawn
before), interleaved with the others so a busy machine slows them alike; only
`render_pdf` is timed. The e-invoice
is an EN 16931 Factur-X XML of 20 lines built once by workbench.notebook.einvoice (its schema
check and embedding are timed; building it is not). "+ signature" renders and then signs
as a render process does (engine.finishing.signing.sign_pdf, PAdES B-B) with an RSA-2048 key of a
self-signed certificate made here, opened once as the render processes' key cache does.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from engine import Finishing, render_pdf
from engine.finishing.signing import SigningKey, sign_pdf
from workbench import samples
from workbench.notebook.einvoice import factur_x_xml

RUNS = 60
WARMUP_ROW = 1_000_000  # far from the timed rows: no timed render finds its row cached

INVOICE = {
    "number": "INV-2026-0001",
    "issue_date": "2026-03-31",
    "seller": {"name": "Acme GmbH", "country": "DE", "vat_id": "DE123456789"},
    "buyer": {"name": "Globex SARL", "country": "FR"},
    "lines": [
        {"name": f"Service {i}", "quantity": 1 + i % 4, "unit_price": "45.00", "vat_rate": 19} for i in range(20)
    ],
}


def signing_key() -> SigningKey:
    """A self-signed RSA-2048 signing certificate, as a PKCS#12, opened."""
    import datetime as dt

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, pkcs12
    from cryptography.x509.oid import NameOID

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "docbench benchmark signer")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.KeyUsage(True, True, False, False, False, False, False, False, False), critical=True)
        .sign(key, hashes.SHA256())
    )
    data = pkcs12.serialize_key_and_certificates(b"bench", key, certificate, None, BestAvailableEncryption(b"pw"))
    return SigningKey.from_pkcs12(data, "pw")


def cases() -> dict[str, tuple[str, Finishing | None]]:
    xml = factur_x_xml(INVOICE, "en16931")
    attachments = [
        {"name": "lines.csv", "mimeType": "text/csv", "content": b"item,qty\n" * 200},
        {"name": "logo.png", "mimeType": "image/png", "content": samples.logo_png()},
    ]
    return {
        "standard": ("standard", None),
        "pdf-a": ("pdf-a", None),
        "pdf-a + e-invoice": ("pdf-a", Finishing(e_invoice={"standard": "factur-x", "xml": xml})),
        "standard + attachments": ("standard", Finishing(attachments=attachments)),
        "standard + watermark": ("standard", Finishing(watermark={"text": "CONFIDENTIAL"})),
        "standard + encryption": (
            "standard",
            Finishing(encryption={"ownerPassword": "owner", "userPassword": "reader", "allow": ["print"]}),
        ),
        "accessible + encryption": ("accessible", Finishing(encryption={"ownerPassword": "owner", "allow": ["print"]})),
        "standard + signature": ("standard", Finishing(sign=True)),
        "pdf-a + signature": ("pdf-a", Finishing(sign=True)),
    }


def measure(runs: int) -> dict[str, float]:
    """Median milliseconds per PDF of each case."""
    design = samples.invoice()
    work = cases()
    key = signing_key()

    def render(row: dict, profile: str, finishing: Finishing | None) -> bytes:
        pdf = render_pdf(design, row, samples.resolver, profile, finishing=finishing)
        return sign_pdf(pdf, key, profile) if finishing is not None and finishing.sign else pdf

    for index, (profile, finishing) in enumerate(work.values()):  # fonts, schemas, imports warm
        render(samples.invoice_row(WARMUP_ROW + index), profile, finishing)
    times: dict[str, list[float]] = {name: [] for name in work}
    for run in range(runs):
        for index, (name, (profile, finishing)) in enumerate(work.items()):
            # Each case its own rows: a row drawn by the case before would find its text
            # and QR code in docbench's caches.
            row = samples.invoice_row(run * len(work) + index)
            start = time.perf_counter()
            render(row, profile, finishing)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) * 1000 for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a sixth of the runs")
    parser.add_argument("--json", action="store_true", help="also print one JSON object, last line")
    args = parser.parse_args()
    medians = measure(RUNS // 6 if args.quick else RUNS)
    base = medians["standard"]
    print(f"{'reference invoice':26s} {'ms/PDF':>8s} {'PDFs/s':>8s} {'vs standard':>12s}")
    for name, ms in medians.items():
        print(f"{name:26s} {ms:8.1f} {1000 / ms:8.1f} {ms / base:11.2f}x")
    if args.json:
        print(
            json.dumps({name: {"ms": round(ms, 2), "pdfs_per_s": round(1000 / ms, 1)} for name, ms in medians.items()})
        )


if __name__ == "__main__":
    main()
