"""Word boundaries in the scripts written without spaces between words: Thai, Lao, Khmer and
Burmese (extensions.md 17: lines break at word boundaries, by dictionary for these four).

UAX #14 gives their letters the class SA (complex context) and leaves the breaks between words
to a dictionary. uniseg has none: it resolves SA to AL, so a Thai sentence was one unbreakable
"word" and a line cut it between two grapheme clusters (`ใบประกาศนียบัต | รนี้`, issue 33).
ICU's line break iterator carries dictionaries for all four scripts; icu4py (MIT, ICU's own
licence for ICU) brings it as a manylinux wheel with ICU inside: nothing to compile, no system
ICU. Each run of these scripts is given to ICU alone, so only the cuts between two of its
characters are taken from it; everywhere else UAX #14 (uniseg) decides, as before.
"""

from __future__ import annotations

import re

# Thai and Lao (U+0E00–0EFF), Myanmar (U+1000–109F; extended A and B: U+AA60–AA7F, U+A9E0–A9FF),
# Khmer (U+1780–17FF) and Khmer symbols (U+19E0–19FF): ICU's dictionaries and UAX #14's class
# SA. All in the BMP, so ICU's offsets (UTF-16) are offsets in the run's characters.
_DICTIONARY_RUN = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\ua9e0-\ua9ff\uaa60-\uaa7f]+")
# ICU's root locale: the dictionary is chosen by the characters' script, not by the locale.
_ROOT = "root"


def word_breaks(text: str) -> list[int]:
    """The offsets in `text` where a line may break between two words of a run of Thai, Lao,
    Khmer or Burmese: strictly inside each run (its ends are left to UAX #14). None for text
    without these scripts, found by one regular-expression scan."""
    breaks: list[int] = []
    for run in _DICTIONARY_RUN.finditer(text):
        if run.end() - run.start() < 2:
            continue
        # Imported here, by the first text that needs it: loading ICU takes some 5-10 ms, which
        # a process that never sets these scripts (the CLI, most workers) does not pay.
        from icu4py.breakers import LineBreaker

        start, length = run.start(), run.end() - run.start()
        breaks.extend(start + end for _, end in LineBreaker(run.group(), _ROOT).segments() if end < length)
    return breaks


def words(text: str) -> list[str]:
    """`text` cut at its dictionary word breaks (a run of another script stays whole)."""
    pieces: list[str] = []
    start = 0
    for cut in word_breaks(text):
        pieces.append(text[start:cut])
        start = cut
    pieces.append(text[start:])
    return [piece for piece in pieces if piece]
