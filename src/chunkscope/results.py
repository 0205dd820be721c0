"""Result values produced by an evaluation: immutable, shared by CLI, reports and inspector."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal, Protocol, TypeVar, overload

import numpy as np

from chunkscope.model import Chunk, Span

Overflow = Literal["stop", "skip", "truncate"]
Bucket = Literal["1", "2-5", "6-20", "miss"]
BUCKETS: tuple[Bucket, ...] = ("1", "2-5", "6-20", "miss")
RANKING_DEPTH = 20
"""Ranks kept for the metrics (or top-k when larger)."""


@dataclass(frozen=True, slots=True)
class Config:
    """One evaluated configuration: how to chunk, how to rank, what to deliver."""

    chunker: str
    """Chunker spec in canonical form, e.g. ``fixed:size=400,overlap=80``."""
    retriever: str = "bm25"
    """Retriever spec in canonical form, e.g. ``bm25:k1=1.5,b=0.75``."""
    top_k: int = 5
    """Ranked chunks considered for delivery."""
    budget: int | None = None
    """Context budget in characters (in tokens when ``budget_tokenizer`` is set); ``None`` for unlimited."""
    overflow: Overflow = "stop"
    """What happens to the first chunk that does not fit the budget."""
    budget_tokenizer: str | None = None
    """The counting tokenizer the budget counts tokens of; ``None`` when it counts characters."""
    label: str = field(default="", compare=False, repr=False)
    """``chunker/retriever`` with default parameters left out, for display, written once by
    ``chunkscope.pipeline.config.make_config`` (which parses the specs). A Config made directly
    shows its specs in full. ``dataclasses.replace`` keeps the label, so change delivery settings
    with it, and specs through ``make_config``."""

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", f"{self.chunker}/{self.retriever}")

    @property
    def depth(self) -> int:
        """How many ranks the metrics look at."""
        return max(RANKING_DEPTH, self.top_k)

    @property
    def budget_unit(self) -> str:
        """``tokens`` when the budget counts tokens, else ``chars``."""
        return "chars" if self.budget_tokenizer is None else "tokens"

    @property
    def budget_units(self) -> str:
        """What the budget counts, for display: ``chars`` or e.g. ``cl100k tokens``."""
        return "chars" if self.budget_tokenizer is None else f"{self.budget_tokenizer} tokens"


@dataclass(frozen=True, slots=True)
class RankedChunk:
    """One entry of a question's ranking."""

    rank: int
    """1-based rank."""
    chunk: Chunk
    """The ranked retrieval unit."""
    score: float
    """Retriever score (higher is better)."""
    parts: Mapping[str, int | None] = field(default_factory=lambda: MappingProxyType({}), compare=False, hash=False)
    """For fused rankings: each part retriever's rank of this chunk (``None`` when absent)."""
    delivers: Chunk | None = None
    """The unit actually delivered for this hit (its parent, in parent-child chunking)."""

    @property
    def delivered_unit(self) -> Chunk:
        """The chunk whose text is sent when this hit is delivered."""
        return self.delivers if self.delivers is not None else self.chunk


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


Item = TypeVar("Item")


class BuiltOnUse(Sequence[Item]):
    """A tuple of values kept in a cheaper form and built on first use (:meth:`_built`).

    It compares equal to the tuple of its values, and to any sequence of the same values.
    """

    __slots__ = ()

    def _built(self) -> tuple[Item, ...]:
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self._built())

    @overload
    def __getitem__(self, index: int) -> Item: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Item, ...]: ...

    def __getitem__(self, index: int | slice) -> Item | tuple[Item, ...]:
        return self._built()[index]

    def __iter__(self) -> Iterator[Item]:
        return iter(self._built())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return self._built() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._built())

    def __repr__(self) -> str:
        return repr(self._built())


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


Attribution = Literal["child", "parent", "none"]


