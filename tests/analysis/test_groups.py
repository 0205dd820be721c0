"""Tag breakdown: a question counts in each of its tags; a group's metrics are the subset's metrics."""

from __future__ import annotations

import pytest

from chunkscope.analysis.groups import by_tag, question_tags, restrict, tag_positions
from chunkscope.errors import ChunkscopeError
from chunkscope.io.dataset import Dataset
from chunkscope.metrics.summary import summarize
from chunkscope.model import EvidenceItem, Question, Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config, ConfigResult, QuestionResult, Ranking


def result(question_id: str, rank: int | None) -> QuestionResult:
    return QuestionResult(question_id, True, (), Ranking((), ()), rank, (), (), "top_k", (rank == 1,), True)


def config_result(ranks: list[int | None]) -> ConfigResult:
    questions = tuple(result(f"q{i + 1}", rank) for i, rank in enumerate(ranks))
    return ConfigResult(Config("paragraph"), summarize(questions, ()), questions)


def make_question(question_id: str, *tags: str) -> Question:
    return Question(question_id, "query", (EvidenceItem((Span("d", 0, 1),)),), tags)


def test_tag_positions_overlap_and_sort() -> None:
    tags = {"q1": ("paraphrase", "table"), "q2": ("exact-term",), "q3": ("table", "table"), "q4": ()}
    assert tag_positions(["q1", "q2", "q3", "q4"], tags) == {
        "exact-term": (1,),
        "paraphrase": (0,),
        "table": (0, 2),  # a repeated tag counts once
    }


def test_restrict_recomputes_the_summary() -> None:
    full = config_result([1, 2, None, 4])
    subset = restrict(full, [1, 3])
    # Ranks 2 and 4: Recall@5 = 1, MRR@10 = (1/2 + 1/4) / 2 = 0.375, complete (rank 1 only) = 0.
    assert subset.summary.questions == 2
    assert subset.summary["recall_at_5"] == 1.0
    assert subset.summary["mrr_at_10"] == pytest.approx(0.375)
    assert subset.summary["complete"] == 0
    assert [q.question_id for q in subset.questions] == ["q2", "q4"]


def test_by_tag_groups_every_configuration() -> None:
    questions = [make_question("q1", "a"), make_question("q2", "a", "b"), make_question("q3"), make_question("q4", "b")]
    results = [config_result([1, 2, None, 4]), config_result([None, 1, 1, 1])]
    groups = by_tag(results, questions)
    assert [g.tag for g in groups] == ["a", "b"]
    a, b = groups
    assert a.question_ids == ("q1", "q2")
    # group a under the first configuration: ranks 1 and 2 -> MRR (1 + 1/2) / 2 = 0.75
    assert a.results[0].summary["mrr_at_10"] == pytest.approx(0.75)
    # group b under the second: ranks 1 and 1 -> MRR 1
    assert b.results[1].summary["mrr_at_10"] == 1.0


def test_by_tag_refuses_results_over_other_questions() -> None:
    with pytest.raises(ChunkscopeError, match="question set"):
        by_tag([config_result([1, 2])], [make_question("q2"), make_question("q1")])


def test_sample_tags(sample: Dataset) -> None:
    questions = sample.questions.questions
    evaluator = Evaluator(sample.corpus, questions)
    groups = by_tag([evaluator.evaluate(make_config("paragraph"))], questions)
    names = [g.tag for g in groups]
    for tag in ("en", "ja", "exact-term", "paraphrase", "table", "multi-evidence"):
        assert tag in names
    sizes = {g.tag: len(g.question_ids) for g in groups}
    # The sample README: 27 English and 13 Japanese questions; 22 exact-term and 18 paraphrase.
    assert (sizes["en"], sizes["ja"], sizes["exact-term"], sizes["paraphrase"]) == (27, 13, 22, 18)
    assert question_tags(questions)["q01"] == ("en", "exact-term", "multi-evidence")
