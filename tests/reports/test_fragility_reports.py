"""Fragility reports on the hand-worked fixture (tests/analysis/test_fragility.py works its states out)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from chunkscope.analysis.fragility import FragilityResult, fragility
from chunkscope.io.dataset import Dataset, load_dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.reports.eval import to_json
from chunkscope.reports.fragility import fragility_csv, fragility_markdown, fragility_report

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "fragility"


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return load_dataset(str(FIXTURE / "corpus"), str(FIXTURE / "questions.jsonl"))


@pytest.fixture(scope="module")
def result(dataset: Dataset) -> FragilityResult:
    return fragility(Evaluator(dataset.corpus, dataset.questions.questions), make_config("fixed:size=20"))


def test_json_holds_summary_neighbours_and_every_question(dataset: Dataset, result: FragilityResult) -> None:
    report = json.loads(to_json(fragility_report(dataset, result)))
    assert report["config"]["chunker"] == "fixed:size=20,overlap=0"
    assert [n["chunker"] for n in report["neighbours"]][3:5] == ["fixed:size=24,overlap=0", "fixed:size=20,overlap=1"]
    assert report["neighbours"][4]["rule"] == "overlap 5% of size"
    assert report["summary"] == {
        "questions": 5,
        "ok": 3,
        "robust_ok": 1,
        "fragile_ok": 2,
        "ok_nearby": 1,
        "not_ok": 1,
        "changed": 3,
        "mean_share": 0.25,
    }
    q5 = report["questions"][4]
    assert q5 == {
        "id": "q5",
        "base": "OK",
        "states": ["CUT", "CUT", "CUT", "CUT", "OK", "CUT", "CUT", "CUT"],
        "changed": 7,
        "share": 0.875,
        "verdict": "fragile OK",
        "mark": "~",
    }
    assert report["most_fragile"] == ["q5", "q3", "q2"]
    assert {"chunkscope_version", "inputs"} <= set(report)


def test_csv_has_one_column_per_neighbour(result: FragilityResult) -> None:
    rows = list(csv.reader(io.StringIO(fragility_csv(result))))
    assert rows[0] == [
        "question",
        "base",
        "changed",
        "neighbours",
        "share",
        "verdict",
        "size=16",
        "size=18",
        "size=22",
        "size=24",
        "overlap=1",
        "overlap=2",
        "overlap=3",
        "overlap=4",
    ]
    assert rows[3][:6] == ["q3", "CUT", "2", "8", "0.2500", "OK nearby"]
    assert rows[3][6:] == ["CUT", "CUT", "OK", "OK", "CUT", "CUT", "CUT", "CUT"]
    assert len(rows) == 6


def test_markdown_lists_the_most_fragile_first_and_bolds_changes(dataset: Dataset, result: FragilityResult) -> None:
    text = fragility_markdown(dataset, result)
    assert "| 5 | 3 | 1 | 2 | 1 | 1 | 3 | 0.2500 |" in text
    assert "## Most fragile questions (3 of 3 that change)" in text
    listed = [match.group(1) for line in text.splitlines() if (match := re.match(r"\| (q\d) \|", line))]
    assert listed == ["q5", "q3", "q2"]
    assert "| q2 | mandolin | fragile OK | 1/8 | OK | OK | OK | OK | **CUT** | OK | OK | OK | OK |" in text
    shorter = fragility_markdown(dataset, result, shown=1)
    assert "(1 of 3 that change)" in shorter and "| q3 |" not in shorter


def test_markdown_says_so_when_nothing_changes(dataset: Dataset) -> None:
    # Windows of 60 and more hold each 60-character document whole: every state is the same everywhere.
    steady = fragility(Evaluator(dataset.corpus, dataset.questions.questions), make_config("fixed:size=100"))
    assert steady.summary.changed == 0
    assert "Every question keeps its state under every neighbour." in fragility_markdown(dataset, steady)
