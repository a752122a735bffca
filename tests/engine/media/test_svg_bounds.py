"""SVG amplification (issue 12, item 2): the work cairosvg would do is counted before drawing.

A few kilobytes of nested <use>, markers or patterns can expand to hours of drawing; they
are refused from the parsed tree in milliseconds, while real icons, illustrations and
logos are still accepted and drawn.
"""

from __future__ import annotations

import random
import time

import pytest

from engine.media.icons import icon_ids, icon_svg
from engine.media.images import ImageError
from engine.media.svg import _parse_svg, rasterize_svg
from engine.media.svg_work import SVG_MAX_DEPTH, SVG_MAX_WORK, check_svg_work
from tests.uploads import upload

NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
GENEROUS = 2.0  # seconds: a refusal comes from counting, not drawing (timing belongs in benchmarks)


def svg(body: str, size: int = 400) -> bytes:
    return f'<svg {NS} width="{size}" height="{size}" viewBox="0 0 {size} {size}">{body}</svg>'.encode()


def walk(segments: int, seed: int = 1, step: float = 3.0, start: tuple[float, float] = (200, 200)) -> str:
    """Path data of short line segments wandering about, as an outline in an illustration does."""
    rng = random.Random(seed)
    x, y = start
    data = [f"M{x:.1f} {y:.1f}"]
    for _ in range(segments):
        x = min(399.0, max(1.0, x + rng.uniform(-step, step)))
        y = min(399.0, max(1.0, y + rng.uniform(-step, step)))
        data.append(f"L{x:.1f} {y:.1f}")
    return "".join(data)


def use_bomb(levels: int = 5, fan: int = 10, segments: int = 1_300) -> bytes:
    """Like the issue's: a long path, then levels of groups that each <use> the level below ten times."""
    body = f'<defs><path id="l0" d="{walk(segments)}" fill="none" stroke="#000"/>'
    for level in range(1, levels + 1):
        uses = "".join(f'<use xlink:href="#l{level - 1}" x="{i}"/>' for i in range(fan))
        body += f'<g id="l{level}">{uses}</g>'
    return svg(body + f'</defs><use xlink:href="#l{levels}"/>')


def marker_bomb() -> bytes:
    """Markers on every vertex, whose own shape carries markers on every vertex."""
    dots = "".join(f'<circle cx="{i % 4}" cy="{i // 4}" r="0.4"/>' for i in range(16))
    return svg(
        '<defs><marker id="inner" markerWidth="4" markerHeight="4" viewBox="0 0 4 4">'
        f"{dots}</marker>"
        '<marker id="outer" markerWidth="8" markerHeight="8" viewBox="0 0 8 8">'
        f'<path d="{walk(400, seed=2, step=0.05, start=(4, 4))}" marker-mid="url(#inner)" fill="none"/></marker>'
        "</defs>"
        f'<path d="{walk(400)}" fill="none" stroke="#000" marker-mid="url(#outer)"/>'
    )


def refused(data: bytes) -> str:
    started = time.process_time()
    with pytest.raises(ImageError) as caught:
        rasterize_svg(data)
    assert time.process_time() - started < GENEROUS
    return str(caught.value)


# --- refused -----------------------------------------------------------------------------


def test_nested_use_bomb_is_refused_before_drawing() -> None:
    data = use_bomb()
    assert 12_000 < len(data) < 20_000  # the was 17 KB
    message = refused(data)
    assert message.startswith("this SVG expands to about ")
    assert "(nested <use> references)" in message
    assert f"at most {SVG_MAX_WORK:,} are accepted: simplify it or convert it to PNG" in message
    expanded = int(message.removeprefix("this SVG expands to about ").split(" ")[0].replace(",", ""))
    assert expanded > 100_000 * 1_300  # 10^5 copies of a 1,300-segment path


def test_marker_bomb_is_refused_before_drawing() -> None:
    message = refused(marker_bomb())
    assert message.startswith("this SVG expands to about ") and "(markers drawn on every vertex)" in message


def test_use_searching_a_long_document_many_times_is_refused() -> None:
    # Each <use> searches the document in order for its target: 3,000 uses of the last element
    # pass 9 million elements, which took cairosvg minutes, with no nesting at all.
    filler = "".join(f'<rect x="{i % 400}" y="1" width="1" height="1"/>' for i in range(3_000))
    uses = "".join(f'<use xlink:href="#dot" x="{i % 400}"/>' for i in range(3_000))
    message = refused(svg(filler + uses + '<defs><rect id="dot" width="2" height="2"/></defs>'))
    assert "(nested <use> references)" in message


def test_pattern_drawn_for_every_element_is_counted() -> None:
    tiles = "".join(f'<rect x="{i % 20}" y="{i // 20}" width="1" height="1"/>' for i in range(400))
    cells = "".join(f'<rect x="{i % 400}" y="{i // 400}" width="1" height="1"/>' for i in range(2_000))
    data = svg(
        f'<defs><pattern id="p" width="20" height="20" patternUnits="userSpaceOnUse">{tiles}</pattern></defs>'
        f'<g fill="url(#p)">{cells}</g>'  # fill is inherited: every rect draws the pattern's 400 rects
    )
    assert "(patterns, clip paths or masks drawn for every element that uses them)" in refused(data)


