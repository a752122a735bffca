"""The work cairosvg would do to draw an SVG, counted from its parsed tree before drawing.

engine.media.svg calls `check_svg_work` on every SVG it rasterises, so a few kilobytes of
nested `<use>` references, markers or patterns that expand to hours of drawing are
refused in milliseconds. What a count of the tree cannot see (geometry: strokes that
cross each other thousands of times) is bounded by the render process that draws
uploads (api.renderers): its CPU time and deadline.
"""

from __future__ import annotations

import io
import re

from .image_bytes import ImageError, decode_data_uri

#
# cairosvg (2.9.1) draws an SVG by walking it in Python: every element costs a node and a
# draw; a <use> searches the document for its target in document order, rebuilds the
# target's subtree and draws it again (so nested <use> multiply); markers are drawn once
# per vertex of the shape that carries them; patterns, clip paths and masks are drawn
# again for every element that refers to them; path and points lists are parsed by
# re-slicing the rest of the list at every coordinate pair (quadratic in a long run of
# implicit commands), and again for the bounding box of a gradient or pattern fill. The
# work is counted in units of about 8 µs of CPU, measured on the development machine
# (2 cores, Python 3.12) with generated SVGs:
#   one path segment, plus 1/8 per number (80,000 lines: 0.73 s; a curve
#   costs about 1.5 lines: 50,000 curves 1.16 s)  ...........................  1 unit
#   building an element's node (20,000 rects, parse only: 0.29 s)  ...........  2 units
#   drawing an element instance (20,000 rects: 1.6 s; 22,000 <use>/g: 1.7 s)  8 units
#   one element passed in a <use> target search (2,000 × 2,000: 34 s)  ......  1 unit
#   one text character (10,800 characters: 0.25 s)  .........................  3 units
#   200 KB re-sliced while parsing a coordinate run (150,000 pairs: +3.1 s)  .  1 unit
#   8 characters × path segments of text on a path (2,000 × 2,000: 4.1 s)  ...  1 unit
#   4 path tokens measured for a gradient's bounding box (40,000 segments)  ..  1 unit
# At most SVG_MAX_WORK units (about 1.2 s) are drawn. The bomb (nested <use> ten
# wide over a long path, 17 KB) counts in the millions; a 50,000-segment illustration,
# a logo of a few hundred <use> and every bundled icon count far below the limit.
# Geometry is not counted (a path of 40,000 random segments crossing the whole canvas
# took 46 s against 0.7 s for as many short ones; fine stroke dashes; fills covering the
# whole 4096 px canvas): that is for the rasterising process's CPU limit to bound.

SVG_MAX_WORK = 150_000  # units of about 8 µs: about 1.2 s of cairosvg on the machine measured
SVG_MAX_DEPTH = 100  # nesting, counting each <use>, marker and pattern hop (cairosvg recurses in Python)

_PARSE, _DRAW, _SCAN, _CHAR = 2, 8, 1, 3
_COPY_BYTES = 200_000  # bytes re-sliced per unit
_TEXT_PATH = 8  # characters × path segments per unit
_BBOX_TOKENS = 4  # path tokens per unit when a bounding box is measured (40,000 segments: +0.2 s besides copying)
_PIXELS = 250  # decoded image pixels per unit
# The counter's own work: distinct (element, inherited references) evaluations. Each adds at
# least _DRAW units to the total, so a file that needs more is far over the limit anyway.
_MAX_VISITS = 2 * SVG_MAX_WORK // _DRAW

