"""Fitting and overflow of text (extensions.md 2): maxHeight, maxLines, fit "shrink" with
minFontSize, and overflow visible | ellipsis | clip | flow."""

from __future__ import annotations

import io
import json
import math
from dataclasses import replace

import pikepdf
import pikepdf.pdfa
import pytest

from engine import ActionError, apply, new_design, render_pdf
from engine.actions import catalog
from engine.design.variables import apply_values
from engine.elements import ELEMENT_TYPES
from engine.elements import text as text_module
from engine.elements.text import fitted_text
from engine.errors import LimitExceeded
from engine.render.layout import flow_margin, layout
from engine.text import fitting, typeset
from tests.pdf_probes import drawn_sizes, line_rects, page_count, pdf_text
from tests.text_samples import LONG_NAME, paragraphs, words_in_order

from ...conftest import action, add, build
from ...pdf_checker import problems
from ...validators import assert_passes_its_profiles_validator

TEXT = ELEMENT_TYPES["text"]


def refused(actions: list[dict], tree=None) -> str:
    with pytest.raises(ActionError) as caught:
        build(actions, tree)
    return str(caught.value)


# Models and refusals.


def test_the_fitting_keys_are_accepted_and_echo_a_box():
    tree = build(
        [
            add(
                "text",
                "Name",
                {"x": 40, "y": 40, "maxWidth": 200, "maxHeight": 30},
                {"content": "Ada Lovelace", "maxLines": 1, "overflow": "ellipsis"},
                {"fontSize": 24, "fit": "shrink", "minFontSize": 10},
            )
        ]
    )
    node = tree.node_by_name("Name")
    assert node.position.maxHeight == 30 and node.data.maxLines == 1 and node.data.overflow == "ellipsis"
    assert node.styles.fit == "shrink" and node.styles.minFontSize == 10


def test_the_defaults_change_nothing():
    node = build([add("text", "T", {"x": 0, "y": 0}, {"content": "Hi"})]).node_by_name("T")
    assert node.position.maxHeight is None and node.data.maxLines is None
    assert node.data.overflow == "visible" and node.styles.fit == "none" and node.styles.minFontSize == 6


def test_a_small_text_that_never_shrinks_keeps_the_default_minimum():
    node = build([add("text", "T", {"x": 0, "y": 0}, {"content": "Hi"}, {"fontSize": 4})]).node_by_name("T")
    assert node.styles.fontSize == 4


def test_shrink_without_max_width_is_refused_naming_the_fix():
    message = refused([add("text", "T", {"x": 0, "y": 0}, {"content": "Hi"}, {"fit": "shrink"})])
    assert 'fit "shrink"' in message and "position.maxWidth" in message


@pytest.mark.parametrize(
    ("position", "data", "styles", "named"),
    [
        ({}, {"maxLines": 2}, {}, "data.maxLines"),
        ({"maxHeight": 40}, {}, {}, "position.maxHeight"),
        ({}, {}, {"fit": "shrink"}, 'styles.fit "shrink"'),
    ],
)
def test_flow_with_a_limit_is_refused(position, data, styles, named):
    message = refused(
        [
            add(
                "text",
                "T",
                {"x": 0, "y": 0, "maxWidth": 100, **position},
                {"content": "Hi", "overflow": "flow", **data},
                styles,
            )
        ]
    )
    assert "flow" in message and named in message and "remove" in message


def test_flow_with_a_limit_is_refused_on_update_too():
    tree = build([add("text", "T", {"x": 0, "y": 0, "maxWidth": 100}, {"content": "Hi", "maxLines": 2})])
    message = refused([action("update_element", name="T", data={"overflow": "flow"})], tree)
    assert "data.maxLines" in message and "flow" in message


def test_a_minimum_above_the_size_is_refused():
    message = refused([add("text", "T", {"x": 0, "y": 0}, {"content": "Hi"}, {"fontSize": 12, "minFontSize": 14})])
    assert "minFontSize 14" in message and "at most 12" in message


def test_lowering_the_size_below_the_minimum_is_refused():
    tree = build([add("text", "T", {"x": 0, "y": 0}, {"content": "Hi"}, {"fontSize": 20, "minFontSize": 10})])
    message = refused([action("update_element", name="T", styles={"fontSize": 8})], tree)
    assert "minFontSize 10" in message and "fontSize 8" in message


