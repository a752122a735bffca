"""Rich text, links and text styles (extensions.md 3), checked in real PDFs."""

import io

import httpx
import pikepdf
import pikepdf.pdfa
import pytest

from engine import render_pdf
from engine.elements import ELEMENT_TYPES
from engine.errors import EngineError
from tests.pdf_probes import annotations, crop_points, font_names, operators, page_image, parent_tree, pdf_text

from ...conftest import action, add, build, png
from ...pdf_checker import problems
from ...validators import assert_passes_outloud, assert_valid_pdf_a

IMAGES = {"uploads:logo": png(size=(40, 40))}
SENTENCE = "Plain **bold words** then *slanted ones* and ***both*** at the end of a sentence that wraps"


def text(content, data=None, styles=None, position=None, name="t"):
    return add(
        "text",
        name,
        {"x": 40, "y": 40, **(position or {"maxWidth": 220})},
        {"content": content, "markup": "markdown", **(data or {})},
        styles,
    )


def render(actions, profile="standard", values=None):
    return render_pdf(build(actions), values, IMAGES.__getitem__, profile)


def flat(extracted: str) -> str:
    return " ".join(extracted.split())


@pytest.mark.parametrize("align", ["left", "center", "right", "justify"])
def test_bold_and_italic_runs_are_drawn_in_the_familys_faces_with_every_alignment(align):
    pdf = render([text(SENTENCE, styles={"align": align, "fontFamily": "Roboto"})])
    assert {"Roboto-Regular", "Roboto-Bold", "Roboto-Italic", "Roboto-BoldItalic"} <= font_names(pdf)
    words = flat(pdf_text(pdf)[0])
    assert words == "Plain bold words then slanted ones and both at the end of a sentence that wraps"


def test_bold_takes_weight_700_and_italic_the_nearest_weight_with_an_italic():
    pdf = render([text("light **bold** *slant*", styles={"fontWeight": 300})])
    assert font_names(pdf) == {"Inter-Light", "Inter-Bold", "Inter-Italic"}


def test_markup_works_per_list_item():
    pdf = render([text(["**first** item", "second *item*", "# literal"], data={"listFormat": "unordered"})])
    assert {"Inter-Bold", "Inter-Italic"} <= font_names(pdf)
    assert flat(pdf_text(pdf)[0]) == "\u2022 first item \u2022 second item \u2022 # literal"


def test_block_syntax_and_escapes_stay_literal_in_the_pdf():
    pdf = render([text("# Title\n- item\n> quote\n1. one\n\\*stars\\*", position={})])
    assert pdf_text(pdf)[0].split("\r\n") == ["# Title", "- item", "> quote", "1. one", "*stars*"]
    assert font_names(pdf) == {"Inter-Regular"}


def test_without_markup_the_markers_are_text():
    pdf = render([add("text", "t", {"x": 40, "y": 40}, {"content": "**not bold**"})])
    assert flat(pdf_text(pdf)[0]) == "**not bold**"
    assert font_names(pdf) == {"Inter-Regular"}


def strokes(pdf: bytes) -> int:
    return sum(1 for _, op in operators(pdf) if op == "S")


@pytest.mark.parametrize(
    "struck",
    [
        text("a ~~struck~~ word", position={}),
        add("text", "t", {"x": 40, "y": 40}, {"content": "a struck word"}, {"strikethrough": True}),
    ],
    ids=["markup", "style"],
)
def test_strikethrough_draws_a_line_through_the_text(struck):
    plain = render([add("text", "t", {"x": 40, "y": 40}, {"content": "a struck word"})])
    pdf = render([struck])
    assert strokes(plain) == 0 and strokes(pdf) == 1
    # The line runs through the letters: ink across the middle of the text's line.
    image = page_image(pdf)
    middle = crop_points(image, (40, 40 + 12 * 1.2 * 0.45, 100, 1.5))
    assert sum(1 for v in middle.convert("L").get_flattened_data() if v < 128) > 40


def test_letter_spacing_widens_the_measured_box_and_is_drawn_as_char_spacing():
    content = "Spaced out"
    tree = build(
        [
            add("text", "a", {"x": 40, "y": 40}, {"content": content}),
            add("text", "b", {"x": 40, "y": 80}, {"content": content}, {"letterSpacing": 3}),
        ]
    )
    measure = ELEMENT_TYPES["text"].measure
    plain_width, _ = measure(next(n for n in tree.nodes.values() if n.name == "a"))
    spaced_width, _ = measure(next(n for n in tree.nodes.values() if n.name == "b"))
    assert spaced_width == pytest.approx(plain_width + 3 * len(content))
    pdf = render_pdf(tree)
    assert ([3.0], "Tc") in operators(pdf)
    assert flat(pdf_text(pdf)[0]).replace(" ", "") == "SpacedoutSpacedout"


