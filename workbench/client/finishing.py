"""What a notebook generation may add beyond the design (extensions.md 9), in Python's terms:
files as paths or bytes, an e-invoice as XML bytes, a watermark as its text, a password.
`finishing_keys` turns them into the keys `generate_pdf` and `submit_batch` take."""

from __future__ import annotations

import base64
import mimetypes
import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

Attachable = str | Path | Mapping[str, Any]


def finishing_keys(
    *,
    attachments: Iterable[Attachable] | None = None,
    e_invoice: bytes | str | None = None,
    watermark: str | Mapping[str, Any] | None = None,
    password: str | None = None,
    encryption: Mapping[str, Any] | None = None,
    sign: bool = False,
    flatten: bool = False,
) -> dict[str, Any]:
    """The body keys for these options (none for options not given).

    - `attachments`: paths of files, or dicts `{name, content (bytes), mimeType?, relationship?, description?}`;
    - `e_invoice`: a Factur-X XML (bytes or text; `workbench.notebook.einvoice.factur_x_xml` makes one),
      needs profile "pdf-a";
    - `watermark`: its text, or `{text, opacity?, angle?, color?}`;
    - `password`: opening the PDF asks for it (AES-256, everything allowed to whoever opens it; the owner
      password, which could change that, is random and forgotten);
      `encryption` gives the API's full shape instead (`{ownerPassword, userPassword?, allow?}`);
    - `sign`: signed with the workspace's signing certificate (PAdES B-B);
    - `flatten`: the design's form fields drawn as plain content, no fillable form left.
    """
    keys: dict[str, Any] = {}
    if attachments:
        keys["attachments"] = [_attachment(item) for item in attachments]
    if e_invoice is not None:
        xml = e_invoice.encode() if isinstance(e_invoice, str) else e_invoice
        keys["eInvoice"] = {"standard": "factur-x", "xml": base64.b64encode(xml).decode()}
    if watermark is not None:
        keys["watermark"] = {"text": watermark} if isinstance(watermark, str) else dict(watermark)
    if password is not None and encryption is not None:
        raise ValueError("give password or encryption, not both")
    if password is not None:
        keys["encryption"] = {
            "ownerPassword": secrets.token_urlsafe(24),
            "userPassword": password,
            "allow": ["print", "copy", "modify", "annotate", "fill-forms", "assemble"],
        }
    elif encryption is not None:
        keys["encryption"] = dict(encryption)
    if sign:
        keys["sign"] = True
    if flatten:
        keys["flatten"] = True
    return keys


def _attachment(item: Attachable) -> dict[str, Any]:
    if isinstance(item, str | Path):
        path = Path(item)
        content = base64.b64encode(path.read_bytes()).decode()
        return {"name": path.name, "mimeType": _mime_type(path.name), "content": content}
    attachment = dict(item)
    content = attachment.get("content")
    if isinstance(content, bytes | bytearray):
        attachment["content"] = base64.b64encode(content).decode()
    attachment.setdefault("mimeType", _mime_type(str(attachment.get("name", ""))))
    return attachment


def _mime_type(name: str) -> str:
    return mimetypes.guess_type(name)[0] or "application/octet-stream"
