"""How many bytes a PDF's streams decode to, counted a chunk at a time and never held whole:
what engine.media.pdf_pages.check_stream_sizes bounds at upload (a decompression bomb).

A reader decodes a stream through all its filters, in order: a bomb needs only be wrapped in
cheap ones (ASCIIHex or ASCII85 around Flate, Flate around Flate) or compressed otherwise (LZW,
RunLength). So every filter a reader undoes on a stream it reads whole is undone here too, as
a chain of decoders each handing on at most a megabyte at a time:

- Flate, ASCIIHex and ASCII85 with zlib, binascii and numpy, at any size;
- LZW and RunLength in Python, a few MB of their input per PDF at most (LZW_RUNLENGTH_INPUT,
  some 3 s); past that the PDF is refused, which no current producer's files are (they use Flate);
- a predictor (DecodeParms /Predictor) is not undone, which changes the size by a byte a row at
  most; but the next filter would read predicted bytes, so a predictor followed by another
  filter is refused;
- an image codec (DCT, JPX, JBIG2, CCITT) or an unknown filter ends the chain: what is left is
  counted as it is (a reader decodes it as an image, row by row, downsampled).
"""

from __future__ import annotations

import binascii
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pikepdf
from pikepdf import Name

CHUNK = 1 << 20  # what one decoder hands the next at a time
# LZW and RunLength are decoded in Python, LZW some 2.5 MB of input a second: a PDF's streams
# compressed with them are decoded up to this much of their input in all; past it the PDF is
# refused (StreamNotChecked). Enough for a RunLength stream (at most 64 times smaller than what
# it decodes to) to show past MAX_STREAM_BYTES (engine.media.pdf_pages).
LZW_RUNLENGTH_INPUT = 8 * 1024 * 1024

_WHITE = b" \t\r\n\f\x00"
_NOT_HEX = bytes(c for c in range(256) if c not in b"0123456789abcdefABCDEF")
_ASCII85 = bytes(range(ord("!"), ord("u") + 1)) + b"z"


class StreamNotChecked(ValueError):
    """A stream whose filters are not undone to be counted (the message says which and why)."""


@dataclass
class SlowInput:
    """What is left of a PDF's LZW_RUNLENGTH_INPUT, shared by its streams."""

    left: int = LZW_RUNLENGTH_INPUT


Decoder = Callable[[Iterable[bytes]], Iterator[bytes]]


def decoded_size(stream: pikepdf.Stream, limit: int, slow: SlowInput | None = None) -> int:
    """How many bytes the stream decodes to through its filters, counted up to just past `limit`
    (a damaged stream: as far as it decodes). StreamNotChecked for a chain not undone here, or
    when the LZW and RunLength input would pass what is left of `slow` (one per PDF)."""
    slow = slow or SlowInput()
    filters = _as_list(stream.get("/Filter"))
    parms = _as_list(stream.get("/DecodeParms"))
    raw = stream.read_raw_bytes()
    chunks: Iterable[bytes] = (raw[at : at + CHUNK] for at in range(0, len(raw), CHUNK))
    for index, name in enumerate(filters):
        decoder = _DECODERS.get(str(name)) if isinstance(name, Name) else None
        if decoder is None:
            break  # an image codec, or a filter no reader knows: its bytes are what is read
        parm = parms[index] if index < len(parms) else None
        predictor = parm.get("/Predictor", 1) if isinstance(parm, pikepdf.Dictionary) else 1
        if isinstance(predictor, int) and predictor > 1 and index < len(filters) - 1:
            raise StreamNotChecked(f"{name} with a predictor, followed by another filter")
        if decoder in (_lzw, _run_length):
            chunks = _bounded_input(chunks, slow)
        if decoder is _lzw:
            early = parm.get("/EarlyChange", 1) if isinstance(parm, pikepdf.Dictionary) else 1
            chunks = _lzw(chunks, early != 0)
        else:
            chunks = decoder(chunks)
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if size > limit:
            break
    return size


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, pikepdf.Array):
        return list(value)
    return [] if value is None else [value]


