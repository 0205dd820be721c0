"""Sweep reports (``chunkscope sweep``) as JSON, CSV and Markdown.

A sweep tests every pair of configurations, Holm-corrected within each question
group (:func:`chunkscope.analysis.compare.compare_all`); each configuration's
tested metrics are marked ``best`` (highest mean) or ``worse`` (significantly
below the best after correction). Columns and labels of the tested metrics
come from the comparison set, which takes them from
:data:`chunkscope.metrics.registry.REGISTRY`.

Every report also places the configurations on the sweep map
(:mod:`chunkscope.analysis.sweepmap`): each configuration's index cost (chunks and
indexed characters) and whether it is on the Pareto frontier of one cost (chunks
by default) against one tested metric (the first, ``recall_at_5``, by default),
and in JSON and Markdown the size x overlap grid.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chunkscope.analysis.comparison import NOT_SIGNIFICANT_NOTE, ComparisonSet
from chunkscope.analysis.sweepmap import Cost, SweepGrid, SweepMap, sweep_map
from chunkscope.analysis.sweepmap import sweep_marks as analysis_sweep_marks
from chunkscope.io.sources import Dataset
from chunkscope.metrics.registry import REGISTRY
from chunkscope.reports.compare import comparison_dict, delivery_text, header_lines, summary_entry
from chunkscope.reports.equivalence import PairEquivalence
from chunkscope.reports.equivalence import sweep_dict as equivalence_sweep_dict
from chunkscope.reports.equivalence import sweep_markdown_lines as equivalence_sweep_markdown
from chunkscope.reports.eval import provenance
from chunkscope.reports.format import metric_label, summary_cell
from chunkscope.reports.rerank import RerankEffects, rerank_dict, summary_csv_cells, summary_csv_columns
from chunkscope.reports.rerank import markdown_section as rerank_markdown
from chunkscope.results import ConfigResult

SWEEP_TABLE_LEAD = ("index_chunks", "lost", "pieces")
"""Metrics shown before the tested ones in every sweep table and CSV row."""


@dataclass(frozen=True, slots=True)
class ParetoChoice:
    """Which frontier the reports mark: one tested metric (None: the first) against one index cost."""

    metric: str | None = None
    cost: Cost = "index_chunks"

    def map(self, comparisons: ComparisonSet, results: Sequence[ConfigResult]) -> SweepMap:
        """The sweep map of this metric and cost."""
        return sweep_map(comparisons, results, self.metric, self.cost)


def sweep_marks(comparisons: ComparisonSet, metric: str) -> list[str]:
    """Per configuration: ``best``, ``worse`` (significantly below the best after correction) or ``""``."""
    return list(analysis_sweep_marks(comparisons, metric))


def sweep_dict(
    comparisons: ComparisonSet, results: Sequence[ConfigResult], pareto: ParetoChoice = ParetoChoice()
) -> dict[str, Any]:
    """One question group of a sweep: per configuration metrics, marks and frontier flag, plus every pairwise test."""
    view = pareto.map(comparisons, results)
    rows = []
    for index, result in enumerate(results):
        row = summary_entry(result)
        row["marks"] = {metric: sweep_marks(comparisons, metric)[index] for metric in comparisons.metrics}
        row["pareto"] = view.points[index].pareto
        rows.append(row)
    return {
        "group": comparisons.group,
        "questions": results[0].summary.questions if results else 0,
        "configs": rows,
        "best": {metric: comparisons.configs[comparisons.best(metric)].label for metric in comparisons.metrics},
        "pareto": {
            "metric": view.metric,
            "cost": view.cost,
            "frontier": [point.label for point in view.frontier],
        },
        "family_size": comparisons.family_size,
        "correction": "holm",
        "pairs": [comparison_dict(pair, with_moves=False, with_tags=False) for pair in comparisons.pairs],
    }


def grid_dict(grid: SweepGrid, results: Sequence[ConfigResult]) -> dict[str, Any]:
    """The size x overlap grid: rows, overlap columns and each cell's configuration label (None: not swept)."""
    return {
        "rows": [{"family": family, "size": size} for family, size in grid.rows],
        "overlaps": list(grid.columns),
        "overlap_unit": grid.column_unit,
        "cells": [[None if cell is None else results[cell].config.label for cell in row] for row in grid.cells],
        "off_grid": [results[index].config.label for index in grid.off_grid],
    }


