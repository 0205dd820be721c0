"""Context assembly: which ranked chunks would be sent to the model."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from chunkscope.model import Chunk
from chunkscope.results import DeliveredChunk, DeliveryStop, Overflow, RankedChunk


@dataclass(frozen=True, slots=True)
class Delivery:
    """The outcome of assembling one question's context."""

    delivered: tuple[DeliveredChunk, ...]
    skipped_ranks: tuple[int, ...]
    stop: DeliveryStop


def assemble(ranked: Sequence[RankedChunk], top_k: int, budget: int | None, overflow: Overflow) -> Delivery:
    """Walk the first ``top_k`` hits in rank order and decide what is sent.

    Each hit sends its delivered unit (the chunk, or its parent); a unit already
    sent is not sent again and costs nothing. A unit costs ``len(prefix) +
    len(body)`` characters. With a budget, the first unit that does not fit is
    handled by ``overflow``: ``stop`` ends delivery, ``skip`` passes over it and
    tries the next, ``truncate`` sends the prefix and as much of the body as fits
    (nothing when not even the prefix fits) and ends delivery.
    """
    delivered: list[DeliveredChunk] = []
    skipped: list[int] = []
    sent_units: set[str] = set()
    seen = _SeenPositions()
    used = 0
    window = ranked[:top_k]
    for position, hit in enumerate(window):
        unit = hit.delivered_unit
        if unit.id in sent_units:
            continue
        cost = unit.sent_length
        if budget is None or used + cost <= budget:
            delivered.append(_deliver(hit.rank, unit, unit.end, seen))
            sent_units.add(unit.id)
            used += cost
            continue
        if overflow == "skip":
            skipped.append(hit.rank)
            continue
        if overflow == "truncate":
            body = budget - used - len(unit.prefix)
            if body > 0:
                delivered.append(_deliver(hit.rank, unit, unit.start + body, seen))
                sent_units.add(unit.id)
            else:
                skipped.append(hit.rank)
            skipped.extend(h.rank for h in window[position + 1 :] if h.delivered_unit.id not in sent_units)
            return Delivery(tuple(delivered), tuple(skipped), "budget")
        skipped.extend(h.rank for h in window[position:] if h.delivered_unit.id not in sent_units)
        return Delivery(tuple(delivered), tuple(skipped), "budget")
    stop: DeliveryStop = "top_k" if len(ranked) >= top_k else "exhausted"
    if skipped:
        stop = "budget"
    return Delivery(tuple(delivered), tuple(skipped), stop)


def _deliver(rank: int, unit: Chunk, end: int, seen: _SeenPositions) -> DeliveredChunk:
    duplicate = seen.add(unit.doc, unit.start, end)
    return DeliveredChunk(rank, unit, unit.start, end, len(unit.prefix) + end - unit.start, duplicate)


class _SeenPositions:
    """Union of delivered body intervals per document, to count re-sent characters."""

    def __init__(self) -> None:
        self.starts: dict[str, list[int]] = {}
        self.ends: dict[str, list[int]] = {}

    def add(self, doc: str, start: int, end: int) -> int:
        """Record [start, end) and return how many of its positions were already seen."""
        starts = self.starts.setdefault(doc, [])
        ends = self.ends.setdefault(doc, [])
        first = bisect.bisect_right(ends, start)  # first interval ending after start
        last = first
        already = 0
        while last < len(starts) and starts[last] < end:
            already += min(end, ends[last]) - max(start, starts[last])
            last += 1
        if last > first:
            start, end = min(start, starts[first]), max(end, ends[last - 1])
        starts[first:last] = [start]
        ends[first:last] = [end]
        return already
