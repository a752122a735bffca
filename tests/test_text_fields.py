"""Fields inside text (extensions.md 1): placeholders, samples, variables, {page}/{pages}."""

import pytest

from engine import ActionError, render_pdf

from .conftest import action, add, build, pdf_text


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
    assert "not a sample" in refused([sentence(samples={"page": "3"})])
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
