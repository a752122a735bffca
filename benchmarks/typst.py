"""docbench against Typst on the two reference documents, plus the tagged profiles.

    .venv/bin/python -m benchmarks.typst [--quick] [--json]

The certificate and the invoice of workbench.samples are written in Typst markup with
the same page sizes, positions, bundled TTF fonts, sizes, weights, colours and line
boxes; each row's values reach Typst as `sys.inputs`, one `typst.Compiler` per document
(Typst's incremental path). Typst has no QR or barcode of its own (its packages need the
registry), so Python makes them as SVG inside the timed section, with two encoders: the
`qrcode` + `python-barcode` pair and zxing-cpp. benchmarks/README.md explains how to read it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import barcode as python_barcode
import numpy
import pypdfium2 as pdfium
import qrcode
import qrcode.constants
import typst
import zxingcpp

from engine import DesignTree, fonts, render_pdf
from engine.fonts import FONT_DIR
from engine.render.document import Profile
from workbench import samples

Row = dict[str, Any]
PROFILES: tuple[Profile, ...] = get_args(Profile)
PDF_RUNS = {"certificate": 200, "invoice": 100}
WARMUP = 3
WARMUP_ROW = 1_000_000
# Each side renders its own rows (same shape, same index): a row another side rendered
# first would find its text layout in docbench's caches or in Typst's memoised compile.
SIDE_ROW_STRIDE = 10_000
SPEED_TARGET = 2.0  # docbench at least 2 x Typst
PROFILE_TARGET = 0.8  # accessible and pdf-a at least 0.8 x standard
QUIET_ZONE = 4  # docbench's QR quiet zone, in modules (ISO/IEC 18004)
BARS_QUIET_ZONE = 10  # docbench's CODE128 quiet zone each side, in modules (ISO/IEC 15417)
FONT_FOLDERS = [FONT_DIR / "inter", FONT_DIR / "playfair-display"]
# Typst writes a tagged PDF unless told not to; its default output is what is measured.
TYPST_PDF_TAGS = True


# --- Codes as SVG ---------------------------------------------------------------------


def _runs(cells: Sequence[Any]) -> Iterable[tuple[int, int]]:
    """(first column, length) of each dark run in one row of modules."""
    col, count = 0, len(cells)
    while col < count:
        if cells[col]:
            start = col
            while col < count and cells[col]:
                col += 1
            yield start, col - start
        else:
            col += 1


def qr_svg(matrix: Sequence[Sequence[Any]]) -> str:
    """A QR matrix (truthy = dark) as SVG: white background, docbench's quiet zone."""
    side = len(matrix) + 2 * QUIET_ZONE
    path = "".join(
        f"M{QUIET_ZONE + col} {QUIET_ZONE + r}h{length}v1h-{length}Z"
        for r, cells in enumerate(matrix)
        for col, length in _runs(cells)
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {side} {side}" shape-rendering="crispEdges">'
        f'<rect width="{side}" height="{side}" fill="#fff"/><path d="{path}" fill="#000"/></svg>'
    )


def bars_svg(modules: Sequence[Any]) -> str:
    """One row of barcode modules as SVG bars one unit high, with docbench's quiet zones,
    stretched by Typst to the box."""
    path = "".join(f"M{BARS_QUIET_ZONE + col} 0h{length}v1h-{length}Z" for col, length in _runs(modules))
    width = len(modules) + 2 * BARS_QUIET_ZONE
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} 1" preserveAspectRatio="none">'
        f'<path d="{path}" fill="#000"/></svg>'
    )


def qrcode_codes(content: str) -> str:
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=0)
    code.add_data(content)
    code.make(fit=True)
    return qr_svg(code.get_matrix())


def python_barcode_bars(content: str) -> str:
    code = python_barcode.get_barcode_class("code128")(content, writer=None)
    return bars_svg([m == "1" for m in "".join(code.build())])


def zxing_qr(content: str) -> str:
    code = zxingcpp.create_barcode(content, zxingcpp.BarcodeFormat.QRCode, ec_level="M")
    # The bitmap is 0 for a dark module, 255 for a light one.
    return qr_svg((numpy.asarray(code.to_image(scale=1, add_quiet_zones=False)) == 0).tolist())


def zxing_bars(content: str) -> str:
    code = zxingcpp.create_barcode(content, zxingcpp.BarcodeFormat.Code128)
    return bars_svg((numpy.asarray(code.to_image(scale=1, add_quiet_zones=False))[0] == 0).tolist())