@dataclass(frozen=True, slots=True)
class Cut:
    """A gold span that no single chunk contains."""

    span: Span
    """The gold span that was cut."""
    boundaries: tuple[int, ...]
    """Chunk boundary offsets strictly inside the span, ascending."""
    pieces: tuple[str, ...]
    """Ids of the chunks overlapping the span, in document order."""


@dataclass(frozen=True, slots=True)
class CharacterOverlap:
    """Characters of a question's evidence against the delivered context and the index.

    The inputs of the character-overlap metrics (:mod:`chunkscope.metrics.overlap`). Each
    required item is scored by one of its alternative spans, its *reference*: for the
    delivered counts the alternative with the largest share of its characters delivered,
    for the Ω counts the alternative with the highest precision Ω on its own (the first
    listed on ties; an item with one alternative is scored by it).
    """

    evidence_chars: int = 0
    """``Σ |ref|`` over the references: summed, so characters two references share count twice."""
    delivered_evidence_chars: int = 0
    """Characters of the union of the references inside the union of the delivered bodies, per document."""
    undelivered_evidence_chars: int = 0
    """Characters of each reference outside the delivered bodies, summed over the references."""
    omega_evidence_chars: int = 0
    """Precision Ω's numerator: characters of the union of the Ω references inside the holding units."""
    omega_chars: int = 0
    """Precision Ω's denominator: characters of the union of the holding units' bodies and the Ω
    references, plus the holding units' prefixes."""


NO_OVERLAP = CharacterOverlap()
"""The overlap of a result measured without spans: every count zero."""


@dataclass(frozen=True, slots=True)
class Ranking:
    """One question's ranked units, best first, as positions into the index's units."""

    indices: tuple[int, ...]
    """Positions into the index's units."""
    scores: tuple[float, ...]
    """Score of each ranked unit."""
    parts: tuple[tuple[str, tuple[int | None, ...]], ...] = ()
    """For fusion: (part spec, that part's 1-based rank of each ranked unit or None)."""
    seconds: float | None = field(default=None, compare=False)
    """For a rerank stage: seconds its second scorer took on this question (``None`` otherwise)."""


_NO_PARTS: Mapping[str, int | None] = MappingProxyType({})


