"""The normalised form of a long document, with its map back to the original, takes a few bytes per character."""

from __future__ import annotations

import tracemalloc

from chunkscope.io.quotes import QuoteFinder, normalize_with_map

BYTES_PER_CHARACTER = 24
"""Bound on the peak traced memory of normalising an ASCII text, per character: two 4-byte offsets, the text
itself, and the pieces on the way. A tuple of Python ints per offset took about 150 (2.2 GB for 20 MB)."""


def test_normalising_a_long_text_takes_a_few_bytes_per_character() -> None:
    text = "Returns are accepted within 30  days of\ndelivery, \u201cno questions asked\u201d. " * 5_000
    tracemalloc.start()
    try:
        normalized = normalize_with_map(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < BYTES_PER_CHARACTER * len(text), peak / len(text)
    # the same numbers as before: spot checks by hand on the first sentence
    assert normalized.text.startswith('Returns are accepted within 30 days of delivery, "no questions asked". ')
    assert normalized.original(28, 38) == (28, 39)  # "30 days" with the double space behind one space
    assert normalized.original(39, 47) == (40, 48)  # "delivery", after the line break read as a space
    # the sentence is 72 characters long: the second occurrence lies 72 further
    assert QuoteFinder().find("d", text, "30 days of delivery").places[:2] == ((28, 48), (100, 120))