ENCODERS: dict[str, tuple[Callable[[str], str], Callable[[str], str]]] = {
    "qrcode": (qrcode_codes, python_barcode_bars),
    "zxing": (zxing_qr, zxing_bars),
}


# --- The documents in Typst markup ----------------------------------------------------


def _pt(value: float) -> str:
    return f"{value:g}pt"


def _text_setup(family: str, size: float, weight: int, line_height: float, color: str) -> str:
    """`set` rules giving each line docbench's line box: `line_height` x size tall, the
    glyph box (ascent to descent) centred in it, so baselines fall where docbench's do."""
    face = fonts.face(family, weight)
    ascent, descent = face.ascent / 1000, face.descent / 1000
    top = (line_height - (ascent - descent)) / 2 + ascent
    return (
        f'set text(font: "{family}", size: {_pt(size)}, weight: {weight}, fill: rgb("{color}"), '
        f"top-edge: {top:.5f}em, bottom-edge: {top - line_height:.5f}em); "
        "set par(leading: 0pt, spacing: 0pt)"
    )


def _node(tree: DesignTree, name: str) -> Any:
    return next(n for n in tree.nodes.values() if n.name == name)


def _text(tree: DesignTree, name: str, content: str) -> str:
    """A text element placed at its position; `content` is Typst code (a variable or a literal)."""
    node = _node(tree, name)
    st, pos = node.styles, node.position
    width = f"width: {_pt(pos.maxWidth)}" if pos.maxWidth else ""
    setup = _text_setup(st.fontFamily, st.fontSize, st.fontWeight, st.lineHeight, st.color)
    return f"#place(dx: {_pt(pos.x)}, dy: {_pt(pos.y)}, box({width})[#{{ {setup}; {content} }}])\n"


def _static(tree: DesignTree, name: str) -> str:
    """A text element with its own content, as a Typst string literal (JSON's escapes are
    Typst's too, once non-ASCII characters are left as they are)."""
    return _text(tree, name, json.dumps(_node(tree, name).data.content, ensure_ascii=False))


def _page(tree: DesignTree) -> str:
    page = tree.pages[0]
    return (
        f"#set page(width: {_pt(page.width)}, height: {_pt(page.height)}, margin: 0pt)\n"
        "#let row = json(bytes(sys.inputs.row))\n"
    )


def _image(tree: DesignTree, name: str, source: str) -> str:
    pos = _node(tree, name).position
    return f"#place(dx: {_pt(pos.x)}, dy: {_pt(pos.y)}, image({source}, width: {_pt(pos.w)}, height: {_pt(pos.h)}))\n"


def _qr(tree: DesignTree, name: str) -> str:
    pos = _node(tree, name).position
    svg = f'image(bytes(sys.inputs.qr), format: "svg", width: {_pt(pos.size)})'
    return f"#place(dx: {_pt(pos.x)}, dy: {_pt(pos.y)}, {svg})\n"


def certificate_source(tree: DesignTree) -> str:
    border = _node(tree, "border")
    bpos, bst = border.position, border.styles
    serial = _node(tree, "serial")
    spos = serial.position
    label_size = min(spos.h / 5, 12.0)  # docbench's default label: a fifth of the height, at most 12
    bar_height = max(spos.h - label_size * 1.15, spos.h * 0.4)
    label = _text_setup(fonts.DEFAULT_FAMILY, label_size, 400, 1.15, "#000000")
    return (
        _page(tree) + f"#place(dx: {_pt(bpos.x)}, dy: {_pt(bpos.y)}, rect(width: {_pt(bpos.w)}, height: {_pt(bpos.h)}, "
        f'stroke: {_pt(bst.strokeWidth)} + rgb("{bst.stroke}"), radius: {_pt(bst.cornerRadius)}))\n'
        + _static(tree, "title")
        + _text(tree, "recipient", "row.recipient")
        + _static(tree, "paragraph")
        + _image(tree, "logo", '"logo.png"')
        + _qr(tree, "verify")
        + f"#place(dx: {_pt(spos.x)}, dy: {_pt(spos.y)}, box(width: {_pt(spos.w)})[#{{ {label}; "
        f'image(bytes(sys.inputs.bars), format: "svg", width: {_pt(spos.w)}, height: {_pt(bar_height)}, '
        'fit: "stretch"); align(center, row.serial) }])\n'
        # "d MMMM y", as docbench formats the date: 5 March 2026.
        + _text(
            tree,
            "issued",
            'let (y, m, d) = row.issued.split("-").map(int); '
            'datetime(year: y, month: m, day: d).display("[day padding:none] [month repr:long] [year]")',
        )
    )


