"""The outside validators a tagged document must pass: pikepdf's PDF/A-3b check for the
pdf-a profile and outloud's accessibility check for the accessible one.

outloud (and PyMuPDF, AGPL, under it) is a test-only tool: it never ships with docbench."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pikepdf
import pikepdf.pdfa
from lxml import etree


def outloud(path: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(Path(sys.executable).parent / "outloud"), *options, str(path)], capture_output=True, text=True, timeout=120
    )


def assert_passes_outloud(path: Path) -> None:
    result = outloud(path, "--fail-on", "warning")
    assert result.returncode == 0, result.stdout + result.stderr


def assert_valid_pdf_a(path: Path) -> None:
    """pikepdf's PDF/A-3b check, plus the extension schemas it does not read.

    pikepdf 10's validator permits only the XMP schemas ISO 19005 predefines, so it
    refuses the Factur-X properties (fx:) although the document declares them in a PDF/A
    extension schema, as ISO 19005-3 6.6.2.3.2 allows. Here the extension schemas are
    checked for the fields 6.6.2.3.3 requires, and pikepdf's findings that name exactly
    a namespace or property they declare are set aside; every other finding fails."""
    report = pikepdf.pdfa.validate_written(path, "3b")
    declared = declared_extension_schemas(path)
    left = [finding for finding in report.findings if not _declared(finding, declared)]
    assert not left, report.summary()


RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
PDFA_EXTENSION = "http://www.aiim.org/pdfa/ns/extension/"
PDFA_SCHEMA = "http://www.aiim.org/pdfa/ns/schema#"
PDFA_PROPERTY = "http://www.aiim.org/pdfa/ns/property#"
# The namespaces of the extension schema container itself (ISO 19005-3 6.6.2.3.3).
CONTAINER_NAMESPACES = {PDFA_EXTENSION, PDFA_SCHEMA, PDFA_PROPERTY}
VALUE_TYPES = {"Text", "Integer", "Real", "Boolean", "Date", "URI", "URL", "AgentName", "ProperName", "Locale"}


def declared_extension_schemas(path: Path) -> dict[str, tuple[str, set[str]]]:
    """prefix → (namespace URI, property names) of each PDF/A extension schema in the
    document's XMP, each checked for the fields ISO 19005-3 6.6.2.3.3 requires."""
    with pikepdf.open(path) as pdf:
        xmp = pdf.Root.Metadata.read_bytes()
    root = etree.fromstring(xmp)
    schemas: dict[str, tuple[str, set[str]]] = {}
    for schema in root.iterfind(f".//{{{PDFA_EXTENSION}}}schemas/{{{RDF}}}Bag/{{{RDF}}}li"):
        fields = {field: schema.findtext(f"{{{PDFA_SCHEMA}}}{field}") for field in ("schema", "namespaceURI", "prefix")}
        assert all(fields.values()), f"an extension schema lacks a field of 6.6.2.3.3: {fields}"
        names = set()
        for prop in schema.iterfind(f"{{{PDFA_SCHEMA}}}property/{{{RDF}}}Seq/{{{RDF}}}li"):
            values = {key: prop.findtext(f"{{{PDFA_PROPERTY}}}{key}") for key in ("name", "valueType", "category")}
            assert all(values.values()) and prop.find(f"{{{PDFA_PROPERTY}}}description") is not None, values
            assert values["valueType"] in VALUE_TYPES and values["category"] in ("internal", "external"), values
            names.add(values["name"])
        schemas[fields["prefix"]] = (fields["namespaceURI"], names)
    return schemas


_NAMESPACE = re.compile(r"XMP namespace (\S+?)=(\S+) is not permitted$")
_PROPERTY = re.compile(r"XMP property (\S+?):(\S+) is not permitted$")


def _declared(finding: pikepdf.pdfa.Finding, schemas: dict[str, tuple[str, set[str]]]) -> bool:
    """Whether a finding is only pikepdf not reading the document's extension schemas."""
    if not schemas or not finding.rule.endswith("6.6.2.3.1-1"):
        return False
    if match := _NAMESPACE.search(finding.message):
        prefix, uri = match.groups()
        return uri in CONTAINER_NAMESPACES or schemas.get(prefix, ("", set()))[0] == uri
    if match := _PROPERTY.search(finding.message):
        prefix, name = match.groups()
        return (prefix, name) == ("pdfaExtension", "schemas") or name in schemas.get(prefix, ("", set()))[1]
    return False


def assert_passes_its_profiles_validator(path: Path, profile: str) -> None:
    """pdf-a goes to the PDF/A validator, accessible to outloud."""
    if profile == "pdf-a":
        assert_valid_pdf_a(path)
    else:
        assert profile == "accessible", profile
        assert_passes_outloud(path)