def ranked_chunks(
    ranking: Ranking, units: tuple[Chunk, ...], parents: tuple[Chunk, ...] | None, limit: int | None = None
) -> tuple[RankedChunk, ...]:
    """Materialise a Ranking as RankedChunk values (the first ``limit`` only, if given)."""
    indices = ranking.indices if limit is None else ranking.indices[:limit]
    return tuple(
        RankedChunk(
            rank=r,
            chunk=units[i],
            score=score,
            parts={name: ranks[r - 1] for name, ranks in ranking.parts} if ranking.parts else _NO_PARTS,
            delivers=parents[i] if parents is not None else None,
        )
        for r, (i, score) in enumerate(zip(indices, ranking.scores, strict=False), start=1)
    )


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """Everything measured for one question under one configuration."""

    question_id: str
    """Id of the question."""
    evidence_exists: bool
    """Every required item has an alternative wholly inside some chunk of the index."""
    cuts: tuple[Cut, ...]
    """Gold spans no chunk contains, with the boundaries that split them."""
    ranking: Ranking
    """The ranking, truncated to ``Config.depth``."""
    first_correct_rank: int | None
    """Smallest r such that ranks 1..r together contain every required item."""
    delivered: Sequence[DeliveredChunk]
    """What the context assembly sent, in order (a tuple, or :class:`DeliveredChunks` from the evaluator)."""
    skipped_ranks: tuple[int, ...]
    """Ranks within top-k that were not delivered (budget)."""
    delivery_stop: DeliveryStop
    """Why delivery ended: top-k reached, budget stop, or ranking exhausted."""
    covered: tuple[bool, ...]
    """Per required item: some alternative lies wholly inside a delivered body."""
    doc_hit: bool
    """A delivered chunk belongs to a document holding an evidence span."""
    item_ranks: tuple[tuple[int, ...], ...] = ()
    """Per required item: ranks (1-based) of ranked hits whose delivered unit contains an alternative."""
    attribution: tuple[Attribution, ...] = ()
    """Parent-child chunking only, per required item: ``child`` when a delivered hit's own
    (child) chunk contains an alternative, ``parent`` when only the delivered parents do,
    ``none`` when the item was not delivered. Empty for other chunkers."""
    piece_ranks: tuple[tuple[int, ...], ...] = ()
    """Per required item: when no delivered chunk holds it whole but every character of one of its
    alternatives was delivered (the first such alternative), the ranks of the delivered chunks that
    hold some of those characters, ascending; ``()`` for every other item. Empty when not measured."""
    overlap: CharacterOverlap = NO_OVERLAP
    """Character counts of the evidence against the delivered context and the index."""
    gold_match: tuple[tuple[str, ...], ...] = ()
    """Per required item, how each alternative gold span was located (``exact``, ``normalized``,
    ``fuzzy 0.93``); empty when every span was given exactly."""
    past_window: tuple[bool, ...] = ()
    """Retrievers whose model reads a token window only (``dense:window=N``), per required item:
    True when some unit contains one of the item's alternatives, but in every such unit each of its
    alternatives ends past the window, so the model never read the evidence. Empty for other retrievers."""
    page_hits: tuple[bool, ...] = ()
    """Per required item that names pages (page gold), in order: some delivered body overlaps one of its
    pages by at least one character. Empty when the question names no page."""
    hops: tuple[int, ...] = ()
    """Multi-hop questions, per required item: the hop it belongs to (``Question.hops``); empty otherwise."""
    units: tuple[Chunk, ...] = field(default=(), compare=False, repr=False)
    """The index's retrieval units (shared by every question of a configuration)."""
    parents: tuple[Chunk, ...] | None = field(default=None, compare=False, repr=False)
    """Delivered unit of each retrieval unit, in parent-child chunking."""

    @property
    def ranked(self) -> tuple[RankedChunk, ...]:
        """The ranking as RankedChunk values, best first."""
        return ranked_chunks(self.ranking, self.units, self.parents)

    @property
    def bucket(self) -> Bucket:
        """Rank bucket of the first correct rank."""
        return bucket_of(self.first_correct_rank)

    @property
    def complete(self) -> bool:
        """Every required item is covered by the delivered context."""
        return all(self.covered)

    @property
    def hop_count(self) -> int:
        """How many hops the question has (0 when its input gives none)."""
        return len(set(self.hops))

    @property
    def hops_delivered(self) -> int:
        """Hops every item of which is covered by the delivered context (within top-k and the budget)."""
        missing = {hop for hop, covered in zip(self.hops, self.covered, strict=True) if not covered}
        return self.hop_count - len(missing)

    @property
    def missing_hops(self) -> tuple[int, ...]:
        """The hops (ascending) with some item the delivered context does not cover."""
        return tuple(sorted({hop for hop, covered in zip(self.hops, self.covered, strict=True) if not covered}))

    @property
    def sent_chars(self) -> int:
        """Characters delivered (prefixes included)."""
        delivered = self.delivered
        if isinstance(delivered, DeliveredChunks):
            return delivered.sent_chars
        return sum(d.sent_chars for d in delivered)

    @property
    def duplicate_chars(self) -> int:
        """Delivered body characters minus distinct (document, position) pairs delivered."""
        delivered = self.delivered
        if isinstance(delivered, DeliveredChunks):
            return delivered.duplicate_chars
        return sum(d.duplicate_chars for d in delivered)

    @property
    def lost(self) -> bool:
        """Evidence no longer exists in any chunk: no retriever can rank a chunk holding it whole."""
        return not self.evidence_exists

    @property
    def in_pieces(self) -> bool:
        """Delivered in pieces: not complete, yet every character of every required item was delivered
        (each item wholly inside one delivered chunk, or spread over several: ``piece_ranks``)."""
        if self.complete or len(self.piece_ranks) != len(self.covered):
            return False
        return all(covered or ranks for covered, ranks in zip(self.covered, self.piece_ranks, strict=True))


