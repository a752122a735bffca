"""api.images.processing: upload validation, SVG rasterisation and its hostile inputs, placeholders."""

from __future__ import annotations

import base64
import io
import socket
import struct
import zlib
from functools import cache

import pytest
from PIL import Image

from api.images.processing import ImageRejected, ProcessedImage, draw_placeholder, process_image

MB = 1024 * 1024
SVG_NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def encode(image: Image.Image, fmt: str, **params) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **params)
    return out.getvalue()


def picture(width: int, height: int, mode: str = "RGB") -> Image.Image:
    """Not flat: a gradient with a square, so no codec or blank check treats it as empty."""
    image = Image.linear_gradient("L").resize((width, height)).convert(mode)
    image.paste(
        (200, 30, 30) if mode == "RGB" else (200, 30, 30, 255), (width // 4, height // 4, width // 2, height // 2)
    )
    return image


def svg(body: str, attrs: str = 'width="120" height="60"') -> bytes:
    return f"<svg {SVG_NS} {attrs}>{body}</svg>".encode()


def opened(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def rejected(data: bytes, max_bytes: int = MB) -> str:
    with pytest.raises(ImageRejected) as caught:
        process_image(data, max_bytes)
    return str(caught.value)


@cache
def png_bomb(width: int, height: int) -> bytes:
    """A valid 1-bit PNG of width x height, all white: tens of kilobytes for hundreds of megapixels."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    row = b"\x00" + b"\xff" * ((width + 7) // 8)
    compressor = zlib.compressobj(9)
    idat = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


# --- accepted types ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "mode", "mime"),
    [("PNG", "RGBA", "image/png"), ("JPEG", "RGB", "image/jpeg"), ("WEBP", "RGB", "image/webp")],
)
def test_raster_formats_are_accepted_as_uploaded(fmt: str, mode: str, mime: str) -> None:
    data = encode(picture(300, 200, mode), fmt)
    result = process_image(data, MB)
    assert isinstance(result, ProcessedImage)
    assert (result.mime_type, result.render_mime_type) == (mime, mime)
    assert result.original == data and result.render == data
    assert (result.width, result.height) == (300, 200)
    thumb = opened(result.thumbnail)
    assert thumb.format == "PNG" and thumb.size == (256, 171)


def test_type_is_sniffed_from_bytes_not_names() -> None:
    # process_image never sees a name: a JPEG is a JPEG whatever the client called it.
    assert process_image(encode(picture(40, 30), "JPEG"), MB).mime_type == "image/jpeg"


def test_jpeg_exif_orientation_is_applied_to_dimensions_and_thumbnail() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # stored landscape, displayed rotated 90° clockwise: portrait
    data = encode(picture(300, 200), "JPEG", exif=exif)
    result = process_image(data, MB)
    assert result.render == data  # the renderer applies the orientation itself
    assert (result.width, result.height) == (200, 300)
    assert opened(result.thumbnail).size == (171, 256)


def test_transparency_is_kept_in_the_thumbnail() -> None:
    image = Image.new("RGBA", (600, 300), (0, 0, 0, 0))
    image.paste((10, 120, 200, 255), (100, 50, 300, 250))
    result = process_image(encode(image, "PNG"), MB)
    thumb = opened(result.thumbnail)
    assert thumb.size == (256, 128)
    assert thumb.mode == "RGBA"
    assert thumb.getpixel((2, 2))[3] == 0 and thumb.getpixel((80, 64))[3] == 255


def test_a_tall_thin_image_keeps_its_aspect_in_the_thumbnail() -> None:
    result = process_image(encode(picture(100, 1000), "PNG"), MB)
    assert opened(result.thumbnail).size == (26, 256)


def test_small_images_are_not_upscaled_for_the_thumbnail() -> None:
    result = process_image(encode(picture(40, 30), "PNG"), MB)
    assert opened(result.thumbnail).size == (40, 30)


# --- sizes and types refused -----------------------------------------------------------


def test_empty_file_is_rejected() -> None:
    assert "empty" in rejected(b"")


def test_file_over_the_limit_is_rejected_with_both_sizes() -> None:
    message = rejected(b"\x89PNG\r\n\x1a\n" + b"\0" * (int(1.3 * MB) - 8))
    assert message.startswith("the file is 1.3 MB; this endpoint accepts images of at most 1 MB")
    assert rejected(b"x" * (10 * MB + 300_000), max_bytes=10 * MB).startswith(
        "the file is 10.3 MB; this endpoint accepts images of at most 10 MB"
    )


def test_file_just_over_the_limit_does_not_read_as_the_limit() -> None:
    message = rejected(b"x" * (MB + 10))
    assert "1,048,586 bytes" in message and "at most 1 MB" in message


def test_file_at_the_limit_is_accepted() -> None:
    data = encode(picture(50, 50), "PNG")
    assert process_image(data, len(data)).width == 50


@pytest.mark.parametrize(
    ("data", "named"),
    [
        (encode(Image.new("P", (10, 10)), "GIF"), "GIF"),
        (b"hello, this is plain text\n", None),
        (b'{"not": "an image"}', None),
        (b"<html><body>no svg here</body></html>", None),
    ],
)
def test_unsupported_types_are_rejected_naming_the_accepted_ones(data: bytes, named: str | None) -> None:
    message = rejected(data)
    assert "unsupported file type" in message
    assert "PNG, JPEG, WebP or SVG" in message
    if named:
        assert named in message


@pytest.mark.parametrize(
    "data",
    [
        b"\x89PNG\r\n\x1a\n" + b"garbage" * 20,
        b"\xff\xd8\xff\xe0" + b"\x00" * 64,
        b"RIFF\x10\x00\x00\x00WEBPVP8 " + b"\x00" * 16,
    ],
    ids=["png", "jpeg", "webp"],
)
def test_fake_images_with_the_right_magic_are_rejected(data: bytes) -> None:
    message = rejected(data)
    assert "corrupt or truncated" in message
    assert "BytesIO" not in message  # no Pillow internals in a client-facing message


def test_truncated_png_is_rejected() -> None:
    data = encode(picture(200, 200), "PNG")
    assert "corrupt or truncated" in rejected(data[: len(data) // 2])


def test_decompression_bomb_is_rejected_before_decoding() -> None:
    bomb = png_bomb(20_000, 20_000)  # 400 megapixels in ~50 KB
    assert len(bomb) < 100_000
    message = rejected(bomb)
    assert "too large" in message and "megapixels" in message and "scale it down" in message


def test_a_decompression_bomb_met_when_drawing_is_refused_naming_its_size_and_the_limit() -> None:
    # A data: URI value, say, reaches the renderer unchecked: its message names the bound.
    from engine.media.images import ImageError, decode

    with pytest.raises(ImageError) as refused:
        decode(png_bomb(9000, 5000))
    assert str(refused.value).startswith("the image is 45 megapixels; images are limited to 40 megapixels")


def test_images_over_40_megapixels_or_16384_px_are_rejected() -> None:
    message = rejected(png_bomb(9000, 5000))  # 45 Mpx: under Pillow's own limit, over ours
    assert "9000 × 5000 px" in message and "40 megapixels" in message
    assert "20000 × 10 px" in rejected(png_bomb(20_000, 10))


# --- SVG -------------------------------------------------------------------------------


def test_svg_is_rasterised_to_png_at_twice_its_size() -> None:
    data = svg('<circle cx="30" cy="30" r="20" fill="#c33"/>')
    result = process_image(data, MB)
    assert (result.mime_type, result.render_mime_type) == ("image/svg+xml", "image/png")
    assert result.original == data
    render = opened(result.render)
    assert render.format == "PNG" and render.size == (240, 120) == (result.width, result.height)
    assert render.convert("RGBA").getpixel((60, 60))[:3] == (0xCC, 0x33, 0x33)
    assert opened(result.thumbnail).size == (240, 120)


def test_svg_size_from_viewbox_and_units() -> None:
    assert process_image(svg('<rect width="5" height="5"/>', 'viewBox="0 0 24 12"'), MB).width == 48
    a4 = process_image(svg('<rect width="50" height="50"/>', 'width="210mm" height="297mm" viewBox="0 0 210 297"'), MB)
    assert (a4.width, a4.height) == (1587, 2245)


def test_svg_with_a_standard_doctype_is_accepted() -> None:
    data = (
        b'<?xml version="1.0" encoding="UTF-8"?>\n'
        b'<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
        + svg('<rect width="50" height="20" fill="navy"/>')
    )
    assert process_image(data, MB).width == 240


@pytest.mark.parametrize(
    "data",
    [
        svg(""),
        svg('<rect width="100" height="50" fill="red" opacity="0"/>'),
        svg('<rect width="100" height="50" fill="none"/>'),
    ],
    ids=["empty", "transparent-rect", "unfilled-rect"],
)
def test_blank_svg_is_rejected(data: bytes) -> None:
    assert rejected(data).startswith("blank SVG: it draws nothing")


def test_svg_without_any_size_is_rejected() -> None:
    assert "no size" in rejected(b"<svg/>")
    assert "no size" in rejected(svg('<rect width="5" height="5"/>', ""))


@pytest.mark.parametrize(
    "data",
    [
        svg("<g/>", 'width="abc" height="10"'),
        svg("<g/>", 'width="10" height="10" viewBox="0 0 nope"'),
        b"<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect></svg>",
        b"<?xml version='1.0'?><html><svg/></html>",
    ],
    ids=["bad-width", "bad-viewbox", "malformed-xml", "root-not-svg"],
)
def test_unreadable_svgs_are_rejected(data: bytes) -> None:
    assert "SVG" in rejected(data)


def test_xxe_entity_is_rejected() -> None:
    data = b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>' + svg(
        '<text x="0" y="20">&x;</text>'
    )
    message = rejected(data)
    assert message.startswith("SVG with DOCTYPE/ENTITY declarations is not accepted")


def test_billion_laughs_is_rejected() -> None:
    nested = "".join(f'<!ENTITY {c} "&{p};&{p};&{p};&{p};">' for p, c in zip("abcd", "bcde", strict=True))
    entities = '<!ENTITY a "ha">' + nested
    data = f"<?xml version='1.0'?><!DOCTYPE svg [{entities}]>".encode() + svg("<text>&e;</text>")
    assert rejected(data).startswith("SVG with DOCTYPE/ENTITY declarations is not accepted")


def _passwd_head() -> bytes:
    try:
        with open("/etc/passwd", "rb") as handle:
            return handle.read(64)
    except OSError:
        return b"root:x:0:0"


@pytest.mark.parametrize(
    "body",
    [
        '<rect width="10" height="10"/><image xlink:href="file:///etc/passwd" width="50" height="50"/>',
        '<rect width="10" height="10"/><image href="/etc/passwd" width="50" height="50"/>',
        '<use href="file:///etc/passwd#x"/>',
        '<style>@import url("file:///etc/passwd");</style><rect width="10" height="10"/>',
    ],
    ids=["image-file-url", "image-path", "use-file", "css-import"],
)
def test_svg_cannot_read_local_files(body: str) -> None:
    data = svg(body)
    try:
        result = process_image(data, MB)
    except ImageRejected as exc:
        message = str(exc)
        assert "/etc/passwd" not in message and "root:" not in message
        assert "external" in message
    else:  # rasterised without it: the file's bytes are nowhere in the output
        head = _passwd_head()
        assert head not in result.render and head not in result.thumbnail


def test_svg_makes_no_network_request(monkeypatch: pytest.MonkeyPatch) -> None:
    attempts: list[object] = []

    def no_network(*args: object, **kwargs: object) -> None:
        attempts.append(args)
        raise AssertionError("network access from an SVG")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    data = svg('<rect width="10" height="10"/><image href="http://example.com/x.png" width="50" height="50"/>')
    with pytest.raises(ImageRejected, match="external"):
        process_image(data, MB)
    assert attempts == []


def test_svg_may_embed_a_raster_image_as_a_data_uri() -> None:
    tile = base64.b64encode(encode(Image.new("RGB", (4, 4), (0, 200, 0)), "PNG")).decode()
    data = svg(f'<image href="data:image/png;base64,{tile}" width="120" height="60" preserveAspectRatio="none"/>')
    render = opened(process_image(data, MB).render).convert("RGB")
    assert render.getpixel((120, 60)) == (0, 200, 0)


def test_svg_embedding_a_decompression_bomb_is_rejected() -> None:
    bomb = base64.b64encode(png_bomb(20_000, 20_000)).decode()
    message = rejected(svg(f'<image href="data:image/png;base64,{bomb}" width="100" height="50"/>'))
    assert "too large" in message


def test_huge_svg_dimensions_are_rasterised_within_4096_px() -> None:
    data = svg('<circle cx="50000" cy="12500" r="10000" fill="teal"/>', 'width="100000" height="25000"')
    result = process_image(data, MB)
    assert (result.width, result.height) == (4096, 1024)
    assert opened(result.render).size == (4096, 1024)
    assert opened(result.thumbnail).size == (256, 64)


def test_large_svg_dimensions_in_units_are_bounded_too() -> None:
    result = process_image(
        svg('<rect width="100%" height="100%" fill="red"/><circle r="9"/>', 'width="50in" height="1in"'), MB
    )
    assert max(result.width, result.height) <= 4096
    assert result.width == 4096 and result.height == 82


# --- placeholders ------------------------------------------------------------------------


def test_placeholder_has_the_requested_size_and_look() -> None:
    image = opened(draw_placeholder("Company logo", 400, 300)).convert("RGB")
    assert image.size == (400, 300)
    assert image.getpixel((200, 20)) == (0xE9, 0xED, 0xF2)  # background
    assert image.getpixel((0, 150)) != (0xE9, 0xED, 0xF2)  # border
    corner = image.crop((36, 24, 44, 36))  # the diagonal passes through (40, 30)
    assert any(pixel != (0xE9, 0xED, 0xF2) for pixel in corner.get_flattened_data())


def test_placeholder_label_is_visible_in_the_middle() -> None:
    image = opened(draw_placeholder("Hero image", 400, 300)).convert("L")
    background = 0xEB  # #e9edf2 in grey
    middle = image.crop((80, 110, 320, 190))
    dark = sum(1 for value in middle.get_flattened_data() if value < background - 60)
    assert dark > 200
    empty = opened(draw_placeholder("", 400, 300)).convert("L").crop((80, 110, 320, 135))
    assert dark > 5 * sum(1 for value in empty.get_flattened_data() if value < background - 60)


def test_placeholder_shows_its_size_below_the_label() -> None:
    with_label = opened(draw_placeholder("Logo", 400, 300)).convert("L")
    lower = with_label.crop((120, 160, 280, 200))
    assert min(lower.get_flattened_data()) < 180  # "400 × 300" under the label


@pytest.mark.parametrize(
    ("label", "width", "height"),
    [
        ("x", 16, 16),
        ("A label that is exactly forty characters", 16, 2000),
        ("Supercalifragilisticexpialidocious-word", 120, 40),
        ("Product photo", 2000, 2000),
        ("", 400, 300),
    ],
)
def test_placeholder_sizes_from_tiny_to_large(label: str, width: int, height: int) -> None:
    assert opened(draw_placeholder(label, width, height)).size == (width, height)


def test_placeholder_is_robust_to_bad_input() -> None:
    assert opened(draw_placeholder("x" * 500, 0, -5)).size == (1, 1)
    assert opened(draw_placeholder(None, 99999, 20)).size == (4096, 20)  # type: ignore[arg-type]
