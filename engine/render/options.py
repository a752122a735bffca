"""How a render draws: one frozen value passed with it (issue 32), not switches on modules.

The default is the fast path every face renders with. `RenderOptions.reference()` turns each
fast path off: everything drawn through ReportLab's own text objects, cell by cell, every
element on the page, the tagged profiles written by the pikepdf pass. That is what the fast
paths replaced, and tests compare them with it: the glyphs land in the same places, the text
and the pixels are the same, the structure says the same; the bytes are not the same.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RenderOptions:
    # A standard-profile document generated from values draws what every row of its design
    # draws the same from compiled Form XObjects, drawn once per process (engine.render.form_cache).
    compiled_forms: bool = True
    # Plain lines written as PDF text operators in one text object (typeset.TextWriter), not
    # one ReportLab text object per line.
    direct_text: bool = True
    # An untagged table's cells as one background path per colour and one text object; a
    # tagged table's plain cells each as one literal (with direct_text only).
    batched_cells: bool = True
    # The tagged profiles' structure written into ReportLab's document as it is saved
    # (profiles.save_tagged), not by a pikepdf pass over the saved file.
    tagged_written_directly: bool = True

    @classmethod
    def reference(cls) -> RenderOptions:
        """Every fast path off: the oracle the fast paths are checked against."""
        return cls(compiled_forms=False, direct_text=False, batched_cells=False, tagged_written_directly=False)


DEFAULT_OPTIONS = RenderOptions()

__all__ = ["DEFAULT_OPTIONS", "RenderOptions"]
