"""Password protection (extensions.md 9: `encryption`): AES-256 (security handler
revision 6) with pikepdf, permissions from `allow`, everything not listed denied.

PDF/A forbids encryption (ISO 19005-3 6.1.3), so `pdf-a` refuses it. Text extraction
for accessibility stays allowed whatever `allow` says: PDF/UA-1 (7.16) requires it so
screen readers can read a protected document, and PDF 2.0 readers ignore the bit anyway.
"""

from __future__ import annotations

from typing import Literal

import pikepdf
from pydantic import BaseModel, ConfigDict, Field, model_validator

Permission = Literal["print", "copy", "modify", "annotate", "fill-forms", "assemble"]


class Encryption(BaseModel):
    """`{ ownerPassword, userPassword?, allow? }`."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, serialize_by_alias=True)

    # repr=False: a logged model or job never shows a document's passwords.
    owner_password: str = Field(
        alias="ownerPassword",
        min_length=1,
        max_length=127,
        repr=False,
        description="Opens the document with every right",
    )
    user_password: str | None = Field(
        None,
        alias="userPassword",
        max_length=127,
        repr=False,
        description="Needed to open the document at all; without it anyone can open it, with the permissions of allow",
    )
    allow: list[Permission] = Field(
        default_factory=list, description="What a reader without the owner password may do; the rest is denied"
    )

    @model_validator(mode="after")
    def _passwords_differ(self) -> Encryption:
        if self.user_password is not None and self.user_password == self.owner_password:
            raise ValueError(
                "userPassword equals ownerPassword, which would give every reader the owner's rights: "
                "choose a different ownerPassword"
            )
        return self

    def for_pikepdf(self) -> pikepdf.Encryption:
        allowed = set(self.allow)
        permissions = pikepdf.Permissions(
            accessibility=True,
            extract="copy" in allowed,
            modify_annotation="annotate" in allowed,
            modify_assembly="assemble" in allowed,
            modify_form="fill-forms" in allowed,
            modify_other="modify" in allowed,
            print_lowres="print" in allowed,
            print_highres="print" in allowed,
        )
        return pikepdf.Encryption(
            owner=self.owner_password, user=self.user_password or "", R=6, aes=True, allow=permissions
        )


__all__ = ["Encryption", "Permission"]
