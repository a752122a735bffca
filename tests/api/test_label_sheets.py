"""Label sheets (extensions.md 14): a batch's `sheet` places each row's page in the next cell of
a preset or explicit sheet, downloaded as one PDF of sheets; GET /sheets lists the presets.

Over real HTTP against a real `docbench serve` (embedded pool; one test on RQ with a real
redis-server and `docbench worker`). Cells are worked out here from the manufacturers'
published figures, not from the engine's table, so a wrong preset fails.
"""

from __future__ import annotations

import io
import zipfile

import httpx
import pytest

from tests.mcp_calls import failed, ok, run
from tests.pdf_probes import page_count, page_sizes, placed_forms, stroked_segments, word_box

from ..server import RedisServer, Server, Worker

MM = 72 / 25.4
A4 = (595.276, 841.89)
LETTER = (612.0, 792.0)
# Avery L7160 as Avery publishes it: 63.5 × 38.1 mm labels, 3 across and 7 down, the first
# 15.15 mm from the top and 7.25 mm from the left, 66.0 mm across and 38.1 mm down between labels.
L7160 = {"w": 63.5 * MM, "h": 38.1 * MM, "top": 15.15 * MM, "left": 7.25 * MM, "px": 66.0 * MM, "py": 38.1 * MM}
# The published figures of every preset asked for (unit, label w × h, columns × rows, top, left margin,
# horizontal and vertical pitch): Avery UK/EU template specifications, Avery US templates, HERMA.
PUBLISHED = {
    "L7160": ("A4", "mm", 63.5, 38.1, 3, 7, 15.15, 7.25, 66.0, 38.1),
    "L7161": ("A4", "mm", 63.5, 46.6, 3, 6, 8.7, 7.25, 66.0, 46.6),
    "L7163": ("A4", "mm", 99.1, 38.1, 2, 7, 15.15, 4.65, 101.6, 38.1),
    "L7651": ("A4", "mm", 38.1, 21.2, 5, 13, 10.7, 4.75, 40.6, 21.2),
    "L7173": ("A4", "mm", 99.1, 57.0, 2, 5, 6.0, 4.65, 101.6, 57.0),
    "5160": ("Letter", "in", 2.625, 1.0, 3, 10, 0.5, 0.1875, 2.75, 1.0),
    "5161": ("Letter", "in", 4.0, 1.0, 2, 10, 0.5, 0.15625, 4.1875, 1.0),
    "5163": ("Letter", "in", 4.0, 2.0, 2, 5, 0.5, 0.15625, 4.1875, 2.0),
    "5164": ("Letter", "in", 4.0, 10 / 3, 2, 3, 0.5, 0.15625, 4.1875, 10 / 3),
    "5167": ("Letter", "in", 1.75, 0.5, 4, 20, 0.5, 0.28125, 2.0625, 0.5),
    "4474": ("A4", "mm", 70.0, 32.0, 3, 9, 4.5, 0.0, 70.0, 32.0),
}


def label_design(client, width: float = L7160["w"], height: float = L7160["h"]) -> str:
    """A label of `width` × `height` points with one text bound to `name`."""
    design_id = client.data(client.post("/designs", json={"name": "Label"}), 201)["designId"]
    actions = [
        {"type": "update_page", "args": {"page": 0, "width": width, "height": height}},
        {
            "type": "add_element",
            "args": {"type": "text", "name": "name", "position": {"x": 10, "y": 10}, "data": {"content": "Sample"}},
        },
        {"type": "bind_variable", "args": {"name": "name"}},
    ]
    client.data(client.patch(f"/designs/{design_id}/tree", json={"actions": actions}), 200)
    return design_id


def labels(count: int) -> list[dict]:
    return [{"name": f"Label{i:02d}"} for i in range(count)]


def ended(client, job_id: str) -> dict:
    job = client.ended_batch(job_id)
    assert job["status"] == "completed", client.get(f"/batches/{job_id}/rows").text
    return job


def download(client, job_id: str, query: str = "") -> httpx.Response:
    url = client.data(client.get(f"/batches/{job_id}/download{query}"), 200)["downloadUrl"]
    response = httpx.get(url)
    assert response.status_code == 200
    return response