@pytest.mark.parametrize(
    ("position", "data", "styles"),
    [
        ({"maxHeight": 0}, {}, {}),
        ({}, {"maxLines": 0}, {}),
        ({}, {"maxLines": 1.5}, {}),
        ({}, {"overflow": "scroll"}, {}),
        ({}, {}, {"fit": "grow"}),
        ({}, {}, {"minFontSize": 0}),
    ],
)
def test_bad_values_are_refused(position, data, styles):
    with pytest.raises(ActionError):
        build([add("text", "T", {"x": 0, "y": 0, "maxWidth": 100, **position}, {"content": "Hi", **data}, styles)])


def test_the_keys_are_in_the_openapi_document_and_the_mcp_tool_schemas():
    from api.mcp.tools import ToolSet
    from api.openapi import document

    openapi = json.dumps(document())
    patch_tool = json.dumps(next(tool for tool in ToolSet().tools if tool["name"] == "patch_design_tree"))
    for key in ("maxHeight", "maxLines", "minFontSize", '"shrink"', '"ellipsis"', '"clip"', '"flow"'):
        assert key in openapi and key in patch_tool


def test_the_keys_are_in_the_action_catalog():
    entries = {entry["name"]: entry for entry in catalog()}
    schema = str(entries["add_element"]["args"])
    for key in ("maxHeight", "maxLines", "overflow", "minFontSize", "shrink", "ellipsis", "flow"):
        assert key in schema


# Shrink: the size is searched, measured in the PDF.


def name_design(**styles):
    return build(
        [
            add(
                "text",
                "Name",
                {"x": 40, "y": 40, "maxWidth": 200},
                {"content": LONG_NAME, "maxLines": 1},
                {"fontSize": 36, "fit": "shrink", **styles},
            )
        ]
    )


def test_shrink_draws_the_largest_size_that_fits_on_one_line():
    tree = name_design()
    node = tree.node_by_name("Name")
    fitted = fitted_text(node)
    assert fitted is not None and 6 <= fitted.style.size < 36 and (36 - fitted.style.size) % 0.5 == 0
    # The next size up on the grid would not fit the line.
    assert typeset.width_of(LONG_NAME, replace(fitted.style, size=fitted.style.size + 0.5)) > 200
    pdf = render_pdf(tree)
    assert drawn_sizes(pdf) == [fitted.style.size]
    (left, _, right, _), *others = line_rects(pdf)
    assert not others  # one line
    assert 180 <= right - left <= 200
    assert pdf_text(pdf)[0].strip() == LONG_NAME


def test_the_echoed_box_is_the_box_at_the_fitted_size():
    _, results = apply(
        new_design(),
        [
            add(
                "text",
                "Name",
                {"x": 40, "y": 40, "maxWidth": 200},
                {"content": LONG_NAME, "maxLines": 1},
                {"fontSize": 36, "fit": "shrink", "lineHeight": 1.2},
            )
        ],
    )
    size = fitted_text(build([add("text", "Name", *name_args())]).node_by_name("Name")).style.size
    assert results[0]["data"]["position"]["w"] == 200
    assert results[0]["data"]["position"]["h"] == pytest.approx(size * 1.2, abs=0.001)


def name_args():
    return (
        {"x": 40, "y": 40, "maxWidth": 200},
        {"content": LONG_NAME, "maxLines": 1},
        {"fontSize": 36, "fit": "shrink", "lineHeight": 1.2},
    )


def test_a_name_that_fits_keeps_its_size_after_one_layout():
    tree = build(
        [
            add(
                "text",
                "Name",
                {"x": 0, "y": 0, "maxWidth": 400},
                {"content": "Ada", "maxLines": 1},
                {"fit": "shrink", "fontSize": 30},
            )
        ]
    )
    fitted = fitted_text(tree.node_by_name("Name"))
    assert fitted.style.size == 30 and fitted.layouts == 1
    assert drawn_sizes(render_pdf(tree)) == [30]