def invoice_source(tree: DesignTree) -> str:
    table = _node(tree, "lines")
    st, pos = table.styles, table.position
    columns = ", ".join(_pt(w) for w in table.data.columnWidths)
    cell = _text_setup(st.fontFamily, st.fontSize, st.fontWeight, st.lineHeight, st.color)
    # docbench stripes every other body row: body rows 1, 3, 5... (0 is the first under the header).
    fill = (
        f'(x, y) => if y == 0 {{ rgb("{st.headerBackgroundColor}") }} '
        f'else if calc.rem(y - 1, 2) == 1 {{ rgb("{st.stripeColor}") }}'
    )
    return (
        _page(tree)
        + _static(tree, "heading")
        + _text(tree, "number", "row.number")
        + _text(tree, "customer", "row.customer")
        + _image(tree, "logo", '"logo.png"')
        + f"#place(dx: {_pt(pos.x)}, dy: {_pt(pos.y)})[#{{ {cell}; "
        f"show table.cell.where(y: 0): set text(weight: {st.headerFontWeight}); "
        f"table(columns: ({columns}), inset: {_pt(st.cellPadding)}, align: left, "
        f'stroke: {_pt(st.borderWidth)} + rgb("{st.borderColor}"), fill: {fill}, ..row.lines.flatten()) }}]\n'
        + _text(tree, "total", "row.total")
        + _qr(tree, "payment")
    )


# --- Measurement ----------------------------------------------------------------------


@dataclass
class Document:
    name: str
    tree: DesignTree
    row: Callable[[int], Row]
    source: str
    qr_value: str  # the row's key the QR encodes
    bars_value: str | None  # the row's key the barcode encodes, if the document has one
    check_value: str  # a row's key whose text must be in the PDF


def documents() -> list[Document]:
    certificate, invoice = samples.certificate(), samples.invoice()
    return [
        Document(
            "certificate", certificate, samples.certificate_row, certificate_source(certificate),
            "verify", "serial", "recipient",
        ),
        Document("invoice", invoice, samples.invoice_row, invoice_source(invoice), "payment", None, "number"),
    ]  # fmt: skip


class TypstSide:
    """One document in Typst: one Compiler, reused for every row."""

    def __init__(self, doc: Document, workdir: Path):
        self.doc = doc
        (workdir / "logo.png").write_bytes(samples.logo_png())
        font_set = typst.Fonts(include_system_fonts=False, include_embedded_fonts=False, font_paths=FONT_FOLDERS)
        # A file, not bytes: typst-py 0.15 loses a source given as bytes once sys_inputs change.
        main = workdir / f"{doc.name}.typ"
        main.write_text(doc.source)
        self.compiler = typst.Compiler(main, root=workdir, font_paths=font_set)

    def codes(self, row: Row, encoder: str) -> dict[str, str]:
        make_qr, make_bars = ENCODERS[encoder]
        inputs = {"row": json.dumps(row), "qr": make_qr(row[self.doc.qr_value])}
        if self.doc.bars_value:
            inputs["bars"] = make_bars(row[self.doc.bars_value])
        return inputs

    def compile(self, inputs: dict[str, str]) -> bytes:
        pdf = self.compiler.compile(format="pdf", sys_inputs=inputs, pdf_tags=TYPST_PDF_TAGS)
        assert isinstance(pdf, bytes)
        return pdf

    def render(self, row: Row, encoder: str) -> bytes:
        return self.compile(self.codes(row, encoder))


def pdf_text(pdf: bytes) -> tuple[int, str]:
    """(pages, text of the first page) of a PDF."""
    document = pdfium.PdfDocument(pdf)
    return len(document), document[0].get_textpage().get_text_range()


def check(doc: Document, side: TypstSide) -> None:
    """Once, outside the timing: both Typst variants give one page holding the row's text."""
    row = doc.row(WARMUP_ROW - 1)
    for encoder in ENCODERS:
        pages, text = pdf_text(side.render(row, encoder))
        if pages != 1 or row[doc.check_value].split("\n")[0] not in text:
            raise SystemExit(f"Typst's {doc.name} ({encoder}) is not the document: {pages} pages, text {text[:200]!r}")


