"""Sweep reports carry each configuration's index cost and frontier flag, the grid, and rerank columns."""

from __future__ import annotations

import csv
import io
import json

import pytest

from chunkscope.analysis.compare import compare_all
from chunkscope.analysis.comparison import ComparisonSet
from chunkscope.analysis.rerank import rank_metric_names
from chunkscope.cli import main
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.reports.sweep import ParetoChoice, grid_value_text, sweep_csv, sweep_markdown, sweep_report
from chunkscope.results import ConfigResult

SPECS = ("fixed:size=200", "fixed:size=200,overlap=40", "fixed:size=400", "paragraph")
RERANK = "rerank:first=bm25,by=test-count"


@pytest.fixture(scope="module")
def sweep(sample: Dataset) -> tuple[ComparisonSet, list[ConfigResult]]:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    results = [evaluator.evaluate(make_config(spec)) for spec in SPECS]
    return compare_all(results, permutations=200, seed=0), results


def on_frontier(points: list[tuple[int, float]]) -> list[bool]:
    """Brute force: no other point costs no more, scores no less, and differs."""
    return [not any(c <= cost and v >= value and (c, v) != (cost, value) for c, v in points) for cost, value in points]


def test_csv_flags_the_frontier_of_the_chosen_metric_and_cost(
    sweep: tuple[ComparisonSet, list[ConfigResult]],
) -> None:
    comparisons, results = sweep
    rows = list(
        csv.DictReader(io.StringIO(sweep_csv(comparisons, results, pareto=ParetoChoice("mrr_at_10", "indexed_chars"))))
    )
    points = [(int(r["indexed_chars"]), float(r["mrr_at_10"])) for r in rows]
    assert [r["pareto_mrr_at_10_indexed_chars"] == "true" for r in rows] == on_frontier(points)
    assert [int(r["indexed_chars"]) for r in rows] == [r.summary["indexed_chars"] for r in results]


def test_json_marks_each_configuration_and_lays_out_the_grid(
    sample: Dataset, sweep: tuple[ComparisonSet, list[ConfigResult]]
) -> None:
    comparisons, results = sweep
    report = sweep_report(sample, results, comparisons)
    points = [(c["summary"]["index_chunks"], c["summary"]["recall_at_5"]) for c in report["configs"]]
    assert [c["pareto"] for c in report["configs"]] == on_frontier(points)
    assert report["pareto"]["metric"] == "recall_at_5" and report["pareto"]["cost"] == "index_chunks"
    frontier = [c["label"] for c in report["configs"] if c["pareto"]]
    assert sorted(report["pareto"]["frontier"]) == sorted(frontier)
    grid = report["grid"]
    assert grid["rows"] == [{"family": "fixed", "size": 200}, {"family": "fixed", "size": 400}]
    assert (grid["overlaps"], grid["overlap_unit"]) == ([0, 40], "size")
    assert grid["cells"] == [[results[0].config.label, results[1].config.label], [results[2].config.label, None]]
    assert grid["off_grid"] == [results[3].config.label]
    json.dumps(report)


def test_markdown_has_the_map_with_holes_and_the_frontier_table(
    sample: Dataset, sweep: tuple[ComparisonSet, list[ConfigResult]]
) -> None:
    comparisons, results = sweep
    text = sweep_markdown(sample, results, comparisons)
    assert "## Sweep map: R@5" in text
    row_400 = next(line for line in text.splitlines() if line.startswith("| `fixed` | 400 |"))
    assert row_400.endswith(" | · |")  # no fixed:size=400,overlap=40 in the sweep
    assert "Off the grid (no size parameter): `paragraph/bm25`" in text
    assert "| configuration | chunks | indexed chars | R@5 |" in text


def test_grid_values_drop_the_leading_zero() -> None:
    assert [grid_value_text(v) for v in (0.7421, 1.0, 0.0)] == [".742", "1.000", ".000"]