def test_letter_spacing_is_bounded():
    with pytest.raises(EngineError, match="letterSpacing"):
        build([add("text", "t", {"x": 0, "y": 0}, {"content": "x"}, {"letterSpacing": 51})])


@pytest.mark.parametrize(
    ("transform", "shown"),
    [
        ("uppercase", "HELLO WIDE WORLD"),
        ("lowercase", "hello wide world"),
        ("capitalize", "Hello WIDE World"),
        ("none", "hello WIDE world"),
    ],
)
@pytest.mark.parametrize("markup", ["none", "markdown"])
def test_text_transform(transform, shown, markup):
    pdf = render(
        [
            add(
                "text",
                "t",
                {"x": 40, "y": 40},
                {"content": "hello **WIDE** world", "markup": markup},
                {"textTransform": transform},
            )
        ]
    )
    # capitalize only raises the first letter of each word, as CSS's does
    expected = shown if markup == "markdown" else shown.replace("WIDE", "**WIDE**").replace("wide", "**wide**")
    assert flat(pdf_text(pdf)[0]) == expected


def test_background_with_padding_and_radius_is_drawn_behind_the_text():
    pdf = render(
        [
            add(
                "text",
                "t",
                {"x": 100, "y": 100},
                {"content": "Badge"},
                {"backgroundColor": "#ff0000", "padding": 10, "borderRadius": 4},
            )
        ]
    )
    image = page_image(pdf)
    assert crop_points(image, (93, 100, 2, 2)).getpixel((1, 1)) == (255, 0, 0)  # in the padding, left of the box
    assert crop_points(image, (90.2, 90.2, 1, 1)).getpixel((0, 0)) == (255, 255, 255)  # a rounded corner
    assert crop_points(image, (80, 100, 2, 2)).getpixel((1, 1)) == (255, 255, 255)  # past the padding
    assert flat(pdf_text(pdf)[0]) == "Badge"


def test_vertical_align_is_accepted_and_needs_a_height_limit_to_act():
    top = render([add("text", "t", {"x": 40, "y": 40}, {"content": "Low"})])
    bottom = render([add("text", "t", {"x": 40, "y": 40}, {"content": "Low"}, {"verticalAlign": "bottom"})])
    assert top == bottom  # no maxHeight: the box hugs the text, nothing to align
    with pytest.raises(EngineError, match="verticalAlign"):
        build([add("text", "t", {"x": 0, "y": 0}, {"content": "x"}, {"verticalAlign": "centre"})])


def test_a_markdown_link_is_an_annotation_over_each_line_of_its_label():
    pdf = render(
        [text("Read [the full terms of service](https://example.org/terms) today", position={"maxWidth": 120})]
    )
    found = annotations(pdf)
    assert [a["uri"] for a in found] == ["https://example.org/terms"] * len(found) and len(found) == 2
    assert {a["contents"] for a in found} == {"the full terms of service"}
    assert all(a["flags"] == 4 for a in found)  # printed, as PDF/A wants
    first, second = (a["rect"] for a in found)
    assert first[1] > second[1]  # one box per line, the first line above
    assert 40 <= second[0] and second[2] <= 160 + 0.01 and first[2] <= 160 + 0.01


def test_link_labels_are_underlined_in_the_link_colour():
    pdf = render([text("see [docs](mailto:team@example.org)", position={}, styles={"linkColor": "#00ff00"})])
    ops = operators(pdf)
    assert ([0.0, 1.0, 0.0], "rg") in ops and strokes(pdf) == 1
    assert annotations(pdf)[0]["uri"] == "mailto:team@example.org"


