"""Pages of plain PDFs as form XObjects of a new PDF, by copying their objects' bytes
(extensions.md 14: a label sheet of a batch's rows).

A row's PDF, as the engine writes it (ReportLab: a classic cross-reference table, every
object in the clear, one content stream a page, lengths given directly), is read without
parsing its streams: the cross-reference table gives each object's bytes, the objects a
page's content and resources reach are copied renumbered (references rewritten outside
literal strings, stream data untouched), and its content stream becomes a form XObject by
adding /Type, /Subtype, /BBox and /Resources to its dictionary. qpdf does the same through
its object model at about four times the cost a label (measured: 210 labels, 105 ms against
25 ms), which made label sheets cost half as much again as the rows' own PDFs.

Anything else (an xref stream, object streams, incremental updates, encryption, inherited
page attributes, a page of several content streams, a rotated page) is not read here:
`SplicedPage.read` answers None and the caller uses pikepdf.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_STARTXREF = re.compile(rb"startxref\s+(\d+)\s*%%EOF\s*$")
_SUBSECTION = re.compile(rb"\s*(\d+)\s+(\d+)\s*(?:\r\n|\r|\n)")
_OBJ = re.compile(rb"\s*(\d+)\s+(\d+)\s+obj\b")
_REF = re.compile(rb"(?<![\d.+-])(\d+)\s+(\d+)\s+R(?![A-Za-z0-9_])")
_R = re.compile(rb"R(?![^()<>\[\]{}/% \t\r\n\x0c\x00])")  # the keyword R: a delimiter or the end after it
_BACK = re.compile(rb"(?<![\d.+-])(\d+)\s+(\d+)\s+\Z")
_STREAM = re.compile(rb">>\s*stream\r?\n")
_SPACE = re.compile(rb"(?:[ \t\r\n\x0c\x00]|%[^\r\n]*)*")
_NESTING = re.compile(rb"<<|>>|[\[\]()<%]")
_STRING = re.compile(rb"\\.|[()]", re.DOTALL)
_TOKEN = re.compile(rb"[^()<>\[\]{}/% \t\r\n\x0c\x00]*")


class _NotPlain(Exception):
    """The PDF is not one this module reads; pikepdf places its pages."""


@dataclass
class _Object:
    head: bytes  # the object's value, or a stream's dictionary, as written
    stream: bytes | None  # a stream's data with its keyword lines, exactly as written


@dataclass(frozen=True)
class SplicedPage:
    """One page of a source PDF, ready to be written as a form XObject of another."""

    objects: dict[int, _Object]  # what its content and resources reach, by source number
    contents: int  # the content stream's source number
    resources: bytes  # the page's /Resources value (a reference or a dictionary)
    box: tuple[float, float, float, float]  # its /CropBox, or /MediaBox

    @classmethod
    def read(cls, data: bytes) -> list[SplicedPage] | None:
        """The pages of `data`, or None when it is not a PDF this module reads."""
        try:
            return _pages(data)
        except (_NotPlain, ValueError, IndexError, KeyError):
            return None


def _pages(data: bytes) -> list[SplicedPage]:
    found = _STARTXREF.search(data, max(0, len(data) - 1024))
    if found is None:
        raise _NotPlain
    offsets, trailer = _xref(data, int(found.group(1)))
    entries = _entries(trailer)
    if "/Prev" in entries or "/Encrypt" in entries or "/XRefStm" in entries:
        raise _NotPlain
    ordered = sorted(offsets.values())
    ends = dict(zip(ordered, [*ordered[1:], int(found.group(1))], strict=True))
    cache: dict[int, _Object] = {}

    def get(number: int) -> _Object:
        if number not in cache:
            cache[number] = _object(data, number, offsets[number], ends[offsets[number]])
        return cache[number]

    catalog = _entries(get(_ref(entries["/Root"])).head)
    pages: list[SplicedPage] = []
    _walk(get, _ref(catalog["/Pages"]), pages, set())
    return pages


def _xref(data: bytes, at: int) -> tuple[dict[int, int], bytes]:
    if data[at : at + 4] != b"xref":
        raise _NotPlain  # an xref stream (object streams): pikepdf reads it
    at += 4
    offsets: dict[int, int] = {}
    while True:
        section = _SUBSECTION.match(data, at)
        if section is None:
            break
        first, count = int(section.group(1)), int(section.group(2))
        at = section.end()
        for index in range(count):
            entry = data[at : at + 20]
            if entry[17:18] == b"n":
                if int(entry[11:16]) != 0:
                    raise _NotPlain  # a generation other than 0: an edited file
                offsets[first + index] = int(entry[:10])
            at += 20
    trailer = data.find(b"trailer", at)
    if trailer < 0:
        raise _NotPlain
    start = data.index(b"<<", trailer)
    return offsets, data[start : _value_end(data, start)]


def _object(data: bytes, number: int, start: int, end: int) -> _Object:
    """The object at `start` (the next one, or the cross-reference table, at `end`), cut at its
    keywords: nothing in it is tokenised (a label's fonts are thousands of numbers)."""
    head = _OBJ.match(data, start)
    if head is None or int(head.group(1)) != number:
        raise _NotPlain
    stop = data.rfind(b"endobj", head.end(), end)
    if stop < 0:
        raise _NotPlain
    stream = _STREAM.search(data, head.end(), stop)
    if stream is None:
        return _Object(data[head.end() : stop].strip(), None)
    tail = data.rfind(b"endstream", stream.end(), stop)
    if tail < 0:
        raise _NotPlain
    # The data as written, with its end-of-line before "endstream" (its /Length stays true).
    return _Object(
        data[head.end() : stream.start() + 2].strip(), b"stream\n" + data[stream.end() : tail] + b"endstream"
    )


def _walk(get, number: int, pages: list[SplicedPage], seen: set[int]) -> None:  # noqa: ANN001
    if number in seen:
        raise _NotPlain  # a loop in the page tree
    seen.add(number)
    node = _entries(get(number).head)
    if node.get("/Type") == b"/Pages":
        if any(key in node for key in ("/Resources", "/MediaBox", "/CropBox", "/Rotate")):
            raise _NotPlain  # inherited page attributes
        for kid in _REF.finditer(node["/Kids"]):
            _walk(get, int(kid.group(1)), pages, seen)
        return
    if b"0" != node.get("/Rotate", b"0") or "/UserUnit" in node or "/Resources" not in node:
        raise _NotPlain
    contents = node.get("/Contents", b"")
    if not re.fullmatch(rb"\d+\s+0\s+R", contents):
        raise _NotPlain  # no content, or several streams
    box = [float(v) for v in node.get("/CropBox", node["/MediaBox"]).strip(b"[] \r\n").split()]
    if len(box) != 4:
        raise _NotPlain
    content = _ref(contents)
    if get(content).stream is None:
        raise _NotPlain
    reached: dict[int, _Object] = {}
    waiting = [content, *_refs(node["/Resources"])]
    while waiting:
        wanted = waiting.pop()
        if wanted not in reached:
            reached[wanted] = get(wanted)
            waiting += _refs(reached[wanted].head)
    x0, y0, x1, y1 = box
    pages.append(
        SplicedPage(reached, content, node["/Resources"], (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))
    )


def _ref_spans(text: bytes) -> list[tuple[int, int, int]]:
    """(start, end, object number) of each reference "N G R" in `text`, outside its literal
    strings. Found from each "R" backwards: a regex that starts at every digit spends most of
    a label's time in its fonts' widths (thousands of numbers, no reference)."""
    masked = _outside_strings(text)
    spans = []
    for keyword in _R.finditer(masked):
        at = keyword.start()
        back = _BACK.search(masked, max(0, at - 32), at)
        if back is not None:
            spans.append((back.start(1), at + 1, int(back.group(1))))
    return spans


def _refs(text: bytes) -> list[int]:
    """The object numbers `text` refers to (outside its literal strings)."""
    return [number for _, _, number in _ref_spans(text)]


def _ref(value: bytes) -> int:
    found = _REF.fullmatch(value.strip())
    if found is None:
        raise _NotPlain
    return int(found.group(1))


def _skip_space(data: bytes, at: int) -> int:
    """Past white space and comments from `at`."""
    return _SPACE.match(data, at).end()  # type: ignore[union-attr]


def _value_end(data: bytes, at: int) -> int:
    """Where the value starting at `at` ends (a dictionary, array, string, name, number, …)."""
    first = data[at : at + 1]
    if first == b"(":
        return _string_end(data, at)
    if data.startswith(b"<<", at) or first == b"[":
        depth = 0
        while True:
            token = _NESTING.search(data, at)  # jumps over everything that cannot nest
            if token is None:
                raise _NotPlain
            kind, at = token.group(), token.start()
            if kind in (b"<<", b"["):
                depth += 1
                at += len(kind)
            elif kind in (b">>", b"]"):
                depth -= 1
                at += len(kind)
                if depth == 0:
                    return at
            elif kind == b"(":
                at = _string_end(data, at)
            elif kind == b"<":
                at = data.index(b">", at) + 1
            else:  # a comment
                at = _skip_space(data, at)
    if first == b"<":
        return data.index(b">", at) + 1
    ref = _REF.match(data, at)
    if ref is not None:
        return ref.end()
    return _TOKEN.match(data, at + 1).end()  # type: ignore[union-attr]


def _string_end(data: bytes, at: int) -> int:
    """Where the literal string starting at `at` ends (balanced parentheses, backslash escapes)."""
    depth = 0
    while True:
        token = _STRING.search(data, at)
        if token is None:
            raise _NotPlain
        at = token.end()
        if token.group() == b"(":
            depth += 1
        elif token.group() == b")":
            depth -= 1
            if depth == 0:
                return at


def _entries(dictionary: bytes) -> dict[str, bytes]:
    """The top-level entries of a dictionary's bytes: name -> its value's bytes, as written."""
    if not dictionary.startswith(b"<<"):
        raise _NotPlain
    entries: dict[str, bytes] = {}
    at, end = 2, len(dictionary) - 2
    while True:
        at = _skip_space(dictionary, at)
        if at >= end:
            return entries
        if dictionary[at] != 0x2F:
            raise _NotPlain
        name_end = _value_end(dictionary, at)
        value_start = _skip_space(dictionary, name_end)
        value_end = _value_end(dictionary, value_start)
        entries[dictionary[at:name_end].decode("latin-1")] = dictionary[value_start:value_end]
        at = value_end


def _outside_strings(text: bytes) -> bytes:
    """`text` with its literal strings' insides blanked, at the same offsets: no "1 0 R" in a
    string counts as a reference."""
    if b"(" not in text:
        return text
    pieces, at = [], 0
    while (start := text.find(b"(", at)) >= 0:
        end = _string_end(text, start)
        pieces += [text[at:start], b"(" + b" " * (end - start - 2) + b")"]
        at = end
    pieces.append(text[at:])
    return b"".join(pieces)


def renumbered(text: bytes, numbers: dict[int, int]) -> bytes:
    """`text` with every reference N G R outside its literal strings made numbers[N] 0 R."""
    spans = _ref_spans(text)
    if not spans:
        return text
    pieces, at = [], 0
    for start, end, number in spans:
        pieces += [text[at:start], b"%d 0 R" % numbers[number]]
        at = end
    pieces.append(text[at:])
    return b"".join(pieces)


class SplicedDocument:
    """A PDF written object by object: forms copied from SplicedPages, pages drawing them."""

    def __init__(self) -> None:
        self._objects: list[bytes | None] = [None, None, None]  # 0 is free; 1 catalog, 2 page tree
        self._pages: list[int] = []

    def _reserve(self) -> int:
        self._objects.append(None)
        return len(self._objects) - 1

    def _set(self, number: int, head: bytes, stream: bytes | None = None) -> None:
        self._objects[number] = b"%d 0 obj\n" % number + head + (b"\n" + stream if stream else b"") + b"\nendobj\n"

    def add_form(self, page: SplicedPage) -> int:
        """`page` as a form XObject of this document: its number."""
        numbers = {old: self._reserve() for old in page.objects}
        for old, obj in page.objects.items():
            head = renumbered(obj.head, numbers)
            if old == page.contents:
                box = b"[%s]" % b" ".join(b"%.4f" % v for v in page.box)
                resources = renumbered(page.resources, numbers)
                head = head[:-2] + b" /Type /XObject /Subtype /Form /BBox " + box + b" /Resources " + resources + b" >>"
            self._set(numbers[old], head, obj.stream)
        return numbers[page.contents]

    def add_page(self, width: float, height: float, forms: dict[str, int], content: bytes) -> None:
        """A page of `width` × `height` points drawing `content` (compressed with Flate), whose
        resources name the forms {"/L0": number, …}."""
        stream = self._reserve()
        self._set(
            stream, b"<< /Filter /FlateDecode /Length %d >>" % len(content), b"stream\n" + content + b"\nendstream"
        )
        xobjects = b" ".join(b"%s %d 0 R" % (name.encode(), number) for name, number in forms.items())
        page = self._reserve()
        self._set(
            page,
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.4f %.4f] /Resources << /XObject << %s >> >> "
            b"/Contents %d 0 R >>" % (width, height, xobjects, stream),
        )
        self._pages.append(page)

    def bytes(self) -> bytes:
        kids = b" ".join(b"%d 0 R" % number for number in self._pages)
        self._set(1, b"<< /Type /Catalog /Pages 2 0 R >>")
        self._set(2, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(self._pages)))
        out = [b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"]
        offsets, at = [], len(out[0])
        for written in self._objects[1:]:
            assert written is not None
            offsets.append(at)
            out.append(written)
            at += len(written)
        xref = [b"xref\n0 %d\n0000000000 65535 f \n" % len(self._objects)]
        xref += [b"%010d 00000 n \n" % offset for offset in offsets]
        out += xref
        out.append(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(self._objects), at))
        return b"".join(out)


__all__ = ["SplicedDocument", "SplicedPage"]
