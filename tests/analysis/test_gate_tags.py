"""The gate restricted to one question group: ``METRIC[TAG] OP NUMBER``."""

from __future__ import annotations

import pytest

from chunkscope.analysis.gate import check_conditions, parse_condition, tag_results
from chunkscope.analysis.groups import with_computed_tags
from chunkscope.cli import main
from chunkscope.errors import ChunkscopeError, SpecError
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import ConfigResult


def test_parse_tag_qualifier() -> None:
    condition = parse_condition(" R@5 [ lexical:low ] < 0.8 ")
    assert (condition.metric, condition.tag, condition.op, condition.threshold) == (
        "recall_at_5",
        "lexical:low",
        "<",
        0.8,
    )
    assert parse_condition("lost>0").tag is None


def test_empty_tag_is_refused() -> None:
    with pytest.raises(SpecError, match="tag between"):
        parse_condition("recall_at_5[]<0.8")


@pytest.fixture(scope="module")
def result(sample: Dataset) -> ConfigResult:
    return Evaluator(sample.corpus, sample.questions.questions).evaluate(make_config("fixed:size=200"))


def hand_recall(result: ConfigResult, sample: Dataset, tag: str) -> float:
    """R@5 over the tagged questions, counted directly from first correct ranks."""
    tagged = {q.id for q in sample.questions.questions if tag in q.tags}
    ranks = [q.first_correct_rank for q in result.questions if q.question_id in tagged]
    return sum(1 for r in ranks if r is not None and r <= 5) / len(ranks)


def test_tagged_condition_reads_the_group_only(result: ConfigResult, sample: Dataset) -> None:
    recall = hand_recall(result, sample, "paraphrase")
    assert recall != result.summary["recall_at_5"]  # the group differs from the whole set
    questions = sample.questions.questions
    above = parse_condition(f"recall_at_5[paraphrase]<{recall + 0.001}")
    below = parse_condition(f"recall_at_5[paraphrase]<{recall - 0.001}")
    groups = tag_results([result], questions, [above, below])
    failures = check_conditions([result], [above, below], groups)
    assert [f.reason.split(" meets ")[1] for f in failures] == [
        f"--fail-if '{above.text}' (threshold {recall + 0.001:.4f})"
    ]
    (failure,) = failures
    assert failure.value == pytest.approx(recall) and failure.tag == "paraphrase"
    assert "on tag paraphrase (" in failure.reason


def test_unknown_tag_names_the_tags_present(result: ConfigResult, sample: Dataset) -> None:
    with pytest.raises(ChunkscopeError, match=r"no question carries the tag 'lexical:low' \(tags: .*paraphrase"):
        tag_results([result], sample.questions.questions, [parse_condition("recall_at_5[lexical:low]<0.8")])


def test_computed_groups_can_be_gated(result: ConfigResult, sample: Dataset) -> None:
    questions = with_computed_tags(sample.questions.questions, sample.corpus)
    condition = parse_condition("recall_at_5[lexical:low]<=1")
    groups = tag_results([result], questions, [condition])
    (failure,) = check_conditions([result], [condition], groups)
    low = [q.id for q in questions if "lexical:low" in q.tags]
    assert f"({len(low)} questions)" in failure.reason


def test_cli_gate_on_a_computed_group(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["eval", "--chunker", "fixed:size=200", "--fail-if", "recall_at_5[lexical:low]<=1"]
    assert main([*argv, "--groups", "auto"]) == 1
    assert "recall_at_5 on tag lexical:low" in capsys.readouterr().err
    assert main(argv) == 2  # without --groups auto no question carries lexical:low
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "need --groups auto" in err
    assert main(["eval", "--chunker", "fixed:size=200", "--fail-if", "recall_at_5[paraphrase]<0"]) == 0