def sweep_report(
    dataset: Dataset,
    results: Sequence[ConfigResult],
    comparisons: ComparisonSet,
    tag_results: Sequence[Sequence[ConfigResult]] = (),
    equivalence: Sequence[PairEquivalence] | None = None,
    rerank: RerankEffects | None = None,
    pareto: ParetoChoice = ParetoChoice(),
) -> dict[str, Any]:
    """The ``chunkscope sweep`` JSON report.

    ``tag_results[i]`` are the results restricted to ``comparisons.by_tag[i]``'s questions (each group
    marks its own frontier). ``equivalence`` (every pair's TOST, with a margin) and ``rerank`` add their
    entries only when given.
    """
    report = {
        **provenance(dataset),
        "note": NOT_SIGNIFICANT_NOTE,
        "family": "every (pair, metric) test of one question group; each tag is its own family",
        "metrics": list(comparisons.metrics),
        **sweep_dict(comparisons, results, pareto),
        "grid": grid_dict(pareto.map(comparisons, results).grid, results),
        "excluded_questions": dataset.questions.excluded,
    }
    if comparisons.by_tag:
        report["by_tag"] = [
            sweep_dict(group, group_results, pareto)
            for group, group_results in zip(comparisons.by_tag, tag_results, strict=True)
        ]
    if equivalence is not None:
        report["equivalence"] = equivalence_sweep_dict(comparisons, equivalence, "holm")
    if rerank:
        report["rerank"] = [
            {"config": r.config.label, **rerank_dict(rerank[r.config])} for r in results if r.config in rerank
        ]
    return report


def sweep_csv_columns(metrics: Sequence[str], pareto: SweepMap | None = None) -> tuple[str, ...]:
    """The CSV header: group, configuration, the lead metrics, then each tested metric's mean, mark and p,
    then the indexed characters and the frontier flag (``pareto_<metric>_<cost>``) when ``pareto`` is given."""
    return (
        "group",
        "questions",
        "configuration",
        "chunker",
        "retriever",
        *SWEEP_TABLE_LEAD,
        *metrics,
        *(f"{metric}_mark" for metric in metrics),
        *(f"{metric}_p_vs_best" for metric in metrics),
        *(("indexed_chars", f"pareto_{pareto.metric}_{pareto.cost}") if pareto is not None else ()),
    )


