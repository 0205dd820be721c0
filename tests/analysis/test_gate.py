"""The CI gate's conditions and baseline checks, on hand-built summaries and report files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.analysis.gate import (
    check_conditions,
    check_worse,
    check_worse_metrics,
    gate_message,
    load_baseline,
    parse_condition,
)
from chunkscope.errors import InputError, SpecError
from chunkscope.metrics.policy import metric_policy
from chunkscope.metrics.summary import summarize
from chunkscope.reports.eval import config_dict
from chunkscope.results import Config, ConfigResult, QuestionResult, Ranking


def result(question_id: str, rank: int | None, exists: bool = True) -> QuestionResult:
    return QuestionResult(question_id, exists, (), Ranking((), ()), rank, (), (), "top_k", (rank == 1,), True)


def config_result(chunker: str, ranks: list[int | None], lost: int = 0) -> ConfigResult:
    questions = tuple(result(f"q{i}", rank, exists=i >= lost) for i, rank in enumerate(ranks))
    return ConfigResult(Config(chunker), summarize(questions, ()), questions)


@pytest.mark.parametrize(
    ("text", "metric", "op", "threshold"),
    [
        ("lost>0", "lost", ">", 0.0),
        (" recall_at_5 < 0.9 ", "recall_at_5", "<", 0.9),
        ("complete<=3", "complete", "<=", 3.0),
        ("ndcg_at_10!=1e0", "ndcg_at_10", "!=", 1.0),
        ("duplicate_chars>=10", "duplicate_chars", ">=", 10.0),
        ("R@5<0.9", "recall_at_5", "<", 0.9),
        ("nDCG@10>=0.5", "ndcg_at_10", ">=", 0.5),
        ("LOST>0", "lost", ">", 0.0),
    ],
)
def test_parse_condition(text: str, metric: str, op: str, threshold: float) -> None:
    condition = parse_condition(text)
    assert (condition.metric, condition.op, condition.threshold) == (metric, op, threshold)


@pytest.mark.parametrize("text", ["lost", "lost>>0", "lost>zero", "recall@<0.9", "rank_buckets>1", "foo<1"])
def test_bad_conditions_are_spec_errors(text: str) -> None:
    with pytest.raises(SpecError):
        parse_condition(text)


def test_conditions_fail_every_matching_configuration() -> None:
    # A: ranks 1, 7, None with one lost -> lost 1, Recall@5 1/3. B: ranks 1, 1, 1 -> lost 0, Recall@5 1.
    a = config_result("fixed:size=100", [None, 7, 1], lost=1)
    b = config_result("paragraph", [1, 1, 1])
    failures = check_conditions([a, b], [parse_condition("lost>0"), parse_condition("recall_at_5<0.9")])
    assert [(f.config.chunker, f.metric) for f in failures] == [
        ("fixed:size=100", "lost"),
        ("fixed:size=100", "recall_at_5"),
    ]
    assert failures[1].value == pytest.approx(1 / 3)
    message = gate_message(failures)
    assert "\n" not in message
    assert "fixed:size=100" in message and "lost = 1" in message and "threshold 0" in message
    assert message.endswith("(and 1 more failure)")
    assert check_conditions([b], [parse_condition("lost>0")]) == []


def write_report(path: Path, results: list[ConfigResult], **changes: object) -> Path:
    report = {"policy": json.loads(json.dumps(metric_policy())), "configs": [config_dict(r, False) for r in results]}
    report.update(changes)
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def test_worse_than_baseline(tmp_path: Path) -> None:
    before = config_result("paragraph", [1, 1, 2, 9])  # Recall@5 3/4
    after = config_result("paragraph", [1, 1, 9, 9])  # Recall@5 1/2
    baseline = load_baseline(write_report(tmp_path / "base.json", [before]), ["recall_at_5"])
    failures = check_worse([after], baseline, ["recall_at_5", "lost"])
    assert [(f.metric, f.value, f.threshold) for f in failures] == [("recall_at_5", 0.5, 0.75)]
    assert check_worse([before], baseline, ["recall_at_5"]) == []
    # Getting better is not a failure.
    assert check_worse([config_result("paragraph", [1, 1, 1, 1])], baseline, ["recall_at_5"]) == []


def test_a_failure_never_shows_the_same_number_on_both_sides(tmp_path: Path) -> None:
    # Recall@5 1/2 against a baseline saved as 0.5 + 5e-12: worse beyond the 1e-12 tolerance, yet both are 0.5000.
    before = config_result("paragraph", [1, 1, 9, 9])
    path = write_report(tmp_path / "base.json", [before])
    report = json.loads(path.read_text(encoding="utf-8"))
    report["configs"][0]["summary"]["recall_at_5"] = 0.5 + 5e-12
    path.write_text(json.dumps(report), encoding="utf-8")
    (failure,) = check_worse([before], load_baseline(path, ["recall_at_5"]), ["recall_at_5"])
    assert f"recall_at_5 = 0.5 is worse than the baseline {0.5 + 5e-12!r} " in failure.reason  # both in full
    after = config_result("paragraph", [1, 9, 9, 9])  # 0.25: 4 decimals tell them apart
    (failure,) = check_worse([after], load_baseline(path, ["recall_at_5"]), ["recall_at_5"])
    assert "recall_at_5 = 0.2500 is worse than the baseline 0.5000 " in failure.reason


def test_more_lost_is_worse(tmp_path: Path) -> None:
    baseline = load_baseline(write_report(tmp_path / "base.json", [config_result("paragraph", [1, 1])]), ["lost"])
    failures = check_worse([config_result("paragraph", [None, 1], lost=1)], baseline, ["lost"])
    assert [(f.metric, f.value, f.threshold) for f in failures] == [("lost", 1.0, 0.0)]


def test_baseline_with_another_policy_is_refused(tmp_path: Path) -> None:
    policy = {**json.loads(json.dumps(metric_policy())), "ranking_depth": 10}
    path = write_report(tmp_path / "old.json", [config_result("paragraph", [1])], policy=policy)
    with pytest.raises(InputError) as error:
        load_baseline(path)
    assert error.value.field == "policy" and "ranking_depth" in str(error.value) and "old.json" in str(error.value)


@pytest.mark.parametrize(
    ("content", "field"),
    [
        ("not json", None),
        ("[]", None),
        (json.dumps({"configs": []}), "policy"),
        (json.dumps({"policy": json.loads(json.dumps(metric_policy()))}), "configs"),
        (
            json.dumps({"policy": json.loads(json.dumps(metric_policy())), "configs": [{"chunker": "x"}]}),
            "configs[0].retriever",
        ),
    ],
)
def test_malformed_baselines_name_file_and_field(tmp_path: Path, content: str, field: str | None) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_baseline(path)
    assert error.value.path == str(path)
    assert error.value.field == field


def test_baseline_missing_the_gated_metric(tmp_path: Path) -> None:
    report = {
        "policy": json.loads(json.dumps(metric_policy())),
        "configs": [config_dict(config_result("paragraph", [1]), False)],
    }
    del report["configs"][0]["summary"]["recall_at_5"]
    path = tmp_path / "base.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_baseline(path, ["recall_at_5"])
    assert error.value.field == "configs[0].summary.recall_at_5"


def test_unmatched_configuration_and_question_count(tmp_path: Path) -> None:
    baseline = load_baseline(write_report(tmp_path / "base.json", [config_result("paragraph", [1, 1])]))
    with pytest.raises(InputError, match="no configuration matches"):
        check_worse([config_result("fixed:size=100", [1, 1])], baseline, ["lost"])
    with pytest.raises(InputError) as error:
        check_worse([config_result("paragraph", [1, 1, 1])], baseline, ["lost"])
    assert error.value.field == "configs[0].summary.questions"


def test_metrics_without_a_direction_are_refused() -> None:
    check_worse_metrics(["recall_at_5", "lost"])
    with pytest.raises(SpecError, match="sent_chars"):
        check_worse_metrics(["sent_chars"])


def test_a_share_threshold_on_a_count_metric_is_refused() -> None:
    # complete is a count of questions (e.g. 36 of 40), so 'complete<0.9' could never fail:
    # the gate refuses it and says to give a whole number.
    with pytest.raises(SpecError, match="complete is a count of questions, not a share"):
        parse_condition("complete<0.9")
    assert parse_condition("complete<36").threshold == 36
    assert parse_condition("recall_at_5<0.9").threshold == 0.9
