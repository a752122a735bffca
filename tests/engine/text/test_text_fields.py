"""Fields inside text (extensions.md 1): placeholders, samples, variables, {page}/{pages}."""

import pytest

from engine import ActionError, render_pdf
from tests.pdf_probes import pdf_text

from ...conftest import action, add, build


def sentence(content="This certifies that {recipient} completed {course}.", **data):
    samples = data.pop("samples", {"recipient": "Ada Lovelace", "course": "Analytical Engines"})
    return add(
        "text",
        "sentence",
        {"x": 40, "y": 40, "maxWidth": 500},
        {"content": content, "fields": True, "samples": samples, **data},
    )


def refused(actions, tree=None) -> str:
    with pytest.raises(ActionError) as info:
        build(actions, tree)
    return info.value.message


# Step 1: the keys and their refusals


def test_fields_default_off_so_braces_stay_text():
    tree = build([add("text", "plain", {"x": 40, "y": 40}, {"content": "a { b } c"})])
    assert tree.nodes["text_0001"].data.fields is False
    assert "a { b } c" in pdf_text(render_pdf(tree))[0]


@pytest.mark.parametrize(
    "content,fragment",
    [
        ("Dear {name", "lone '{' at character 5: write {{ for a literal brace"),
        ("Dear name}", "lone '}' at character 9: write }} for a literal brace"),
        ("Dear { name }", "no leading or trailing spaces"),
    ],
)
def test_a_lone_brace_or_bad_name_is_refused_at_add(content, fragment):
    message = refused([sentence(content, samples={})])
    assert "add_element" in message and fragment in message


def test_a_lone_brace_is_refused_at_update_with_its_index():
    tree = build([sentence()])
    message = refused([action("update_element", name="sentence", data={"content": "50% {off"})], tree)
    assert "update_element" in message and "lone '{' at character 4" in message and "write {{" in message


def test_a_lone_brace_in_a_list_item_names_the_item():
    item = add(
        "text", "list", {"x": 40, "y": 40}, {"content": ["ok {a}", "bad }"], "listFormat": "unordered", "fields": True}
    )
    assert "item 1, lone '}' at character 4" in refused([item])


def test_doubled_braces_draw_literal_braces():
    tree = build([sentence("Use {{braces}} for {recipient}", samples={"recipient": "Ada"})])
    assert "Use {braces} for Ada" in pdf_text(render_pdf(tree))[0]


def test_samples_must_name_a_placeholder_of_the_content():
    assert "no placeholder {nobody} in the content" in refused([sentence(samples={"nobody": "x"})])
    assert "remove it from data.samples" in refused([sentence(samples={"page": "3"})])
    plain = add("text", "plain", {"x": 40, "y": 40}, {"content": "x", "samples": {"a": "b"}})
    assert "set data.fields to true" in refused([plain])


def test_samples_of_placeholders_gone_from_the_content_are_dropped():
    tree = build([sentence(), action("update_element", name="sentence", data={"content": "Well done {recipient}!"})])
    assert tree.nodes["text_0001"].data.samples == {"recipient": "Ada Lovelace"}
    tree = build([action("update_element", name="sentence", data={"fields": False})], tree)
    assert tree.nodes["text_0001"].data.samples == {}


def test_fields_need_a_string_text():
    message = refused([sentence("{amount}", samples={}, dataType="number")])
    assert "data.fields needs dataType 'string'" in message


def test_previews_show_the_samples():
    tree = build([sentence()])
    text = pdf_text(render_pdf(tree))[0]
    assert "This certifies that Ada Lovelace completed Analytical Engines." in text


# Step 2: placeholders are variables


def test_every_placeholder_is_a_field_variable_of_the_tree():
    tree = build([sentence()])
    assert {n: v.model_dump() for n, v in tree.variables.items()} == {
        "recipient": {"nodeId": None, "kind": "field"},
        "course": {"nodeId": None, "kind": "field"},
    }
    tree = build([action("update_element", name="sentence", data={"content": "Hello {recipient}"})], tree)
    assert list(tree.variables) == ["recipient"]
    tree = build([action("remove_element", name="sentence")], tree)
    assert tree.variables == {}


