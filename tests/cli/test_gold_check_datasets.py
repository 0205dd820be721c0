"""gold check reads every --dataset format, and reports the questions each loader left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.cli import main

DATASETS = Path(__file__).parents[1] / "fixtures" / "datasets"
SAMPLE_CORPUS = Path(__file__).parents[2] / "src" / "chunkscope" / "sample_data" / "corpus"


@pytest.mark.parametrize(
    ("path", "extra", "questions", "excluded"),
    [
        (DATASETS / "hotpotqa" / "distractor.json", [], 3, 0),
        (DATASETS / "multihop_rag" / "MultiHopRAG.json", [], 3, 1),
        (DATASETS / "natural_questions" / "simplified.jsonl.gz", [], 2, 1),
        (DATASETS / "legalbench_rag" / "benchmarks" / "mixed.json", [], 3, 0),
        (DATASETS / "qasper" / "qasper-dev.json", [], 2, 2),
        (DATASETS / "passages" / "mtcb.jsonl", ["--corpus", str(SAMPLE_CORPUS)], 3, 0),
        (DATASETS / "hotpotqa" / "bad_facts.json", ["--skip-bad-gold"], 1, 2),
    ],
)
def test_gold_check_reads_the_format(
    path: Path, extra: list[str], questions: int, excluded: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gold", "check", "--dataset", str(path), *extra]) in (0, 1)  # 1: findings listed, not an error
    out, err = capsys.readouterr()
    assert f"{questions} questions ({excluded} excluded at load)" in out
    assert "recognised by its content" in err


def test_eval_refuses_a_bad_fact_in_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    # gold check lists bad facts as findings (below); eval still refuses the file at the first one
    assert main(["eval", "--dataset", str(DATASETS / "hotpotqa" / "bad_facts.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 + err.count("read as")  # the notice, then the one error line
    assert "bad_facts.json:2: field 'supporting_facts[0][1]': sentence 7 is outside paragraph" in err
