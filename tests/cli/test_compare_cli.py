"""``chunkscope compare`` on the sample data: exit codes, the printed report, the JSON/CSV/Markdown files."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from chunkscope.analysis.compare import STATES, compare
from chunkscope.cli import main
from chunkscope.io.dataset import Dataset
from chunkscope.metrics.policy import metric_policy
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator

A, B = "fixed:size=200", "fixed:size=200,overlap=40"
FAST = ["--permutations", "300"]


def test_prints_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", A, B, *FAST]) == 0
    out = capsys.readouterr().out
    for text in ("R@5", "nDCG@10", "95% CI", "transitions", "questions that moved, worst first", "newly lost"):
        assert text in out
    assert "Not significant does not mean equal" in out


def test_json_report(capsys: pytest.CaptureFixture[str], sample: Dataset) -> None:
    assert main(["compare", A, B, *FAST, "--seed", "4", "--json", "-", "--by-tag"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["policy"] == json.loads(json.dumps(metric_policy()))
    assert report["chunkscope_version"]
    assert all(len(source["sha256"]) == 64 for source in report["inputs"])
    assert "not significant does not mean equal" in report["note"]
    comparison = report["comparison"]
    assert [c["chunker"] for c in (comparison["a"], comparison["b"])] == [
        "fixed:size=200,overlap=0",
        "fixed:size=200,overlap=40",
    ]
    assert {test["metric"] for test in comparison["tests"]} == {
        "recall_at_5",
        "recall_at_20",
        "mrr_at_10",
        "ndcg_at_10",
        "complete",
        "evidence_recall",
        "precision",
        "iou",
        "precision_omega",
    }
    assert all("p_value" in test and "p_value_raw" in test for test in comparison["tests"])
    assert comparison["test_settings"]["permutations"] == 300 and comparison["test_settings"]["seed"] == 4
    # The counts agree with the core comparison of the same results.
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    core = compare(evaluator.evaluate(make_config(A)), evaluator.evaluate(make_config(B)), 300, 4)
    counts = comparison["counts"]
    assert (counts["better"], counts["worse"], counts["recovered"], counts["newly_lost"]) == (
        core.better,
        core.worse,
        core.recovered,
        core.newly_lost,
    )
    assert comparison["transitions"]["states"] == list(STATES)
    assert [m["id"] for m in comparison["moved"]] == [m.question_id for m in core.moved]
    assert {group["group"] for group in comparison["by_tag"]} >= {"en", "ja", "exact-term", "paraphrase"}
    assert all("p_value" in t for group in comparison["by_tag"] for t in group["tests"])
    assert [c["label"] for c in report["configs"]] == [core.a.label, core.b.label]
    assert "diagnosis" in report["configs"][0]


def test_csv_and_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str], sample: Dataset) -> None:
    csv_path, md_path = tmp_path / "moves.csv", tmp_path / "compare.md"
    assert main(["compare", A, B, *FAST, "--csv", str(csv_path), "--markdown", str(md_path)]) == 0
    rows = list(csv.DictReader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    assert [row["question"] for row in rows] == [q.id for q in sample.questions.questions]
    assert {row["movement"] for row in rows} <= {"better", "worse", "same"}
    markdown = md_path.read_text(encoding="utf-8")
    assert "| A \\ B | 1 | 2-5 | 6-20 | pieces | miss | lost |" in markdown
    assert "Not significant does not mean equal." in markdown


def test_retriever_in_the_config_string(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "paragraph/bm25", "paragraph/overlap", *FAST, "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["comparison"]["b"]["retriever"].startswith("overlap")


@pytest.mark.parametrize(
    "arguments",
    [
        ["compare", "nosuch:size=1", "paragraph"],
        ["compare", "fixed:size=100,overlap=100", "paragraph"],
        ["compare", A, B, "--questions", "/nonexistent/questions.jsonl", "--corpus", "/nonexistent"],
    ],
)
def test_bad_input_exits_2_with_one_line(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert err.startswith("chunkscope: error:") and err.count("\n") == 1


def test_alpha_must_be_a_probability(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", A, B, "--alpha", "1.5"])
    assert exit_info.value.code == 2
