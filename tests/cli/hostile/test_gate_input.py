"""The CI gate: bad conditions and baselines that are not an eval report of the same policy."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import FAST, inputs, one_line_error, write

from chunkscope.cli import main
from chunkscope.metrics.policy import metric_policy


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ("lost>>0", "--fail-if 'lost>>0': expected METRIC OP NUMBER"),
        ("nonexistent<1", "--fail-if 'nonexistent<1': unknown metric 'nonexistent'; choose from questions"),
        ("recall_at_5<abc", "--fail-if 'recall_at_5<abc': expected METRIC OP NUMBER"),
        ("recall_at_5<nan", "expected METRIC OP NUMBER"),
        ("", "expected METRIC OP NUMBER"),
    ],
)
def test_bad_gate_condition(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], condition: str, message: str
) -> None:
    assert message in one_line_error(capsys, "eval", *inputs(files), *FAST, "--fail-if", condition)


def changed(report: dict[str, Any], edit: Callable[[dict[str, Any]], None]) -> str:
    copy = json.loads(json.dumps(report))
    edit(copy)
    return json.dumps(copy)


@pytest.mark.parametrize(
    ("make", "field", "message"),
    [
        (lambda report: "not json at all", None, "not a JSON report"),
        (lambda report: "[1]", None, "not a chunkscope report (expected a JSON object)"),
        (lambda report: "[" * 100_000 + "]" * 100_000, None, "nested too deeply"),
        (
            lambda report: changed(report, lambda r: r["policy"].update(ranking_depth=99)),
            "policy",
            "metric policy differs from this chunkscope's (differs in ranking_depth)",
        ),
        (lambda report: changed(report, lambda r: r.pop("policy")), "policy", "records no metric policy"),
        (
            lambda report: changed(report, lambda r: r["configs"][0]["summary"].update(recall_at_5=float("nan"))),
            "configs[0].summary.recall_at_5",
            "not a finite number",
        ),
        (
            lambda report: changed(report, lambda r: r["configs"][0].update(chunker="fixed:size=999")),
            "configs",
            "no configuration matches fixed:size=20,overlap=0/bm25",
        ),
    ],
    ids=["not-json", "json-list", "nested-too-deep", "other-policy", "no-policy", "nan-metric", "other-config"],
)
def test_bad_baseline(
    tmp_path: Path,
    files: dict[str, Path],
    baseline: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    make: Callable[[dict[str, Any]], str],
    field: str | None,
    message: str,
) -> None:
    assert baseline["policy"] == json.loads(json.dumps(metric_policy()))
    path = write(tmp_path / "bad-baseline.json", make(baseline))
    argv = [*inputs(files), *FAST, "--baseline", str(path), "--fail-if-worse", "recall_at_5"]
    error = one_line_error(capsys, "eval", *argv)
    where = f"{path}:1" if message == "not a JSON report" else str(path)  # a syntax error names its line
    assert error.startswith(f"chunkscope: error: {where}: " + (f"field '{field}': " if field else ""))
    assert message in error


def test_a_baseline_with_a_syntax_error_names_its_line(
    tmp_path: Path, files: dict[str, Path], baseline: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    # Indented, with one comma doubled (",,"): the error is on the line of "recall_at_5", which the message names.
    lines = json.dumps(baseline, indent=1).splitlines()
    number = next(i for i, line in enumerate(lines, start=1) if '"recall_at_5": ' in line)
    lines[number - 1] += ","
    path = write(tmp_path / "bad-baseline.json", "\n".join(lines) + "\n")
    argv = [*inputs(files), *FAST, "--baseline", str(path), "--fail-if-worse", "recall_at_5"]
    error = one_line_error(capsys, "eval", *argv)
    assert error.startswith(f"chunkscope: error: {path}:{number}: not a JSON report: invalid JSON: "), error


def test_a_baseline_in_other_budget_units_is_told_apart(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "chars.json"
    assert main(["eval", *inputs(files), *FAST, "--budget", "30", "--json", str(saved)]) == 0
    capsys.readouterr()
    tokens = ["--budget", "30", "--budget-unit", "tokens", "--budget-tokenizer", "cl100k"]
    argv = ["eval", *inputs(files), *FAST, *tokens, "--baseline", str(saved), "--fail-if-worse", "recall_at_5"]
    error = one_line_error(capsys, *argv)
    # The two sides differ only in the budget's unit: the message says so, not "budget 30 stop" twice.
    assert "(top-5, budget 30 cl100k tokens stop); the baseline has " in error
    assert error.endswith("(top-5, budget 30 stop)")