def test_fields_are_filled_in_the_pdf_and_missing_ones_show_their_sample():
    tree = build([sentence(samples={"recipient": "Ada Lovelace"})])
    text = pdf_text(render_pdf(tree, {"recipient": "Grace Hopper"}))[0]
    assert "This certifies that Grace Hopper completed ." in text  # course: no value, no sample
    text = pdf_text(render_pdf(tree, {"course": 101}))[0]
    assert "This certifies that Ada Lovelace completed 101." in text


def test_values_with_braces_or_markup_are_kept_literal():
    tree = build([sentence()])
    text = pdf_text(render_pdf(tree, {"recipient": "{course} {page} }{ **bold**", "course": "C"}))[0]
    assert "This certifies that {course} {page} }{ **bold** completed C." in text


def test_field_values_must_be_strings_or_numbers():
    from engine import ValueBindingError, check_values

    tree = build([sentence()])
    for wrong in (True, ["a"], {"a": 1}, None):
        with pytest.raises(ValueBindingError) as info:
            check_values(tree, {"recipient": wrong})
        assert info.value.message.startswith("variable 'recipient': expected a string or a number")


def test_a_bound_text_and_a_placeholder_of_one_name_are_one_variable():
    tree = build(
        [
            sentence(samples={}),
            add("text", "recipient", {"x": 40, "y": 200}, {"content": "Bound Sample"}),
            action("bind_variable", name="recipient"),
        ]
    )
    assert tree.variables["recipient"].kind == "text" and tree.variables["recipient"].nodeId == "text_0002"
    assert tree.nodes["text_0001"].data.samples["recipient"] == "Bound Sample"
    design_time = pdf_text(render_pdf(tree))[0]
    assert "This certifies that Bound Sample completed" in design_time
    filled = pdf_text(render_pdf(tree, {"recipient": "Grace"}))[0]
    assert "This certifies that Grace completed" in filled and "Bound Sample" not in filled
    assert filled.count("Grace") == 2  # the element and the placeholder
    tree = build([action("unbind_variable", name="recipient")], tree)
    assert tree.variables["recipient"].model_dump() == {"nodeId": None, "kind": "field"}


def test_a_bound_texts_value_with_braces_is_literal_text_when_its_content_has_fields():
    tree = build(
        [
            sentence(),
            add("text", "note", {"x": 40, "y": 200}, {"content": "Hi {recipient}", "fields": True}),
            action("bind_variable", name="note"),
        ]
    )
    text = pdf_text(render_pdf(tree, {"note": "a {b} and {{c}} and {", "recipient": "Ada"}))[0]
    assert "a {b} and {{c}} and {" in text and "Hi Ada" not in text


def test_a_placeholder_named_after_a_bound_image_is_refused():
    image = add("image", "logo", {"x": 300, "y": 300, "w": 50, "h": 50}, {"src": "uploads:red"})
    tree = build([image, action("bind_variable", name="logo")])
    message = refused([sentence("See {logo}", samples={})], tree)
    assert "add_element" in message and "placeholder {logo} has the name of the bound image 'logo'" in message
    tree = build([sentence("See {lago}", samples={})], tree)
    message = refused([action("update_element", name="sentence", data={"content": "See {logo}"})], tree)
    assert "update_element" in message and "rename the placeholder or the element" in message


def test_binding_another_type_under_a_placeholders_name_is_refused():
    image = add("image", "recipient", {"x": 300, "y": 300, "w": 50, "h": 50}, {"src": "uploads:red"})
    tree = build([sentence(), image])  # an unbound element may share the name
    assert tree.variables["recipient"].kind == "field"
    message = refused([action("bind_variable", name="recipient")], tree)
    assert "bind_variable" in message and "'recipient' is a placeholder in 'sentence'" in message
    other = add("image", "logo", {"x": 300, "y": 400, "w": 50, "h": 50}, {"src": "uploads:red"})
    tree = build([other, action("bind_variable", name="logo")], tree)
    message = refused([action("update_element", name="logo", newName="course")], tree)
    assert "'course' is a placeholder in 'sentence'" in message


