"""Placing texts in a document when their offsets cannot be trusted: chunk dumps and quotes.

A text without a trustworthy offset can only be placed at an occurrence of it, and a text that
occurs more than once needs something else to choose. For the chunks of one document that
something is their order: a splitter emits chunks front to back, so in file order

- each chunk starts where or after the previous one starts, and ends where or after it ends
  (starts and ends never decrease), and
- it is not the previous chunk's span again: it adds text at its end or drops text at its start.

So a chunk never lies inside its predecessor short of its end. LangChain's recursive splitter
emits both equal cases: a chunk that ends where the previous one ends (a suffix of it), and one
that starts where the previous one starts (an extension of it). A forward search that ignores the
rule is what puts a short chunk inside the chunk before it.

:func:`place_in_order` considers every *placement*: each chunk put at one occurrence of its text
(a chunk whose text does not occur is left out and does not constrain the others), such that
every pair of consecutive chunks keeps both rules. Among the placements it takes those that cover
the most of the document (the characters inside at least one chunk): a real splitter leaves no text
outside every chunk, so a placement that leaves text uncovered where another covers it is not the
splitter's, whatever offsets it keeps (a wrong offset pointing at an earlier copy of a repeated text
is exactly such a placement). Among those it takes the ones that keep the most given offsets (an
offset is *kept* when the chunk sits there; an offset where the text does not stand is never kept).
With the same chunks, the covered characters are their lengths less the overlaps of consecutive
chunks, so this prefers the placement whose chunks overlap least. A chunk whose position is the
same in all of them is placed (``exact`` when that is its given offset, else ``relocated``); a chunk
with more than one position among them is ``ambiguous`` and never guessed.

Time and memory stay proportional to the document plus the texts, however often the texts repeat.
One forward and one backward search bound each chunk to a *window*: its earliest start on any
placement and its latest. Every occurrence inside the window is on some placement, and only those
are ever listed. A chunk whose window holds one occurrence is placed without weighing (it is there
on every placement) and cuts the chain into independent runs; each run of the others is weighed by
a dynamic programme over their window occurrences (forward and backward best scores, each step a
running and a sliding maximum). When the windows of the runs together span more than
:data:`WEIGH_BUDGET_FACTOR` times the document and texts, the chunks of the runs beyond that are
not weighed: they are left out as ambiguous, with the first :data:`MAX_UNWEIGHED_CANDIDATES` starts
their window allows, and :attr:`OrderedPlacement.unweighed` counts them.

When no placement exists at all (the file does not list the document's chunks front to back),
the order says nothing and every chunk is placed on its own by :func:`place_one`: at its given
offset when its text stands there, else at its only occurrence, else it is ambiguous.

Offsets are Python string indices (code points); convert other units first (``io.offsets``).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

Status = Literal["exact", "relocated", "ambiguous", "not_found"]

WEIGH_BUDGET_FACTOR = 8
"""The windows of the chunks weighed in one document may span at most this many times the document's length
plus its chunks' (plus :data:`WEIGH_BUDGET_FLOOR`) characters; beyond, chunks are left out unweighed."""
WEIGH_BUDGET_FLOOR = 1 << 20
MAX_UNWEIGHED_CANDIDATES = 100
"""The starts listed for a chunk left out unweighed (its window's first ones)."""


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
    unweighed: int = 0
    """Pieces left out as ambiguous without weighing, their windows being past the budget (module docstring)."""


def occurrences(text: str, needle: str) -> list[int]:
    """Start offsets of every occurrence of ``needle`` in ``text`` (overlapping ones included), ascending."""
    found: list[int] = []
    position = text.find(needle)
    while position != -1:
        found.append(position)
        position = text.find(needle, position + 1)
    return found


class GramIndex:
    """Whether long needles occur in one long text, without scanning the text once per needle.

    The ``gram``-character substrings starting at every ``stride``-th position are indexed. An
    occurrence of a needle at ``p`` covers exactly one indexed position ``q`` with ``p <= q < p + stride``;
    when the needle is at least :attr:`min_length` (``gram + stride - 1``) long, the indexed gram at ``q``
    lies inside it, at offset ``q - p``. So looking up the needle's grams at offsets ``0 .. stride - 1``
    and checking each candidate start finds every occurrence. Built only for a long document in which
    several texts were not found (each such text otherwise costs a scan of the whole document).
    """

    def __init__(self, text: str, stride: int = 16, gram: int = 16) -> None:
        self.text = text
        self.stride = stride
        self.gram = gram
        self.min_length = gram + stride - 1
        index: dict[str, list[int]] = {}
        for position in range(0, len(text) - gram + 1, stride):
            index.setdefault(text[position : position + gram], []).append(position)
        self._index = index

    def occurs(self, needle: str) -> bool:
        """True when ``needle`` (at least :attr:`min_length` long) occurs in the text."""
        text, gram = self.text, self.gram
        for offset in range(self.stride):
            for position in self._index.get(needle[offset : offset + gram], ()):
                start = position - offset
                if start >= 0 and text.startswith(needle, start):
                    return True
        return False