def test_the_search_is_bounded_by_the_steps_logarithm():
    node = name_design().node_by_name("Name")
    steps = len(fitting.candidate_sizes(36, 6))
    assert steps == 61
    typeset._wrap_cached.cache_clear()
    text_module._layout.cache_clear()
    text_module._fitted.cache_clear()
    fitted = fitted_text(node)
    bound = math.log2(steps) + 2
    assert fitted.layouts <= bound
    # Counted in the typesetting itself: one wrap of the (single) item per size laid out.
    assert typeset._wrap_cached.cache_info().misses == fitted.layouts <= bound


def test_shrink_stops_at_the_minimum_and_the_overflow_rule_applies():
    tree = build(
        [
            add(
                "text",
                "Name",
                {"x": 0, "y": 0, "maxWidth": 60},
                {"content": LONG_NAME, "maxLines": 1, "overflow": "ellipsis"},
                {"fontSize": 20, "fit": "shrink", "minFontSize": 12},
            )
        ]
    )
    fitted = fitted_text(tree.node_by_name("Name"))
    assert fitted.style.size == 12 and fitted.cut
    pdf = render_pdf(tree)
    assert drawn_sizes(pdf) == [12]
    text = pdf_text(pdf)[0].strip()
    assert text.endswith("\u2026") and LONG_NAME.startswith(text[:-1])


def test_shrink_fits_max_height_over_several_lines():
    content = "A sentence long enough to wrap over a few lines in a narrow box"
    tree = build(
        [
            add(
                "text",
                "T",
                {"x": 0, "y": 0, "maxWidth": 120, "maxHeight": 40},
                {"content": content},
                {"fontSize": 24, "fit": "shrink"},
            )
        ]
    )
    node = tree.node_by_name("T")
    width, height = TEXT.measure(node)
    assert height <= 40 and width == 120
    size = fitted_text(node).style.size
    assert size < 24 and set(drawn_sizes(render_pdf(tree))) == {size}
    assert " ".join(pdf_text(render_pdf(tree))[0].split()) == content


def test_shrink_fits_the_words_as_transformed():
    # Uppercase is wider than the word as typed: the size is found for the shown word, which
    # wrapping would otherwise break between characters.
    tree = build(
        [
            add(
                "text",
                "name",
                {"x": 40, "y": 40, "maxWidth": 200},
                {"content": "supercalifragilistic"},
                {"fontSize": 40, "fit": "shrink", "textTransform": "uppercase"},
            )
        ]
    )
    fitted = fitted_text(tree.nodes["text_0001"])
    assert fitted.widest <= 200 + 0.01 and sum(len(lines) for _, lines in fitted.blocks) == 1
    assert pdf_text(render_pdf(tree))[0].strip() == "SUPERCALIFRAGILISTIC"


def test_the_minimum_may_be_off_the_half_point_grid():
    assert fitting.candidate_sizes(10, 8.2) == [10, 9.5, 9, 8.5, 8.2]
    assert fitting.candidate_sizes(10, 10) == [10]


# Ellipsis, clip and visible.

SENTENCE = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen"


def limited(overflow: str, position: dict | None = None, data: dict | None = None):
    return build(
        [
            add(
                "text",
                "T",
                {"x": 40, "y": 40, "maxWidth": 100, **(position or {})},
                {"content": SENTENCE, "overflow": overflow, **(data or {})},
                {"fontSize": 12},
            )
        ]
    )


def lines_of(pdf: bytes) -> list[str]:
    return [line.strip() for line in pdf_text(pdf)[0].replace("\r", "").split("\n") if line.strip()]


@pytest.mark.parametrize("limit", [{"data": {"maxLines": 2}}, {"position": {"maxHeight": 30}}])
def test_ellipsis_ends_the_last_kept_line(limit):
    tree = limited("ellipsis", **limit)
    all_lines = typeset.wrap(SENTENCE, typeset.TextStyle(size=12), 100)
    assert len(all_lines) > 2
    lines = lines_of(render_pdf(tree))
    assert len(lines) == 2
    assert lines[0] == all_lines[0].text
    assert lines[1].endswith("\u2026") and all_lines[1].text.startswith(lines[1][:-1].rstrip())
    assert TEXT.measure(tree.node_by_name("T"))[1] == pytest.approx(2 * 12 * 1.2)


