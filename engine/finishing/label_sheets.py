"""Label sheets (extensions.md 14, a batch's `sheet`): every row's page placed in the next cell
of a sheet, left to right, top to bottom, as many sheets as the labels need.

A sheet is given by a preset (`{"preset": "L7160"}`: a manufacturer's published geometry) or
explicitly, in points: `{paper, columns, rows, marginTop, marginLeft, gapX, gapY}`. Explicit
sheets are symmetric, as label sheets are made: the margin on the right equals `marginLeft`,
the one at the bottom `marginTop`, and the columns and rows share what is left, so a cell is
(paper width - 2 × marginLeft - (columns - 1) × gapX) / columns wide.

Pages are placed as they are, never scaled or rasterised: each becomes a form XObject,
centred in its cell, text in it still text. The engine's own PDFs (a batch's rows) are spliced
byte by byte (engine.pdf.splice); any other PDF goes through pikepdf (qpdf's object copy).
A row of several pages takes a cell per page, in order. `cutMarks` draws thin crop marks at
the cells' corners, outside the cells, only where the gap or margin leaves room for them.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterable
from dataclasses import dataclass

import pikepdf
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..design.paper import PAPER_SIZES, PaperSize, shown_points
from ..errors import EngineError, LimitExceeded
from ..media.pdf_pages import visible_box
from ..pdf.splice import SplicedDocument, SplicedPage

MM = 72 / 25.4
INCH = 72.0
UNITS = {"mm": MM, "in": INCH}
MAX_CELLS = 400  # columns × rows of one sheet: an L7651 has 65, the densest common sheets ~200
MARK_LENGTH = 8.5  # points (3 mm): long enough to cut along, short enough for a 2.5 mm gap's half
MARK_OFFSET = 1.5  # points between a cell's corner and its marks: a mark never touches a label
MARK_WIDTH = 0.25  # points: a hairline that a guillotine blade covers


@dataclass(frozen=True)
class SheetPreset:
    """A label sheet as its manufacturer publishes it, in the published unit (mm or in):
    label size, the first label's distance from the paper's top and left edges, and the pitch
    (label plus gap) across and down. Points are derived (`geometry`), never stored."""

    name: str
    brand: str
    description: str
    paper: PaperSize
    unit: str  # "mm" or "in", as published
    label_width: float
    label_height: float
    columns: int
    rows: int
    margin_top: float
    margin_left: float
    pitch_x: float
    pitch_y: float

    def geometry(self) -> SheetGeometry:
        scale = UNITS[self.unit]
        width, height = PAPER_SIZES[self.paper]
        return SheetGeometry(
            paper=self.paper,
            paper_width=width,
            paper_height=height,
            columns=self.columns,
            rows=self.rows,
            margin_top=self.margin_top * scale,
            margin_left=self.margin_left * scale,
            cell_width=self.label_width * scale,
            cell_height=self.label_height * scale,
            pitch_x=self.pitch_x * scale,
            pitch_y=self.pitch_y * scale,
        )

    def public(self) -> dict:
        """GET /sheets' entry: the published figures and the same in points."""
        geometry = self.geometry()
        return {
            "name": self.name,
            "brand": self.brand,
            "description": self.description,
            "paper": self.paper,
            "columns": self.columns,
            "rows": self.rows,
            "labelsPerSheet": self.columns * self.rows,
            "published": {
                "unit": self.unit,
                "labelWidth": self.label_width,
                "labelHeight": self.label_height,
                "marginTop": self.margin_top,
                "marginLeft": self.margin_left,
                "pitchX": self.pitch_x,
                "pitchY": self.pitch_y,
            },
            **geometry.public(),
        }


