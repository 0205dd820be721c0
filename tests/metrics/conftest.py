"""Fixtures that register an extra metric for one test, to check that the registry drives every view."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from metric_cases import truncated_chunks

from chunkscope.metrics import rank
from chunkscope.metrics.registry import REGISTRY, Metric, count_metric, rank_metric


@pytest.fixture
def recall_at_10() -> Iterator[Metric]:
    """Recall@10 registered (tested) between Recall@5 and Recall@20 for one test."""
    metric = rank_metric("recall", 10, "R@10", rank.recall_at)
    REGISTRY.register(metric, after="recall_at_5")
    try:
        yield metric
    finally:
        REGISTRY.unregister(metric.name)


@pytest.fixture
def truncated() -> Iterator[Metric]:
    """An untested count without a better direction registered at the end for one test."""
    metric = count_metric(
        "truncated_chunks", "cut", truncated_chunks, "chunks", None, family="delivery", title="truncated chunks"
    )
    REGISTRY.register(metric)
    try:
        yield metric
    finally:
        REGISTRY.unregister(metric.name)
