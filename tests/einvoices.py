"""Factur-X invoices for the tests, and hostile XML (external entities, entity expansion)."""

from __future__ import annotations

INVOICE = {
    "number": "INV-2026-0042",
    "issue_date": "2026-03-31",
    "due_date": "2026-04-30",
    "currency": "EUR",
    "seller": {"name": "Acme GmbH", "country": "DE", "vat_id": "DE123456789", "city": "Berlin", "postcode": "10115"},
    "buyer": {"name": "Globex SARL", "country": "FR"},
    "lines": [
        {"name": "Consulting", "quantity": 3, "unit_price": "120.00", "vat_rate": 19},
        {"name": "Handbook", "quantity": 2, "unit_price": "24.50", "vat_rate": 7},
    ],
}


def with_doctype(xml: bytes, doctype: bytes, number: bytes) -> bytes:
    """The invoice with a DOCTYPE after its XML declaration and its number replaced."""
    declaration, rest = xml.split(b"?>", 1)
    return declaration + b"?>" + doctype + rest.replace(INVOICE["number"].encode(), number, 1)


# An external entity that reads a local file, and nested entities that expand to 10^9 bytes.
XXE = (b'<!DOCTYPE rsm:CrossIndustryInvoice [<!ENTITY leak SYSTEM "file:///etc/passwd">]>', b"&leak;")


LAUGHS = (
    b'<!DOCTYPE rsm:CrossIndustryInvoice [<!ENTITY l0 "lol">'
    + b"".join(b'<!ENTITY l%d "%s">' % (i, b"&l%d;" % (i - 1) * 10) for i in range(1, 10))
    + b"]>",
    b"&l9;",
)