# The manufacturers' template specifications (label size, top and side margin, horizontal and
# vertical pitch). Where a product page rounds a margin to 0.1 mm the figure here is the one
# that makes the sheet symmetric (the grid centred on the paper), as the sheets are cut.
# fmt: off
PRESETS: dict[str, SheetPreset] = {
    preset.name: preset
    for preset in (
        # name, brand, description, paper, unit, label w, h, columns, rows, top, left, pitch x, y
        SheetPreset("L7160", "Avery", "Address labels, 21 a sheet", "A4", "mm", 63.5, 38.1, 3, 7, 15.15, 7.25, 66.0, 38.1),  # noqa: E501
        SheetPreset("L7161", "Avery", "Address labels, 18 a sheet", "A4", "mm", 63.5, 46.6, 3, 6, 8.7, 7.25, 66.0, 46.6),  # noqa: E501
        SheetPreset("L7163", "Avery", "Address labels, 14 a sheet", "A4", "mm", 99.1, 38.1, 2, 7, 15.15, 4.65, 101.6, 38.1),  # noqa: E501
        SheetPreset("L7173", "Avery", "Shipping labels, 10 a sheet", "A4", "mm", 99.1, 57.0, 2, 5, 6.0, 4.65, 101.6, 57.0),  # noqa: E501
        SheetPreset("L7651", "Avery", "Mini labels, 65 a sheet", "A4", "mm", 38.1, 21.2, 5, 13, 10.7, 4.75, 40.6, 21.2),
        SheetPreset("5160", "Avery", "Address labels, 30 a sheet", "Letter", "in", 2.625, 1, 3, 10, 0.5, 0.1875, 2.75, 1),  # noqa: E501
        SheetPreset("5161", "Avery", "Address labels, 20 a sheet", "Letter", "in", 4, 1, 2, 10, 0.5, 0.15625, 4.1875, 1),  # noqa: E501
        SheetPreset("5163", "Avery", "Shipping labels, 10 a sheet", "Letter", "in", 4, 2, 2, 5, 0.5, 0.15625, 4.1875, 2),  # noqa: E501
        SheetPreset("5164", "Avery", "Shipping labels, 6 a sheet", "Letter", "in", 4, 10 / 3, 2, 3, 0.5, 0.15625, 4.1875, 10 / 3),  # noqa: E501
        SheetPreset("5167", "Avery", "Return address labels, 80 a sheet", "Letter", "in", 1.75, 0.5, 4, 20, 0.5, 0.28125, 2.0625, 0.5),  # noqa: E501
        SheetPreset("4474", "Herma", "Address labels, 27 a sheet", "A4", "mm", 70.0, 32.0, 3, 9, 4.5, 0.0, 70.0, 32.0),
    )
}
# fmt: on


@dataclass(frozen=True)
class SheetGeometry:
    """Where the cells of a sheet are, in points from the paper's top-left corner."""

    paper: str
    paper_width: float
    paper_height: float
    columns: int
    rows: int
    margin_top: float
    margin_left: float
    cell_width: float
    cell_height: float
    pitch_x: float
    pitch_y: float

    @property
    def cells(self) -> int:
        return self.columns * self.rows

    @property
    def gap_x(self) -> float:
        return self.pitch_x - self.cell_width

    @property
    def gap_y(self) -> float:
        return self.pitch_y - self.cell_height

    def cell(self, index: int) -> tuple[float, float, float, float]:
        """Cell `index` of a sheet (0 top-left, then across): (left, bottom, right, top) in PDF
        coordinates (points from the bottom-left corner)."""
        row, column = divmod(index % self.cells, self.columns)
        left = self.margin_left + column * self.pitch_x
        top = self.paper_height - self.margin_top - row * self.pitch_y
        return left, top - self.cell_height, left + self.cell_width, top

    def public(self) -> dict:
        return {
            "paperWidth": round(self.paper_width, 3),
            "paperHeight": round(self.paper_height, 3),
            "labelWidth": round(self.cell_width, 3),
            "labelHeight": round(self.cell_height, 3),
            "marginTop": round(self.margin_top, 3),
            "marginLeft": round(self.margin_left, 3),
            "gapX": round(self.gap_x, 3),
            "gapY": round(self.gap_y, 3),
        }

    def check_page(self, width: float, height: float, where: str = "the design's page") -> None:
        """EngineError naming both sizes when a page of `width` × `height` points is larger than a cell."""
        slack = 0.01  # points: a size that went through millimetres is rarely exact
        if width <= self.cell_width + slack and height <= self.cell_height + slack:
            return
        raise EngineError(
            f"sheet: {where} is {shown_points(width)} × {shown_points(height)} pt and a label of this sheet is "
            f"{shown_points(self.cell_width)} × {shown_points(self.cell_height)} pt: make the page at most the "
            "label's size (update_page width and height), or choose a sheet with larger labels"
        )


