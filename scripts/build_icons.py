#!/usr/bin/env python
"""Build engine/media/icons/tabler-outline.json from an extracted @tabler/icons npm package.

Maintainers only; never run at install or test time. Usage:

    mkdir -p /tmp/icons-work && cd /tmp/icons-work && npm pack @tabler/icons && tar xzf tabler-icons-*.tgz
    .venv/bin/python scripts/build_icons.py /tmp/icons-work/package [--dump-dir /tmp/icon-diffs]

For every outline SVG the script renders the icon twice at SIZE x SIZE pixels:
  * the runtime path: engine.media.icons._svg_to_drawing (svglib -> reportlab Drawing) drawn into a
    one-page PDF with renderPDF and rasterised with pypdfium2;
  * the reference: cairosvg.
Both are composited on white and converted to grayscale "ink" (0 = white, 1 = black). An icon is
kept only if svglib parses it and the two renderings agree (see THRESHOLD_LOCAL below). Writes
tabler-outline.json, LICENSE.txt and README.md (which lists the left-out icons and why).
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from PIL import Image

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

OUT_DIR = REPO / "engine" / "icons"
SIZE = 128  # px; at 64 px the two rasterisers (pdfium, cairo) disagree on sub-pixel gaps
BLOCK = 8  # px; the local metric averages |diff| over BLOCK x BLOCK cells (1.5 viewBox units)
# "local" = the largest cell mean of |svglib - cairosvg| ink. A global mean hides a missing or
# extra small element in a big icon (a missing 2-unit dot moves it by ~0.005, inside the noise),
# a cell mean doesn't (>= 0.34 wherever the dot falls on the grid). Over tabler 3.51.0 the
# anti-aliasing noise of all agreeing icons tops out at 0.05; the one real mismatch scores 0.50.
THRESHOLD_LOCAL = 0.20
INK = 0.5  # a pixel counts as "inked" when its ink value exceeds this (for the reported IoU)


def minify(svg: str) -> str:
    """Whitespace-only minification: drop comments, collapse runs of whitespace, no space
    between tags or before '>' / '/>'. Attributes and their values are kept as they are."""
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.DOTALL)
    svg = re.sub(r"\s+", " ", svg).strip()
    svg = re.sub(r">\s+<", "><", svg)
    return re.sub(r"\s+(/?>)", r"\1", svg)


def _ink_from_rgba(img: Image.Image) -> np.ndarray:
    from PIL import Image

    img = img.convert("RGBA")
    white = Image.new("RGBA", img.size, (255, 255, 255, 255))
    gray = Image.alpha_composite(white, img).convert("L")
    return 1.0 - np.asarray(gray, dtype=np.float64) / 255.0


def render_svglib(svg: str) -> np.ndarray:
    import pypdfium2 as pdfium
    from reportlab.graphics import renderPDF
    from reportlab.pdfgen.canvas import Canvas

    from engine.media.icons import VIEWBOX, _svg_to_drawing

    drawing = _svg_to_drawing(svg)
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(VIEWBOX, VIEWBOX))
    renderPDF.draw(drawing, c, 0, 0, showBoundary=False)
    c.showPage()
    c.save()
    pdf = pdfium.PdfDocument(buf.getvalue())
    try:
        bitmap = pdf[0].render(scale=SIZE / VIEWBOX, fill_color=(255, 255, 255, 255))
        return _ink_from_rgba(bitmap.to_pil())
    finally:
        pdf.close()


def render_cairo(svg: str) -> np.ndarray:
    import cairosvg
    from PIL import Image

    png = cairosvg.svg2png(bytestring=svg.encode(), output_width=SIZE, output_height=SIZE)
    return _ink_from_rgba(Image.open(io.BytesIO(png)))


def compare(path: Path) -> dict:
    """Render one icon both ways; returns metrics, or an error string if svglib fails."""
    from engine.media.icons import _resolve

    logging.getLogger("svglib").setLevel(logging.ERROR)
    text = path.read_text(encoding="utf-8")
    svg = _resolve(minify(text), "#000000", None)  # exactly what icon_svg() returns
    out: dict = {"id": path.stem}
    try:
        a = render_svglib(svg)
    except Exception as exc:  # noqa: BLE001 - any svglib failure means "leave it out"
        out["error"] = f"svglib: {type(exc).__name__}: {exc}"
        return out
    b = render_cairo(svg)
    ia, ib = a > INK, b > INK
    union = np.logical_or(ia, ib).sum()
    out["iou"] = float(np.logical_and(ia, ib).sum() / union) if union else 1.0
    diff = np.abs(a - b)
    out["mad"] = float(diff.mean())
    cells = diff.reshape(SIZE // BLOCK, BLOCK, SIZE // BLOCK, BLOCK).mean(axis=(1, 3))
    out["local"] = float(cells.max())
    return out


def dump_pair(path: Path, dump_dir: Path, tag: str) -> None:
    """Save svglib | cairosvg side by side (scaled up) for eyeballing."""
    from PIL import Image

    from engine.media.icons import _resolve

    svg = _resolve(minify(path.read_text(encoding="utf-8")), "#000000", None)
    imgs = []
    for fn in (render_svglib, render_cairo):
        try:
            ink = fn(svg)
        except Exception:  # noqa: BLE001
            ink = np.zeros((SIZE, SIZE))
        imgs.append(Image.fromarray((255 * (1 - ink)).astype("uint8")).resize((SIZE * 3, SIZE * 3)))
    pair = Image.new("L", (SIZE * 6 + 10, SIZE * 3), 128)
    pair.paste(imgs[0], (0, 0))
    pair.paste(imgs[1], (SIZE * 3 + 10, 0))
    dump_dir.mkdir(parents=True, exist_ok=True)
    pair.save(dump_dir / f"{tag}-{path.stem}.png")


README = """\
# Bundled icons: Tabler Icons, outline style

