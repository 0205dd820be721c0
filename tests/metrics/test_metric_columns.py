"""Every metric's column gives each question's per-question value, the very Python value, read from the columns."""

from __future__ import annotations

import pytest

from chunkscope.io.dataset import Dataset
from chunkscope.metrics.registry import REGISTRY
from chunkscope.metrics.summary import column_buckets, summarize
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import QuestionResult, QuestionResults, ResultColumns

SETTINGS = (
    ("fixed:size=200,overlap=60", {"top_k": 5}),
    ("paragraph", {"top_k": 20}),
    ("markdown:prefix=path", {"top_k": 3}),
    ("parent:child=fixed:size=120,parent=markdown", {"top_k": 5}),
    ("fixed:size=200,overlap=60", {"top_k": 5, "budget": 700, "overflow": "skip"}),
    ("fixed:size=200,overlap=60", {"top_k": 5, "budget": 500, "overflow": "truncate"}),
)


def built(results: tuple[QuestionResult, ...] | QuestionResults) -> tuple[QuestionResult, ...]:
    return tuple(results)


@pytest.mark.parametrize(("chunker", "settings"), SETTINGS)
def test_each_column_gives_every_per_question_value(sample: Dataset, chunker: str, settings: dict[str, object]) -> None:
    config = make_config(chunker, "bm25", **settings)  # type: ignore[arg-type]
    results = tuple(Evaluator(sample.corpus, sample.questions.questions).evaluate(config).questions)
    columns = ResultColumns.of(results)
    with_columns = [metric for metric in REGISTRY if metric.column is not None]
    assert {m.name for m in with_columns} == {m.name for m in REGISTRY if m.per_question is not None}
    for metric in with_columns:
        assert metric.column is not None and metric.per_question is not None
        values = metric.column(columns).tolist()
        expected = [metric.per_question(result) for result in results]
        assert values == expected, metric.name
        assert [type(v) for v in values] == [type(v) for v in expected], metric.name
        assert metric.column_summary(columns) == metric.summarize(results, ()), metric.name
    buckets = {bucket: 0 for bucket in ("1", "2-5", "6-20", "miss")}
    for result in results:
        buckets[result.bucket] += 1
    assert column_buckets(columns) == buckets


def test_ranks_past_the_depth_fall_in_miss_as_in_bucket_of() -> None:
    ranks = [None, 1, 2, 5, 6, 20, 21, 40]
    results = tuple(
        QuestionResult(f"q{i}", True, (), None, rank, (), (), "top_k", (True,), True)  # type: ignore[arg-type]
        for i, rank in enumerate(ranks)
    )
    columns = ResultColumns.of(results)
    assert column_buckets(columns) == {"1": 1, "2-5": 2, "6-20": 2, "miss": 3}
    for metric in REGISTRY:
        if metric.family == "rank":
            assert metric.column is not None and metric.per_question is not None
            assert metric.column(columns).tolist() == [metric.per_question(r) for r in results], metric.name


def test_a_summary_from_the_columns_equals_the_summary_read_from_each_result(sample: Dataset) -> None:
    config = make_config("fixed:size=120,overlap=90", "bm25", top_k=7)
    result = Evaluator(sample.corpus, sample.questions.questions).evaluate(config)
    assert isinstance(result.questions, QuestionResults)
    from_results = summarize(built(result.questions), result.chunks)
    assert result.summary == from_results
    assert repr(result.summary) == repr(from_results)  # ints stay ints, floats floats


def test_the_window_column_marks_evidence_past_the_window() -> None:
    windows = [(True,), (False,), (), (False, True)]
    results = tuple(
        QuestionResult(f"q{i}", True, (), None, 1, (), (), "top_k", (False,) * len(w), True, past_window=w)  # type: ignore[arg-type]
        for i, w in enumerate(windows)
    )
    columns = ResultColumns.of(results)
    metric = REGISTRY["truncated_evidence"]
    assert metric.column is not None and metric.per_question is not None and metric.applies is not None
    assert metric.column(columns).tolist() == [metric.per_question(r) for r in results] == [1, 0, 0, 1]
    assert metric.applies_column is not None
    assert metric.applies_column(columns) is metric.applies(results) is True
    unwindowed = ResultColumns.of(results[2:3])
    assert metric.applies_column(unwindowed) is metric.applies(results[2:3]) is False