_INDEX_FROM_CHARS = 50_000
"""Document length from which a :class:`GramIndex` may pay: one scan of the text costs about 1 ns a character
(CPython 3.11), a lookup of ``stride`` grams about 30 µs."""
_INDEX_AFTER_MISSES = 8
"""Texts not found in one document (each a whole scan) after which its :class:`GramIndex` is built."""


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
class _Link:
    """A piece with at least one occurrence: its window (earliest and latest start on any placement)."""

    piece: int
    length: int
    lowest: int
    highest: int = -1


@dataclass(slots=True)
class _Layer:
    """The occurrences of one link inside its window, with their scores (kept offsets, then coverage)."""

    link: _Link
    starts: list[int]
    bonus: list[int]  # 1 where the start is the piece's given offset (a kept offset), else 0
    forward: list[int] = field(default_factory=list)
    backward: list[int] = field(default_factory=list)


def _gap(before: int, after: int) -> int:
    """The least start difference from a piece of length ``before`` to the next, of length ``after``.

    A longer next piece may start at the same place (difference >= 0: it ends later); any other starts later
    (difference >= 1) and ends no earlier (difference >= ``before - after``).
    """
    return 0 if after > before else max(1, before - after)


def place_in_order(text: str, pieces: Sequence[Piece], budget: int | None = None) -> OrderedPlacement:
    """Place the pieces of one document, in input order, by the rule in the module docstring.

    ``budget`` bounds the characters the weighed windows may span (default: the module's factor times the
    document plus the texts).
    """
    results: list[Placement | None] = [None] * len(pieces)
    chain, broken = _windows(text, pieces, results)
    if broken is not None:
        return OrderedPlacement(tuple(_place_alone(text, piece) for piece in pieces), broken)
    if budget is None:
        budget = WEIGH_BUDGET_FACTOR * (len(text) + sum(len(piece.text) for piece in pieces)) + WEIGH_BUDGET_FLOOR
    scale = len(pieces) + 1  # one covered character outweighs every kept offset
    unweighed = 0
    k = 0
    while k < len(chain):
        link = chain[k]
        if link.lowest == link.highest:  # on every placement: the same on the best ones
            results[link.piece] = _status((link.lowest,), pieces[link.piece].claimed)
            k += 1
            continue
        end = k
        while end < len(chain) and chain[end].lowest != chain[end].highest:
            end += 1
        run = chain[k:end]
        span = sum(item.highest - item.lowest for item in run)
        if span > budget:
            for item in run:
                found = _window_starts(text, pieces[item.piece].text, item, MAX_UNWEIGHED_CANDIDATES)
                results[item.piece] = Placement("ambiguous", candidates=tuple(found))
            unweighed += len(run)
        else:
            budget -= span
            bounded = chain[max(k - 1, 0) : end + 1]  # with the pinned links around the run
            for item, placement in zip(bounded, _weigh(text, pieces, bounded, scale), strict=True):
                results[item.piece] = placement
        k = end
    return OrderedPlacement(tuple(result or Placement("not_found") for result in results), unweighed=unweighed)


def _windows(
    text: str, pieces: Sequence[Piece], results: list[Placement | None]
) -> tuple[list[_Link], tuple[int, int] | None]:
    """The links with their windows (not-found pieces get their result here), or the first order break.

    Forward, each link's earliest start is its first occurrence at or after the least start its
    predecessor's earliest allows; backward, its latest is its last occurrence at or before the most its
    successor's latest allows. Each search starts where the previous one stopped, so both passes read the
    document about once.
    """
    chain: list[_Link] = []
    grams: GramIndex | None = None
    misses = 0
    for index, piece in enumerate(pieces):
        length = len(piece.text)
        least = chain[-1].lowest + _gap(chain[-1].length, length) if chain else 0
        if piece.fixed and piece.claimed is not None:
            if piece.claimed < least:
                return chain, (index, chain[-1].piece)
            chain.append(_Link(index, length, piece.claimed, piece.claimed))
            continue
        if grams is not None and length >= grams.min_length and not grams.occurs(piece.text):
            results[index] = Placement("not_found")
            continue
        start = text.find(piece.text, least)
        if start == -1:
            if chain and text.find(piece.text, 0, least + length - 1) != -1:
                return chain, (index, chain[-1].piece)
            results[index] = Placement("not_found")
            misses += 1
            if grams is None and misses >= _INDEX_AFTER_MISSES and len(text) >= _INDEX_FROM_CHARS:
                grams = GramIndex(text)
            continue
        chain.append(_Link(index, length, start))
    most = len(text)
    for k in range(len(chain) - 1, -1, -1):
        link = chain[k]
        if k + 1 < len(chain):
            following = chain[k + 1]
            most = following.highest - _gap(link.length, following.length)
        piece = pieces[link.piece]
        if not (piece.fixed and piece.claimed is not None):
            link.highest = text.rfind(piece.text, link.lowest, most + link.length)
    return chain, None


