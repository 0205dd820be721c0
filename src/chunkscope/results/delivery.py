"""What context assembly delivered of one question's ranking, and why each hit was or was not sent."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from chunkscope.model import Chunk
from chunkscope.results.lazy import BuiltOnUse


@dataclass(frozen=True, slots=True)
class DeliveredChunk:
    """A chunk (or part of one) placed in the context."""

    rank: int
    """Rank of the hit that delivered it."""
    chunk: Chunk
    """The delivered unit."""
    start: int
    """First delivered body character (== chunk.start)."""
    end: int
    """One past the last delivered body character (< chunk.end when truncated)."""
    sent_chars: int
    """Characters sent, prefix included."""
    duplicate_chars: int
    """Body characters already sent by an earlier delivered chunk."""

    @property
    def truncated(self) -> bool:
        """True when the body was cut to fit the budget."""
        return self.end < self.chunk.end


class SeenPositions:
    """Union of delivered body intervals per document, to count re-sent characters."""

    __slots__ = ("intervals",)

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


class DeliveredChunks(BuiltOnUse[DeliveredChunk]):
    """A question's delivered chunks, kept as unit positions and built as DeliveredChunk values on first use.

    The evaluator measures every question from the positions and the totals; a report or the
    inspector reading the chunks gets exactly the values the context assembly defines
    (``duplicate_chars`` counted in rank order). It compares equal to the tuple of its
    DeliveredChunk values, and to any sequence of the same values.
    """

    __slots__ = ("_ends", "_items", "_positions", "_ranks", "_units", "duplicate_chars", "sent_chars")

    def __init__(
        self,
        units: Sequence[Chunk],
        ranks: Sequence[int],
        positions: Sequence[int],
        ends: Sequence[int] | None,
        sent_chars: int,
        duplicate_chars: int,
    ) -> None:
        """``units[positions[i]]`` was sent for rank ``ranks[i]``, its body up to ``ends[i]`` (None: whole units)."""
        self._units = units
        self._ranks = ranks
        self._positions = positions
        self._ends = ends
        self._items: tuple[DeliveredChunk, ...] | None = None
        self.sent_chars = sent_chars
        """Characters sent, prefixes included."""
        self.duplicate_chars = duplicate_chars
        """Body characters an earlier delivered chunk had already sent."""

    @classmethod
    def of(cls, items: Sequence[DeliveredChunk], positions: Sequence[int]) -> DeliveredChunks:
        """Values built already; ``positions[i]`` is where ``items[i].chunk`` stands among the delivered units."""
        built = tuple(items)
        chunks = cls(
            tuple(d.chunk for d in built),
            tuple(d.rank for d in built),
            tuple(positions),
            tuple(d.end for d in built),
            sum(d.sent_chars for d in built),
            sum(d.duplicate_chars for d in built),
        )
        chunks._items = built
        return chunks

    @property
    def ranks(self) -> Sequence[int]:
        """The rank of each delivered chunk, in delivery order."""
        return self._ranks

    @property
    def positions(self) -> Sequence[int]:
        """Where each delivered chunk stands among the delivered units it was recorded against."""
        return self._positions

    @property
    def ends(self) -> Sequence[int]:
        """One past each delivered body's last character."""
        if self._ends is None:
            return tuple(self._units[p].end for p in self._positions)
        return self._ends

    def _built(self) -> tuple[DeliveredChunk, ...]:
        if self._items is None:
            seen = SeenPositions()
            items = []
            units = self._units
            for rank, position, end in zip(self._ranks, self._positions, self.ends, strict=True):
                unit = units[position]
                sent = len(unit.prefix) + end - unit.start
                items.append(DeliveredChunk(rank, unit, unit.start, end, sent, seen.add(unit.doc, unit.start, end)))
            self._items = tuple(items)
        return self._items

    def __len__(self) -> int:
        return len(self._ranks)

    def __reduce__(self) -> tuple[Any, ...]:
        if self._items is not None:
            return DeliveredChunks.of, (self._items, tuple(self._positions))
        state = (self._units, tuple(self._ranks), tuple(self._positions), self._ends)
        return DeliveredChunks, (*state, self.sent_chars, self.duplicate_chars)


DeliveryStop = Literal["top_k", "budget", "exhausted"]
DeliveryStatus = Literal["delivered", "truncated", "budget-stop", "budget-skip", "already-sent", "beyond-top-k"]
"""What context assembly did with one ranked hit (see :class:`HitDelivery`)."""