@pytest.mark.parametrize(
    "body",
    [
        '<g id="a"><rect width="5" height="5"/><use xlink:href="#a" x="5"/></g>',
        '<defs><g id="a"><use xlink:href="#b"/></g><g id="b"><use xlink:href="#a"/></g></defs><use xlink:href="#a"/>',
        '<defs><marker id="m"><path d="M0 0L1 1L2 0" marker-mid="url(#m)"/></marker></defs>'
        '<path d="M0 0L50 50L100 0" stroke="#000" marker-mid="url(#m)"/>',
        '<defs><pattern id="p" width="4" height="4" patternUnits="userSpaceOnUse">'
        '<rect width="2" height="2" fill="url(#p)"/></pattern></defs><rect width="50" height="50" fill="url(#p)"/>',
    ],
    ids=["use-of-own-ancestor", "two-uses", "marker-in-itself", "pattern-in-itself"],
)
def test_reference_cycle_is_refused(body: str) -> None:
    message = refused(svg(body))
    assert message.startswith("this SVG refers to itself in a loop (")
    assert message.endswith("remove the loop or convert it to PNG")


def test_nesting_deeper_than_the_limit_is_refused() -> None:
    depth = SVG_MAX_DEPTH + 20
    message = refused(svg("<g>" * depth + '<rect width="9" height="9"/>' + "</g>" * depth))
    assert message.startswith(f"this SVG nests elements more than {SVG_MAX_DEPTH} levels deep")


def test_nesting_through_use_counts_toward_depth() -> None:
    # 60 groups, each <use>d by the next: shallow in the file, 120 levels when drawn.
    body = '<defs><g id="g0"><rect width="9" height="9"/></g>'
    body += "".join(f'<g id="g{n}"><use xlink:href="#g{n - 1}"/></g>' for n in range(1, 60))
    message = refused(svg(body + '</defs><use xlink:href="#g59"/>'))
    assert "levels deep" in message


# --- accepted ----------------------------------------------------------------------------


def illustration(paths: int = 500, segments: int = 100) -> bytes:
    """A detailed illustration: 50,000 segments of curves in 500 paths, gradients set by class."""
    rng = random.Random(7)
    shapes = []
    for n in range(paths):
        x, y = rng.uniform(20, 380), rng.uniform(20, 380)
        curves = " ".join(
            f"{rng.uniform(-2, 2):.2f},{rng.uniform(-2, 2):.2f} {rng.uniform(-2, 2):.2f},{rng.uniform(-2, 2):.2f} "
            f"{rng.uniform(-2, 2):.2f},{rng.uniform(-2, 2):.2f}"
            for _ in range(segments // 3)
        )
        lines = " ".join(f"{rng.uniform(-2, 2):.2f},{rng.uniform(-2, 2):.2f}" for _ in range(segments - segments // 3))
        shapes.append(f'<path class="c{n % 3}" d="m {x:.2f},{y:.2f} c {curves} l {lines} z"/>')
    style = (
        "<style>.c0{fill:url(#sky)}.c1{fill:#3a6;stroke:#123;stroke-width:.5}.c2{fill:none;stroke:url(#sky)}</style>"
    )
    gradient = '<linearGradient id="sky"><stop offset="0" stop-color="#38c"/><stop offset="1" stop-color="#fc6"/>'
    return svg(f"<defs>{style}{gradient}</linearGradient></defs>" + "".join(shapes))


def logo_sheet(uses: int = 300) -> bytes:
    """A logo symbol placed a few hundred times (a pattern sheet, a map's markers)."""
    symbol = (
        '<symbol id="logo" viewBox="0 0 20 20"><circle cx="10" cy="10" r="9" fill="#c33"/>'
        f'<path d="{walk(120, seed=3, step=1, start=(10, 10))}" fill="none" stroke="#fff"/>'
        '<rect x="4" y="4" width="12" height="3" fill="#fff"/><text x="3" y="17" font-size="4">ACME</text></symbol>'
    )
    placed = "".join(
        f'<use xlink:href="#logo" x="{20 * (i % 20)}" y="{20 * (i // 20)}" width="18" height="18"/>'
        for i in range(uses)
    )
    return svg(f"<defs>{symbol}</defs>{placed}")


def test_every_bundled_icon_is_well_within_the_limit() -> None:
    counts = [check_svg_work(_parse_svg(icon_svg(icon_id).encode())) for icon_id in icon_ids()]
    assert len(counts) > 5_000 and max(counts) < SVG_MAX_WORK // 50


@pytest.mark.parametrize("make", [illustration, logo_sheet], ids=["illustration-50k-segments", "logo-300-uses"])
def test_realistic_svgs_are_counted_below_the_limit_and_drawn(make) -> None:
    data = make()
    assert check_svg_work(_parse_svg(data)) < SVG_MAX_WORK
    png = rasterize_svg(data)
    assert png.startswith(b"\x89PNG")


def test_counting_a_one_megabyte_svg_is_quick() -> None:
    paths = "".join(f'<path d="{walk(40, seed=n)}" fill="#{n % 4096:03x}"/>' for n in range(2_200))
    data = svg(paths)
    assert 900_000 < len(data) < 1_200_000
    root = _parse_svg(data)
    started = time.process_time()
    check_svg_work(root)
    assert time.process_time() - started < 0.5  # about 30 ms measured; generous for a busy machine


# --- over REST ---------------------------------------------------------------------------


def test_use_bomb_upload_is_refused_over_rest_and_a_real_svg_still_uploads(alpha) -> None:
    started = time.monotonic()
    message = alpha.error(upload(alpha, use_bomb(), "bomb.svg", "image/svg+xml"), 400, "VALIDATION_ERROR")
    assert time.monotonic() - started < 10 * GENEROUS  # refused, not drawn for minutes
    assert "(nested <use> references)" in message and "convert it to PNG" in message
    record = alpha.data(upload(alpha, logo_sheet(), "logos.svg", "image/svg+xml"), 201)
    assert record["mimeType"] == "image/svg+xml" and record["dimensions"]["width"] == 800