ELEMENTS = {
    "text": add("text", "e", {"x": 40, "y": 40}, {"content": "Linked", "link": "https://example.org/e"}),
    "image": add(
        "image", "e", {"x": 40, "y": 40, "w": 40, "h": 40}, {"src": "uploads:logo", "link": "https://example.org/e"}
    ),
    "table": add(
        "table", "e", {"x": 40, "y": 40}, {"cells": [["a", "b"], ["1", "2"]], "link": "https://example.org/e"}
    ),
    "shape": add("shape", "e", {"x": 40, "y": 40, "w": 40, "h": 40}, {"link": "https://example.org/e"}),
    "icon": add("icon", "e", {"x": 40, "y": 40, "w": 40, "h": 40}, {"iconId": "star", "link": "https://example.org/e"}),
    "qr": add("qr", "e", {"x": 40, "y": 40, "size": 60}, {"content": "x", "link": "https://example.org/e"}),
    "chart": add("chart", "e", {"x": 40, "y": 40, "w": 200, "h": 120}, {"link": "https://example.org/e"}),
    "field": add("field", "e", {"x": 40, "y": 40, "w": 120, "h": 24}, {"link": "https://example.org/e"}),
    "barcode": add(
        "barcode", "e", {"x": 40, "y": 40, "w": 120, "h": 40}, {"content": "A-1", "link": "https://example.org/e"}
    ),
}


def test_every_element_type_declares_data_link():
    assert set(ELEMENTS) >= set(ELEMENT_TYPES) - {"stamp"}
    for element in ELEMENT_TYPES.values():
        assert "link" in element.Data.model_fields


@pytest.mark.parametrize("kind", list(ELEMENTS))
def test_data_link_makes_the_elements_box_a_link(kind):
    tree = build([ELEMENTS[kind]])
    node = next(iter(tree.nodes.values()))
    w, h = ELEMENT_TYPES[kind].measure(node)
    (found,) = annotations(render_pdf(tree, None, IMAGES.__getitem__))
    assert found["uri"] == "https://example.org/e"
    assert found["rect"] == pytest.approx([40, 841.89 - 40 - h, 40 + w, 841.89 - 40], abs=0.01)


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", "ftp://example.org/x", "/relative"])
def test_links_other_than_https_http_and_mailto_are_refused(url):
    with pytest.raises(EngineError, match="https:, http: or mailto:"):
        build([add("shape", "s", {"x": 0, "y": 0, "w": 5, "h": 5}, {"link": url})])
    with pytest.raises(EngineError, match="https:, http: or mailto:"):
        build([text(f"[click]({url})")])
    tree = build([add("shape", "s", {"x": 0, "y": 0, "w": 5, "h": 5})])
    with pytest.raises(EngineError, match="https:, http: or mailto:"):
        build([action("update_element", name="s", data={"link": url})], tree)


def test_a_markup_link_in_a_plain_text_is_not_checked_nor_drawn():
    tree = build([add("text", "t", {"x": 40, "y": 40}, {"content": "[x](javascript:alert(1))"})])
    assert annotations(render_pdf(tree)) == []


def test_link_is_left_out_of_the_stored_tree_until_set():
    tree = build([add("shape", "s", {"x": 0, "y": 0, "w": 5, "h": 5})])
    assert '"link"' not in tree.to_json() if hasattr(tree, "to_json") else '"link"' not in tree.model_dump_json()


# Tagged profiles: the existing validators, with links inside.


@pytest.fixture(scope="module")
def linked_documents(tmp_path_factory):
    actions = [
        action("set_metadata", title="Links", language="en"),
        add("text", "h", {"x": 40, "y": 30}, {"content": "Rich **heading**", "role": "h1", "markup": "markdown"}),
        text(
            "Visit [our site](https://example.org) or **write to** "
            "[the team at example dot org](mailto:team@example.org) for a long paragraph that wraps",
            position={"maxWidth": 200},
            name="p",
        ),
        add(
            "text",
            "list",
            {"x": 40, "y": 160},
            {"content": ["**one** [a](https://a.example.org)", "two"], "listFormat": "ordered", "markup": "markdown"},
        ),
        add(
            "image",
            "logo",
            {"x": 400, "y": 30, "w": 40, "h": 40},
            {"src": "uploads:logo", "alt": "The round blue company logo", "link": "https://example.org"},
        ),
        add("shape", "deco", {"x": 400, "y": 100, "w": 40, "h": 40}, {"link": "https://example.org/deco"}),
        add("text", "whole", {"x": 40, "y": 240}, {"content": "A linked paragraph", "link": "https://example.org/w"}),
    ]
    folder = tmp_path_factory.mktemp("linked")
    paths = {}
    for profile in ("accessible", "pdf-a"):
        paths[profile] = folder / f"{profile}.pdf"
        paths[profile].write_bytes(render(actions, profile))
    return paths


def test_pdf_a_with_links_passes_pikepdfs_pdfa_validator(linked_documents):
    assert_valid_pdf_a(linked_documents["pdf-a"])