def sweep_csv(
    comparisons: ComparisonSet,
    results: Sequence[ConfigResult],
    tag_results: Sequence[Sequence[ConfigResult]] = (),
    equivalence: Sequence[PairEquivalence] | None = None,
    rerank: RerankEffects | None = None,
    pareto: ParetoChoice = ParetoChoice(),
) -> str:
    """One row per (question group, configuration): metrics, marks, the corrected p-value against the best,
    the indexed characters and whether the configuration is on the group's Pareto frontier.

    With ``equivalence``, ``METRIC_equivalence_vs_best`` columns hold each configuration's TOST verdict
    against the best configuration of that metric (group ``all`` only; empty for the best itself). With
    ``rerank``, :func:`chunkscope.reports.rerank.summary_csv_columns` follow (group ``all`` only: the
    first stage is measured on every question).
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = sweep_csv_columns(comparisons.metrics, pareto.map(comparisons, results))
    if equivalence is not None:
        header += tuple(f"{metric}_equivalence_vs_best" for metric in comparisons.metrics)
    if rerank:
        header += summary_csv_columns()
    writer.writerow(header)
    groups = [(comparisons, results), *zip(comparisons.by_tag, tag_results, strict=True)]
    for group, group_results in groups:
        marks = {metric: sweep_marks(group, metric) for metric in group.metrics}
        frontier = pareto.map(group, group_results).points
        for index, result in enumerate(group_results):
            s = result.summary
            writer.writerow(
                [
                    group.group,
                    s.questions,
                    result.config.label,
                    result.config.chunker,
                    result.config.retriever,
                    *(s[name] for name in SWEEP_TABLE_LEAD),
                    *(f"{mean:.6f}" for mean in group.means[index]),
                    *(marks[m][index] for m in group.metrics),
                    *(_p_against_best(group, m, index) for m in group.metrics),
                    s["indexed_chars"],
                    "true" if frontier[index].pareto else "false",
                    *(
                        _verdict_against_best(group, equivalence, m, index) if group is comparisons else ""
                        for m in (group.metrics if equivalence is not None else ())
                    ),
                    *(summary_csv_cells(rerank.get(result.config) if group is comparisons else None) if rerank else ()),
                ]
            )
    return buffer.getvalue()


def _verdict_against_best(
    comparisons: ComparisonSet, equivalence: Sequence[PairEquivalence] | None, metric: str, index: int
) -> str:
    best = comparisons.best(metric)
    if equivalence is None or index == best:
        return ""
    low, high = min(index, best), max(index, best)
    position = next(
        p
        for p, pair in enumerate(comparisons.pairs)
        if pair.a == comparisons.configs[low] and pair.b == comparisons.configs[high]
    )
    test = equivalence[position][list(comparisons.metrics).index(metric)]
    return "" if test is None else test.verdict_text


def _p_against_best(comparisons: ComparisonSet, metric: str, index: int) -> str:
    best = comparisons.best(metric)
    if index == best:
        return ""
    return f"{comparisons.pair(min(index, best), max(index, best)).test(metric).p_value:.6g}"


def sweep_markdown(
    dataset: Dataset,
    results: Sequence[ConfigResult],
    comparisons: ComparisonSet,
    tag_results: Sequence[Sequence[ConfigResult]] = (),
    equivalence: Sequence[PairEquivalence] | None = None,
    rerank: RerankEffects | None = None,
    pareto: ParetoChoice = ParetoChoice(),
) -> str:
    """The sweep table (best per metric in bold, ``↓`` = significantly below the best, ``◆`` = on the
    Pareto frontier) per question group, then the sweep map of the frontier's metric.

    ``equivalence`` adds every pair's TOST verdicts, ``rerank`` a section per reranking configuration.
    """
    lines = [f"# chunkscope sweep: {dataset.name}", "", *header_lines(dataset)]
    lines += [
        f"{len(results)} configurations; {delivery_text(results[0].config)}; {results[0].summary.questions} questions.",
        "",
    ]
    view = pareto.map(comparisons, results)
    lines += markdown_sweep_table(comparisons, results, view)
    lines += ["", sweep_legend(comparisons), "", pareto_legend(view)]
    for group, group_results in zip(comparisons.by_tag, tag_results, strict=True):
        lines += ["", f"## tag `{group.group}` ({group_results[0].summary.questions} questions)", ""]
        lines += markdown_sweep_table(group, group_results, pareto.map(group, group_results))
    lines += markdown_sweep_map(view)
    if equivalence is not None:
        lines += equivalence_sweep_markdown(comparisons, equivalence)
    if rerank:
        lines += rerank_markdown(results, rerank)
    return "\n".join(lines) + "\n"


def sweep_legend(comparisons: ComparisonSet) -> str:
    """What the marks mean, and the family the correction ran over."""
    pairs = len(comparisons.pairs)
    return (
        f"**Bold**: best mean per metric. ↓: below the best with Holm-corrected p < {comparisons.alpha} "
        f"({pairs} pairs × {len(comparisons.metrics)} metrics = {comparisons.family_size} tests, paired sign-flip "
        f"permutation test). No mark: no detectable difference from the best — not significant does not mean equal."
    )


COST_WORDS = {"index_chunks": "chunks in the index", "indexed_chars": "characters in the index"}
"""How each index cost reads in a sentence."""


def pareto_legend(view: SweepMap) -> str:
    """What ``◆`` means for this map's metric and cost."""
    return (
        f"◆: on the Pareto frontier of {metric_label(view.metric)} against {COST_WORDS[view.cost]}: no other "
        f"configuration has no more of them and a mean no lower, and is better in one of the two."
    )