def bucket_of(rank: int | None) -> Bucket:
    """Map a first-correct rank to its bucket ``1``, ``2-5``, ``6-20`` or ``miss``."""
    if rank is None or rank > RANKING_DEPTH:
        return "miss"
    if rank == 1:
        return "1"
    if rank <= 5:
        return "2-5"
    return "6-20"


@dataclass(frozen=True, slots=True, eq=False)
class ResultColumns:
    """What the metrics read of each question result of one configuration, as arrays in question order.

    Each column holds, per question, the :class:`QuestionResult` value of the same name:
    ``first_correct_rank`` with 0 for None, the character counts of ``overlap`` under their own
    names, ``past_window`` as ``any(past_window)`` and ``windowed`` as ``bool(past_window)``, ``page_gold``
    as ``bool(page_hits)`` and ``page_hit`` as ``bool(page_hits) and all(page_hits)``.
    """

    question_ids: tuple[str, ...]
    first_correct_rank: np.ndarray
    """int64; 0 for None (ranks start at 1)."""
    evidence_exists: np.ndarray
    complete: np.ndarray
    in_pieces: np.ndarray
    doc_hit: np.ndarray
    sent_chars: np.ndarray
    duplicate_chars: np.ndarray
    evidence_chars: np.ndarray
    delivered_evidence_chars: np.ndarray
    undelivered_evidence_chars: np.ndarray
    omega_evidence_chars: np.ndarray
    omega_chars: np.ndarray
    past_window: np.ndarray
    windowed: np.ndarray
    page_gold: np.ndarray
    page_hit: np.ndarray
    multi_hop: np.ndarray
    """Two hops or more (``hop_count >= 2``)."""
    all_hops: np.ndarray
    """Multi-hop and every hop delivered (``hops_delivered == hop_count >= 2``)."""

    def __len__(self) -> int:
        return len(self.question_ids)

    @classmethod
    def of(cls, results: Sequence[QuestionResult]) -> ResultColumns:
        """The columns of ``results``, read one result at a time."""
        count = len(results)

        def column(values: Iterator[int] | Iterator[bool], kind: type[np.generic]) -> np.ndarray:
            return np.fromiter(values, dtype=kind, count=count)

        overlaps = [r.overlap for r in results]
        return cls(
            tuple(r.question_id for r in results),
            column((r.first_correct_rank or 0 for r in results), np.int64),
            column((r.evidence_exists for r in results), np.bool_),
            column((r.complete for r in results), np.bool_),
            column((r.in_pieces for r in results), np.bool_),
            column((r.doc_hit for r in results), np.bool_),
            column((r.sent_chars for r in results), np.int64),
            column((r.duplicate_chars for r in results), np.int64),
            column((o.evidence_chars for o in overlaps), np.int64),
            column((o.delivered_evidence_chars for o in overlaps), np.int64),
            column((o.undelivered_evidence_chars for o in overlaps), np.int64),
            column((o.omega_evidence_chars for o in overlaps), np.int64),
            column((o.omega_chars for o in overlaps), np.int64),
            column((any(r.past_window) for r in results), np.bool_),
            column((bool(r.past_window) for r in results), np.bool_),
            column((bool(r.page_hits) for r in results), np.bool_),
            column((bool(r.page_hits) and all(r.page_hits) for r in results), np.bool_),
            column((r.hop_count >= 2 for r in results), np.bool_),
            column((r.hop_count >= 2 and r.hops_delivered == r.hop_count for r in results), np.bool_),
        )

    @classmethod
    def joined(cls, count: int, parts: Sequence[tuple[Sequence[int], ResultColumns]]) -> ResultColumns:
        """The columns of ``count`` questions from parts, each the columns of the questions at its positions."""
        ids: list[str] = [""] * count
        arrays: dict[str, np.ndarray] = {}
        for column in fields(cls)[1:]:
            kind = getattr(parts[0][1], column.name).dtype if parts else np.int64
            arrays[column.name] = np.zeros(count, dtype=kind)
        for positions, part in parts:
            index = np.asarray(positions, dtype=np.int64)
            for name, array in arrays.items():
                array[index] = getattr(part, name)
            for position, question_id in zip(positions, part.question_ids, strict=True):
                ids[position] = question_id
        return cls(tuple(ids), **arrays)


