"""Text, from a string to positioned glyphs.

`style` is the resolved style of a run; `shaping` splits text into bidi and script runs and
shapes them with HarfBuzz; `typeset` breaks lines and writes them; `richtext` lays out
lines of differently styled spans, from `markup` (inline Markdown); `fitting` shrinks or
limits text to its box; `placeholders` fills `{name}` fields; `formatting` shows typed
values (numbers, currencies, dates).
"""
