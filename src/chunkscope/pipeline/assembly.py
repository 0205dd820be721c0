"""Context assembly: which ranked chunks would be sent to the model."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from chunkscope.model import Chunk
from chunkscope.pipeline.cost import DeliveryCost
from chunkscope.results import DeliveredChunk, DeliveryStop, Overflow, RankedChunk


@dataclass(frozen=True, slots=True)
class Delivery:
    """The outcome of assembling one question's context."""

    delivered: tuple[DeliveredChunk, ...]
    skipped_ranks: tuple[int, ...]
    stop: DeliveryStop


def assemble(
    ranked: Sequence[RankedChunk],
    top_k: int,
    budget: int | None,
    overflow: Overflow,
    measure: DeliveryCost | None = None,
) -> Delivery:
    """Walk the first ``top_k`` hits in rank order and decide what is sent.

    Each hit sends its delivered unit (the chunk, or its parent); a unit already
    sent is not sent again and costs nothing. A unit costs ``len(prefix) +
    len(body)`` characters, or what ``measure`` says (tokens, see
    :mod:`chunkscope.pipeline.cost`). With a budget, the first unit that does not fit is
    handled by ``overflow``: ``stop`` ends delivery, ``skip`` passes over it and
    tries the next, ``truncate`` sends the prefix and as much of the body as fits
    (nothing when not even the prefix fits) and ends delivery.
    """
    window = [(hit.rank, hit.delivered_unit) for hit in ranked[:top_k]]
    return assemble_units(window, len(window) >= top_k, budget, overflow, measure)


def assemble_units(
    window: Sequence[tuple[int, Chunk]],
    reached_top_k: bool,
    budget: int | None,
    overflow: Overflow,
    measure: DeliveryCost | None = None,
) -> Delivery:
    """:func:`assemble` over ``(rank, delivered unit)`` pairs of the first top-k hits, in rank order.

    ``reached_top_k`` says whether the ranking had at least top-k hits (delivery
    then stops at ``top_k`` rather than ``exhausted``). This is the evaluator's
    hot path: it avoids building a RankedChunk per hit.
    """
    delivered: list[DeliveredChunk] = []
    skipped: list[int] = []
    sent_units: set[str] = set()
    seen = _SeenPositions()
    used = 0
    for position, (rank, unit) in enumerate(window):
        if unit.id in sent_units:
            continue
        start, end = unit.start, unit.end
        sent = len(unit.prefix) + end - start
        cost = sent if measure is None else measure.cost(unit)
        if budget is None or used + cost <= budget:
            delivered.append(DeliveredChunk(rank, unit, start, end, sent, seen.add(unit.doc, start, end)))
            sent_units.add(unit.id)
            used += cost
            continue
        if overflow == "skip":
            skipped.append(rank)
            continue
        if overflow == "truncate":
            cut = unit.start + budget - used - len(unit.prefix) if measure is None else measure.fit(unit, budget - used)
            if cut > unit.start:
                delivered.append(_deliver(rank, unit, cut, seen))
                sent_units.add(unit.id)
            else:
                skipped.append(rank)
            skipped.extend(r for r, u in window[position + 1 :] if u.id not in sent_units)
            return Delivery(tuple(delivered), tuple(skipped), "budget")
        skipped.extend(r for r, u in window[position:] if u.id not in sent_units)
        return Delivery(tuple(delivered), tuple(skipped), "budget")
    stop: DeliveryStop = "top_k" if reached_top_k else "exhausted"
    if skipped:
        stop = "budget"
    return Delivery(tuple(delivered), tuple(skipped), stop)


def _deliver(rank: int, unit: Chunk, end: int, seen: _SeenPositions) -> DeliveredChunk:
    duplicate = seen.add(unit.doc, unit.start, end)
    return DeliveredChunk(rank, unit, unit.start, end, len(unit.prefix) + end - unit.start, duplicate)


class _SeenPositions:
    """Union of delivered body intervals per document, to count re-sent characters."""

    def __init__(self) -> None:
        self.intervals: dict[str, tuple[list[int], list[int]]] = {}
        """Per document: starts and ends of disjoint intervals, ascending."""

    def add(self, doc: str, start: int, end: int) -> int:
        """Record [start, end) and return how many of its positions were already seen."""
        intervals = self.intervals.get(doc)
        if intervals is None:
            self.intervals[doc] = ([start], [end])
            return 0
        starts, ends = intervals
        first = bisect.bisect_right(ends, start)  # first interval ending after start
        if first == len(starts) or starts[first] >= end:  # overlaps nothing: the common case
            starts.insert(first, start)
            ends.insert(first, end)
            return 0
        last = first
        already = 0
        while last < len(starts) and starts[last] < end:
            already += min(end, ends[last]) - max(start, starts[last])
            last += 1
        start, end = min(start, starts[first]), max(end, ends[last - 1])
        starts[first:last] = [start]
        ends[first:last] = [end]
        return already
