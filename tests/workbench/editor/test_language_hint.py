"""Which language the properties form offers a text (workbench.editor.language_hint)."""

from __future__ import annotations

from engine import apply, new_design
from workbench.editor.language_hint import suggested_language


def _text(content: str, lang: str | None = None):
    data = {"content": content, **({"lang": lang} if lang else {})}
    args = {"type": "text", "name": "t", "position": {"x": 10, "y": 10}, "data": data}
    action = {"type": "add_element", "args": args}
    tree = apply(new_design(size="A4"), [action])[0]
    return next(iter(tree.nodes.values()))


def test_kana_offers_japanese_and_hangul_korean():
    assert suggested_language(_text("ひらがなと漢字")) == ("ja", "Japanese")
    assert suggested_language(_text("한국어 漢字")) == ("ko", "Korean")
    assert suggested_language(_text("Hello 漢字")) is None


def test_nothing_is_offered_a_text_that_has_a_language_or_takes_it_from_the_design():
    assert suggested_language(_text("ひらがな", lang="ja")) is None
    assert suggested_language(_text("ひらがな"), design_language="ja-JP") is None
    assert suggested_language(_text("ひらがな"), design_language="ko") == ("ja", "Japanese")
