"""Golden files: the bytes of every report format on the sample data are the contract.

A failing test prints the diff. When a change is meant to alter a report, regenerate with

    CHUNKSCOPE_REGEN_GOLDEN=1 pytest tests/cli/test_golden.py

and review ``git diff tests/golden`` before committing.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest

from chunkscope.analysis.compare import compare
from chunkscope.cli import main
from chunkscope.io.dataset import Dataset, sample_paths
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.reports.casefile import case_file

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
REGENERATE = bool(os.environ.get("CHUNKSCOPE_REGEN_GOLDEN"))

RUNS: dict[str, list[str]] = {
    "eval": ["eval"],
    "eval-budget": [
        "eval",
        "--chunker",
        "markdown",
        "--chunker",
        "parent:child=fixed:size=120,parent=markdown",
        "--chunker",
        "recursive:size=300,overlap=60",
        "--budget",
        "900",
        "--overflow",
        "truncate",
        "--top-k",
        "6",
    ],
    "eval-skip": ["eval", "--chunker", "fixed:size=300,overlap=100", "--budget", "700", "--overflow", "skip"],
    "compare": ["compare", "fixed:size=200", "paragraph", "--permutations", "2000"],
    "sweep": ["sweep", "--size", "200,400", "--overlap", "0,0.2", "--permutations", "2000"],
}
FORMATS = ("json", "csv", "markdown")
SUFFIX = {"json": "json", "csv": "csv", "markdown": "md"}


def _normalised(text: str) -> str:
    """Reports name their inputs by absolute path; the golden files say <SAMPLE> instead."""
    sample_dir = str(sample_paths()[0].parent)
    return text.replace(sample_dir, "<SAMPLE>")


def _check(name: str, produced: str) -> None:
    golden = GOLDEN / name
    if REGENERATE:
        golden.write_text(produced, encoding="utf-8", newline="")
        return
    expected = golden.read_text(encoding="utf-8")
    if produced != expected:
        if name.endswith(".json"):
            # One-line JSON diffs unreadably: show the difference between indented forms.
            expected, produced = (json.dumps(json.loads(t), indent=1, ensure_ascii=False) for t in (expected, produced))
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True), produced.splitlines(keepends=True), f"golden/{name}", "produced"
            )
        )
        pytest.fail(f"{name} differs from its golden file:\n{diff[:6000]}")


@pytest.mark.parametrize("run", sorted(RUNS))
def test_reports_match_golden_files(run: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = list(RUNS[run])
    for fmt in FORMATS:
        args += [f"--{fmt}", str(tmp_path / f"out.{SUFFIX[fmt]}")]
    main(args)
    capsys.readouterr()
    for fmt in FORMATS:
        produced = (tmp_path / f"out.{SUFFIX[fmt]}").read_text(encoding="utf-8")
        _check(f"{run}.{SUFFIX[fmt]}", _normalised(produced))


@pytest.mark.parametrize("question_id", ["q01", "q11", "q39"])
def test_case_file_matches_golden_file(question_id: str, sample: Dataset) -> None:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    a = evaluator.evaluate(make_config("fixed:size=200", budget=900, overflow="truncate"))
    b = evaluator.evaluate(make_config("fixed:size=200,overlap=40"))
    question = next(q for q in sample.questions.questions if q.id == question_id)
    text = case_file(question, sample.corpus, [a, b], sample.name, compare(a, b, permutations=200))
    _check(f"casefile-{question_id}.md", _normalised(text))


@pytest.mark.jsquad
def test_jsquad_summaries_match_golden_file(
    jsquad_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "jsquad.json"
    chunkers = ["fixed:size=400,overlap=80", "paragraph", "recursive:size=800,overlap=100", "markdown"]
    args = ["eval", "--squad", str(jsquad_path), "--json", str(out)]
    for chunker in chunkers:
        args += ["--chunker", chunker]
    main([*args, "--budget", "2000", "--overflow", "skip"])
    capsys.readouterr()
    report = json.loads(out.read_text(encoding="utf-8"))
    summaries = [{key: value for key, value in config.items() if key != "questions"} for config in report["configs"]]
    produced = json.dumps({"policy": report["policy"], "configs": summaries}, indent=1, ensure_ascii=False) + "\n"
    _check("jsquad-summary.json", produced)