@dataclass(frozen=True, slots=True)
class HitDelivery:
    """The context assembly's decision for one ranked hit.

    ``delivered``: its unit was sent whole. ``truncated``: sent cut to the budget
    (overflow ``truncate``). ``budget-stop``: not sent because the budget ended
    delivery, at this hit (it did not fit) or before it (``after_stop``).
    ``budget-skip``: passed over because it did not fit (overflow ``skip``).
    ``already-sent``: its unit was sent by an earlier hit (``sent_by``), so it
    costs nothing. ``beyond-top-k``: ranked below top-k, never considered.
    """

    rank: int
    """1-based rank of the hit."""
    status: DeliveryStatus
    """The decision."""
    cost: int
    """What the hit's whole delivered unit costs (prefix + body), in the budget's units."""
    unit_length: int
    """Body length of the hit's delivered unit."""
    sent_chars: int
    """Characters sent for this hit, prefix included (0 unless delivered or truncated)."""
    body_chars: int
    """Body characters sent (the unit's length unless truncated; 0 when nothing was sent)."""
    duplicate_chars: int
    """Body characters sent that an earlier delivered unit had already sent."""
    used_before: int
    """Characters sent by the hits ranked above this one."""
    used_after: int
    """Characters sent by this hit and the ones above it."""
    left_before: int | None
    """Budget left when this hit's turn came (``None`` without a budget)."""
    left_after: int | None
    """Budget left after this hit (``None`` without a budget)."""
    sent_by: int | None = None
    """``already-sent``: the rank whose hit sent the unit."""
    after_stop: bool = False
    """``budget-stop``: a hit ranked above this one ended delivery, so this one was not tried."""

    @property
    def delivered(self) -> bool:
        """Some of this hit's text reached the context."""
        return self.status in ("delivered", "truncated")


@dataclass(frozen=True, slots=True)
class BudgetStop:
    """The hit at which the budget ended delivery (overflow ``stop`` or ``truncate``)."""

    rank: int
    """Rank of the hit that did not fit (sent truncated, or not at all)."""
    cost: int
    """Characters its whole unit costs (prefix + body)."""
    budget: int
    """The context budget in characters."""
    used: int
    """Characters sent before it."""
    unit_length: int
    """Body length of its unit."""
    body_chars: int
    """Body characters of it sent by truncation (0 when nothing was sent)."""

    @property
    def truncated(self) -> bool:
        """The hit was sent cut to what was left of the budget."""
        return self.body_chars > 0

    @property
    def ends_before(self) -> int:
        """First rank not reached: the one after a truncated hit, else the hit itself."""
        return self.rank + 1 if self.truncated else self.rank


@dataclass(frozen=True, slots=True)
class TopKEnd:
    """Where the top-k window ends in a non-empty ranking."""

    top_k: int
    """Ranked hits considered for delivery."""
    last_rank: int
    """Rank of the last ranked hit kept (the ranking depth, or fewer when it ran out)."""

    @property
    def continues(self) -> bool:
        """Ranked hits follow below the top-k (they are never delivered)."""
        return self.last_rank > self.top_k

    @property
    def ends_before(self) -> int:
        """First rank below the window: top-k + 1, or one past the last rank when the ranking ends first."""
        return self.top_k + 1 if self.continues else self.last_rank + 1


@dataclass(frozen=True, slots=True)
class DeliveryDecisions:
    """Every ranked hit's delivery decision for one question, and why delivery ended.

    Computed on demand from a :class:`QuestionResult` and its :class:`Config` by
    :func:`chunkscope.pipeline.assembly.delivery_decisions`; the evaluator does not store it.
    """

    hits: tuple[HitDelivery, ...]
    """One decision per ranked hit, in rank order."""
    stop: DeliveryStop
    """Why delivery ended: top-k reached, budget, or ranking exhausted before top-k."""
    top_k: int
    """Ranked hits considered for delivery."""
    budget: int | None
    """The context budget (``None``: unlimited)."""
    used: int
    """Sent in all, in :attr:`units`."""
    budget_stop: BudgetStop | None
    """The hit the budget stopped at; ``None`` when the budget never ended delivery (or overflow ``skip``)."""
    top_k_end: TopKEnd | None
    """Where the top-k window ends; ``None`` when nothing was ranked."""
    units: str = "chars"
    """What ``budget``, ``used`` and every hit's ``cost``/``used_*``/``left_*`` count: ``chars`` or
    e.g. ``cl100k tokens`` (a budget in tokens, :attr:`Config.budget_units`)."""

    def of(self, rank: int) -> HitDelivery:
        """The decision for ``rank`` (IndexError when not ranked)."""
        if not 1 <= rank <= len(self.hits):
            raise IndexError(rank)
        return self.hits[rank - 1]