@pytest.mark.parametrize("limit", [{"data": {"maxLines": 2}}, {"position": {"maxHeight": 30}}])
def test_clip_drops_the_lines_past_the_limit(limit):
    tree = limited("clip", **limit)
    all_lines = typeset.wrap(SENTENCE, typeset.TextStyle(size=12), 100)
    assert lines_of(render_pdf(tree)) == [line.text for line in all_lines[:2]]
    assert "fourteen" not in pdf_text(render_pdf(tree))[0]


def test_visible_lets_the_box_grow():
    tree = limited("visible", data={"maxLines": 2})
    all_lines = typeset.wrap(SENTENCE, typeset.TextStyle(size=12), 100)
    assert lines_of(render_pdf(tree)) == [line.text for line in all_lines]
    assert TEXT.measure(tree.node_by_name("T"))[1] == pytest.approx(len(all_lines) * 12 * 1.2)


def test_a_list_is_cut_across_its_items():
    tree = build(
        [
            add(
                "text",
                "L",
                {"x": 40, "y": 40, "maxWidth": 200},
                {
                    "content": ["first", "second", "third", "fourth"],
                    "listFormat": "unordered",
                    "maxLines": 3,
                    "overflow": "clip",
                },
            )
        ]
    )
    text = pdf_text(render_pdf(tree))[0]
    assert "third" in text and "fourth" not in text and text.count("\u2022") == 3


# Flow: the box grows, its followers move, and it continues on new sheets.


def flowing_letter(body: str, follower_gap: float = 20):
    return build(
        [
            add("text", "Heading", {"x": 40, "y": 40}, {"content": "Dear reader"}),
            add("text", "Body", {"x": 40, "y": 80, "maxWidth": 50}, {"content": "short", "overflow": "flow"}),
            add("text", "Aside", {"x": 300, "y": 90}, {"content": "Beside the body"}),
            add("text", "Signature", {"x": 40, "y": 80 + 14.4 + follower_gap}, {"content": "Yours truly"}),
            action("bind_variable", name="Body"),
        ],
        title="A letter that flows",
    )


def test_a_flowing_text_over_three_sheets_keeps_every_line_in_order_and_its_follower_after_it():
    tree = flowing_letter("short")
    body = paragraphs(30)  # 150 lines of 14.4 pt: 50 on the first A4 sheet, 53 on the second
    pdf = render_pdf(tree, {"Body": body})
    texts = pdf_text(pdf)
    assert page_count(pdf) == 3
    expected = [f"p{p:02d}l{line}" for p in range(30) for line in range(5)]
    assert words_in_order(texts) == expected
    assert all(words_in_order([text]) for text in texts)  # every sheet holds some of it
    assert "Yours truly" in texts[2] and "Yours truly" not in texts[0] + texts[1]
    assert "Dear reader" in texts[0] and "Dear reader" not in texts[1]
    assert "Beside the body" in texts[0]  # beside it, not below: it stays


def test_flowing_lines_stay_inside_the_margins_and_the_follower_keeps_its_distance():
    tree = flowing_letter("short")
    sheets = layout(tree, apply_values(tree, {"Body": paragraphs(30)}))
    assert len(sheets) == 3
    height = tree.pages[0].height
    margin = flow_margin(tree.pages[0])
    for index, sheet in enumerate(sheets):
        body = next(p for p in sheet.placements if p.node.name == "Body")
        assert body.box.bottom <= height - margin + 0.01
        if index > 0:
            assert body.box.y == margin
    last = {p.node.name: p for p in sheets[-1].placements}
    assert last["Signature"].box.y == pytest.approx(last["Body"].box.bottom + 20)


def test_followers_move_with_a_flowing_text_that_grows_on_its_sheet():
    tree = flowing_letter("short")
    (sheet,) = layout(tree, apply_values(tree, {"Body": "one\ntwo\nthree"}))
    boxes = {p.node.name: p.box for p in sheet.placements}
    assert boxes["Body"].h == pytest.approx(3 * 14.4)
    assert boxes["Signature"].y == pytest.approx(80 + 3 * 14.4 + 20)
    assert boxes["Aside"].y == 90


