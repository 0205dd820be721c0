"""The result of one question under one configuration: its ranking, cuts, delivery and evidence counts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from chunkscope.model import Chunk, Span
from chunkscope.results.delivery import DeliveredChunk, DeliveredChunks, DeliveryStop

Bucket = Literal["1", "2-5", "6-20", "miss"]
BUCKETS: tuple[Bucket, ...] = ("1", "2-5", "6-20", "miss")
RANKING_DEPTH = 20
"""Ranks kept for the metrics (or top-k when larger)."""


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