_SVG_NS = "{http://www.w3.org/2000/svg}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_PATH_LETTERS = "achlmqstvzACHLMQSTVZ"
_ARITY = (("MmLlTt", 2), ("HhVv", 1), ("Cc", 6), ("SsQq", 4), ("Aa", 7), ("Zz", 0))  # numbers per segment
# Digits and exponents as "0", points kept, every other byte a separator.
_NUMBER_SHAPE = bytes(48 if chr(i) in "0123456789eE" else 46 if i == 46 else 32 for i in range(256))
_SECOND_POINT = re.compile(rb"\.0*(?=\.)")
# Each command letter as the first letter of its group in _ARITY, every other byte a space.
_COMMAND_SHAPE = bytes(
    next((ord(group[0]) for group, _ in _ARITY if chr(i) in group), 32) if i < 128 else 32 for i in range(256)
)
# A run of coordinates of 4 KB or more, matched only from its start (no backtracking through it).
_LONG_RUN = re.compile(r"(?<![^achlmqstvzACHLMQSTVZ])[^achlmqstvzACHLMQSTVZ]{4096,}")
_URL = re.compile(r"url\(\s*['\"]?#([^'\")\s]+)")
_RULE = re.compile(r"([^{}]*)\{([^{}]*)\}")
_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_CLASS = re.compile(r"^\.[\w-]+$")
_STYLE_REF = re.compile(
    r"(marker(?:-start|-mid|-end)?|fill|stroke|clip-path|mask|filter)\s*:\s*url\(\s*['\"]?#([^'\")\s]+)"
)
# Properties whose url(#…) makes cairosvg draw something else; the first six are inherited.
_INHERITED = ("marker", "marker-start", "marker-mid", "marker-end", "fill", "stroke")
_OWN = ("clip-path", "mask", "filter")
_REFERENCING = frozenset(_INHERITED + _OWN + ("style",))
_NOTHING: dict[str, str] = {}
_INVISIBLE = frozenset(
    ("clipPath", "filter", "linearGradient", "marker", "mask", "pattern", "radialGradient", "symbol")
)
_PAINTED = frozenset(
    ("a", "circle", "clipPath", "ellipse", "filter", "image", "line", "linearGradient", "marker", "mask", "path")
    + ("pattern", "polyline", "polygon", "radialGradient", "rect", "svg", "text", "textPath", "tspan", "use")
)
_TEXT = frozenset(("text", "tspan", "textPath", "a"))
_CAUSES = {
    "use": "nested <use> references",
    "marker": "markers drawn on every vertex",
    "pattern": "patterns, clip paths or masks drawn for every element that uses them",
    "bbox": "gradient or pattern fills on long paths",
    "path": "long path data",
    "text": "text",
    "textpath": "text along long paths",
    "image": "embedded images drawn many times",
    "element": "too many elements",
}


def check_svg_work(root) -> int:
    """The units of work cairosvg would spend drawing `root`; ImageError beyond the limits."""
    counter = _WorkCounter(root)
    total = counter.total()
    if total > SVG_MAX_WORK:
        cause = _CAUSES[max(counter.causes, key=counter.causes.__getitem__)]
        raise ImageError(
            f"this SVG expands to about {total:,} drawing operations ({cause}); at most {SVG_MAX_WORK:,} are "
            "accepted: simplify it or convert it to PNG"
        )
    return total


def _too_deep() -> ImageError:
    return ImageError(
        f"this SVG nests elements more than {SVG_MAX_DEPTH} levels deep (counting <use> references, markers and "
        "patterns): flatten its groups or convert it to PNG"
    )


def _cycle(ref: str) -> ImageError:
    return ImageError(
        f'this SVG refers to itself in a loop ("#{ref[:40]}" is used inside itself), so it cannot be drawn: '
        "remove the loop or convert it to PNG"
    )


def _local(tag) -> str | None:
    """cairosvg's tag name: the local name in the SVG namespace (or none), else not an SVG tag."""
    if not isinstance(tag, str):
        return None  # comments and processing instructions
    if tag.startswith(_SVG_NS):
        return tag[len(_SVG_NS) :]
    return None if tag.startswith("{") else tag


def _fragment(value: str | None) -> str | None:
    """'abc' for "url(#abc)"; '' for any other value (it overrides an inherited url); None when absent."""
    if value is None:
        return None
    match = _URL.search(value)
    return match.group(1) if match else ""


