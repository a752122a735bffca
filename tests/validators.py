"""The outside validators a tagged document must pass: pikepdf's PDF/A-3b check for the
pdf-a profile and outloud's accessibility check for the accessible one.

outloud (and PyMuPDF, AGPL, under it) is a test-only tool: it never ships with docbench."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pikepdf
import pikepdf.pdfa
from lxml import etree


def outloud(path: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(Path(sys.executable).parent / "outloud"), *options, str(path)], capture_output=True, text=True, timeout=120
    )


def outloud_findings(path: Path, rule: str) -> list[dict]:
    """outloud's findings of one rule, as its JSON report gives them (message, evidence, and
    the boxes of what it found, in PDF points from the page's bottom-left)."""
    result = outloud(path, "--json", "-", "--only", rule, "--fail-on", "never")
    assert result.returncode == 0, result.stdout + result.stderr
    return [finding for report in json.loads(result.stdout)["results"] for finding in report["findings"]]


def assert_passes_outloud(path: Path, skip: tuple[str, ...] = ()) -> None:
    result = outloud(path, "--fail-on", "warning", *(f"--skip={rule}" for rule in skip))
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
    for item in root.iterfind(f".//{{{PDFA_EXTENSION}}}schemas/{{{RDF}}}Bag/{{{RDF}}}li"):
        schema = _resource(item)
        fields = {field: _value(schema, PDFA_SCHEMA, field) for field in ("schema", "namespaceURI", "prefix")}
        assert all(fields.values()), f"an extension schema lacks a field of 6.6.2.3.3: {fields}"
        names = set()
        for item_of_property in schema.iterfind(f"{{{PDFA_SCHEMA}}}property/{{{RDF}}}Seq/{{{RDF}}}li"):
            prop = _resource(item_of_property)
            values = {key: _value(prop, PDFA_PROPERTY, key) for key in ("name", "valueType", "category")}
            assert all(values.values()) and _value(prop, PDFA_PROPERTY, "description") is not None, values
            assert values["valueType"] in VALUE_TYPES and values["category"] in ("internal", "external"), values
            names.add(values["name"])
        schemas[fields["prefix"]] = (fields["namespaceURI"], names)
    return schemas


def _resource(item: etree._Element) -> etree._Element:
    """An rdf:li's structure: its own children, or (RDF's other form, which pyHanko writes
    when it updates the XMP as it signs) those of the rdf:Description inside it."""
    inner = item.find(f"{{{RDF}}}Description")
    return item if inner is None else inner


def _value(node: etree._Element, namespace: str, name: str) -> str | None:
    """A simple property, written as a child element or as an attribute (both are RDF/XML)."""
    text = node.findtext(f"{{{namespace}}}{name}")
    return text if text is not None else node.get(f"{{{namespace}}}{name}")


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


def assert_passes_its_profiles_validator(path: Path, profile: str, skip: tuple[str, ...] = ()) -> None:
    """pdf-a goes to the PDF/A validator, accessible to outloud (but for its rules `skip`)."""
    if profile == "pdf-a":
        assert_valid_pdf_a(path)
    else:
        assert profile == "accessible", profile
        assert_passes_outloud(path, skip)


# What pikepdf's PDF/A validator does not check: it reports a form (/AcroForm and its widgets)
# and a developer extension other than Adobe's (PAdES's /ESIC) as "unsupported", so a signed
# file is never "passed". Those parts are checked here against the veraPDF rules of
# ISO 19005-3 that apply to them; pikepdf checks the rest of the file with them taken out.
WIDGET_FORBIDDEN_FLAGS = {1: "Invisible", 2: "Hidden", 32: "NoView", 256: "ToggleNoView"}
PRINT_FLAG = 4


def _terminal_fields(fields: pikepdf.Array) -> Iterator[pikepdf.Dictionary]:
    """The fields that hold values (ISO 32000-1 12.7.3.1): a field whose /Kids are fields (they
    have a /T) is only a name for them; the others are terminal fields."""
    for field in fields:
        kids = field.get("/Kids")
        if kids is not None and any("/T" in kid for kid in kids):
            yield from _terminal_fields(kids)
        else:
            yield field


def _widgets(field: pikepdf.Dictionary) -> list[pikepdf.Dictionary]:
    """A terminal field's widget annotations: its /Kids, or itself when field and widget are
    one merged dictionary (ISO 32000-1 12.7.3.1), as a signature field often is."""
    return list(field.Kids) if "/Kids" in field else [field]


