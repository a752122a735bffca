"""Charts (extensions.md 15) as drawn into real PDFs: each kind's marks where its values put
them (read back as PDFium's path objects, within 1 pt of the scale its own grid lines draw),
labels as real text in reading order, no raster image, number formats like typed table
columns, a Figure with alt text (or a generated summary) in the tagged profiles, and rows
bound as a generation's value."""

import math

import pytest

from engine import ActionError, ValueBindingError, render_pdf
from engine.elements import chart
from engine.render.options import RenderOptions
from tests.pdf_checker import problems
from tests.pdf_probes import drawn_paths, page_object_types, pdf_text, poppler_text, raster_images, structure
from tests.validators import assert_passes_outloud, assert_valid_pdf_a

from ...conftest import action, add, build

BLUE = (0, 114, 178)  # the default palette's first colour, #0072B2
ORANGE = (230, 159, 0)  # its second, #E69F00
GRID = (221, 221, 221)
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May"]


def chart_design(data: dict, styles: dict | None = None, box: tuple = (40, 60, 400, 260), **extra):
    x, y, w, h = box
    return build([add("chart", "sales", {"x": x, "y": y, "w": w, "h": h}, data, styles, **extra)])


def month_rows(*series: list) -> list[dict]:
    keys = ["revenue", "cost"]
    return [
        {"month": month, **{keys[i]: values[r] for i, values in enumerate(series)}} for r, month in enumerate(MONTHS)
    ]


def revenue(kind: str, rows: list[dict], **data) -> dict:
    return {"kind": kind, "x": "month", "series": [{"key": "revenue", "label": "Revenue"}], "rows": rows, **data}


def grid_lines(pdf: bytes) -> dict:
    """The plot's extent and its horizontal grid lines' page ys (bottom up), from the grid path."""
    grid = next(path for path in drawn_paths(pdf) if path["stroke"] == GRID)
    points = grid["points"]
    ys = sorted({round(y, 3) for _, y in points})
    xs = sorted({round(x, 3) for x, _ in points})
    return {"left": xs[0], "right": xs[-1], "ys": ys, "xs": xs}


def scale(pdf: bytes, low: float, high: float):
    """value -> page y, from the lowest and highest grid lines standing for `low` and `high`."""
    ys = grid_lines(pdf)["ys"]
    return lambda value: ys[0] + (value - low) / (high - low) * (ys[-1] - ys[0])


def filled(pdf: bytes, color: tuple) -> list[dict]:
    return [path for path in drawn_paths(pdf) if path["fill"] == color]


def test_a_bars_top_edge_sits_at_its_value_and_a_missing_value_draws_no_bar():
    rows = month_rows([2, 4, None, 8, 9.5])
    pdf = render_pdf(chart_design(revenue("bar", rows, axis={"y": {"min": 0, "max": 10}}, legend="none")))
    at = scale(pdf, 0, 10)
    bars = filled(pdf, BLUE)
    assert len(bars) == 4
    for bar, value in zip(bars, [2, 4, 8, 9.5], strict=True):
        left, bottom, right, top = bar["bounds"]
        assert top == pytest.approx(at(value), abs=1)
        assert bottom == pytest.approx(at(0), abs=1)
    # Each bar in its month's band, in order.
    plot = grid_lines(pdf)
    band = (plot["right"] - plot["left"]) / 5
    for bar, index in zip(bars, [0, 1, 3, 4], strict=True):
        centre = (bar["bounds"][0] + bar["bounds"][2]) / 2
        assert centre == pytest.approx(plot["left"] + band * (index + 0.5), abs=1)


def test_a_negative_bar_hangs_from_the_zero_line():
    rows = month_rows([3, -2, 1, -4, 2])
    pdf = render_pdf(chart_design(revenue("bar", rows, axis={"y": {"min": -4, "max": 4}}, legend="none")))
    at = scale(pdf, -4, 4)
    bars = filled(pdf, BLUE)
    _, bottom, _, top = bars[1]["bounds"]
    assert top == pytest.approx(at(0), abs=1)
    assert bottom == pytest.approx(at(-2), abs=1)
    assert bars[0]["bounds"][1] == pytest.approx(at(0), abs=1)


