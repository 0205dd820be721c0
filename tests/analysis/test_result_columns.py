"""What the analysis reads from results that keep their columns equals what it reads from each result."""

from __future__ import annotations

import pytest

from chunkscope.analysis.comparison import MoveColumns
from chunkscope.analysis.diagnose import diagnose, failure_cause, failure_causes
from chunkscope.analysis.paired import metric_values
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import ConfigResult, QuestionResults, question_ids

SETTINGS = (
    ("fixed:size=200,overlap=60", 5),
    ("fixed:size=120", 3),  # hits ranked 4 and 5 are not delivered: causes the columns leave undecided
    ("paragraph", 1),
)


@pytest.mark.parametrize(("chunker", "top_k"), SETTINGS)
def test_columns_and_results_give_the_same_analysis(sample: Dataset, chunker: str, top_k: int) -> None:
    config = make_config(chunker, "bm25", top_k=top_k)
    kept = Evaluator(sample.corpus, sample.questions.questions).evaluate(config)
    assert isinstance(kept.questions, QuestionResults)
    results = tuple(kept.questions)
    each = ConfigResult(kept.config, kept.summary, results, kept.chunks)
    assert question_ids(kept.questions) == question_ids(results) == tuple(q.question_id for q in results)
    assert metric_values(kept).tolist() == metric_values(each).tolist()
    assert failure_causes(kept.questions, config) == tuple(failure_cause(q, config) for q in results)
    assert diagnose(kept) == diagnose(each)
    fast, slow = MoveColumns.of(kept.questions, config), MoveColumns.of(results, config)
    for name in ("question_ids", "ranks", "states", "complete", "lost", "causes"):
        assert getattr(fast, name) == getattr(slow, name), name
    for name in ("rank_keys", "state_codes", "cause_codes", "complete_flags", "lost_flags"):
        assert getattr(fast, name).tolist() == getattr(slow, name).tolist(), name


def test_the_sample_has_every_state_and_an_undecided_cause(sample: Dataset) -> None:
    config = make_config("fixed:size=120", "bm25", top_k=3)
    kept = Evaluator(sample.corpus, sample.questions.questions).evaluate(config)
    states = set(MoveColumns.of(kept.questions, config).states)
    assert {"1", "2-5", "miss"} <= states
    assert any(not q.complete and q.evidence_exists and q.bucket in ("1", "2-5") for q in kept.questions)