def _window_starts(text: str, needle: str, link: _Link, limit: int | None = None) -> list[int]:
    """The occurrences of ``needle`` inside ``link``'s window (the first ``limit`` of them)."""
    found: list[int] = []
    position = link.lowest
    while position != -1 and position <= link.highest and (limit is None or len(found) < limit):
        found.append(position)
        position = text.find(needle, position + 1, link.highest + len(needle))
    return found


def _weigh(text: str, pieces: Sequence[Piece], links: list[_Link], scale: int) -> list[Placement]:
    """The placements of consecutive links whose first and last may be pinned: the best placements' positions.

    A score is covered characters times ``scale`` plus kept offsets (``scale`` exceeds the number of pieces).
    """
    layers = []
    for link in links:
        piece = pieces[link.piece]
        starts = _window_starts(text, piece.text, link)
        layers.append(_Layer(link, starts, [1 if start == piece.claimed else 0 for start in starts]))
    first = layers[0]
    first.forward = [bonus + first.link.length * scale for bonus in first.bonus]
    for previous, layer in itertools.pairwise(layers):
        layer.forward = _forward(previous, layer, scale)
    last = layers[-1]
    last.backward = list(last.bonus)
    for layer, following in zip(layers[-2::-1], layers[:0:-1], strict=True):
        layer.backward = _backward(layer, following, scale)
    best = max(last.forward)
    placements = []
    for layer in layers:
        best_starts = tuple(
            start
            for start, bonus, forward, backward in zip(
                layer.starts, layer.bonus, layer.forward, layer.backward, strict=True
            )
            if forward + backward - bonus == best
        )
        placements.append(_status(best_starts, pieces[layer.link.piece].claimed))
    return placements


def _forward(previous: _Layer, layer: _Layer, scale: int) -> list[int]:
    """Best score of a placement of the links up to ``layer`` ending at each of its starts.

    A predecessor at ``q`` (length ``P``) before ``p`` (length ``L``) adds ``L`` covered characters when it ends
    by ``p`` (``q <= p - P``: a running maximum), else ``L - (q + P - p)`` (``p - P < q <= p - gap``: a sliding
    maximum of ``score - q``).
    """
    before, length = previous.link.length, layer.link.length
    gap = _gap(before, length)
    starts, scores = previous.starts, previous.forward
    far_best, far = -1, 0
    near: deque[int] = deque()
    entered = 0
    out = []
    for start, bonus in zip(layer.starts, layer.bonus, strict=True):
        while entered < len(starts) and starts[entered] <= start - gap:
            value = scores[entered] - starts[entered] * scale
            while near and scores[near[-1]] - starts[near[-1]] * scale <= value:
                near.pop()
            near.append(entered)
            entered += 1
        while far < len(starts) and starts[far] <= start - before:
            far_best = max(far_best, scores[far])
            far += 1
        while near and starts[near[0]] <= start - before:
            near.popleft()
        best = far_best + length * scale if far_best >= 0 else -1
        if near:
            index = near[0]
            best = max(best, scores[index] + (start - starts[index] + length - before) * scale)
        out.append(best + bonus)
    return out


def _backward(layer: _Layer, following: _Layer, scale: int) -> list[int]:
    """Best score of a placement of the links from ``layer`` on starting at each of its starts (the mirror of
    :func:`_forward`: a successor at ``p`` adds ``L`` when ``p >= q + P``, else ``L - (q + P - p)``)."""
    length, after = layer.link.length, following.link.length
    gap = _gap(length, after)
    starts, scores = following.starts, following.backward
    far_best, far = -1, len(starts) - 1
    near: deque[int] = deque()
    entered = len(starts) - 1
    out = []
    for start, bonus in zip(reversed(layer.starts), reversed(layer.bonus), strict=True):
        while entered >= 0 and starts[entered] >= start + gap:
            value = scores[entered] + starts[entered] * scale
            while near and scores[near[-1]] + starts[near[-1]] * scale <= value:
                near.pop()
            near.append(entered)
            entered -= 1
        while far >= 0 and starts[far] >= start + length:
            far_best = max(far_best, scores[far])
            far -= 1
        while near and starts[near[0]] >= start + length:
            near.popleft()
        best = far_best + after * scale if far_best >= 0 else -1
        if near:
            index = near[0]
            best = max(best, scores[index] + (starts[index] - start + after - length) * scale)
        out.append(best + bonus)
    out.reverse()
    return out


def _place_alone(text: str, piece: Piece) -> Placement:
    if piece.fixed and piece.claimed is not None:
        return Placement("exact", piece.claimed)
    return place_one(text, piece.text, piece.claimed)


def _status(starts: tuple[int, ...], claimed: int | None) -> Placement:
    if len(starts) > 1:
        return Placement("ambiguous", candidates=starts)
    (start,) = starts  # a layer on a best placement always has one
    return Placement("exact" if start == claimed else "relocated", start)