def _bounded_input(chunks: Iterable[bytes], slow: SlowInput) -> Iterator[bytes]:
    for chunk in chunks:
        slow.left -= len(chunk)
        if slow.left < 0:
            raise StreamNotChecked(
                f"LZW or RunLength over more than {LZW_RUNLENGTH_INPUT // 1024**2} MB of the PDF's streams"
            )
        yield chunk


def _inflate(chunks: Iterable[bytes]) -> Iterator[bytes]:
    inflater = zlib.decompressobj()
    try:
        for chunk in chunks:
            data = chunk
            while data:
                out = inflater.decompress(data, CHUNK)
                if out:
                    yield out
                if inflater.eof:
                    return
                data = inflater.unconsumed_tail
        while not inflater.eof and (out := inflater.decompress(b"", CHUNK)):
            yield out  # what zlib still holds of the last input
    except zlib.error:
        return  # damaged: readers stop there too


def _ascii_hex(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Readers skip what is not a hex digit (PDFium does) and stop at '>'; an odd last digit is
    followed by 0."""
    odd = b""
    for chunk in chunks:
        end = chunk.find(b">")
        digits = odd + (chunk if end < 0 else chunk[:end]).translate(None, _NOT_HEX)
        odd = digits[-1:] if len(digits) % 2 else b""
        yield binascii.unhexlify(digits[: len(digits) - len(odd)])
        if end >= 0:
            break
    if odd:
        yield binascii.unhexlify(odd + b"0")


def _ascii85(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Groups of five characters to four bytes, 'z' four zero bytes; white space skipped, the
    end at '~' or at anything else."""
    rest = b""
    for chunk in chunks:
        text = chunk.translate(None, _WHITE)
        if text.startswith(b"<~") and not rest:
            text = text[2:]
        stripped = text.translate(None, _ASCII85)
        end = text.find(stripped[:1]) if stripped else -1  # the first character that is no digit
        text = rest + (text if end < 0 else text[:end])
        parts = text.split(b"z")
        for part in parts[:-1]:
            yield _a85(part) + b"\0\0\0\0"
        last = parts[-1]
        whole = len(last) - len(last) % 5
        yield _a85(last[:whole])
        rest = last[whole:]
        if end >= 0:
            break
    if rest:
        yield _a85(rest)


_POWERS = np.array([85**4, 85**3, 85**2, 85, 1], dtype=np.uint64)


def _a85(text: bytes) -> bytes:
    """Base-85 digits ('!' to 'u') to bytes, a group of five at a time (numpy: base64.a85decode
    does some 6 MB a second); a last group of n < 5 digits, padded with 'u', gives n - 1 bytes."""
    short = len(text) % 5
    if short:
        return _a85(text[: len(text) - short]) + _a85(text[len(text) - short :] + b"u" * (5 - short))[: short - 1]
    digits = np.frombuffer(text, dtype=np.uint8).reshape(-1, 5).astype(np.uint64) - 33
    # A group past 2^32 - 1 (damaged) keeps its low 32 bits: as long as a good one.
    return ((digits * _POWERS).sum(axis=1) & 0xFFFFFFFF).astype(">u4").tobytes()


def _run_length(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """ISO 32000-1 7.4.5: a length byte n, then n+1 bytes (n < 128) or one byte 257-n times
    (n > 128); 128 ends the data."""
    pending = b""
    for chunk in chunks:
        data, at, out = pending + chunk, 0, bytearray()
        while at < len(data):
            length = data[at]
            if length == 128:
                yield bytes(out)
                return
            if length < 128:
                if at + 1 + length + 1 > len(data):
                    break
                out += data[at + 1 : at + 2 + length]
                at += 2 + length
            else:
                if at + 1 >= len(data):
                    break
                out += data[at + 1 : at + 2] * (257 - length)
                at += 2
            if len(out) >= CHUNK:
                yield bytes(out)
                out = bytearray()
        pending = data[at:]
        yield bytes(out)


def _lzw(chunks: Iterable[bytes], early: bool = True) -> Iterator[bytes]:
    """ISO 32000-1 7.4.4: codes of 9 to 12 bits, 256 clears the table, 257 ends the data; with
    `early` (EarlyChange 1, the default) the code grows one code sooner."""
    table: list[bytes] = [bytes([n]) for n in range(256)] + [b"", b""]
    width, previous = 9, b""
    bits = count = 0
    out = bytearray()
    for chunk in chunks:
        for byte in chunk:
            bits = (bits << 8) | byte
            count += 8
            if count < width:
                continue
            count -= width
            code = bits >> count
            bits &= (1 << count) - 1
            if code == 256:
                del table[258:]
                width, previous = 9, b""
                continue
            if code == 257:
                yield bytes(out)
                return
            if code < len(table):
                entry = table[code]
                if previous and len(table) < 4096:
                    table.append(previous + entry[:1])
            elif code == len(table) and previous and len(table) < 4096:
                entry = previous + previous[:1]
                table.append(entry)
            else:
                yield bytes(out)
                return  # damaged: a code not yet in the table
            out += entry
            previous = entry
            if len(table) + early >= 1 << width and width < 12:
                width += 1
            if len(out) >= CHUNK:
                yield bytes(out)
                out = bytearray()
    yield bytes(out)


# Where a stream is read as an image (its data decoded row by row, downsampled): as an XObject
# (a value of a resource dictionary's /XObject), an image's /SMask or /Mask, a page's /Thumb, an
# alternate image's /Image.
_IMAGE_KEYS = frozenset({"/SMask", "/Mask", "/Thumb", "/Image"})


def images_only(pdf: pikepdf.Pdf) -> set[tuple[int, int]]:
    """The image streams (/Subtype /Image) that nothing reads as anything but an image. The same
    stream named as a page's /Contents, a glyph, a font file or an appearance is decoded whole
    there, so it is counted like every other stream, whatever its /Subtype says."""
    as_image: set[tuple[int, int]] = set()
    otherwise: set[tuple[int, int]] = set()
    xobject_dictionaries: set[tuple[int, int]] = set()  # indirect ones
    # Images named by an indirect dictionary that may be an /XObject dictionary: known at the end.
    named_by: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for obj in pdf.objects:
        # (item, how it is held: "image" a place an image is read, "xobjects" an /XObject dictionary)
        stack: list[tuple[Any, str | None]] = [(obj, None)]
        while stack:
            item, role = stack.pop()
            keyed = isinstance(item, pikepdf.Dictionary | pikepdf.Stream)
            for key, value in ((key, item[key]) for key in item.keys()) if keyed else ((None, v) for v in item):
                if not isinstance(value, pikepdf.Object):
                    continue
                if not value.is_indirect:
                    if isinstance(value, pikepdf.Dictionary | pikepdf.Array):
                        stack.append((value, "xobjects" if key == "/XObject" else None))
                    continue
                if key == "/XObject" and isinstance(value, pikepdf.Dictionary):
                    xobject_dictionaries.add(value.objgen)
                if not (isinstance(value, pikepdf.Stream) and value.get("/Subtype") == Name.Image):
                    continue
                if role == "xobjects" or key in _IMAGE_KEYS:
                    as_image.add(value.objgen)
                elif item is obj and isinstance(obj, pikepdf.Dictionary):
                    named_by.setdefault(obj.objgen, []).append(value.objgen)
                else:
                    otherwise.add(value.objgen)
    for holder, images in named_by.items():
        (as_image if holder in xobject_dictionaries else otherwise).update(images)
    return as_image - otherwise


def decodes(stream: pikepdf.Stream) -> bool:
    """Whether the stream's first filter is one decoded_size undoes (otherwise its bytes are
    read as they are, or as an image)."""
    filters = _as_list(stream.get("/Filter"))
    return bool(filters) and isinstance(filters[0], Name) and str(filters[0]) in _DECODERS


_DECODERS: dict[str, Decoder] = {
    "/FlateDecode": _inflate,
    "/Fl": _inflate,
    "/ASCIIHexDecode": _ascii_hex,
    "/AHx": _ascii_hex,
    "/ASCII85Decode": _ascii85,
    "/A85": _ascii85,
    "/RunLengthDecode": _run_length,
    "/RL": _run_length,
    "/LZWDecode": _lzw,  # with the stream's EarlyChange (decoded_size)
    "/LZW": _lzw,
}


__all__ = ["CHUNK", "LZW_RUNLENGTH_INPUT", "SlowInput", "StreamNotChecked", "decoded_size", "decodes", "images_only"]
