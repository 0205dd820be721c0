"""Placing texts in a document when their offsets cannot be trusted: chunk dumps and quotes.

A text without a trustworthy offset can only be placed at an occurrence of it, and a text that
occurs more than once needs something else to choose. For the chunks of one document that
something is their order: a splitter emits chunks front to back, so in file order

- each chunk starts after the previous one starts (starts strictly increase), and
- ends after the previous one ends (ends strictly increase): it overlaps the previous chunk by
  less than its own length, so it adds text and never lies inside its predecessor, not even as
  its suffix. Splitters always add text; a forward search that ignores this is what puts a short
  chunk inside the chunk before it.

:func:`place_in_order` considers every *placement*: each chunk put at one occurrence of its text
(a chunk whose text does not occur is left out and does not constrain the others), such that
every pair of consecutive chunks keeps both rules. Among the placements it takes those that keep
the most given offsets (an offset is *kept* when the chunk sits there; an offset where the text
does not stand is never kept). A chunk whose position is the same in all of them is placed
(``exact`` when that is its given offset, else ``relocated``); a chunk with more than one position
among them is ``ambiguous`` and never guessed. This is a dynamic programme over occurrences
(forward and backward best scores per occurrence), so a repeated passage is placed by the chunks
around it, which a forward search cannot do.

When no placement exists at all (the file does not list the document's chunks front to back),
the order says nothing and every chunk is placed on its own by :func:`place_one`: at its given
offset when its text stands there, else at its only occurrence, else it is ambiguous.

Offsets are Python string indices (code points); convert other units first (``io.offsets``).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Status = Literal["exact", "relocated", "ambiguous", "not_found"]

_UNREACHABLE = -1
"""Score of an occurrence no placement can use (real scores count kept offsets, so are >= 0)."""


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one text was placed, or why it was not."""

    status: Status
    """``exact`` (at its given offset), ``relocated``, ``ambiguous`` or ``not_found``."""
    start: int | None = None
    """The start offset for ``exact`` and ``relocated``; None otherwise."""
    candidates: tuple[int, ...] = ()
    """For ``ambiguous``: every start still possible, ascending."""

    @property
    def placed(self) -> bool:
        """True when the text has one position (``exact`` or ``relocated``)."""
        return self.start is not None


@dataclass(slots=True)  # not frozen: built once per chunk of a dump, so construction cost counts
class Piece:
    """One text to place: its text, the offset it claims (if any), and whether that offset is fixed."""

    text: str
    """The text; must be non-empty."""
    claimed: int | None = None
    """The start the input gives (may be wrong, -1, or outside the document); None when absent."""
    fixed: bool = False
    """The position is the input's offset and nothing else (a chunk given by offsets only)."""


@dataclass(frozen=True, slots=True)
class OrderedPlacement:
    """The placements of a document's pieces, in input order."""

    placements: tuple[Placement, ...]
    """One per piece, in input order."""
    order_break: tuple[int, int] | None = None
    """When the pieces admit no ordered placement: (index of a piece, index of the placed piece before it
    that it cannot follow), and every piece was placed on its own."""


def occurrences(text: str, needle: str) -> list[int]:
    """Start offsets of every occurrence of ``needle`` in ``text`` (overlapping ones included), ascending."""
    found: list[int] = []
    position = text.find(needle)
    while position != -1:
        found.append(position)
        position = text.find(needle, position + 1)
    return found


class OccurrenceIndex:
    """Every occurrence of many needles in one long text, without scanning the text once per needle.

    The ``gram``-character substrings starting at every ``stride``-th position are indexed. An
    occurrence of a needle at ``p`` covers exactly one indexed position ``q`` with ``p <= q < p + stride``;
    when the needle is at least ``gram + stride - 1`` long, the indexed gram at ``q`` lies inside it, at
    offset ``q - p``. So looking up the needle's grams at offsets ``0 .. stride - 1`` and checking each
    candidate start finds every occurrence, as :func:`occurrences` does. Shorter needles are searched
    in the text.
    """

    def __init__(self, text: str, stride: int = 16, gram: int = 16) -> None:
        self.text = text
        self.stride = stride
        self.gram = gram
        index: dict[str, list[int]] = {}
        for position in range(0, len(text) - gram + 1, stride):
            index.setdefault(text[position : position + gram], []).append(position)
        self._index = index

    def find_all(self, needle: str) -> list[int]:
        """Start offsets of every occurrence of ``needle``, ascending (overlapping ones included)."""
        if len(needle) < self.gram + self.stride - 1:
            return occurrences(self.text, needle)
        found = set()
        text, gram = self.text, self.gram
        for offset in range(self.stride):
            for position in self._index.get(needle[offset : offset + gram], ()):
                start = position - offset
                if start >= 0 and text.startswith(needle, start):
                    found.add(start)
        return sorted(found)


_INDEX_FROM_CHARS = 50_000
"""Text length from which an :class:`OccurrenceIndex` pays: below it one scan of the text costs less than the
index's lookups for a needle (measured on CPython 3.11: a scan costs about 1 ns a character, a lookup of
``stride`` grams about 30 µs)."""
_INDEX_FROM_NEEDLES = 32
"""Needle count from which building the index pays."""


def claim_holds(text: str, needle: str, claimed: int | None) -> bool:
    """True when ``needle`` stands in ``text`` at offset ``claimed``."""
    return claimed is not None and claimed >= 0 and text.startswith(needle, claimed)