class LabelSheet(BaseModel):
    """A batch's `sheet` (extensions.md 14): a preset, or the geometry in points."""

    model_config = ConfigDict(extra="forbid")

    preset: str = Field(None, description="A preset's name from GET /sheets (L7160, 5160, …); not with the geometry")
    paper: PaperSize = Field(None, description="The sheet's paper (portrait): A4, A3, A5, Letter or Legal")
    columns: int = Field(None, ge=1, le=50, description="Labels across")
    rows: int = Field(None, ge=1, le=100, description="Labels down")
    marginTop: float = Field(
        None, ge=0, description="Points from the paper's top edge to the first row (and below the last)"
    )
    marginLeft: float = Field(
        None, ge=0, description="Points from the paper's left edge to the first column (and after the last)"
    )
    gapX: float = Field(None, ge=0, description="Points between two labels side by side (default 0)")
    gapY: float = Field(None, ge=0, description="Points between two labels one above the other (default 0)")
    cutMarks: bool = Field(None, description="Thin crop marks at the labels' corners, outside the labels")

    @model_validator(mode="after")
    def _preset_or_geometry(self) -> LabelSheet:
        given = [name for name in GEOMETRY_KEYS if getattr(self, name) is not None]
        if self.preset is not None:
            if given:
                raise ValueError(f"give a preset or the geometry, not both: leave out {', '.join(given)}, or preset")
            return self
        missing = [name for name in ("paper", "columns", "rows") if getattr(self, name) is None]
        if missing:
            raise ValueError(f"give a preset (GET /sheets lists them), or the geometry: {', '.join(missing)} missing")
        return self

    def geometry(self) -> SheetGeometry:
        """The cells, in points; EngineError for an unknown preset (naming the presets) or cells that do not fit."""
        if self.preset is not None:
            found = preset_named(self.preset)
            return found.geometry()
        assert self.paper is not None and self.columns is not None and self.rows is not None
        if self.columns * self.rows > MAX_CELLS:
            raise EngineError(
                f"sheet: {self.columns} × {self.rows} labels on a sheet; at most {MAX_CELLS}: use fewer columns or rows"
            )
        width, height = PAPER_SIZES[self.paper]
        top, left = self.marginTop or 0.0, self.marginLeft or 0.0
        gap_x, gap_y = self.gapX or 0.0, self.gapY or 0.0
        cell_width = (width - 2 * left - (self.columns - 1) * gap_x) / self.columns
        cell_height = (height - 2 * top - (self.rows - 1) * gap_y) / self.rows
        if cell_width < 1 or cell_height < 1:
            raise EngineError(
                f"sheet: {self.columns} columns and {self.rows} rows with these margins and gaps leave no room "
                f"for labels on {self.paper} ({shown_points(width)} × {shown_points(height)} pt): "
                "make the margins or gaps smaller, or use fewer columns or rows"
            )
        return SheetGeometry(
            paper=self.paper,
            paper_width=width,
            paper_height=height,
            columns=self.columns,
            rows=self.rows,
            margin_top=top,
            margin_left=left,
            cell_width=cell_width,
            cell_height=cell_height,
            pitch_x=cell_width + gap_x,
            pitch_y=cell_height + gap_y,
        )


GEOMETRY_KEYS = ("paper", "columns", "rows", "marginTop", "marginLeft", "gapX", "gapY")


def preset_named(name: str) -> SheetPreset:
    """The preset called `name` (case and an "Avery"/"Herma" prefix aside), or EngineError naming the presets."""
    key = name.strip().upper().removeprefix("AVERY").removeprefix("HERMA").strip()
    for preset in PRESETS.values():
        if preset.name.upper() == key:
            return preset
    raise EngineError(f"sheet: no preset '{name}'; the presets are {', '.join(PRESETS)} (GET /sheets)")