def grid_value_text(value: float) -> str:
    """A mean in three decimals without the leading zero: ``.742`` (``1.000`` for one)."""
    text = f"{value:.3f}"
    return text[1:] if text.startswith("0.") else text


def grid_cell_text(view: SweepMap, index: int | None) -> str:
    """One Markdown grid cell: the value, bold for the best, ``↓`` below it, ``◆`` on the frontier; ``·`` empty."""
    if index is None:
        return "·"
    point = view.points[index]
    value = grid_value_text(point.value)
    text = f"**{value}**" if point.mark == "best" else (f"{value} ↓" if point.mark == "worse" else value)
    return text + (" ◆" if point.pareto else "")


def markdown_sweep_map(view: SweepMap) -> list[str]:
    """``## Sweep map``: the size x overlap grid of one metric, the configurations off it, and the frontier."""
    grid = view.grid
    label = metric_label(view.metric)
    lines = ["", f"## Sweep map: {label}", ""]
    if grid.rows:
        unit = "per cent of the size" if grid.column_unit == "percent" else "the size's unit (characters or tokens)"
        lines += [f"Rows: chunker and size; columns: overlap in {unit}; · = not swept.", ""]
        headers = [f"overlap {grid.column_text(c)}" for c in range(len(grid.columns))]
        lines += ["| chunker | size | " + " | ".join(headers) + " |", "|---|---:|" + "---:|" * len(headers)]
        for (family, size), row in zip(grid.rows, grid.cells, strict=True):
            lines.append(f"| `{family}` | {size} | " + " | ".join(grid_cell_text(view, cell) for cell in row) + " |")
        lines.append("")
    if grid.off_grid:
        off = ", ".join(f"`{view.points[i].label}` {grid_cell_text(view, i)}" for i in grid.off_grid)
        lines += [f"Off the grid (no size parameter): {off}.", ""]
    lines += [
        f"Pareto frontier, cheapest first ({COST_WORDS[view.cost]} against {label}):",
        "",
        f"| configuration | chunks | indexed chars | {label} |",
        "|---|---:|---:|---:|",
    ]
    lines += [f"| `{p.label}` | {p.chunks} | {p.indexed_chars} | {p.value:.4f} |" for p in view.frontier]
    return lines


def markdown_sweep_table(
    comparisons: ComparisonSet, results: Sequence[ConfigResult], view: SweepMap | None = None
) -> list[str]:
    """Every configuration with chunk count, lost and each tested metric, marked (``◆``: on ``view``'s frontier)."""
    lead = [REGISTRY[name] for name in SWEEP_TABLE_LEAD]
    headers = [m.label for m in lead] + [metric_label(m) for m in comparisons.metrics]
    if view is not None:
        headers.append("Pareto")
    lines = [
        "| configuration | " + " | ".join(headers) + " |",
        "|---|" + "---:|" * len(headers),
    ]
    marks = {metric: sweep_marks(comparisons, metric) for metric in comparisons.metrics}
    for index, result in enumerate(results):
        cells = []
        for column, metric in enumerate(comparisons.metrics):
            value = f"{comparisons.means[index][column]:.4f}"
            mark = marks[metric][index]
            cells.append(f"**{value}**" if mark == "best" else (f"{value} ↓" if mark == "worse" else value))
        if view is not None:
            cells.append("◆" if view.points[index].pareto else "")
        sizes = [summary_cell(m, result.summary) for m in lead]
        lines.append(f"| `{result.config.label}` | " + " | ".join(sizes + cells) + " |")
    return lines
