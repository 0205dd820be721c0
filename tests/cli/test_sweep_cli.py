"""``chunkscope sweep``: the grid, the published preset, marks and the corrected tests."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.cli.sweep_cmd import grid_chunkers, overlap_chars
from chunkscope.pipeline.config import PUBLISHED_CHUNKERS

FAST = ["--permutations", "300"]


@pytest.mark.parametrize(
    ("size", "overlap", "chars"), [(100, 0.2, 20), (200, 0.2, 40), (800, 0.2, 160), (400, 0.0, 0), (400, 150, 150)]
)
def test_overlap_fraction_or_characters(size: int, overlap: float, chars: int) -> None:
    assert overlap_chars(size, overlap) == chars


def test_grid_skips_invalid_combinations_with_a_note() -> None:
    specs, notes = grid_chunkers([100, 200], [0, 0.5, 150])
    # 100 with 150 characters of overlap cannot exist; 200 with 150 can.
    assert specs == [
        "fixed:size=100",
        "fixed:size=100,overlap=50",
        "fixed:size=200",
        "fixed:size=200,overlap=100",
        "fixed:size=200,overlap=150",
    ]
    assert notes == ["skipped size 100 with overlap 150 (150 characters >= size)"]


def test_default_is_the_published_eight(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", *FAST, "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    chunkers = [c["chunker"] for c in report["configs"]]
    assert len(chunkers) == 8 == len(PUBLISHED_CHUNKERS)
    assert chunkers[0] == "fixed:size=100,overlap=0" and chunkers[-1].startswith("paragraph")
    assert "fixed:size=800,overlap=160" in chunkers
    # 28 pairs x 9 metrics (R@5, R@20, MRR@10, nDCG@10, complete and the 4 overlap rates), Holm-corrected together.
    assert len(report["pairs"]) == 28 == comb(8, 2)
    assert report["family_size"] == 252
    for pair in report["pairs"]:
        assert pair["test_settings"]["correction"] == "holm"
        assert all("p_value" in t and t["p_value"] >= t["p_value_raw"] for t in pair["tests"])
        assert set(pair["counts"]) >= {"better", "worse", "recovered", "newly_lost"}
    for metric in report["metrics"]:
        marks = [c["marks"][metric] for c in report["configs"]]
        assert marks.count("best") == 1
        best = max(c["summary"][metric] for c in report["configs"])
        assert report["configs"][marks.index("best")]["summary"][metric] == best
    assert report["policy"]["cutoffs"]["ndcg"] == 10


def test_grid_with_extra_chunker(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sweep", "--size", "100,200", "--overlap", "0,150", "--chunker", "paragraph", *FAST, "--json", "-"])
    assert code == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert [c["chunker"] for c in report["configs"]] == [
        "fixed:size=100,overlap=0",
        "fixed:size=200,overlap=0",
        "fixed:size=200,overlap=150",
        "paragraph",
    ]
    assert "skipped size 100 with overlap 150" in captured.err
    assert report["family_size"] == comb(4, 2) * 9


def test_table_marks_and_legend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "--size", "200,400", "--chunker", "paragraph", *FAST]) == 0
    out = capsys.readouterr().out
    assert "★" in out
    assert "3 pairs × 9 metrics = 27 tests" in out
    assert "does not mean equal" in out


def test_markdown_and_csv_by_tag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    md, table = tmp_path / "sweep.md", tmp_path / "sweep.csv"
    assert (
        main(
            [
                "sweep",
                "--size",
                "200",
                "--overlap",
                "0,0.2",
                *FAST,
                "--by-tag",
                "--markdown",
                str(md),
                "--csv",
                str(table),
            ]
        )
        == 0
    )
    text = md.read_text(encoding="utf-8")
    assert "## tag `paraphrase`" in text and "**" in text
    rows = table.read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("group,questions,configuration")
    assert sum(row.startswith("all,") for row in rows) == 2
    assert any(row.startswith("exact-term,22,") for row in rows)


def test_overlap_without_size_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "--overlap", "0.2"]) == 2
    assert "--overlap needs --size" in capsys.readouterr().err


def test_bad_size_list_is_an_argparse_error() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["sweep", "--size", "100,abc"])
    assert exit_info.value.code == 2