def label_sheets(
    documents: Iterable[bytes], geometry: SheetGeometry, cut_marks: bool = False, max_bytes: int | None = None
) -> bytes:
    """One PDF of sheets: each document's pages, in order, in the next cell (left to right, top
    to bottom), centred in it. EngineError when a page is larger than a cell; LimitExceeded
    when the result would be more than `max_bytes`.

    PDFs as the engine writes them are spliced (engine.pdf.splice: their objects' bytes copied,
    four times faster); any other goes through pikepdf, and then all of them do."""
    documents = list(documents)
    spliced = [SplicedPage.read(data) for data in documents]
    if all(pages is not None for pages in spliced):
        data = _spliced_sheets(spliced, geometry, cut_marks)  # type: ignore[arg-type]
    else:
        data = _pikepdf_sheets(documents, geometry, cut_marks)
    if max_bytes is not None and len(data) > max_bytes:
        raise LimitExceeded(
            f"the label sheets would be {len(data) / 1e6:.1f} MB; documents are limited to {max_bytes / 1e6:g} MB"
        )
    return data


def _placing(geometry: SheetGeometry, slot: int, box: tuple[float, float, float, float], number: int) -> bytes:
    """The content that draws a page of `box` (a form named /L<slot>) centred in cell `slot`;
    EngineError when it is larger than the cell (`number`: the page's in its row)."""
    x0, y0, x1, y1 = box
    geometry.check_page(x1 - x0, y1 - y0, f"a row's page {number}")
    left, bottom, right, top = geometry.cell(slot)
    dx = left + (right - left - (x1 - x0)) / 2 - x0
    dy = bottom + (top - bottom - (y1 - y0)) / 2 - y0
    return f"q 1 0 0 1 {dx:.4f} {dy:.4f} cm /L{slot} Do Q\n".encode()


def _sheet_content(geometry: SheetGeometry, placed: list[bytes], cut_marks: bool) -> bytes:
    """A sheet's content stream, compressed: its labels, then their cut marks."""
    marks = [_cut_marks(geometry, len(placed) - 1)] if cut_marks else []
    return zlib.compress(b"".join(placed + marks))


def _spliced_sheets(spliced: list[list[SplicedPage]], geometry: SheetGeometry, cut_marks: bool) -> bytes:
    out = SplicedDocument()
    forms: dict[str, int] = {}
    placed: list[bytes] = []
    count = 0
    for pages in spliced:
        for number, page in enumerate(pages, 1):
            slot = count % geometry.cells
            if slot == 0 and placed:
                out.add_page(
                    geometry.paper_width, geometry.paper_height, forms, _sheet_content(geometry, placed, cut_marks)
                )
                forms, placed = {}, []
            placed.append(_placing(geometry, slot, page.box, number))
            forms[f"/L{slot}"] = out.add_form(page)
            count += 1
    if not placed:
        raise EngineError("sheet: there are no pages to place")
    out.add_page(geometry.paper_width, geometry.paper_height, forms, _sheet_content(geometry, placed, cut_marks))
    return out.bytes()


