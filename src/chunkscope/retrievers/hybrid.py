"""Weighted hybrid retrieval: a convex combination of two retrievers' normalised scores."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Literal

import numpy as np

from chunkscope.model import Chunk, Corpus
from chunkscope.results import Ranking
from chunkscope.retrievers.base import Progress, Retriever, retrievers
from chunkscope.retrievers.rrf import PartsIndex
from chunkscope.spec.grammar import StrategyKind

Normalisation = Literal["minmax", "zscore", "rank"]
NORMALISATIONS: tuple[Normalisation, ...] = ("minmax", "zscore", "rank")


@retrievers.register("hybrid")
@dataclass(frozen=True, slots=True)
class WeightedHybrid:
    """score(d) = alpha * n_1(d) + (1 - alpha) * n_2(d), n_p part p's score normalised per question.

    Each part ranks its top ``N = max(depth, candidates)`` units; the candidates of a question are
    the union of those lists over the parts whose weight is not 0 (so ``alpha=1`` ranks exactly the
    first part's list and ``alpha=0`` the second's). ``norm`` maps a part's listed scores to
    ``n_p`` (``minmax``, ``zscore`` or ``rank``; docs/strategies.md gives each formula and the value of
    a candidate the part did not list). Ties: document id, then chunk start.
    """

    parts: Annotated[tuple[Retriever, ...], StrategyKind(retrievers)] = field(metadata={"positional": True})
    """The two combined retrievers, written ``bm25+dense``; alpha weighs the first."""
    alpha: float = 0.5
    norm: str = "minmax"
    candidates: int = 20

    def __post_init__(self) -> None:
        if len(self.parts) != 2:
            raise ValueError(f"hybrid combines exactly two retrievers, e.g. hybrid:bm25+dense, got {len(self.parts)}")
        if not (math.isfinite(self.alpha) and 0.0 <= self.alpha <= 1.0):
            raise ValueError(f"alpha must be between 0 and 1 (the first retriever's weight), got {self.alpha:g}")
        if self.norm not in NORMALISATIONS:
            raise ValueError(f"unknown norm '{self.norm}'; valid norms: {', '.join(NORMALISATIONS)}")
        if self.candidates < 1:
            raise ValueError(f"candidates must be at least 1, got {self.candidates}")

    def build(self, units: Sequence[Chunk]) -> HybridIndex:
        return HybridIndex(self, units)

    def build_over(self, units: Sequence[Chunk], corpus: Corpus, progress: Progress | None = None) -> HybridIndex:
        """The combination with parts that can reuse the corpus built over it."""
        return HybridIndex(self, units, corpus, progress)


def normalised(scores: Sequence[float], norm: str) -> tuple[np.ndarray, float]:
    """A part's listed scores (best first) normalised, and the value of a candidate it did not list.

    minmax: (s - min) / (max - min), all 1 when max = min; unlisted 0.
    zscore: (s - mean) / sd (population sd), all 0 when sd = 0; unlisted the lowest listed value.
    rank: (n - r + 1) / n for rank r of n listed; unlisted 0.
    """
    values = np.asarray(scores, dtype=np.float64)
    count = len(values)
    if count == 0:
        return values, 0.0
    if norm == "rank":
        return (count - np.arange(count, dtype=np.float64)) / count, 0.0
    if norm == "zscore":
        spread = float(values.std())
        z = (values - values.mean()) / spread if spread > 0 else np.zeros(count)
        return z, float(z.min())
    low, high = float(values.min()), float(values.max())
    if high > low:
        return (values - low) / (high - low), 0.0
    return np.ones(count), 0.0


class HybridIndex(PartsIndex):
    """Both parts' indexes, combined per question."""

    params: WeightedHybrid

    def __init__(
        self,
        params: WeightedHybrid,
        units: Sequence[Chunk],
        corpus: Corpus | None = None,
        progress: Progress | None = None,
    ) -> None:
        super().__init__(params, units, corpus, progress)
        self.params = params

    def fuse(self, per_part: Sequence[Sequence[Ranking]], depth: int) -> list[Ranking]:
        alpha = self.params.alpha
        weights = (alpha, 1.0 - alpha)
        return [
            self.combine([rankings[question] for rankings in per_part], weights, depth)
            for question in range(len(per_part[0]))
        ]

    def combine(self, rankings: Sequence[Ranking], weights: Sequence[float], depth: int) -> Ranking:
        """One question's combined ranking from each part's ranking."""
        values: list[dict[int, float]] = []
        unlisted: list[float] = []
        for ranking in rankings:
            normal, missing = normalised(ranking.scores, self.params.norm)
            values.append(dict(zip(ranking.indices, normal.tolist(), strict=True)))
            unlisted.append(missing)
        candidates: dict[int, None] = {}
        for ranking, weight in zip(rankings, weights, strict=True):
            if weight > 0:
                candidates.update(dict.fromkeys(ranking.indices))
        scored = []
        for unit in candidates:
            score = 0.0
            for weight, part_values, missing in zip(weights, values, unlisted, strict=True):
                score += weight * part_values.get(unit, missing)
            scored.append((-score, int(self.tie_break[unit]), unit))
        scored.sort()
        kept = scored[:depth]
        indices = tuple(unit for _, _, unit in kept)
        part_ranks = []
        for name, ranking in zip(self.names, rankings, strict=True):
            rank_of = {unit: rank for rank, unit in enumerate(ranking.indices, start=1)}
            part_ranks.append((name, tuple(rank_of.get(unit) for unit in indices)))
        return Ranking(indices, tuple(-negative for negative, _, _ in kept), tuple(part_ranks))
