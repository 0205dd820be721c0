"""How often each of many texts occurs in a corpus, in one pass over the corpus per text length.

``gold check`` needs, for every gold span, the number of times its text occurs anywhere in the
corpus. Counting each text with ``str.count`` over every document costs (spans x corpus size): as a
question set grows with its corpus, that is quadratic. Here every text is counted at once:

1. The texts are grouped by their *anchor length* ``min(len, ANCHOR)``. For each anchor length the
   corpus is scanned once (window by window, so memory stays bounded by the window, whatever a
   document's size): the polynomial hash of every substring of that length is computed with
   numpy, and the positions whose hash equals the anchor hash (the first ``anchor`` characters) of
   some text are kept.
2. Every kept position is verified by comparing the document's text there with the whole text
   (``str.startswith``), so a hash collision never counts: the counts are exact.
3. Occurrences are counted as ``str.count`` counts them: non-overlapping, leftmost first, within one
   document (an occurrence never spans two documents).

The work is proportional to the corpus size times the number of distinct anchor lengths (at most
``ANCHOR``), plus the number of candidate positions, instead of to corpus size times texts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

ANCHOR = 16
"""Texts of at least this many characters are found by their first ANCHOR characters."""
WINDOW = 1 << 20
"""Characters of a document hashed at once (longer documents are scanned in overlapping windows)."""
_BASE = 0x100000001B3  # odd, so its powers are invertible modulo 2**64
_MASK = (1 << 64) - 1

Progress = Callable[[int, int], None]
"""Called with (characters scanned, characters to scan) as the scan proceeds."""


def count_occurrences(
    documents: Sequence[str], texts: Iterable[str], progress: Progress | None = None
) -> dict[str, int]:
    """Non-overlapping occurrences of each non-empty text over all ``documents`` (``str.count`` summed)."""
    wanted = sorted({text for text in texts if text})
    counts = dict.fromkeys(wanted, 0)
    by_anchor: dict[int, list[str]] = defaultdict(list)
    for text in wanted:
        by_anchor[min(len(text), ANCHOR)].append(text)
    total = sum(len(document) for document in documents) * len(by_anchor)
    scanned = 0
    for anchor, group in sorted(by_anchor.items()):
        anchors: dict[int, list[str]] = defaultdict(list)
        for text in group:
            anchors[_hash(text[:anchor])].append(text)
        keys = np.array(sorted(anchors), dtype=np.uint64)
        for document in documents:
            starts = _anchor_starts(document, anchor, keys)
            _count_at(document, starts, anchors, counts)
            scanned += len(document)
            if progress is not None:
                progress(scanned, total)
    return counts


def _hash(text: str) -> int:
    """The polynomial hash ``sum(ord(c) * BASE**i)`` modulo 2**64 (the same as the vectorised one)."""
    value, power = 0, 1
    for character in text:
        value = (value + ord(character) * power) & _MASK
        power = (power * _BASE) & _MASK
    return value


def _powers(length: int) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """BASE**i and its inverse modulo 2**64 for i in 0..length-1 (numpy's uint64 arithmetic wraps)."""
    powers = np.full(length, _BASE, dtype=np.uint64)
    inverses = np.full(length, pow(_BASE, -1, 1 << 64), dtype=np.uint64)
    powers[0] = inverses[0] = 1
    with np.errstate(over="ignore"):
        return np.cumprod(powers, dtype=np.uint64), np.cumprod(inverses, dtype=np.uint64)


_POWERS: dict[int, tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]] = {}


def _anchor_starts(document: str, anchor: int, keys: npt.NDArray[np.uint64]) -> dict[int, list[int]]:
    """Start offsets in ``document`` whose ``anchor`` characters hash to one of ``keys``, by hash."""
    found: dict[int, list[int]] = defaultdict(list)
    if len(document) < anchor:
        return found
    span = WINDOW + anchor - 1
    if span not in _POWERS:
        _POWERS.clear()
        _POWERS[span] = _powers(span + 1)
    powers, inverses = _POWERS[span]
    for offset in range(0, len(document) - anchor + 1, WINDOW):
        piece = document[offset : offset + span]
        codes = np.frombuffer(piece.encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.uint64)
        prefix = np.zeros(len(codes) + 1, dtype=np.uint64)
        with np.errstate(over="ignore"):
            np.cumsum(codes * powers[: len(codes)], out=prefix[1:])
            hashes = (prefix[anchor:] - prefix[: len(prefix) - anchor]) * inverses[: len(prefix) - anchor]
        hashes = hashes[: min(WINDOW, len(hashes))]
        index = np.minimum(np.searchsorted(keys, hashes), len(keys) - 1)
        for position in np.flatnonzero(keys[index] == hashes).tolist():
            found[int(hashes[position])].append(offset + position)
    return found


def _count_at(
    document: str, starts: dict[int, list[int]], anchors: dict[int, list[str]], counts: dict[str, int]
) -> None:
    """Add the verified non-overlapping occurrences at ``starts`` (ascending) to ``counts``."""
    for key, positions in starts.items():
        for text in anchors[key]:
            end = -1
            for position in positions:
                if position >= end and document.startswith(text, position):
                    counts[text] += 1
                    end = position + len(text)