def form_widgets(pdf: pikepdf.Pdf) -> set[tuple[int, int]]:
    """The objgen of every widget of an open document's AcroForm."""
    form = pdf.Root.get("/AcroForm")
    if form is None:
        return set()
    return {widget.objgen for field in _terminal_fields(form.Fields) for widget in _widgets(field)}


def signed_pdf_a_problems(data: bytes) -> list[str]:
    """Every ISO 19005-3 rule on forms and signatures the file breaks, by rule id: a signed
    file's, or any form's (fields with their widgets merged into them, or as their /Kids)."""
    from asn1crypto import cms

    found: list[str] = []
    with pikepdf.open(io.BytesIO(data)) as pdf:
        form = pdf.Root.get("/AcroForm")
        if form is None:
            return ["no /AcroForm: the file has no form field"]
        if form.get("/NeedAppearances", False) is True:
            found.append("6.4.1-3: /NeedAppearances is true")
        if "/XFA" in form:
            found.append("6.4.2-1: the form has /XFA")
        for field in _terminal_fields(form.Fields):
            name = str(field.get("/T", ""))
            # 6.4.1: no widget has an /A, and neither a widget nor a field has an /AA.
            for key in ("/A", "/AA"):
                if key in field:
                    found.append(f"6.4.1-1/2: field {name} has {key}")
            merged = "/Kids" not in field  # the field is its widget: checked above
            for number, widget in enumerate(_widgets(field)):
                label = name if merged else f"{name} (widget {number})"
                for key in () if merged else ("/A", "/AA"):
                    if key in widget:
                        found.append(f"6.4.1-1/2: widget {label} has {key}")
                found += _widget_problems(widget, label, _inherited(field, "/FT"))
            value = field.get("/V")
            if field.get("/FT") != "/Sig" or value is None:
                continue
            if "/Reference" in value and any(
                key in reference
                for reference in value.Reference
                for key in ("/DigestLocation", "/DigestMethod", "/DigestValue")
            ):
                found.append(f"6.1.12-2: signature {name} has digest keys in its references")
            start, first, second, length = (int(v) for v in value.ByteRange)
            contents_at = data.rfind(b"/Contents", 0, first)
            if (
                start != 0
                or second + length != len(data)
                or data[first : first + 1] != b"<"
                or data[second - 1 : second] != b">"
            ):
                found.append(f"6.4.3-1: signature {name}'s /ByteRange does not cover the file but its /Contents")
            if contents_at < 0:
                found.append(f"6.4.3-1: signature {name}'s excluded range is not its /Contents")
            signed_data = cms.ContentInfo.load(bytes(value.Contents))["content"]
            signer_infos = signed_data["signer_infos"]
            if len(signer_infos) != 1:
                found.append(f"6.4.3-3: signature {name} has {len(signer_infos)} SignerInfos")
            serials = {c.chosen.serial_number for c in signed_data["certificates"]}
            if any(info["sid"].chosen["serial_number"].native not in serials for info in signer_infos):
                found.append(f"6.4.3-2: signature {name} does not carry its signing certificate")
        found += _form_font_problems(form)
    return found


def _inherited(field: pikepdf.Dictionary, key: str) -> pikepdf.Object | None:
    """A field's inheritable entry (/FT, /Ff, /DA…): its own, or its nearest ancestor's."""
    while field is not None:
        if key in field:
            return field[key]
        field = field.get("/Parent")
    return None


def _widget_problems(widget: pikepdf.Dictionary, label: str, field_type: pikepdf.Object | None) -> list[str]:
    """ISO 19005-3 6.3.2 and 6.3.3 on one widget annotation: its flags and its appearance
    (6.3.3-3: a button's normal appearance is a dictionary of states, any other's a stream)."""
    found = []
    flags = int(widget.get("/F", -1))
    if flags < 0:
        found.append(f"6.3.2-1: widget {label} has no /F")
    else:
        if not flags & PRINT_FLAG:
            found.append(f"6.3.2-2: widget {label} lacks the Print flag")
        for bit, flag in WIDGET_FORBIDDEN_FLAGS.items():
            if flags & bit:
                found.append(f"6.3.2-2: widget {label} has the {flag} flag")
    x1, y1, x2, y2 = (float(v) for v in widget.Rect)
    if (x1 != x2 or y1 != y2) and "/AP" not in widget:
        found.append(f"6.3.3-1: widget {label} has an area and no appearance")
    if "/AP" in widget and set(widget.AP.keys()) != {"/N"}:
        found.append(f"6.3.3-2: widget {label}'s appearance has more than /N")
    normal = widget.get("/AP", {}).get("/N")
    if normal is not None and isinstance(normal, pikepdf.Stream) == (field_type == "/Btn"):
        found.append(f"6.3.3-3: widget {label} ({field_type}) has the wrong kind of /N")
    return found


