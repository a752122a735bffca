"""What a generation or batch delivers (extensions.md 12): `output` pictures instead of PDFs, a
batch's `merge`, and its label `sheet` (extensions.md 14). Checked before anything is charged,
rendered or queued; the one place these rules live for every face (REST, MCP, the CLI and
notebook through them).

Pictures are of the pages: the options that only mean something inside a PDF (a profile's tags
or PDF/A claims, embedded files, an e-invoice, encryption, a signature) are refused with them
rather than silently dropped. A watermark is drawn on the pages, so it stays allowed.
"""

from __future__ import annotations

import engine
from engine.finishing.label_sheets import LabelSheet, SheetGeometry
from engine.render.pictures import PageOutput, check_picture_size

from ..errors import validation
from ..models import BatchBody, FinishingOptions, RowOptions

PICTURE_FORMATS = ("png", "jpeg")


def checked_output(
    output: PageOutput | None,
    profile: str,
    options: FinishingOptions,
    tree: engine.DesignTree,
    row_options: list[RowOptions] | None = None,
) -> PageOutput | None:
    """The pictures asked for, or None for a PDF (no `output`, or format "pdf"); a 400 naming
    the fix when they cannot be made as asked."""
    if output is None or not output.pictures:
        return None
    pdf_only = [
        name
        for name, given in (
            ("attachments", options.attachments),
            ("eInvoice", options.eInvoice),
            ("encryption", options.encryption),
            ("sign", options.sign),
        )
        if given
    ]
    if row_options and any(o.attachments or o.eInvoice for o in row_options):
        pdf_only.append("rowOptions")
    if profile != "standard":
        pdf_only.insert(0, f'pdfProfile "{profile}"')
    if pdf_only:
        raise validation(
            f'output: {", ".join(pdf_only)} only apply to a PDF, and format "{output.format}" makes pictures: '
            f'leave {"it" if len(pdf_only) == 1 else "them"} out, or ask for format "pdf"'
        )
    for index, page in enumerate(tree.pages):
        try:
            check_picture_size(page.width, page.height, output.dpi, f"page {index + 1}")
        except engine.EngineError as exc:
            raise validation(exc.message) from None
    return output


def checked_merge(body: BatchBody, output: PageOutput | None) -> bool:
    """Whether a batch also makes its merged PDF; a 400 when it was asked with what cannot merge."""
    if not body.merge:
        return False
    if output is not None:
        raise validation(
            f'merge: the merged document is a PDF and output format "{output.format}" makes pictures: '
            'leave out merge, or output (format "pdf")'
        )
    if body.encryption is not None or body.sign:
        what = "encryption" if body.encryption is not None else "sign"
        raise validation(
            f"merge: the rows' PDFs cannot be merged with {what} (an encrypted PDF needs its password, a "
            f"signature would not cover the merged file): leave out merge or {what}"
        )
    return True


def checked_sheet(body: BatchBody, output: PageOutput | None, tree: engine.DesignTree) -> LabelSheet | None:
    """The batch's label sheet (extensions.md 14), or None; a 400 naming the fix when the sheet is
    unknown or impossible, the design's page does not fit its labels, or it was asked with
    what a sheet cannot carry. `keepRows` without a sheet is refused too (it would mean nothing)."""
    sheet = body.sheet
    if sheet is None:
        if body.keepRows:
            raise validation("keepRows: it keeps the rows' ZIP beside a label sheet's PDF: leave it out, or add sheet")
        return None
    clashes = [
        name
        for name, given in (
            (f'output format "{output.format}"' if output is not None else "output", output is not None),
            ("merge", body.merge),
            ("encryption", body.encryption is not None),
            ("sign", body.sign),
            ("append", body.append),
            ("prepend", body.prepend),
        )
        if given
    ]
    if clashes:
        raise validation(
            f"sheet: a label-sheet batch delivers one PDF of sheets, which cannot also take {', '.join(clashes)} "
            "(pictures and the merged PDF are other deliveries, a password or signature would not cover the sheets, "
            f"added pages are not labels): leave out {' and '.join(clashes)}, or sheet"
        )
    fitted_geometry(sheet, tree)
    return sheet


def fitted_geometry(sheet: LabelSheet, tree: engine.DesignTree) -> SheetGeometry:
    """The sheet's cells; a 400 naming the presets for an unknown one, naming both sizes when a
    page of the design is larger than a label, or saying what leaves no room for labels."""
    try:
        geometry = sheet.geometry()
        for index, page in enumerate(tree.pages):
            where = f"the design's page {index + 1}" if index else "the design's page"
            geometry.check_page(page.width, page.height, where)
    except engine.EngineError as exc:
        raise validation(exc.message) from None
    return geometry