def test_grouped_bars_stand_side_by_side_in_the_series_colours():
    rows = month_rows([2, 4, 6, 8, 10], [1, 2, 3, 4, 5])
    data = revenue("bar", rows, axis={"y": {"min": 0, "max": 10}}, legend="none")
    data["series"].append({"key": "cost", "label": "Cost"})
    pdf = render_pdf(chart_design(data))
    at = scale(pdf, 0, 10)
    blue, orange = filled(pdf, BLUE), filled(pdf, ORANGE)
    assert [b["bounds"][3] for b in orange] == pytest.approx([at(v) for v in (1, 2, 3, 4, 5)], abs=1)
    for first, second in zip(blue, orange, strict=True):
        assert first["bounds"][2] == pytest.approx(second["bounds"][0], abs=0.01)


def test_stacked_bars_stack_up_from_zero_and_negatives_down():
    rows = month_rows([2, 3, 1, 1, 1], [1, -1, 2, 2, 2])
    data = revenue("stackedBar", rows, axis={"y": {"min": -2, "max": 4}}, legend="none")
    data["series"].append({"key": "cost", "label": "Cost"})
    pdf = render_pdf(chart_design(data))
    at = scale(pdf, -2, 4)
    blue, orange = filled(pdf, BLUE), filled(pdf, ORANGE)
    assert orange[0]["bounds"][1] == pytest.approx(at(2), abs=1)
    assert orange[0]["bounds"][3] == pytest.approx(at(3), abs=1)
    assert orange[1]["bounds"][3] == pytest.approx(at(0), abs=1)
    assert orange[1]["bounds"][1] == pytest.approx(at(-1), abs=1)
    assert blue[1]["bounds"][3] == pytest.approx(at(3), abs=1)


def line_points(pdf: bytes, color: tuple) -> list[tuple[float, float]]:
    return next(path for path in drawn_paths(pdf) if path["stroke"] == color)["points"]


def test_a_lines_points_sit_at_the_band_centres_and_a_missing_value_breaks_it():
    rows = month_rows([2, 4, None, 8, 5])
    pdf = render_pdf(chart_design(revenue("line", rows, axis={"y": {"min": 0, "max": 10}}, legend="none")))
    at = scale(pdf, 0, 10)
    plot = grid_lines(pdf)
    band = (plot["right"] - plot["left"]) / 5
    points = line_points(pdf, BLUE)
    expected = [(plot["left"] + band * (i + 0.5), at(v)) for i, v in [(0, 2), (1, 4), (3, 8), (4, 5)]]
    assert len(points) == 4
    for (x, y), (ex, ey) in zip(points, expected, strict=True):
        assert x == pytest.approx(ex, abs=1)
        assert y == pytest.approx(ey, abs=1)


def test_an_area_is_filled_from_the_zero_line_up_to_its_values():
    rows = month_rows([2, 4, 6, 8, 5])
    pdf = render_pdf(chart_design(revenue("area", rows, axis={"y": {"min": 0, "max": 10}}, legend="none")))
    at = scale(pdf, 0, 10)
    fill = next(path for path in drawn_paths(pdf) if path["fill"] and path["fill"] != BLUE and path["stroke"] is None)
    ys = [round(y, 1) for _, y in fill["points"]]
    assert ys[0] == pytest.approx(at(0), abs=1)
    assert ys[1:6] == pytest.approx([at(v) for v in (2, 4, 6, 8, 5)], abs=1)
    assert line_points(pdf, BLUE)[2][1] == pytest.approx(at(6), abs=1)


def wedges(pdf: bytes) -> list[dict]:
    return [path for path in drawn_paths(pdf) if path["stroke"] == (255, 255, 255)]


def test_pie_slices_run_clockwise_from_the_top_by_their_shares():
    rows = [{"month": "A", "revenue": 50}, {"month": "B", "revenue": 25}, {"month": "C", "revenue": 25}]
    pdf = render_pdf(chart_design(revenue("pie", rows)))
    slices = wedges(pdf)
    assert len(slices) == 3
    cx, cy = slices[0]["points"][0]
    radius = math.dist((cx, cy), slices[0]["points"][1])  # the first arc starts at 12 o'clock
    for path, start in zip(slices, [90, -90, -180], strict=True):
        assert path["points"][0] == pytest.approx((cx, cy), abs=0.01)
        x, y = path["points"][1]  # where its arc starts
        assert x == pytest.approx(cx + radius * math.cos(math.radians(start)), abs=1)
        assert y == pytest.approx(cy + radius * math.sin(math.radians(start)), abs=1)
    text = pdf_text(pdf)[0]
    assert [text.index(share) for share in ("50%", "25%")] == sorted(text.index(s) for s in ("50%", "25%"))
    assert "A" in text.split() and "C" in text.split()  # the legend names the slices


