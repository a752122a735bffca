"""Marked content and the logical structure, collected while a document is drawn.

Tagged profiles (`accessible`, `pdf-a`) wrap everything drawn in marked content:
either a structure element's content (`/P <</MCID 3>> BDC … EMC`) or an artifact
(`/Artifact <</Type /Layout>> BDC … EMC`) for what is decoration. Element modules say
which, through the `Tagger` on their draw context; the standard profile gets the
`Untagged` twin whose methods do nothing, so drawing code is the same for every
profile. `profiles.py` turns what was collected into the PDF's structure tree.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from reportlab.pdfgen.canvas import Canvas

# The document's /Lang when the design has no metadata.language.
DEFAULT_LANGUAGE = "en"


def own_language(lang: str | None, design_language: str) -> dict[str, str]:
    """{"Lang": lang} for a structure element whose content is in another language than the
    document's /Lang (ISO 32000 14.9.2; extensions.md 6), else nothing: the element inherits it."""
    document = design_language or DEFAULT_LANGUAGE
    return {"Lang": lang} if lang and lang.lower() != document.lower() else {}


@dataclass(frozen=True)
class AnnotationRef:
    """A structure element's child that is an annotation: the page's index-th /Annots entry."""

    page: int
    index: int


@dataclass
class StructNode:
    """A structure element: a role (P, H1, Table, TD, Figure…) and its children.

    Children are other nodes or marked-content references (page index, MCID).
    """

    role: str
    attributes: dict[str, Any] = field(default_factory=dict)
    children: list[StructNode | tuple[int, int] | AnnotationRef] = field(default_factory=list)


class Untagged:
    """The standard profile: nothing is marked."""

    tagged = False

    def start_page(self, canvas: Canvas) -> None:
        pass

    @contextmanager
    def artifact(self, canvas: Canvas) -> Iterator[None]:
        yield

    @contextmanager
    def group(self, role: str, key: str | None = None, **attributes: Any) -> Iterator[None]:
        yield

    @contextmanager
    def content(self, canvas: Canvas, role: str, **attributes: Any) -> Iterator[None]:
        yield

    @contextmanager
    def figure(self, canvas: Canvas, alt: str | None) -> Iterator[None]:
        yield

    @contextmanager
    def pagination(self, canvas: Canvas) -> Iterator[None]:
        yield

    @contextmanager
    def marked(self, canvas: Canvas, actual_text: str | None = None) -> Iterator[None]:
        yield

    def annotated(self) -> None:
        pass


class Tagger(Untagged):
    """Collects the structure of a tagged document while it is drawn."""

    tagged = True

    def __init__(self) -> None:
        self.root = StructNode("Document")
        self.pages: list[list[StructNode]] = []  # per page: the node owning each MCID, by MCID
        self._stack: list[StructNode] = [self.root]
        self._groups: dict[str, StructNode] = {}
        self._in_pagination = False  # inside a pagination artifact: nothing drawn is structure
        self._annotations: dict[int, int] = {}  # page -> annotations made on it

    def start_page(self, canvas: Canvas) -> None:
        self.pages.append([])

    @contextmanager
    def artifact(self, canvas: Canvas) -> Iterator[None]:
        if self._in_pagination:
            yield
            return
        canvas.addLiteral("/Artifact <</Type /Layout>> BDC")
        try:
            yield
        finally:
            canvas.addLiteral("EMC")

    @contextmanager
    def group(self, role: str, key: str | None = None, **attributes: Any) -> Iterator[None]:
        """A structure element holding other elements (Table, TR, L, LI).

        With a key, drawing the same group again (a table continued on the next page)
        adds to the element made the first time instead of starting a second one.
        """
        node = self._groups.get(key) if key else None
        if self._in_pagination:
            # A repeated copy adds no structure; a keyed group it drew the first time still
            # takes the copy's link annotations (annotated), so each is in a Link element.
            if node is not None:
                self._stack.append(node)
            try:
                yield
            finally:
                if node is not None:
                    self._stack.pop()
            return
        if node is None:
            node = StructNode(role, attributes)
            self._stack[-1].children.append(node)
            if key:
                self._groups[key] = node
        self._stack.append(node)
        try:
            yield
        finally:
            self._stack.pop()

    @contextmanager
    def content(self, canvas: Canvas, role: str, **attributes: Any) -> Iterator[None]:
        """A structure element whose content is what is drawn inside the block."""
        if self._in_pagination:
            yield
            return
        node = StructNode(role, attributes)
        self._stack[-1].children.append(node)
        page = len(self.pages) - 1
        mcid = len(self.pages[page])
        self.pages[page].append(node)
        node.children.append((page, mcid))
        canvas.addLiteral(f"/{role} <</MCID {mcid}>> BDC")
        try:
            yield
        finally:
            canvas.addLiteral("EMC")

    @contextmanager
    def figure(self, canvas: Canvas, alt: str | None) -> Iterator[None]:
        """A picture: a Figure with its alternative text, or decoration when it has none."""
        block = self.content(canvas, "Figure", Alt=alt) if alt else self.artifact(canvas)
        with block:
            yield

    @contextmanager
    def pagination(self, canvas: Canvas) -> Iterator[None]:
        """A repeated element drawn again on a later sheet (extensions.md 4): one pagination
        artifact around all of it, and none of it in the structure tree (it was read once)."""
        if self._in_pagination:
            yield
            return
        canvas.addLiteral("/Artifact <</Type /Pagination>> BDC")
        self._in_pagination = True
        try:
            yield
        finally:
            self._in_pagination = False
            canvas.addLiteral("EMC")

    @contextmanager
    def marked(self, canvas: Canvas, actual_text: str | None = None) -> Iterator[None]:
        """More content of the innermost group (a P holding Link elements, a Link's label),
        with the text it stands for when that differs from what is drawn."""
        if self._in_pagination:
            yield
            return
        node = self._stack[-1]
        page = len(self.pages) - 1
        mcid = len(self.pages[page])
        self.pages[page].append(node)
        node.children.append((page, mcid))
        spoken = f" /ActualText <{(chr(0xFEFF) + actual_text).encode('utf-16-be').hex()}>" if actual_text else ""
        canvas.addLiteral(f"/{node.role} <</MCID {mcid}{spoken}>> BDC")
        try:
            yield
        finally:
            canvas.addLiteral("EMC")

    def annotated(self) -> None:
        """The annotation just added to the page belongs to the innermost group (a Link).

        Annotations are counted in the order they are made, which is their order in the
        page's /Annots (engine.links makes every one of them).
        """
        node = self._stack[-1]
        page = len(self.pages) - 1
        self._annotations[page] = self._annotations.get(page, 0) + 1
        node.children.append(AnnotationRef(page, self._annotations[page] - 1))
