"""Aggregates of one configuration over its questions."""

from __future__ import annotations

from collections.abc import Sequence

from chunkscope.metrics.rank import ndcg_single, recall_at, reciprocal_rank
from chunkscope.model import Chunk
from chunkscope.results import (
    BUCKETS,
    QuestionResult,
    Summary,
)


def summarize(results: Sequence[QuestionResult], units: Sequence[Chunk]) -> Summary:
    """Aggregate per-question results into the configuration's summary."""
    count = len(results)
    ranks = [r.first_correct_rank for r in results]

    def mean(values: Sequence[float]) -> float:
        return sum(values) / count if count else 0.0

    buckets: dict[str, int] = {b: 0 for b in BUCKETS}
    for result in results:
        buckets[result.bucket] += 1
    exists = sum(r.evidence_exists for r in results)
    return Summary(
        questions=count,
        index_chunks=len(units),
        indexed_chars=sum(len(u.prefix) + u.end - u.start for u in units),
        evidence_exists=exists,
        lost=count - exists,
        doc_hits=sum(r.doc_hit for r in results),
        complete=sum(r.complete for r in results),
        recall_at_5=mean([recall_at(r, 5) for r in ranks]),
        recall_at_20=mean([recall_at(r, 20) for r in ranks]),
        mrr_at_10=mean([reciprocal_rank(r) for r in ranks]),
        ndcg_at_10=mean([ndcg_single(r) for r in ranks]),
        rank_buckets=buckets,
        sent_chars=sum(r.sent_chars for r in results),
        duplicate_chars=sum(r.duplicate_chars for r in results),
    )
