"""Aggregates of one configuration over its questions."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from chunkscope.metrics.registry import REGISTRY
from chunkscope.model import Chunk
from chunkscope.results import BUCKETS, QuestionResult, Summary


def summarize(results: Sequence[QuestionResult], units: Sequence[Chunk]) -> Summary:
    """Every registered metric's summary value over ``results`` (those that apply), plus the rank buckets."""
    buckets: dict[str, int] = {b: 0 for b in BUCKETS}
    for result in results:
        buckets[result.bucket] += 1
    values = {
        metric.name: metric.summarize(results, units)
        for metric in REGISTRY
        if metric.applies is None or metric.applies(results)
    }
    return Summary(MappingProxyType(values), MappingProxyType(buckets))