def _csv(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, str]]:
    assert main(list(argv)) == 0
    return list(csv.DictReader(io.StringIO(capsys.readouterr().out)))


def test_sweep_csv_carries_the_rerank_columns(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("sweep", "--size", "200,400", "--permutations", "100", "--csv", "-")
    plain = _csv(capsys, *argv)
    assert "rerank_first_stage" not in plain[0]
    reranked = _csv(capsys, *argv, "--retriever", RERANK, "--by-tag", "--groups", "auto")
    first = reranked[0]
    assert first["rerank_first_stage"].startswith("bm25")
    for name in rank_metric_names():
        assert f"{name}_first_stage" in first
    assert float(first["rerank_seconds_p95"]) >= 0 and float(first["rerank_seconds_mean"]) >= 0
    assert int(first["rerank_improved"]) >= 0
    # the first stage is measured on every question: tag rows leave the columns empty
    assert all(r["rerank_first_stage"] == "" for r in reranked if r["group"] != "all")


def test_sweep_csv_first_stage_values_are_the_first_stage_alone(capsys: pytest.CaptureFixture[str]) -> None:
    reranked = _csv(capsys, "sweep", "--size", "200,400", "--permutations", "100", "--retriever", RERANK, "--csv", "-")
    plain = _csv(capsys, "sweep", "--size", "200,400", "--permutations", "100", "--csv", "-")
    for after, before in zip(reranked, plain, strict=True):
        assert after["recall_at_5_first_stage"] == before["recall_at_5"]


def test_compare_csv_carries_each_sides_rank_change(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _csv(capsys, "compare", "fixed:size=200", f"fixed:size=200/{RERANK}", "--permutations", "100", "--csv", "-")
    assert {"first_stage_rank_a", "rank_change_a", "first_stage_rank_b", "rank_change_b"} <= set(rows[0])
    assert all(r["first_stage_rank_a"] == "" and r["rank_change_a"] == "" for r in rows)  # A does not rerank
    for row in rows:
        if row["first_stage_rank_b"] and row["rank_b"]:
            assert int(row["rank_change_b"]) == int(row["first_stage_rank_b"]) - int(row["rank_b"])
    plain = _csv(capsys, "compare", "fixed:size=200", "fixed:size=400", "--permutations", "100", "--csv", "-")
    assert "rank_change_b" not in plain[0]


def test_pareto_options(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _csv(
        capsys,
        "sweep",
        "--size",
        "200,400",
        "--permutations",
        "100",
        "--pareto-metric",
        "MRR@10",
        "--pareto-cost",
        "chars",
        "--csv",
        "-",
    )
    assert "pareto_mrr_at_10_indexed_chars" in rows[0]
    with pytest.raises(SystemExit) as raised:
        main(["sweep", "--pareto-metric", "lost"])
    assert raised.value.code == 2
    assert "--pareto-metric" in capsys.readouterr().err


def test_terminal_names_the_frontier(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "--size", "200,400", "--overlap", "0,0.2", "--permutations", "100"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("Pareto frontier"))
    # on the sample data: 400 (55 chunks, R@5 .725) and 400/80 (66 chunks, .900); both 200s cost more, score less
    assert line == (
        "Pareto frontier of R@5 against chunks in the index, cheapest first: fixed:size=400/bm25 (55 chunks, 0.7250), "
        "fixed:size=400,overlap=80/bm25 (66 chunks, 0.9000)"
    )


def test_each_tag_group_has_its_own_frontier(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sweep", "--size", "100,200,400", "--overlap", "0,0.2", "--permutations", "100", "--by-tag", "--json", "-"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    groups = [report, *report["by_tag"]]
    assert len(groups) > 1
    for group in groups:
        points = [(c["summary"]["index_chunks"], c["summary"]["recall_at_5"]) for c in group["configs"]]
        assert [c["pareto"] for c in group["configs"]] == on_frontier(points), group["group"]
        assert sorted(group["pareto"]["frontier"]) == sorted(c["label"] for c in group["configs"] if c["pareto"])