def _form_font_problems(form: pikepdf.Dictionary) -> list[str]:
    """ISO 19005-3 6.2.11 on the fonts a form draws with, which pikepdf's check leaves out with
    the form: its /DR fonts and those of its widgets' appearances are embedded (6.2.11.4.1), a
    simple TrueType font's /Widths are its program's advances (6.2.11.5), and a non-symbolic
    one is WinAnsi- or MacRoman-encoded with a (3,1) cmap to look its glyphs up (6.2.11.6)."""
    from fontTools.ttLib import TTFont

    fonts: dict[tuple[int, int], pikepdf.Dictionary] = {}
    for font in form.get("/DR", {}).get("/Font", {}).values():
        fonts[font.objgen] = font
    for field in _terminal_fields(form.Fields):
        for widget in _widgets(field):
            normal = widget.get("/AP", {}).get("/N")
            streams = [normal] if isinstance(normal, pikepdf.Stream) else list((normal or {}).values())
            for stream in streams:
                for font in stream.get("/Resources", {}).get("/Font", {}).values():
                    fonts[font.objgen] = font
    found = []
    for font in fonts.values():
        name = str(font.get("/BaseFont", ""))
        descriptor = font.get("/FontDescriptor", {})
        program = descriptor.get("/FontFile2")
        if program is None:
            found.append(f"6.2.11.4.1-1: the form font {name} is not embedded as TrueType")
            continue
        if font.get("/Subtype") != "/TrueType":
            continue
        ttf = TTFont(io.BytesIO(program.read_bytes()))
        symbolic = int(descriptor.get("/Flags", 0)) & 4
        encoding = font.get("/Encoding")
        if not symbolic and (
            encoding not in ("/WinAnsiEncoding", "/MacRomanEncoding") or not ttf["cmap"].getcmap(3, 1)
        ):
            found.append(f"6.2.11.6-2: the form font {name} is non-symbolic without WinAnsi or a (3,1) cmap")
            continue
        codec = "cp1252" if encoding == "/WinAnsiEncoding" else "mac_roman"
        cmap, advances = ttf["cmap"].getcmap(3, 1).cmap, ttf["hmtx"].metrics
        scale = 1000 / ttf["head"].unitsPerEm
        first = int(font.FirstChar)
        for index, width in enumerate(font.Widths):
            code = first + index
            try:
                glyph = cmap.get(ord(bytes([code]).decode(codec)))
            except UnicodeDecodeError:
                glyph = None
            expected = advances[glyph][0] * scale if glyph in advances else None
            if expected is not None and abs(float(width) - expected) > 1:
                found.append(f"6.2.11.5-1: the form font {name}'s width of code {code} is {width}, not {expected}")
    return found


def assert_valid_signed_pdf_a(path: Path) -> None:
    """A pdf-a file with a form (a signed one, or fillable fields): its form and signature by
    the rules above, everything else by pikepdf."""
    data = path.read_bytes()
    problems = signed_pdf_a_problems(data)
    assert not problems, problems
    with pikepdf.open(io.BytesIO(data)) as pdf:
        widgets = form_widgets(pdf)
        del pdf.Root["/AcroForm"]
        for page in pdf.pages:
            if "/Annots" in page.obj:
                kept = [a for a in page.obj.Annots if a.objgen not in widgets]
                page.obj.Annots = pikepdf.Array(kept)
        extensions = pdf.Root.get("/Extensions")
        if extensions is not None and "/ESIC" in extensions:
            del extensions["/ESIC"]  # ISO 32000-1 7.12 developer extensions; PDF/A-3 leaves them free
            if not extensions.keys():
                del pdf.Root["/Extensions"]
        stripped = path.with_name(path.stem + "-unformed.pdf")
        pdf.save(stripped)
    assert_valid_pdf_a(stripped)
