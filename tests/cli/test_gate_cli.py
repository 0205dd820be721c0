"""``chunkscope eval`` as a CI gate: exit 0 when every check passes, 1 with one line when one fails, 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator


@pytest.fixture(scope="module")
def evaluator(sample: Dataset) -> Evaluator:
    return Evaluator(sample.corpus, sample.questions.questions)


def test_passing_gate_exits_0(capsys: pytest.CaptureFixture[str], evaluator: Evaluator) -> None:
    # paragraph loses nothing on the sample data (no paragraph splits a gold span).
    assert evaluator.evaluate(make_config("paragraph")).summary["lost"] == 0
    assert main(["eval", "--chunker", "paragraph", "--fail-if", "lost>0"]) == 0
    assert capsys.readouterr().err == ""


def test_failing_condition_exits_1_with_one_line(capsys: pytest.CaptureFixture[str], evaluator: Evaluator) -> None:
    lost = evaluator.evaluate(make_config("fixed:size=200")).summary["lost"]
    assert lost > 0
    assert main(["eval", "--chunker", "paragraph", "--chunker", "fixed:size=200", "--fail-if", "lost>0"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("chunkscope: gate failed: fixed:size=200/bm25")
    assert f"lost = {lost}" in err and "threshold 0" in err


def test_recall_threshold(capsys: pytest.CaptureFixture[str], evaluator: Evaluator) -> None:
    recall = evaluator.evaluate(make_config("paragraph")).summary["recall_at_5"]
    assert main(["eval", "--chunker", "paragraph", "--fail-if", f"recall_at_5<{recall + 0.01}"]) == 1
    assert f"recall_at_5 = {recall:.4f}" in capsys.readouterr().err
    assert main(["eval", "--chunker", "paragraph", "--fail-if", f"recall_at_5<{recall}"]) == 0


def test_character_overlap_thresholds_by_key_and_label(
    capsys: pytest.CaptureFixture[str], evaluator: Evaluator
) -> None:
    omega = evaluator.evaluate(make_config("paragraph")).summary["precision_omega"]
    assert main(["eval", "--chunker", "paragraph", "--fail-if", f"precΩ<{omega + 0.01}"]) == 1
    assert f"precision_omega = {omega:.4f}" in capsys.readouterr().err
    assert main(["eval", "--chunker", "paragraph", "--fail-if", f"precision_omega<{omega}"]) == 0
    # pieces counts questions: a share is refused (exit 2), a whole number works
    assert main(["eval", "--chunker", "paragraph", "--fail-if", "pieces>0.5"]) == 2
    assert main(["eval", "--chunker", "fixed:size=200", "--fail-if", "pieces>0"]) == 1
    assert "pieces = 4" in capsys.readouterr().err


def test_bad_condition_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--chunker", "paragraph", "--fail-if", "lost>>0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "lost>>0" in err


def _save_baseline(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["eval", "--chunker", "paragraph", "--json", str(path)]) == 0
    capsys.readouterr()
    report: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return report


def test_baseline_same_run_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = tmp_path / "report.json"
    _save_baseline(baseline, capsys)
    code = main(["eval", "--chunker", "paragraph", "--baseline", str(baseline), "--fail-if-worse", "recall_at_5"])
    assert code == 0


def test_worse_than_baseline_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str], evaluator: Evaluator) -> None:
    baseline = tmp_path / "report.json"
    report = _save_baseline(baseline, capsys)
    report["configs"][0]["summary"]["recall_at_5"] = 1.0  # type: ignore[index]
    baseline.write_text(json.dumps(report), encoding="utf-8")
    code = main(["eval", "--chunker", "paragraph", "--baseline", str(baseline), "--fail-if-worse", "recall_at_5"])
    assert code == 1
    err = capsys.readouterr().err
    recall = evaluator.evaluate(make_config("paragraph")).summary["recall_at_5"]
    assert err.count("\n") == 1
    assert f"recall_at_5 = {recall:.4f} is worse than the baseline 1" in err and str(baseline) in err


def test_baseline_with_another_policy_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = tmp_path / "report.json"
    report = _save_baseline(baseline, capsys)
    report["policy"]["cutoffs"]["ndcg"] = 5  # type: ignore[index]
    baseline.write_text(json.dumps(report), encoding="utf-8")
    code = main(["eval", "--chunker", "paragraph", "--baseline", str(baseline), "--fail-if-worse", "ndcg_at_10"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(baseline) in err and "policy" in err


@pytest.mark.parametrize(
    ("content", "field"), [("{oops", "report.json"), (json.dumps({"policy": {}, "configs": []}), "policy")]
)
def test_malformed_baseline_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, field: str
) -> None:
    baseline = tmp_path / "report.json"
    baseline.write_text(content, encoding="utf-8")
    assert main(["eval", "--chunker", "paragraph", "--baseline", str(baseline), "--fail-if-worse", "lost"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(baseline) in err and field in err


def test_baseline_without_the_configuration_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = tmp_path / "report.json"
    _save_baseline(baseline, capsys)
    code = main(
        ["eval", "--chunker", "paragraph", "--top-k", "3", "--baseline", str(baseline), "--fail-if-worse", "lost"]
    )
    assert code == 2
    assert "no configuration matches" in capsys.readouterr().err


def test_baseline_options_go_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--chunker", "paragraph", "--fail-if-worse", "lost"]) == 2
    assert "go together" in capsys.readouterr().err


def test_eval_json_carries_diagnosis_and_tags(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--chunker", "paragraph", "--budget", "300", "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    config = report["configs"][0]
    assert config["diagnosis"]["look_first"] == "first-stage retrieval"
    q03 = next(q for q in config["questions"] if q["id"] == "q03")
    assert q03["failure_cause"] == "OVER-BUDGET"
    assert "300" in q03["failure_detail"]
    assert {g["tag"] for g in report["by_tag"]} >= {"en", "ja", "table"}


def test_by_tag_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--chunker", "paragraph", "--by-tag"]) == 0
    out = capsys.readouterr().out
    assert "by tag" in out and "multi-evidence" in out and "failure causes" in out
