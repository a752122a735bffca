"""Texts the tests set: long names, paragraphs, other scripts, and how they are read back."""

from __future__ import annotations

import random

LONG_NAME = "Maximilian Alexander Worthington-Smythe"


def paragraphs(count: int, lines_each: int = 5) -> str:
    """Paragraphs of numbered words, one word per line in a narrow box."""
    return "\n".join(" ".join(f"p{p:02d}l{line}" for line in range(lines_each)) for p in range(count))


def words_in_order(texts: list[str]) -> list[str]:
    return [word for text in texts for word in text.split() if word.startswith("p") and "l" in word]


def chinese(length: int, seed: int) -> str:
    """Text like Chinese prose: ideographs (not repeating, so no cache helps) and a comma or stop
    every 5 to 25 of them."""
    rng = random.Random(seed)
    common = [chr(code) for code in range(0x4E00, 0x4E00 + 3000)]
    out: list[str] = []
    while len(out) < length:
        out.extend(rng.choice(common) for _ in range(rng.randint(5, 25)))
        out.append(rng.choice("，。、；！？"))
    return "".join(out[:length])


HEADER = ["Alpha", "Bravo", "Charlie"]


WIDTHS = [120, 60, 90]  # unequal, so a mirrored table is not the same table