class ResultRecipe(Protocol):
    """Builds the result of one question from what an evaluation measured of it (see :class:`QuestionResults`)."""

    def result(self, position: int) -> QuestionResult:
        """The result of the question at ``position``."""
        ...


class QuestionResults(BuiltOnUse[QuestionResult]):
    """A configuration's question results, kept as what was measured and each built on first use.

    The evaluator's batched measuring (``chunkscope.pipeline.batch``) keeps its questions this way:
    the summary and the paired tests read :attr:`columns`, and a report or the inspector reading a
    result gets the very value the per-question path gives. It compares equal to the tuple of its
    results, and to any sequence of the same results.
    """

    __slots__ = ("_all", "_items", "_recipe", "columns")

    def __init__(self, columns: ResultColumns, recipe: ResultRecipe, items: Sequence[QuestionResult | None]) -> None:
        """``items[i]``: the result of question ``i`` when built already, else None (``recipe`` builds it)."""
        self.columns = columns
        """What the metrics read of every result."""
        self._recipe = recipe
        self._items = list(items)
        self._all: tuple[QuestionResult, ...] | None = None

    def _item(self, position: int) -> QuestionResult:
        item = self._items[position]
        if item is None:
            item = self._items[position] = self._recipe.result(position)
        return item

    def _built(self) -> tuple[QuestionResult, ...]:
        if self._all is None:
            self._all = tuple(map(self._item, range(len(self._items))))
        return self._all

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> QuestionResult: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[QuestionResult, ...]: ...

    def __getitem__(self, index: int | slice) -> QuestionResult | tuple[QuestionResult, ...]:
        if isinstance(index, slice):
            return self._built()[index]
        return self._item(range(len(self._items))[index])

    def __iter__(self) -> Iterator[QuestionResult]:
        return map(self._item, range(len(self._items)))

    def __reduce__(self) -> tuple[Any, ...]:
        return QuestionResults, (self.columns, self._recipe, self._items)


def question_ids(results: Sequence[QuestionResult]) -> tuple[str, ...]:
    """The question id of each result (kept by :class:`QuestionResults` without building its results)."""
    if isinstance(results, QuestionResults):
        return results.columns.question_ids
    return tuple(result.question_id for result in results)


@dataclass(frozen=True, slots=True)
class Summary:
    """Aggregates of one configuration over its questions.

    ``values`` holds every metric of :data:`chunkscope.metrics.registry.REGISTRY`
    by its key, in registry order, so a new metric needs no new field here; a metric
    that applies only to some configurations (``Metric.applies``) is absent from the others.
    """

    values: Mapping[str, float]
    """Metric key -> value, in registry order; counts are ``int``, rates ``float``."""
    rank_buckets: Mapping[str, int]
    """Bucket (``1``, ``2-5``, ``6-20``, ``miss``) -> questions whose first correct rank falls in it."""

    def __getitem__(self, name: str) -> float:
        """The value of the metric keyed ``name`` (KeyError when it is not in the summary)."""
        return self.values[name]

    def __contains__(self, name: object) -> bool:
        """True when the summary holds the metric keyed ``name``."""
        return name in self.values

    def count(self, name: str) -> int:
        """A count metric's value (TypeError when ``name`` is a rate)."""
        value = self.values[name]
        if not isinstance(value, int):
            raise TypeError(f"{name} is a rate, not a count")
        return value

    def rate(self, name: str) -> float:
        """A rate metric's value, a mean in [0, 1] (TypeError when ``name`` is a count)."""
        value = self.values[name]
        if isinstance(value, int):
            raise TypeError(f"{name} is a count, not a rate")
        return value

    @property
    def questions(self) -> int:
        """Questions summarised (the denominator of every rate)."""
        return self.count("questions")


