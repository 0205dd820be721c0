"""The registry drives every view: one registered entry reaches the summary, the tests, the gate,
every report, the terminal tables and the inspector's metrics table."""

from __future__ import annotations

import csv
import io

import pytest
from metric_cases import UNITS, hand_results
from rich.console import Console

from chunkscope.analysis import gate
from chunkscope.analysis.compare import compare, compare_all, metric_values
from chunkscope.cli import render
from chunkscope.errors import SpecError
from chunkscope.io.dataset import Dataset
from chunkscope.metrics.registry import REGISTRY, Metric
from chunkscope.metrics.summary import summarize
from chunkscope.reports.compare import compare_markdown, compare_report
from chunkscope.reports.eval import markdown_summary_table, summary_dict
from chunkscope.reports.sweep import sweep_csv, sweep_markdown, sweep_report
from chunkscope.results import Config, ConfigResult
from chunkscope.tui.widgets.summary_widgets import MetricsTable

# Three configurations over the four hand-built questions: ranks per question.
RANKS = {"fixed:size=100": (1, 3, 12, None), "fixed:size=200": (1, 8, 2, None), "paragraph": (4, 1, 15, None)}


def results() -> list[ConfigResult]:
    out = []
    for chunker, ranks in RANKS.items():
        questions = hand_results(ranks)
        out.append(ConfigResult(Config(chunker), summarize(questions, UNITS), questions, UNITS))
    return out


def expected_summary_keys() -> list[str]:
    """Registry order, with rank_buckets right after the last rank metric (no token window: those metrics absent)."""
    keys = [m.name for m in REGISTRY if m.applies is None]
    last_rank = max(i for i, m in enumerate(REGISTRY) if m.family == "rank")
    return [*keys[: last_rank + 1], "rank_buckets", *keys[last_rank + 1 :]]


def terminal(draw: object, *args: object) -> str:
    out = Console(record=True, width=300, color_system=None)
    draw(out, *args)  # type: ignore[operator]
    return out.export_text()


# ------------------------------------------------- every built-in metric, everywhere


def test_every_metric_is_in_the_summary_dict_in_order() -> None:
    summary = summarize(hand_results(), UNITS)
    entry = summary_dict(summary)
    assert list(entry) == expected_summary_keys()
    assert all(entry[m.name] == summary[m.name] for m in REGISTRY if m.applies is None)


def test_every_metric_is_a_gate_condition_with_its_kind_checked() -> None:
    for metric in REGISTRY:
        for name in metric.parse_names:
            if " " in name:
                continue  # a label with a space is no condition token
            assert gate.parse_condition(f"{name}>=1").metric == metric.name
        if metric.kind == "count":
            with pytest.raises(SpecError, match=f"count of {metric.unit}, not a share"):
                gate.parse_condition(f"{metric.name}<0.5")
        else:
            assert gate.parse_condition(f"{metric.name}<0.5").threshold == 0.5


def test_only_metrics_with_a_direction_can_be_worse_than_a_baseline() -> None:
    for metric in REGISTRY:
        if metric.better is None:
            with pytest.raises(SpecError, match="known better direction"):
                gate.check_worse_metrics([metric.name])
        else:
            assert gate.check_worse_metrics([metric.label]) == [metric.name]


def test_every_tested_metric_is_compared_and_labelled(sample: Dataset) -> None:
    a, b, c = results()
    comparison = compare(a, b, permutations=64)
    tested = REGISTRY.tested()
    assert [t.metric for t in comparison.tests] == [m.name for m in tested]
    table = compare_markdown(sample, comparison)
    view = terminal(render.comparison_view, sample, comparison)
    for metric in tested:
        assert f"| {metric.label} |" in table
        assert metric.label in view
    sweep = compare_all([a, b, c], permutations=64)
    header = next(csv.reader(io.StringIO(sweep_csv(sweep, [a, b, c]))))
    for metric in tested:
        assert {metric.name, f"{metric.name}_mark", f"{metric.name}_p_vs_best"} <= set(header)
        assert f" {metric.label} |" in sweep_markdown(sample, [a, b, c], sweep).splitlines()[6]


