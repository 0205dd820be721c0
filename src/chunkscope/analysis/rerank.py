"""What a rerank stage changed: rank metrics before and after, per-question rank moves, added time.

*Before* is the configuration with the rerank stage's ``first`` retriever alone
(same chunker and delivery); *after* is the configuration itself. A question's
move is its first correct rank before and after (``None``: not found in the
ranked depth); ``change = before - after`` (positive: the rerank lifted the
evidence; ``None`` when either rank is missing). Added time is the seconds the
second scorer took per question (``Ranking.seconds``): the mean, and the 95th
percentile with numpy's default ``linear`` interpolation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from chunkscope.errors import ChunkscopeError
from chunkscope.metrics.registry import REGISTRY
from chunkscope.pipeline.config import make_config
from chunkscope.results import Config, ConfigResult
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.rerank import Rerank
from chunkscope.spec.grammar import format_spec

__all__ = ["RankMove", "RerankEffect", "first_stage_config", "rank_metric_names", "rerank_effect", "rerank_effects"]


@dataclass(frozen=True, slots=True)
class RankMove:
    """One question's first correct rank before and after the rerank."""

    question_id: str
    before: int | None
    after: int | None

    @property
    def change(self) -> int | None:
        """``before - after``: positive when the rerank moved the evidence up."""
        if self.before is None or self.after is None:
            return None
        return self.before - self.after


@dataclass(frozen=True, slots=True)
class RerankEffect:
    """The rerank stage of one configuration, measured."""

    first_stage: str
    """The first-stage retriever's canonical spec."""
    candidates: int
    metrics: tuple[tuple[str, float, float], ...]
    """(rank metric key, value before, value after), in registry order."""
    moves: tuple[RankMove, ...]
    """Per question, in question-set order."""
    seconds_mean: float
    """Mean added seconds per question."""
    seconds_p95: float
    """95th percentile of the added seconds per question."""

    @property
    def improved(self) -> int:
        """Questions whose evidence moved up (or was found only after)."""
        return sum(1 for m in self.moves if _better(m.after, m.before))

    @property
    def worsened(self) -> int:
        """Questions whose evidence moved down (or was found only before)."""
        return sum(1 for m in self.moves if _better(m.before, m.after))


def _better(x: int | None, y: int | None) -> bool:
    return x is not None and (y is None or x < y)


def first_stage_config(config: Config) -> Config | None:
    """``config`` with its rerank stage's first retriever alone; ``None`` when it does not rerank."""
    retriever = parse_retriever(config.retriever)
    if not isinstance(retriever, Rerank):
        return None
    return make_config(config.chunker, format_spec(retriever.first), config.top_k, config.budget, config.overflow)


def rank_metric_names() -> tuple[str, ...]:
    """The registered rank metrics (Recall@k, MRR@k, nDCG@k...)."""
    return tuple(m.name for m in REGISTRY if m.family == "rank")


def rerank_effect(after: ConfigResult, before: ConfigResult) -> RerankEffect:
    """The effect of ``after``'s rerank stage, ``before`` being its first stage alone."""
    retriever = parse_retriever(after.config.retriever)
    if not isinstance(retriever, Rerank):
        raise ChunkscopeError(f"{after.config.label} has no rerank stage")
    ids = [q.question_id for q in after.questions]
    if ids != [q.question_id for q in before.questions]:
        raise ChunkscopeError("rerank effect: the two results hold different questions")
    metrics = tuple((name, float(before.summary[name]), float(after.summary[name])) for name in rank_metric_names())
    moves = tuple(
        RankMove(a.question_id, b.first_correct_rank, a.first_correct_rank)
        for a, b in zip(after.questions, before.questions, strict=True)
    )
    seconds = np.array([q.ranking.seconds or 0.0 for q in after.questions], dtype=np.float64)
    mean = float(seconds.mean()) if len(seconds) else 0.0
    p95 = float(np.percentile(seconds, 95)) if len(seconds) else 0.0
    return RerankEffect(format_spec(retriever.first), retriever.candidates, metrics, moves, mean, p95)


def rerank_effects(
    results: Sequence[ConfigResult], first_stages: Sequence[ConfigResult | None]
) -> dict[Config, RerankEffect]:
    """Each reranking configuration's effect (``first_stages[i]`` is ``results[i]``'s first stage or None)."""
    return {
        after.config: rerank_effect(after, before)
        for after, before in zip(results, first_stages, strict=True)
        if before is not None
    }