def test_a_donut_has_a_hole_and_the_share_labels():
    rows = [{"month": "A", "revenue": 3}, {"month": "B", "revenue": 1}]
    pdf = render_pdf(chart_design(revenue("donut", rows, legend="none")))
    slices = wedges(pdf)
    # A (75%) starts at 12 o'clock, B at 9 o'clock: both on the outer circle.
    cx, top = slices[0]["points"][0]
    left, cy = slices[1]["points"][0]
    radius = top - cy
    assert cx - left == pytest.approx(radius, abs=0.5)
    distances = [math.dist((cx, cy), point) for path in slices for point in path["points"]]
    assert min(distances) == pytest.approx(0.55 * radius, abs=1)  # the hole's edge, nothing inside it
    text = pdf_text(pdf)[0]
    assert "A 75%" in text and "B 25%" in text


def test_scatter_points_sit_at_their_x_and_y():
    rows = [{"t": 0, "v": 2}, {"t": 5, "v": 8}, {"t": 10, "v": 5}, {"t": 7.5, "v": None}]
    data = {"kind": "scatter", "x": "t", "series": [{"key": "v"}], "rows": rows, "legend": "none"}
    data["axis"] = {"y": {"min": 0, "max": 10}}
    pdf = render_pdf(chart_design(data))
    at = scale(pdf, 0, 10)
    plot = grid_lines(pdf)
    width = plot["right"] - plot["left"]
    dots = filled(pdf, BLUE)
    assert len(dots) == 3
    for dot, (t, v) in zip(dots, [(0, 2), (5, 8), (10, 5)], strict=True):
        left, bottom, right, top = dot["bounds"]
        assert (left + right) / 2 == pytest.approx(plot["left"] + t / 10 * width, abs=1)
        assert (bottom + top) / 2 == pytest.approx(at(v), abs=1)


@pytest.mark.parametrize("kind", ["bar", "stackedBar", "line", "area", "scatter"])
def test_labels_are_text_in_reading_order_and_nothing_is_a_picture(kind):
    rows = month_rows([2, 4, 6, 8, 10], [1, 2, 3, 4, 5])
    if kind == "scatter":
        rows = [{**row, "month": index} for index, row in enumerate(rows)]
    data = {
        "kind": kind,
        "x": "month",
        "series": [{"key": "revenue", "label": "Revenue"}, {"key": "cost", "label": "Costs"}],
        "rows": rows,
        "title": "Sales by month",
        "axis": {"x": {"title": "Month of 2026"}, "y": {"title": "EUR thousands", "min": 0, "max": 10}},
        "legend": "bottom",
    }
    pdf = render_pdf(chart_design(data))
    assert raster_images(pdf) == 0
    words = pdf_text(pdf)[0].split()
    xs = ["0", "1", "2", "3", "4"] if kind == "scatter" else MONTHS
    ys = ["10", "8", "6", "4", "2", "0"]
    order = ["Sales", "EUR", *ys, *xs, "Month", "Revenue", "Costs"]
    positions = []
    for word in order:
        start = positions[-1] + 1 if positions else 0
        positions.append(words.index(word, start))
    assert positions == sorted(positions)
    assert {"Sales", "Revenue", "Costs", "EUR", "Month"} <= set(poppler_text(pdf)[0].split())


def test_number_labels_are_formatted_like_table_columns():
    rows = [{"day": "2026-01-05", "amount": 1500}, {"day": "2026-02-05", "amount": 2500}]
    data = {
        "kind": "bar",
        "x": "day",
        "series": [{"key": "amount", "dataType": "currency", "format": "¤#,##0"}],
        "rows": rows,
        "axis": {"x": {"format": "MMM y"}, "y": {"min": 0, "max": 3000}},
        "legend": "none",
    }
    text = pdf_text(render_pdf(chart_design(data)))[0]
    assert "$3,000" in text and "$1,000" in text
    assert "Jan 2026" in text and "Feb 2026" in text
    data["axis"]["y"]["format"] = "#,##0.0"
    assert "3,000.0" in pdf_text(render_pdf(chart_design(data)))[0]


