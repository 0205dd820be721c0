"""Score anatomy: why the chunk holding a question's evidence ranked where it did.

For one question under one configuration, :func:`explain` takes two chunks:

* the *evidence chunk*: for the limiting required item (the one found last, or
  not at all, in the ranking), the best-ranked chunk containing one of its
  alternatives; when no chunk contains it (the span was cut), the best-ranked
  piece overlapping it, else the piece the retriever scores highest;
* the *rival*: the rank-1 chunk when it is not the evidence chunk
  (``rival_role = "outranked"``), else the rank-2 chunk (``"runner-up"``).

and takes each one's score apart, by retriever:

* ``bm25``: per distinct query term ``t`` (``query_count`` = its repeats in the
  query), ``tf`` in the chunk, ``df``, ``idf`` (rank_bm25's Okapi idf with its
  floor), ``norm = 1 - b + b * |d| / avgdl`` and
  ``contribution = query_count * idf * tf * (k1 + 1) / (tf + k1 * norm)``;
* ``overlap``: ``contribution = 1`` per distinct query term with ``tf > 0``;
* ``dense``: the cosine, and the chunk's best-matching sentence with its cosine;
* ``rrf``: each part's rank and ``1 / (k + rank)`` (0 when unranked), with the
  part's own anatomy;
* ``rerank``: first-stage and final rank and the second scorer's score, with
  the first stage's anatomy.

The lexical statistics are recomputed here from the chunk texts and the
documented formulas, and the sum of the contributions is checked against the
retriever's own score (``scores(query)`` of its index) to 1e-9: a mismatch is an
error, never a silently different number.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from chunkscope.errors import ChunkscopeError
from chunkscope.model import Chunk, Question, Span
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config, QuestionResult, Ranking
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.bm25 import BM25
from chunkscope.retrievers.dense import Dense, embed
from chunkscope.retrievers.overlap import KeywordOverlap
from chunkscope.retrievers.rerank import Rerank, RerankIndex
from chunkscope.retrievers.rrf import FusionIndex, ReciprocalRankFusion
from chunkscope.spec.grammar import format_spec
from chunkscope.tokenize.base import get_tokenizer

__all__ = [
    "ChunkRef",
    "DenseAnatomy",
    "DenseScore",
    "Explainer",
    "Explanation",
    "FusionAnatomy",
    "FusionPart",
    "LexicalAnatomy",
    "LexicalScore",
    "RankAnatomy",
    "RerankAnatomy",
    "TermScore",
    "explain",
]

SCORE_TOLERANCE = 1e-9
"""Largest allowed difference between the summed contributions and the retriever's score."""

_SENTENCE = re.compile(r"[^。．.!?！？\n]+[。．.!?！？]*")


@dataclass(frozen=True, slots=True)
class TermScore:
    """One distinct query term's part of a lexical score."""

    term: str
    query_count: int
    """Times the term occurs in the query (BM25 counts repeats)."""
    tf: int
    """Occurrences in the chunk's indexed text."""
    df: int
    """Chunks containing the term."""
    idf: float
    """BM25 idf (1.0 for overlap)."""
    norm: float
    """BM25 length normalisation ``1 - b + b * |d| / avgdl`` (1.0 for overlap)."""
    contribution: float
    """What the term adds to the score."""


@dataclass(frozen=True, slots=True)
class LexicalScore:
    """A chunk's lexical score, term by term."""

    chunk_id: str
    length: int
    """Tokens in the chunk's indexed text."""
    score: float
    """The retriever's own score (equals the sum of the contributions to 1e-9)."""
    terms: tuple[TermScore, ...]
    """Distinct query terms, in query order."""


@dataclass(frozen=True, slots=True)
class LexicalAnatomy:
    """BM25 or keyword overlap, evidence chunk beside rival."""

    retriever: str
    """Short spec of the retriever."""
    unit_count: int
    average_length: float
    """Mean chunk length in tokens (``avgdl``)."""
    evidence: LexicalScore
    rival: LexicalScore | None


@dataclass(frozen=True, slots=True)
class DenseScore:
    """A chunk's cosine and its best-matching sentence."""

    chunk_id: str
    cosine: float
    sentence: str
    """The chunk sentence most similar to the query."""
    sentence_cosine: float


@dataclass(frozen=True, slots=True)
class DenseAnatomy:
    """Dense cosine of both chunks."""

    retriever: str
    evidence: DenseScore
    rival: DenseScore | None


@dataclass(frozen=True, slots=True)
class FusionPart:
    """One fused part's ranks and reciprocal-rank contributions."""

    name: str
    evidence_rank: int | None
    evidence_contribution: float
    rival_rank: int | None
    rival_contribution: float
    detail: Anatomy | None