@dataclass(frozen=True, slots=True)
class ConfigResult:
    """The evaluation of one configuration."""

    config: Config
    """What was evaluated."""
    summary: Summary
    """Aggregate metrics."""
    questions: Sequence[QuestionResult]
    """Per-question results, in question-set order (a tuple, or :class:`QuestionResults` from the evaluator)."""
    chunks: tuple[Chunk, ...] = field(default=(), compare=False, hash=False)
    """The index's retrieval units (for display)."""
    chunk_import: ChunkImport | None = field(default=None, compare=False, hash=False)
    """How an imported dump's chunks were placed, when the chunker reads one."""


@dataclass(frozen=True, slots=True)
class UnplacedChunk:
    """A chunk of a dump that was left out: its text is ambiguous or not in its document."""

    id: str
    """The chunk's id."""
    doc: str
    """The corpus document it belongs to."""
    line: int | None
    """Its line in the dump (None in a JSON object without lines per chunk, e.g. a docstore)."""
    status: str
    """``ambiguous`` or ``not_found``."""
    candidates: tuple[int, ...] = ()
    """For ``ambiguous``: the starts still possible (code points)."""


@dataclass(frozen=True, slots=True)
class ChunkImport:
    """How the chunks of an imported dump were placed in their documents (see ``io.locate``)."""

    path: str
    """The dump file."""
    format: str
    """The dump's format: ``chunkscope``, ``langchain``, ``llamaindex`` or ``chonkie``."""
    exact: int
    """Chunks found at their given offsets (or given by offsets only)."""
    relocated: int
    """Chunks whose offset was missing, -1, wrong, or contradicted by the order, placed by their text."""
    unplaced: tuple[UnplacedChunk, ...] = ()
    """Chunks left out, never guessed: ambiguous or not found."""
    unordered_docs: tuple[str, ...] = ()
    """Documents whose chunks the dump does not list front to back: placed without the order."""
    newline_view_docs: tuple[str, ...] = ()
    """Documents with CRLF line endings whose chunks were cut from their universal-newlines (LF) view: placed
    there and mapped back (``io.newlines``)."""
    rewritten: int = 0
    """Chunks not found that their documents hold once whitespace is normalised and heading lines dropped: the
    splitter rewrote the text (e.g. LangChain's MarkdownHeaderTextSplitter)."""
    doc_key: str | None = "doc"
    """The dotted path each chunk's document reference was read from (given, or the format's usual one: the spec's
    ``doc_key=none`` means the latter); None: the format names no document (chonkie), so the corpus's only one."""

    @property
    def document_key_note(self) -> str | None:
        """Where the chunks' documents were read from, when it is not chunkscope's own ``doc`` field."""
        return document_key_note(self.format, self.doc_key)

    @property
    def ambiguous(self) -> int:
        """Chunks whose text fits more than one position."""
        return sum(1 for chunk in self.unplaced if chunk.status == "ambiguous")

    @property
    def not_found(self) -> int:
        """Chunks whose text does not occur in their document."""
        return sum(1 for chunk in self.unplaced if chunk.status == "not_found")

    @property
    def total(self) -> int:
        """Every chunk of the dump."""
        return self.exact + self.relocated + len(self.unplaced)


def document_key_note(format: str, doc_key: str | None) -> str | None:
    """``documents by metadata.source``: where a dump's chunks named their documents; None for chunkscope's ``doc``."""
    if doc_key is None:
        return "documents: the corpus's only one"
    if format == "chunkscope" and doc_key == "doc":
        return None
    return f"documents by {doc_key}"
