"""What of another PDF's page we keep (extensions.md 12): the one place with these rules, for
pages copied whole (generate's `append` and `prepend`, engine.finishing.added_pages) and pages
placed as forms (backgrounds, images, `basePdf`: engine.media.pdf_pages).

A page someone uploads may carry more than what it shows: page-open JavaScript (/AA), links
that launch programs or open `file:` and `javascript:` URIs, form actions that submit, import
or reset data, attached executables, media players, and widgets of a form that is not ours.
Our output would carry them under our name, in PDF/A and signed documents too. So we keep what
only shows something, and links a reader can follow safely:

- Link annotations whose action is a URI with http, https or mailto, or a GoTo (or /Dest) to a
  page the document keeps; their action without /Next (a chain of further actions);
- annotations that only show something (notes, highlights, stamps, shapes, ink, popups), without
  their /A or /AA;

and nothing else: no page /AA, no other action anywhere its objects reach, no widget (a copied
page's widgets belong to a form we do not copy), no FileAttachment, Sound, Movie, Screen,
RichMedia, 3D or other annotation, no embedded file or associated file (/AF). The source's
document-level things (its names tree's JavaScript and EmbeddedFiles, its /OpenAction, its
AcroForm) are never copied: only pages, and under the accessible profile its structure tree,
which is cleaned here too.

Under pdf-a a kept annotation is printed (the Print flag; PDF/A-3 6.3.2) and keeps only its
normal appearance (6.3.3); one that is hidden is dropped (nobody sees it). What cannot be made
conformant is reported by `annotation_problems` for the profile to refuse.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Set
from typing import Any

import pikepdf
from pikepdf import Array, Dictionary, Name

# ISO 32000-1 12.6.4 and ISO 32000-2 12.6.4: every action type.
ACTION_TYPES = frozenset(
    "/" + kind
    for kind in (
        "GoTo GoToR GoToE GoToDp Launch Thread URI Sound Movie Hide Named SubmitForm ResetForm ImportData "
        "JavaScript SetOCGState Rendition Trans GoTo3DView RichMediaExecute ECMAScript"
    ).split()
)
KEPT_URI_SCHEMES = ("http", "https", "mailto")
# Annotations that only show something (ISO 32000-1 12.5.6): kept, without actions.
PASSIVE_ANNOTATIONS = frozenset(
    "/" + kind
    for kind in (
        "Text FreeText Line Square Circle Polygon PolyLine Highlight Underline Squiggly StrikeOut Caret Stamp Ink Popup"
    ).split()
)
# Keys that hold actions or files whatever dictionary they are in: additional actions (on a page,
# an annotation, a form), a document's open action, JavaScript, associated files (PDF 2.0, PDF/A-3),
# and a page's presentation steps (ISO 32000-1 12.4.4.2: navigation nodes whose /NA and /PA are
# actions a reader runs as it steps through the page).
DROPPED_KEYS = frozenset({"/AA", "/OpenAction", "/JS", "/AF", "/PresSteps"})
# Keys whose value a reader runs as an action (an annotation's /A, an action's /Next, a navigation
# node's /NA and /PA): what sits there is judged by its /S alone, a structure element's or not.
ACTION_KEYS = frozenset({"/A", "/Next", "/NA", "/PA"})
_INVISIBLE, _HIDDEN, _PRINT, _NO_VIEW = 1, 2, 4, 32  # annotation flags (ISO 32000-1 table 165)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")


def _name(obj: Any, key: str) -> str | None:
    value = obj.get(key) if isinstance(obj, Dictionary | pikepdf.Stream) else None
    return str(value) if isinstance(value, Name) else None


def is_action(obj: Any, elements: Set[tuple[int, int]] = frozenset()) -> bool:
    """An action dictionary: any dictionary whose /S names an action type, whatever else it holds.
    Readers look at /S alone, so a /Type other than /Action, or a /P or /K, makes it nothing else.
    Only the structure elements of a tree we copy (`elements`, found from its root by
    `structure_elements`) have an /S that is a role, and a role may be named like an action."""
    if not isinstance(obj, Dictionary) or _name(obj, "/S") not in ACTION_TYPES:
        return False
    return not (obj.is_indirect and obj.objgen in elements)


def structure_elements(pdf: pikepdf.Pdf, tree_root: Any) -> set[tuple[int, int]]:
    """The structure elements of the tree under `tree_root` (a StructTreeRoot): those its /K
    reaches, element by element, and those its ParentTree names. A direct element whose role is
    named like an action is made indirect (in the source, which is cleaned for one copy) so that
    it can be told from an action wherever it is reached."""
    found: set[tuple[int, int]] = set()
    parents: list[Any] = [tree_root]
    while parents:
        parent = parents.pop()
        kids = parent.get("/K")
        slots = list(range(len(kids))) if isinstance(kids, Array) else [None]
        for slot in slots:
            kid = kids if slot is None else kids[slot]
            if not isinstance(kid, Dictionary) or _name(kid, "/Type") in ("/MCR", "/OBJR"):
                continue
            if not kid.is_indirect:
                if _name(kid, "/S") not in ACTION_TYPES:
                    parents.append(kid)
                    continue
                kid = pdf.make_indirect(kid)
                if slot is None:
                    parent.K = kid
                else:
                    kids[slot] = kid
            if kid.objgen not in found:
                found.add(kid.objgen)
                parents.append(kid)
    # The ParentTree's values are elements, or arrays of them, by indirect reference (14.7.4.4).
    nodes = [tree_root.get("/ParentTree")]
    visited: set[tuple[int, int]] = set()
    while nodes:
        node = nodes.pop()
        if not isinstance(node, Dictionary):
            continue
        if node.is_indirect:
            if node.objgen in visited:
                continue
            visited.add(node.objgen)
        kids = node.get("/Kids")
        nodes += list(kids) if isinstance(kids, Array) else []
        nums = node.get("/Nums")
        for value in list(nums)[1::2] if isinstance(nums, Array) else ():
            for element in value if isinstance(value, Array) else [value]:
                if isinstance(element, Dictionary) and element.is_indirect:
                    found.add(element.objgen)
    return found


def is_annotation(obj: Any) -> bool:
    return isinstance(obj, Dictionary) and (
        _name(obj, "/Type") == "/Annot" or (_name(obj, "/Subtype") is not None and "/Rect" in obj)
    )


def _is_file(obj: Any) -> bool:
    """An embedded file, or a file specification that carries one."""
    if isinstance(obj, pikepdf.Stream):
        return _name(obj, "/Type") == "/EmbeddedFile"
    return isinstance(obj, Dictionary) and ("/EF" in obj or "/RF" in obj)


def kept_uri(uri: Any) -> bool:
    """A URI a reader may open from our document: http, https or mailto (a browser or a mail
    program), never file:, javascript:, data: or a program's own scheme. Readers drop white space
    and control characters inside a scheme ("java\\tscript:"), so those are dropped first."""
    try:
        text = bytes(uri).decode("latin-1") if isinstance(uri, pikepdf.String) else None
    except Exception:
        return False
    if text is None:
        return False
    found = _SCHEME.match(_CONTROL.sub("", text))
    return found is not None and found.group(1).lower() in KEPT_URI_SCHEMES


def _page_of(dest: Any) -> Any:
    return dest[0] if isinstance(dest, Array) and len(dest) else None


class ForeignPages:
    """The pages of one source PDF we copy: cleaned in place, before they are copied (the
    source is opened for this render only), so that nothing dropped is copied at all."""

    def __init__(self, pdf: pikepdf.Pdf, numbers: Iterable[int], pdf_a: bool = False, tagged: bool = False):
        """`pdf_a`: make kept annotations what PDF/A-3 wants; `tagged`: what PDF/UA-1 wants."""
        self.pdf = pdf
        self.pdf_a = pdf_a
        self.tagged = tagged
        self.pages = [pdf.pages[number - 1] for number in dict.fromkeys(numbers)]
        self._targets = {page.obj.objgen for page in self.pages}
        self._kept: set[tuple[int, int]] = set()  # kept annotations (indirect ones)
        self._named: Any = None

    def clean(self, structure: bool = False) -> None:
        """Every copied page cleaned, and all its objects reach; the structure tree too when it is
        copied (`structure`): its references to dropped annotations go with them."""
        for page in self.pages:
            self._clean_page(page.obj)
        roots: list[Any] = [page.obj for page in self.pages]
        elements: set[tuple[int, int]] = set()
        if structure and "/StructTreeRoot" in self.pdf.Root:
            roots.append(self.pdf.Root.StructTreeRoot)
            elements = structure_elements(self.pdf, self.pdf.Root.StructTreeRoot)
        scrub(roots, self._kept, elements)

    def _clean_page(self, page: Dictionary) -> None:
        for key in DROPPED_KEYS & set(page.keys()):
            del page[key]
        annotations = page.get("/Annots")
        if annotations is None:
            return
        kept = Array()
        for annotation in annotations if isinstance(annotations, Array) else ():
            if self._kept_annotation(annotation):
                # Indirect, so that scrub knows it as kept wherever else it is named.
                kept.append(annotation if annotation.is_indirect else self.pdf.make_indirect(annotation))
                self._kept.add(kept[-1].objgen)
        if len(kept):
            page.Annots = kept
            if self.tagged:
                page.Tabs = Name.S  # PDF/UA-1 7.18.3: a page with annotations orders them by structure
        else:
            del page["/Annots"]

    def _kept_annotation(self, annotation: Any) -> bool:
        if not isinstance(annotation, Dictionary):
            return False
        subtype = _name(annotation, "/Subtype")
        flags = annotation.get("/F", 0)
        flags = int(flags) if isinstance(flags, int) else 0
        if self.pdf_a and flags & (_INVISIBLE | _HIDDEN | _NO_VIEW):
            return False  # not shown: dropped rather than shown, which PDF/A would want
        if subtype == "/Link":
            if not self._kept_link(annotation):
                return False
        elif subtype in PASSIVE_ANNOTATIONS:
            for key in ("/A", "/AA", "/PA"):
                if key in annotation:
                    del annotation[key]
        else:
            return False
        for key in DROPPED_KEYS & set(annotation.keys()):
            del annotation[key]
        if self.pdf_a:
            annotation.F = (flags | _PRINT) & ~(_INVISIBLE | _HIDDEN | _NO_VIEW | 256)  # 256: ToggleNoView
            appearance = annotation.get("/AP")
            if isinstance(appearance, Dictionary):
                for key in ("/D", "/R"):
                    if key in appearance:
                        del appearance[key]
        return True

    def _kept_link(self, link: Dictionary) -> bool:
        """A link kept with its one allowed target, or False: its destination or action is
        one we do not keep."""
        for key in ("/AA", "/PA"):
            if key in link:
                del link[key]
        if "/Dest" in link:
            dest = self._explicit(link.Dest)
            if dest is None:
                return False
            link.Dest = dest
            if "/A" in link:
                del link["/A"]
            return True
        action = link.get("/A")
        if not is_action(action):
            return False
        if "/Next" in action:
            del action["/Next"]
        kind = _name(action, "/S")
        if kind == "/URI":
            return kept_uri(action.get("/URI"))
        if kind == "/GoTo":
            dest = self._explicit(action.get("/D"))
            if dest is None:
                return False
            action.D = dest
            return True
        return False

    def _explicit(self, dest: Any) -> Array | None:
        """The explicit destination (page, fit, …) a /Dest or GoTo names, when its page is copied."""
        if isinstance(dest, Name | pikepdf.String):
            dest = self._lookup(dest)
        if isinstance(dest, Dictionary):  # a /Dests entry may be a dictionary with /D
            dest = dest.get("/D")
        page = _page_of(dest)
        if isinstance(page, Dictionary) and page.is_indirect and page.objgen in self._targets:
            return dest
        return None

    def _lookup(self, name: Any) -> Any:
        root = self.pdf.Root
        try:
            if isinstance(name, Name):
                dests = root.get("/Dests")
                return dests.get(name) if isinstance(dests, Dictionary) else None
            names = root.get("/Names")
            tree = names.get("/Dests") if isinstance(names, Dictionary) else None
            if tree is None:
                return None
            if self._named is None:
                self._named = pikepdf.NameTree(tree)
            return self._named.get(bytes(name).decode("latin-1"))
        except Exception:  # a damaged names tree names nothing we follow
            return None


def scrub(
    roots: Iterable[Any],
    kept_annotations: Set[tuple[int, int]] = frozenset(),
    elements: Set[tuple[int, int]] = frozenset(),
) -> None:
    """Remove, from everything `roots` reach, what `unwanted` finds and the DROPPED_KEYS; the
    links among `kept_annotations` keep their (already checked) action; the structure
    `elements` (of a tree among the roots) are no actions, except where a reader runs one
    (ACTION_KEYS). A page that is not one of the roots is not entered, and a reference to one is
    removed (a thread's bead, say, would otherwise copy that page and all it holds). Each
    indirect object is visited once."""
    seen: set[tuple[int, int]] = set()
    roots = list(roots)
    pages = {root.objgen for root in roots if isinstance(root, Dictionary) and root.is_indirect}

    def dropped(value: Any, runs_actions: bool = False) -> bool:
        if unwanted(value, kept_annotations, frozenset() if runs_actions else elements):
            return True
        return (
            _name(value, "/Type") in ("/Page", "/Pages")
            and isinstance(value, Dictionary)
            and not (value.is_indirect and value.objgen in pages)
        )

    stack: list[Any] = list(roots)
    while stack:
        obj = stack.pop()
        if obj.is_indirect:
            if obj.objgen in seen:
                continue
            seen.add(obj.objgen)
        if isinstance(obj, Array):
            for index in reversed(range(len(obj))):
                if dropped(obj[index]):
                    del obj[index]
                elif isinstance(obj[index], Dictionary | pikepdf.Stream | Array):
                    stack.append(obj[index])
            continue
        page = obj.is_indirect and obj.objgen in pages
        link = obj.is_indirect and obj.objgen in kept_annotations
        for key in list(obj.keys()):
            if key in DROPPED_KEYS:
                del obj[key]
                continue
            if page and key == "/Parent":
                continue  # the page tree it is copied out of: qpdf puts it in ours
            value = obj[key]
            if key in _PAIRS and isinstance(value, Array) and _are_pairs(value):
                _scrub_pairs(value, dropped, stack)
                continue
            if link and key == "/A":
                stack.append(value)  # the kept link's one action, checked by ForeignPages
            elif dropped(value, key in ACTION_KEYS) or (key in ACTION_KEYS and _holds_action(value)):
                del obj[key]
            elif isinstance(value, Dictionary | pikepdf.Stream | Array):
                stack.append(value)


# Arrays of (key, value) pairs (number and name trees): a dropped value becomes null, its key stays.
_PAIRS = frozenset({"/Nums", "/Names"})


def _are_pairs(pairs: Array) -> bool:
    """Every key of the pairs is a number or a string, as a number or name tree's are: one that is
    anything else (an action, the page itself) makes the array a plain one, scrubbed as such."""
    return all(isinstance(pairs[index], int | pikepdf.String) for index in range(0, len(pairs), 2))


def _holds_action(value: Any) -> bool:
    """An array of actions (an action's /Next may be one) holding one: all of it goes."""
    return isinstance(value, Array) and any(is_action(item) for item in value)


def _scrub_pairs(pairs: Array, dropped: Callable[[Any], bool], stack: list[Any]) -> None:
    for index in range(1, len(pairs), 2):
        if dropped(pairs[index]):
            pairs[index] = None
        elif isinstance(pairs[index], Dictionary | pikepdf.Stream | Array):
            stack.append(pairs[index])


def unwanted(
    obj: Any,
    kept_annotations: Set[tuple[int, int]] = frozenset(),
    elements: Set[tuple[int, int]] = frozenset(),
) -> bool:
    """What is never kept where a page's objects reach it: an action (not one of the structure
    `elements`), an annotation not kept, a structure tree's reference to one (OBJR), an embedded
    file or a file specification with one."""
    if not isinstance(obj, Dictionary | pikepdf.Stream):
        return False
    if isinstance(obj, Dictionary):
        if is_action(obj, elements):
            return True
        if is_annotation(obj):
            return not (obj.is_indirect and obj.objgen in kept_annotations)
        if _name(obj, "/Type") == "/OBJR":
            return unwanted(obj.get("/Obj"), kept_annotations, elements) or obj.get("/Obj") is None
    return _is_file(obj)


def annotation_problems(page: pikepdf.Page) -> tuple[list[str], list[str]]:
    """What of a cleaned page's annotations PDF/A-3 forbids, and what PDF/UA-1 forbids, as
    sentences: what `ForeignPages` could not make conformant."""
    pdf_a: list[str] = []
    ua: list[str] = []
    for annotation in _annotations(page):
        subtype = _name(annotation, "/Subtype") or "an"
        appearance = annotation.get("/AP")
        if subtype not in ("/Link", "/Popup") and not (isinstance(appearance, Dictionary) and "/N" in appearance):
            pdf_a.append(f"a {subtype[1:]} annotation without an appearance stream (6.3.3)")
        if subtype != "/Popup" and "/StructParent" not in annotation:
            ua.append(f"a {subtype[1:]} annotation outside the structure tree (7.18.1)")
    return pdf_a, ua


def _annotations(page: pikepdf.Page) -> Iterator[Dictionary]:
    annotations = page.obj.get("/Annots")
    for annotation in annotations if isinstance(annotations, Array) else ():
        if isinstance(annotation, Dictionary):
            yield annotation


__all__ = [
    "ACTION_KEYS",
    "ACTION_TYPES",
    "DROPPED_KEYS",
    "KEPT_URI_SCHEMES",
    "PASSIVE_ANNOTATIONS",
    "ForeignPages",
    "annotation_problems",
    "is_action",
    "is_annotation",
    "kept_uri",
    "scrub",
    "structure_elements",
    "unwanted",
]