@dataclass(frozen=True, slots=True)
class FusionAnatomy:
    """Reciprocal rank fusion: every part's share of both fused scores."""

    retriever: str
    k: int
    evidence_score: float
    rival_score: float | None
    parts: tuple[FusionPart, ...]


@dataclass(frozen=True, slots=True)
class RerankAnatomy:
    """A rerank stage: where each chunk stood before and after the second scorer."""

    retriever: str
    candidates: int
    evidence_first_rank: int | None
    evidence_final_rank: int | None
    evidence_score: float | None
    """The second scorer's score (None when the chunk was not a candidate)."""
    rival_first_rank: int | None
    rival_final_rank: int | None
    rival_score: float | None
    first: Anatomy | None
    """The first stage's anatomy."""


@dataclass(frozen=True, slots=True)
class RankAnatomy:
    """Retrievers whose scores cannot be taken apart (a production run file): ranks and scores only."""

    retriever: str
    evidence_rank: int | None
    evidence_score: float | None
    rival_rank: int | None
    rival_score: float | None


Anatomy = LexicalAnatomy | DenseAnatomy | FusionAnatomy | RerankAnatomy | RankAnatomy


@dataclass(frozen=True, slots=True)
class ChunkRef:
    """One of the two explained chunks."""

    chunk_id: str
    rank: int | None
    """Final rank (None: not in the kept ranking)."""
    holds_evidence: bool
    """The chunk contains the limiting item wholly (False for a piece of a cut span, and the rival)."""
    text: str


@dataclass(frozen=True, slots=True)
class Explanation:
    """The score anatomy of one question under one configuration."""

    question_id: str
    query: str
    config: str
    """The configuration's label."""
    first_correct_rank: int | None
    cut: bool
    """The limiting item's span is cut: no chunk holds it, the evidence chunk is its best piece."""
    evidence: ChunkRef
    rival: ChunkRef | None
    rival_role: str
    """``outranked`` (the rival is rank 1, above the evidence chunk) or ``runner-up`` (rank 2)."""
    anatomy: Anatomy


class Explainer:
    """Explains questions of one evaluator; lexical statistics cached per (chunking, tokenizer)."""

    def __init__(self, evaluator: Evaluator) -> None:
        self.evaluator = evaluator
        self._stats: dict[tuple[str, str], _LexicalStats] = {}

    def explain(self, config: Config, question_id: str) -> Explanation:
        """The anatomy of ``question_id`` (ChunkscopeError when the question is unknown)."""
        evaluator = self.evaluator
        position = next((i for i, q in enumerate(evaluator.questions) if q.id == question_id), None)
        if position is None:
            raise ChunkscopeError(f"no question {question_id!r} in the question set")
        question = evaluator.questions[position]
        result = evaluator.evaluate(config).questions[position]
        units = result.units
        index = evaluator.index(config)
        retriever = parse_retriever(config.retriever)
        context = _Context(self, config.chunker, units, question, config.depth)
        delivered = evaluator.chunking(config.chunker).chunking.delivered_units
        evidence, holds, cut = _evidence_unit(question, result, units, delivered, index)
        rival, role = _rival_unit(result.ranking, evidence)
        anatomy = context.anatomy(retriever, index, result.ranking, evidence, rival)
        return Explanation(
            question_id=question.id,
            query=question.query,
            config=config.label,
            first_correct_rank=result.first_correct_rank,
            cut=cut,
            evidence=_ref(units, evidence, result.ranking, holds),
            rival=None if rival is None else _ref(units, rival, result.ranking, False),
            rival_role=role,
            anatomy=anatomy,
        )

    def stats(self, chunker: str, tokenizer: str, units: Sequence[Chunk]) -> _LexicalStats:
        key = (chunker, tokenizer)
        if key not in self._stats:
            self._stats[key] = _LexicalStats(units, tokenizer)
        return self._stats[key]


def explain(evaluator: Evaluator, config: Config, question_id: str) -> Explanation:
    """One question's anatomy (see the module docs); use an :class:`Explainer` for many."""
    return Explainer(evaluator).explain(config, question_id)


class _LexicalStats:
    """Token counts of every chunk, document frequencies, average length: the BM25 inputs."""

    def __init__(self, units: Sequence[Chunk], tokenizer_spec: str) -> None:
        self.tokenizer: Any = get_tokenizer(tokenizer_spec)
        self.counts = [Counter(self.tokenizer(unit.indexed_text)) for unit in units]
        self.lengths = [sum(c.values()) for c in self.counts]
        self.df: Counter[str] = Counter()
        for counts in self.counts:
            self.df.update(counts.keys())
        self.unit_count = len(units)
        self.average_length = sum(self.lengths) / self.unit_count if self.unit_count else 0.0
        self._idf_floor: dict[float, float] = {}

    def idf(self, term: str, epsilon: float) -> float:
        """rank_bm25's Okapi idf of ``term``, floored at ``epsilon`` x the mean idf of the vocabulary."""
        value = self._raw_idf(self.df[term])
        if value >= 0:
            return value
        if epsilon not in self._idf_floor:
            df = np.fromiter(self.df.values(), dtype=np.float64, count=len(self.df))
            raw = np.log(self.unit_count - df + 0.5) - np.log(df + 0.5)
            self._idf_floor[epsilon] = epsilon * float(raw.mean())
        return self._idf_floor[epsilon]

    def _raw_idf(self, df: int) -> float:
        return math.log(self.unit_count - df + 0.5) - math.log(df + 0.5)