def _pikepdf_sheets(documents: list[bytes], geometry: SheetGeometry, cut_marks: bool) -> bytes:
    sheets = pikepdf.new()
    sources: list[pikepdf.Pdf] = []  # kept open until saved: placed forms refer to their objects
    page: pikepdf.Page | None = None
    placed: list[bytes] = []
    count = 0
    for data in documents:
        source = pikepdf.open(io.BytesIO(data))
        sources.append(source)
        for number, source_page in enumerate(source.pages, start=1):
            slot = count % geometry.cells
            if slot == 0:
                if page is not None:
                    page.Contents = sheets.make_stream(
                        _sheet_content(geometry, placed, cut_marks), Filter=pikepdf.Name.FlateDecode
                    )
                placed = []
                page = sheets.add_blank_page(page_size=(geometry.paper_width, geometry.paper_height))
                page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary())
            assert page is not None
            form = _form(sheets, source, source_page)
            box = tuple(float(v) for v in form.BBox)
            placed.append(_placing(geometry, slot, box, number))  # type: ignore[arg-type]
            page.Resources.XObject[f"/L{slot}"] = form
            count += 1
    if page is None:
        raise EngineError("sheet: there are no pages to place")
    page.Contents = sheets.make_stream(_sheet_content(geometry, placed, cut_marks), Filter=pikepdf.Name.FlateDecode)
    out = io.BytesIO()
    # The placed streams are copied as they were compressed, never decoded and compressed again
    # (that doubled the time of a 210-label batch's sheets); the sheets' own streams are
    # compressed when made.
    sheets.save(out, compress_streams=False, stream_decode_level=pikepdf.StreamDecodeLevel.none)
    for source in sources:
        source.close()
    return out.getvalue()


def _form(sheets: pikepdf.Pdf, source: pikepdf.Pdf, page: pikepdf.Page) -> pikepdf.Stream:
    """`page` as a form XObject of `sheets`. A page of one content stream, upright, at unit scale
    (what the engine writes) becomes one by copying that stream's compressed bytes as they are
    and giving it the page's box and resources; any other page goes through qpdf's conversion,
    which decodes and joins its streams (measured: three times slower for a label)."""
    own = page.obj
    contents = own.get("/Contents")
    if (
        isinstance(contents, pikepdf.Stream)
        and "/Resources" in own
        and int(own.get("/Rotate", 0)) % 360 == 0
        and "/UserUnit" not in own
    ):
        # Made a form in its own document, then copied over in one call (each copy_foreign
        # walks what it copies: one walk a label, not two).
        contents.Type = pikepdf.Name.XObject
        contents.Subtype = pikepdf.Name.Form
        contents.BBox = pikepdf.Array(visible_box(page))  # corners in order, within the MediaBox
        contents.Resources = own.Resources
        return sheets.copy_foreign(contents)
    return sheets.copy_foreign(page.as_form_xobject(handle_transformations=True))


def _cut_marks(geometry: SheetGeometry, last: int) -> bytes:
    """Crop marks for the cells 0..last of a sheet: at each corner a short line across and one
    down, pointing away from the cell and kept out of every cell (a mark is drawn only where the
    gap or margin is wide enough; between two cells each gets half the gap)."""
    lines: list[tuple[float, float, float, float]] = []
    for index in range(last + 1):
        row, column = divmod(index, geometry.columns)
        left, bottom, right, top = geometry.cell(index)
        room_left = geometry.margin_left if column == 0 else geometry.gap_x / 2
        room_right = geometry.paper_width - right if column == geometry.columns - 1 else geometry.gap_x / 2
        room_top = geometry.margin_top if row == 0 else geometry.gap_y / 2
        room_bottom = bottom if row == geometry.rows - 1 else geometry.gap_y / 2
        for x, room, direction in ((left, room_left, -1), (right, room_right, 1)):
            length = min(MARK_LENGTH, room - MARK_OFFSET)
            if length >= 2:
                start = x + direction * MARK_OFFSET
                end = x + direction * (MARK_OFFSET + length)
                lines += [(start, top, end, top), (start, bottom, end, bottom)]
        for y, room, direction in ((top, room_top, 1), (bottom, room_bottom, -1)):
            length = min(MARK_LENGTH, room - MARK_OFFSET)
            if length >= 2:
                start = y + direction * MARK_OFFSET
                end = y + direction * (MARK_OFFSET + length)
                lines += [(left, start, left, end), (right, start, right, end)]
    if not lines:
        return b""
    path = "".join(f"{x0:.3f} {y0:.3f} m {x1:.3f} {y1:.3f} l " for x0, y0, x1, y1 in lines)
    return f"q 0 G {MARK_WIDTH} w [] 0 d {path}S Q\n".encode()


__all__ = ["PRESETS", "LabelSheet", "SheetGeometry", "SheetPreset", "label_sheets", "preset_named"]
