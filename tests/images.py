"""Images the tests draw, and a resolver over them."""

from __future__ import annotations

import io

from PIL import Image

from tests.conftest import png


def png_bytes(colour=(200, 30, 30, 255), size=(80, 40)) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", size, colour).save(out, format="PNG")
    return out.getvalue()


IMAGES = {"uploads:red": png_bytes(), "assets:blue": png_bytes((20, 40, 220, 255), (40, 40))}


def resolver(ref: str) -> bytes:
    return IMAGES[ref]


def cmyk_jpeg() -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("CMYK", (30, 30), (200, 40, 0, 10)).save(out, format="JPEG")
    return out.getvalue()


# The images the tagged-profile tests draw (a logo, a photo, a CMYK JPEG).
TAGGED_IMAGES = {
    "uploads:logo": png(size=(60, 40)),
    "uploads:photo": png((20, 90, 200, 255), size=(30, 30), fmt="JPEG"),
    "uploads:cmyk": cmyk_jpeg(),
}