@dataclass(frozen=True, slots=True)
class _Context:
    explainer: Explainer
    chunker: str
    units: Sequence[Chunk]
    question: Question
    depth: int

    def anatomy(self, retriever: Any, index: Any, ranking: Ranking, evidence: int, rival: int | None) -> Anatomy:
        name = format_spec(retriever, short=True)
        if isinstance(retriever, BM25 | KeywordOverlap):
            return self.lexical(retriever, index, name, evidence, rival)
        if isinstance(retriever, Dense):
            return self.dense(retriever, name, evidence, rival)
        if isinstance(retriever, ReciprocalRankFusion) and isinstance(index, FusionIndex):
            return self.fusion(retriever, index, name, evidence, rival)
        if isinstance(retriever, Rerank) and isinstance(index, RerankIndex):
            return self.rerank(retriever, index, name, evidence, rival)
        return RankAnatomy(
            name, _rank_of(ranking, evidence), _score_of(ranking, evidence), *_rank_score(ranking, rival)
        )

    def lexical(
        self, retriever: BM25 | KeywordOverlap, index: Any, name: str, evidence: int, rival: int | None
    ) -> Anatomy:
        stats = self.explainer.stats(self.chunker, retriever.tokenizer, self.units)
        own = np.asarray(index.scores(self.question.query), dtype=np.float64)
        query = Counter(stats.tokenizer(self.question.query))

        def score(unit: int) -> LexicalScore:
            terms = tuple(_term_score(retriever, stats, unit, term, count) for term, count in query.items())
            total = math.fsum(t.contribution for t in terms)
            if abs(total - float(own[unit])) > SCORE_TOLERANCE * max(1.0, abs(total)):
                raise ChunkscopeError(
                    f"explain: {name} score of {self.units[unit].id} recomputed as {total!r}, "
                    f"the retriever gives {float(own[unit])!r}"
                )
            return LexicalScore(self.units[unit].id, stats.lengths[unit], float(own[unit]), terms)

        return LexicalAnatomy(
            name, stats.unit_count, stats.average_length, score(evidence), None if rival is None else score(rival)
        )

    def dense(self, retriever: Dense, name: str, evidence: int, rival: int | None) -> Anatomy:
        query = embed(retriever, [self.question.query], True, _ignore)[0]

        def score(unit: int) -> DenseScore:
            text = self.units[unit].indexed_text
            cosine = float(embed(retriever, [text], False, _ignore)[0] @ query)
            sentences = [m.group().strip() for m in _SENTENCE.finditer(text) if m.group().strip()] or [text]
            cosines = embed(retriever, sentences, False, _ignore) @ query
            best = int(np.argmax(cosines))
            return DenseScore(self.units[unit].id, cosine, sentences[best], float(cosines[best]))

        return DenseAnatomy(name, score(evidence), None if rival is None else score(rival))

    def fusion(
        self, retriever: ReciprocalRankFusion, index: FusionIndex, name: str, evidence: int, rival: int | None
    ) -> Anatomy:
        depth = max(self.depth, retriever.candidates)
        parts = []
        for part_name, key, part in zip(index.names, index.part_keys, retriever.parts, strict=True):
            part_index = index.indexes[key]
            ranking = part_index.rank([self.question], depth)[0]
            evidence_rank, rival_rank = _rank_of(ranking, evidence), _rank_of(ranking, rival)
            parts.append(
                FusionPart(
                    part_name,
                    evidence_rank,
                    _reciprocal(retriever.k, evidence_rank),
                    rival_rank,
                    _reciprocal(retriever.k, rival_rank),
                    self.anatomy(part, part_index, ranking, evidence, rival),
                )
            )
        return FusionAnatomy(
            name,
            retriever.k,
            math.fsum(p.evidence_contribution for p in parts),
            None if rival is None else math.fsum(p.rival_contribution for p in parts),
            tuple(parts),
        )

    def rerank(self, retriever: Rerank, index: RerankIndex, name: str, evidence: int, rival: int | None) -> Anatomy:
        first = index.first.rank([self.question], max(self.depth, retriever.candidates))[0]
        final = index.rerank(self.question, first, self.depth)
        candidates = first.indices[: retriever.candidates]
        units = [u for u in (evidence, rival) if u is not None and u in candidates]
        scores = dict(zip(units, index.scorer.score(self.question, units).tolist(), strict=True))
        return RerankAnatomy(
            name,
            retriever.candidates,
            _rank_of(first, evidence),
            _rank_of(final, evidence),
            scores.get(evidence),
            _rank_of(first, rival),
            _rank_of(final, rival),
            None if rival is None else scores.get(rival),
            self.anatomy(retriever.first, index.first, first, evidence, rival),
        )