def test_a_text_that_does_not_flow_does_not_push():
    tree = flowing_letter("short")
    tree, _ = apply(tree, [action("update_element", name="Body", data={"overflow": "visible"})])
    (sheet,) = layout(tree, apply_values(tree, {"Body": "one\ntwo\nthree"}))
    boxes = {p.node.name: p.box for p in sheet.placements}
    assert boxes["Signature"].y == pytest.approx(80 + 14.4 + 20)


def test_widows_and_orphans():
    leading = 10.0
    # A paragraph of 6 lines after 3 one-line paragraphs; the sheet holds 4 lines: the break
    # would leave one line of the paragraph at the foot, so the paragraph moves whole.
    ends = [True, True, True] + [False] * 5 + [True]
    parts = fitting.split_lines(ends, leading, 40, 100)
    assert [(p.start, p.end) for p in parts] == [(0, 3), (3, 9)]
    # A sheet holding 8 lines would carry one line alone: two are carried instead.
    parts = fitting.split_lines(ends, leading, 80, 100)
    assert [(p.start, p.end) for p in parts] == [(0, 7), (7, 9)]
    # Short paragraphs break anywhere.
    parts = fitting.split_lines([False, False, True] * 3, leading, 40, 40)
    assert [(p.start, p.end) for p in parts] == [(0, 4), (4, 8), (8, 9)]


def test_sheet_breaks_in_the_pdf_leave_no_widow_or_orphan():
    tree = flowing_letter("short")
    sheets = layout(tree, apply_values(tree, {"Body": paragraphs(30)}))
    for sheet in sheets:
        body = next(p for p in sheet.placements if p.node.name == "Body")
        # Every paragraph has 5 lines: a share of one is never a single line at either end.
        assert body.part.start % 5 not in (1, 4) and body.part.end % 5 not in (1, 4)


def test_flow_sheets_count_towards_the_page_limit():
    tree = flowing_letter("short")
    with pytest.raises(LimitExceeded) as caught:
        render_pdf(tree, {"Body": paragraphs(30)}, max_sheets=2)
    assert "3 pages" in str(caught.value)
    assert page_count(render_pdf(tree, {"Body": paragraphs(30)}, max_sheets=3)) == 3


def test_a_flowing_list_continues_without_repeating_a_marker():
    tree = build(
        [
            add(
                "text",
                "Steps",
                {"x": 40, "y": 600, "maxWidth": 300},
                {"content": [f"step {i}" for i in range(30)], "listFormat": "ordered", "overflow": "flow"},
            )
        ]
    )
    texts = pdf_text(render_pdf(tree))
    assert len(texts) == 2
    joined = "".join(texts)
    assert all(f"{i + 1}." in joined and f"step {i}" in joined for i in range(30))
    assert sum(text.count(".") for text in texts) == 30


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_a_flowing_text_in_the_tagged_profiles(profile, tmp_path):
    tree = flowing_letter("short")
    tree, _ = apply(
        tree,
        [
            add(
                "text",
                "Fitted",
                {"x": 300, "y": 40, "maxWidth": 80},
                {"content": LONG_NAME, "maxLines": 1, "overflow": "ellipsis"},
                {"fit": "shrink", "minFontSize": 10},
            )
        ],
    )
    pdf = render_pdf(tree, {"Body": paragraphs(30)}, profile=profile)
    assert words_in_order(pdf_text(pdf)) == [f"p{p:02d}l{line}" for p in range(30) for line in range(5)]
    assert problems(pdf) == []
    # The flowing paragraph is one P whatever the sheets: each sheet's share is a Span of it.
    with pikepdf.open(io.BytesIO(pdf)) as document:
        spans = [o for o in document.objects if isinstance(o, pikepdf.Dictionary) and o.get("/S") == "/Span"]
        assert len(spans) == 3
        assert {span.P.objgen for span in spans} == {spans[0].P.objgen} and spans[0].P.S == "/P"
        assert len({span.Pg.objgen for span in spans}) == 3
    path = tmp_path / "flow.pdf"
    path.write_bytes(pdf)
    assert_passes_its_profiles_validator(path, profile)


