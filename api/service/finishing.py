"""Per-render options (extensions.md 9: attachments, e-invoice, watermark, encryption,
signature) checked against the profile before anything is charged, rendered or queued: a
refusal is the request's 400, never a failed render or a batch of failed rows."""

from __future__ import annotations

from engine import EngineError, Finishing

from ..errors import validation
from ..models import BatchBody, RowOptions


def checked(finishing: Finishing | None, profile: str, where: str = "") -> Finishing | None:
    """The options unchanged once the engine has planned them for this profile (the e-invoice
    checked against its schema, encryption refused with pdf-a…), or a 400 with its reason."""
    if finishing is None:
        return None
    try:
        finishing.plan(profile)
    except EngineError as exc:
        raise validation(f"{where}{exc.message}") from None
    return finishing


def checked_rows(body: BatchBody, profile: str) -> tuple[Finishing | None, list[RowOptions | None] | None]:
    """A batch's options for every row, and each row's own (rowOptions), all checked: a row's
    files count against the limits together with the batch's."""
    batch = checked(body.finishing(), profile)
    if not body.rowOptions:
        return batch, None
    own: list[RowOptions | None] = []
    for index, options in enumerate(body.rowOptions):
        if not (options.attachments or options.eInvoice):
            own.append(None)
            continue
        where = f"rowOptions[{index}]: "
        try:
            row = (batch or Finishing()).for_row(options.attachments, options.eInvoice)
        except EngineError as exc:
            raise validation(f"{where}{exc.message}") from None
        checked(row, profile, where)
        own.append(options)
    return batch, own if any(own) else None