def place_one(text: str, needle: str, claimed: int | None = None) -> Placement:
    """Place one text without order: at ``claimed`` if it stands there, else at its only occurrence.

    For a quote in a question, or a chunk of a document whose chunks are out of order. A text that
    occurs several times (and does not stand at ``claimed``) is ``ambiguous``; one that never occurs is
    ``not_found``.
    """
    if claim_holds(text, needle, claimed):
        return Placement("exact", claimed)
    found = occurrences(text, needle)
    if not found:
        return Placement("not_found")
    if len(found) == 1:
        return Placement("relocated", found[0])
    return Placement("ambiguous", candidates=tuple(found))


@dataclass(slots=True)
class _Layer:
    """The occurrences of one piece that has at least one, with their scores."""

    piece: int
    length: int
    starts: list[int]
    kept: list[int]  # 1 where the start is the piece's given offset
    forward: list[int]
    backward: list[int]


def place_in_order(text: str, pieces: Sequence[Piece]) -> OrderedPlacement:
    """Place the pieces of one document, in input order, by the rule in the module docstring."""
    layers: list[_Layer] = []
    results: list[Placement | None] = [None] * len(pieces)
    find_all = (
        OccurrenceIndex(text).find_all
        if len(text) >= _INDEX_FROM_CHARS and len(pieces) >= _INDEX_FROM_NEEDLES
        else lambda needle: occurrences(text, needle)
    )
    for index, piece in enumerate(pieces):
        starts = [piece.claimed] if piece.fixed and piece.claimed is not None else find_all(piece.text)
        if not starts:
            results[index] = Placement("not_found")
            continue
        kept = [1 if start == piece.claimed else 0 for start in starts]
        layers.append(_Layer(index, len(piece.text), starts, kept, [], []))
    broken = _forward(layers)
    if broken is not None:
        return OrderedPlacement(tuple(_place_alone(text, piece) for piece in pieces), broken)
    _backward(layers)
    best = max(layers[-1].forward) if layers else 0
    for layer in layers:
        if len(layer.starts) == 1:  # on every placement, so on the best ones
            results[layer.piece] = _status(tuple(layer.starts), pieces[layer.piece].claimed)
            continue
        best_starts = tuple(
            start
            for start, kept, forward, backward in zip(
                layer.starts, layer.kept, layer.forward, layer.backward, strict=True
            )
            if forward != _UNREACHABLE and backward != _UNREACHABLE and forward + backward - kept == best
        )
        results[layer.piece] = _status(best_starts, pieces[layer.piece].claimed)
    return OrderedPlacement(tuple(result or Placement("not_found") for result in results))


def _place_alone(text: str, piece: Piece) -> Placement:
    if piece.fixed and piece.claimed is not None:
        return Placement("exact", piece.claimed)
    return place_one(text, piece.text, piece.claimed)


def _status(starts: tuple[int, ...], claimed: int | None) -> Placement:
    if len(starts) > 1:
        return Placement("ambiguous", candidates=starts)
    (start,) = starts  # a layer on a best placement always has one
    return Placement("exact" if start == claimed else "relocated", start)


def _step(previous: _Layer, current: _Layer) -> int:
    """The largest ``previous`` start minus a ``current`` start that keeps both order rules.

    ``q`` (previous) may precede ``p`` (current) when ``q < p`` and ``q + previous.length < p + current.length``.
    """
    return min(0, current.length - previous.length) - 1


def _forward(layers: list[_Layer]) -> tuple[int, int] | None:
    """Best kept offsets of a placement of layers[0..k] ending at each start; the first break, if any."""
    for k, layer in enumerate(layers):
        if k == 0:
            layer.forward = list(layer.kept)
            continue
        previous = layers[k - 1]
        step = _step(previous, layer)
        if len(previous.starts) == 1:  # the common case: one occurrence before, no search needed
            (before,), (score,) = previous.starts, previous.forward
            forward = [
                score + kept if before <= start + step else _UNREACHABLE
                for start, kept in zip(layer.starts, layer.kept, strict=True)
            ]
        else:
            prefix_best = _running_max(previous.forward)
            forward = []
            for start, kept in zip(layer.starts, layer.kept, strict=True):
                last = bisect.bisect_right(previous.starts, start + step) - 1
                reachable = prefix_best[last] if last >= 0 else _UNREACHABLE
                forward.append(_UNREACHABLE if reachable == _UNREACHABLE else reachable + kept)
        if all(score == _UNREACHABLE for score in forward):
            return layer.piece, previous.piece
        layer.forward = forward
    return None


def _backward(layers: list[_Layer]) -> None:
    """Best kept offsets of a placement of layers[k..] starting at each start."""
    for k in range(len(layers) - 1, -1, -1):
        layer = layers[k]
        if k == len(layers) - 1:
            layer.backward = list(layer.kept)
            continue
        following = layers[k + 1]
        step = _step(layer, following)
        if len(following.starts) == 1:
            (after,), (score,) = following.starts, following.backward
            backward = [
                score + kept if score != _UNREACHABLE and start <= after + step else _UNREACHABLE
                for start, kept in zip(layer.starts, layer.kept, strict=True)
            ]
        else:
            suffix_best = _running_max(following.backward[::-1])[::-1]
            backward = []
            for start, kept in zip(layer.starts, layer.kept, strict=True):
                first = bisect.bisect_left(following.starts, start - step)
                reachable = suffix_best[first] if first < len(following.starts) else _UNREACHABLE
                backward.append(_UNREACHABLE if reachable == _UNREACHABLE else reachable + kept)
        layer.backward = backward


def _running_max(values: list[int]) -> list[int]:
    out = []
    best = _UNREACHABLE
    for value in values:
        best = max(best, value)
        out.append(best)
    return out