# Step 3: {page} and {pages}

HEADER = ["Item", "Amount"]


def numbered(name: str, y: float, page: int = 0) -> dict:
    return add("text", name, {"x": 40, "y": y}, {"content": "Page {page} of {pages}", "fields": True}, page=page)


def grown(count: int) -> list[list[str]]:
    return [HEADER] + [[f"item {i:03d}", str(i)] for i in range(count)]


def test_page_numbers_count_the_continuation_sheets_of_a_growing_table():
    tree = build(
        [
            numbered("top", 40),
            add("table", "lines", {"x": 40, "y": 100}, {"cells": [HEADER, ["a", "1"]], "columnWidths": [300, 100]}),
            numbered("after", 160),
            action("bind_variable", name="lines"),
        ]
    )
    assert tree.variables.keys() == {"lines"}  # {page} and {pages} are never variables
    text = pdf_text(render_pdf(tree, {"lines": grown(80)}))
    assert len(text) == 3
    assert "Page 1 of 3" in text[0] and "Page 3 of 3" in text[2]  # where each element is drawn
    assert "Page" not in text[1]
    assert "Page 1 of 1" in pdf_text(render_pdf(tree))[0]  # design time: one sheet


def test_each_page_of_a_two_page_design_shows_its_number():
    tree = build(
        [
            action("add_page"),
            numbered("first", 40, page=0),
            numbered("second", 40, page=1),
            add("table", "lines", {"x": 40, "y": 100}, {"cells": [HEADER, ["a", "1"]], "columnWidths": [300, 100]}),
            action("bind_variable", name="lines"),
        ]
    )
    text = pdf_text(render_pdf(tree))
    assert "Page 1 of 2" in text[0] and "Page 2 of 2" in text[1]
    text = pdf_text(render_pdf(tree, {"lines": grown(40)}))
    assert len(text) == 3 and "Page 1 of 3" in text[0] and "Page 3 of 3" in text[2]
    # A preview of one page numbers it as in the whole document.
    assert "Page 3 of 3" in pdf_text(render_pdf(tree, {"lines": grown(40)}, pages=[1]))[0]


def test_binding_an_element_named_page_or_pages_is_refused():
    tree = build([add("text", "page", {"x": 40, "y": 40}, {"content": "x"}), add("text", "n", {"x": 40, "y": 80})])
    message = refused([action("bind_variable", name="page")], tree)
    assert "'page' is reserved" in message and "rename the element" in message
    tree = build([action("bind_variable", name="n")], tree)
    assert "'pages' is reserved" in refused([action("update_element", name="n", newName="pages")], tree)


@pytest.mark.parametrize("profile", ["accessible", "pdf-a"])
def test_filled_fields_and_page_numbers_in_the_tagged_profiles(profile):
    from ...pdf_checker import problems

    tree = build([sentence(), numbered("footer", 700)])
    pdf = render_pdf(tree, {"recipient": "Grace"}, profile=profile)
    assert problems(pdf) == []
    text = pdf_text(pdf)[0]
    assert "This certifies that Grace completed Analytical Engines." in text and "Page 1 of 1" in text


def test_a_preview_showing_page_numbers_is_redrawn_when_another_page_changes():
    from engine.render.layout import page_digest

    numbered_tree = build([action("add_page"), numbered("n", 40)])
    plain_tree = build([action("add_page"), add("text", "n", {"x": 40, "y": 40}, {"content": "Page 1"})])
    for tree, follows in ((numbered_tree, True), (plain_tree, False)):
        before = page_digest(tree.model_dump(), 0)
        grown = build([add("text", "other", {"x": 40, "y": 40}, {"content": "x"}, page=1)], tree)
        assert (page_digest(grown.model_dump(), 0) != before) is follows
