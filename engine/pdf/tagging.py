"""Marked content and the logical structure, collected while a document is drawn.

Tagged profiles (`accessible`, `pdf-a`) wrap everything drawn in marked content:
either a structure element's content (`/P <</MCID 3>> BDC … EMC`) or an artifact
(`/Artifact <</Type /Layout>> BDC … EMC`) for what is decoration. Element modules say
which, through the `Tagger` on their draw context; the standard profile gets the
`Untagged` twin whose methods do nothing, so drawing code is the same for every
profile. `profiles.py` turns what was collected into the PDF's structure tree.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
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


@dataclass(slots=True)
class StructNode:
    """A structure element: a role (P, H1, Table, TD, Figure…) and its children.

    Children are other nodes or marked-content references (page index, MCID). Slotted: a
    table makes one per cell.
    """

    role: str
    attributes: dict[str, Any] = field(default_factory=dict)
    children: list[StructNode | tuple[int, int] | AnnotationRef] = field(default_factory=list)


class Untagged:
    """The standard profile: nothing is marked."""

    tagged = False

    def start_page(self, canvas: Canvas) -> None:
        pass

    def artifact(self, canvas: Canvas) -> AbstractContextManager[None]:
        return _NOTHING

    def group(self, role: str, key: str | None = None, **attributes: Any) -> AbstractContextManager[None]:
        return _NOTHING

    def content(self, canvas: Canvas, role: str, **attributes: Any) -> AbstractContextManager[None]:
        return _NOTHING

    def figure(self, canvas: Canvas, alt: str | None) -> AbstractContextManager[None]:
        return _NOTHING

    def pagination(self, canvas: Canvas) -> AbstractContextManager[None]:
        return _NOTHING

    def marked(self, canvas: Canvas, actual_text: str | None = None) -> AbstractContextManager[None]:
        return _NOTHING

    def annotated(self) -> None:
        pass

    def begin_content(self, role: str, attributes: dict[str, Any]) -> str | None:
        return None


# The blocks below are classes rather than @contextmanager generators: a table opens a few
# hundred of them per document, and a generator's setup cost several times the block's work.
# Each does its work when entered, not when made: a block may be made and then dropped (a
# repeated copy's figure) or entered inside another one made after it (a Link group).
_NOTHING = nullcontext()


class _Artifact:
    __slots__ = ("_tagger", "_canvas", "_literal", "_open")

    def __init__(self, tagger: Tagger, canvas: Canvas, literal: str = "/Artifact <</Type /Layout>> BDC") -> None:
        self._tagger = tagger
        self._canvas = canvas
        self._literal = literal
        self._open = False

    def __enter__(self) -> None:
        if not self._tagger._in_pagination:
            self._canvas.addLiteral(self._literal)
            self._open = True

    def __exit__(self, *exc: object) -> None:
        if self._open:
            self._canvas.addLiteral("EMC")


class _Group:
    __slots__ = ("_tagger", "_role", "_key", "_attributes", "_pushed")

    def __init__(self, tagger: Tagger, role: str, key: str | None, attributes: dict[str, Any]) -> None:
        self._tagger = tagger
        self._role = role
        self._key = key
        self._attributes = attributes
        self._pushed = False

    def __enter__(self) -> None:
        tagger = self._tagger
        key = self._key
        node = tagger._groups.get(key) if key else None
        if tagger._in_pagination:
            # A repeated copy adds no structure; a keyed group it drew the first time still
            # takes the copy's link annotations (annotated), so each is in a Link element.
            if node is not None:
                tagger._stack.append(node)
                self._pushed = True
            return
        if node is None:
            node = StructNode(self._role, self._attributes)
            tagger._stack[-1].children.append(node)
            if key:
                tagger._groups[key] = node
        tagger._stack.append(node)
        self._pushed = True

    def __exit__(self, *exc: object) -> None:
        if self._pushed:
            self._tagger._stack.pop()


class _Content:
    """Marked content with an MCID: a new element (`role`), or more of the innermost group's
    (`role` None: `marked`)."""

    __slots__ = ("_tagger", "_canvas", "_role", "_attributes", "_spoken", "_open")

    def __init__(
        self, tagger: Tagger, canvas: Canvas, role: str | None, attributes: dict[str, Any], spoken: str = ""
    ) -> None:
        self._tagger = tagger
        self._canvas = canvas
        self._role = role
        self._attributes = attributes
        self._spoken = spoken
        self._open = False

    def __enter__(self) -> None:
        tagger = self._tagger
        if tagger._in_pagination:
            return
        if self._role is None:
            node = tagger._stack[-1]
        else:
            node = StructNode(self._role, self._attributes)
            tagger._stack[-1].children.append(node)
        page = len(tagger.pages) - 1
        owners = tagger.pages[page]
        mcid = len(owners)
        owners.append(node)
        node.children.append((page, mcid))
        self._canvas.addLiteral(f"/{node.role} <</MCID {mcid}{self._spoken}>> BDC")
        self._open = True

    def __exit__(self, *exc: object) -> None:
        if self._open:
            self._canvas.addLiteral("EMC")


class _Pagination:
    __slots__ = ("_tagger", "_canvas", "_open")

    def __init__(self, tagger: Tagger, canvas: Canvas) -> None:
        self._tagger = tagger
        self._canvas = canvas
        self._open = False

    def __enter__(self) -> None:
        if not self._tagger._in_pagination:
            self._canvas.addLiteral("/Artifact <</Type /Pagination>> BDC")
            self._tagger._in_pagination = True
            self._open = True

    def __exit__(self, *exc: object) -> None:
        if self._open:
            self._tagger._in_pagination = False
            self._canvas.addLiteral("EMC")


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

    def artifact(self, canvas: Canvas) -> AbstractContextManager[None]:
        return _Artifact(self, canvas)

    def group(self, role: str, key: str | None = None, **attributes: Any) -> AbstractContextManager[None]:
        """A structure element holding other elements (Table, TR, L, LI).

        With a key, drawing the same group again (a table continued on the next page)
        adds to the element made the first time instead of starting a second one.
        """
        return _Group(self, role, key, attributes)

    def content(self, canvas: Canvas, role: str, **attributes: Any) -> AbstractContextManager[None]:
        """A structure element whose content is what is drawn inside the block."""
        return _Content(self, canvas, role, attributes)

    def figure(self, canvas: Canvas, alt: str | None) -> AbstractContextManager[None]:
        """A picture: a Figure with its alternative text, or decoration when it has none."""
        return self.content(canvas, "Figure", Alt=alt) if alt else self.artifact(canvas)

    def begin_content(self, role: str, attributes: dict[str, Any]) -> str | None:
        """What `content` does on entering, for a caller that writes the marked content itself:
        a new element (`role`, `attributes` kept as given) in the innermost group, and the
        literal that opens its content (`/TD <</MCID 7>> BDC`), which the caller closes with EMC
        — or None inside a pagination artifact, where nothing is marked. A table writes each of
        its cells as one literal, opening, drawing and EMC together (hundreds per document,
        where a block object per cell showed in its profile)."""
        if self._in_pagination:
            return None
        owners = self.pages[-1]
        mcid = len(owners)
        node = StructNode(role, attributes, [(len(self.pages) - 1, mcid)])
        self._stack[-1].children.append(node)
        owners.append(node)
        return f"/{role} <</MCID {mcid}>> BDC"

    def pagination(self, canvas: Canvas) -> AbstractContextManager[None]:
        """A repeated element drawn again on a later sheet (extensions.md 4): one pagination
        artifact around all of it, and none of it in the structure tree (it was read once)."""
        return _Pagination(self, canvas)

    def marked(self, canvas: Canvas, actual_text: str | None = None) -> AbstractContextManager[None]:
        """More content of the innermost group (a P holding Link elements, a Link's label),
        with the text it stands for when that differs from what is drawn."""
        spoken = f" /ActualText <{(chr(0xFEFF) + actual_text).encode('utf-16-be').hex()}>" if actual_text else ""
        return _Content(self, canvas, None, {}, spoken)

    def annotated(self) -> None:
        """The annotation just added to the page belongs to the innermost group (a Link).

        Annotations are counted in the order they are made, which is their order in the
        page's /Annots (engine.pdf.links makes every one of them).
        """
        node = self._stack[-1]
        page = len(self.pages) - 1
        self._annotations[page] = self._annotations.get(page, 0) + 1
        node.children.append(AnnotationRef(page, self._annotations[page] - 1))
