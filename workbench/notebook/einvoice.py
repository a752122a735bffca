"""A Factur-X invoice XML from a dict or a DataFrame row, for people who have none
(extensions.md 9: `eInvoice`), built with drafthorse.

    from workbench.notebook.einvoice import factur_x_xml
    xml = factur_x_xml({
        "number": "INV-2026-001", "issue_date": "2026-03-31", "currency": "EUR",
        "seller": {"name": "Acme GmbH", "country": "DE", "vat_id": "DE123456789"},
        "buyer": {"name": "Globex SARL", "country": "FR"},
        "lines": [{"name": "Consulting", "quantity": 3, "unit_price": "120.00", "vat_rate": 19}],
    }, level="en16931")
    design.generate(row, profile="pdf-a", e_invoice=xml)

The totals are computed from the lines (net per VAT rate, VAT rounded to cents), so
they agree with each other. The XML is checked against the level's schema by drafthorse
as it is written, and by the engine again when it embeds it. A DataFrame row works as
well as a dict: nested values may also be given as flat columns (`seller_name`,
`seller_vat_id`, `buyer_name`, …), and `lines` is a list in one cell. Fields beyond
these (payment terms, bank account, allowances) need drafthorse itself: see its
README.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

Level = Literal["minimum", "basicwl", "basic", "en16931", "extended"]

# rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID per level.
GUIDELINES: dict[str, str] = {
    "minimum": "urn:factur-x.eu:1p0:minimum",
    "basicwl": "urn:factur-x.eu:1p0:basicwl",
    "basic": "urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic",
    "en16931": "urn:cen.eu:en16931:2017",
    "extended": "urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended",
}
_SCHEMAS = {
    "minimum": "FACTUR-X_MINIMUM",
    "basicwl": "FACTUR-X_BASIC-WL",
    "basic": "FACTUR-X_BASIC",
    "en16931": "FACTUR-X_EN16931",
    "extended": "FACTUR-X_EXTENDED",
}
_WITH_LINES = {"basic", "en16931", "extended"}  # MINIMUM and BASIC WL carry totals only
CENT = Decimal("0.01")


def factur_x_xml(invoice: Mapping[str, Any] | Any, level: Level = "en16931") -> bytes:
    """The invoice as Factur-X XML of the given level (minimum, basicwl, basic, en16931,
    extended). Keys: number, issue_date (date or ISO text), currency (default EUR),
    type_code (default 380, an invoice; 381 a credit note), seller {name, country,
    vat_id, street?, postcode?, city?}, buyer {name, country?, street?, postcode?,
    city?}, lines [{name, quantity, unit_price, vat_rate (percent, default 0),
    unit (UN/ECE code, default C62 "one")}], due_date?, buyer_reference?."""
    from drafthorse.models.accounting import ApplicableTradeTax
    from drafthorse.models.document import Document
    from drafthorse.models.party import TaxRegistration
    from drafthorse.models.payment import PaymentTerms
    from drafthorse.models.tradelines import LineItem

    if level not in GUIDELINES:
        raise ValueError(f"level must be one of {', '.join(GUIDELINES)} (got {level!r})")
    data = _as_dict(invoice)
    currency = str(data.get("currency") or "EUR")
    lines = [_line(line) for line in (data.get("lines") or [])]
    if not lines:
        raise ValueError("an invoice needs at least one line: lines=[{name, quantity, unit_price, vat_rate}]")

    doc = Document()
    doc.context.guideline_parameter.id = GUIDELINES[level]
    doc.header.id = str(_required(data, "number"))
    doc.header.type_code = str(data.get("type_code") or "380")
    doc.header.issue_date_time = _date(_required(data, "issue_date"))

    seller = doc.trade.agreement.seller
    seller.name = str(_party(data, "seller", "name", required=True))
    _address(seller.address, data, "seller", required=True, country_only=level == "minimum")
    vat_id = _party(data, "seller", "vat_id")
    if vat_id:
        seller.tax_registrations.add(TaxRegistration(id=("VA", str(vat_id))))
    buyer = doc.trade.agreement.buyer
    buyer.name = str(_party(data, "buyer", "name", required=True))
    if level != "minimum":
        _address(buyer.address, data, "buyer", required=False)
    if data.get("buyer_reference"):
        doc.trade.agreement.buyer_reference = str(data["buyer_reference"])

    settlement = doc.trade.settlement
    settlement.currency_code = currency
    by_rate: dict[Decimal, Decimal] = {}
    for index, line in enumerate(lines, start=1):
        by_rate[line["vat_rate"]] = by_rate.get(line["vat_rate"], Decimal(0)) + line["net"]
        if level in _WITH_LINES:
            item = LineItem()
            item.document.line_id = str(index)
            item.product.name = line["name"]
            item.agreement.net.amount = line["unit_price"]
            item.delivery.billed_quantity = (line["quantity"], line["unit"])
            item.settlement.trade_tax.type_code = "VAT"
            item.settlement.trade_tax.category_code = _category(line["vat_rate"])
            item.settlement.trade_tax.rate_applicable_percent = line["vat_rate"]
            item.settlement.monetary_summation.total_amount = line["net"]
            doc.trade.items.add(item)
    net_total = sum(by_rate.values(), Decimal(0)).quantize(CENT)
    vat_total = Decimal(0)
    for rate, basis in sorted(by_rate.items()):
        vat = (basis * rate / 100).quantize(CENT, ROUND_HALF_UP)
        vat_total += vat
        if level != "minimum":
            tax = ApplicableTradeTax()
            tax.calculated_amount = vat
            tax.type_code = "VAT"
            tax.basis_amount = basis.quantize(CENT)
            tax.category_code = _category(rate)
            tax.rate_applicable_percent = rate
            settlement.trade_tax.add(tax)
    if data.get("due_date") and level != "minimum":
        term = PaymentTerms()
        term.due = _date(data["due_date"])
        settlement.terms.add(term)
    totals = settlement.monetary_summation
    if level != "minimum":
        totals.line_total = net_total
        totals.charge_total = Decimal("0.00")
        totals.allowance_total = Decimal("0.00")
    totals.tax_basis_total = net_total
    totals.tax_total = (vat_total, currency)
    totals.grand_total = net_total + vat_total
    totals.due_amount = net_total + vat_total
    return doc.serialize(schema=_SCHEMAS[level])


def _as_dict(invoice: Mapping[str, Any] | Any) -> dict[str, Any]:
    """A dict as given, or a pandas row (Series) as its dict."""
    if hasattr(invoice, "to_dict"):
        return dict(invoice.to_dict())
    return dict(invoice)


def _required(data: Mapping[str, Any], key: str) -> Any:
    value = data.get(key)
    if value is None or value == "":
        raise ValueError(f"the invoice needs {key!r}")
    return value


def _party(data: Mapping[str, Any], party: str, key: str, required: bool = False) -> Any:
    """seller.name from {"seller": {"name": …}} or from a flat column seller_name."""
    nested = data.get(party)
    value = nested.get(key) if isinstance(nested, Mapping) else None
    if value is None:
        value = data.get(f"{party}_{key}")
    if required and (value is None or value == ""):
        raise ValueError(f"the invoice needs {party}.{key} (or a column {party}_{key})")
    return value


def _address(address: Any, data: Mapping[str, Any], party: str, required: bool, country_only: bool = False) -> None:
    country = _party(data, party, "country", required=required)
    if not country:
        return
    address.country_id = str(country)
    if country_only:  # MINIMUM has the seller's country and nothing else of the address
        return
    for key, field in (("postcode", "postcode"), ("street", "line_one"), ("city", "city_name")):
        value = _party(data, party, key)
        if value:
            setattr(address, field, str(value))


def _line(line: Mapping[str, Any]) -> dict[str, Any]:
    quantity = Decimal(str(line.get("quantity", 1)))
    unit_price = Decimal(str(_required(line, "unit_price")))
    return {
        "name": str(_required(line, "name")),
        "quantity": quantity,
        "unit_price": unit_price,
        "vat_rate": Decimal(str(line.get("vat_rate", 0))),
        "unit": str(line.get("unit") or "C62"),
        "net": (quantity * unit_price).quantize(CENT, ROUND_HALF_UP),
    }


def _category(rate: Decimal) -> str:
    """UNTDID 5305: S standard rate, Z zero rated."""
    return "S" if rate > 0 else "Z"


def _date(value: Any) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if hasattr(value, "date"):  # a pandas Timestamp
        return value.date()
    return dt.date.fromisoformat(str(value))


__all__ = ["GUIDELINES", "Level", "factur_x_xml"]