- Source: the npm package `@tabler/icons`, version {version} (MIT licence, see `LICENSE.txt`),
  files `icons/outline/*.svg`.
- `tabler-outline.json`: `{{"version": ..., "icons": {{id: svg}}}}`, id = file name without
  `.svg`; the SVG text is the original, whitespace-minified only (all attributes kept, stroke
  and fill still `currentColor`, which `engine.media.icons.icon_svg` resolves).
- {total} outline icons in the package, **{kept} kept**, **{left_out} left out**.

## Why some are left out

Icons are drawn into PDFs as vectors through svglib. The build renders every icon twice at
{size}x{size} px, once through the runtime path (`engine.media.icons._svg_to_drawing`: svglib ->
reportlab Drawing -> PDF -> pypdfium2) and once with cairosvg as the reference, and compares the
grayscale ink. The metric is the largest mean |difference| over {block}x{block} px cells, so a
small missing or extra element is caught even in a large icon. An icon is left out when svglib
cannot convert it or when that metric exceeds {threshold}: the agreeing icons, whose differences
are only anti-aliasing, reach at most {noise:.3f}; a missing 2-unit dot scores >= 0.34.

Left out:

{dropped}

## Rebuilding (maintainers only; nothing downloads at install or test time)

```sh
mkdir -p /tmp/icons-work && cd /tmp/icons-work
npm pack @tabler/icons && tar xzf tabler-icons-*.tgz
cd /path/to/repo
.venv/bin/python scripts/build_icons.py /tmp/icons-work/package --dump-dir /tmp/icons-work/dropped
```

This rewrites `tabler-outline.json`, `LICENSE.txt` and this README. Look at the side-by-side
PNGs (svglib left, cairosvg right) in `--dump-dir` before committing, and run
`pytest tests/engine/media/test_icons.py`.
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("package", type=Path, help="extracted npm package dir (has icons/outline/)")
    ap.add_argument("--out", type=Path, default=OUT_DIR)
    ap.add_argument("--dump-dir", type=Path, help="write side-by-side PNGs of dropped icons here")
    ap.add_argument("--metrics", type=Path, help="write all per-icon metrics as JSON here")
    ap.add_argument("--jobs", type=int, default=None)
    args = ap.parse_args()

    meta = json.loads((args.package / "package.json").read_text(encoding="utf-8"))
    files = sorted((args.package / "icons" / "outline").glob("*.svg"))
    if not files:
        ap.error(f"no SVGs under {args.package / 'icons' / 'outline'}")

    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(compare, files, chunksize=32))

    kept: dict[str, str] = {}
    dropped: list[tuple[str, str]] = []
    for path, r in zip(files, results, strict=True):
        if "error" in r:
            dropped.append((r["id"], r["error"]))
        elif r["local"] > THRESHOLD_LOCAL and 'opacity="' in path.read_text(encoding="utf-8"):
            # The only known cause so far: svglib ignores the opacity attribute.
            dropped.append((r["id"], f"uses opacity=, which svglib ignores (local {r['local']:.2f})"))
        elif r["local"] > THRESHOLD_LOCAL:
            why = f"render mismatch (local {r['local']:.2f}, IoU {r['iou']:.3f}, mean {r['mad']:.4f})"
            dropped.append((r["id"], why))
        else:
            kept[r["id"]] = minify(path.read_text(encoding="utf-8"))
            continue
        if args.dump_dir:
            dump_pair(path, args.dump_dir, "dropped")

    if args.metrics:
        args.metrics.write_text(json.dumps(results, indent=0), encoding="utf-8")
    args.out.mkdir(parents=True, exist_ok=True)
    catalog = {"version": meta["version"], "icons": dict(sorted(kept.items()))}
    (args.out / "tabler-outline.json").write_text(
        json.dumps(catalog, separators=(",", ":"), ensure_ascii=False), encoding="utf-8"
    )
    (args.out / "LICENSE.txt").write_text((args.package / "LICENSE").read_text(encoding="utf-8"), encoding="utf-8")

    noise = max((r["local"] for r in results if r["id"] in kept), default=0.0)
    (args.out / "README.md").write_text(
        README.format(
            version=meta["version"],
            total=len(files),
            kept=len(kept),
            left_out=len(dropped),
            size=SIZE,
            block=BLOCK,
            threshold=THRESHOLD_LOCAL,
            noise=noise,
            dropped="\n".join(f"- `{i}`: {why}" for i, why in dropped) or "- (none)",
        ),
        encoding="utf-8",
    )
    print(f"@tabler/icons {meta['version']}: {len(files)} outline icons, kept {len(kept)}, left out {len(dropped)}")
    for icon_id, why in dropped:
        print(f"  - {icon_id}: {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
