"""Reading drawn QR codes and barcodes back with zxing-cpp."""

from __future__ import annotations

import zxingcpp
from PIL import Image


def decode(image: Image.Image) -> dict[str, str]:
    """Decoded symbols by format name, normalised ('EAN-13' -> 'EAN13', 'QR Code' -> 'QRCODE')."""

    def name(fmt) -> str:
        return str(fmt).split(".")[-1].replace("-", "").replace(" ", "").upper()

    return {name(r.format): r.text for r in zxingcpp.read_barcodes(image)}
