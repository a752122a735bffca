"""The engine's process-wide caches (engine.caches): every one listed in one place, bounded,
and safe to share between the threads a service renders on."""

from __future__ import annotations

import ast
import hashlib
from concurrent.futures import ThreadPoolExecutor

from engine import caches, fonts, render_pdf
from engine.fonts import embedding
from engine.memo import TextCache
from engine.render import form_cache as compiled
from engine.text import shaping, words
from tests.paths import ROOT
from tests.reference_documents import DIGESTS, render, udhr_page
from workbench import samples

ENGINE = ROOT / "engine"
CACHE_DECORATORS = {"cache", "lru_cache", "text_cache"}


def cached_functions() -> set[str]:
    """Every function of the engine under functools' cache or lru_cache, or engine.memo's
    text_cache, as module.qualname."""
    found = set()
    for path in ENGINE.rglob("*.py"):
        parts = path.relative_to(ENGINE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name in CACHE_DECORATORS:
                    found.add(f"{module}.{node.name}")
    return found


def test_every_cached_function_of_the_engine_is_listed():
    listed = {info.name for info in caches.caches()}
    assert cached_functions() - listed == set()


def test_every_cache_is_bounded():
    for info in caches.caches():
        assert info.bound > 0 and 0 <= info.size, info
    for function, _ in caches.FUNCTIONS:
        if isinstance(function, TextCache):
            continue  # bounded by characters (engine.memo): its bound is info.bound above
        if function.cache_info().maxsize is None:  # only a memo of nothing, or of the catalog's files
            assert function is fonts._face or not function.__wrapped__.__code__.co_argcount, function


def test_a_cache_keyed_by_what_users_write_keeps_no_more_than_its_bound():
    fonts.family_for_script.cache_clear()
    for number in range(fonts.family_for_script.cache_info().maxsize + 50):
        fonts.family_for_script("Arab", f"ar-x-{number}")
    info = fonts.family_for_script.cache_info()
    assert info.currsize == info.maxsize


def test_renders_on_threads_give_the_bytes_of_renders_one_after_another():
    """Cold caches, four threads at once: the certificate (compiled forms, font subsets,
    prepared images) and the UDHR page (every script: shaping, private glyph codes)."""
    compiled.FORMS.clear()
    embedding.SUBSETS.clear()
    shaping.shape.cache_clear()
    shaping._line_runs.cache_clear()
    words.shaped.cache_clear()
    words._width.cache_clear()
    jobs = [
        (
            "certificate-standard",
            lambda: render(samples.certificate(), samples.certificate_row(3), samples.resolver, "standard", False),
        ),
        ("udhr-standard", lambda: render_pdf(udhr_page())),
    ] * 2
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda job: (job[0], hashlib.sha256(job[1]()).hexdigest()), jobs))
    assert results == [(name, DIGESTS[name]) for name, _ in jobs]