def _term_score(retriever: BM25 | KeywordOverlap, stats: _LexicalStats, unit: int, term: str, count: int) -> TermScore:
    tf = stats.counts[unit].get(term, 0)
    df = stats.df.get(term, 0)
    if isinstance(retriever, KeywordOverlap):
        return TermScore(term, count, tf, df, 1.0, 1.0, 1.0 if tf else 0.0)
    if df == 0 or stats.average_length == 0:  # a term no chunk holds adds nothing (the index drops it)
        return TermScore(term, count, tf, df, 0.0, 1.0, 0.0)
    idf = stats.idf(term, retriever.epsilon)
    norm = 1 - retriever.b + retriever.b * stats.lengths[unit] / stats.average_length
    contribution = count * idf * tf * (retriever.k1 + 1) / (tf + retriever.k1 * norm)
    return TermScore(term, count, tf, df, idf, norm, contribution)


def _evidence_unit(
    question: Question, result: QuestionResult, units: Sequence[Chunk], delivered: Sequence[Chunk], index: Any
) -> tuple[int, bool, bool]:
    """(unit position, holds the limiting item wholly, the item is cut).

    A unit holds an item when its delivered unit (``delivered[i]``: itself, or its parent in parent-child
    chunking) contains one of the item's spans, as for every metric; a span no delivered unit holds is cut.
    """
    rank_of = {unit: rank for rank, unit in enumerate(result.ranking.indices, start=1)}
    unranked = len(units) + 1
    best: tuple[int, int] | None = None  # (rank, unit) of the limiting item's best holder
    for item in question.evidence:
        holders = [i for i, unit in enumerate(delivered) for span in item.alternatives if unit.contains(span)]
        if not holders:
            return (*_best_piece(question, item.alternatives, delivered, rank_of, index), True)
        holder = min((rank_of.get(i, unranked), i) for i in holders)
        if best is None or holder[0] > best[0]:
            best = holder
    if best is None:
        raise ChunkscopeError(f"question {question.id!r} has no evidence to explain")
    return best[1], True, False


def _best_piece(
    question: Question, spans: Sequence[Span], units: Sequence[Chunk], rank_of: dict[int, int], index: Any
) -> tuple[int, bool]:
    """The best-ranked chunk overlapping a cut span, else the one the retriever scores highest."""
    pieces = [
        i
        for i, unit in enumerate(units)
        for span in spans
        if unit.doc == span.doc and unit.start < span.end and span.start < unit.end
    ]
    if not pieces:
        raise ChunkscopeError(f"question {question.id!r}: no chunk overlaps its evidence")
    ranked = [i for i in pieces if i in rank_of]
    if ranked:
        return min(ranked, key=rank_of.__getitem__), False
    scores = getattr(index, "scores", None)
    if scores is not None:
        own = scores(question.query)
        return max(pieces, key=lambda i: (float(own[i]), -i)), False
    return pieces[0], False


def _rival_unit(ranking: Ranking, evidence: int) -> tuple[int | None, str]:
    if not ranking.indices:
        return None, "outranked"
    if ranking.indices[0] != evidence:
        return ranking.indices[0], "outranked"
    if len(ranking.indices) > 1:
        return ranking.indices[1], "runner-up"
    return None, "runner-up"


def _ref(units: Sequence[Chunk], unit: int, ranking: Ranking, holds: bool) -> ChunkRef:
    return ChunkRef(units[unit].id, _rank_of(ranking, unit), holds, units[unit].indexed_text)


def _rank_of(ranking: Ranking, unit: int | None) -> int | None:
    if unit is None or unit not in ranking.indices:
        return None
    return ranking.indices.index(unit) + 1


def _score_of(ranking: Ranking, unit: int | None) -> float | None:
    rank = _rank_of(ranking, unit)
    return None if rank is None else ranking.scores[rank - 1]


def _rank_score(ranking: Ranking, unit: int | None) -> tuple[int | None, float | None]:
    return _rank_of(ranking, unit), _score_of(ranking, unit)


def _reciprocal(k: int, rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / (k + rank)


def _ignore(done: int) -> None:
    """Embedding progress is not shown while explaining."""