def measure(doc: Document, side: TypstSide, runs: int) -> dict[str, float]:
    """PDFs/s and mean size of every side, interleaved row by row, the order rotating."""
    renders: dict[str, Callable[[Row], bytes]] = {
        **{f"docbench {p}": (lambda row, p=p: render_pdf(doc.tree, row, samples.resolver, p)) for p in PROFILES},
        **{f"typst+{e}": (lambda row, e=e: side.render(row, e)) for e in ENCODERS},
    }
    names = [*renders, "typst compile"]
    for k in range(WARMUP):
        row = doc.row(WARMUP_ROW + k)
        for render in renders.values():
            render(row)
        side.compile(side.codes(doc.row(WARMUP_ROW + 100 + k), "zxing"))
    # What the warm-up left is frozen out of the collector's sight, as a render process's
    # start does (api.jobs.runner.tune_for_rendering): a full collection of the imports' heap
    # would otherwise land on whichever side happened to allocate past the threshold.
    gc.collect()
    gc.freeze()
    spent, size = dict.fromkeys(names, 0.0), dict.fromkeys(names, 0)
    for i in range(runs):
        # The order rotates row by row: each side follows every other as often, so none is
        # always the one that runs in the caches Typst's compile just went through.
        shift = i % len(names)
        for name in names[shift:] + names[:shift]:
            row = doc.row(i + SIDE_ROW_STRIDE * names.index(name))  # built outside the timing
            if name == "typst compile":
                inputs = side.codes(row, "zxing")  # codes made outside the timing
                start = time.perf_counter()
                pdf = side.compile(inputs)
            else:
                start = time.perf_counter()
                pdf = renders[name](row)
            spent[name] += time.perf_counter() - start
            size[name] += len(pdf)
    out: dict[str, float] = {"runs": runs}
    for name in names:
        out[f"{name} pdfs/s"] = runs / spent[name]
        out[f"{name} kb"] = size[name] / runs / 1024
    standard = out["docbench standard pdfs/s"]
    for encoder in ENCODERS:
        out[f"docbench/typst+{encoder}"] = standard / out[f"typst+{encoder} pdfs/s"]
    out["docbench/typst compile"] = standard / out["typst compile pdfs/s"]
    for profile in PROFILES[1:]:
        out[f"{profile}/standard"] = out[f"docbench {profile} pdfs/s"] / standard
    return out


def flag(value: float, target: float) -> str:
    return f"{value:.2f}{'' if value >= target else ' !'}"


def report(results: dict[str, dict[str, float]]) -> None:
    heads = ["standard", "accessible", "pdf-a", "typst+qrcode", "typst+zxing", "typst compile"]
    rates = [f"docbench {h}" for h in heads[:3]] + heads[3:]
    print("PDFs/s (warm, new row each render; typst compile = codes made outside the timing)")
    print(f"{'document':<12}" + "".join(f"{h:>15}" for h in heads))
    for doc, r in results.items():
        print(f"{doc:<12}" + "".join(f"{r[f'{n} pdfs/s']:>15.1f}" for n in rates))
    print("Average PDF size, KB")
    for doc, r in results.items():
        print(f"{doc:<12}" + "".join(f"{r[f'{n} kb']:>15.1f}" for n in rates))
    print(
        f"Ratios (! = below target: docbench >= {SPEED_TARGET:g} x Typst; accessible, pdf-a >= "
        f"{PROFILE_TARGET:g} x standard)"
    )
    ratio_heads = ["db/typst+qrcode", "db/typst+zxing", "db/compile", "accessible/std", "pdf-a/std"]
    print(f"{'document':<12}" + "".join(f"{h:>17}" for h in ratio_heads))
    for doc, r in results.items():
        cells = [
            flag(r["docbench/typst+qrcode"], SPEED_TARGET),
            flag(r["docbench/typst+zxing"], SPEED_TARGET),
            f"{r['docbench/typst compile']:.2f}",
            flag(r["accessible/standard"], PROFILE_TARGET),
            flag(r["pdf-a/standard"], PROFILE_TARGET),
        ]
        print(f"{doc:<12}" + "".join(f"{c:>17}" for c in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10 %% of the runs")
    parser.add_argument("--json", action="store_true", help="also print every figure as one JSON object")
    args = parser.parse_args()
    print(f"docbench vs Typst {getattr(typst, '__version__', '')} ({dt.date.today()})")
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="docbench-typst-") as workdir:
        for doc in documents():
            side = TypstSide(doc, Path(workdir))
            check(doc, side)
            runs = PDF_RUNS[doc.name] // (10 if args.quick else 1)
            results[doc.name] = measure(doc, side, runs)
    report(results)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
