"""workbench.notebook.einvoice: a Factur-X XML from a dict or a DataFrame row, for people who have
none, checked by the factur-x library against the schema of the level it declares."""

from __future__ import annotations

from decimal import Decimal

import facturx
import pandas as pd
import pytest
from lxml import etree

from workbench.notebook.einvoice import factur_x_xml

NS = {
    "ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
    "rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
}
INVOICE = {
    "number": "INV-7",
    "issue_date": "2026-03-31",
    "seller": {"name": "Acme GmbH", "country": "DE", "vat_id": "DE123456789"},
    "buyer": {"name": "Globex SARL", "country": "FR"},
    "lines": [
        {"name": "Consulting", "quantity": 3, "unit_price": "120.00", "vat_rate": 19},
        {"name": "Handbook", "quantity": 2, "unit_price": "24.50", "vat_rate": 7},
        {"name": "Postage", "quantity": 1, "unit_price": "4.99"},
    ],
}


def total(xml: bytes, name: str) -> Decimal:
    (value,) = etree.fromstring(xml).xpath(
        f"//ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:{name}", namespaces=NS
    )
    return Decimal(value.text)


@pytest.mark.parametrize("level", ["minimum", "basicwl", "basic", "en16931", "extended"])
def test_xml_of_each_level_passes_the_schema_it_declares(level):
    xml = factur_x_xml(INVOICE, level)
    assert facturx.xml_check_xsd(xml, flavor="factur-x", level="autodetect")
    assert facturx.get_level(etree.fromstring(xml)) == level
    lines = etree.fromstring(xml).xpath("//ram:IncludedSupplyChainTradeLineItem", namespaces=NS)
    assert len(lines) == (3 if level in ("basic", "en16931", "extended") else 0)


def test_totals_are_computed_from_the_lines():
    xml = factur_x_xml(INVOICE, "en16931")
    net = Decimal("360.00") + Decimal("49.00") + Decimal("4.99")
    vat = Decimal("68.40") + Decimal("3.43")  # 19 % of 360, 7 % of 49 (rounded), none on postage
    assert total(xml, "TaxBasisTotalAmount") == net
    assert total(xml, "TaxTotalAmount") == vat
    assert total(xml, "GrandTotalAmount") == total(xml, "DuePayableAmount") == net + vat


def test_a_dataframe_row_with_flat_columns_works_like_a_dict():
    frame = pd.DataFrame(
        [
            {
                "number": "INV-7",
                "issue_date": pd.Timestamp("2026-03-31"),
                "seller_name": "Acme GmbH",
                "seller_country": "DE",
                "seller_vat_id": "DE123456789",
                "buyer_name": "Globex SARL",
                "buyer_country": "FR",
                "lines": INVOICE["lines"],
            }
        ]
    )
    assert factur_x_xml(frame.iloc[0], "basic") == factur_x_xml(INVOICE, "basic")


def test_missing_fields_are_named():
    with pytest.raises(ValueError, match="seller.name"):
        factur_x_xml({**INVOICE, "seller": {"country": "DE"}})
    with pytest.raises(ValueError, match="at least one line"):
        factur_x_xml({**INVOICE, "lines": []})
    with pytest.raises(ValueError, match="level must be one of"):
        factur_x_xml(INVOICE, "comfort")