def test_a_text_designed_longer_than_its_sheet_breaks_at_the_margin():
    tree = build(
        [add("text", "Body", {"x": 40, "y": 80, "maxWidth": 50}, {"content": paragraphs(30), "overflow": "flow"})]
    )
    sheets = layout(tree)
    limit = tree.pages[0].height - flow_margin(tree.pages[0])
    assert len(sheets) == 3
    assert all(sheet.placements[0].box.bottom <= limit + 0.01 for sheet in sheets)
    assert words_in_order(pdf_text(render_pdf(tree))) == [f"p{p:02d}l{line}" for p in range(30) for line in range(5)]


def test_typing_on_the_canvas_shows_the_fitted_size():
    node = name_design().node_by_name("Name")
    assert TEXT.editor.inline_text.look(node).size == fitted_text(node).style.size < 36


def test_a_text_splits_only_when_it_flows():
    flowing = flowing_letter("short").node_by_name("Body")
    plain = build([add("text", "T", {"x": 0, "y": 0}, {"content": "Hi"})]).node_by_name("T")
    table = ELEMENT_TYPES["table"]
    assert TEXT.splitting(flowing) and not TEXT.splitting(plain)
    assert not TEXT.splits and table.splits  # a table always splits; a text only when it flows


def test_a_flowing_list_stays_one_list_in_the_tagged_profiles():
    tree = build(
        [
            add(
                "text",
                "Steps",
                {"x": 40, "y": 700, "maxWidth": 100},
                {"content": [paragraphs(1, 6) for _ in range(4)], "listFormat": "ordered", "overflow": "flow"},
            )
        ],
        title="Steps",
    )
    pdf = render_pdf(tree, profile="accessible")
    assert page_count(pdf) == 2 and problems(pdf) == []
    with pikepdf.open(io.BytesIO(pdf)) as document:
        elements = [
            o for o in document.objects if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/StructElem"
        ]
        roles = [str(o.S) for o in elements]
        assert roles.count("/L") == 1 and roles.count("/LI") == 4 and roles.count("/Lbl") == 4


def test_a_height_below_one_line_still_keeps_one_line():
    tree = limited("clip", position={"maxHeight": 5})
    assert lines_of(render_pdf(tree)) == ["one two three"]


def test_a_flowing_text_follows_another_onto_the_next_sheets():
    first = paragraphs(12)
    designed = build([add("text", "First", {"x": 40, "y": 80, "maxWidth": 60}, {"content": first, "overflow": "flow"})])
    below = 80 + TEXT.measure(designed.node_by_name("First"))[1] + 10
    tree = build(
        [
            add("text", "Second", {"x": 40, "y": below, "maxWidth": 60}, {"content": "x", "overflow": "flow"}),
            action("bind_variable", name="First"),
            action("bind_variable", name="Second"),
        ],
        designed,
    )
    second = "\n".join(" ".join(f"q{p:02d}l{line}" for line in range(5)) for p in range(30))
    (sheet, *_) = layout(tree, apply_values(tree, {"First": "one", "Second": second}))
    boxes = {p.node.name: p.box for p in sheet.placements}
    # The first text shrank to one line: the second moved up by the same amount.
    assert boxes["Second"].y == pytest.approx(80 + 14.4 + 10)
    texts = pdf_text(render_pdf(tree, {"Second": second}))
    words = [word for text in texts for word in text.split() if word[0] in "pq" and "l" in word]
    expected = [f"p{p:02d}l{line}" for p in range(12) for line in range(5)]
    assert words == expected + [f"q{p:02d}l{line}" for p in range(30) for line in range(5)]
    # The second starts on the sheet where the first ends, right after it.
    (ends,) = [text for text in texts if "p11l4" in text]
    assert ends.split().index("q00l0") == ends.split().index("p11l4") + 1


def test_an_unset_max_height_stays_out_of_the_stored_tree_and_undo_clears_a_set_one():
    from engine.design.diff import changes

    tree = build([add("text", "t", {"x": 40, "y": 40, "maxWidth": 200}, {"content": "x"})])
    assert '"maxHeight"' not in tree.to_json()
    limited = build([action("update_element", name="t", position={"maxHeight": 30})], tree)
    assert limited.node_by_name("t").position.maxHeight == 30
    undone = build(changes(limited, tree), limited)
    assert undone.node_by_name("t").position.maxHeight is None and '"maxHeight"' not in undone.to_json()