def test_the_axis_takes_nice_steps_covering_the_data():
    ticks, low, high = chart.nice_ticks(0.0, 9.8, 5)
    assert [str(t) for t in ticks] == ["0", "2", "4", "6", "8", "10"]
    assert (low, high) == (0.0, 10.0)
    ticks, low, high = chart.nice_ticks(-0.13, 0.42, 5)
    assert [str(t) for t in ticks] == ["-0.2", "0.0", "0.2", "0.4", "0.6"]


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_a_chart_is_a_figure_with_its_alt_or_a_generated_summary(profile, tmp_path):
    rows = month_rows([3.2, 5, 9.8, 7, 4])
    tree = build(
        [
            add("chart", "summarised", {"x": 40, "y": 40, "w": 300, "h": 200}, revenue("bar", rows, title="Revenue")),
            add(
                "chart",
                "described",
                {"x": 40, "y": 300, "w": 300, "h": 200},
                revenue("pie", rows, alt="Revenue was highest in March"),
            ),
        ],
        title="Sales report",
    )
    pdf = render_pdf(tree, profile=profile)
    figures = [attrs.get("/Alt") for role, attrs in structure(pdf) if role == "Figure"]
    assert figures == [
        "Bar chart: Revenue; Revenue, 5 points, from 3.2 to 9.8.",
        "Revenue was highest in March",
    ]
    assert problems(pdf) == []
    path = tmp_path / f"{profile}.pdf"
    path.write_bytes(pdf)
    (assert_valid_pdf_a if profile == "pdf-a" else assert_passes_outloud)(path)


def test_a_generations_rows_replace_the_design_rows():
    tree = build(
        [add("chart", "sales", {"x": 40, "y": 60, "w": 400, "h": 260}, revenue("bar", month_rows([1, 2, 3, 4, 5])))]
        + [action("bind_variable", name="sales")]
    )
    rows = [{"month": "Q1", "revenue": "1,250.5"}, {"month": "Q2", "revenue": 900}, {"month": "Q3"}]
    text = pdf_text(render_pdf(tree, {"sales": rows}))[0]
    assert "Q1" in text and "Q3" in text and "Jan" not in text
    # A pasted CSV: its first row names the keys.
    grid = [["month", "revenue"], ["H1", "10"], ["H2", ""]]
    assert "H2" in pdf_text(render_pdf(tree, {"sales": grid}))[0]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"month": "Jan", "revenue": "lots"}], "row 1, 'revenue' must be a number (or null), got 'lots'"),
        ([{"month": "Jan", "revenue": 1}, {"revenue": 2}], "row 2 has no 'month' (data.x)"),
        ([{"month": "Jan", "revenu": 2}], "row 1: 'revenu' is neither data.x nor a series' key"),
        ([{"month": "Jan", "revenue": True}], "row 1, 'revenue' must be a number (or null), got a boolean"),
        ([{"month": "Jan", "revenue": 1}] * 1001, "1,001 rows is more than the 1,000 a chart plots"),
        ("Jan,1", "expected a list of row objects"),
    ],
)
def test_bad_rows_are_refused_naming_the_row_and_the_key(rows, message):
    tree = build(
        [add("chart", "sales", {"x": 40, "y": 60, "w": 400, "h": 260}, revenue("bar", []))]
        + [action("bind_variable", name="sales")]
    )
    with pytest.raises(ValueBindingError, match="sales") as refused:
        render_pdf(tree, {"sales": rows})
    assert message in str(refused.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"series": [{"key": "a"}, {"key": "a"}]}, "series[1].key 'a' is used twice"),
        ({"x": "a", "series": [{"key": "a"}]}, "series[0].key 'a' is data.x"),
        ({"series": [{"key": f"s{i}"} for i in range(13)]}, "at most 12 items"),
        ({"axis": {"y": {"min": 5, "max": 1}}}, "axis.y.min (5) must be below axis.y.max (1)"),
        ({"kind": "radar"}, "'bar', 'stackedBar', 'line', 'area', 'pie', 'donut' or 'scatter'"),
        ({"rows": [{"label": "x", "value": 1, "other": 2}]}, "'other' is neither data.x nor a series' key"),
    ],
)
def test_a_chart_that_cannot_be_drawn_is_refused_when_set(data, message):
    with pytest.raises(ActionError) as refused:
        build([add("chart", "c", {"x": 0, "y": 0, "w": 200, "h": 100}, data)])
    assert message in str(refused.value)