class _WorkCounter:
    """Walks the parsed tree the way cairosvg draws it, memoised by (element, inherited references)."""

    def __init__(self, root):
        self.root = root
        self.order: dict = {}  # element -> position in document order (what a <use> search passes)
        self.parent: dict = {}
        self.first_id: dict = {}  # <use> finds the first element with the id ...
        self.last_id: dict = {}  # ... markers, patterns, clip paths and masks the last one registered
        self.size: dict = {}  # element -> elements in its subtree (rebuilt by every <use> of it)
        self.memo: dict = {}
        self.active: set = set()  # elements being counted: meeting one again is a loop
        self.causes: dict = dict.fromkeys(_CAUSES, 0)
        self.visits = 0
        self.images: dict = {}
        self.paths: dict = {}
        self.defined_in: dict = {}
        self.sheet: dict[str, tuple[str, ...]] = {}  # property -> references that may apply anywhere
        self.by_class: dict[str, dict[str, tuple[int, str]]] = {}  # class -> property -> (rule, url)
        self.referencing = _REFERENCING
        self._index(root)
        self._stylesheet_refs()

    def _index(self, root) -> None:
        depth = {root: 0}
        for position, element in enumerate(root.iter()):
            self.order[element] = position
            ref = element.get("id")
            if ref is not None:
                self.first_id.setdefault(ref, element)
                self.last_id[ref] = element
            below = depth[element] + 1
            for child in element:
                self.parent[child] = element
                depth[child] = below
            if below > SVG_MAX_DEPTH and len(element):
                raise _too_deep()
        self.count = len(self.order)

    def _subtree_size(self, element) -> int:
        if element not in self.size:
            self.size[element] = sum(1 for _ in element.iter())
        return self.size[element]

    def _stylesheet_refs(self) -> None:
        """url(#…) references in <style> sheets: by class where the rule's selectors are only
        classes (".cls-1, .cls-2", as illustration software writes), else assumed to apply to
        every element."""
        for element in self.order:
            if _local(element.tag) != "style" or not element.text:
                continue
            for rule, (selectors, body) in enumerate(_RULE.findall(_COMMENT.sub("", element.text))):
                refs = _STYLE_REF.findall(body)
                if not refs:
                    continue
                classes = [selector.strip() for selector in selectors.split(",")]
                if all(_CLASS.match(selector) for selector in classes):
                    for selector in classes:
                        for prop, ref in refs:
                            self.by_class.setdefault(selector[1:], {})[prop] = (rule, f"url(#{ref})")
                else:
                    for prop, ref in refs:
                        self.sheet[prop] = (*self.sheet.get(prop, ()), ref)
        if self.by_class:
            self.referencing = _REFERENCING | {"class"}

    def total(self) -> int:
        total = _PARSE * self.count + self._element(self.root, (None,) * len(_INHERITED), 0, False)
        self.causes["element"] += _PARSE * self.count
        return total

    # --- one element -------------------------------------------------------------------

    def _own(self, element) -> dict[str, str]:
        """The referencing properties set on the element: attributes, overridden by its style attribute."""
        attrib = element.attrib
        names = attrib.keys() & self.referencing if attrib else None
        if not names:
            return _NOTHING
        values = {name: attrib[name] for name in names}
        classes = values.pop("class", None)
        if classes:  # the stylesheet overrides attributes, in the order of its rules
            ruled: dict[str, tuple[int, str]] = {}
            for name in classes.split():
                for prop, (rule, value) in self.by_class.get(name, {}).items():
                    if prop not in ruled or ruled[prop][0] < rule:
                        ruled[prop] = (rule, value)
            values.update((prop, value) for prop, (_, value) in ruled.items())
        style = values.pop("style", None)
        if style:
            for declaration in style.split(";"):
                name, _, value = declaration.partition(":")
                name = name.strip().lower()
                if name in _REFERENCING:
                    values[name] = value.strip()
        return values

    def _element(self, element, inherited: tuple, depth: int, as_use_target: bool) -> int:
        if depth > SVG_MAX_DEPTH:
            raise _too_deep()
        key = (element, inherited, as_use_target)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.visits += 1
        if self.visits > _MAX_VISITS:  # many distinct contexts: stop counting, the total is over
            raise ImageError(
                f"this SVG expands to more than {SVG_MAX_WORK:,} drawing operations; at most {SVG_MAX_WORK:,} are "
                "accepted: simplify it or convert it to PNG"
            )
        tag = _local(element.tag)
        if tag == "defs":  # cairosvg draws nothing of <defs> in place: its content counts where it is used
            self.memo[key] = 1
            return 1
        own = self._own(element)
        context = _inherit(own, inherited)
        self.active.add(element)
        try:
            units = _DRAW + self._shape(element, tag, context, depth)
            if own is not _NOTHING or self.sheet:
                for name in _OWN:
                    if name in own or name in self.sheet:
                        units += self._drawn_reference(_fragment(own.get(name)), name, depth)
            if tag in _PAINTED and (context[4] or context[5] or self.sheet):
                units += self._paint(element, tag, context, depth)
            if tag == "use":
                units += self._use(element, context, depth)
            elif tag not in _INVISIBLE or (as_use_target and tag == "symbol"):
                for child in element:
                    if isinstance(child.tag, str):
                        units += self._element(child, context, depth + 1, False)
        finally:
            self.active.discard(element)
        self.memo[key] = units
        return units

    def _shape(self, element, tag: str | None, context: tuple, depth: int) -> int:
        """Path data, points and text of the element itself, and its markers."""
        vertices = 0
        units = 0
        if tag == "path":
            segments, copied = self._path(element)
            vertices = segments
            units = segments + copied // _COPY_BYTES
            self.causes["path"] += units
        elif tag in ("polyline", "polygon"):
            points = element.get("points") or ""
            pairs = _numbers(points) // 2 if points else 0
            vertices = pairs
            units = pairs + pairs * len(points) // 2 // _COPY_BYTES
            self.causes["path"] += units
        elif tag == "line":
            vertices = 2
        elif tag in _TEXT:
            units = self._text(element, tag, depth)
        elif tag == "image":
            units = self._image(element)
        if vertices:
            units += self._markers(context, vertices, depth)
        return units

    def _path(self, element) -> tuple[int, int]:
        """_path_work of the element's path data, once per element however often it is drawn."""
        if element not in self.paths:
            self.paths[element] = _path_work(element.get("d") or "")
        return self.paths[element]

    def _text(self, element, tag: str, depth: int) -> int:
        characters = len(element.text or "") + sum(len(child.tail or "") for child in element)
        units = _CHAR * characters
        self.causes["text"] += units
        href = element.get(_XLINK_HREF) or element.get("href")
        if not href and tag == "tspan":
            parent = self.parent.get(element)
            href = parent.get(_XLINK_HREF) or parent.get("href") if parent is not None else None
        target = self._target(href, self.last_id)
        if target is not None and "path" in (_local(target.tag) or "").lower():
            if target in self.active:
                raise _cycle(target.get("id", ""))
            # text() runs twice (as a path, then as text): the path is drawn, then walked thrice per character
            drawn = self._element(target, self._inherited_at(target), depth + 1, False)
            segments = self._path(target)[0] if _local(target.tag) == "path" else 1
            along = 2 * (drawn + characters * segments // _TEXT_PATH)
            self.causes["textpath"] += along
            units += along
        return units

    def _image(self, element) -> int:
        href = element.get(_XLINK_HREF) or element.get("href") or ""
        if href not in self.images:
            pixels = 0
            if href.startswith("data:"):
                try:
                    from PIL import Image

                    with Image.open(io.BytesIO(decode_data_uri(href))) as probe:
                        pixels = probe.size[0] * probe.size[1]
                except Exception:
                    pixels = 0  # the url_fetcher refuses it with its own message
            self.images[href] = pixels // _PIXELS
        self.causes["image"] += self.images[href]
        return self.images[href]

    # --- what the element makes cairosvg draw elsewhere -------------------------------------

    def _target(self, href: str | None, table: dict):
        if not href:
            return None
        href = href.strip()
        if href.startswith("url("):
            fragment = _fragment(href)
        elif href.startswith("#"):
            fragment = href[1:]
        else:
            return None
        return table.get(fragment) if fragment else None

    def _use(self, element, context: tuple, depth: int) -> int:
        href = (element.get(_XLINK_HREF) or element.get("href") or "").strip()
        target = self.first_id.get(href[1:]) if href.startswith("#") else None
        if target is None:
            return _SCAN * self.count  # searched the whole document for nothing
        if target in self.active:
            raise _cycle(href[1:])
        expanded = (
            _SCAN * (self.order[target] + 1)
            + _PARSE * self._subtree_size(target)
            + self._element(target, context, depth + 1, True)
        )
        self.causes["use"] += expanded
        return expanded

    def _inherited_at(self, element) -> tuple:
        """The references inherited where a marker, pattern, clip path or mask is defined."""
        if element in self.defined_in:
            return self.defined_in[element]
        chain = []
        parent = self.parent.get(element)
        while parent is not None:
            chain.append(parent)
            parent = self.parent.get(parent)
        inherited: tuple = (None,) * len(_INHERITED)
        for ancestor in reversed(chain):
            inherited = _inherit(self._own(ancestor), inherited)
        self.defined_in[element] = inherited
        return inherited

    def _content(self, target, depth: int) -> int:
        """A marker's, pattern's, clip path's or mask's children, drawn as a group where defined."""
        if target in self.active:
            raise _cycle(target.get("id", ""))
        self.active.add(target)
        try:
            inherited = _inherit(self._own(target), self._inherited_at(target))
            children = [child for child in target if isinstance(child.tag, str)]
            if not children and _local(target.tag) == "pattern":
                children = self._pattern_template(target)
            return _DRAW + sum(self._element(child, inherited, depth + 1, False) for child in children)
        finally:
            self.active.discard(target)

    def _pattern_template(self, pattern) -> list:
        """A pattern without children draws those of the pattern its href names (cairosvg follows the chain)."""
        seen = {pattern}
        current = pattern
        while True:
            current = self._target(current.get(_XLINK_HREF) or current.get("href"), self.last_id)
            if current is None or current in seen or _local(current.tag) != "pattern":
                return []
            seen.add(current)
            children = [child for child in current if isinstance(child.tag, str)]
            if children:
                return children

    def _drawn_reference(self, ref: str | None, prop: str, depth: int) -> int:
        """clip-path, mask and filter: drawn again for this element (not inherited)."""
        candidates = ((ref,) if ref else ()) + self.sheet.get(prop, ())
        best = 0
        for candidate in candidates:
            target = self.last_id.get(candidate)
            if target is None:
                continue
            name = _local(target.tag) or ""
            if prop == "filter":
                cost = 1 + sum(1 for _ in target)  # offsets, blends and floods: one operation each
            elif (prop == "mask" and name == "mask") or (prop == "clip-path" and "path" in name.lower()):
                cost = self._content(target, depth)
            else:
                continue
            best = max(best, cost)
        self.causes["pattern"] += best
        return best

    def _paint(self, element, tag: str, context: tuple, depth: int) -> int:
        """fill and stroke: a pattern is drawn each time; a bounding-box gradient or pattern
        measures the element (once: cairosvg keeps a non-empty bounding box on the node)."""
        units = 0
        measured = False
        for index, prop in ((4, "fill"), (5, "stroke")):
            candidates = ((context[index],) if context[index] else ()) + self.sheet.get(prop, ())
            dearest = 0
            for candidate in candidates:
                server = self.last_id.get(candidate)
                name = _local(server.tag) if server is not None else None
                if name == "pattern":
                    content = self._content(server, depth)
                    self.causes["pattern"] += content
                    dearest = max(dearest, content)
                    measured = measured or server.get("patternUnits") != "userSpaceOnUse"
                elif name in ("linearGradient", "radialGradient"):
                    measured = measured or server.get("gradientUnits") != "userSpaceOnUse"
            units += dearest
        if measured:
            units += self._bounding_box(element, tag, context, depth)
        return units

    def _bounding_box(self, element, tag: str, context: tuple, depth: int) -> int:
        """cairosvg's bounding box re-parses path data (quadratic) and re-expands a <use>."""
        if tag == "path":
            data = element.get("d") or ""
            tokens = _numbers(data) + sum(data.count(letter) for letter in _PATH_LETTERS)
            units = tokens // _BBOX_TOKENS + tokens * len(data) // 2 // _COPY_BYTES
        elif tag in ("polyline", "polygon"):
            points = element.get("points") or ""
            pairs = _numbers(points) // 2
            units = pairs // _BBOX_TOKENS + pairs * len(points) // 2 // _COPY_BYTES
        elif tag == "use":
            units = self._use(element, context, depth)
        else:
            return 1
        self.causes["bbox"] += units
        return units

    def _markers(self, context: tuple, vertices: int, depth: int) -> int:
        """Each vertex draws its marker's children again (start, mid or end: the dearest is counted)."""
        common = context[0]
        dearest = 0
        for index in (1, 2, 3):
            ref = context[index] if context[index] is not None else common
            candidates = ((ref,) if ref else ()) + self.sheet.get("marker", ()) + self.sheet.get(_INHERITED[index], ())
            for candidate in candidates:
                target = self.last_id.get(candidate)
                if target is not None and _local(target.tag) == "marker":
                    dearest = max(dearest, self._content(target, depth))
        units = vertices * dearest
        self.causes["marker"] += units
        return units


def _inherit(own: dict[str, str], inherited: tuple) -> tuple:
    """The inherited references below an element: its own where set, else its parent's."""
    if own is _NOTHING or (not any(inherited) and not any("url(" in value for value in own.values())):
        return inherited  # nothing inherited to override, nothing new to pass on
    return tuple(
        _fragment(own[name]) if name in own else before for name, before in zip(_INHERITED, inherited, strict=True)
    )


def _numbers(data: str | bytes) -> int:
    """How many numbers cairosvg reads from a coordinate list (1 MB counted in about 10 ms).

    Every character that cannot be part of a number separates numbers, and, as in
    cairosvg, a second decimal point starts a new one (".5.5" is two numbers).
    """
    raw = data.encode("ascii", "replace") if isinstance(data, str) else data
    shape = raw.translate(_NUMBER_SHAPE)
    starts = shape.count(b" 0") + shape.count(b" .") + (shape[:1] in (b"0", b"."))
    return starts + _SECOND_POINT.subn(b"", shape)[1]


def _path_work(data: str) -> tuple[int, int]:
    """(units, bytes cairosvg re-slices) for path data; the units also count its vertices.

    A command letter is a segment that takes its own numbers (2 for L, 6 for C …); numbers
    left over repeat the command implicitly and are counted as pairs. Each number adds
    an eighth: measured, a curve costs about 1.5 lines. (Implicit runs of curves count up
    to twice what they cost, never less.) cairosvg slices the rest of a command's run at
    every pair, so a run of k pairs over L characters copies about k·L/2 bytes; runs under
    4 KB copy too little to matter and are not looked at.
    """
    if not data:
        return 0, 0
    raw = data.encode("ascii", "replace")
    commands = raw.translate(_COMMAND_SHAPE)
    letters = 0
    explicit = 0
    for group, arity in _ARITY:
        found = commands.count(group[0].encode())
        letters += found
        explicit += found * arity
    numbers = _numbers(raw)
    units = letters + max(0, numbers - explicit) // 2 + numbers // 8
    copied = 0
    for run in _LONG_RUN.findall(data):
        copied += _numbers(run) // 2 * len(run) // 2
    return units, copied
