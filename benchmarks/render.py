"""PDF throughput of docbench against a hand-written ReportLab canvas, and preview latency.

    .venv/bin/python -m benchmarks.render [--quick] [--json]

Both sides draw the same rows of the two reference documents (workbench.samples)
with the same fonts, compression and settings, in the same process, interleaved.
benchmarks/README.md explains what is measured and how to read the ratio.
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import gc
import io
import json
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

import numpy as np
import pypdfium2 as pdfium
import zxingcpp
from reportlab import rl_config
from reportlab.graphics.barcode.code128 import Code128
from reportlab.lib.colors import Color, HexColor, black
from reportlab.lib.utils import ImageReader, simpleSplit
from reportlab.pdfgen.canvas import Canvas

from engine import DesignTree, apply, fonts, new_design, render_pdf, render_png
from engine.render.document import Profile
from workbench import samples

# engine.render.document sets this at import already; set it here too so the comparison does
# not hang on import order: both sides write Flate streams without ASCII85 on top.
rl_config.useA85 = 0

PDF_RUNS = {"certificate": 200, "invoice": 100}
PREVIEW_RUNS = 30
PREVIEW_DPIS = (96, 150)
WARMUP = 3
RATIO_TARGET = 0.9
PREVIEW_TARGET_MS = 40.0  # median at 96 dpi
# Warm-up and cold renders use row numbers far from the timed ones (0..199), so no
# timed render finds its text, QR or barcode already in docbench's caches.
WARMUP_ROW, COLD_ROW = 1_000_000, 2_000_000

Row = dict[str, Any]
Rect = tuple[float, float, float, float]  # PDF space: x, y of the bottom-left corner, w, h


# --- Baseline: what a developer writes against ReportLab without docbench -----------


@dataclass(frozen=True)
class Text:
    """One text element of the design, as the baseline draws it."""

    font: str  # registered ReportLab font name (the same TTF docbench embeds)
    size: float
    color: Color
    x: float
    y: float  # PDF y of the first baseline
    leading: float
    width: float | None  # wrap width, None for a single line

    def draw(self, c: Canvas, text: str) -> None:
        c.setFont(self.font, self.size)
        c.setFillColor(self.color)
        lines = simpleSplit(text, self.font, self.size, self.width) if self.width else [text]
        for k, line in enumerate(lines):
            c.drawString(self.x, self.y - k * self.leading, line)


def first_baseline(face: fonts.Face, size: float, leading: float) -> float:
    """Top of a line to its baseline, placed as docbench places it (glyph box centred)."""
    return (leading - (face.ascent - face.descent) * size / 1000) / 2 + face.ascent * size / 1000


class Layout:
    """Positions and styles read once from a design tree, like constants in app code."""

    def __init__(self, tree: DesignTree):
        page = tree.pages[0]
        self.page = (page.width, page.height)
        self.title = tree.metadata.title or ""
        self.nodes = {node.name: node for node in tree.nodes.values()}
        self.texts: dict[str, Text] = {}
        self.rects: dict[str, Rect] = {}
        for name, node in self.nodes.items():
            pos = node.position
            if node.type == "text":
                st = node.styles
                face = fonts.face(st.fontFamily, st.fontWeight)
                leading = st.fontSize * st.lineHeight
                y = page.height - pos.y - first_baseline(face, st.fontSize, leading)
                self.texts[name] = Text(face.name, st.fontSize, HexColor(st.color), pos.x, y, leading, pos.maxWidth)
            elif node.type != "table":
                w, h = (pos.size, pos.size) if node.type == "qr" else (pos.w, pos.h)
                self.rects[name] = (pos.x, page.height - pos.y - h, w, h)


def draw_logo(c: Canvas, rect: Rect) -> None:
    # A new reader per document over the same bytes, as an app handed the logo would.
    c.drawImage(ImageReader(io.BytesIO(samples.logo_png())), *rect, mask="auto")


def draw_qr(c: Canvas, rect: Rect, value: str) -> None:
    """ZXing C++'s matrix as one canvas path: the fast way to draw a QR code.

    ReportLab's own QrCodeWidget is about three times slower (an encoder in pure
    Python and one checked shape per module run); a baseline built on it would flatter
    docbench, so the baseline uses the same encoder docbench does.
    """
    x, y, size, _ = rect
    c.setFillColor(HexColor("#ffffff"))  # docbench's default white QR background
    c.rect(*rect, stroke=0, fill=1)
    code = zxingcpp.create_barcode(value, zxingcpp.BarcodeFormat.QRCode, ec_level="M")
    matrix = (np.asarray(code.to_image(scale=1, add_quiet_zones=False)) == 0).tolist()
    module = size / (len(matrix) + 8)  # four modules of quiet zone on each side, as docbench draws
    top = y + size - 4 * module
    path = c.beginPath()
    for r, cells in enumerate(matrix):
        for col, dark in enumerate(cells):
            if dark:
                path.rect(x + (col + 4) * module, top - (r + 1) * module, module, module)
    c.setFillColor(black)
    c.drawPath(path, stroke=0, fill=1)


def draw_barcode(c: Canvas, rect: Rect, value: str, font: str) -> None:
    x, y, w, h = rect
    label = min(h / 5, 12.0)  # docbench's default label size, under the bars
    # The bars and docbench's 10 modules of quiet zone each side stretched to the box.
    bar = w / (Code128(value, barWidth=1, quiet=0).width + 20)
    code = Code128(
        value,
        barWidth=bar,
        barHeight=h - 1.15 * label,
        quiet=1,
        lquiet=10 * bar,
        rquiet=10 * bar,
        humanReadable=1,
        fontName=font,
        fontSize=label,
    )
    c.setFillColor(black)
    code.drawOn(c, x, y + 1.15 * label)


def baseline_pdf(lay: Layout, row: Row, draw: Callable[[Canvas, Layout, Row], None]) -> bytes:
    buffer = io.BytesIO()
    c = Canvas(buffer, pagesize=lay.page, invariant=1, pageCompression=1)
    c.setTitle(lay.title)
    draw(c, lay, row)
    c.showPage()
    c.save()
    return buffer.getvalue()


def certificate(c: Canvas, lay: Layout, row: Row) -> None:
    border = lay.nodes["border"].styles
    c.setStrokeColor(HexColor(border.stroke))
    c.setLineWidth(border.strokeWidth)
    c.roundRect(*lay.rects["border"], border.cornerRadius, stroke=1, fill=0)
    lay.texts["title"].draw(c, lay.nodes["title"].data.content)
    lay.texts["recipient"].draw(c, row["recipient"])
    lay.texts["paragraph"].draw(c, lay.nodes["paragraph"].data.content)
    issued = dt.date.fromisoformat(row["issued"])
    lay.texts["issued"].draw(c, f"{issued.day} {issued:%B %Y}")
    draw_logo(c, lay.rects["logo"])
    draw_qr(c, lay.rects["verify"], row["verify"])
    draw_barcode(c, lay.rects["serial"], row["serial"], fonts.face().name)


def invoice(c: Canvas, lay: Layout, row: Row) -> None:
    for name in ("heading", "number", "customer", "total"):
        lay.texts[name].draw(c, row.get(name, lay.nodes[name].data.content))
    draw_logo(c, lay.rects["logo"])
    draw_qr(c, lay.rects["payment"], row["payment"])
    table = lay.nodes["lines"]
    st = table.styles
    pad, row_h = st.cellPadding, st.fontSize * st.lineHeight + 2 * st.cellPadding
    body_font, head_font = fonts.face(st.fontFamily, st.fontWeight), fonts.face(st.fontFamily, st.headerFontWeight)
    text_dy = pad + first_baseline(body_font, st.fontSize, st.fontSize * st.lineHeight)
    c.setStrokeColor(HexColor(st.borderColor))
    c.setLineWidth(st.borderWidth)
    header_fill, stripe = HexColor(st.headerBackgroundColor), HexColor(st.stripeColor)
    top = lay.page[1] - table.position.y
    for r, cells in enumerate(row["lines"]):
        fill = header_fill if r == 0 else (stripe if r % 2 == 0 else None)  # every other body row
        c.setFont(head_font.name if r == 0 else body_font.name, st.fontSize)
        y, x = top - (r + 1) * row_h, table.position.x
        for width, text in zip(table.data.columnWidths, cells, strict=True):
            if fill:
                c.setFillColor(fill)
            c.rect(x, y, width, row_h, stroke=1, fill=1 if fill else 0)
            c.setFillColor(black)
            c.drawString(x + pad, y + row_h - text_dy, text)
            x += width


# --- Measurement ---------------------------------------------------------------------


@dataclass
class Document:
    name: str
    tree: DesignTree
    row: Callable[[int], Row]
    baseline: Callable[[Canvas, Layout, Row], None]  # draws the page


def cols(first: object, *rest: object) -> str:
    """One line of a printed table: the first cell left-aligned, then right-aligned ones."""
    return f"{first!s:<12}" + "".join(f"{c:>12.1f}" if isinstance(c, float) else f"{c!s:>12}" for c in rest)


def ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def throughput(doc: Document, runs: int) -> dict[str, float]:
    """PDFs/s and mean size of each side over the same rows, alternating who goes first."""
    layout = Layout(doc.tree)
    sides: dict[str, Callable[[Row], bytes]] = {
        "docbench": lambda row: render_pdf(doc.tree, row, samples.resolver),
        "baseline": lambda row: baseline_pdf(layout, row, doc.baseline),
    }
    for k in range(WARMUP):
        for render in sides.values():
            render(doc.row(WARMUP_ROW + k))
    spent, size = dict.fromkeys(sides, 0.0), dict.fromkeys(sides, 0)
    for i in range(runs):
        row = doc.row(i)  # built outside the timed section, shared by both sides
        for side in sorted(sides, reverse=i % 2 == 1):
            start = time.perf_counter()
            pdf = sides[side](row)
            spent[side] += time.perf_counter() - start
            size[side] += len(pdf)
    out: dict[str, float] = {"runs": runs, "ratio": spent["baseline"] / spent["docbench"]}
    for side in sides:
        out |= {f"{side}_pdfs_per_s": runs / spent[side], f"{side}_avg_bytes": size[side] / runs}
    return out


PROFILES = get_args(Profile)
PROFILE_TARGET = 0.8  # tagged profiles at least 0.8 x the standard rate (issue 20)


def profile_rates(doc: Document, runs: int) -> dict[str, float]:
    """PDFs/s per profile. Each profile renders its own fresh rows (no QR matrix or text
    layout from another profile's cache), interleaved row by row so load is shared."""
    for profile in PROFILES:
        for k in range(WARMUP):
            render_pdf(doc.tree, doc.row(WARMUP_ROW + k), samples.resolver, profile)
    # The warm heap frozen out of the collector's sight (as a render process's start does,
    # api.jobs.runner.tune_for_rendering): a full collection lands on whichever profile
    # allocates past the threshold, and made single figures swing by a third.
    gc.collect()
    gc.freeze()
    spent = dict.fromkeys(PROFILES, 0.0)
    try:
        for i in range(runs):
            shift = i % len(PROFILES)  # the order rotates: no profile always goes first
            for profile in PROFILES[shift:] + PROFILES[:shift]:
                row = doc.row(100_000 + PROFILES.index(profile) * 10_000 + i)
                start = time.perf_counter()
                render_pdf(doc.tree, row, samples.resolver, profile)
                spent[profile] += time.perf_counter() - start
    finally:
        gc.unfreeze()
    return {profile: runs / spent[profile] for profile in PROFILES}


@dataclass
class Showcase:
    """A docbench-only figure: a design using issue 15's text features (workbench.samples),
    timed interleaved with the reference document it extends, so the ratio shares the load."""

    name: str
    tree: DesignTree
    row: Callable[[int], Row]
    reference: str  # the Document it is compared with


def showcase_rate(showcase: Showcase, reference: Document, runs: int) -> dict[str, float]:
    """PDFs/s of the showcase and of its reference document (docbench both), row by row."""
    sides = {"showcase": (showcase.tree, showcase.row), "reference": (reference.tree, reference.row)}
    for tree, row in sides.values():
        for k in range(WARMUP):
            render_pdf(tree, row(WARMUP_ROW + k), samples.resolver)
    spent = dict.fromkeys(sides, 0.0)
    for i in range(runs):
        for side in sorted(sides, reverse=i % 2 == 1):
            tree, make_row = sides[side]
            row = make_row(300_000 + i)
            start = time.perf_counter()
            render_pdf(tree, row, samples.resolver)
            spent[side] += time.perf_counter() - start
    showcase_per_s, reference_per_s = runs / spent["showcase"], runs / spent["reference"]
    return {
        "runs": runs,
        "sheets": len(pdfium.PdfDocument(render_pdf(showcase.tree, showcase.row(0), samples.resolver))),
        "pdfs_per_s": showcase_per_s,
        "reference_pdfs_per_s": reference_per_s,
        "ratio_to_reference": showcase_per_s / reference_per_s,
    }


# --- Issue 16: the reference documents in other scripts (docbench only) -------------
#
# The certificate and the invoice of workbench.samples with their texts translated and set
# in a script family: the same elements, positions and bound variables, so their PDFs/s
# read against the reference documents directly.

ARABIC = "Noto Sans Arabic"
ARABIC_CERTIFICATE = {
    "title": "شهادة تميّز",
    "recipient": "آدا لوفلايس",
    "paragraph": (
        "تقديرًا لالتزامها المتميّز بفنّ تصميم الوثائق، ولوضوح التخطيط، والعناية بالحروف، "
        "وعينها الدقيقة في التفاصيل في كل صفحة أُنجزت خلال البرنامج، تُمنح هذه الشهادة "
        "مع امتنان أعضاء الهيئة التدريسية جميعًا."
    ),
}
CHINESE = "Noto Sans SC"
CHINESE_INVOICE_HEADER = ["项目说明", "数量", "单价", "金额"]
CHINESE_INVOICE = {"heading": "发票", "number": "编号 INV-0000", "customer": "客户名称\n示例路1号\n上海市"}


def _restyled(
    actions: list[dict], family: str, contents: dict[str, str], align: str | None = None, **data: object
) -> list[dict]:
    """The actions with every text and table set in `family` (texts aligned `align` when
    given), the named texts' content replaced and `data` added to every date text's data
    (a locale)."""
    out = copy.deepcopy(actions)
    for action in out:
        args = action["args"]
        if action["type"] != "add_element" or args["type"] not in ("text", "table"):
            continue
        args["styles"] = {**args.get("styles", {}), "fontFamily": family}
        if args["type"] == "text":
            if align is not None:
                args["styles"]["align"] = align
            args["data"] = {**args["data"], **({"content": contents[args["name"]]} if args["name"] in contents else {})}
            if args["data"].get("dataType") == "date":
                args["data"] |= data
    return out


def arabic_certificate() -> DesignTree:
    """The reference certificate in Arabic, in Noto Sans Arabic, its texts aligned at their
    start (the right of a right-to-left line) and the date formatted for ar."""
    tree = new_design(size="A4", orientation="landscape", title="شهادة")
    return apply(tree, _restyled(samples.certificate_actions(), ARABIC, ARABIC_CERTIFICATE, "start", locale="ar"))[0]


def arabic_certificate_row(i: int) -> Row:
    return samples.certificate_row(i) | {"recipient": f"المستلم رقم {i} — سارة بنت أحمد"}


def chinese_invoice() -> DesignTree:
    """The reference invoice in Simplified Chinese, in Noto Sans SC."""
    actions = _restyled(samples.invoice_actions(), CHINESE, CHINESE_INVOICE)
    return apply(new_design(size="A4", title="发票"), actions)[0]


def chinese_invoice_row(i: int) -> Row:
    row = samples.invoice_row(i)
    lines = [CHINESE_INVOICE_HEADER] + [
        [f"技术服务费 {i}-{r}（月度）", *cells[1:]] for r, cells in enumerate(row["lines"][1:], 1)
    ]
    return row | {
        "number": f"编号 INV-{i:04d}",
        "customer": f"客户 {i} 有限公司\n示例路{i}号\n上海市",
        "lines": lines,
        "total": f"合计：{row['total'].removeprefix('Total: ')} 元",
    }


def preview(tree: DesignTree, dpi: int, runs: int) -> dict[str, float]:
    """Median and p95 (nearest rank) of a warm render_png of page 0, in ms."""
    for _ in range(WARMUP):
        render_png(tree, 0, samples.resolver, dpi)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        render_png(tree, 0, samples.resolver, dpi)
        times.append(ms_since(start))
    times.sort()
    return {"median_ms": statistics.median(times), "p95_ms": times[math.ceil(0.95 * len(times)) - 1]}


def cold_start() -> tuple[list[Document], dict[str, float]]:
    """Build the designs and render each once, timing it: nothing has rendered before."""
    cold: dict[str, float] = {}
    start = time.perf_counter()
    docs = [
        Document("certificate", samples.certificate(), samples.certificate_row, certificate),
        Document("invoice", samples.invoice(), samples.invoice_row, invoice),
    ]
    cold["build both designs (registers their fonts)"] = ms_since(start)
    for doc in docs:  # the first render_png also imports pypdfium2
        start = time.perf_counter()
        render_pdf(doc.tree, doc.row(COLD_ROW), samples.resolver)
        cold[f"first render_pdf {doc.name}"] = ms_since(start)
        start = time.perf_counter()
        render_png(doc.tree, 0, samples.resolver, 96)
        cold[f"first render_png {doc.name} 96 dpi"] = ms_since(start)
    return docs, cold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10%% of the iterations, for a fast check")
    parser.add_argument("--json", action="store_true", help="also print every figure as one JSON object")
    args = parser.parse_args()
    scale = 0.1 if args.quick else 1.0

    docs, cold = cold_start()
    assert rl_config.useA85 == 0, "both sides must write the same stream encoding"
    pdf = {d.name: throughput(d, max(3, round(PDF_RUNS[d.name] * scale))) for d in docs}
    runs = max(3, round(PREVIEW_RUNS * scale))
    png = {d.name: {str(dpi): preview(d.tree, dpi, runs) for dpi in PREVIEW_DPIS} for d in docs}

    print(f"PDF generation, warm ({WARMUP} warm-up renders first): docbench vs plain ReportLab canvas")
    print(cols("document", "runs", "docbench/s", "baseline/s", "ratio", "docbench KB", "baseline KB"))
    for name, r in pdf.items():
        rates = (r["docbench_pdfs_per_s"], r["baseline_pdfs_per_s"])
        sizes = (r["docbench_avg_bytes"] / 1024, r["baseline_avg_bytes"] / 1024)
        flag = "  ok" if r["ratio"] >= RATIO_TARGET else f"  BELOW {RATIO_TARGET}"
        print(cols(name, r["runs"], *rates, f"{r['ratio']:.2f}", *sizes) + flag)
    print(f"\nPreview, warm render_png(page 0): {runs} runs after {WARMUP} warm-up renders")
    print(cols("document", "dpi", "median ms", "p95 ms"))
    for name, by_dpi in png.items():
        for dpi, p in by_dpi.items():
            flag = "  ok" if p["median_ms"] < PREVIEW_TARGET_MS else f"  OVER {PREVIEW_TARGET_MS:g} ms"
            print(cols(name, dpi, p["median_ms"], p["p95_ms"]) + (flag if dpi == "96" else ""))
    print("\nPDF profiles (tagged ones are also validated in the test suite)")
    print(cols("document", "runs", *PROFILES, "acc/std", "pdf-a/std"))
    profiles = {}
    for doc in docs:
        runs_here = max(3, round(PDF_RUNS[doc.name] * scale * 2))  # ratios of a few %: many rows
        rates = profile_rates(doc, runs_here)
        profiles[doc.name] = rates
        ratios = [rates[p] / rates["standard"] for p in PROFILES[1:]]
        flag = "  ok" if min(ratios) >= PROFILE_TARGET else f"  below {PROFILE_TARGET}"
        print(cols(doc.name, runs_here, *(f"{rates[p]:.1f}" for p in PROFILES), *(f"{r:.2f}" for r in ratios)) + flag)
    showcases = [
        Showcase("fitted cert", samples.fitted_certificate(), samples.fitted_certificate_row, "certificate"),
        Showcase("3-sheet inv", samples.paged_invoice(), samples.paged_invoice_row, "invoice"),
    ]
    by_name = {doc.name: doc for doc in docs}
    features = {
        sc.name: showcase_rate(sc, by_name[sc.reference], max(3, round(PDF_RUNS[sc.reference] * scale / 2)))
        for sc in showcases
    }
    print("\nIssue 15 showcases, docbench only: a certificate whose name shrinks to fit and whose sentence")
    print("has two fields; an invoice over 3 sheets with a repeated header and 'Page n of N' footer")
    print(cols("document", "runs", "sheets", "PDFs/s", "ref PDFs/s", "vs ref"))
    for name, f in features.items():
        print(
            cols(
                name,
                f["runs"],
                f["sheets"],
                f["pdfs_per_s"],
                f["reference_pdfs_per_s"],
                f"{f['ratio_to_reference']:.2f}",
            )
        )
    script_showcases = [
        Showcase("arabic cert", arabic_certificate(), arabic_certificate_row, "certificate"),
        Showcase("chinese inv", chinese_invoice(), chinese_invoice_row, "invoice"),
    ]
    scripts = {
        sc.name: showcase_rate(sc, by_name[sc.reference], max(3, round(PDF_RUNS[sc.reference] * scale / 2)))
        for sc in script_showcases
    }
    print(f"\nIssue 16, docbench only: the certificate in Arabic ({ARABIC}), the invoice in Chinese ({CHINESE})")
    print(cols("document", "runs", "sheets", "PDFs/s", "ref PDFs/s", "vs ref"))
    for name, f in scripts.items():
        rates = (f["pdfs_per_s"], f["reference_pdfs_per_s"])
        print(cols(name, f["runs"], f["sheets"], *rates, f"{f['ratio_to_reference']:.2f}"))
    print("\nCold (once, the first renders in this process)")
    for label, ms in cold.items():
        print(f"  {label:<44} {ms:>7.1f} ms")
    if args.json:
        print(
            json.dumps(
                {
                    "quick": args.quick,
                    "pdf": pdf,
                    "preview": png,
                    "profiles": profiles,
                    "showcases": features,
                    "scripts": scripts,
                    "cold_ms": cold,
                }
            )
        )


if __name__ == "__main__":
    main()