def test_accessible_with_links_passes_outloud(linked_documents):
    assert_passes_outloud(linked_documents["accessible"])


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_tagged_links_pass_our_checker_and_are_link_elements_holding_their_annotation(linked_documents, profile):
    data = linked_documents[profile].read_bytes()
    assert problems(data) == []
    with pikepdf.open(io.BytesIO(data)) as pdf:
        page = pdf.pages[0].obj
        assert page.Tabs == pikepdf.Name.S
        parents = parent_tree(pdf)
        uris = []
        for annot in page.Annots:
            assert str(annot.Contents).strip()
            link = parents[int(annot.StructParent)]
            assert link.S == pikepdf.Name("/Link")
            kids = list(link.K) if isinstance(link.K, pikepdf.Array) else [link.K]
            assert any(isinstance(k, pikepdf.Dictionary) and k.get("/Type") == "/OBJR" and k.Obj == annot for k in kids)
            uris.append(str(annot.A.URI))
        assert uris[:4] == [
            "https://example.org",
            "mailto:team@example.org",
            "mailto:team@example.org",
            "https://a.example.org",
        ]
        assert set(uris[4:]) == {"https://example.org", "https://example.org/deco", "https://example.org/w"}


def test_a_javascript_link_is_refused_over_rest_with_the_fix_and_links_are_generated(alpha):
    design_id = alpha.data(alpha.post("/designs", json={"name": "Links"}), 201)["designId"]
    bad = add("text", "t", {"x": 40, "y": 40}, {"content": "[x](javascript:alert(1))", "markup": "markdown"})
    message = alpha.error(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [bad]}), 400, "VALIDATION_ERROR")
    assert message.startswith("actions[0] (add_element) failed: ") and "https:, http: or mailto:" in message
    good = add("text", "t", {"x": 40, "y": 40}, {"content": "[docs](https://example.org)", "markup": "markdown"})
    alpha.data(alpha.patch(f"/designs/{design_id}/tree", json={"actions": [good]}), 200)
    result = alpha.data(alpha.post(f"/designs/{design_id}/generate", json={}), 201)
    assert [a["uri"] for a in annotations(httpx.get(result["downloadUrl"]).content)] == ["https://example.org"]


@pytest.mark.parametrize(("align", "drop"), [("top", 0), ("middle", (100 - 14.4) / 2), ("bottom", 100 - 14.4)])
def test_vertical_align_places_the_text_inside_max_height(align, drop):
    pdf = render(
        [
            add(
                "text",
                "t",
                {"x": 40, "y": 40, "maxWidth": 200, "maxHeight": 100},
                {"content": "Low"},
                {"verticalAlign": align},
            )
        ]
    )
    ink = crop_points(page_image(pdf), (40, 40 + drop, 40, 14.4))
    assert sum(1 for v in ink.convert("L").get_flattened_data() if v < 128) > 30


@pytest.mark.parametrize("align", ["middle", "bottom"])
def test_a_text_aligned_inside_its_max_height_has_the_whole_limit_as_its_box(align):
    tree = build(
        [
            add(
                "text",
                "t",
                {"x": 40, "y": 40, "maxWidth": 200, "maxHeight": 100},
                {"content": "Low"},
                {"verticalAlign": align},
            ),
            add("text", "below", {"x": 40, "y": 160}, {"content": "Below"}),
        ]
    )
    node = tree.nodes["text_0001"]
    # The background, the link and the editor's handles cover the text, wherever it sits.
    assert ELEMENT_TYPES["text"].measure(node) == (200, 100)
    top = build([action("update_element", name="t", styles={"verticalAlign": "top"})], tree)
    assert ELEMENT_TYPES["text"].measure(top.nodes["text_0001"]) == pytest.approx((200, 14.4))


def test_a_bound_markdown_texts_value_keeps_its_markup_and_its_links_are_checked():
    from engine import ValueBindingError, check_values

    tree = build([text("designed", position={}), action("bind_variable", name="t")])
    pdf = render_pdf(tree, {"t": "**Ada** at [docbench](https://example.org/ada)"})
    assert [a["uri"] for a in annotations(pdf)] == ["https://example.org/ada"]
    with pytest.raises(ValueBindingError) as info:
        check_values(tree, {"t": "[x](javascript:alert(1))"})
    assert "variable 't'" in info.value.message and "a link starts with https:, http: or mailto:" in info.value.message


def test_italic_in_a_family_without_italics_stays_upright_and_bold_takes_its_700():
    pdf = render([text("*slant* **bold**", styles={"fontFamily": "Oswald"}, position={})])
    names = font_names(pdf)
    assert not any("Italic" in name for name in names) and len(names) == 2
    assert flat(pdf_text(pdf)[0]) == "slant bold"