def credits(client) -> int:
    return client.data(client.get("/me"), 200)["credits"]


def l7160_cell(index: int) -> tuple[float, float, float, float]:
    """Cell `index` of a sheet (0 top-left, across then down), (left, bottom, right, top) in PDF points."""
    row, column = divmod(index % 21, 3)
    left = L7160["left"] + column * L7160["px"]
    top = A4[1] - L7160["top"] - row * L7160["py"]
    return left, top - L7160["h"], left + L7160["w"], top


def within(box, cell, tolerance: float = 0.5) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(box, cell, strict=True))


def inside(box, cell) -> bool:
    return cell[0] <= box[0] and box[2] <= cell[2] and cell[1] <= box[1] and box[3] <= cell[3]


def check_thirty_labels_on_l7160(pdf: bytes) -> None:
    assert page_count(pdf) == 2
    assert all(abs(w - A4[0]) < 0.5 and abs(h - A4[1]) < 0.5 for w, h in page_sizes(pdf))
    placed = placed_forms(pdf, 0) + placed_forms(pdf, 1)
    assert len(placed) == 30
    for index in range(30):
        cell = l7160_cell(index)
        assert within(placed[index], cell), (index, placed[index], cell)
        text = word_box(pdf, f"Label{index:02d}", page=index // 21)
        assert inside(text, cell), (index, text, cell)


def test_thirty_rows_on_l7160_are_two_sheets_with_every_label_in_its_cell(alpha):
    design_id = label_design(alpha)
    before = credits(alpha)
    body = {"rows": labels(30), "sheet": {"preset": "L7160"}}
    job_id = alpha.data(alpha.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
    assert ended(alpha, job_id)["completed"] == 30
    assert credits(alpha) == before - 30  # a credit a label, as a row
    response = download(alpha, job_id)
    assert response.headers["Content-Type"] == "application/pdf"
    check_thirty_labels_on_l7160(response.content)
    message = alpha.error(alpha.get(f"/batches/{job_id}/download?rows=true"), 404, "NOT_FOUND")
    assert "keepRows: true" in message
    message = alpha.error(alpha.get(f"/batches/{job_id}/download?merged=true"), 404, "NOT_FOUND")
    assert "label sheets" in message


def test_keep_rows_also_keeps_the_zip_of_every_rows_pdf(alpha):
    design_id = label_design(alpha)
    body = {"rows": labels(4), "sheet": {"preset": "l7160"}, "keepRows": True}
    job_id = alpha.data(alpha.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
    ended(alpha, job_id)
    sheets = download(alpha, job_id).content
    assert page_count(sheets) == 1 and len(placed_forms(sheets)) == 4
    archive = zipfile.ZipFile(io.BytesIO(download(alpha, job_id, "?rows=true").content))
    assert archive.namelist() == [f"row-{i:04d}.pdf" for i in range(1, 5)]
    assert page_sizes(archive.read("row-0003.pdf")) == [pytest.approx((L7160["w"], L7160["h"]), abs=0.01)]


def test_a_page_larger_than_the_label_is_refused_naming_both_sizes_and_costs_nothing(alpha):
    design_id = label_design(alpha, width=200, height=100)  # 200 pt is wider than 63.5 mm (180 pt)
    before = credits(alpha)
    response = alpha.post(f"/designs/{design_id}/batch", json={"rows": labels(3), "sheet": {"preset": "L7160"}})
    message = alpha.error(response, 400, "VALIDATION_ERROR")
    assert "200 × 100 pt" in message and "180 × 108 pt" in message
    assert credits(alpha) == before


def test_unknown_presets_and_impossible_or_clashing_sheets_are_refused(alpha):
    design_id = label_design(alpha)
    before = credits(alpha)

    def refused(body: dict) -> str:
        return alpha.error(
            alpha.post(f"/designs/{design_id}/batch", json={"rows": labels(2), **body}), 400, "VALIDATION_ERROR"
        )

    message = refused({"sheet": {"preset": "L9999"}})
    assert "'L9999'" in message and all(name in message for name in PUBLISHED)
    assert "not both" in refused({"sheet": {"preset": "L7160", "columns": 3}})
    assert "paper, columns, rows missing" in refused({"sheet": {"marginTop": 10}})
    assert "no room" in refused({"sheet": {"paper": "A4", "columns": 3, "rows": 7, "marginLeft": 400}})
    assert "leave out merge" in refused({"sheet": {"preset": "L7160"}, "merge": True})
    assert 'output format "png"' in refused({"sheet": {"preset": "L7160"}, "output": {"format": "png"}})
    assert "keepRows" in refused({"keepRows": True})
    assert credits(alpha) == before


def test_get_sheets_lists_every_preset_as_published_and_in_points(alpha):
    sheets = {entry["name"]: entry for entry in alpha.data(alpha.get("/sheets"), 200)["sheets"]}
    assert set(PUBLISHED) <= set(sheets)
    for name, (paper, unit, w, h, columns, rows, top, left, pitch_x, pitch_y) in PUBLISHED.items():
        entry = sheets[name]
        scale = MM if unit == "mm" else 72.0
        assert (entry["paper"], entry["columns"], entry["rows"]) == (paper, columns, rows), name
        assert entry["published"] == pytest.approx(
            {
                "unit": unit,
                "labelWidth": w,
                "labelHeight": h,
                "marginTop": top,
                "marginLeft": left,
                "pitchX": pitch_x,
                "pitchY": pitch_y,
            }
        ), name
        paper_w, paper_h = A4 if paper == "A4" else LETTER
        assert (entry["paperWidth"], entry["paperHeight"]) == pytest.approx((paper_w, paper_h), abs=0.01)
        # Points derived from the published figures; pitch = label + gap.
        assert entry["labelWidth"] == pytest.approx(w * scale, abs=0.01), name
        assert entry["labelHeight"] == pytest.approx(h * scale, abs=0.01), name
        assert entry["marginTop"] == pytest.approx(top * scale, abs=0.01), name
        assert entry["labelWidth"] + entry["gapX"] == pytest.approx(pitch_x * scale, abs=0.01), name
        assert entry["labelHeight"] + entry["gapY"] == pytest.approx(pitch_y * scale, abs=0.01), name
        # Every cell on the paper, the grid centred on it as the sheets are cut (within 0.5 mm).
        right = left + (columns - 1) * pitch_x + w
        bottom = top + (rows - 1) * pitch_y + h
        paper_w_unit, paper_h_unit = paper_w / scale, paper_h / scale
        assert right <= paper_w_unit + 1e-6 and bottom <= paper_h_unit + 1e-6, name
        assert abs((paper_w_unit - right) - left) * scale <= 0.5 * MM, name
        assert abs((paper_h_unit - bottom) - top) * scale <= 0.5 * MM, name
        assert entry["labelsPerSheet"] == columns * rows


def test_an_explicit_sheet_shares_the_paper_and_draws_cut_marks_outside_the_labels(alpha):
    # 2 × 3 on A4 with 36 pt margins and 18 pt gaps: cells (595.3 - 72 - 18) / 2 = 252.6 wide,
    # (841.9 - 72 - 36) / 3 = 244.6 high.
    sheet = {"paper": "A4", "columns": 2, "rows": 3, "marginTop": 36, "marginLeft": 36, "gapX": 18, "gapY": 18}
    design_id = label_design(alpha, width=200, height=200)
    job_id = alpha.data(
        alpha.post(f"/designs/{design_id}/batch", json={"rows": labels(5), "sheet": {**sheet, "cutMarks": True}}), 202
    )["jobId"]
    ended(alpha, job_id)
    pdf = download(alpha, job_id).content
    cell_w, cell_h = (A4[0] - 72 - 18) / 2, (A4[1] - 72 - 36) / 3
    cells = []
    for index in range(5):
        row, column = divmod(index, 2)
        left, top = 36 + column * (cell_w + 18), A4[1] - 36 - row * (cell_h + 18)
        cells.append((left, top - cell_h, left + cell_w, top))
    placed = placed_forms(pdf)
    for box, cell in zip(placed, cells, strict=True):  # a smaller page is centred in its cell
        centre = ((cell[0] + cell[2]) / 2, (cell[1] + cell[3]) / 2)
        assert within(box, (centre[0] - 100, centre[1] - 100, centre[0] + 100, centre[1] + 100))
    marks = stroked_segments(pdf)
    assert len(marks) >= 4 * 5
    for x0, y0, x1, y1 in marks:
        for cell in cells:  # no mark enters a label
            assert max(x0, x1) <= cell[0] or min(x0, x1) >= cell[2] or max(y0, y1) <= cell[1] or min(y0, y1) >= cell[3]
    # Without cutMarks the sheet strokes nothing of its own.
    plain = alpha.data(alpha.post(f"/designs/{design_id}/batch", json={"rows": labels(1), "sheet": sheet}), 202)
    ended(alpha, plain["jobId"])
    assert stroked_segments(download(alpha, plain["jobId"]).content) == []


def test_mcp_lists_sheets_and_submits_a_sheet_batch(api_server, alpha):
    design_id = label_design(alpha)
    key = api_server.workspaces["alpha"][1]

    async def script(session):
        listed = ok(await session.call_tool("list_sheets", {}))
        submitted = ok(
            await session.call_tool(
                "submit_batch", {"designId": design_id, "rows": labels(3), "sheet": {"preset": "L7160"}}
            )
        )
        refused = failed(
            await session.call_tool(
                "submit_batch", {"designId": design_id, "rows": labels(1), "sheet": {"preset": "nope"}}
            ),
            "VALIDATION_ERROR",
        )
        return listed, submitted, refused

    listed, submitted, refused = run(api_server, key, script)
    assert "L7160" in {entry["name"] for entry in listed["sheets"]}
    assert "the presets are L7160" in refused
    ended(alpha, submitted["jobId"])
    assert len(placed_forms(download(alpha, submitted["jobId"]).content)) == 3


@pytest.mark.slow
def test_thirty_labels_on_l7160_through_rq_workers(tmp_path):
    redis = RedisServer(tmp_path)
    server = Server(tmp_path, args=("--redis-url", redis.url)).start()
    worker = Worker(redis.url, tmp_path)
    try:
        key = server.read_key()
        with server.client(key) as client:
            design_id = label_design(client)
            body = {"rows": labels(30), "sheet": {"preset": "L7160"}, "keepRows": True}
            job_id = client.data(client.post(f"/designs/{design_id}/batch", json=body), 202)["jobId"]
            ended(client, job_id)
            check_thirty_labels_on_l7160(download(client, job_id).content)
            assert len(zipfile.ZipFile(io.BytesIO(download(client, job_id, "?rows=true").content)).namelist()) == 30
    finally:
        worker.stop()
        server.stop()
        redis.stop()


def test_a_sheet_preview_shows_the_design_in_every_label_for_free(alpha):
    from PIL import Image

    design_id = label_design(alpha)
    before = credits(alpha)
    preview = alpha.data(alpha.post(f"/designs/{design_id}/sheet-preview", json={"sheet": {"preset": "L7160"}}), 200)
    assert preview["labelsPerSheet"] == 21 and preview["labelWidth"] == pytest.approx(L7160["w"], abs=0.01)
    image = Image.open(io.BytesIO(httpx.get(preview["previewUrl"]).content)).convert("L")
    assert abs(image.size[0] - A4[0]) <= 1 and abs(image.size[1] - A4[1]) <= 1  # A4 at 72 dpi: a pixel a point
    for index in range(21):  # the design-time "Sample" in each label's top-left corner
        left, bottom, right, top = l7160_cell(index)
        corner = image.crop((round(left), round(A4[1] - top), round(left) + 60, round(A4[1] - top) + 30))
        assert corner.getextrema()[0] < 128, index
    assert image.crop((0, 0, 595, 30)).getextrema()[0] > 250  # the top margin stays blank
    assert credits(alpha) == before
    too_big = label_design(alpha, width=200, height=100)
    response = alpha.post(f"/designs/{too_big}/sheet-preview", json={"sheet": {"preset": "L7160"}})
    assert "200 × 100 pt" in alpha.error(response, 400, "VALIDATION_ERROR")
