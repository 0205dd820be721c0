"""``chunkscope whatif`` on the command line: reports, the recommendation, bad input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator


def test_json_recommendation_recovers_what_it_says_when_evaluated(
    capsys: pytest.CaptureFixture[str], sample: Dataset
) -> None:
    assert main(["whatif", "--chunker", "fixed:size=120", "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)["whatif"]
    best = report["recommendation"]
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    outcome = evaluator.evaluate(make_config(best["spec"]))
    recovered = [r.question_id for r in outcome.questions if r.question_id in report["lost"] and not r.lost]
    assert recovered == best["recovered"] and recovered


def test_csv_and_markdown_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_csv, out_md = tmp_path / "w.csv", tmp_path / "w.md"
    code = main(["whatif", "--chunker", "recursive:size=90", "--csv", str(out_csv), "--markdown", str(out_md)])
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out_csv.read_text(encoding="utf-8"))))
    assert rows and {r["parameter"] for r in rows} == {"size"}
    assert all(int(r["value"]) > 90 for r in rows)
    markdown = out_md.read_text(encoding="utf-8")
    assert markdown.startswith("# Boundary what-if") and "## Settings" in markdown
    assert "Boundary what-if" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--chunker", "fixed:size=10,shift=20"], "shift must be between 0 and size - overlap - 1 (9), got 20"),
        (["--chunker", "fixed:size=0"], "size must be at least 1"),
        (["--corpus", "/nonexistent/corpus.jsonl"], "/nonexistent/corpus.jsonl"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(["whatif", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and err.startswith("chunkscope: error:")
