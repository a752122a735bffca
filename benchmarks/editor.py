"""Editor latency: from an edit in the browser to the new preview painted.

Starts `docbench serve`, authors the reference certificate over the API, opens it in
Debian's headless chromium (Playwright) and makes 30 edits of each kind:

- **drag**: the logo dragged (Alt: no snapping), from the pointerup that sends the move;
- **text**: the recipient's name typed on the canvas, from the Enter that sends it;
- **toolbar**: a new font size for the recipient's name from the text toolbar (a size not
  shown before, so every change is rendered: no preview comes from the cache), from the
  Enter in the toolbar's size box.

Each time is measured inside the page, to the frame after the new PNG has loaded. Beside
them, the engine's own tree → PNG time in this run.

    python -m benchmarks.editor
"""

from __future__ import annotations

import shutil
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from engine import DesignTree, render_png
from tests.browser import CHROMIUM_ARGS, select
from workbench import samples

from .api import Server, author_certificate

EDITS = 30
WARM_UP = 2  # edits before the measured ones: the first ones warm the path up

# Marks the canvas when Enter commits a value in the text toolbar, as the canvas (canvas/boxes.js) marks it when
# a drag ends (keydown crosses the shadow roots; the input's own change event does not).
MARK_TOOLBAR_ENTER = """([canvas]) => document.addEventListener("keydown", (e) => {
  const inToolbar = e.composedPath().some((n) => n.classList && n.classList.contains("dbk-text-toolbar-row"));
  if (inToolbar && e.key === "Enter") canvas.dataset.editAt = String(performance.now());
}, true)"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def engine_png_ms(tree: DesignTree, resolver, runs: int = EDITS) -> list[float]:  # noqa: ANN001
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        render_png(tree, 0, resolver, dpi=96)
        times.append((time.perf_counter() - start) * 1000)
    return times


@contextmanager
def editor_page(server: Server, design_id: str) -> Iterator[Any]:
    """The design open in the workbench, signed in, its first preview shown."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 950})
        page.set_default_timeout(15_000)
        base = server.api.removesuffix("/api/v1")
        page.goto(base + "/")
        page.locator("input[name=api_key]").fill(server.key)
        page.locator(".dbk-signin button").click()
        page.locator(".dbk-create button").wait_for()
        page.goto(f"{base}/?design={design_id}")
        page.locator(".dbk-preview[src^='data:image/png']").wait_for()
        try:
            yield page
        finally:
            browser.close()


def edit_to_paint_ms(page: Any, edit: Callable[[int], None]) -> list[float]:
    """Run `edit(i)` EDITS (+ warm-up) times; each time, from the page's edit mark to the new preview painted."""
    canvas = page.locator(".dbk-canvas")
    times = []
    for i in range(EDITS + WARM_UP):
        painted = int(canvas.get_attribute("data-painted") or 0)
        edit(i)
        page.wait_for_function(
            "([el, n]) => Number(el.dataset.painted || 0) > n"
            " && Number(el.dataset.paintedAt) > Number(el.dataset.editAt)",
            arg=[canvas.element_handle(), painted],
        )
        if i >= WARM_UP:
            times.append(float(canvas.get_attribute("data-painted-at")) - float(canvas.get_attribute("data-edit-at")))
    return times


def drag_ms(page: Any) -> list[float]:
    """The logo dragged 24 px right and back."""
    logo = page.locator(".dbk-box[data-name='logo']")
    # Select first and wait for the round trip: a drag racing the first selection can be lost.
    select(page, "logo")

    def drag(i: int) -> None:
        area = logo.bounding_box()
        x, y = area["x"] + area["width"] / 2, area["y"] + area["height"] / 2
        page.keyboard.down("Alt")  # no snapping: every drag is a real move
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + (24 if i % 2 == 0 else -24), y, steps=4)
        page.mouse.up()
        page.keyboard.up("Alt")

    return edit_to_paint_ms(page, drag)


def text_edit_ms(page: Any) -> list[float]:
    """The recipient's name typed on the canvas: double-click, type, Enter."""
    recipient = page.locator(".dbk-box[data-name='recipient']")
    select(page, "recipient")

    def type_name(i: int) -> None:
        recipient.dblclick()
        page.locator(".dbk-text-edit").wait_for()
        page.keyboard.type("Grace Hopper" if i % 2 == 0 else "Ada Lovelace")  # replaces the selected text
        page.keyboard.press("Enter")

    return edit_to_paint_ms(page, type_name)


def toolbar_ms(page: Any) -> list[float]:
    """A new font size for the recipient's name from the text toolbar's size box."""
    select(page, "recipient")
    page.evaluate(MARK_TOOLBAR_ENTER, [page.locator(".dbk-canvas").element_handle()])
    size = page.locator(".dbk-text-toolbar .dbk-tt-fontSize input")

    def resize_font(i: int) -> None:
        size.fill(f"{30 + i * 0.5:g}")  # a size not shown before: rendered, not cached
        size.press("Enter")

    return edit_to_paint_ms(page, resize_font)


def main() -> None:
    server = Server()
    try:
        design_id = author_certificate(server)
        with editor_page(server, design_id) as page:
            measured = {"drag": drag_ms(page), "text": text_edit_ms(page), "toolbar": toolbar_ms(page)}
    finally:
        server.stop()
    engine = engine_png_ms(samples.certificate(), samples.resolver)
    e50, d50 = statistics.median(engine), statistics.median(measured["drag"])
    notes = {
        "drag": "end of a drag → painted (target p50 < 250 ms)",
        "text": "text typed on the canvas: Enter → painted",
        "toolbar": "style change from the text toolbar → painted",
    }
    print(f"Editor: an edit → the new preview painted (Chromium, certificate, {EDITS} edits each)")
    for kind, times in measured.items():
        p50, p95 = statistics.median(times), percentile(times, 0.95)
        print(f"  {kind:<8} p50 {p50:6.1f} ms   p95 {p95:6.1f} ms   {notes[kind]}")
    print(f"  engine   p50 {e50:6.1f} ms   p95 {percentile(engine, 0.95):6.1f} ms   tree → PNG at 96 dpi, same run")
    print(f"  overhead p50 {d50 - e50:6.1f} ms   (a drag: save, reload, preview, paint), ratio ×{d50 / e50:.1f}")


if __name__ == "__main__":
    main()
