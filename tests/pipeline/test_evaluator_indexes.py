"""Evaluator.evict_indexes: the least recently used retriever indexes go (by count, or beyond a byte budget),
rankings and results stay."""

from __future__ import annotations

import numpy as np

from chunkscope.io.dataset import Dataset, load_dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator, array_bytes
from chunkscope.results import Config

SIZES = (100, 200, 300)


def _configs() -> list[Config]:
    return [make_config(f"fixed:size={size}") for size in SIZES]


def _evaluated() -> tuple[Dataset, Evaluator, list[Config]]:
    sample = load_dataset()
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    configs = _configs()
    for config in configs:
        evaluator.evaluate(config)
    return sample, evaluator, configs


def test_evicting_keeps_the_most_recently_used_indexes() -> None:
    _, evaluator, configs = _evaluated()
    keys = [(config.chunker, config.retriever) for config in configs]
    assert evaluator.held_indexes == tuple(keys)  # in the order they were used
    evaluator.index(configs[0])  # used again: now the most recent
    assert evaluator.evict_indexes(keep=2) == 1
    assert evaluator.held_indexes == (keys[2], keys[0])
    assert evaluator.evict_indexes(keep=2) == 0
    assert evaluator.evict_indexes(keep=0) == 2 and evaluator.held_indexes == ()


def test_results_stay_cached_and_a_dropped_index_is_built_again_the_same() -> None:
    sample, evaluator, configs = _evaluated()
    first = evaluator.index(configs[0])
    rankings = first.rank(sample.questions.questions, 20)
    evaluator.evict_indexes(keep=0)
    assert all(evaluator.cached(config) is not None for config in configs)
    rebuilt = evaluator.index(configs[0])
    assert rebuilt is not first
    assert rebuilt.rank(sample.questions.questions, 20) == rankings
    # Another delivery of a configuration seen before needs no index: its rankings are cached.
    evaluator.evict_indexes(keep=0)
    fewer = make_config("fixed:size=200", top_k=3)
    fresh = Evaluator(sample.corpus, sample.questions.questions).evaluate(fewer)
    assert evaluator.evaluate(fewer).summary == fresh.summary
    assert evaluator.held_indexes == ()


def test_a_byte_budget_drops_the_oldest_indexes_but_always_keeps_the_most_recent() -> None:
    _, evaluator, configs = _evaluated()
    keys = [(config.chunker, config.retriever) for config in configs]
    sizes = [array_bytes(evaluator.index(config)) for config in configs]  # used again in order: same recency
    assert all(size > 0 for size in sizes)
    assert evaluator.held_index_bytes == sum(sizes)
    assert evaluator.evict_indexes(keep=3, max_bytes=sizes[1] + sizes[2]) == 1
    assert evaluator.held_indexes == tuple(keys[1:])
    assert evaluator.evict_indexes(keep=3, max_bytes=0) == 1
    assert evaluator.held_indexes == (keys[2],) and evaluator.held_index_bytes == sizes[2]
    assert all(evaluator.cached(config) is not None for config in configs)


class _Part:
    __slots__ = ("label", "table")

    def __init__(self, table: np.ndarray) -> None:
        self.table = table
        self.label = "part"


class _Index:
    def __init__(self) -> None:
        self.weights = np.zeros(10, dtype=np.float64)  # 80 bytes
        self.parts = (_Part(np.zeros(3, dtype=np.int32)), _Part(np.zeros(5, dtype=np.int64)))  # 12 + 40
        self.same = self.weights  # one array held twice counts once
        self.units = [np.zeros(10) for _ in range(100)]  # a long sequence (units, rankings) is not part of the index


def test_array_bytes_counts_each_array_of_the_index_once() -> None:
    assert array_bytes(_Index()) == 80 + 12 + 40