def test_every_listed_metric_is_a_row_of_the_inspector_table() -> None:
    table = MetricsTable()
    table.show(results()[:1])
    rows = {row[0]: row[1] for row in table.rows()[1:]}
    summary = results()[0].summary
    for metric in REGISTRY.tested():
        assert rows[metric.heading] == f"{metric.question_mean(summary):.3f}"
    assert rows["lost (evidence cut)"] == "1"
    assert rows["indexed chars"] == "23"
    listed = {m.heading for m in REGISTRY if m.name not in ("questions", "evidence_exists") and m.applies is None}
    assert set(rows) == listed


# ---------------------------------------------- one new entry reaches every view


def test_a_registered_rank_metric_reaches_every_view(recall_at_10: Metric, sample: Dataset) -> None:
    a, b, c = results()  # summarised after registration
    # Recall@10 of a: ranks 1 and 3 of 1, 3, 12, None.
    assert a.summary["recall_at_10"] == 2 / 4
    assert list(summary_dict(a.summary)) == expected_summary_keys()
    assert "recall_at_10" in expected_summary_keys()
    values = metric_values(a)
    assert values[[m.name for m in REGISTRY.tested()].index("recall_at_10")].tolist() == [1, 1, 0, 0]

    comparison = compare(a, b, permutations=64)
    assert comparison.test("recall_at_10").mean_b == 3 / 4  # b: ranks 1, 8 and 2
    assert "| R@10 |" in compare_markdown(sample, comparison)
    assert "recall_at_10" in [t["metric"] for t in compare_report(sample, [a, b], comparison)["comparison"]["tests"]]
    assert "R@10" in terminal(render.comparison_view, sample, comparison)

    sweep = compare_all([a, b, c], permutations=64)
    header = next(csv.reader(io.StringIO(sweep_csv(sweep, [a, b, c]))))
    first = header.index("recall_at_5")
    assert header[first : first + 3] == ["recall_at_5", "recall_at_10", "recall_at_20"]
    assert "recall_at_10_mark" in header and "recall_at_10_p_vs_best" in header
    assert "R@10" in sweep_markdown(sample, [a, b, c], sweep)
    assert "recall_at_10" in sweep_report(sample, [a, b, c], sweep)["metrics"]

    header_row, _, row = markdown_summary_table([a])
    cells = dict(zip(header_row.split(" | "), row.split(" | "), strict=True))
    assert cells["R@10"] == "0.5000" and cells["R@20"] == "0.7500"
    assert "R@10" in terminal(render.eval_table, sample, [a, b])
    assert "R@10" in terminal(render.sweep_table, "sweep", sweep, [a, b, c])

    assert gate.parse_condition("R@10<0.6").metric == "recall_at_10"
    failures = gate.check_conditions([a, b], [gate.parse_condition("r@10<0.6")])
    assert [f.config.chunker for f in failures] == ["fixed:size=100"]  # b: 3/4
    assert gate.check_worse_metrics(["recall@10"]) == ["recall_at_10"]

    table = MetricsTable()
    table.show([a])
    assert ["R@10", "0.500"] in table.rows()


def test_a_registered_count_reaches_the_summary_gate_and_inspector(truncated: Metric) -> None:
    (a, *_) = results()
    assert a.summary["truncated_chunks"] == 0
    assert list(summary_dict(a.summary))[-1] == "truncated_chunks"
    assert gate.parse_condition("cut>0").metric == "truncated_chunks"
    with pytest.raises(SpecError, match="truncated_chunks is a count of chunks, not a share"):
        gate.parse_condition("truncated_chunks<0.5")
    with pytest.raises(SpecError, match="known better direction"):
        gate.check_worse_metrics(["truncated_chunks"])
    assert "truncated_chunks" not in [m.name for m in REGISTRY.tested()]
    table = MetricsTable()
    table.show([a])
    assert table.rows()[-1] == ["truncated chunks", "0"]
    assert truncated.definition == "Sum over the questions of: Delivered chunks whose body was cut to fit the budget."
