"""Aggregates of one configuration over its questions."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

import numpy as np

from chunkscope.metrics.registry import REGISTRY
from chunkscope.model import Chunk
from chunkscope.results import BUCKETS, RANKING_DEPTH, QuestionResult, QuestionResults, ResultColumns, Summary


def summarize(results: Sequence[QuestionResult], units: Sequence[Chunk]) -> Summary:
    """Every registered metric's summary value over ``results`` (those that apply), plus the rank buckets.

    Results that keep their metric columns (:class:`chunkscope.results.QuestionResults`) are summarised
    from them, metric by metric where the metric has a column: the same numbers, without reading each result.
    """
    columns = results.columns if isinstance(results, QuestionResults) else None
    if columns is None:
        buckets: dict[str, int] = {b: 0 for b in BUCKETS}
        for result in results:
            buckets[result.bucket] += 1
    else:
        buckets = column_buckets(columns)
    values = {}
    for metric in REGISTRY:
        if columns is not None and metric.reads_columns:
            if metric.applies_column is None or metric.applies_column(columns):
                values[metric.name] = metric.column_summary(columns)
        elif metric.applies is None or metric.applies(results):
            values[metric.name] = metric.summarize(results, units)
    return Summary(MappingProxyType(values), MappingProxyType(buckets))


def column_buckets(columns: ResultColumns) -> dict[str, int]:
    """Questions per rank bucket (:func:`chunkscope.results.bucket_of` of each first correct rank)."""
    ranks = columns.first_correct_rank
    counts = {
        "1": ranks == 1,
        "2-5": (ranks >= 2) & (ranks <= 5),
        "6-20": (ranks >= 6) & (ranks <= RANKING_DEPTH),
        "miss": (ranks == 0) | (ranks > RANKING_DEPTH),
    }
    assert tuple(counts) == BUCKETS
    return {bucket: int(np.count_nonzero(flags)) for bucket, flags in counts.items()}
