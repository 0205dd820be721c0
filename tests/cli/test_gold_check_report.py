"""``gold check``: its JSON report says why questions were left out, and the check reports its progress."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.analysis.gold import check_gold
from chunkscope.cli import main
from chunkscope.io.dataset import load_dataset

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CHROMA = FIXTURES / "chroma" / "questions_df.csv"
GOLD = FIXTURES / "gold"


def test_the_json_report_has_excluded_reasons_as_eval_has(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "gold.json"
    main(["gold", "check", "--chroma", str(CHROMA), "--json", str(report)])
    capsys.readouterr()
    loaded = json.loads(report.read_text(encoding="utf-8"))
    assert loaded["excluded_questions"] == 1
    assert loaded["excluded_reasons"] == {"reference not at its offsets": 1}


def test_the_check_reports_each_stage_up_to_its_total() -> None:
    dataset = load_dataset(GOLD / "corpus", GOLD / "planted.jsonl", lenient=True, trim=False)
    calls: list[tuple[str, int, int]] = []
    check = check_gold(dataset.corpus, dataset.questions, progress=lambda *call: calls.append(call))
    stages = list(dict.fromkeys(stage for stage, _, _ in calls))
    assert stages == ["counting evidence texts", "checking spans", "comparing questions"]
    counting = [(done, total) for stage, done, total in calls if stage == "counting evidence texts"]
    assert counting[-1][0] == counting[-1][1] > 0
    assert [done for done, _ in counting] == sorted(done for done, _ in counting)
    assert ("checking spans", check.questions, check.questions) in calls