def test_a_static_chart_draws_alike_in_a_compiled_form_and_on_the_reference_path():
    """A chart no value changes is drawn into the form a design's documents share (standard
    profile, with values); the marks and the text are those of the reference path."""
    rows = month_rows([2, 4, 6, 8, 10], [1, 2, 3, 4, 5])
    data = revenue("line", rows, title="Static", axis={"y": {"min": 0, "max": 10}})
    data["series"].append({"key": "cost", "label": "Cost"})
    tree = build(
        [
            add("chart", "static", {"x": 40, "y": 60, "w": 400, "h": 260}, data),
            add("text", "who", {"x": 40, "y": 20}, {"content": "Ada"}),
            action("bind_variable", name="who"),
        ]
    )
    compiled = render_pdf(tree, {"who": "Grace"})
    reference = render_pdf(tree, {"who": "Grace"}, options=RenderOptions.reference())
    assert 5 in page_object_types(compiled)  # FPDF_PAGEOBJ_FORM: the chart is in the shared form
    assert pdf_text(compiled) == pdf_text(reference)
    drawn = [(path["fill"], path["stroke"], path["points"]) for path in drawn_paths(compiled)]
    assert drawn == [(path["fill"], path["stroke"], path["points"]) for path in drawn_paths(reference)]


def test_renaming_the_x_or_a_series_key_carries_the_design_rows_along():
    rows = month_rows([1, 2, 3, 4, 5], [5, 4, 3, 2, 1])
    data = revenue("bar", rows)
    data["series"].append({"key": "cost", "label": "Cost"})
    tree = build([add("chart", "sales", {"x": 40, "y": 60, "w": 400, "h": 260}, data)])
    renamed = [{"key": "income", "label": "Revenue"}, {"key": "cost", "label": "Cost"}]
    tree = build([action("update_element", name="sales", data={"x": "period", "series": renamed})], tree)
    node = tree.node_by_name("sales")
    assert node.data.rows[0] == {"period": "Jan", "income": 1.0, "cost": 5.0}
    # A series removed takes its key out of the rows; one added starts without values.
    tree = build([action("update_element", name="sales", data={"series": [{"key": "cost"}, {"key": "tax"}]})], tree)
    assert tree.node_by_name("sales").data.rows[1] == {"period": "Feb", "cost": 4.0}


@pytest.mark.parametrize(
    ("kind", "y", "ends"),
    [("stackedBar", {"max": 0}, (-1, 0)), ("scatter", {"max": -5}, (-10, -5)), ("bar", {"min": 12}, (12, 25))],
)
def test_one_fixed_end_beyond_the_data_opens_the_axis_away_from_it(kind, y, ends):
    rows = [{"month": index, "revenue": value} for index, value in enumerate([2, 4, 6, 8, 10])]
    _, low, high = chart.nice_ticks(0.0, 10.0, 5, y.get("min"), y.get("max"))
    assert (low, high) == ends
    pdf = render_pdf(chart_design(revenue(kind, rows, axis={"y": y}, legend="none")))
    assert len(grid_lines(pdf)["ys"]) >= 2


def test_a_value_far_beyond_a_fixed_axis_end_is_clipped_with_its_line_where_it_was():
    rows = month_rows([0, 100, 5, 1e12, 5])  # 10^12 on a 0-10 axis is no number a PDF can hold
    pdf = render_pdf(chart_design(revenue("line", rows, axis={"y": {"min": 0, "max": 10}}, legend="none")))
    at = scale(pdf, 0, 10)
    plot = grid_lines(pdf)
    band = (plot["right"] - plot["left"]) / 5
    points = line_points(pdf, BLUE)
    (x0, y0), (xc, yc) = points[:2]
    assert (x0, y0) == pytest.approx((plot["left"] + band / 2, at(0)), abs=1)
    # The segment towards 100 leaves the plot on its true slope, then runs along a limit.
    assert yc > at(10)
    assert xc == pytest.approx(x0 + band * (yc - y0) / (at(100) - at(0)), abs=0.05)
    assert max(y for _, y in points) == pytest.approx(yc)
    # A tiny range under a fixed end, and a huge value: no coordinate past what a PDF holds.
    tiny = month_rows([-1e-9, 1e15, 0, 1, -1e-10])
    for kind in ("line", "area", "bar", "stackedBar"):
        drawn = drawn_paths(render_pdf(chart_design(revenue(kind, tiny, axis={"y": {"max": 0}}, legend="none"))))
        assert all(abs(y) < 14_400 for path in drawn for _, y in path["points"]), kind


def test_a_pies_legend_names_its_slices_in_the_designs_language():
    rows = [{"day": "2026-03-05", "amount": 1500}, {"day": "2026-05-05", "amount": 2500}]
    data = {"kind": "pie", "x": "day", "series": [{"key": "amount"}], "rows": rows, "legend": "right"}
    data["axis"] = {"x": {"format": "MMMM"}}
    tree = build([action("set_metadata", language="de")], chart_design(data))
    text = pdf_text(render_pdf(tree))[0]
    assert "März" in text and "March" not in text
