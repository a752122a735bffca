"""Files embedded in a generated PDF (extensions.md 9: `attachments`).

Each file becomes an embedded file stream with its MIME type, size and checksum, and a
file specification with its `/AFRelationship` and description; under `pdf-a` the
catalog's `/AF` lists every one, which is what lets PDF/A-3 carry a file of any type
(ISO 19005-3 6.8: an embedded file must be an associated file).
"""

from __future__ import annotations

import base64
import binascii
import zlib
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import pikepdf
from pikepdf import AttachedFileSpec, Name
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, WithJsonSchema

from ..design.names import FILE_NAME_MAX_BYTES, check_stored_file_name

MAX_ATTACHMENTS = 10
MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024  # all of a document's attachments together
# A MIME type as PDF/A wants it in the embedded file's /Subtype (ISO 19005-3 6.8-1).
MIME_TYPE = r"^[-A-Za-z0-9_+.]+/[-A-Za-z0-9_+.]+$"

Relationship = Literal["Data", "Source", "Alternative", "Supplement", "Unspecified"]


def _decode_base64(value: Any) -> Any:
    """JSON carries files as base64 text; a Python caller may hand the bytes themselves."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError("is not valid base64: encode the file's bytes as standard base64 (RFC 4648)") from exc
    return value


# Bytes in Python, base64 text in JSON (and in the JSON schema the REST and MCP faces show).
Base64Content = Annotated[
    bytes,
    BeforeValidator(_decode_base64),
    PlainSerializer(lambda data: base64.b64encode(data).decode("ascii"), return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "contentEncoding": "base64", "description": "The file, base64-encoded"}),
]


# engine.design.names: one file's name, not a path, with nothing invisible and nothing Windows refuses.
FileName = Annotated[str, Field(min_length=1, max_length=FILE_NAME_MAX_BYTES), AfterValidator(check_stored_file_name)]


class Attachment(BaseModel):
    """One embedded file: `{ name, mimeType, content (base64), relationship?, description? }`."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, serialize_by_alias=True)

    name: FileName = Field(description="The file's name: one name, no folders")
    mime_type: str = Field(alias="mimeType", pattern=MIME_TYPE, max_length=255, examples=["text/csv"])
    content: Base64Content
    relationship: Relationship = Field(
        "Unspecified", description="How the file relates to the document, written as /AFRelationship"
    )
    description: str | None = Field(None, max_length=1000)


def check_attachments(attachments: list[Attachment]) -> list[Attachment]:
    """The limits of one document's attachments (spec 9: at most 10, 5 MB together)."""
    if len(attachments) > MAX_ATTACHMENTS:
        raise ValueError(
            f"{len(attachments)} attachments given; at most {MAX_ATTACHMENTS} per document: "
            "put the files in one archive (application/zip) or leave some out"
        )
    total = sum(len(attachment.content) for attachment in attachments)
    if total > MAX_ATTACHMENT_BYTES:
        raise ValueError(
            f"the attachments come to {total} bytes; at most {MAX_ATTACHMENT_BYTES} (5 MB) together per document: "
            "compress them or link to the large ones instead"
        )
    names = [attachment.name for attachment in attachments]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"attachment names must differ: {', '.join(repeated)} is given more than once; rename one")
    return attachments


# A list of attachments as a caller passes it: every face validates the limits here.
Attachments = Annotated[
    list[Attachment], AfterValidator(check_attachments), Field(json_schema_extra={"maxItems": MAX_ATTACHMENTS})
]


@dataclass(frozen=True)
class EmbeddedFile:
    """What gets embedded: an attachment, or a file the engine adds itself (factur-x.xml)."""

    name: str
    mime_type: str
    content: bytes
    relationship: Relationship
    description: str

    @classmethod
    def of(cls, attachment: Attachment) -> EmbeddedFile:
        # Every embedded file gets a /Desc: PDF/UA-1 7.11 wants one (a screen reader
        # announces it) and PDF/A-3 recommends it; the name stands in for a missing one.
        return cls(
            attachment.name,
            attachment.mime_type,
            attachment.content,
            attachment.relationship,
            attachment.description or attachment.name,
        )


def embed_files(pdf: pikepdf.Pdf, files: list[EmbeddedFile], associate: bool) -> None:
    """Embed the files in the open PDF; `associate` lists them in the catalog's /AF (pdf-a).

    Deterministic: the name tree is sorted by name (qpdf keeps it so), the streams are
    compressed at a fixed level, and /Params carries the document's own /ModDate (fixed
    by the engine's invariant rendering) rather than the clock.
    """
    mod_date = str(pdf.docinfo.get("/ModDate", ""))
    had_af = "/AF" in pdf.Root
    specs: list[pikepdf.Object] = []
    for file in files:
        spec = AttachedFileSpec(
            pdf,
            file.content,
            description=file.description,
            filename=file.name,
            mime_type=file.mime_type,
            mod_date=mod_date,
            relationship=Name("/" + file.relationship),
        )
        pdf.attachments[file.name] = spec
        stored = pdf.attachments[file.name].obj
        # The stream is saved exactly as written (the profiles copy ReportLab's streams
        # without recompressing them), so compress the file here; /Params keeps the
        # size and checksum of the file itself.
        stored.EF.F.write(zlib.compress(file.content, 6), filter=Name.FlateDecode)
        specs.append(stored)
    # qpdf lists a file with a relationship in the catalog's /AF as it embeds it; make
    # sure every one is listed under pdf-a, and that the other profiles (which do not
    # speak of associated files, a PDF 2.0 notion) keep the catalog they had.
    if associate:
        listed = list(pdf.Root.AF) if "/AF" in pdf.Root else []
        known = {spec.objgen for spec in listed}
        pdf.Root.AF = pdf.make_indirect(pikepdf.Array(listed + [spec for spec in specs if spec.objgen not in known]))
    elif not had_af and "/AF" in pdf.Root:
        del pdf.Root["/AF"]


__all__ = [
    "MAX_ATTACHMENTS",
    "MAX_ATTACHMENT_BYTES",
    "Attachment",
    "Attachments",
    "Base64Content",
    "EmbeddedFile",
    "Relationship",
    "check_attachments",
    "embed_files",
]
