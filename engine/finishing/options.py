"""What a caller asks of one render beyond the design (extensions.md 9: compliance per
render): attachments, a Factur-X e-invoice, a watermark, encryption, and a signature.

Order (spec 9): render, profile finishing, attachments and e-invoice, watermark,
encryption, signature last. The watermark is page content, so it is drawn while the
pages are drawn (an artifact in the tagged profiles), which looks the same as drawing it
after the embedding; the profile finishing, the embedding and the encryption share one
pikepdf open and save; the signature (`sign`) is applied by the caller after the engine,
on the bytes `render_pdf` returns. A render with no finishing option costs nothing extra.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

import pikepdf
from pydantic import BaseModel, ConfigDict, Field

from ..errors import EngineError
from .added_pages import AddedPages, AddedPdf
from .attachments import MAX_ATTACHMENT_BYTES, Attachment, Attachments, EmbeddedFile, check_attachments, embed_files
from .einvoice import EInvoice, check_invoice
from .encryption import Encryption
from .watermark import Watermark


class Finishing(BaseModel):
    """The per-render options of spec 9, as `render_pdf(..., finishing=...)` takes them."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, serialize_by_alias=True)

    attachments: Attachments = Field(default_factory=list, description="Embedded files (at most 10, 5 MB together)")
    e_invoice: EInvoice | None = Field(None, alias="eInvoice", description="A Factur-X invoice XML; needs pdf-a")
    watermark: Watermark | None = Field(None, description="Text over every page; an artifact in tagged profiles")
    encryption: Encryption | None = Field(None, description="AES-256 with permissions; not with pdf-a")
    sign: bool = Field(False, description="A PAdES B-B signature, applied last by the signing step")
    # extensions.md 12: existing PDFs before and after the generated pages, copied first in
    # the pikepdf pass so that embedded files, XMP, encryption and the signature cover them.
    prepend: list[AddedPdf] = Field(default_factory=list, description="PDFs (or some of their pages) put first")
    append: list[AddedPdf] = Field(default_factory=list, description="PDFs (or some of their pages) put last")
    # extensions.md 13: form fields drawn as plain content, no form left to fill.
    flatten: bool = Field(False, description="Draw form fields' values as plain content; no fillable form remains")

    def for_row(self, attachments: list[Attachment] | None = None, e_invoice: EInvoice | None = None) -> Finishing:
        """A batch row's own options (`rowOptions`) on top of the batch's: the row's files
        are added to the batch's (the limits apply to the sum), its e-invoice replaces any."""
        if not attachments and e_invoice is None:
            return self
        files = [*self.attachments, *(attachments or [])]
        try:
            check_attachments(files)
        except ValueError as exc:
            raise EngineError(f"attachments with this row's rowOptions: {exc}") from exc
        return self.model_copy(update={"attachments": files, "e_invoice": e_invoice or self.e_invoice})

    def plan(self, profile: str) -> FinishingPlan:
        """Check the options against the profile (and the e-invoice against its schema)
        before anything is drawn; raises EngineError with the fix in its message."""
        if self.encryption is not None and profile == "pdf-a":
            raise EngineError(
                "encryption is refused with pdfProfile pdf-a: PDF/A forbids encryption; "
                'use pdfProfile "standard" or "accessible" to protect the document with a password'
            )
        files = [EmbeddedFile.of(attachment) for attachment in self.attachments]
        xmp = ""
        if self.e_invoice is not None:
            if profile != "pdf-a":
                raise EngineError(
                    f'eInvoice needs pdfProfile "pdf-a" (got {profile!r}): a Factur-X invoice is a PDF/A-3 '
                    'document with its XML embedded; set pdfProfile to "pdf-a"'
                )
            # The size first: an XML is only parsed once it is known to fit. Its bound is its
            # own (spec 9 bounds the attachments together, 5 MB; an invoice is never that large).
            if len(self.e_invoice.xml) > MAX_ATTACHMENT_BYTES:
                raise EngineError(
                    f"the e-invoice XML is {len(self.e_invoice.xml)} bytes, over 5 MB: "
                    "send the invoice without embedded binary documents"
                )
            invoice = check_invoice(self.e_invoice)
            invoice_file = invoice.embedded_file()
            if any(file.name == invoice_file.name for file in files):
                raise EngineError(
                    f"an attachment is named {invoice_file.name}, the name the e-invoice is embedded under: rename it"
                )
            files.append(invoice_file)
            xmp = invoice.xmp()
        encryption = self.encryption.for_pikepdf() if self.encryption is not None else None
        return FinishingPlan(
            files=files, associate=profile == "pdf-a", xmp=xmp, encryption=encryption, flatten=self.flatten
        )


@dataclass(frozen=True)
class FinishingPlan:
    """The checked work of one render's finishing, done inside the PDF's one pikepdf pass."""

    files: list[EmbeddedFile] = field(default_factory=list)
    associate: bool = False  # list the files in the catalog's /AF (pdf-a)
    xmp: str = ""  # rdf:Description elements for the XMP packet (the Factur-X schema)
    encryption: pikepdf.Encryption | None = None
    added: AddedPages | None = None  # prepend/append, opened by render_pdf with its resolver
    flatten: bool = False  # form fields drawn as content (extensions.md 13), read while drawing

    @property
    def needs_pdf_pass(self) -> bool:
        """Whether the untagged profile needs a pikepdf pass at all (no option: none)."""
        return bool(self.files) or self.encryption is not None or self.added is not None

    def apply(self, pdf: pikepdf.Pdf) -> None:
        if self.added is not None:
            self.added.insert(pdf)  # first: what follows covers the whole file
        if self.files:
            embed_files(pdf, self.files, self.associate)

    def save_options(self) -> dict[str, Any]:
        """pikepdf.save options: the streams copied exactly as ReportLab compressed them
        (letting qpdf decode and compress them again was 6 of the tagged pass's 10 ms),
        and a deterministic /ID, the same input giving the same bytes. Encrypted, qpdf
        takes no decode level (it must rewrite each stream to encrypt it, and still
        leaves them compressed) and derives no deterministic /ID (an encrypted file's
        salts are random anyway); AES-256's key derivation (revision 6) is a fixed
        ~14 ms per document, by design of the standard."""
        if self.encryption is not None:
            return {"encryption": self.encryption, "deterministic_id": False, "compress_streams": False}
        return {
            "deterministic_id": True,
            "stream_decode_level": pikepdf.StreamDecodeLevel.none,
            "compress_streams": False,
        }

    def finish_untagged(self, pdf_bytes: bytes) -> bytes:
        """The standard profile's finishing: one pikepdf open and save of ReportLab's bytes."""
        if not self.needs_pdf_pass:
            return pdf_bytes
        pdf = pikepdf.open(io.BytesIO(pdf_bytes))
        self.apply(pdf)
        out = io.BytesIO()
        pdf.save(out, fix_metadata_version=False, **self.save_options())
        return out.getvalue()


NO_FINISHING = FinishingPlan()

__all__ = ["NO_FINISHING", "Finishing", "FinishingPlan"]
